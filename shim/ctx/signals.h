/* SPDX-License-Identifier: MIT */
/*
 * How many signal handlers the calling thread is inside, and the fatal
 * signals' stand-in handlers.
 */
#ifndef PKS_CTX_SIGNALS_H
#define PKS_CTX_SIGNALS_H

#include "base/compiler.h"

extern PKS_TLS int pks_depth;
int pks_sigdepth_slow(void);

/* How many handlers this thread is inside; the test is all a printk outside one pays. */
static inline int pks_sigdepth(void)
{
	return likely(pks_depth == 0) ? 0 : pks_sigdepth_slow();
}

void pks_signals_setup(void);

#endif
