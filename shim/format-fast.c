// SPDX-License-Identifier: MIT
/*
 * The fast path of the format engine. A format of text and the plain
 * conversions %d %i %u %x %X %c %s %%, with the flags - and 0 (+ and space
 * for %d, # for %x), a width or *, a precision or .* on %s only, and an
 * hh, h, l, ll, z, j or t length, is formatted here without the C
 * library's stdio machinery, which costs more per call than the rest of a
 * printk line. The bytes are the C library's: these conversions have one
 * meaning and no locale (%s of NULL is glibc's "(null)"). Anything else (a
 * precision on a number, a flag where it means nothing here, %p, %n, %o,
 * floating point, wide characters, positional arguments) is refused, and
 * the caller formats the whole call its usual way from its own va_list.
 * Thread-safety: pure.
 */
#include "format.h"
#include "format-priv.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WIDTH_MAX 4096		/* wider fields go the usual way */

struct sink {
	char *p, *end;		/* next byte; where the NUL goes (nothing beyond) */
	size_t len;		/* bytes the whole output has */
};

static inline void put(struct sink *o, const char *s, size_t n)
{
	size_t room = (size_t)(o->end - o->p);

	if (room > n)
		room = n;
	if (room > 8) {
		memcpy(o->p, s, room);
		o->p += room;
	} else {	/* a call costs more than a few bytes */
		for (size_t i = 0; i < room; i++)
			*o->p++ = s[i];
	}
	o->len += n;
}

static void pad(struct sink *o, char c, size_t n)
{
	size_t room = (size_t)(o->end - o->p);

	if (room > n)
		room = n;
	memset(o->p, c, room);
	o->p += room;
	o->len += n;
}

/* @s (@n bytes, @npre of @pre in front: a sign, "0x") in a field of @width. */
static inline __attribute__((always_inline)) void
field(struct sink *o, const char *s, size_t n, const char *pre, size_t npre, size_t width,
      bool left, bool zero)
{
	size_t all = n + npre, fill = width > all ? width - all : 0;

	if (!fill && !npre) {
		put(o, s, n);
		return;
	}
	if (fill && !left && !zero)
		pad(o, ' ', fill);
	put(o, pre, npre);
	if (fill && !left && zero)
		pad(o, '0', fill);
	put(o, s, n);
	if (fill && left)
		pad(o, ' ', fill);
}

/* Return: where the digits of @v start; they end at @end. (A constant base divides fast.) */
static inline char *decimal(char *end, uintmax_t v)
{
	do
		*--end = (char)('0' + v % 10);
	while ((v /= 10));
	return end;
}

static inline char *hex(char *end, uintmax_t v, bool upper)
{
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";

	do
		*--end = set[v & 15];
	while ((v >>= 4));
	return end;
}

/**
 * pks_format_fast() - format @fmt if it holds only the plain conversions
 * Return: the length of the whole output, as vsnprintf() (at most @size - 1
 * bytes and a NUL are stored); -2 when @fmt holds anything else, having
 * read @ap (the caller formats from its own copy). Never allocates.
 */
