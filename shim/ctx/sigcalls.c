// SPDX-License-Identifier: MIT
/*
 * The C library's other ways to set a signal handler, each made from the
 * interposed sigaction() as glibc makes it from its own, which the module
 * never sees: signal() and its other names, the System V signal() that a
 * program built for strict ISO C or POSIX calls for signal(), sigset(3),
 * and siginterrupt(3), whose choice signal() reads. Their handlers then run
 * through the trampoline as sigaction()'s do (signals.c; printk-shim(7)
 * Signal handlers). Thread-safety: as the C library's.
 */
#include "base/compiler.h"
#include "ctx/signals.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>

/* siginterrupt(3)'s choice: the signals whose signal() handlers end a system call with EINTR */
static sigset_t interrupting;

/*
 * Whether @h may be set on @sig, @one then holding @sig alone: sigaddset()
 * refuses a number out of range and the C library's own two. If not, errno
 * is EINVAL.
 */
static bool settable(int sig, __sighandler_t h, sigset_t *one)
{
	sigemptyset(one);
	if (h != SIG_ERR && sigaddset(one, sig) == 0)
		return true;
	errno = EINVAL;
	return false;
}

/*
 * @h on @sig with @flags, @sig blocked while it runs if @block.
 * Return: the old handler, or SIG_ERR with errno set, as signal() does.
 */
static __sighandler_t install(int sig, __sighandler_t h, int flags, bool block)
{
	struct sigaction a = { .sa_handler = h, .sa_flags = flags }, old;
	sigset_t one;

	if (!settable(sig, h, &one))
		return SIG_ERR;
	if (block)
		a.sa_mask = one;
	else
		sigemptyset(&a.sa_mask);
	if (pks_signals_set(sig, &a, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* BSD semantics: the signal blocked in its handler; calls restarted unless siginterrupt(3) said not. */
static __sighandler_t bsd(int sig, __sighandler_t h)
{
	bool intr = sig > 0 && sig < NSIG && sigismember(&interrupting, sig) == 1;

	return install(sig, h, intr ? 0 : SA_RESTART, true);
}

/* System V semantics: back to SIG_DFL as it is delivered, not blocked in its handler, no restart. */
static __sighandler_t sysv(int sig, __sighandler_t h)
{
	return install(sig, h, SA_RESETHAND | SA_NODEFER, false);
}

__sighandler_t bsd_signal(int sig, __sighandler_t h);	/* declared for X/Open before 2008 only */

PKS_EXPORT __sighandler_t signal(int sig, __sighandler_t h) { return bsd(sig, h); }
PKS_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t h) { return bsd(sig, h); }
PKS_EXPORT __sighandler_t ssignal(int sig, __sighandler_t h) { return bsd(sig, h); }
PKS_EXPORT __sighandler_t __sysv_signal(int sig, __sighandler_t h) { return sysv(sig, h); }
PKS_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t h) { return sysv(sig, h); }

/*
 * sigset(3): SIG_HOLD blocks @sig and leaves its handler; anything else is
 * set as signal() sets it, but with no restart, and unblocks @sig.
 * Return: SIG_HOLD if @sig was blocked, else the old handler; SIG_ERR.
 */
PKS_EXPORT __sighandler_t sigset(int sig, __sighandler_t disp)
{
	struct sigaction a = { .sa_handler = disp }, old;
	sigset_t one, was;

	if (!settable(sig, disp, &one))
		return SIG_ERR;
	if (disp == SIG_HOLD) {
		if (sigprocmask(SIG_BLOCK, &one, &was) < 0)
			return SIG_ERR;
		if (sigismember(&was, sig) == 1)
			return SIG_HOLD;
		return pks_signals_set(sig, NULL, &old) < 0 ? SIG_ERR : old.sa_handler;
	}
	sigemptyset(&a.sa_mask);
	if (pks_signals_set(sig, &a, &old) < 0 || sigprocmask(SIG_UNBLOCK, &one, &was) < 0)
		return SIG_ERR;
	return sigismember(&was, sig) == 1 ? SIG_HOLD : old.sa_handler;
}

/* siginterrupt(3): @sig's handler, and signal()'s later ones, end a system call (@flag) or restart it. */
PKS_EXPORT int siginterrupt(int sig, int flag)
{
	struct sigaction a;

	if (pks_signals_set(sig, NULL, &a) < 0)
		return -1;
	if (flag) {
		sigaddset(&interrupting, sig);
		a.sa_flags &= ~SA_RESTART;
	} else {
		sigdelset(&interrupting, sig);
		a.sa_flags |= SA_RESTART;
	}
	return pks_signals_set(sig, &a, NULL);
}
