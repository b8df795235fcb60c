// SPDX-License-Identifier: MIT
/*
 * mem-bench THREADS: what printk costs in memory. THREADS threads are
 * started and parked; then each prints its first line (three fragments)
 * while they all stay alive, and the growth of the process's mapped and
 * resident memory, divided by THREADS, is what one thread's printk state
 * costs (the shim maps its buffers per thread on first use). Then every
 * thread prints 100 more lines and the peak RSS of the whole process is
 * read. Prints "threads=... mapped=... rss=... hwm_kib=...", bytes per thread.
 */
#include "bench.h"

#include <fcntl.h>
#include <linux/printk.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MORE	100

static pthread_barrier_t step;

/* Return: the "NAME:  N kB" field of /proc/self/status in kB, or -1. */
static long status_kib(const char *name)
{
	char buf[4096], *p;
	size_t len = strlen(name);
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, name, len) && p[len] == ':')
			return strtol(p + len + 1, NULL, 10);
	return -1;
}

static void line(long t, long i)
{
	printk(KERN_INFO "mem t%ld l%ld:", t, i);
	printk(KERN_CONT " value=%ld", i * 7);
	printk(KERN_CONT " end\n");
}

static void *work(void *p)
{
	long t = (long)p;

	pthread_barrier_wait(&step);	/* all threads exist */
	pthread_barrier_wait(&step);	/* the "before" figures are taken */
	line(t, 0);
	pthread_barrier_wait(&step);	/* every thread has its buffers */
	pthread_barrier_wait(&step);	/* the "after" figures are taken */
	for (long i = 1; i <= MORE; i++)
		line(t, i);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = bench_arg(argc > 1 ? argv[1] : NULL, 64), size0, rss0, size1, rss1;
	pthread_t id[256];

	n = n > 256 ? 256 : n;
	pthread_barrier_init(&step, NULL, (unsigned int)n + 1);
	for (long i = 0; i < n; i++)
		pthread_create(&id[i], NULL, work, (void *)i);
	pthread_barrier_wait(&step);
	size0 = status_kib("VmSize");
	rss0 = status_kib("VmRSS");
	pthread_barrier_wait(&step);
	pthread_barrier_wait(&step);
	size1 = status_kib("VmSize");
	rss1 = status_kib("VmRSS");
	pthread_barrier_wait(&step);
	for (long i = 0; i < n; i++)
		pthread_join(id[i], NULL);
	printf("threads=%ld mapped=%ld rss=%ld hwm_kib=%ld\n", n, (size1 - size0) * 1024 / n,
	       (rss1 - rss0) * 1024 / n, status_kib("VmHWM"));
	return 0;
}