int pks_format_fast(char *buf, size_t size, const char *fmt, va_list ap)
{
	char dummy, tmp[3 * sizeof(uintmax_t)];
	struct sink o = { size ? buf : &dummy, size ? buf + size - 1 : &dummy, 0 };
	const char *f = fmt;

	while (*f) {
		const char *pct, *pre = "";
		bool left = false, zero = false, alt = false, prec = false;
		char sign = 0;
		size_t width = 0, max = 0, npre = 0;
		int len = 0;		/* -2 hh, -1 h, 0, 1 l, 2 ll/j, 3 z/t */
		uintmax_t v;
		char *s;

		pct = strchrnul(f, '%');
		put(&o, f, (size_t)(pct - f));
		f = pct;
		if (!*f)
			break;
		pct = f++;
		for (;; f++) {
			if (*f == '-')
				left = true;
			else if (*f == '0')
				zero = true;
			else if (*f == '#')
				alt = true;
			else if (*f == '+')
				sign = '+';
			else if (*f == ' ')
				sign = sign ? sign : ' ';
			else
				break;
		}
		if (*f == '*') {
			int w = va_arg(ap, int);

			if (w < -WIDTH_MAX || w > WIDTH_MAX)
				return -2;
			left |= w < 0;
			width = (size_t)(w < 0 ? -w : w);
			f++;
		} else {
			while (*f >= '0' && *f <= '9' && width < WIDTH_MAX)
				width = width * 10 + (size_t)(*f++ - '0');
		}
		if (*f == '.') {	/* taken for %s only: see below */
			int m = 0;

			prec = true;
			if (*++f == '*') {
				m = va_arg(ap, int);
				prec = m >= 0;
				f++;
			} else {
				while (*f >= '0' && *f <= '9' && m < WIDTH_MAX)
					m = m * 10 + (*f++ - '0');
			}
			max = (size_t)(m < 0 ? 0 : m);
		}
		if (*f == 'h')
			len = *++f == 'h' ? (f++, -2) : -1;
		else if (*f == 'l')
			len = *++f == 'l' ? (f++, 2) : 1;
		else if (*f == 'j')
			len = 2, f++;
		else if (*f == 'z' || *f == 't')
			len = 3, f++;
		/* glibc's meaning of these flags on other conversions is not ours to guess. */
		if ((sign && *f != 'd' && *f != 'i') || (alt && *f != 'x' && *f != 'X') ||
		    (prec && *f != 's'))
			return -2;
		switch (*f++) {
		case 'd':
		case 'i':
			switch (len) {
			case -2: v = (uintmax_t)(intmax_t)(signed char)va_arg(ap, int); break;
			case -1: v = (uintmax_t)(intmax_t)(short)va_arg(ap, int); break;
			case 0: v = (uintmax_t)(intmax_t)va_arg(ap, int); break;
			case 1: v = (uintmax_t)(intmax_t)va_arg(ap, long); break;
			case 2: v = (uintmax_t)va_arg(ap, intmax_t); break;
			default: v = (uintmax_t)(intmax_t)va_arg(ap, ptrdiff_t); break;
			}
			if ((intmax_t)v < 0) {
				sign = '-';
				v = -v;
			}
			s = decimal(tmp + sizeof(tmp), v);
			field(&o, s, (size_t)(tmp + sizeof(tmp) - s), &sign, sign != 0, width, left, zero);
			break;
		case 'u':
		case 'x':
		case 'X':
			switch (len) {
			case -2: v = (unsigned char)va_arg(ap, unsigned int); break;
			case -1: v = (unsigned short)va_arg(ap, unsigned int); break;
			case 0: v = va_arg(ap, unsigned int); break;
			case 1: v = va_arg(ap, unsigned long); break;
			case 2: v = va_arg(ap, uintmax_t); break;
			default: v = va_arg(ap, size_t); break;
			}
			if (f[-1] == 'u') {
				s = decimal(tmp + sizeof(tmp), v);
			} else {
				s = hex(tmp + sizeof(tmp), v, f[-1] == 'X');
				if (alt && v) {
					pre = f[-1] == 'X' ? "0X" : "0x";
					npre = 2;
				}
			}
			field(&o, s, (size_t)(tmp + sizeof(tmp) - s), pre, npre, width, left, zero);
			break;
		case 'c':
			if (len || zero)
				return -2;
			tmp[0] = (char)va_arg(ap, int);
			field(&o, tmp, 1, "", 0, width, left, false);
			break;
		case 's':
			if (len || zero)
				return -2;
			s = va_arg(ap, char *);
			if (!s && prec)
				return -2;	/* glibc: "(null)" or nothing, by the precision */
			if (!s)
				s = "(null)";
			field(&o, s, prec ? strnlen(s, max) : strlen(s), "", 0, width, left, false);
			break;
		case '%':
			if (f - pct != 2)
				return -2;
			put(&o, "%", 1);
			break;
		default:
			return -2;
		}
	}
	if (o.len > INT32_MAX)
		return -2;
	*o.p = '\0';
	return (int)o.len;
}
