// SPDX-License-Identifier: MIT
/*
 * defer-bench: deferred printing (PRINTK_SHIM_DEFER=1) beside the ideal
 * (one snprintf and one write per line) and beside the shim's synchronous
 * path, in one run, rounds interleaved; prints its section of make bench.
 *
 *   defer-bench all MODULE ROUNDS LINES FILE
 *   defer-bench run ideal|printk THREADS LINES      (what "all" runs)
 *   defer-bench lat LINES                           (likewise)
 *
 * "all" runs each variant as a child process with the module preloaded
 * where it belongs, its stderr /dev/null or FILE, and times it from its
 * first line to its exit, so a deferred run includes the printer's last
 * batch at exit, and neither includes exec and start-up. The
 * child reports CPU times on descriptor 3: the printing threads' own, and
 * the printer thread's, read with its thread CPU clock once the printer
 * has gone idle. "lat" times each printk of a run in drop mode with stderr
 * a pipe that nobody reads until the run is over.
 */
#include "bench.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kern_levels.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define MAX_THREADS	8
#define MAX_ROUNDS	64

static long lines;
static int ideal;
static _Atomic uint64_t cpu_sum;

static void *work(void *arg)
{
	int t = (int)(long)arg;
	char buf[128];

	for (long i = 0; i < lines; i++) {
		if (ideal) {
			int n = snprintf(buf, sizeof(buf), BENCH_LINE, t, i, (int)(i * 7));

			if (write(2, buf, (size_t)n) < 0)
				break;
		} else {
			printk(KERN_INFO BENCH_LINE, t, i, (int)(i * 7));
		}
	}
	atomic_fetch_add(&cpu_sum, bench_cpu());
	return NULL;
}

/* The CPU time of thread @tid of this process, in ns (its thread CPU clock). */
static uint64_t cpu_of(pid_t tid)
{
	struct timespec ts;
	clockid_t id = (clockid_t)((~(unsigned)tid << 3) | 6);	/* CPUCLOCK_SCHED, per thread */

	if (clock_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The module's printer: the one thread of this process besides the caller. */
static pid_t printer(void)
{
	pid_t self = (pid_t)syscall(SYS_gettid), found = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != self)
			found = atoi(e->d_name);
	if (d)
		closedir(d);
	return found;
}

/* The printer's CPU time once it stops growing (its last batch is written). */
static uint64_t printer_cpu(void)
{
	pid_t tid = printer();
	uint64_t last = 0, now;
	struct timespec ts = { 0, 50000000 };

	if (!tid)
		return 0;
	while ((now = cpu_of(tid)) != last) {
		last = now;
		nanosleep(&ts, NULL);
	}
	return now;
}

static int run(const char *mode, long threads, long n)
{
	uint64_t t0 = bench_now();
	pthread_t t[MAX_THREADS];
	char out[128];
	int len;

	ideal = !strcmp(mode, "ideal");
	lines = n;
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, work, (void *)(i + 1));
	for (long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	len = snprintf(out, sizeof(out), "%llu %llu %llu\n", (unsigned long long)t0,
		       (unsigned long long)atomic_load(&cpu_sum),
		       (unsigned long long)(ideal || !getenv("BENCH_PRINTER") ? 0 : printer_cpu()));
	return write(3, out, (size_t)len) == len ? 0 : 1;
}

/* Each printk's time in drop mode, stderr a pipe nobody reads yet: p50 p99 max. */
static int lat(long n)
{
	uint64_t *v = calloc((size_t)n, sizeof(*v)), p50, p99, max = 0;
	char out[128];
	int len;

	if (!v)
		return 1;
	for (long i = 0; i < n; i++) {
		uint64_t t0 = bench_now();

		printk(KERN_INFO BENCH_LINE, 1, i, (int)i);
		v[i] = bench_now() - t0;
		max = v[i] > max ? v[i] : max;
	}
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_u64);
	p50 = v[n / 2];
	p99 = v[n * 99 / 100];
	len = snprintf(out, sizeof(out), "%llu %llu %llu\n", (unsigned long long)p50,
		       (unsigned long long)p99, (unsigned long long)max);
	return write(3, out, (size_t)len) == len ? 0 : 1;
}

/* --- the orchestra ----------------------------------------------------------- */

struct fig { uint64_t wall, cpu, printer; };

