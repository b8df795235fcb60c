/* SPDX-License-Identifier: MIT */
/*
 * What the benchmark programs share: the clocks they time with (wall and
 * the thread's CPU time), a median, and the line the throughput workloads print. The programs print
 * their figures as "key=value" words on stdout for bench/run.sh; what they
 * log goes to stderr, which the runner points at /dev/null or a file.
 * Thread-safety: pure.
 */
#ifndef PKS_BENCH_H
#define PKS_BENCH_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* The text of one line, for the one-fragment form and for the ideal. */
#define BENCH_LINE	"bench t%d l%ld: value=%d end\n"

static inline uint64_t bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Return: CPU time (user and system) of the calling thread, in ns. */
static inline uint64_t bench_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int bench_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Return: the median of @n samples (sorts @v). */
static inline uint64_t bench_median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Return: a positive count from @s, or @dflt when @s is missing or bad. */
static inline long bench_arg(const char *s, long dflt)
{
	char *end;
	long v;

	if (!s)
		return dflt;
	v = strtol(s, &end, 10);
	return *end || v <= 0 ? dflt : v;
}

#endif
