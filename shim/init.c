// SPDX-License-Identifier: MIT
/*
 * The process's start and end, in order: the configuration and its report,
 * the per-thread registry, the signal stand-ins, syslog, patching; at exit,
 * every open line written and what was lost or never reached reported.
 * Thread-safety: the constructor runs before other threads exist.
 */
#include "control.h"
#include "dyndbg.h"
#include "entry.h"
#include "emit.h"
#include "report.h"
#include "base/fdio.h"
#include "base/pid.h"
#include "base/say.h"
#include "base/tsan.h"
#include "config/config.h"
#include "ctl/ctl.h"
#include "ctl/record.h"
#include "ctx/ctx.h"
#include "ctx/exit.h"
#include "ctx/fds.h"
#include "ctx/signals.h"
#include "ctx/spawn.h"
#include "defer/defer.h"
#include "elf/loaded.h"
#include "elf/name.h"
#include "sink/sink.h"
#include "sink/syslog.h"
#include "patch/patch.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

/* elf/name.c maps an object's file for a name the first time outside a signal handler only. */
static bool outside_handler(void)
{
	return pks_sig_unwind_depth() == 0;
}

/*
 * A fork's handlers, first and last of the module's: errno is the
 * program's on both sides; and a fork child of a program the printk-shim
 * command started is one of the programs it starts, whose words (its
 * control file, its record buffer) wait for its first line, as at start
 * (printk-shim(7) DIAGNOSTICS). Handlers run in the thread that forks.
 */
static PKS_TLS int fork_errno;

static void save(void)
{
	fork_errno = errno;
}

static void restore(void)
{
	errno = fork_errno;
}

static void child_begins(void)
{
	save();
	if (!pks_emit_reached() && pks_config_wrapped_child())
		pks_say_hold(true);
}

static void child_ends(void)
{
	pks_say_hold(false);
	restore();
}

static const char here;	/* an address in this copy of the module */

static void setup(void)
{
	const struct pks_config *c;

	/*
	 * Another copy of the module loaded before this one (two installs'
	 * wrappers nested) gets every call: this one keeps out of its way
	 * (printk-shim(7) LIMITATIONS), its interposed calls only passed on.
	 */
	if (!pks_elf_first_copy(&here)) {
		pks_fds_setup();
		pks_spawn_setup();
		pks_signals_pass();
		return;
	}
	pks_elf_name_guard(outside_handler);
	pks_fd_look_cap();	/* before any write: stderr may be a file at the limit */
	pks_config_start();	/* first: the C library is ready, the configuration can be read */
	pks_say_hold(pks_config_wrapped_child());	/* until the first line: it may never come */
	c = pks_config();

	pks_emit_setup();
	pks_report_debug_once(pks_syms);
	pks_fds_setup();	/* whether or not the module is on: they are interposed */
	pks_spawn_setup();
	if (c->set.disable)
		return;
	/* prepare handlers run last first: restore() after the others' */
	pthread_atfork(restore, NULL, child_begins);
	pks_pid_setup();
	if (pks_ctl_setup(c)) {	/* first: its fork handler runs first in a child */
		pthread_atfork(pks_control_prepare, NULL, pks_control_forked);
		pks_defer_share(&pks_ctl_area.p.sleep, &pks_ctl_area.p.flushed);
		pks_dyndbg_list();
	}
	pks_rec_setup(c);
	pks_ctx_setup();
	pks_exit_setup();
	pks_signals_setup();
	pks_syslog_setup(c);
	pks_patch_apply(pks_syms);
	pthread_atfork(save, restore, child_ends);
}

__attribute__((constructor)) static void init(void)
{
	int saved = errno;	/* 0 as main() begins (C11 7.5) */

	pks_tsan_hide();	/* its memory is handed to every thread (base/tsan.h) */
	setup();
	pks_say_hold(false);	/* what was held waits for the first line (emit.c first()) */
	if (pks_emit_reached())
		pks_say_release();	/* an earlier constructor's line came first */
	pks_tsan_show();
	errno = saved;
}

__attribute__((destructor)) static void fini(void)
{
	if (!pks_config_ready() || pks_cfg.set.disable)
		return;
	pks_exit_flush();
	if (!pks_emit_reached()) {
		pks_tsan_hide();
		pks_report_unreached(pks_syms);
		pks_tsan_show();
	}
}
