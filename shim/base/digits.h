/* SPDX-License-Identifier: MIT */
/*
 * The digits every layer writes by hand, in one place: the hex digit sets,
 * a decimal writer, days since the epoch as a calendar date, and the plain
 * copy the writers around them use. Inline and
 * pure (no state, no calls), so the pure layers may include it too.
 */
#ifndef PKS_BASE_DIGITS_H
#define PKS_BASE_DIGITS_H

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
