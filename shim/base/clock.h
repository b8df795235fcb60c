/* SPDX-License-Identifier: MIT */
/*
 * The monotonic clock in nanoseconds: line start times and retry deadlines;
 * in coarse seconds for the deadlines of seconds.
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

/* The monotonic clock in whole seconds, as cheap as it comes: deadlines of seconds. */
static inline long pks_coarse_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec;
}

#endif
