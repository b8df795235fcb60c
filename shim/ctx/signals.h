/* SPDX-License-Identifier: MIT */
/*
 * How many signal handlers the calling thread is inside, the handlers
 * held while the deferred ring's window is open, and the stand-ins for the
 * signals that end the process.
 */
#ifndef PKS_CTX_SIGNALS_H
#define PKS_CTX_SIGNALS_H

#include "base/compiler.h"
#include "ctx/thread.h"

#include <stdbool.h>

/*
 * What the contexts do when a handler ends. ctx/ctx.c hands them over
 * before it makes the first context (pks_ctx_setup()): this file sits below
 * the contexts and reaches them only through these. Before that there is
 * no line to write.
 */
struct pks_sig_ops {
	void (*handler_done)(int depth);	/* a handler at @depth returned: its line ends */
	void (*handler_left)(int depth);	/* left by siglongjmp down to @depth: a call it cut off never goes on */
	void (*crash)(void);			/* a fatal signal: every open line written, nothing waits */
};

int pks_sig_unwind_depth_slow(void);
void pks_signals_release(void);
void pks_signals_drain(void);
bool pks_signals_drain_held(void);
void pks_signals_let_go(bool kept);

/*
 * How many handlers this thread is inside, after those it left by
 * siglongjmp are unwound: their lines written, the calls they cut off
 * abandoned. The test is all a printk outside any handler pays.
 */
static inline int pks_sig_unwind_depth(void)
{
	return likely(pks_thread.depth == 0) ? 0 : pks_sig_unwind_depth_slow();
}

struct sigaction;
int pks_signals_set(int sig, const struct sigaction *act, struct sigaction *old);
void pks_signals_ops(const struct pks_sig_ops *ops);
void pks_signals_setup(void);
void pks_signals_pass(void);

#endif
