/* SPDX-License-Identifier: MIT */
/*
 * Run-time set-up of a struct ratelimit_state (the kernel's
 * <linux/ratelimit.h>); the state and __ratelimit() are in
 * <linux/ratelimit_types.h>. ratelimit_state_exit() names the program
 * (glibc's program_invocation_short_name with _GNU_SOURCE, else
 * "ratelimit") where the kernel names the current task.
 * Thread-safety: initialise a state before sharing it.
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
	rs->flags = (unsigned int)flags;
}

#ifdef __USE_GNU
#define PKS_RATELIMIT_COMM	program_invocation_short_name
#else
#define PKS_RATELIMIT_COMM	"ratelimit"
#endif

/* With RATELIMIT_MSG_ON_RELEASE: report what was suppressed, once. */
static inline void ratelimit_state_exit(struct ratelimit_state *rs)
{
	if (!(rs->flags & RATELIMIT_MSG_ON_RELEASE) || !rs->missed)
		return;
	/* pr_warn() spelled out: its comma elision is not ISO C. */
	printk(KERN_WARNING pr_fmt("%s: %d output lines suppressed due to ratelimiting\n"),
	       PKS_RATELIMIT_COMM, rs->missed);
	rs->missed = 0;
}

#ifdef __cplusplus
}
#endif

#endif /* _LINUX_RATELIMIT_H */
