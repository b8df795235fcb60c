/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/ktime.h>: CLOCK_MONOTONIC in nanoseconds. */
#ifndef _LINUX_KTIME_H
#define _LINUX_KTIME_H

#include <time.h>

typedef long long ktime_t;

static inline ktime_t ktime_get(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ktime_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
