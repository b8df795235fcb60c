/* SPDX-License-Identifier: MIT */
/*
 * How many signal handlers the calling thread is inside, the handlers
 * held while the deferred ring's window is open, and the stand-ins for the
 * signals that end the process.
 */
#ifndef PKS_CTX_SIGNALS_H
#define PKS_CTX_SIGNALS_H

#include "base/compiler.h"

#include <stdbool.h>

extern PKS_TLS int pks_depth;
extern PKS_TLS bool pks_sig_held;	/* pks_signals_release() has work */
int pks_sigdepth_slow(void);
void pks_signals_release(void);

/* How many handlers this thread is inside; the test is all a printk outside one pays. */
static inline int pks_sigdepth(void)
{
	return likely(pks_depth == 0) ? 0 : pks_sigdepth_slow();
}

void pks_signals_setup(void);

#endif
