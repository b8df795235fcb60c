// SPDX-License-Identifier: MIT
/*
 * Reading the configuration: every PRINTK_SHIM_* variable once, before the
 * first line is written (from the constructor, or from the first printk if
 * another library's constructor calls it earlier). A bad value gets one
 * warning and its default. Then the outputs are opened and the automatic
 * choices (format auto, colour auto, the syslog ident) are made. After that
 * the struct never changes; the hot path only reads it. Parsing the values
 * is vars.c's; what the settings do is everyone else's.
 * Not before the C library is ready, though: code in the executable's
 * preinit array (a sanitizer's runtime installing its signal handlers runs
 * there) can reach us through sigaction() while environ is still unset.
 * Such a call gets the defaults and reads nothing; the next call after the
 * C library has set environ, at the latest our constructor's, reads it.
 * Thread-safety: the first caller reads, others wait for it; a reentrant
 * call from the reading thread sees the defaults.
 */
#include "config/config.h"
#include "base/compiler.h"
#include "base/journal.h"
#include "base/once.h"
#include "base/say.h"
#include "config/open.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

struct pks_config pks_cfg;
_Atomic int pks_cfg_state;		/* pks_once_claim(): PKS_ONCE_DONE is ready */
static PKS_TLS int reading;
static _Atomic bool started;		/* the module's constructor began */
static struct pks_config early;		/* what a call before the C library is ready gets */
static _Atomic int early_state;		/* pks_once_claim() */

/*
 * Variables that are not for an unprivileged caller to set in a privileged
 * (AT_SECURE) process: a place to write, and which of the program's own
 * functions to overwrite.
 */
static bool secure_ignores(const char *name)
{
	return !strcmp(name, "SYSLOG_SOCKET") || !strcmp(name, "JOURNAL_SOCKET") ||
	       !strcmp(name, "SYMBOLS") || !strcmp(name, "PATCH");
}

/*
 * A value quoted in a warning is cut at QUOTED bytes, "..." after it, so
 * that what follows it (what was expected, what is done instead) fits the
 * message's line even when every byte of the value is escaped four-fold.
 */
#define QUOTED		160
/* @n is read three times: a variable, not a call */
#define CUT(s, n)	(int)((n) > QUOTED ? QUOTED : (n)), (s), (n) > QUOTED ? "..." : ""

/*
 * A privileged process of its caller's own user (set-group-ID, gaining
 * capabilities; not root's): the control directory would be the caller's,
 * who could swap it for a link between the module's look and its use, so
 * runtime control and the record buffer stay off; said only when asked
 * for (printk-shim(7) ENVIRONMENT).
 */
static void callers_dir(struct pks_config *c)
{
	char name[32];
	const char *v;
	size_t n;

	if (!c->secure || getuid() != geteuid() || getuid() == 0)
		return;
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "PRINTK_SHIM_%s", i ? "RECORD" : "CONTROL");
		v = getenv(name);
		if (!v || !*v || !(i ? c->set.record != 0 : c->set.control))
			continue;	/* not asked for, or off as asked */
		n = strlen(v);
		pks_warn("%s=\"%.*s%s\": ignored in a privileged process of the caller's own user, whose control directory is the caller's; using 0",
			 name, CUT(v, n));
	}
	c->set.control = false;
	c->set.record = 0;
}

/* Parse every PRINTK_SHIM_* variable into @c->set. */
static void read_env(struct pks_config *c)
{
	char name[64];

	for (size_t i = 0; i < pks_nvars; i++) {
		const struct pks_var *v = &pks_vars[i];
		const char *val;
		size_t n;

		snprintf(name, sizeof(name), "PRINTK_SHIM_%s", v->name);
		val = getenv(name);
		if (!val || !*val)
			continue;
		n = strlen(val);
		if (c->secure && secure_ignores(v->name)) {
			pks_warn("%s=\"%.*s%s\": ignored in a setuid/setgid process; using %s",
				 name, CUT(val, n), v->dflt);
			continue;
		}
		if (v->parse(&c->set, val))
			pks_warn("%s=\"%.*s%s\": expected %s; using %s", name, CUT(val, n),
				 v->expect, v->dflt);
	}
}

static void bad_query(void *arg, const char *q, size_t n, const char *why)
{
	(void)arg;
	pks_warn("PRINTK_SHIM_DYNDBG: \"%.*s%s\": %s; ignoring this query", CUT(q, n), why);
}

/*
 * Whether @fd is a terminal that shows colour. dmesg asks terminfo; without
 * it, a TERM that is set, not empty and not "dumb" says the same.
 */
static bool color_tty(int fd)
{
	const char *term = getenv("TERM");

	return term && *term && strcmp(term, "dumb") != 0 && isatty(fd);
}

