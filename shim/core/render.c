// SPDX-License-Identifier: MIT
/*
 * Rendering: the prefix and suffix a format puts around a line's text, and
 * the whole record for kmsg, which escapes the text. Numbers are written by
 * hand: this runs once per line on the hot path, where snprintf would cost
 * more than the rest of the line. Writing is sink.c's job.
 * Thread-safety: pure.
 */
#include "core/render.h"
#include "core/json.h"
#include "base/digits.h"

#include <string.h>

#define GREEN	"\033[32m"
#define RESET	"\033[0m"

/*
 * Message colours of util-linux dmesg --color (2.38). Its emerg line is left
 * uncoloured there, an oversight newer releases fixed; we colour it as alert.
 */
static const char *const colors[8] = {
	[0] = "\033[7m\033[31m", [1] = "\033[7m\033[31m",
	[2] = "\033[1m\033[31m", [3] = "\033[31m", [4] = "\033[1m",
};

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* "[%5lu.%06lu] " */
static char *stamp(char *p, uint64_t t_ns, bool color)
{
	if (color)
		p = put_str(p, GREEN);
	*p++ = '[';
	p = pks_put_udec(p, t_ns / 1000000000u, 5, ' ');
	*p++ = '.';
	p = pks_put_udec(p, t_ns % 1000000000u / 1000u, 6, '0');
	p = put_str(p, "] ");
	if (color)
		p = put_str(p, RESET);
	return p;
}

/**
 * pks_render_prefix() - bytes before the text, for every format but kmsg
 * @out: at least PKS_HEAD_MAX bytes
 * Return: bytes written.
 */
size_t pks_render_prefix(char *out, const struct pks_render *r)
{
	char *p = out;
	bool syslog = r->format == PKS_LINE_PREFIX || r->format == PKS_LINE_DMESG;

	if (syslog) {
		*p++ = '<';
		*p++ = (char)('0' + (r->level & 7));
		*p++ = '>';
	}
	if (r->time || r->format == PKS_LINE_DMESG)
		p = stamp(p, r->t_ns, r->color);
	if (r->caller) {
		p = put_str(p, "[T");
		p = pks_put_udec(p, (uint64_t)r->tid, 1, ' ');
		p = put_str(p, "] ");
	}
	if (r->color && colors[r->level & 7])
		p = put_str(p, colors[r->level & 7]);
	return (size_t)(p - out);
}

/** pks_render_suffix() - Return: bytes written after the text (newline included). */
size_t pks_render_suffix(char *out, const struct pks_render *r)
{
	char *p = out;

	if (r->color && colors[r->level & 7])
		p = put_str(p, RESET);
	*p++ = '\n';
	return (size_t)(p - out);
}

/**
 * pks_render_room() - Return: room for the whole record of an @n-byte line
 * in @format, 0 for the formats that write around the text in place.
 */
size_t pks_render_room(enum pks_linefmt format, size_t n)
{
	if (format == PKS_LINE_KMSG)
		return pks_render_kmsg_max(n);
	if (format == PKS_LINE_JSON)
		return pks_json_max(n);
	return 0;
}

/** pks_render_kmsg_max() - Return: room pks_render_kmsg() may need for @n bytes. */
size_t pks_render_kmsg_max(size_t n)
{
	return 4 * n + 80;
}

/**
 * pks_render_kmsg() - a /dev/kmsg record: "L,SEQ,USEC,FLAG[,caller=T<tid>];text\n"
 * Bytes below 0x20, from 0x7f and the backslash are written as \xNN, as the
 * kernel does. @out has pks_render_kmsg_max(@n) bytes.
 * Return: bytes written.
 */
size_t pks_render_kmsg(char *out, const struct pks_render *r, const char *text, size_t n)
{
	char *p = out;

	p = pks_put_udec(p, (uint64_t)(r->level & 7), 1, ' ');
	*p++ = ',';
	p = pks_put_udec(p, r->seq, 1, ' ');
	*p++ = ',';
	p = pks_put_udec(p, r->t_ns / 1000u, 1, ' ');
	*p++ = ',';
	*p++ = r->cont ? 'c' : '-';
	if (r->caller) {
		p = put_str(p, ",caller=T");
		p = pks_put_udec(p, (uint64_t)r->tid, 1, ' ');
	}
	*p++ = ';';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c < 0x20 || c >= 0x7f || c == '\\') {
			*p++ = '\\';
			*p++ = 'x';
			*p++ = pks_hex_lower[c >> 4];
			*p++ = pks_hex_lower[c & 15];
		} else {
			*p++ = (char)c;
		}
	}
	*p++ = '\n';
	return (size_t)(p - out);
}
