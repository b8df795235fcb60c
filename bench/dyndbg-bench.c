// SPDX-License-Identifier: MIT
/*
 * dyndbg-bench ROUNDS CALLS: what a dynamic debug call site built with our
 * headers costs (printk-shim(7) DYNAMIC DEBUG). bench/run.sh runs it with
 * the module preloaded, PRINTK_SHIM_DYNDBG="func bench_on +p" and stderr on
 * /dev/null: a disabled pr_debug (ns per call; 100 x CALLS calls), an
 * enabled one and a pr_info of the same format (ns per line), each the
 * median of ROUNDS runs, printed as one line of the report.
 */
#include <linux/printk.h>

#include <stdio.h>

#include "bench.h"

/* Each a loop around one call site, so the site is all that differs. */
__attribute__((noinline)) static void bench_off(long n)
{
	for (long i = 0; i < n; i++)
		pr_debug("bench l%ld: value=%d end\n", i, 7);
}

__attribute__((noinline)) static void bench_on(long n)
{
	for (long i = 0; i < n; i++)
		pr_debug("bench l%ld: value=%d end\n", i, 7);
}

__attribute__((noinline)) static void bench_info(long n)
{
	for (long i = 0; i < n; i++)
		pr_info("bench l%ld: value=%d end\n", i, 7);
}

/* The ns per call of @f(@n), in tenths. */
static uint64_t once(void (*f)(long), long n)
{
	uint64_t t = bench_now();

	f(n);
	return (bench_now() - t) * 10 / (uint64_t)n;
}

#define ROUNDS_MAX	64

int main(int argc, char **argv)
{
	long rounds = bench_arg(argc > 1 ? argv[1] : NULL, 7);
	long calls = bench_arg(argc > 2 ? argv[2] : NULL, 100000);
	uint64_t off[ROUNDS_MAX], on[ROUNDS_MAX], info[ROUNDS_MAX];
	size_t r, n = (size_t)(rounds < ROUNDS_MAX ? rounds : ROUNDS_MAX);

	/* Interleaved, in turns, so that load from elsewhere falls on each alike. */
	for (r = 0; r < n; r++) {
		off[r] = once(bench_off, calls * 100);
		if (r % 2) {
			on[r] = once(bench_on, calls);
			info[r] = once(bench_info, calls);
		} else {
			info[r] = once(bench_info, calls);
			on[r] = once(bench_on, calls);
		}
	}
	off[0] = bench_median(off, n);
	on[0] = bench_median(on, n);
	info[0] = bench_median(info, n);
	printf("dynamic debug: a disabled pr_debug %llu.%llu ns a call; an enabled one "
	       "%llu.%llu ns a line, %llu.%llu ns for pr_info: %.2f x\n",
	       (unsigned long long)(off[0] / 10), (unsigned long long)(off[0] % 10),
	       (unsigned long long)(on[0] / 10), (unsigned long long)(on[0] % 10),
	       (unsigned long long)(info[0] / 10), (unsigned long long)(info[0] % 10),
	       info[0] ? (double)on[0] / (double)info[0] : 0.0);
	return 0;
}
