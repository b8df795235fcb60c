// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the PRINTK_SHIM_* value parsers of shim/config/vars.c,
 * through the pks_vars table the module and the wrapper both use. The first
 * byte picks the variable, the rest is the value. Checked:
 *
 *   - a parser returns 0 or -1, and the same for the same value;
 *   - on failure it leaves the settings untouched, byte for byte;
 *   - on success every field is within what the rest of the shim assumes
 *     (levels 0..7, LINE_MAX 1..1 MiB, 1..8 outputs, absolute NUL-ended
 *     paths, an AF_UNIX-sized socket path, descriptors >= 0, ...);
 *   - an accepted PRINTK_SHIM_OUTPUT written back out parses to the same
 *     outputs;
 *   - pks_level_from_name() gives -1 or 0..7.
 */
#include "config/vars.h"
#include "core/ddquery.h"
#include "core/level.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VALUE_MAX 4096

static void fail(const char *var, const char *why)
{
	fprintf(stderr, "fuzz-confparse: PRINTK_SHIM_%s: %s\n", var, why);
	abort();
}

static int terminated(const char *s, size_t cap)
{
	return memchr(s, '\0', cap) != NULL;
}

static void check_outputs(const struct pks_var *v, const struct pks_settings *s)
{
	if (s->noutputs < 1 || s->noutputs > PKS_OUTPUTS_MAX)
		fail(v->name, "output count out of range");
	for (int i = 0; i < s->noutputs; i++) {
		const struct pks_outspec *o = &s->outputs[i];

		if (o->kind == PKS_OUT_FILE && (!terminated(o->path, sizeof(o->path)) || o->path[0] != '/'))
			fail(v->name, "a file: path not absolute or not terminated");
		if (o->kind == PKS_OUT_FD && o->fd < 0)
			fail(v->name, "a negative fd:");
		if (o->kind != PKS_OUT_STDERR && o->kind != PKS_OUT_SYSLOG &&
		    o->kind != PKS_OUT_FILE && o->kind != PKS_OUT_FD && o->kind != PKS_OUT_JOURNAL)
			fail(v->name, "an unknown output kind");
	}
}

/* PRINTK_SHIM_OUTPUT again, from what was understood: the same outputs. */
static void round_trip(const struct pks_var *v, const struct pks_settings *s)
{
	static char text[PKS_OUTPUTS_MAX * (PKS_PATH_MAX + 8)];
	struct pks_settings again;
	size_t n = 0;

	for (int i = 0; i < s->noutputs; i++) {
		const struct pks_outspec *o = &s->outputs[i];
		const char *sep = i ? "," : "";

		if (o->kind == PKS_OUT_FILE)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%sfile:%s", sep, o->path);
		else if (o->kind == PKS_OUT_FD)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%sfd:%d", sep, o->fd);
		else
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s", sep,
					      o->kind == PKS_OUT_SYSLOG ? "syslog" :
					      o->kind == PKS_OUT_JOURNAL ? "journal" : "stderr");
	}
	pks_settings_default(&again);
	if (v->parse(&again, text))
		fail(v->name, "what it accepted, written back, is refused");
	if (again.noutputs != s->noutputs)
		fail(v->name, "written back, a different number of outputs");
	for (int i = 0; i < s->noutputs; i++) {
		const struct pks_outspec *a = &s->outputs[i], *b = &again.outputs[i];

		if (a->kind != b->kind || (a->kind == PKS_OUT_FD && a->fd != b->fd) ||
		    (a->kind == PKS_OUT_FILE && strcmp(a->path, b->path)))
			fail(v->name, "written back, different outputs");
	}
}

static void check(const struct pks_var *v, const struct pks_settings *s)
{
	if (s->level < 0 || s->level > 7 || s->default_level < 0 || s->default_level > 7)
		fail(v->name, "a level out of range");
	if (s->line_max < 1 || s->line_max > (1UL << 20))
		fail(v->name, "LINE_MAX out of range");
	if (s->cont != 0 && s->cont != 1)
		fail(v->name, "an unknown continuation mode");
	if (s->format < PKS_LINE_AUTO || s->format > PKS_LINE_JSON)
		fail(v->name, "an unknown format");
	if (s->color < PKS_COLOR_AUTO || s->color > PKS_COLOR_NEVER)
		fail(v->name, "an unknown colour mode");
	if (s->syslog_format != PKS_SYSLOG_RFC3164 && s->syslog_format != PKS_SYSLOG_RFC5424)
		fail(v->name, "an unknown syslog format");
	if (s->syslog_facility < 0 || (s->syslog_facility & 7) || (s->syslog_facility >> 3) > 23 ||
	    s->syslog_facility == 0)
		fail(v->name, "a syslog facility out of range, or kern");
	if (!terminated(s->syslog_socket, sizeof(s->syslog_socket)) || s->syslog_socket[0] != '/' ||
	    strlen(s->syslog_socket) >= 108)
		fail(v->name, "a syslog socket path not absolute or too long for sun_path");
	if (!terminated(s->journal_socket, sizeof(s->journal_socket)) || s->journal_socket[0] != '/' ||
	    strlen(s->journal_socket) >= 108)
		fail(v->name, "a journal socket path not absolute or too long for sun_path");
	if (!terminated(s->syslog_ident, sizeof(s->syslog_ident)) ||
	    strpbrk(s->syslog_ident, " \t\n[]:"))
		fail(v->name, "a syslog ident with blanks, brackets or colons");
#ifdef PKS_SYMBOLS_MAX
	if (s->nsymbols < 0 || s->nsymbols > PKS_SYMBOLS_MAX)
		fail(v->name, "a symbol count out of range");
	for (int i = 0; i < s->nsymbols; i++)
		if (!terminated(s->symbols[i].name, sizeof(s->symbols[i].name)) || !s->symbols[i].name[0])
			fail(v->name, "an empty or unterminated symbol name");
#endif
	check_outputs(v, s);
}

