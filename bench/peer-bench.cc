// SPDX-License-Identifier: MIT
/*
 * peer-bench: the shim beside what a user would pick instead of it, in one
 * run: the ideal (snprintf + write), fully buffered stdio, and spdlog's
 * synchronous and asynchronous loggers, one line of a worker's report.
 *
 *   peer-bench all MODULE ROUNDS LINES FILE DATA   the table, and DATA for the plot
 *   peer-bench run VARIANT SHAPE THREADS LINES     one run, writing to stderr
 *
 * "all" runs each variant as a child process, its stderr /dev/null or FILE,
 * at 1, 2, 4 and 8 threads, rounds interleaved, and times it from its first
 * line to its exit, so that the last lines of a deferred or asynchronous
 * logger, written by its thread or at exit, are counted; the CPU time is
 * the whole child's (every thread), from wait4(2), less what it spent
 * before its first line. "run" is also what
 * bench/callgrind.sh counts instructions of, a thread at a time.
 */
#include "bench.h"

#include <fcntl.h>
#include <linux/kern_levels.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_SPDLOG
#include <spdlog/async.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>
#endif

extern "C" int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define LINE		"worker %d: processed %u items in %s\n"
#define MAX_THREADS	8
#define MAX_ROUNDS	64

/* What a user would write instead of printk, and printk itself (plain or deferred). */
enum variant { IDEAL, SHIM, DEFER, STDIO, SPD_SYNC, SPD_BLOCK, SPD_OVERRUN, NVARIANT };

static const char *const names[NVARIANT] = {
	"ideal", "shim", "shim-defer", "stdio", "spdlog", "spdlog-async-block",
	"spdlog-async-overrun",
};

/* The rows' labels, as the table and the plot show them. */
static const char *const labels[NVARIANT] = {
	"ideal (snprintf + write)", "shim", "shim PRINTK_SHIM_DEFER=1", "stdio _IOFBF",
	"spdlog sync", "spdlog async, block", "spdlog async, overrun",
};

/* Each 26 bytes: with them the line is 61 bytes, as a worker's report may be. */
static const char *const spans[] = {
	"12.5 ms (batch of 64 jobs)", "3.75 ms (batch of 16 jobs)",
	"0.92 ms (batch of 4 jobs) ", "41.0 ms (batch of 256 job)",
};

static enum variant variant;
static int fragments;
static long lines;
#ifdef HAVE_SPDLOG
static std::shared_ptr<spdlog::logger> logger;
#endif

static void line(int t, long i)
{
	unsigned int n = (unsigned int)(1000 + i * 7 % 9000);
	const char *s = spans[i & 3];
	char buf[128];
	int k;

	switch (variant) {
	case IDEAL:
		k = snprintf(buf, sizeof(buf), LINE, t, n, s);
		if (write(2, buf, (size_t)k) < 0)
			_exit(1);
		break;
	case SHIM:
	case DEFER:
		if (fragments == 1) {
			printk(KERN_INFO LINE, t, n, s);
		} else {
			printk(KERN_INFO "worker %d:", t);
			printk(KERN_CONT " processed %u items", n);
			printk(KERN_CONT " in %s\n", s);
		}
		break;
	case STDIO:
		if (fragments == 1) {
			fprintf(stderr, LINE, t, n, s);
		} else {
			flockfile(stderr);
			fprintf(stderr, "worker %d:", t);
			fprintf(stderr, " processed %u items", n);
			fprintf(stderr, " in %s\n", s);
			funlockfile(stderr);
		}
		break;
	default:
#ifdef HAVE_SPDLOG
		logger->info("worker {}: processed {} items in {}", t, n, s);
#endif
		break;
	}
}

static void *work(void *arg)
{
	int t = (int)(long)arg;

	for (long i = 0; i < lines; i++)
		line(t, i);
	return NULL;
}

