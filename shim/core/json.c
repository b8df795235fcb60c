// SPDX-License-Identifier: MIT
/*
 * A line as one JSON object (RFC 8259) for PRINTK_SHIM_FORMAT=json, with the
 * keys of printk-shim(7) OUTPUTS AND FORMATS. The output is always valid
 * UTF-8, however invalid the text. Thread-safety: pure.
 */
#include "core/json.h"
#include "core/level.h"
#include "base/digits.h"

#include <string.h>

/*
 * Room besides the message: the keys, numbers and time in 256 bytes, and
 * the ident and caller escaped as string() may, 6 bytes a byte.
 */
#define FIXED_MAX	(256 + 6 * (PKS_IDENT_MAX + PKS_FUNC_MAX))

#define CAT(p, lit)	pks_put_mem(p, lit, sizeof(lit) - 1)

/* Printable ASCII that JSON takes as it is: 0x20..0x7e but '"' and '\\'. */
static inline bool plain(unsigned char c)
{
	static const uint32_t bits[8] = { 0, 0xfffffffb, 0xefffffff, 0x7fffffff };

	return bits[c >> 5] >> (c & 31) & 1;
}

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	static const uint32_t least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len = s[0] < 0xc2 ? 0 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;
	uint32_t cp;

	if (!len || len > n)
		return 0;
	cp = s[0] & (0x7fu >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/*
 * @n bytes of @s inside a JSON string: '"' and control bytes escaped the
 * JSON way, so they read back as the same bytes; a byte that is not part
 * of valid UTF-8, and the backslash, as the text \xNN, as /dev/kmsg writes
 * them, so that nothing is dropped and nothing is ambiguous. At most 6 bytes
 * a byte.
 */
static char *string(char *p, const char *s, size_t n)
{
	static const char brief[32] = {
		['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r',
	};
	const unsigned char *u = (const unsigned char *)s;
	size_t len;

	for (size_t i = 0; i < n; i += len) {
		unsigned char c = u[i];

		/* most text is a run of bytes that go as they are: copy it whole */
		for (len = 0; i + len < n && plain(u[i + len]); len++)
			;
		if (len) {
			p = pks_put_mem(p, s + i, len);
			continue;
		}
		len = 1;
		if (c == '"') {
			p = CAT(p, "\\\"");
		} else if (c < 0x20 && brief[c]) {
			*p++ = '\\';
			*p++ = brief[c];
		} else if (c < 0x20 || c == 0x7f) {
			p = CAT(p, "\\u00");
			*p++ = pks_hex_lower[c >> 4];
			*p++ = pks_hex_lower[c & 15];
		} else if (c != '\\' && (len = utf8_len(u + i, n - i))) {
			p = pks_put_mem(p, s + i, len);
		} else {
			len = 1;
			p = CAT(p, "\\\\x");
			*p++ = pks_hex_lower[c >> 4];
			*p++ = pks_hex_lower[c & 15];
		}
	}
	return p;
}

/* "YYYY-MM-DDThh:mm:ss" for @s seconds since the epoch, in 19 bytes. */
static void utc_seconds(char *p, uint64_t s)
{
	uint64_t sod = s % 86400;
	struct pks_date d = pks_civil_from_days((int64_t)(s / 86400));

	p = pks_put_udec(p, (uint64_t)d.year, 4, '0');
	*p++ = '-';
	p = pks_put_udec(p, (uint64_t)d.mon, 2, '0');
	*p++ = '-';
	p = pks_put_udec(p, (uint64_t)d.mday, 2, '0');
	*p++ = 'T';
	p = pks_put_udec(p, sod / 3600, 2, '0');
	*p++ = ':';
	p = pks_put_udec(p, sod / 60 % 60, 2, '0');
	*p++ = ':';
	pks_put_udec(p, sod % 60, 2, '0');
}

/*
 * "YYYY-MM-DDThh:mm:ss.uuuuuuZ" for @ns since the epoch. The date and time
 * of day are kept in @cache, if there is one, for the lines of the same
 * second: working them out is most of a line's cost.
 */
static char *utc(char *p, uint64_t ns, struct pks_utc *cache)
{
	uint64_t s = ns / 1000000000u;
	char text[sizeof(cache->text)];
	const char *t = text;

	if (cache && cache->valid && cache->sec == s) {
		t = cache->text;
	} else {
		utc_seconds(text, s);
		if (cache) {
			cache->sec = s;
			cache->valid = true;
			memcpy(cache->text, text, sizeof(text));
		}
	}
	p = pks_put_mem(p, t, sizeof(text));
	*p++ = '.';
	p = pks_put_udec(p, ns % 1000000000u / 1000u, 6, '0');
	return CAT(p, "Z");
}

/** pks_json_max() - Return: room pks_json_line() may need for @n bytes. */
size_t pks_json_max(size_t n)
{
	return 6 * n + FIXED_MAX;
}

/**
 * pks_json_line() - one line: {"time":...,"level":N,"level_name":...,
 * "pid":N,"tid":N,"ident":...,"caller":...,"msg":...} and a newline; the
 * caller only when @r names it. @out has pks_json_max(@n) bytes.
 * Return: bytes written.
 */
size_t pks_json_line(char *out, const struct pks_render *r, const char *text, size_t n)
{
	const char *level = pks_level_name(r->level);
	char *p = CAT(out, "{\"time\":\"");

	p = utc(p, r->t_real_ns, r->utc);
	p = CAT(p, "\",\"level\":");
	p = pks_put_udec(p, (uint64_t)r->level, 1, '0');
	p = CAT(p, ",\"level_name\":\"");
	p = pks_put_mem(p, level, strlen(level));
	p = CAT(p, "\",\"pid\":");
	p = pks_put_udec(p, (uint64_t)r->pid, 1, '0');
	p = CAT(p, ",\"tid\":");
	p = pks_put_udec(p, (uint64_t)r->tid, 1, '0');
	p = CAT(p, ",\"ident\":\"");
	p = string(p, r->ident, strnlen(r->ident, PKS_IDENT_MAX));
	if (r->func) {
		p = CAT(p, "\",\"caller\":\"");
		p = string(p, r->func, strnlen(r->func, PKS_FUNC_MAX));
	}
	p = CAT(p, "\",\"msg\":\"");
	p = string(p, text, n);
	p = CAT(p, "\"}\n");
	return (size_t)(p - out);
}
