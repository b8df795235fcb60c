// SPDX-License-Identifier: MIT
/*
 * What the shim says about the program: the PRINTK_SHIM_DEBUG start-up
 * report, the exit warning when no call reached the shim, and
 * PRINTK_SHIM_LINT. Thread-safety: the lint table is lock-free.
 */
#include "report.h"
#include "dwline.h"
#include "base/say.h"
#include "base/show.h"
#include "config/config.h"
#include "core/level.h"
#include "elf/elf.h"
#include "elf/name.h"
#include "patch/patch.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LINT_SLOTS 1024
static _Atomic(uintptr_t) lint_seen[LINT_SLOTS];

/* Claim @site in the table. Return: 1 the first time, 0 after (or when full). */
static int first_time(uintptr_t site)
{
	size_t h = (site >> 4) * 2654435761u;

	for (size_t i = 0; i < LINT_SLOTS; i++) {
		_Atomic(uintptr_t) *slot = &lint_seen[(h + i) % LINT_SLOTS];
		uintptr_t cur = 0;

		/* no pair: the slot's value is all there is */
		if (atomic_compare_exchange_strong(slot, &cur, site))
			return 1;
		if (cur == site)
			return 0;
	}
	return 0;
}

/*
 * "symbol+0xoff (object)" for @p, the symbol from the dynamic table or
 * .symtab (elf/name.c), or "0xaddr (object+0xoff)" without one. In a
 * privileged (AT_SECURE) process never the address itself: its caller
 * would learn where the code is loaded.
 * Return: the length written.
 */
static int where(const void *p, char *buf, size_t size)
{
	bool secure = pks_config()->secure;
	struct pks_elf_name n;

	if (!pks_elf_name(p, &n) || !n.obj)
		return snprintf(buf, size, secure ? "an address in no loaded object" : "%p", p);
	if (n.name)
		return snprintf(buf, size, "%s+0x%lx (%s)", n.name,
				(unsigned long)((uintptr_t)p - n.start), n.obj);
	if (secure)
		return snprintf(buf, size, "%s+0x%lx", n.obj, (unsigned long)((uintptr_t)p - n.obj_base));
	return snprintf(buf, size, "%p (%s+0x%lx)", p, n.obj,
			(unsigned long)((uintptr_t)p - n.obj_base));
}

/**
 * pks_report_lint() - a fragment that legacy mode joined without KERN_CONT
 * @site: the return address in the caller of printk
 * Reported once per call site; a 4.9+ kernel would have started a new line.
 * The source file and line follow when a dynamic debug query has loaded
 * DWARF's line tables already (dwline.c); lint never loads them.
 */
void pks_report_lint(const void *site, const char *text, unsigned long n)
{
	char at[512], file[256];
	unsigned int line;
	int len;

	if (!first_time((uintptr_t)site))
		return;
	len = where(site, at, sizeof(at));
	if (len >= 0 && (size_t)len < sizeof(at) &&
	    pks_dwline_loaded(site, file, sizeof(file), &line) == PKS_DW_FOUND)
		snprintf(at + len, sizeof(at) - (size_t)len, " at %s:%u", file, line);
	pks_say("lint", "%s: fragment \"%.*s\" continues a line without KERN_CONT; a 4.9+ kernel starts a new line here",
		at, (int)(n > 60 ? 60 : n), text);
}

static const char *const format_names[] = {
	[PKS_LINE_AUTO] = "auto", [PKS_LINE_PLAIN] = "plain", [PKS_LINE_PREFIX] = "prefix",
	[PKS_LINE_DMESG] = "dmesg", [PKS_LINE_KMSG] = "kmsg", [PKS_LINE_JSON] = "json",
};

static void report_outputs(const struct pks_config *c)
{
	static const char *const kinds[] = {
		[PKS_OUT_STDERR] = "stderr", [PKS_OUT_SYSLOG] = "syslog", [PKS_OUT_JOURNAL] = "journal",
		[PKS_OUT_FILE] = "file", [PKS_OUT_FD] = "fd",
	};

	for (int i = 0; i < c->nout; i++) {
		const struct pks_out *o = &c->out[i];
		const struct pks_outspec *sp = &c->set.outputs[o->spec];

		pks_debug("output %d: %s%s%s (fd %d%s)", i + 1, kinds[o->kind],
			  o->kind == PKS_OUT_FILE ? ":" : "",
			  o->kind == PKS_OUT_FILE ? sp->path : "", o->fd,
			  o->color ? ", colour" : "");
	}
}

static void report_symbols_setting(const struct pks_settings *s)
{
	char list[PKS_SYMBOLS_MAX * 67] = "none";
	size_t n = 0;

	for (int i = 0; i < s->nsymbols; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s%s", i ? "," : "",
				      s->symbols[i].name, s->symbols[i].va ? ":v" : "");
	pks_debug("PRINTK_SHIM_PATCH=%s SYMBOLS=%s",
		  s->patch == PKS_PATCH_AUTO ? "auto" : s->patch == PKS_PATCH_ALWAYS ? "always" : "never",
		  list);
}

