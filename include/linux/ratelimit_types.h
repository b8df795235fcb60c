/* SPDX-License-Identifier: MIT */
/*
 * Rate limiting for ported kernel code: struct ratelimit_state,
 * DEFINE_RATELIMIT_STATE and __ratelimit(), with the rules of current
 * kernels (lib/ratelimit.c as reworked in 2025): up to @burst calls pass per
 * @interval; every refused call is counted, and the first call of a new
 * interval logs "<func>: N callbacks suppressed" at KERN_WARNING through
 * printk_deferred(), or printk() where nothing defines it.
 * Interval 0 never limits; otherwise a burst of 0 or less refuses all.
 * Switching a state off that way and on again starts it afresh.
 *
 * Time is counted in "jiffies" of HZ per second: the port's, if it defined
 * HZ before this header, else 1000, which this header defines, as the
 * kernel's does. The clock is CLOCK_MONOTONIC (time() in a
 * strict ISO C build that hides clock_gettime); a test may define
 * PKS_RATELIMIT_NOW() before including this header to supply its own.
 * Thread-safety: a state may be shared by threads. A call that finds the
 * state busy never waits: it takes what is left of the burst, or is refused
 * and counted.
 */
#ifndef _LINUX_RATELIMIT_TYPES_H
#define _LINUX_RATELIMIT_TYPES_H

#include <time.h>
#include <linux/kern_levels.h>
#include <linux/pks_byteorder.h>

/* as the kernel's, through its <linux/param.h>: a port's own HZ comes first */
#ifndef HZ
#define HZ	1000
#endif
#define PKS_HZ	HZ

#define DEFAULT_RATELIMIT_INTERVAL	(5 * PKS_HZ)
#define DEFAULT_RATELIMIT_BURST		10

/* Defer the "suppressed" report to ratelimit_state_exit(). */
#define RATELIMIT_MSG_ON_RELEASE	(1U << 0)
/* Set by the first call; cleared to make the next call start afresh. */
#define RATELIMIT_INITIALIZED		(1U << 1)

struct ratelimit_state {
	unsigned char lock;	/* trylock flag, taken with __atomic_test_and_set */
	int interval;		/* jiffies; 0 disables the limit */
	int burst;		/* calls allowed per interval; <= 0 refuses all */
	int rs_n_left;		/* calls left in this interval; atomic */
	int missed;		/* calls refused since the last report; atomic */
	unsigned int flags;	/* RATELIMIT_*; atomic */
	unsigned long begin;	/* jiffies at the start of the interval */
};

/* Positional, so it is also valid C++; @name is unused (no lock to name). */
#define RATELIMIT_STATE_INIT_FLAGS(name, interval_init, burst_init, flags_init) \
	{ 0, (interval_init), (burst_init), (burst_init), 0, (flags_init), 0 }

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

int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Weak, so that a port whose library defines printk alone still links;
 * pks_printk_deferred() then calls printk. The module and
 * libprintk-port define it.
 */
int printk_deferred(const char *fmt, ...) __attribute__((weak, format(printf, 1, 2)));

/* Tested in a function: a file that defines @fn would get -Waddress. */
static inline int pks_printk_defined(int (*fn)(const char *fmt, ...))
{
	return fn != 0;
}

#define pks_printk_deferred(...)					\
	(pks_printk_defined(printk_deferred) ?				\
	 (printk_deferred)(__VA_ARGS__) : (printk)(__VA_ARGS__))

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

static inline unsigned int pks_ratelimit_flags(struct ratelimit_state *rs)
{
	return __atomic_load_n(&rs->flags, __ATOMIC_RELAXED);
}

static inline void pks_ratelimit_set_flags(struct ratelimit_state *rs,
					   unsigned int flags)
{
	__atomic_store_n(&rs->flags, flags, __ATOMIC_RELAXED);
}

/* One call's share of the burst; parallel callers may take it first. */
static inline int pks_ratelimit_take(struct ratelimit_state *rs)
{
	return __atomic_load_n(&rs->rs_n_left, __ATOMIC_RELAXED) > 0 &&
	       __atomic_sub_fetch(&rs->rs_n_left, 1, __ATOMIC_RELAXED) >= 0;
}

/*
 * With the lock held: starts the state on its first call and opens a new
 * interval once the old one has passed. Return: the misses to report now.
 */
static inline int pks_ratelimit_roll(struct ratelimit_state *rs, int interval,
				     unsigned long now)
{
	unsigned int flags = pks_ratelimit_flags(rs);

	if (!(flags & RATELIMIT_INITIALIZED)) {
		rs->begin = now;
		pks_ratelimit_set_flags(rs, flags | RATELIMIT_INITIALIZED);
		__atomic_store_n(&rs->rs_n_left, rs->burst, __ATOMIC_RELAXED);
	}
	/* time_after(now, begin + interval), wrap-safe */
	if ((long)(rs->begin + (unsigned long)interval - now) >= 0)
		return 0;
	__atomic_store_n(&rs->rs_n_left, rs->burst, __ATOMIC_RELAXED);
	rs->begin = now;
	if (flags & RATELIMIT_MSG_ON_RELEASE)
		return 0;
	return __atomic_exchange_n(&rs->missed, 0, __ATOMIC_RELAXED);
}

/*
 * Interval 0 or burst <= 0. A started state that is switched off forgets
 * its interval, so switching it on again starts afresh (the kernel's
 * "re-enabling"). Return: whether the call passes.
 */
static inline int pks_ratelimit_off(struct ratelimit_state *rs, int interval,
				    int burst)
{
	int ret = interval == 0 || burst > 0;

	if (!(pks_ratelimit_flags(rs) & RATELIMIT_INITIALIZED) ||
	    (!interval && !burst) ||
	    __atomic_test_and_set(&rs->lock, __ATOMIC_ACQUIRE))
		return ret;
	pks_ratelimit_set_flags(rs, pks_ratelimit_flags(rs) & ~RATELIMIT_INITIALIZED);
	__atomic_clear(&rs->lock, __ATOMIC_RELEASE);
	return ret;
}

/* Return: 1 if the caller may go ahead, 0 if it is suppressed. */
static inline int ___ratelimit(struct ratelimit_state *rs, const char *func)
{
	int interval = __atomic_load_n(&rs->interval, __ATOMIC_RELAXED);
	int burst = __atomic_load_n(&rs->burst, __ATOMIC_RELAXED);
	int missed = 0, ret;

	if (interval <= 0 || burst <= 0) {
		ret = pks_ratelimit_off(rs, interval, burst);
	} else if (__atomic_test_and_set(&rs->lock, __ATOMIC_ACQUIRE)) {
		ret = (pks_ratelimit_flags(rs) & RATELIMIT_INITIALIZED) &&
		      pks_ratelimit_take(rs);
	} else {
		missed = pks_ratelimit_roll(rs, interval, PKS_RATELIMIT_NOW());
		ret = pks_ratelimit_take(rs);
		__atomic_clear(&rs->lock, __ATOMIC_RELEASE);
	}
	if (!ret)
		__atomic_add_fetch(&rs->missed, 1, __ATOMIC_RELAXED);
	/* Reported outside the lock; it still comes before the caller's line. */
	if (missed)
		pks_printk_deferred(KERN_WARNING "%s: %d callbacks suppressed\n",
				    func, missed);
	return ret;
}

#define __ratelimit(state) ___ratelimit(state, __func__)

#ifdef __cplusplus
}
#endif

#endif /* _LINUX_RATELIMIT_TYPES_H */
