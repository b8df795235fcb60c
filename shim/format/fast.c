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
 * The same walk also measures a format without storing it, for lines the
 * level filter drops.
 * Thread-safety: pure.
 */
#include "format/format.h"
#include "format/internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WIDTH_MAX 4096		/* wider fields go the usual way */

struct sink {
	char *p, *end;		/* next byte; where the NUL goes (nothing beyond) */
	size_t len;		/* bytes the whole output has */
	char last;		/* its last byte (counting only) */
};

/*
 * @count is a constant in each caller: counting stores nothing and keeps
 * the length and the last byte only, which is all a filtered line needs.
 */
static inline __attribute__((always_inline)) void
put(struct sink *o, bool count, const char *s, size_t n)
{
	size_t room;

	o->len += n;
	if (count) {
		if (n)
			o->last = s[n - 1];
		return;
	}
	room = (size_t)(o->end - o->p);
	if (room > n)
		room = n;
	if (room > 8) {
		memcpy(o->p, s, room);
	} else if (room >= 4) {	/* a call, or a loop, costs more than two overlapping moves */
		memcpy(o->p, s, 4);
		memcpy(o->p + room - 4, s + room - 4, 4);
	} else if (room >= 2) {
		memcpy(o->p, s, 2);
		memcpy(o->p + room - 2, s + room - 2, 2);
	} else if (room) {
		*o->p = *s;
	}
	o->p += room;
}

static inline void pad(struct sink *o, bool count, char c, size_t n)
{
	size_t room;

	o->len += n;
	if (count) {
		if (n)
			o->last = c;
		return;
	}
	room = (size_t)(o->end - o->p);
	if (room > n)
		room = n;
	memset(o->p, c, room);
	o->p += room;
}

/* The digits of a number: stored, or, counting, only their count and last one. */
struct digits {
	const char *s;		/* NULL when counting */
	size_t n;
	char last;
};

/*
 * @d (@npre bytes of @pre in front: a sign, "0x") in a field of @width.
 * Counting, @d.s may be NULL: @d.last stands for its last byte.
 */
static inline __attribute__((always_inline)) void
field(struct sink *o, bool count, struct digits d, const char *pre, size_t npre, size_t width,
      bool left, bool zero)
{
	size_t all = d.n + npre, fill = width > all ? width - all : 0;

	if (fill && !left && !zero)
		pad(o, count, ' ', fill);
	put(o, count, pre, npre);
	if (fill && !left && zero)
		pad(o, count, '0', fill);
	if (!count)
		put(o, count, d.s, d.n);
	else if (d.n)
		o->len += d.n, o->last = d.last;
	if (fill && left)
		pad(o, count, ' ', fill);
}

/* Digits of @v, from the bit length: a table look-up instead of divisions. */
static inline size_t ndecimal(uintmax_t v)
{
	static const uint64_t p10[] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
		1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
		1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	unsigned int bits = 64 - (unsigned int)__builtin_clzll((unsigned long long)v | 1);
	unsigned int n = bits * 1233 >> 12;	/* 1233 / 4096 ~ log10(2) */

	return n + (v >= p10[n]) + !v;
}

