/* SPDX-License-Identifier: MIT */
/*
 * The digits every layer writes by hand, in one place: the hex digit sets,
 * decimal writers, days since the epoch as a calendar date, and the plain
 * copies the writers around them use. Inline and
 * pure (no state, no calls), so the pure layers may include it too.
 */
#ifndef PKS_BASE_DIGITS_H
#define PKS_BASE_DIGITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static const char pks_hex_lower[] = "0123456789abcdef";
static const char pks_hex_upper[] = "0123456789ABCDEF";

/** pks_put_mem() - @n bytes of @s at @p. Return: the byte after them. */
static inline char *pks_put_mem(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/**
 * pks_put_run() - pks_put_mem() of a format's literal run: up to 16 bytes
 * in two overlapping moves, or three single ones, which cost less than a call
 */
static inline char *pks_put_run(char *p, const char *s, size_t n)
{
	if (n > 16)
		return pks_put_mem(p, s, n);
	if (n >= 8) {
		memcpy(p, s, 8);
		memcpy(p + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(p, s, 4);
		memcpy(p + n - 4, s + n - 4, 4);
	} else if (n) {
		p[0] = s[0];
		p[n - 1] = s[n - 1];
		p[n / 2] = s[n / 2];
	}
	return p + n;
}

/**
 * pks_put_part() - pks_put_run(), and up to 32 bytes without a call: a
 * record's parts, a %s. Apart from pks_put_run(): a literal run seldom
 * passes 16 bytes, and the test costs the printer's loop.
 */
static inline char *pks_put_part(char *p, const char *s, size_t n)
{
	if (n <= 16 || n > 32)
		return pks_put_run(p, s, n);
	memcpy(p, s, 16);
	memcpy(p + n - 16, s + n - 16, 16);
	return p + n;
}

static const char pks_dec_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/*
 * @v's digits, two a division, ending at @e; a constant @narrow: @v is
 * below 2^32, and 32-bit divisions (multiplications) do.
 */
static inline __attribute__((always_inline)) void pks_dec_back(char *e, uint64_t v, bool narrow)
{
	for (; v >= 100; v = narrow ? (uint32_t)v / 100u : v / 100)
		memcpy(e -= 2, pks_dec_pairs + 2 * (narrow ? (uint32_t)v % 100u : v % 100), 2);
	if (v >= 10)
		memcpy(e - 2, pks_dec_pairs + 2 * v, 2);
	else
		e[-1] = (char)('0' + v);
}

/**
 * pks_put_dec() - @v in decimal at @p, exactly its @n digits, counted
 * beforehand (format/tally.h's pks_ndecimal()). Return: past them.
 */
static inline char *pks_put_dec(char *p, uint64_t v, size_t n)
{
	pks_dec_back(p + n, v, false);
	return p + n;
}

/** pks_put_dec32() - pks_put_dec() of a 32-bit @v (pks_ndecimal32()) */
static inline char *pks_put_dec32(char *p, uint32_t v, size_t n)
{
	pks_dec_back(p + n, v, true);
	return p + n;
}

/** pks_put_hex() - @v in hexadecimal at @p, its @n digits (pks_nhex()) from @set */
static inline char *pks_put_hex(char *p, uint64_t v, size_t n, const char *set)
{
	for (char *e = p + n; e > p; v >>= 4)
		*--e = set[v & 15];
	return p + n;
}

/**
 * pks_put_udec() - @v in decimal at @p, at least @width digits
 * @pad: what fills the field on the left, '0' or ' '
 * Return: the byte after the last digit. At most 20 digits, plus the padding.
 */
static inline char *pks_put_udec(char *p, uint64_t v, int width, char pad)
{
	char tmp[20];		/* UINT64_MAX has 20 digits */
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (width-- > n)
		*p++ = pad;
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* A day of the proleptic Gregorian calendar. */
struct pks_date {
	int64_t year;
	int mon;		/* 1 to 12 */
	int mday;		/* 1 to 31 */
};

/**
 * pks_civil_from_days() - days since 1970-01-01 as a date
 *
 * Howard Hinnant's civil_from_days(). The count is moved to start on
 * 0000-03-01, so that a leap day is the last day of its year, and cut into
 * eras of 400 years, each 146097 days long; inside an era the Gregorian
 * rules are a few exact divisions.
 * Return: the date, for any @days within a 64-bit time_t's range.
 */
static inline struct pks_date pks_civil_from_days(int64_t days)
{
	int64_t era;
	unsigned int doe, yoe, doy, mp;
	struct pks_date d;

	days += 719468;		/* 0000-03-01 to 1970-01-01 */
	era = (days >= 0 ? days : days - 146096) / 146097;	/* rounded down */
	doe = (unsigned int)(days - era * 146097);	/* day of the era, 0 to 146096 */
	/* 1460 = 4 * 365, 36524 = 100 * 365 + 24: the leap days skipped */
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;	/* 0 to 399 */
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);	/* 0 to 365, from March 1 */
	mp = (5 * doy + 2) / 153;	/* March is 0: March to July is 153 days */
	d.mday = (int)(doy - (153 * mp + 2) / 5 + 1);
	d.mon = (int)(mp < 10 ? mp + 3 : mp - 9);
	d.year = (int64_t)yoe + era * 400 + (d.mon <= 2);
	return d;
}

#endif
