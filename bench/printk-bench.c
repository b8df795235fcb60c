// SPDX-License-Identifier: MIT
/*
 * printk-bench MODE SHAPE THREADS LINES: THREADS threads print LINES lines
 * in all (LINES / THREADS each) to stderr; the time from a common start to
 * the last line, and the CPU time the threads spent (which load from other
 * processes hardly changes), are printed as "ns=... cpu=... lines=... allocs=...".
 *
 * MODE printk calls the printk of libkcompat.so, which is the naive
 * vfprintf(stderr) or, under LD_PRELOAD, printk-shim; MODE ideal is the
 * floor for the same job: one snprintf and one write(2) per complete line.
 * SHAPE 1 is a line in one call, 3 a level and two KERN_CONT fragments,
 * mix one KERN_ERR line in ten and nine KERN_DEBUG ones, off only KERN_DEBUG
 * lines (the last two for PRINTK_SHIM_LEVEL=info; the ideal filters by hand).
 *
 * Each thread prints a few lines before the common start, so the shim's
 * lazily mapped buffers are in place and only the steady state is timed;
 * each thread reads the clock itself, as a busy machine may not run the
 * main thread in time.
 * When bench/libmalloc-count.so is preloaded too, allocs= counts the heap
 * allocations made while timing; otherwise it is -1.
 * After the timed lines, CHECKED more lines check what printk returned:
 * ret=ok when each call returned the length of its text without markers
 * and final newline, as the kernel's printk (the naive printk does not),
 * ret=bad otherwise, ret=- for the ideal.
 */
#include "bench.h"

#include <dlfcn.h>
#include <linux/printk.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WARMUP	64
#define CHECKED	1000
#define SHOWN	6	/* the ideal's PRINTK_SHIM_LEVEL=info */

enum shape { ONE, THREE, MIX, OFF };

struct worker {
	pthread_t id;
	int t;
	long lines;
	uint64_t t0, t1;	/* its own start and end: the main thread may not run */
	uint64_t cpu;		/* CPU time it spent (user and system) on its lines */
};

static bool ideal;
static enum shape shape;
static pthread_barrier_t start;
static volatile int shown = SHOWN;	/* not folded: the ideal really compares */

static void put(int t, long i, int v)
{
	char buf[128];
	int n = snprintf(buf, sizeof(buf), BENCH_LINE, t, i, v);

	if (write(2, buf, (size_t)n) < 0)
		_exit(1);
}

/* Return: what the printk calls returned, summed. */
static int one_line(int t, long i)
{
	int v = (int)(i * 7 % 1000);
	int level = shape == MIX && i % 10 == 0 ? LOGLEVEL_ERR : LOGLEVEL_DEBUG;

	if (ideal) {
		if (shape == ONE || shape == THREE || level <= shown)
			put(t, i, v);
		return 0;
	}
	switch (shape) {
	case ONE:
		return printk(KERN_INFO BENCH_LINE, t, i, v);
	case THREE:
		return printk(KERN_INFO "bench t%d l%ld:", t, i) + printk(KERN_CONT " value=%d", v) +
		       printk(KERN_CONT " end\n");
	default:
		if (level == LOGLEVEL_ERR)
			return printk(KERN_ERR BENCH_LINE, t, i, v);
		return printk(KERN_DEBUG BENCH_LINE, t, i, v);
	}
}

/* Return: whether printk returned the kernel's values for CHECKED more lines. */
static bool returns_ok(void)
{
	for (long i = 0; i < CHECKED; i++) {
		int v = (int)(i * 7 % 1000);

		if (one_line(0, i) != snprintf(NULL, 0, BENCH_LINE, 0, i, v) - 1)
			return false;
	}
	return true;
}

static void *work(void *p)
{
	struct worker *w = p;

	for (long i = 0; i < WARMUP; i++)
		one_line(w->t, -1 - i);
	pthread_barrier_wait(&start);	/* all warmed up */
	pthread_barrier_wait(&start);	/* the allocation count is read */
	w->t0 = bench_now();
	w->cpu = bench_cpu();
	for (long i = 0; i < w->lines; i++)
		one_line(w->t, i);
	w->cpu = bench_cpu() - w->cpu;
	w->t1 = bench_now();
	return NULL;
}

static int parse_shape(const char *s)
{
	static const char *const names[] = { [ONE] = "1", [THREE] = "3", [MIX] = "mix", [OFF] = "off" };

	for (int i = 0; i <= OFF; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	long (*allocs)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "bench_malloc_calls");
	struct worker w[64];
	long threads, lines, a0 = 0;
	uint64_t t0 = UINT64_MAX, t1 = 0, cpu = 0;
	int s;

	if (argc != 5 || (strcmp(argv[1], "printk") && strcmp(argv[1], "ideal")) ||
	    (s = parse_shape(argv[2])) < 0) {
		fprintf(stdout, "usage: printk-bench printk|ideal 1|3|mix|off THREADS LINES\n");
		return 2;
	}
	ideal = !strcmp(argv[1], "ideal");
	shape = (enum shape)s;
	threads = bench_arg(argv[3], 1);
	threads = threads > 64 ? 64 : threads;
	lines = bench_arg(argv[4], 100000) / threads;
	pthread_barrier_init(&start, NULL, (unsigned int)threads + 1);
	for (int i = 0; i < threads; i++) {
		w[i] = (struct worker){ .t = i, .lines = lines };
		pthread_create(&w[i].id, NULL, work, &w[i]);
	}
	pthread_barrier_wait(&start);
	if (allocs)
		a0 = allocs();
	pthread_barrier_wait(&start);
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].id, NULL);
		t0 = w[i].t0 < t0 ? w[i].t0 : t0;
		t1 = w[i].t1 > t1 ? w[i].t1 : t1;
		cpu += w[i].cpu;
	}
	printf("ns=%llu cpu=%llu lines=%ld allocs=%ld ret=%s\n", (unsigned long long)(t1 - t0),
	       (unsigned long long)cpu, lines * threads, allocs ? allocs() - a0 : -1L,
	       ideal ? "-" : returns_ok() ? "ok" : "bad");
	return 0;
}