static bool want_color(int fd)
{
	const char *no = getenv("NO_COLOR");

	switch (pks_cfg.set.color) {
	case PKS_COLOR_ALWAYS:
		return true;
	case PKS_COLOR_NEVER:
		return false;
	case PKS_COLOR_AUTO:
		break;
	}
	return color_tty(fd) && !(no && *no);
}

/*
 * The descriptor of one output (-1 for syslog), or -2 after saying why it
 * is skipped; @id: what a file: descriptor refers to.
 */
static int open_output(const struct pks_outspec *o, struct pks_fileid *id)
{
	int fd;

	switch (o->kind) {
	case PKS_OUT_STDERR:
		return 2;
	case PKS_OUT_SYSLOG:
	case PKS_OUT_JOURNAL:
		return -1;
	case PKS_OUT_FD:
		/*
		 * Another number may be a file the program opened, and the
		 * caller's text does not belong there; 1 and 2 are the
		 * caller's own to give.
		 */
		if (pks_cfg.secure && o->fd != 1 && o->fd != 2) {
			pks_warn("PRINTK_SHIM_OUTPUT: fd:%d: ignored in a setuid/setgid process, which takes fd:1 and fd:2 only; skipping it",
				 o->fd);
			return -2;
		}
		if (fcntl(o->fd, F_GETFL) < 0) {
			pks_warn("PRINTK_SHIM_OUTPUT: fd:%d: %s; skipping it", o->fd, pks_strerror(errno));
			return -2;
		}
		return o->fd;
	case PKS_OUT_FILE:
		if (pks_cfg.secure) {
			pks_warn("PRINTK_SHIM_OUTPUT: file:%s: ignored in a setuid/setgid process; skipping it", o->path);
			return -2;
		}
		fd = pks_open_file(o->path, id, "skipping it");
		return fd < 0 ? -2 : fd;
	}
	return -2;
}

/* Whether output @i repeats an earlier one; the first repeat is said once. */
static bool repeated(const struct pks_settings *s, int i)
{
	static bool said;

	for (int j = 0; j < i; j++) {
		if (!pks_outspec_same(&s->outputs[j], &s->outputs[i]))
			continue;
		if (!said)
			pks_warn("PRINTK_SHIM_OUTPUT: output %d repeats output %d; using it once",
				 i + 1, j + 1);
		said = true;
		return true;
	}
	return false;
}

/*
 * Whether @fd writes where stderr does: fd 2 itself, or the same file
 * (file:/dev/stderr, stdout in a 2>&1), so that no fallback writes a line
 * there twice.
 */
