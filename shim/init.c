// SPDX-License-Identifier: MIT
/*
 * The process's start and end, in order: the configuration and its report,
 * the per-thread registry, the signal stand-ins, syslog, patching; at exit,
 * every open line written and what was lost or never reached reported.
 * Thread-safety: the constructor runs before other threads exist.
 */
#include "init.h"
#include "entry.h"
#include "emit.h"
#include "report.h"
#include "base/pid.h"
#include "config/config.h"
#include "ctx/ctx.h"
#include "ctx/exit.h"
#include "ctx/signals.h"
#include "out/sink.h"
#include "out/syslog.h"
#include "patch/patch.h"

#include <stdatomic.h>

static void report_once(const struct pks_config *c)
{
	static _Atomic int done;

	if (c->set.debug && !atomic_exchange(&done, 1))
		pks_report_debug(pks_syms);
}

/**
 * pks_init_first_call() - the first printk: another object's constructor
 * may call it before ours runs, and the report is due before its line
 */
void pks_init_first_call(const struct pks_config *c)
{
	report_once(c);
}

__attribute__((constructor)) static void init(void)
{
	const struct pks_config *c;

	pks_config_start();	/* first: the C library is ready, the configuration can be read */
	c = pks_config();

	pks_emit_setup();
	report_once(c);
	if (c->set.disable)
		return;
	pks_pid_setup();
	pks_ctx_setup();
	pks_exit_setup();
	pks_signals_setup();
	pks_syslog_setup(c);
	pks_patch_apply(pks_syms);
}

__attribute__((destructor)) static void fini(void)
{
	if (!pks_config_ready() || pks_cfg.set.disable)
		return;
	pks_exit_flush();
	if (!pks_emit_reached())
		pks_report_unreached(pks_syms);
}
