/* SPDX-License-Identifier: MIT */
/*
 * The calling thread's state that every call reads before it owns a
 * context: its node, the handlers it is inside, a vfork child's tid and
 * the handlers held for it, in one thread-local block found at one address.
 */
#ifndef PKS_CTX_THREAD_H
#define PKS_CTX_THREAD_H

#include "base/compiler.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct pks_node;

/*
 * Each field has one writer, its file; depth and vfork_tid are read as one
 * word too (away), which is 0 when the thread is in no handler and in no
 * vfork child: pks_ctx_try()'s one test for both; so are sig_held and
 * cancel_due (after), what a call's end may have to do.
 */
struct pks_thread {
	struct pks_node *self;		/* ctx.c: its node, for pks_ctx_enter() */
	union {
		struct {
			int depth;	/* signals.c: handlers this thread is inside */
			pid_t vfork_tid;	/* spawn.c, vfork.c: after a vfork of this thread */
		};
		uint64_t away;
	};
	union {
		struct {
			bool sig_held;	/* signals.c: pks_signals_release() has work */
			bool cancel_due;	/* ctx.h: a cancellation point as the call ends */
		};
		uint16_t after;		/* either: pks_ctx_leave()'s one test */
	};
	bool cancel_async;		/* cancel.c: its cancellation is asynchronous */
};

extern PKS_TLS struct pks_thread pks_thread;

#endif