static bool is_stderr(int fd)
{
	struct stat a, b;

	if (fd == 2)
		return true;
	return fd >= 0 && !fstat(fd, &a) && !fstat(2, &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * The earlier output @fd of a file: output (@file), or any earlier output
 * of @fd if one of them is a file: output, writes to: the same file under
 * another name (file:/var/log/./x.log, file:/dev/stderr beside stderr).
 * Return: its index in @c->out, or -1.
 */
static int same_file(const struct pks_config *c, int fd, bool file)
{
	struct stat a, b;

	if (fd < 0 || fstat(fd, &a))
		return -1;
	for (int j = 0; j < c->nout; j++)
		if ((file || c->out[j].kind == PKS_OUT_FILE) && c->out[j].fd >= 0 &&
		    !fstat(c->out[j].fd, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return j;
	return -1;
}

/* Whether output @i, open on @fd, writes where an earlier one does; said once, as repeated(). */
static bool aliased(const struct pks_config *c, int i, int fd, enum pks_outkind kind)
{
	static bool said;
	int j = same_file(c, fd, kind == PKS_OUT_FILE);

	if (j < 0)
		return false;
	if (!said)
		pks_warn("PRINTK_SHIM_OUTPUT: output %d writes to the same file as output %d; using it once",
			 i + 1, c->out[j].spec + 1);
	said = true;
	if (kind == PKS_OUT_FILE)
		close(fd);
	return true;
}

static void resolve_outputs(struct pks_config *c)
{
	c->nout = 0;
	c->has_stderr = false;
	for (int i = 0; i < c->set.noutputs; i++) {
		const struct pks_outspec *o = &c->set.outputs[i];
		struct pks_out *out = &c->out[c->nout];
		int fd;

		if (repeated(&c->set, i))
			continue;
		fd = open_output(o, &c->out_id[c->nout]);
		if (fd == -2 || aliased(c, i, fd, o->kind))
			continue;
		out->kind = o->kind;
		out->fd = fd;
		out->spec = i;
		out->color = fd >= 0 && !pks_render_room(c->format, 1) && want_color(fd);
		c->has_stderr |= o->kind == PKS_OUT_STDERR || is_stderr(fd);
		c->nout++;
	}
	if (c->nout == 0) {
		pks_warn("PRINTK_SHIM_OUTPUT: no usable output left; using stderr");
		c->set.noutputs = 1;
		c->set.outputs[0].kind = PKS_OUT_STDERR;
		c->out[0] = (struct pks_out){ PKS_OUT_STDERR, 2, want_color(2), 0 };
		c->nout = 1;
		c->has_stderr = true;
	}
}

/* Whether the printk-shim command ran this very process (not a child of it). */
static bool wrapped_here(void)
{
	const char *w = getenv("PRINTK_SHIM_WRAPPED");
	char *end;
	long pid;

	if (!w)
		return false;
	pid = strtol(w, &end, 10);
	return !*end && end != w && pid == (long)getpid();
}

/**
 * pks_config_wrapped_child() - Return: whether the printk-shim command ran
 * another process, which started this one: its start-up words wait for its
 * first line (printk-shim(7) DIAGNOSTICS), as the shells and tools a
 * command starts inherit the variables and most never print
 */
bool pks_config_wrapped_child(void)
{
	const char *w = getenv("PRINTK_SHIM_WRAPPED");

	return w && *w && !wrapped_here();
}

static void load(struct pks_config *c)
{
	pks_settings_default(&c->set);
	c->format = PKS_LINE_PLAIN;
	c->nout = 1;
	c->out[0] = (struct pks_out){ PKS_OUT_STDERR, 2, false, 0 };
	c->secure = getauxval(AT_SECURE) != 0;
	read_env(c);
	callers_dir(c);
	if (c->set.dyndbg[0])
		pks_dd_parse(&c->dd.set[0], c->set.dyndbg, bad_query, NULL);
	pks_rules_counted(&c->dd);
	c->wrapped = wrapped_here();
	if (c->set.format == PKS_LINE_AUTO)
		c->format = pks_fd_is_journal(2) ? PKS_LINE_PREFIX : PKS_LINE_PLAIN;
	else
		c->format = c->set.format;
	resolve_outputs(c);
	c->need_time = c->set.time || c->format == PKS_LINE_DMESG || c->format == PKS_LINE_KMSG;
	snprintf(c->ident, sizeof(c->ident), "%s",
		 c->set.syslog_ident[0] ? c->set.syslog_ident : program_invocation_short_name);
}

/*
 * Too early to read: the C library has not set environ yet. An empty
 * environment is a non-NULL environ pointing at NULL; environ is NULL only
 * before the C library's initialisation, or after clearenv(), which is why
 * the answer is no once our constructor has begun: the C library was
 * initialised before it.
 */
static bool too_early(void)
{
	/* acquire: pairs with the release of started below */
	return !environ && !atomic_load_explicit(&started, memory_order_acquire);
}

/*
 * The defaults, for a call that comes too early. No fatal-signal stand-in
 * for a SIG_DFL (crash_flush off): PRINTK_SHIM_CRASH_FLUSH may turn it off,
 * and our constructor installs the stand-ins once it is read. A handler the
 * program installs meanwhile is still counted as a context of its own.
 */
static const struct pks_config *early_defaults(void)
{
	if (pks_once_claim(&early_state)) {
		pks_settings_default(&early.set);
		early.set.crash_flush = false;
		early.format = PKS_LINE_PLAIN;
		early.nout = 1;
		early.out[0] = (struct pks_out){ PKS_OUT_STDERR, 2, false, 0 };
		early.has_stderr = true;
		early.secure = getauxval(AT_SECURE) != 0;
		pks_once_done(&early_state);
	}
	return &early;
}

/**
 * pks_config_known() - pks_config() for a call that may come from another
 * runtime's start-up inside our constructor (a sanitizer's, begun by its
 * interceptor of the constructor's first call into the C library): before
 * that constructor began, the defaults, never the reading, whose own calls
 * would reach that runtime's interceptors before it is ready for them
 * (MemorySanitizer ends the process then). The constructor reads it.
 */
const struct pks_config *pks_config_known(void)
{
	/* acquire: pairs with the release of started below */
	if (pks_config_ready() || atomic_load_explicit(&started, memory_order_acquire))
		return pks_config();
	return early_defaults();
}

/** pks_config_start() - the module's constructor began: the C library is ready */
void pks_config_start(void)
{
	/* release: pairs with the acquire of started above */
	atomic_store_explicit(&started, true, memory_order_release);
}

const struct pks_config *pks_config_slow(void)
{
	if (reading)
		return &pks_cfg;
	if (too_early())
		return early_defaults();
	if (pks_once_claim(&pks_cfg_state)) {
		reading = 1;
		load(&pks_cfg);
		reading = 0;
		pks_once_done(&pks_cfg_state);
	}
	return &pks_cfg;
}

