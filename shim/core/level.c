// SPDX-License-Identifier: MIT
/*
 * Level markers and level names. The kernel reads markers from the formatted
 * text, so a level passed through "%s" counts; the caller hands us formatted
 * bytes. Only the leading run is consumed: a marker after any text stays text,
 * as it does in the kernel. This file knows nothing of continuation (cont.c)
 * or of configuration (it is told whether "<N>" counts).
 * Thread-safety: pure.
 */
#include "base/compiler.h"
#include "core/level.h"

#include <string.h>
#include <strings.h>

#define KERN_SOH_ASCII '\001'

/* What the byte after SOH (or between '<' and '>') means; 0 is "not a marker". */
static unsigned int kind(char c, int *level)
{
	if (c >= '0' && c <= '7') {
		*level = c - '0';
		return PKS_M_LEVEL;
	}
	if (c == 'c')
		return PKS_M_CONT;
	if (c == 'd')
		return PKS_M_DEFAULT;
	return 0;
}

/* Length of the marker at @s, 0 if there is none; its meaning goes to @f/@lv. */
static size_t one(const char *s, size_t n, bool legacy, unsigned int *f, int *lv)
{
	if (n >= 2 && s[0] == KERN_SOH_ASCII && (*f = kind(s[1], lv)))
		return 2;
	/* s[1] before s[2]: a marker byte is not NUL, so a C string is never overrun. */
	if (legacy && n >= 3 && s[0] == '<' && (*f = kind(s[1], lv)) && s[2] == '>')
		return 3;
	return 0;
}

/**
 * pks_level_parse() - consume the leading run of level markers
 * @s: formatted fragment, @n bytes (need not be NUL-terminated; if it is,
 *	@n may be larger: nothing past the NUL is read)
 * @legacy: also accept the 2.6.31-3.5 "<N>", "<c>", "<d>" tokens
 * @m: out; the first digit wins, flags accumulate over the run
 * Return: bytes of markers at the start of @s (0 if none). Never fails.
 */
PKS_HOT size_t pks_level_parse(const char *s, size_t n, bool legacy, struct pks_mark *m)
{
	size_t used = 0, len;
	unsigned int f;
	int lv;

	m->level = PKS_LEVEL_NONE;
	m->flags = 0;
	while ((len = one(s + used, n - used, legacy, &f, &lv))) {
		if (f == PKS_M_LEVEL && m->level == PKS_LEVEL_NONE)
			m->level = lv;
		m->flags |= f;
		used += len;
	}
	return used;
}

/* The bytes of the UTF-8 sequence at @p (two to four), or 0 when it is none. */
static size_t utf8(const unsigned char *p)
{
	size_t n = *p >= 0xf0 && *p <= 0xf4 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 ? 2 : 0;

	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return *p > 0xf4 ? 0 : n;
}

/**
 * pks_level_marked() - does the C string @s, found in a binary's data, look
 * like a printk format: leading KERN_SOH markers (and "<N>" tokens, with
 * @legacy: PRINTK_SHIM_LEGACY_MARKERS), then printable text
 * (ASCII, tab, newline, UTF-8) with a letter, and a space, a '%' or a final
 * newline? A \001 and a digit before other bytes, as code, tables and
 * packed data have ("\0010123456789ABCDEF", "\0011in-addr.arpa",
 * "\0016\377\377t\r"), make no format; nor does a short fragment ("a").
 * Return: the bytes the markers take, or 0 when it does not.
 */
size_t pks_level_marked(const char *s, bool legacy)
{
	struct pks_mark m;
	size_t skip = pks_level_parse(s, strlen(s), legacy, &m), n;
	bool letter = false, shaped = false;
	const unsigned char *p;

	if (!skip)
		return 0;
	for (p = (const unsigned char *)s + skip; *p; p += n) {
		n = *p >= 0x80 ? utf8(p) : (*p >= 0x20 && *p < 0x7f) || *p == '\t' || *p == '\n';
		if (!n)
			return 0;
		letter |= (*p | 0x20) >= 'a' && (*p | 0x20) <= 'z';
		shaped |= *p == ' ' || *p == '%' || (*p == '\n' && !p[1]);
	}
	return letter && shaped ? skip : 0;
}

static const char *const names[] = {
	[0] = "emerg", [1] = "alert", [2] = "crit", [3] = "err",
	[4] = "warn", [5] = "notice", [6] = "info", [7] = "debug",
};

static const struct { const char *name; int level; } aliases[] = {
	{ "error", 3 }, { "warning", 4 },
};

/**
 * pks_level_from_name() - "0".."7" or a level name, case-insensitive
 * Return: 0..7, or -1 when @s names no level.
 */
int pks_level_from_name(const char *s)
{
	if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0')
		return s[0] - '0';
	for (int i = 0; i <= PKS_LEVEL_MAX; i++)
		if (!strcasecmp(s, names[i]))
			return i;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcasecmp(s, aliases[i].name))
			return aliases[i].level;
	return -1;
}

/** pks_level_name() - Return: the short name of @level, "?" if out of range. */
const char *pks_level_name(int level)
{
	return level >= 0 && level <= PKS_LEVEL_MAX ? names[level] : "?";
}
