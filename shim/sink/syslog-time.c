// SPDX-License-Identifier: MIT
/*
 * The wall clock of syslog headers, local time as glibc's syslog(3) writes
 * it, without localtime_r on the way of a line. localtime_r takes glibc's
 * time zone lock: a signal handler that interrupted it, or a child forked
 * while another thread held it, would wait forever. So the zone is asked
 * rarely and the answer kept in one atomic word: the UTC offset and the
 * span it holds for, up to a day either side, ending at the offset changes
 * found by bisection. A line inside the span gets local time by addition.
 * The zone is read (tzset) before the first line, from the constructor or
 * the first line outside a handler; a line past the span asks again, but
 * only outside a handler: inside one it uses the old offset, at worst one
 * DST step off until a later line outside refreshes it. A fatal signal's
 * flush is not counted as a handler; it asks at most once a day.
 * Thread-safety: lock-free; one asker at a time, the others keep the old
 * offset meanwhile.
 */
#include "sink/syslog-impl.h"
#include "base/digits.h"

#include <stdatomic.h>
#include <string.h>

#define DAY		86400
#define OFF_BITS	17		/* offset + OFF_BIAS */
#define OFF_BIAS	(1L << (OFF_BITS - 1))
#define LEN_BITS	11		/* span length in LEN_UNIT */
#define LEN_UNIT	128		/* seconds; 2 days fit in LEN_BITS */
#define HI_SHIFT	(OFF_BITS + LEN_BITS)
#define HI_MAX		((1LL << (64 - HI_SHIFT)) - 1)

/*
 * Bits 0..16: the offset + OFF_BIAS; 17..27: the span's length, rounded
 * down so its start is never too early; 28..63: its end (exclusive, seconds
 * since the epoch). 0: nothing known.
 */
static _Atomic uint64_t zone;
static _Atomic int asking;
static _Atomic int tz_read;

static const char months[12][4] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

static long gmtoff(time_t t)
{
	struct tm tm;

	return localtime_r(&t, &tm) ? tm.tm_gmtoff : 0;
}

/* From @in (offset @off) towards @out (another offset): the last second with @off. */
static time_t last_same(time_t in, time_t out, long off)
{
	while (in - out > 1 || out - in > 1) {
		time_t m = in + (out - in) / 2;

		if (gmtoff(m) == off)
			in = m;
		else
			out = m;
	}
	return in;
}

static uint64_t pack(time_t lo, time_t hi, long off)
{
	uint64_t len = (uint64_t)(hi - lo) / LEN_UNIT;

	if (lo < 0 || (uint64_t)hi > (uint64_t)HI_MAX || off < -OFF_BIAS || off >= OFF_BIAS)
		return 0;
	return (uint64_t)hi << HI_SHIFT | len << OFF_BITS | (uint64_t)(off + OFF_BIAS);
}

static long off_of(uint64_t w)
{
	return (long)(w & ((1u << OFF_BITS) - 1)) - OFF_BIAS;
}

static bool holds(uint64_t w, time_t t)
{
	time_t hi = (time_t)(w >> HI_SHIFT);
	time_t len = (time_t)(w >> OFF_BITS & ((1u << LEN_BITS) - 1)) * LEN_UNIT;

	return w && t < hi && t >= hi - len;
}

/* Ask the zone about @now. Assumes no two offset changes within a day. */
static uint64_t ask(time_t now, long *off)
{
	time_t lo = now - DAY, hi = now + DAY;

	*off = gmtoff(now);
	if (gmtoff(hi) != *off)
		hi = last_same(now, hi, *off) + 1;
	if (gmtoff(lo) != *off)
		lo = last_same(now, lo, *off);
	return pack(lo, hi, *off);
}

