/* SPDX-License-Identifier: MIT */
/*
 * This process's pid without a system call per line, right in the child of
 * every fork, also one made without atfork handlers; and its threads.
 */
#ifndef PKS_BASE_PID_H
#define PKS_BASE_PID_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

extern _Atomic(_Atomic pid_t *) pks_pid_page;	/* the cache page, once mapped */

void pks_pid_setup(void);
pid_t pks_pid_slow(void);
bool pks_pid_differs(pid_t pid);
int pks_pid_threads(void);
bool pks_pid_thread_gone(long tid);

/**
 * pks_pid() - getpid(), cached until a fork. Async-signal-safe. Inline:
 * every deferred line asks.
 */
static inline pid_t pks_pid(void)
{
	/* acquire: pairs with the seq_cst compare-exchange that set pks_pid_page */
	_Atomic pid_t *pp = atomic_load_explicit(&pks_pid_page, memory_order_acquire);
	pid_t pid;

	/* no pair: the pid is all there is, and a process stores only its own */
	if (__builtin_expect(pp != 0, 1) &&
	    __builtin_expect((pid = atomic_load_explicit(pp, memory_order_relaxed)) != 0, 1))
		return pid;
	return pks_pid_slow();
}

#endif
