/* SPDX-License-Identifier: MIT */
/*
 * The monotonic clock in nanoseconds: line start times and retry deadlines.
 */
#ifndef PKS_BASE_CLOCK_H
#define PKS_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t pks_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