/* The logger of @v, writing to stderr with no decoration: the shim's plain bytes. */
static bool open_logger(enum variant v)
{
#ifdef HAVE_SPDLOG
	auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>("/dev/stderr");

	if (v == SPD_SYNC) {
		logger = std::make_shared<spdlog::logger>("bench", sink);
	} else {
		spdlog::init_thread_pool(8192, 1);	/* spdlog's default queue */
		logger = std::make_shared<spdlog::async_logger>(
			"bench", sink, spdlog::thread_pool(),
			v == SPD_BLOCK ? spdlog::async_overflow_policy::block :
					 spdlog::async_overflow_policy::overrun_oldest);
	}
	logger->set_pattern("%v");
	return true;
#else
	(void)v;
	return false;
#endif
}

/* CPU time of the whole process so far (every thread), in ns. */
static uint64_t process_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * PEER_SETTLE (bench/callgrind.sh): before exit, wait until the process
 * spends no more CPU time, so that the shim's printer thread, not the
 * exit's drain in the caller's thread, writes the lines, as spdlog's pool
 * does before its shutdown returns. Valgrind runs one thread at a time, and
 * the printer may lag far behind the caller there.
 */
static void settle(void)
{
	uint64_t was;
	int i = 0;

	do {
		was = process_cpu();
		usleep(50000);
	} while (process_cpu() != was && ++i < 200);
}

/*
 * @threads threads print @n lines each. Reports on descriptor 3, if open,
 * when the first line started and the CPU time spent before it (start-up),
 * which the parent takes off: it times from there to the exit.
 */