/* Ask and keep the answer, unless another asker is at it. */
static bool refresh(time_t now, bool first, long *off)
{
	/* acquire: pairs with the release below, by the previous asker */
	if (atomic_exchange_explicit(&asking, 1, memory_order_acquire))
		return false;
	if (first)
		tzset();
	/* no pair: the word is whole in itself, its span and offset packed */
	atomic_store_explicit(&zone, ask(now, off), memory_order_relaxed);
	/* release: pairs with the exchange's acquire above, the next asker's */
	atomic_store_explicit(&asking, 0, memory_order_release);
	return true;
}

static long offset_at(time_t now, bool may_ask)
{
	/* no pair: the word is whole in itself (pack()) */
	uint64_t w = atomic_load_explicit(&zone, memory_order_relaxed);
	long off;

	if (holds(w, now))
		return off_of(w);
	if (may_ask && refresh(now, false, &off))
		return off;
	return w ? off_of(w) : 0;
}

/**
 * pks_sltime_prepare() - read the time zone, once, before the first line
 * @may_ask: the caller is not in a signal handler; otherwise nothing happens
 */
void pks_sltime_prepare(bool may_ask)
{
	struct timespec ts;
	long off;

	/* no pair: a flag that saves a second tzset(); the zone word stands alone */
	if (!may_ask || atomic_load_explicit(&tz_read, memory_order_relaxed))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (refresh(ts.tv_sec, true, &off))
		atomic_store(&tz_read, 1);	/* no pair: as the load's */
}

/**
 * pks_sltime_at() - @ts as local time, with the offset it has there
 * @may_ask: the caller is not in a signal handler (see the file's header)
 */
void pks_sltime_at(const struct timespec *ts, bool may_ask, struct pks_sltime *t)
{
	long off = offset_at(ts->tv_sec, may_ask);
	int64_t s = (int64_t)ts->tv_sec + off;
	int64_t days = s / DAY, rem = s % DAY;
	struct pks_date d;

	if (rem < 0) {
		rem += DAY;
		days--;
	}
	d = pks_civil_from_days(days);
	t->year = (int)d.year;
	t->mon = d.mon;
	t->mday = d.mday;
	t->hour = (int)(rem / 3600);
	t->min = (int)(rem / 60 % 60);
	t->sec = (int)(rem % 60);
	t->usec = ts->tv_nsec / 1000;
	t->off = off;
}

/* @v, 0 to 99, in two places: on every header, cheaper than pks_put_udec(). */
static char *two(char *p, int v, char pad)
{
	*p++ = v >= 10 ? (char)('0' + v / 10 % 10) : pad;
	*p++ = (char)('0' + v % 10);
	return p;
}

static char *clock_time(char *p, const struct pks_sltime *t)
{
	p = two(p, t->hour, '0');
	*p++ = ':';
	p = two(p, t->min, '0');
	*p++ = ':';
	return two(p, t->sec, '0');
}

/** pks_sltime_3164() - "Mmm dd hh:mm:ss", strftime's "%h %e %T" in the C locale. Return: 15. */
size_t pks_sltime_3164(char *buf, const struct pks_sltime *t)
{
	char *p = buf;

	memcpy(p, months[t->mon - 1], 3);
	p[3] = ' ';
	p = two(p + 4, t->mday, ' ');
	*p++ = ' ';
	return (size_t)(clock_time(p, t) - buf);
}

/** pks_sltime_5424() - RFC 3339 with microseconds and the numeric offset. Return: 32. */
size_t pks_sltime_5424(char *buf, const struct pks_sltime *t)
{
	long off = t->off < 0 ? -t->off : t->off;
	char *p = buf;

	p = two(p, t->year / 100 % 100, '0');
	p = two(p, t->year % 100, '0');
	*p++ = '-';
	p = two(p, t->mon, '0');
	*p++ = '-';
	p = two(p, t->mday, '0');
	*p++ = 'T';
	p = clock_time(p, t);
	*p++ = '.';
	p = pks_put_udec(p, (uint64_t)t->usec, 6, '0');
	*p++ = t->off < 0 ? '-' : '+';
	p = two(p, (int)(off / 3600), '0');
	*p++ = ':';
	p = two(p, (int)(off / 60 % 60), '0');
	return (size_t)(p - buf);
}
