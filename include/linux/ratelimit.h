/* SPDX-License-Identifier: MIT */
/*
 * Run-time set-up of a struct ratelimit_state (the kernel's
 * <linux/ratelimit.h>): init, flags, the miss counter, a new interval and
 * the report at exit; the state and __ratelimit() are in
 * <linux/ratelimit_types.h>. ratelimit_state_exit() names the program
 * (the C library's program_invocation_short_name, cut at 15 bytes as the
 * kernel's comm is) where the kernel names the current task.
 * Thread-safety: initialise a state before sharing it; the rest may run
 * beside __ratelimit() in other threads.
 */
#ifndef _LINUX_RATELIMIT_H
#define _LINUX_RATELIMIT_H

#include <errno.h>
#include <string.h>
#include <linux/pks_byteorder.h>
#include <linux/ratelimit_types.h>
#include <linux/printk.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline void ratelimit_state_init(struct ratelimit_state *rs,
					int interval, int burst)
{
	memset(rs, 0, sizeof(*rs));
	rs->interval = interval;
	rs->burst = burst;
}

static inline void ratelimit_default_init(struct ratelimit_state *rs)
{
	ratelimit_state_init(rs, DEFAULT_RATELIMIT_INTERVAL,
			     DEFAULT_RATELIMIT_BURST);
}

static inline void ratelimit_set_flags(struct ratelimit_state *rs,
				       unsigned long flags)
{
	__atomic_store_n(&rs->flags, (unsigned int)flags, __ATOMIC_RELAXED);
}

static inline void ratelimit_state_inc_miss(struct ratelimit_state *rs)
{
	__atomic_add_fetch(&rs->missed, 1, __ATOMIC_RELAXED);
}

static inline int ratelimit_state_get_miss(struct ratelimit_state *rs)
{
	return __atomic_load_n(&rs->missed, __ATOMIC_RELAXED);
}

/* Return: the misses counted so far, which are then forgotten. */
static inline int ratelimit_state_reset_miss(struct ratelimit_state *rs)
{
	return __atomic_exchange_n(&rs->missed, 0, __ATOMIC_RELAXED);
}

/* A new interval length; the next call starts afresh with a full burst. */
static inline void ratelimit_state_reset_interval(struct ratelimit_state *rs,
						  int interval_init)
{
	while (__atomic_test_and_set(&rs->lock, __ATOMIC_ACQUIRE))
		;
	__atomic_store_n(&rs->interval, interval_init, __ATOMIC_RELAXED);
	__atomic_store_n(&rs->flags, rs->flags & ~RATELIMIT_INITIALIZED,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&rs->rs_n_left, rs->burst, __ATOMIC_RELAXED);
	ratelimit_state_reset_miss(rs);
	__atomic_clear(&rs->lock, __ATOMIC_RELEASE);
}

/* glibc and musl define it; <errno.h> declares it only with _GNU_SOURCE. */
extern char *program_invocation_short_name;

/* With RATELIMIT_MSG_ON_RELEASE: report what was suppressed, once. */
static inline void ratelimit_state_exit(struct ratelimit_state *rs)
{
	int missed;

	if (!(__atomic_load_n(&rs->flags, __ATOMIC_RELAXED) & RATELIMIT_MSG_ON_RELEASE))
		return;
	missed = ratelimit_state_reset_miss(rs);
	/* pr_warn() spelled out: its comma elision is not ISO C. */
	if (missed)
		printk(KERN_WARNING pr_fmt("%.15s: %d output lines suppressed due to ratelimiting\n"),
		       program_invocation_short_name, missed);
}

#ifdef __cplusplus
}
#endif

#endif /* _LINUX_RATELIMIT_H */