static const char *self_path, *module, *file;

/*
 * One child: @argv under @env (NULL-terminated words VAR=VALUE), stderr to
 * @err. Return: its figures, wall from fork to exit.
 */
static struct fig child(char *const argv[], char *const env[], const char *err)
{
	struct fig f = { 0, 0, 0 };
	int p[2], fd;
	uint64_t t0;
	pid_t pid;
	char buf[128] = "";
	unsigned long long t = 0, a = 0, b = 0;

	if (pipe(p))
		return f;
	t0 = bench_now();
	pid = fork();
	if (pid == 0) {
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		dup2(p[1], 3);
		execve(self_path, argv, env);
		_exit(127);
	}
	close(p[1]);
	waitpid(pid, NULL, 0);
	f.wall = bench_now() - t0;
	if (read(p[0], buf, sizeof(buf) - 1) > 0 && sscanf(buf, "%llu %llu %llu", &t, &a, &b) == 3) {
		f.wall -= t > t0 ? t - t0 : 0;	/* exec and start-up are not the lines' */
		f.cpu = a;
		f.printer = b;
	}
	close(p[0]);
	return f;
}

enum { IDEAL, DEFER, SYNC, NVARIANT };

static struct fig one(int variant, long threads, const char *err, long n, int printer)
{
	char th[16], ln[16], pre[4200];
	char *argv[] = { (char *)self_path, "run", variant == IDEAL ? "ideal" : "printk", th, ln, NULL };
	char *env[] = { pre, "PRINTK_SHIM_FORMAT=plain", "PRINTK_SHIM_DEFER=1",
			printer ? "BENCH_PRINTER=1" : NULL, NULL };

	snprintf(th, sizeof(th), "%ld", threads);
	snprintf(ln, sizeof(ln), "%ld", n);
	snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", variant == IDEAL ? "" : module);
	if (variant != DEFER)
		env[2] = printer ? "BENCH_PRINTER=1" : NULL;
	return child(argv, env, err);
}

static uint64_t median_of(struct fig *f, int rounds, int which)
{
	uint64_t v[MAX_ROUNDS];

	for (int r = 0; r < rounds; r++)
		v[r] = which == 0 ? f[r].wall : which == 1 ? f[r].cpu : f[r].printer;
	return bench_median(v, (size_t)rounds);
}

/* The p50, p99 and max of one drop-mode run, and how many lines it dropped. */
static void drop_latency(long n)
{
	char ln[16], pre[4200], buf[65536];
	char *argv[] = { (char *)self_path, "lat", ln, NULL };
	char *env[] = { pre, "PRINTK_SHIM_FORMAT=plain", "PRINTK_SHIM_DEFER=1",
			"PRINTK_SHIM_DEFER_FULL=drop", NULL };
	int res[2], err[2];
	unsigned long long p50 = 0, p99 = 0, max = 0, dropped = 0, seen = 0;
	char rbuf[128] = "";
	pid_t pid;
	FILE *in;

	snprintf(ln, sizeof(ln), "%ld", n);
	snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", module);
	if (pipe(res) || pipe(err))
		return;
	pid = fork();
	if (pid == 0) {
		dup2(err[1], 2);
		dup2(res[1], 3);
		execve(self_path, argv, env);
		_exit(127);
	}
	close(res[1]);
	close(err[1]);
	/* The figures come before the child's exit, which waits for the reader. */
	if (read(res[0], rbuf, sizeof(rbuf) - 1) > 0)
		sscanf(rbuf, "%llu %llu %llu", &p50, &p99, &max);
	in = fdopen(err[0], "r");
	while (in && fgets(buf, sizeof(buf), in)) {
		unsigned long long k;

		if (sscanf(buf, "** %llu printk messages dropped **", &k) == 1)
			dropped += k;
		else
			seen++;
	}
	if (in)
		fclose(in);
	waitpid(pid, NULL, 0);
	printf("drop mode, stderr a pipe nobody reads during the run, %ld lines: printk call p50 %llu ns, p99 %llu ns, max %llu ns; %llu lines written, %llu reported dropped\n",
	       n, p50, p99, max, seen, dropped);
}

