// SPDX-License-Identifier: MIT
/*
 * format-bench ROUNDS CALLS: the shim's format engine, pks_vsnprintf(), on
 * its fast path (formats without %p extensions) against glibc's vsnprintf()
 * on the same formats and arguments, in one process, the two alternating
 * round by round (many short rounds: the machine's speed drifts). Prints
 * "FORMAT_pks=NS FORMAT_libc=NS", the median CPU ns per call for each format.
 */
#include "bench.h"
#include "format/format.h"

#include <stdarg.h>
#include <stdio.h>

#define ROUNDS_MAX 256

typedef int fmt_fn(char *buf, size_t size, const char *fmt, va_list ap);

#define MIXED	"%s: dev %04x:%02x irq %u flags %#lx state %c %-8s|\n"

static const char *const formats[] = { "ints", "mixed" };	/* what run() formats */

static volatile char sink;

static __attribute__((format(printf, 3, 0))) int
libc_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	return vsnprintf(buf, size, fmt, ap);
}

static __attribute__((format(printf, 3, 4))) void call(fmt_fn *fn, char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fn(buf, 256, fmt, ap);
	va_end(ap);
	sink ^= buf[7];
}

/* Return: CPU ns (this thread's: load elsewhere hardly moves it) for @calls calls. */
static uint64_t run(fmt_fn *fn, int f, long calls)
{
	char buf[256];
	uint64_t t0 = bench_cpu();

	for (long i = 0; i < calls; i++) {
		if (f == 0)
			call(fn, buf, BENCH_LINE, 3, i, (int)(i % 1000));
		else
			call(fn, buf, MIXED, "e1000e", 0x10d3u, (unsigned int)(i & 0xff), 17u,
			     (unsigned long)i, 'R', "up");
	}
	return bench_cpu() - t0;
}

int main(int argc, char **argv)
{
	long rounds = bench_arg(argc > 1 ? argv[1] : NULL, 7);
	long calls = bench_arg(argc > 2 ? argv[2] : NULL, 200000);
	uint64_t pks[ROUNDS_MAX], libc[ROUNDS_MAX];

	rounds = rounds > ROUNDS_MAX ? ROUNDS_MAX : rounds;
	for (int f = 0; f < (int)(sizeof(formats) / sizeof(formats[0])); f++) {
		run(pks_vsnprintf, f, calls / 10 + 1);
		run(libc_vsnprintf, f, calls / 10 + 1);
		for (long r = 0; r < rounds; r++) {
			if (r % 2) {
				libc[r] = run(libc_vsnprintf, f, calls);
				pks[r] = run(pks_vsnprintf, f, calls);
			} else {
				pks[r] = run(pks_vsnprintf, f, calls);
				libc[r] = run(libc_vsnprintf, f, calls);
			}
		}
		printf("%s%s_pks=%.2f %s_libc=%.2f", f ? " " : "", formats[f],
		       (double)bench_median(pks, (size_t)rounds) / (double)calls, formats[f],
		       (double)bench_median(libc, (size_t)rounds) / (double)calls);
	}
	printf("\n");
	return 0;
}
