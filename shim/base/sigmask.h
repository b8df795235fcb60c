/* SPDX-License-Identifier: MIT */
/*
 * Every signal held around a few system calls that no handler may cut or
 * leave by a jump: a slot or a lock taken, a thread made. The mask before
 * is kept for the caller to put back.
 */
#ifndef PKS_BASE_SIGMASK_H
#define PKS_BASE_SIGMASK_H

#include <pthread.h>
#include <signal.h>

/* Every signal blocked; the mask before in *@old. Async-signal-safe. */
static inline void pks_block_all(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, old);
}

#endif