static int all(int rounds, long n)
{
	static const struct { long threads; int to_file; } rows[] = {
		{ 1, 0 }, { 1, 1 }, { 2, 0 }, { 4, 0 }, { 8, 0 },
	};
	enum { NROWS = sizeof(rows) / sizeof(rows[0]) };
	static struct fig f[NROWS][NVARIANT][MAX_ROUNDS];
	static struct fig cpu[NVARIANT][MAX_ROUNDS];
	uint64_t w[NROWS][NVARIANT];

	if (rounds > MAX_ROUNDS)
		rounds = MAX_ROUNDS;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < NROWS; i++)
			for (int k = 0; k < 2; k++) {
				int v = (k + r) % 2 ? DEFER : IDEAL;

				f[i][v][r] = one(v, rows[i].threads, rows[i].to_file ? file : "/dev/null",
						 n, 0);
			}
		for (int v = 0; v < NVARIANT; v++)
			cpu[v][r] = one(v, 1, "/dev/null", n, v == DEFER);
	}
	printf("\n**Deferred printing** (PRINTK_SHIM_DEFER=1), %d rounds of %ld lines a thread, medians\n\n",
	       rounds, n);
	printf("| workload | ideal lines/s | deferred lines/s | deferred / ideal |\n|---|---|---|---|\n");
	for (int i = 0; i < NROWS; i++) {
		double total = (double)n * (double)rows[i].threads;

		for (int v = IDEAL; v <= DEFER; v++)
			w[i][v] = median_of(f[i][v], rounds, 0);
		printf("| %ld thread%s, %s | %.0f | %.0f | %.2fx |\n", rows[i].threads,
		       rows[i].threads > 1 ? "s" : "", rows[i].to_file ? "file" : "/dev/null",
		       total * 1e9 / (double)w[i][IDEAL], total * 1e9 / (double)w[i][DEFER],
		       (double)w[i][IDEAL] / (double)w[i][DEFER]);
	}
	printf("\nscaling, deferred lines/s over 1 thread's (/dev/null): 2 threads %.2fx, 4 threads %.2fx, 8 threads %.2fx\n",
	       2.0 * (double)w[0][DEFER] / (double)w[2][DEFER],
	       4.0 * (double)w[0][DEFER] / (double)w[3][DEFER],
	       8.0 * (double)w[0][DEFER] / (double)w[4][DEFER]);
	{
		double ic = (double)median_of(cpu[IDEAL], rounds, 1) / (double)n;
		double sc = (double)median_of(cpu[SYNC], rounds, 1) / (double)n;
		double pc = (double)median_of(cpu[DEFER], rounds, 2) / (double)n;
		double cc = (double)median_of(cpu[DEFER], rounds, 1) / (double)n;

		printf("CPU ns a line, 1 thread, /dev/null: ideal %.0f, shim synchronous %.0f; deferred: caller %.0f, printer thread %.0f (%.2fx the synchronous path's)\n",
		       ic, sc, cc, pc, pc / sc);
		printf("targets: /dev/null >= 3x the ideal %s, file >= 4x %s, printer CPU <= 1/3 of the synchronous path's %s, more lines/s with 2 and 4 threads than with 1 %s\n",
		       w[0][IDEAL] >= 3 * w[0][DEFER] ? "met" : "MISSED",
		       w[1][IDEAL] >= 4 * w[1][DEFER] ? "met" : "MISSED",
		       pc * 3 <= sc ? "met" : "MISSED",
		       2 * w[0][DEFER] > w[2][DEFER] && 4 * w[0][DEFER] > w[3][DEFER] ? "met" : "MISSED");
	}
	drop_latency(n);
	return 0;
}

int main(int argc, char **argv)
{
	self_path = "/proc/self/exe";
	if (argc == 5 && !strcmp(argv[1], "run"))
		return run(argv[2], bench_arg(argv[3], 1) > MAX_THREADS ? MAX_THREADS :
			   bench_arg(argv[3], 1), bench_arg(argv[4], 100000));
	if (argc == 3 && !strcmp(argv[1], "lat"))
		return lat(bench_arg(argv[2], 100000));
	if (argc == 6 && !strcmp(argv[1], "all")) {
		static char exe[4096];
		ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (k <= 0)
			return 1;
		self_path = exe;
		module = argv[2];
		file = argv[5];
		return all((int)bench_arg(argv[3], 7), bench_arg(argv[4], 100000));
	}
	fprintf(stderr, "usage: defer-bench all MODULE ROUNDS LINES FILE\n");
	return 2;
}