static void report_settings(const struct pks_config *c)
{
	const struct pks_settings *s = &c->set;

	pks_debug("printk-shim %s in pid %ld; configuration:", PACKAGE_VERSION, (long)getpid());
	pks_debug("PRINTK_SHIM_DISABLE=%d CONT=%s LEGACY_MARKERS=%d LEVEL=%s DEFAULT_LEVEL=%s LINE_MAX=%lu",
		  s->disable, s->cont ? "strict" : "legacy", s->legacy_markers,
		  pks_level_name(s->level), pks_level_name(s->default_level), s->line_max);
	pks_debug("PRINTK_SHIM_FORMAT=%s (resolved: %s) TIME=%d CALLER=%d COLOR=%s CRASH_FLUSH=%d LINT=%d",
		  format_names[s->format], format_names[c->format], s->time, s->caller,
		  s->color == PKS_COLOR_AUTO ? "auto" : s->color == PKS_COLOR_ALWAYS ? "always" : "never",
		  s->crash_flush, s->lint);
	pks_debug("PRINTK_SHIM_SYSLOG_SOCKET=%s SYSLOG_FACILITY=%d SYSLOG_IDENT=%s SYSLOG_FORMAT=%s",
		  s->syslog_socket, s->syslog_facility >> 3, c->ident,
		  s->syslog_format ? "rfc5424" : "rfc3164");
	report_outputs(c);
	report_symbols_setting(s);
	if (s->defer)
		pks_debug("PRINTK_SHIM_DEFER=1 DEFER_SIZE=%luK DEFER_FULL=%s DEFER_LATENCY=%lu",
			  s->defer_size >> 10, s->defer_full == PKS_FULL_DROP ? "drop" : "block",
			  s->defer_latency);
}

/*
 * What is known of @name: where it is defined and what patching did; which
 * objects import it, and where their calls through the PLT go. Nothing
 * more when the executable is opaque: pks_report_debug() says that once.
 */
static void report_symbol(const char *name, const void *ours)
{
	int defs = pks_patch_report(name);
	char who[1024], at[512];
	void *p;

	if (!pks_patch_importers(name, who, sizeof(who))) {
		if (!defs && !pks_patch_exe_opaque())
			pks_debug("%s: no loaded object imports or defines it", name);
		return;
	}
	p = dlsym(RTLD_DEFAULT, name);
	if (p == ours) {
		pks_debug("%s: imported by %s: their calls reach the shim", name, who);
		return;
	}
	where(p, at, sizeof(at));
	if (p && pks_patch_covers(p))
		pks_debug("%s: imported by %s: their calls reach %s, patched to jump to the shim",
			  name, who, at);
	else
		pks_debug("%s: imported by %s: their calls reach %s, not the shim", name, who, at);
}

/**
 * pks_report_debug_once() - the PRINTK_SHIM_DEBUG report, once: from the
 * constructor, or from the first printk when another object's constructor
 * calls it before ours runs, as the report is due before its line
 */
void pks_report_debug_once(const struct pks_sym *syms)
{
	static _Atomic int done;

	/* no pair: it only elects the one that reports */
	if (pks_config()->set.debug && !atomic_exchange(&done, 1))
		pks_report_debug(syms);
}

/** pks_report_debug() - the PRINTK_SHIM_DEBUG start-up report */
void pks_report_debug(const struct pks_sym *syms)
{
	const struct pks_config *c = pks_config();
	const char *exe;

	report_settings(c);
	pks_patch_apply(syms);	/* once: the report says what it did */
	for (int i = 0; i < PKS_NSYMS; i++)
		report_symbol(syms[i].name, syms[i].here);
	if ((exe = pks_patch_exe_opaque()))
		pks_debug("%s is stripped (no .symtab) and imports no printk function: a printk of its own, if it has one, cannot be seen, and its calls do not reach the shim",
			  exe);
	for (int i = 0; !c->secure && i < c->set.nsymbols; i++)
		pks_patch_report(c->set.symbols[i].name);
}

/**
 * pks_report_unreached() - at exit, when no call ever reached the shim: say
 * so, once, when what the executable's file says means a printk exists that
 * cannot reach it: the executable defines printk itself and it was not
 * patched, the case LD_PRELOAD cannot help; or, in the process the
 * printk-shim command ran, it is stripped with formats among its strings
 * (pks_patch_exe_opaque()). A program without printk, a shell running a
 * script above all, and one whose printk is reached but was not called,
 * get nothing.
 */
void pks_report_unreached(const struct pks_sym *syms)
{
	const char *names[PKS_NSYMS], *exe;
	int i;

	exe = pks_patch_exe_unpatched(&i);	/* the start-up scan's answer, if it ran */
	if (exe == PKS_PATCH_UNKNOWN) {
		for (i = 0; i < PKS_NSYMS; i++)
			names[i] = pks_patch_taken(syms[i].name) ? NULL : syms[i].name;
		exe = pks_elf_exe_defines(names, PKS_NSYMS, &i);
	}
	if (exe && pks_may_show(exe)) {
		pks_warn("%s is defined inside the executable %s; its calls cannot be interposed and none reached the shim (see PRINTK_SHIM_DEBUG=1)",
			 syms[i].name, exe);
		return;
	}
	if (pks_config()->wrapped && (exe = pks_patch_exe_opaque()))
		pks_warn("no printk call reached the shim: %s is stripped and imports no printk function, so a printk of its own, if it has one, cannot be seen (see PRINTK_SHIM_DEBUG=1)",
			 exe);
}
