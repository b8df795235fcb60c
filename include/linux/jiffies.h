/* SPDX-License-Identifier: MIT */
/*
 * HZ and jiffies for ported kernel code (printk-shim(7) WARN AND BUG, HZ AND
 * JIFFIES): HZ is 1000 unless the port defines it before including any of
 * these headers (the ratelimit helpers count in the same jiffies); jiffies
 * is CLOCK_MONOTONIC in 1/HZ s, read at each use (an expression, not a
 * variable: it cannot be assigned or declared again). Unlike the kernel's,
 * it does not start 5 minutes before its wrap; the time_* comparisons
 * are the kernel's, wrap-safe.
 * Thread-safety: yes, each read is a clock_gettime() call.
 */
#ifndef _LINUX_JIFFIES_H
#define _LINUX_JIFFIES_H

#include <stdint.h>
#include <linux/pks_byteorder.h>
#ifndef HZ
#define HZ	1000
#endif
#include <linux/ratelimit_types.h>

#define jiffies			((unsigned long)PKS_RATELIMIT_NOW())
#define jiffies_64		((uint64_t)PKS_RATELIMIT_NOW())
#define get_jiffies_64()	jiffies_64

#define MAX_JIFFY_OFFSET	((long)(~0UL >> 2) - 1)	/* the kernel's ((LONG_MAX >> 1) - 1) */

#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_before(a, b)	time_after(b, a)
#define time_after_eq(a, b)	((long)((a) - (b)) >= 0)
#define time_before_eq(a, b)	time_after_eq(b, a)
#define time_in_range(a, b, c)	(time_after_eq(a, b) && time_before_eq(a, c))
#define time_in_range_open(a, b, c) (time_after_eq(a, b) && time_before(a, c))
#define time_after64(a, b)	((int64_t)((b) - (a)) < 0)
#define time_before64(a, b)	time_after64(b, a)
#define time_is_before_jiffies(a)	time_after(jiffies, a)
#define time_is_after_jiffies(a)	time_before(jiffies, a)
#define time_is_before_eq_jiffies(a)	time_after_eq(jiffies, a)
#define time_is_after_eq_jiffies(a)	time_before_eq(jiffies, a)

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Rounded up, as the kernel's; values past MAX_JIFFY_OFFSET saturate, and
 * a negative one (an int timeout of -1) is the kernel's infinite timeout.
 */
static inline unsigned long msecs_to_jiffies(unsigned int m)
{
	unsigned long long j = ((unsigned long long)m * HZ + 999) / 1000;

	if ((int)m < 0)
		return (unsigned long)MAX_JIFFY_OFFSET;
	return j > (unsigned long long)MAX_JIFFY_OFFSET ? (unsigned long)MAX_JIFFY_OFFSET :
							  (unsigned long)j;
}

static inline unsigned long usecs_to_jiffies(unsigned int u)
{
	return (unsigned long)(((unsigned long long)u * HZ + 999999) / 1000000);
}

static inline unsigned int jiffies_to_msecs(unsigned long j)
{
	return (unsigned int)((unsigned long long)j * 1000 / HZ);
}

static inline unsigned int jiffies_to_usecs(unsigned long j)
{
	return (unsigned int)((unsigned long long)j * 1000000 / HZ);
}

#ifdef __cplusplus
}
#endif

#endif /* _LINUX_JIFFIES_H */