static int run(enum variant v, int shape, long threads, long n)
{
	pthread_t t[MAX_THREADS];
	uint64_t t0, cpu0;
	char out[64];
	int len;

	variant = v;
	fragments = shape;
	lines = n;
	if (v == STDIO)
		setvbuf(stderr, NULL, _IOFBF, BUFSIZ);
	if (v >= SPD_SYNC && !open_logger(v))
		return 3;
	t0 = bench_now();
	cpu0 = process_cpu();
	if (threads == 1) {
		work((void *)1L);	/* callgrind tells the caller from a logger's own thread */
	} else {
		for (long i = 0; i < threads; i++)
			pthread_create(&t[i], NULL, work, (void *)(i + 1));
		for (long i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
	}
#ifdef HAVE_SPDLOG
	if (v >= SPD_SYNC) {
		logger->flush();
		logger.reset();
		spdlog::shutdown();	/* the queue written, the pool's thread joined */
	}
#endif
	if (v == DEFER && getenv("PEER_SETTLE"))
		settle();
	fflush(stderr);
	len = snprintf(out, sizeof(out), "%llu %llu\n", (unsigned long long)t0,
		       (unsigned long long)cpu0);
	if (fcntl(3, F_GETFD) >= 0 && write(3, out, (size_t)len) != len)
		return 1;
	return 0;
}

/* --- the orchestra --------------------------------------------------------- */

struct fig { uint64_t wall, cpu; };

static const char *self_path, *module;

/* One child run of @v with @threads threads to @dest. Return: its wall and CPU time. */
static struct fig one(enum variant v, long threads, long n, const char *dest)
{
	char th[16], ln[16], pre[4200];
	char *argv[] = { (char *)self_path, (char *)"run", (char *)names[v], (char *)"1", th, ln,
			 NULL };
	char *env[] = { pre, (char *)"PRINTK_SHIM_FORMAT=plain", (char *)"PRINTK_SHIM_DEFER=1",
			NULL };
	struct fig f = { 0, 0 };
	struct rusage ru;
	char buf[64] = "";
	unsigned long long t = 0, c0 = 0;
	uint64_t t0, t1;
	int p[2], fd, st;
	pid_t pid;

	snprintf(th, sizeof(th), "%ld", threads);
	snprintf(ln, sizeof(ln), "%ld", n);
	snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", v == SHIM || v == DEFER ? module : "");
	if (v != DEFER)
		env[2] = NULL;
	if (pipe(p))
		return f;
	t0 = bench_now();
	pid = fork();
	if (pid == 0) {
		fd = open(dest, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		dup2(p[1], 3);
		execve(self_path, argv, env);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid) {
		close(p[0]);
		return f;
	}
	t1 = bench_now();
	if (read(p[0], buf, sizeof(buf) - 1) > 0 && sscanf(buf, "%llu %llu", &t, &c0) == 2 &&
	    t > t0) {
		f.wall = t1 - t;
		f.cpu = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
			(uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
		f.cpu = f.cpu > c0 ? f.cpu - c0 : 0;
	}
	close(p[0]);
	return f;
}

static const long thread_counts[] = { 1, 2, 4, 8 };
enum { NT = 4 };

static int all(int rounds, long n, const char *file, const char *data)
{
	static struct fig f[2][NT][NVARIANT][MAX_ROUNDS];
	const char *dests[2] = { "/dev/null", file };
	bool have[NVARIANT];
	FILE *out;

	for (int v = 0; v < NVARIANT; v++)
		have[v] = v < SPD_SYNC || open_logger((enum variant)v);
#ifdef HAVE_SPDLOG
	logger.reset();
	spdlog::shutdown();
#endif
	if (rounds > MAX_ROUNDS)
		rounds = MAX_ROUNDS;
	for (int r = 0; r < rounds; r++)
		for (int d = 0; d < 2; d++)
			for (int k = 0; k < NT; k++)
				for (int j = 0; j < NVARIANT; j++) {
					int v = (j + r) % NVARIANT;	/* the order rotates */

					if (have[v])
						f[d][k][v][r] = one((enum variant)v, thread_counts[k],
								    n / thread_counts[k], dests[d]);
				}
	out = fopen(data, "w");
	printf("\n**Peers**: the line \"" "worker %%d: processed %%u items in %%s" "\", %d rounds of %ld lines a run (shared by the threads), medians; lines/s [CPU ns a line, all threads]\n\n",
	       rounds, n);
	if (out)
		fprintf(out, "# variant dest threads lines_per_s cpu_ns_per_line\n");
	for (int d = 0; d < 2; d++) {
		printf("| to %s | 1 thread | 2 threads | 4 threads | 8 threads |\n|---|---|---|---|---|\n",
		       d ? "a file" : "/dev/null");
		for (int v = 0; v < NVARIANT; v++) {
			if (!have[v])
				continue;
			printf("| %s |", labels[v]);
			for (int k = 0; k < NT; k++) {
				uint64_t w[MAX_ROUNDS], c[MAX_ROUNDS], wm, cm;
				long total = n / thread_counts[k] * thread_counts[k];

				for (int r = 0; r < rounds; r++)
					w[r] = f[d][k][v][r].wall, c[r] = f[d][k][v][r].cpu;
				wm = bench_median(w, (size_t)rounds);
				cm = bench_median(c, (size_t)rounds);
				printf(" %.0f [%.0f] |", wm ? (double)total * 1e9 / (double)wm : 0,
				       (double)cm / (double)total);
				if (out)
					fprintf(out, "%s %s %ld %.0f %.0f\n", names[v],
						d ? "file" : "null", thread_counts[k],
						wm ? (double)total * 1e9 / (double)wm : 0,
						(double)cm / (double)total);
			}
			printf("\n");
		}
		printf("\n");
	}
	if (!have[SPD_SYNC])
		printf("spdlog rows skipped: built without spdlog (Debian libspdlog-dev)\n");
	if (out)
		fclose(out);
	return 0;
}

static int parse(const char *s)
{
	for (int v = 0; v < NVARIANT; v++)
		if (!strcmp(s, names[v]))
			return v;
	return -1;
}

int main(int argc, char **argv)
{
	static char exe[4096];
	int v;

	if (argc == 6 && !strcmp(argv[1], "run") && (v = parse(argv[2])) >= 0) {
		long th = bench_arg(argv[4], 1);

		return run((enum variant)v, (int)bench_arg(argv[3], 1), th > MAX_THREADS ? MAX_THREADS : th,
			   bench_arg(argv[5], 100000));
	}
	if (argc == 7 && !strcmp(argv[1], "all")) {
		ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (k <= 0)
			return 1;
		self_path = exe;
		module = argv[2];
		return all((int)bench_arg(argv[3], 7), bench_arg(argv[4], 100000), argv[5], argv[6]);
	}
	fprintf(stderr, "usage: peer-bench all MODULE ROUNDS LINES FILE DATA\n"
			"       peer-bench run VARIANT 1|3 THREADS LINES\n");
	return 2;
}
