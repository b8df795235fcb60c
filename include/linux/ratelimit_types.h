/* SPDX-License-Identifier: MIT */
/*
 * Rate limiting for ported kernel code: struct ratelimit_state,
 * DEFINE_RATELIMIT_STATE and __ratelimit(), with the kernel's (pre-6.15)
 * rule: up to @burst calls pass per @interval; the rest are counted, and the
 * first call that passes after the interval logs "<func>: N callbacks
 * suppressed" at KERN_WARNING through printk_deferred().
 *
 * Time is counted in "jiffies" of PKS_HZ per second: HZ if the port defined
 * it before this header, else 1000. The clock is CLOCK_MONOTONIC (time() in a
 * strict ISO C build that hides clock_gettime); a test may define
 * PKS_RATELIMIT_NOW() before including this header to supply its own.
 * Thread-safety: a state may be shared by threads. As in the kernel, a call
 * that finds the state busy is refused and not counted.
 */
#ifndef _LINUX_RATELIMIT_TYPES_H
#define _LINUX_RATELIMIT_TYPES_H

#include <time.h>
#include <linux/kern_levels.h>
#include <linux/pks_byteorder.h>

#ifdef HZ
#define PKS_HZ	HZ
#else
#define PKS_HZ	1000
#endif

#define DEFAULT_RATELIMIT_INTERVAL	(5 * PKS_HZ)
#define DEFAULT_RATELIMIT_BURST		10

/* Defer the "suppressed" report to ratelimit_state_exit(). */
#define RATELIMIT_MSG_ON_RELEASE	(1U << 0)

struct ratelimit_state {
	unsigned char lock;	/* trylock flag, taken with __atomic_test_and_set */
	int interval;		/* jiffies; 0 disables the limit */
	int burst;		/* calls allowed per interval; 0 refuses all */
	int printed;		/* calls passed in this interval */
	int missed;		/* calls refused since the last report */
	unsigned int flags;	/* RATELIMIT_* */
	unsigned long begin;	/* jiffies at the start of the interval; 0: unset */
};

/* Positional, so it is also valid C++; @name is unused (no lock to name). */
#define RATELIMIT_STATE_INIT_FLAGS(name, interval_init, burst_init, flags_init) \
	{ 0, (interval_init), (burst_init), 0, 0, (flags_init), 0 }

#define RATELIMIT_STATE_INIT(name, interval_init, burst_init)		\
	RATELIMIT_STATE_INIT_FLAGS(name, interval_init, burst_init, 0)

#define RATELIMIT_STATE_INIT_DISABLED					\
	RATELIMIT_STATE_INIT(ratelimit_state, 0, DEFAULT_RATELIMIT_BURST)

#define DEFINE_RATELIMIT_STATE(name, interval_init, burst_init)		\
	struct ratelimit_state name =					\
		RATELIMIT_STATE_INIT(name, interval_init, burst_init)

#ifdef __cplusplus
extern "C" {
#endif

int printk_deferred(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline unsigned long pks_ratelimit_jiffies(void)
{
#ifdef CLOCK_MONOTONIC
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return 0;
	return (unsigned long)((unsigned long long)ts.tv_sec * PKS_HZ +
			       (unsigned long long)ts.tv_nsec * PKS_HZ / 1000000000ULL);
#else
	return (unsigned long)time(NULL) * PKS_HZ;
#endif
}

#ifndef PKS_RATELIMIT_NOW
#define PKS_RATELIMIT_NOW()	pks_ratelimit_jiffies()
#endif

/*
 * Opens a new interval when the old one has passed; Return: the number of
 * calls to report as suppressed now (0 for none).
 */
static inline int pks_ratelimit_roll(struct ratelimit_state *rs, unsigned long now)
{
	int missed = 0;

	if (!rs->begin)
		rs->begin = now;
	/* time_after(now, begin + interval), wrap-safe */
	if ((long)(rs->begin + (unsigned long)rs->interval - now) < 0) {
		if (!(rs->flags & RATELIMIT_MSG_ON_RELEASE)) {
			missed = rs->missed;
			rs->missed = 0;
		}
		rs->begin = now;
		rs->printed = 0;
	}
	return missed;
}

/* Return: 1 if the caller may go ahead, 0 if it is suppressed. */
static inline int ___ratelimit(struct ratelimit_state *rs, const char *func)
{
	int interval = __atomic_load_n(&rs->interval, __ATOMIC_RELAXED);
	int missed, ret;

	if (!interval)
		return 1;
	if (__atomic_test_and_set(&rs->lock, __ATOMIC_ACQUIRE))
		return 0;
	missed = pks_ratelimit_roll(rs, PKS_RATELIMIT_NOW());
	if (rs->burst && rs->burst > rs->printed) {
		rs->printed++;
		ret = 1;
	} else {
		rs->missed++;
		ret = 0;
	}
	__atomic_clear(&rs->lock, __ATOMIC_RELEASE);
	/* Reported outside the lock; it still comes before the caller's line. */
	if (missed)
		printk_deferred(KERN_WARNING "%s: %d callbacks suppressed\n",
				func, missed);
	return ret;
}

#define __ratelimit(state) ___ratelimit(state, __func__)

#ifdef __cplusplus
}
#endif

#endif /* _LINUX_RATELIMIT_TYPES_H */
