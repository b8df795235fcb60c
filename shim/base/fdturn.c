// SPDX-License-Identifier: MIT
/*
 * A descriptor the module makes (a socket, an output's file, an ELF file
 * it reads, a memfd) gets the lowest free number, where it stays until the
 * module moves it up (pks_fd_high()) or closes it. A program's thread that
 * closes or replaces descriptors meanwhile (a daemon's closefrom(3), a
 * dup2() onto that number) would have the module take the program's own
 * file at that number for its, and close it. So the two exclude each
 * other, each side announcing itself, then looking at the other (seq_cst,
 * as Dekker's flags): the program's calls (ctx/fds.c) wait for the module's
 * few system calls; the module steps back while the program's run, 100 ms
 * at most, then goes on (a close may block, a socket's with SO_LINGER).
 * Neither waits for its own thread (a handler inside the program's window).
 * The module's window holds every signal, so that no handler's jump leaves
 * it open, which would hold every close of the program 100 ms.
 * Thread-safety: any thread, and handlers.
 */
#include "base/fdturn.h"
#include "base/compiler.h"
#include "base/sigmask.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NAP_NS		50000	/* 50 us */
#define NAPS		2000	/* 100 ms */

static _Atomic int making, taking;	/* threads inside each side's window */
static PKS_TLS unsigned char making_here, taking_here;
static PKS_TLS sigset_t unheld;		/* the mask before the outermost making window */

/* The system call: the C library's nanosleep() is a cancellation point, which would leave a window open. */
static void nap(void)
{
	struct timespec t = { 0, NAP_NS };
	int saved = errno;

	syscall(SYS_nanosleep, &t, NULL);
	errno = saved;
}

/** pks_fd_making() - the module is about to make a descriptor: until pks_fd_made() */
void pks_fd_making(void)
{
	/* one inside a window of its thread's own (the program's call's drain): never waits */
	bool nested = making_here || taking_here;

	if (!making_here++)
		pks_block_all(&unheld);
	/* seq_cst, and the load below: pairs with pks_fd_taking()'s add and load */
	atomic_fetch_add(&making, 1);
	for (int i = 0; !nested && i < NAPS && atomic_load(&taking); i++) {
		atomic_fetch_sub(&making, 1);	/* the program's call goes first */
		nap();
		atomic_fetch_add(&making, 1);	/* seq_cst: pairs with pks_fd_taking()'s, as above */
	}
}

/** pks_fd_made() - it is moved up, or closed */
void pks_fd_made(void)
{
	atomic_fetch_sub(&making, 1);	/* seq_cst: pairs with pks_fd_taking()'s load */
	if (!--making_here)
		pthread_sigmask(SIG_SETMASK, &unheld, NULL);
}

/** pks_fd_taking() - the program is about to close or replace descriptors: until pks_fd_taken() */
void pks_fd_taking(void)
{
	/* a handler's, inside its thread's window, or one the module's window makes */
	bool nested = taking_here++ || making_here;

	/* seq_cst, and the loads below: pairs with pks_fd_making()'s add and load */
	atomic_fetch_add(&taking, 1);
	for (int i = 0; !nested && i < NAPS && atomic_load(&making); i++)
		nap();
}

/** pks_fd_taken() - its call is done */
void pks_fd_taken(void)
{
	atomic_fetch_sub(&taking, 1);	/* seq_cst: pairs with pks_fd_making()'s load */
	taking_here--;
}

/** pks_fd_turns_forked() - in a fork child: only this thread's windows are open */
void pks_fd_turns_forked(void)
{
	/* no pair: one thread */
	atomic_store(&making, making_here);
	atomic_store(&taking, taking_here);
}