static const char pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Return: the digits of @v, written to end at @end unless counting. (A constant base divides fast.) */
static inline __attribute__((always_inline)) struct digits
decimal(bool count, char *end, uintmax_t v)
{
	char *s = end;

	if (count)
		return (struct digits){ NULL, ndecimal(v), (char)('0' + v % 10) };
	while (v >= 100) {	/* two digits a division */
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		s -= 2;
		memcpy(s, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		s -= 2;
		memcpy(s, pairs + 2 * v, 2);
	} else {
		*--s = (char)('0' + v);
	}
	return (struct digits){ s, (size_t)(end - s), 0 };
}

static inline __attribute__((always_inline)) struct digits
hex(bool count, char *end, uintmax_t v, bool upper)
{
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *s = end;

	if (count) {
		unsigned int bits = 64 - (unsigned int)__builtin_clzll((unsigned long long)v | 1);

		return (struct digits){ NULL, (bits + 3) / 4, set[v & 15] };
	}
	do
		*--s = set[v & 15];
	while ((v >>= 4));
	return (struct digits){ s, (size_t)(end - s), 0 };
}

static inline struct digits text(const char *s, size_t n)
{
	return (struct digits){ s, n, n ? s[n - 1] : 0 };
}

/* Return: 0, or -2 when @fmt holds anything but the plain conversions. */
static inline __attribute__((always_inline)) int
walk(struct sink *o, bool count, const char *fmt, va_list ap)
{
	char tmp[3 * sizeof(uintmax_t)];
	const char *f = fmt;

	while (*f) {
		const char *pct, *pre = "";
		bool left = false, zero = false, alt = false, prec = false;
		char sign = 0;
		size_t width = 0, max = 0, npre = 0;
		int len = 0;		/* -2 hh, -1 h, 0, 1 l, 2 ll/j, 3 z/t */
		uintmax_t v;
		struct digits d;
		const char *s;

		pct = strchrnul(f, '%');
		put(o, count, f, (size_t)(pct - f));
		f = pct;
		if (!*f)
			break;
		pct = f++;
		if (*f >= 'a')	/* flags, width and precision are all below 'a' */
			goto length;
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
length:
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
			d = decimal(count, tmp + sizeof(tmp), v);
			field(o, count, d, &sign, sign != 0, width, left, zero);
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
				d = decimal(count, tmp + sizeof(tmp), v);
			} else {
				d = hex(count, tmp + sizeof(tmp), v, f[-1] == 'X');
				if (alt && v) {
					pre = f[-1] == 'X' ? "0X" : "0x";
					npre = 2;
				}
			}
			field(o, count, d, pre, npre, width, left, zero);
			break;
		case 'c':
			if (len || zero)
				return -2;
			tmp[0] = (char)va_arg(ap, int);
			field(o, count, text(tmp, 1), "", 0, width, left, false);
			break;
		case 's':
			if (len || zero)
				return -2;
			s = va_arg(ap, char *);
			if (!s && prec)
				return -2;	/* glibc: "(null)" or nothing, by the precision */
			if (!s)
				s = "(null)";
			field(o, count, text(s, prec ? strnlen(s, max) : strlen(s)), "", 0, width, left,
			      false);
			break;
		case '%':
			if (f - pct != 2)
				return -2;
			put(o, count, "%", 1);
			break;
		default:
			return -2;
		}
	}
	return o->len > INT32_MAX ? -2 : 0;
}

/**
 * pks_format_fast() - format @fmt if it holds only the plain conversions
 * Return: the length of the whole output, as vsnprintf() (at most @size - 1
 * bytes and a NUL are stored); -2 when @fmt holds anything else, having
 * read @ap (the caller formats from its own copy). Never allocates.
 */
int pks_format_fast(char *buf, size_t size, const char *fmt, va_list ap)
{
	char dummy;
	struct sink o = { size ? buf : &dummy, size ? buf + size - 1 : &dummy, 0, 0 };

	if (walk(&o, false, fmt, ap))
		return -2;
	*o.p = '\0';
	return (int)o.len;
}

/**
 * pks_format_count() - what pks_format_fast() would return, storing nothing
 * @last: out; the last byte of the output ('\0' when it is empty)
 * Return: the length of the output, or -2 as pks_format_fast(), having
 * read @ap. Numbers are measured, not converted: this is the whole cost of
 * a line that the level filter drops, whose length printk still returns.
 */
int pks_format_count(const char *fmt, va_list ap, char *last)
{
	struct sink o = { NULL, NULL, 0, 0 };

	if (walk(&o, true, fmt, ap))
		return -2;
	*last = o.last;
	return (int)o.len;
}