/* Clear what no reader looks at (bytes after a string's NUL, the fields an
 * output of another kind does not use), so that two parses compare whole. */
static void clear_string(char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n < cap)
		memset(s + n, 0, cap - n);
}

static void canonical(struct pks_settings *s)
{
	for (int i = 0; i < PKS_OUTPUTS_MAX; i++) {
		struct pks_outspec *o = &s->outputs[i];

		if (i >= s->noutputs) {
			memset(o, 0, sizeof(*o));
			continue;
		}
		if (o->kind != PKS_OUT_FD)
			o->fd = 0;
		if (o->kind != PKS_OUT_FILE)
			memset(o->path, 0, sizeof(o->path));
		clear_string(o->path, sizeof(o->path));
	}
	clear_string(s->syslog_socket, sizeof(s->syslog_socket));
	clear_string(s->journal_socket, sizeof(s->journal_socket));
	clear_string(s->syslog_ident, sizeof(s->syslog_ident));
#ifdef PKS_SYMBOLS_MAX
	for (int i = 0; i < PKS_SYMBOLS_MAX; i++) {
		if (i >= s->nsymbols)
			memset(&s->symbols[i], 0, sizeof(s->symbols[i]));
		else
			clear_string(s->symbols[i].name, sizeof(s->symbols[i].name));
	}
#endif
}

static void ignored(void *arg, const char *q, size_t n, const char *why)
{
	(void)arg;
	if (!n || !why || !*why || memchr(q, '\0', n))
		fail("DYNDBG", "an ignored query without bytes or a reason");
}

/* An accepted PRINTK_SHIM_DYNDBG: its queries read, applied, a site printed. */
static void check_dyndbg(const struct pks_settings *s)
{
	static struct pks_dd_rules r;
	static const struct pks_dd_site site = { "m", "f", "d/f.c", "x %d\n", 7 };
	char buf[PKS_DD_PREFIX];
	unsigned int f;

	if (pks_dd_parse(&r, s->dyndbg, ignored, NULL) != r.n || r.n > PKS_DD_QUERIES ||
	    r.used > sizeof(r.pool))
		fail("DYNDBG", "the rules are out of bounds");
	f = pks_dd_apply(&r, &site, PKS_DD_PRINT);
	if (pks_dd_prefix(buf, sizeof(buf), f, &site, 42) >= sizeof(buf))
		fail("DYNDBG", "a prefix longer than its buffer");
	pks_dd_site_text(buf, sizeof(buf), &site, f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char value[VALUE_MAX + 1];
	struct pks_settings s, before, again;
	const struct pks_var *v;
	size_t n;
	int r, l;

	if (size < 1)
		return 0;
	v = &pks_vars[data[0] % pks_nvars];
	n = size - 1 < VALUE_MAX ? size - 1 : VALUE_MAX;
	memcpy(value, data + 1, n);
	value[n] = '\0';

	pks_settings_default(&s);
	memcpy(&before, &s, sizeof(s));
	r = v->parse(&s, value);
	if (r != 0 && r != -1)
		fail(v->name, "a parser returned neither 0 nor -1");
	if (r && memcmp(&s, &before, sizeof(s)))
		fail(v->name, "a refused value changed the settings");
	if (!r)
		check(v, &s);
	pks_settings_default(&again);
	if (v->parse(&again, value) != r)
		fail(v->name, "the same value parsed twice, two results");
	canonical(&s);
	canonical(&again);
	if (memcmp(&again, &s, sizeof(s)))
		fail(v->name, "the same value parsed twice, two settings");
	if (!r && !strcmp(v->name, "OUTPUT"))
		round_trip(v, &s);
	if (!r && !strcmp(v->name, "DYNDBG"))
		check_dyndbg(&s);
	l = pks_level_from_name(value);
	if (l < -1 || l > 7)
		fail("LEVEL", "pks_level_from_name() out of range");
	return 0;
}
