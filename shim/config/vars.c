// SPDX-License-Identifier: MIT
/*
 * Parsers for the PRINTK_SHIM_* values and the table that ties each variable
 * to its parser. A parser consumes the whole value or fails and leaves the
 * settings untouched; the caller reports the failure (once) and keeps the
 * default. An empty value counts as unset. Nothing here reads the
 * environment or touches a descriptor.
 * Thread-safety: pure; callers own the settings they pass.
 */
#include "config/vars.h"
#include "base/utf8.h"
#include "core/cont.h"
#include "core/level.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

struct word { const char *w; int v; };

/* Index of @s in @tab (case-insensitive), -1 if absent. */
static int lookup(const struct word *tab, const char *s)
{
	for (; tab->w; tab++)
		if (!strcasecmp(tab->w, s))
			return tab->v;
	return -1;
}

static const struct word booleans[] = {
	{ "1", 1 }, { "yes", 1 }, { "true", 1 }, { "on", 1 },
	{ "0", 0 }, { "no", 0 }, { "false", 0 }, { "off", 0 }, { NULL, 0 },
};

static int number(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

#define BOOL_PARSER(field)						\
static int p_##field(struct pks_settings *s, const char *v)		\
{									\
	int b = lookup(booleans, v);					\
	if (b < 0)							\
		return -1;						\
	s->field = b;							\
	return 0;							\
}
BOOL_PARSER(disable)
BOOL_PARSER(legacy_markers)
BOOL_PARSER(crash_flush)
BOOL_PARSER(time)
BOOL_PARSER(caller)
BOOL_PARSER(debug)
BOOL_PARSER(lint)
BOOL_PARSER(defer)
BOOL_PARSER(control)

static int p_default_level(struct pks_settings *s, const char *v)
{
	int l = pks_level_from_name(v);

	if (l < 0)
		return -1;
	s->default_level = l;
	return 0;
}

static int p_level(struct pks_settings *s, const char *v)
{
	int l = pks_level_from_name(v);

	if (l < 0)
		return -1;
	s->level = l;
	return 0;
}

#define ENUM_PARSER(field, ...)						\
static int p_##field(struct pks_settings *s, const char *v)		\
{									\
	static const struct word tab[] = { __VA_ARGS__, { NULL, 0 } };	\
	int e = lookup(tab, v);						\
	if (e < 0)							\
		return -1;						\
	s->field = e;							\
	return 0;							\
}
ENUM_PARSER(cont, { "legacy", PKS_CONT_LEGACY }, { "strict", PKS_CONT_STRICT })
ENUM_PARSER(format, { "auto", PKS_LINE_AUTO }, { "plain", PKS_LINE_PLAIN },
	    { "prefix", PKS_LINE_PREFIX }, { "dmesg", PKS_LINE_DMESG }, { "kmsg", PKS_LINE_KMSG },
	    { "json", PKS_LINE_JSON })
ENUM_PARSER(color, { "auto", PKS_COLOR_AUTO }, { "always", PKS_COLOR_ALWAYS },
	    { "never", PKS_COLOR_NEVER })
ENUM_PARSER(syslog_format, { "rfc3164", PKS_SYSLOG_RFC3164 }, { "rfc5424", PKS_SYSLOG_RFC5424 })
ENUM_PARSER(patch, { "auto", PKS_PATCH_AUTO }, { "always", PKS_PATCH_ALWAYS },
	    { "never", PKS_PATCH_NEVER })
ENUM_PARSER(defer_full, { "block", PKS_FULL_BLOCK }, { "drop", PKS_FULL_DROP })

/*
 * "kern" is left out on purpose: user space may not claim the kernel's
 * facility. "security" is syslog.h's old name of auth, which logger(1)
 * still takes.
 */
ENUM_PARSER(syslog_facility,
	    { "user", LOG_USER }, { "mail", LOG_MAIL }, { "daemon", LOG_DAEMON },
	    { "auth", LOG_AUTH }, { "security", LOG_AUTH }, { "syslog", LOG_SYSLOG },
	    { "lpr", LOG_LPR },
	    { "news", LOG_NEWS }, { "uucp", LOG_UUCP }, { "cron", LOG_CRON },
	    { "authpriv", LOG_AUTHPRIV }, { "ftp", LOG_FTP },
	    { "local0", LOG_LOCAL0 }, { "local1", LOG_LOCAL1 }, { "local2", LOG_LOCAL2 },
	    { "local3", LOG_LOCAL3 }, { "local4", LOG_LOCAL4 }, { "local5", LOG_LOCAL5 },
	    { "local6", LOG_LOCAL6 }, { "local7", LOG_LOCAL7 })

static int p_line_max(struct pks_settings *s, const char *v)
{
	return number(v, 1, 1UL << 20, &s->line_max);
}

#define DEFER_SIZE_MIN	(64UL << 10)
#define DEFER_SIZE_MAX	(256UL << 20)

/* "N", "NK" or "NM" (KiB, MiB) in [@lo, @hi], rounded up to a power of two. */
static int size(const char *v, unsigned long lo, unsigned long hi, unsigned long *out)
{
	static const struct word units[] = { { "", 0 }, { "K", 10 }, { "M", 20 }, { NULL, 0 } };
	char num[24];
	size_t n = strspn(v, "0123456789");
	unsigned long b, p2 = lo;
	int shift = lookup(units, v + n);

	if (shift < 0 || n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, v, n);
	num[n] = '\0';
	if (number(num, 1, hi, &b) || b > hi >> shift)
		return -1;
	b <<= shift;
	if (b < lo)
		return -1;
	while (p2 < b)
		p2 <<= 1;
	*out = p2;
	return 0;
}

static int p_defer_size(struct pks_settings *s, const char *v)
{
	return size(v, DEFER_SIZE_MIN, DEFER_SIZE_MAX, &s->defer_size);
}

/* 0 (off) or a size (printk-shim(7) RECORD BUFFER). */
static int p_record(struct pks_settings *s, const char *v)
{
	if (!strcmp(v, "0")) {
		s->record = 0;
		return 0;
	}
	return size(v, PKS_RECORD_MIN, PKS_RECORD_MAX, &s->record);
}

static int p_defer_latency(struct pks_settings *s, const char *v)
{
	return number(v, 1, 10000, &s->defer_latency);
}

static int copy(char *dst, size_t cap, const char *src, size_t n)
{
	if (n == 0 || n >= cap)
		return -1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

/* An AF_UNIX path: absolute, and short enough for sun_path. */
static int socket_path(char *dst, const char *v)
{
	if (v[0] != '/')
		return -1;
	return copy(dst, 108, v, strlen(v));
}

static int p_syslog_socket(struct pks_settings *s, const char *v)
{
	return socket_path(s->syslog_socket, v);
}

static int p_journal_socket(struct pks_settings *s, const char *v)
{
	return socket_path(s->journal_socket, v);
}

static int p_syslog_ident(struct pks_settings *s, const char *v)
{
	size_t n = strlen(v), k;
	const unsigned char *c = (const unsigned char *)v, *end = c + n;

	/* a control byte (C1 too) could end the tag, or forge a line */
	for (; c < end; c += k) {
		k = *c >= 0x80 ? pks_utf8_printable(c, (size_t)(end - c)) : 1;
		if (!k || *c < ' ' || *c == 0x7f || strchr(" []:", *c))
			return -1;
	}
	return copy(s->syslog_ident, sizeof(s->syslog_ident), v, n);
}

/* One "stderr", "stdout" (fd:1), "syslog", "journal", "file:PATH" or "fd:N" of @n bytes at @v. */
static int output(struct pks_outspec *o, const char *v, size_t n)
{
	unsigned long fd;
	char num[16];

	if (n == 6 && !memcmp(v, "stderr", 6)) {
		o->kind = PKS_OUT_STDERR;
		return 0;
	}
	if (n == 6 && !memcmp(v, "stdout", 6)) {
		o->kind = PKS_OUT_FD;
		o->fd = 1;
		return 0;
	}
	if (n == 6 && !memcmp(v, "syslog", 6)) {
		o->kind = PKS_OUT_SYSLOG;
		return 0;
	}
	if (n == 7 && !memcmp(v, "journal", 7)) {
		o->kind = PKS_OUT_JOURNAL;
		return 0;
	}
	if (n > 5 && !memcmp(v, "file:", 5) && v[5] == '/') {
		o->kind = PKS_OUT_FILE;
		return copy(o->path, sizeof(o->path), v + 5, n - 5);
	}
	if (n > 3 && !memcmp(v, "fd:", 3) && !copy(num, sizeof(num), v + 3, n - 3) &&
	    !number(num, 0, INT_MAX, &fd)) {
		o->kind = PKS_OUT_FD;
		o->fd = (int)fd;
		return 0;
	}
	return -1;
}

/* One item of a comma-separated list: @n bytes at @p into slot @i of @slots. */
typedef int item_fn(void *slots, int i, const char *p, size_t n);

/* Parse every item of @v with @one. Return: how many, or -1 (too many, or one bad). */
static int split(const char *v, int max, item_fn *one, void *slots)
{
	int n = 0;

	for (const char *p = v, *e; ; p = e + 1) {
		e = strchrnul(p, ',');
		if (n == max || one(slots, n, p, (size_t)(e - p)))
			return -1;
		n++;
		if (!*e)
			return n;
	}
}

static int output_at(void *slots, int i, const char *p, size_t n)
{
	return output(&((struct pks_outspec *)slots)[i], p, n);
}

static int p_output(struct pks_settings *s, const char *v)
{
	struct pks_outspec tmp[PKS_OUTPUTS_MAX];
	int n = split(v, PKS_OUTPUTS_MAX, output_at, tmp);

	if (n < 0)
		return -1;
	memcpy(s->outputs, tmp, sizeof(tmp[0]) * (size_t)n);
	s->noutputs = n;
	return 0;
}

/* One "name" or "name:v" of @n bytes; the name is a C identifier. */
static int symbol(struct pks_symspec *o, const char *v, size_t n)
{
	o->va = n > 2 && !memcmp(v + n - 2, ":v", 2);
	n -= o->va ? 2 : 0;
	if (n == 0 || n >= sizeof(o->name) || (*v >= '0' && *v <= '9'))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!(v[i] == '_' || (v[i] >= '0' && v[i] <= '9') ||
		      ((v[i] | 0x20) >= 'a' && (v[i] | 0x20) <= 'z')))
			return -1;
	memcpy(o->name, v, n);
	o->name[n] = '\0';
	return 0;
}

static int symbol_at(void *slots, int i, const char *p, size_t n)
{
	return symbol(&((struct pks_symspec *)slots)[i], p, n);
}

static int p_symbols(struct pks_settings *s, const char *v)
{
	struct pks_symspec tmp[PKS_SYMBOLS_MAX];
	int n = split(v, PKS_SYMBOLS_MAX, symbol_at, tmp);

	if (n < 0)
		return -1;
	memcpy(s->symbols, tmp, sizeof(tmp[0]) * (size_t)n);
	s->nsymbols = n;
	return 0;
}

/* Kept as written: each query is read, and a bad one reported, by config.c. */
static int p_dyndbg(struct pks_settings *s, const char *v)
{
	return copy(s->dyndbg, sizeof(s->dyndbg), v, strlen(v));
}

#define LEVELS "0..7 or emerg|alert|crit|err|warn|notice|info|debug"
#define BOOL "0|1|no|yes|off|on|false|true"	/* the words booleans[] takes */

const struct pks_var pks_vars[] = {
	{ "DISABLE", BOOL, "0", "forward every call to the next printk definition", true, p_disable },
	{ "OUTPUT", "stderr|stdout|syslog|journal|file:PATH|fd:N[,...] (at most 8; PATH absolute, under 1024 bytes)", "stderr",
	  "comma-separated outputs; every line goes to each", false, p_output },
	{ "FORMAT", "auto|plain|prefix|dmesg|kmsg|json", "auto",
	  "line format for stderr, file and fd outputs", false, p_format },
	{ "LEVEL", LEVELS, "debug", "show lines with level <= this", false, p_level },
	{ "DEFAULT_LEVEL", LEVELS, "4", "level of a line without a level marker", false, p_default_level },
	{ "CONT", "legacy|strict", "legacy", "continuation rule: pre-4.9 or 4.9+", false, p_cont },
	{ "LEGACY_MARKERS", BOOL, "1", "accept the 2.6.31-3.5 \"<N>\" markers", true, p_legacy_markers },
	{ "LINE_MAX", "1..1048576", "1024", "longest piece of a line written at once", false, p_line_max },
	{ "TIME", BOOL, "0", "add the console timestamp to plain and prefix lines", true, p_time },
	{ "CALLER", BOOL, "0", "add the caller's thread id", true, p_caller },
	{ "COLOR", "auto|always|never", "auto", "colour by level as dmesg --color does", false, p_color },
	{ "CRASH_FLUSH", BOOL, "1", "write open lines on a fatal signal", true, p_crash_flush },
	{ "SYSLOG_SOCKET", "an absolute socket path under 108 bytes", "/dev/log", "syslog socket", false, p_syslog_socket },
	{ "SYSLOG_FACILITY", "user|mail|daemon|auth|syslog|lpr|news|uucp|cron|authpriv|ftp|local0..local7",
	  "user", "syslog facility", false, p_syslog_facility },
	{ "SYSLOG_IDENT", "a word under 64 bytes without spaces, control characters, brackets or colons", "the program's name",
	  "syslog tag", false, p_syslog_ident },
	{ "SYSLOG_FORMAT", "rfc3164|rfc5424", "rfc3164", "syslog message format", false, p_syslog_format },
	{ "JOURNAL_SOCKET", "an absolute socket path under 108 bytes", "/run/systemd/journal/socket",
	  "journald's native socket", false, p_journal_socket },
	{ "DEBUG", BOOL, "0", "print the effective configuration and where printk resolves", true, p_debug },
	{ "LINT", BOOL, "0", "report legacy continuations without KERN_CONT, once per call site", true, p_lint },
	{ "SYMBOLS", "NAME[:v][,NAME[:v]...] (at most 16, each NAME a C identifier under 64 bytes)", "none",
	  "more printk-like functions to take over (NAME:v: vprintk's prototype); --symbol=NAME adds one",
	  false, p_symbols },
	{ "PATCH", "auto|always|never", "auto",
	  "patch the printk functions the dynamic linker cannot interpose (auto), all found (always), none",
	  false, p_patch },
	{ "DYNDBG", "queries of the kernel's dynamic debug control language (at most 4095 bytes)",
	  "none", "which KERN_DEBUG call sites print, and their decorations (\"func probe* +pf\")",
	  false, p_dyndbg },
	{ "CONTROL", BOOL, "1",
	  "let printk-shim --pid and --all read and change this process while it runs", true, p_control },
	{ "RECORD", "0, or 4K..256M (a number of bytes, K or M: KiB or MiB)", "0",
	  "keep the last SIZE bytes of lines of every level in a buffer that printk-shim --dmesg reads, also after the process died",
	  false, p_record },
	{ "DEFER", BOOL, "0", "queue complete lines in a ring that a printer thread writes in batches",
	  true, p_defer },
	{ "DEFER_SIZE", "64K..256M (a number of bytes, K or M: KiB or MiB)", "1M",
	  "the deferred ring's size, rounded up to a power of two", false, p_defer_size },
	{ "DEFER_FULL", "block|drop", "block",
	  "when the deferred ring is full: wait for room, or drop and count the line", false, p_defer_full },
	{ "DEFER_LATENCY", "1..10000 (milliseconds)", "10",
	  "longest time a deferred line waits for the printer thread", false, p_defer_latency },
};
const size_t pks_nvars = sizeof(pks_vars) / sizeof(pks_vars[0]);

void pks_settings_default(struct pks_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->legacy_markers = true;
	s->crash_flush = true;
	s->control = true;
	s->default_level = 4;
	s->level = PKS_LEVEL_MAX;
	s->cont = PKS_CONT_LEGACY;
	s->format = PKS_LINE_AUTO;
	s->color = PKS_COLOR_AUTO;
	s->line_max = 1024;
	s->noutputs = 1;
	s->outputs[0].kind = PKS_OUT_STDERR;
	strcpy(s->syslog_socket, "/dev/log");
	strcpy(s->journal_socket, "/run/systemd/journal/socket");
	s->syslog_facility = LOG_USER;
	s->syslog_format = PKS_SYSLOG_RFC3164;
	s->patch = PKS_PATCH_AUTO;
	s->defer_size = 1UL << 20;
	s->defer_full = PKS_FULL_BLOCK;
	s->defer_latency = 10;
}

/* The descriptor an output names: stderr is fd:2, stdout fd:1. */
static int fd_named(const struct pks_outspec *o)
{
	return o->kind == PKS_OUT_STDERR ? 2 : o->kind == PKS_OUT_FD ? o->fd : -1;
}

/** pks_outspec_same() - Return: whether @a and @b name one output. */
bool pks_outspec_same(const struct pks_outspec *a, const struct pks_outspec *b)
{
	if (fd_named(a) >= 0 || fd_named(b) >= 0)
		return fd_named(a) == fd_named(b);
	return a->kind == b->kind && (a->kind != PKS_OUT_FILE || !strcmp(a->path, b->path));
}

/** pks_var_find() - Return: the variable called @name (without prefix), or NULL. */
const struct pks_var *pks_var_find(const char *name)
{
	for (size_t i = 0; i < pks_nvars; i++)
		if (!strcmp(pks_vars[i].name, name))
			return &pks_vars[i];
	return NULL;
}
