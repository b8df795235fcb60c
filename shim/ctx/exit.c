// SPDX-License-Identifier: MIT
/*
 * The ends of a process that skip exit()'s destructors: _exit() and _Exit()
 * are interposed, and quick_exit() gets a handler of ours that runs after
 * the program's (at_quick_exit(3), registered before any of theirs). Each
 * writes what exit() writes: the ring's lines, then every open line, then
 * what was lost (printk-shim(7) WHEN A LINE IS WRITTEN). A vfork child
 * writes nothing: the lines it sees are its parent's. The C library's own
 * calls of _exit do not pass here: daemon(3) is interposed, and its parent
 * writes what _exit would in a fork handler; posix_spawn's child has no
 * line of its own.
 * Thread-safety: as pks_flush_all(); _exit from a signal handler is fine.
 */
#include "ctx/exit.h"
#include "base/compiler.h"
#include "base/next.h"
#include "base/tsan.h"
#include "config/config.h"
#include "ctl/ctl.h"
#include "ctl/record.h"
#include "ctx/ctx.h"
#include "ctx/signals.h"
#include "ctx/vfork.h"
#include "defer/defer.h"
#include "sink/sink.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/** pks_exit_flush() - the process ends now: its pending and open lines written */
void pks_exit_flush(void)
{
	if (!pks_config_ready() || pks_cfg.set.disable || pks_vfork_shared())
		return;
	pks_tsan_hide();
	/* no pair: emit.c reads it relaxed, and a line it misses is written by the flush below */
	atomic_store(&pks_exiting, 1);	/* first: a line begun from now on ends at once */
	pks_defer_close();	/* the ring's lines before the open ones */
	if (pks_thread.sig_held)
		pks_signals_release();
	pks_flush_all(PKS_FLUSH_EXIT);
	pks_sink_report_lost();
	pks_ctl_close();	/* the control file goes, the record buffer stays */
	pks_rec_close();
	pks_tsan_show();
}

static void at_quick(void)
{
	pks_exit_flush();
}

static PKS_TLS bool daemonizing;	/* in daemon(3), whose parent ends with the C library's _exit */

/* daemon(3)'s fork, in the parent: it ends now, past every interposition */
static void daemon_parent(void)
{
	if (daemonizing)
		pks_exit_flush();
}

/** pks_exit_setup() - at start-up, before the program registers its own */
void pks_exit_setup(void)
{
	at_quick_exit(at_quick);
	pthread_atfork(NULL, daemon_parent, NULL);
}

/* daemon(3): the C library's, its parent's end seen (daemon_parent()). */
PKS_EXPORT int daemon(int nochdir, int noclose)
{
	static struct pks_next next;
	int (*fn)(int, int) = (int (*)(int, int))pks_next("daemon", &next);
	int ret;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	daemonizing = true;
	ret = fn(nochdir, noclose);	/* the child returns, or the parent when the fork failed */
	daemonizing = false;
	return ret;
}

/* The C library's _exit, or the system call where there is none. */
static _Noreturn void next_exit(int status)
{
	static struct pks_next next;
	void (*fn)(int) = (void (*)(int))pks_next("_exit", &next);

	if (fn)
		fn(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

PKS_EXPORT _Noreturn void _exit(int status)
{
	pks_exit_flush();
	next_exit(status);
}

PKS_EXPORT _Noreturn void _Exit(int status)
{
	pks_exit_flush();
	next_exit(status);
}
