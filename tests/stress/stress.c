// SPDX-License-Identifier: MIT
/*
 * stress: many threads print lines in random fragments while a timer signal
 * hits every thread (its handler prints whole lines, in two fragments, in
 * its own context), the main thread sends SIGUSR1 to random threads (whose
 * handler prints one more line) and forks children that print too. Run it
 * under the shim with stderr appended to a file, then check the file:
 *
 *   stress [-t THREADS] [-n LINES] [-c CHILDREN] [-u USEC] [-w SECONDS] [-s SEED]
 *          >SUMMARY 2>>LOG
 *   stress check LOG SUMMARY
 *
 * The run prints, on stdout, how many lines of each kind it printed. The
 * check reads the log (PRINTK_SHIM_FORMAT=prefix) and verifies that every
 * line arrived whole, exactly once, per thread (per handler, per child) in
 * order, with its level, and that the counts match the summary.
 *
 * A watchdog thread ends the run with status 3 if no line is printed for
 * -w seconds (default 60): a deadlock must not hang the test.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define MAX_THREADS	64
#define MAX_CHILDREN	1000
#define CHILD_LINES	200
#define TEXT_MAX	256

static long nthreads = 8, nlines = 100000, nchildren = 40, usec = 500, watchdog_s = 60;
static uint64_t seed = 1;

static _Atomic long progress;
static _Atomic int workers_done;
static long sig_count[MAX_THREADS + 1], usr_count[MAX_THREADS + 1];
static pthread_t workers[MAX_THREADS];
static long child_status[MAX_CHILDREN];
static long children;

static __thread int me;			/* this thread's index; nthreads for main */
static __thread long my_sig, my_usr;

/* --- what every line says: a pure function of who printed it and when --- */

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t h(int kind, long who, long i)
{
	return mix(seed * 0x100000001b3ull ^ mix(((uint64_t)kind << 56) ^ ((uint64_t)who << 32) ^
						 (uint64_t)i));
}

static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789 ";

/* The text of line @i of @who, of kind @kind ('T', 'S', 'C'), without the newline. */
static int text_of(char *buf, int kind, long who, long i)
{
	uint64_t x = h(kind, who, i);
	int len = (int)(x % 120), n;

	n = snprintf(buf, TEXT_MAX, "%c%ld %c%ld ", kind, who, kind == 'S' ? 'K' : 'L', i);
	for (int j = 0; j < len; j++) {
		x = mix(x);
		buf[n++] = alphabet[x % (sizeof(alphabet) - 1)];
	}
	buf[n] = '\0';
	return n;
}

static int level_of(long who, long i)
{
	return (int)(h('V', who, i) % 8);
}

/* Lines @i (even) and @i + 1 go out in one call, both at @i's level. */
static int paired(long who, long i)
{
	return i % 2 == 0 && h('P', who, i) % 32 == 0;
}

static int expected_level(int kind, long who, long i)
{
	if (kind == 'S')
		return 5;
	if (kind == 'U')
		return 3;
	if (kind == 'C')
		return 6;
	if (i % 2 && paired(who, i - 1))
		return level_of(who, i - 1);
	return level_of(who, i);
}

/* --- printing --------------------------------------------------------------- */

static uint64_t rnd(uint64_t *s)
{
	*s = mix(*s);
	return *s;
}

static const char *const cont_marks[] = { "", "\001c", "\001c\0013" };

/* One line of @n bytes at @level in 1..5 random fragments; the last ends it. */
static void fragmented(const char *t, int n, int level, uint64_t *s)
{
	int pieces = 1 + (int)(rnd(s) % 5), at = 0;

	for (int k = 0; k < pieces; k++) {
		int end = k == pieces - 1 ? n : at + (int)(rnd(s) % (uint64_t)(n - at + 1));
		const char *nl = k == pieces - 1 ? "\n" : "";

		if (k == 0)
			printk("\001%c%.*s%s", '0' + level, end - at, t + at, nl);
		else
			printk("%s%.*s%s", cont_marks[rnd(s) % 3], end - at, t + at, nl);
		at = end;
		if (rnd(s) % 8 == 0)
			sched_yield();
	}
}

static void on_timer(int sig)
{
	char t[TEXT_MAX];
	int n = text_of(t, 'S', me, my_sig);

	(void)sig;
	printk("\0015%.*s", n / 2, t);
	printk("\001c%s\n", t + n / 2);
	my_sig++;
}

static void on_usr1(int sig)
{
	(void)sig;
	printk("\0013U%d K%ld\n", me, my_usr++);
}

static int start_timer(timer_t *tm)
{
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGALRM };
	struct itimerspec ts = { { 0, usec * 1000 }, { 0, usec * 1000 } };

	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &ev, tm))
		return -1;
	return timer_settime(*tm, 0, &ts, NULL);
}

/* Stop this thread's signals for good: pending ones die with the thread. */
static void stop_signals(timer_t tm)
{
	sigset_t set;

	timer_delete(tm);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void allow_usr1(int how)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(how, &set, NULL);
}

static void *worker(void *p)
{
	uint64_t s = mix(seed + (uint64_t)(long)p);
	char t[2 * TEXT_MAX + 2];
	timer_t tm;

	me = (int)(long)p;
	allow_usr1(SIG_UNBLOCK);	/* blocked until its handler knows who we are */
	if (start_timer(&tm))
		return (void *)1;
	for (long i = 0; i < nlines; i++, atomic_fetch_add_explicit(&progress, 1, memory_order_relaxed)) {
		int n = text_of(t, 'T', me, i);

		/* Two lines in one call: the second takes the first's level. */
		if (paired(me, i) && i + 1 < nlines) {
			t[n++] = '\n';
			text_of(t + n, 'T', me, i + 1);
			printk("\001%c%s\n", '0' + level_of(me, i), t);
			i++;
			continue;
		}
		fragmented(t, n, level_of(me, i), &s);
	}
	stop_signals(tm);
	sig_count[me] = my_sig;
	usr_count[me] = my_usr;
	atomic_fetch_add(&workers_done, 1);
	return NULL;
}

static void child_main(long j)
{
	uint64_t s = mix(seed ^ (uint64_t)j << 20);
	char t[TEXT_MAX];

	for (long i = 0; i < CHILD_LINES; i++)
		fragmented(t, text_of(t, 'C', j, i), 6, &s);
	exit(0);
}

/*
 * TSan runs a handler at the thread's next call into it, not when the
 * signal arrives; one it holds when fork() is called runs in the child too
 * (where the kernel would deliver nothing) and prints the parent's line a
 * second time. Blocking hands such signals over first.
 */
static pid_t fork_quiet(void)
{
#ifdef __SANITIZE_THREAD__
	sigset_t set, old;
	pid_t pid;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	pid = fork();
	if (pid != 0)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	return pid;
#else
	return fork();
#endif
}

static void fork_one(void)
{
	pid_t pid = fork_quiet();
	int st;

	if (pid == 0)
		child_main(children);
	if (pid < 0) {
		child_status[children++] = -1;
		return;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	child_status[children++] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void *watchdog(void *p)
{
	long last = -1, still = 0;
	sigset_t all;

	(void)p;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		long now = atomic_load(&progress);

		sleep(1);
		still = now == last ? still + 1 : 0;
		last = now;
		if (still >= watchdog_s) {
			char msg[160];
			int n = snprintf(msg, sizeof(msg),
					 "stress: watchdog: no progress for %lds at %ld lines, %d of %ld threads done\n",
					 still, now, atomic_load(&workers_done), nthreads);

			if (write(1, msg, (size_t)n) < 0 || write(2, msg, (size_t)n) < 0)
				_exit(3);
			_exit(3);
		}
	}
	return NULL;
}

static int run(void)
{
	struct sigaction sa = { .sa_handler = on_timer, .sa_flags = SA_RESTART };
	long per = nchildren ? nlines * nthreads / (nchildren + 1) : 0, next = per, bad = 0;
	pthread_t wd;
	timer_t tm;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	me = (int)nthreads;
	allow_usr1(SIG_BLOCK);		/* the workers inherit it */
	pthread_create(&wd, NULL, watchdog, NULL);
	if (start_timer(&tm))
		return 1;
	for (long t = 0; t < nthreads; t++)
		pthread_create(&workers[t], NULL, worker, (void *)t);
	for (uint64_t s = seed; atomic_load(&workers_done) < nthreads; ) {
		struct timespec ms = { 0, 1000 * 1000 };

		if (children < nchildren && atomic_load(&progress) >= next) {
			fork_one();
			next += per;
		}
		pthread_kill(workers[rnd(&s) % (uint64_t)nthreads], SIGUSR1);
		nanosleep(&ms, NULL);
	}
	while (children < nchildren)
		fork_one();
	stop_signals(tm);
	sig_count[nthreads] = my_sig;
	usr_count[nthreads] = my_usr;
	for (long t = 0; t < nthreads; t++)
		bad += pthread_join(workers[t], NULL) != 0;
	for (long t = 0; t <= nthreads; t++)
		printf("thread %ld lines %ld sig %ld usr %ld\n", t, t < nthreads ? nlines : 0,
		       sig_count[t], usr_count[t]);
	for (long j = 0; j < children; j++)
		printf("child %ld lines %d status %ld\n", j, CHILD_LINES, child_status[j]);
	return bad ? 1 : 0;
}

/* --- the check ------------------------------------------------------------- */

struct seen {
	long next[MAX_THREADS + 1];
};

static struct seen seen_t, seen_s, seen_u;
static long seen_c[MAX_CHILDREN];
static long errors;

static void bad_line(long lineno, const char *why, const char *line)
{
	if (errors++ < 10)
		fprintf(stderr, "stress: log line %ld: %s: %.120s\n", lineno, why, line);
}

static void check_line(long lineno, char *line)
{
	char t[TEXT_MAX], kind;
	long who, i, *next;
	int level;

	if (sscanf(line, "<%d>%c%ld %*c%ld", &level, &kind, &who, &i) != 4 || who < 0) {
		bad_line(lineno, "not a line of ours (torn or joined?)", line);
		return;
	}
	line = strchr(line, '>') + 1;
	if (kind == 'C' && who < MAX_CHILDREN)
		next = &seen_c[who];
	else if (who <= MAX_THREADS && (kind == 'T' || kind == 'S' || kind == 'U'))
		next = kind == 'T' ? &seen_t.next[who] : kind == 'S' ? &seen_s.next[who] : &seen_u.next[who];
	else {
		bad_line(lineno, "unknown writer", line);
		return;
	}
	if (i != *next)
		bad_line(lineno, i < *next ? "repeated or out of order" : "lines missing before it", line);
	*next = i + 1;
	if (kind == 'U')
		snprintf(t, sizeof(t), "U%ld K%ld", who, i);
	else
		text_of(t, kind, who, i);
	if (strcmp(line, t))
		bad_line(lineno, "text differs (torn or joined)", line);
	if (level != expected_level(kind, who, i))
		bad_line(lineno, "wrong level", line);
}

static int check(const char *log, const char *summary)
{
	FILE *f = fopen(log, "r"), *s = fopen(summary, "r");
	long lineno = 0, total = 0, t, n, sg, us, st;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	if (!f || !s) {
		perror("stress check");
		return 2;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		check_line(++lineno, line);
	}
	while ((len = getline(&line, &cap, s)) > 0) {
		if (sscanf(line, "thread %ld lines %ld sig %ld usr %ld", &t, &n, &sg, &us) == 4 &&
		    t >= 0 && t <= MAX_THREADS) {
			if (seen_t.next[t] != n || seen_s.next[t] != sg || seen_u.next[t] != us) {
				fprintf(stderr, "stress: thread %ld: printed %ld/%ld/%ld lines, log has %ld/%ld/%ld\n",
					t, n, sg, us, seen_t.next[t], seen_s.next[t], seen_u.next[t]);
				errors++;
			}
			total += n + sg + us;
		} else if (sscanf(line, "child %ld lines %ld status %ld", &t, &n, &st) == 3 &&
			   t >= 0 && t < MAX_CHILDREN) {
			if (seen_c[t] != n || st != 0) {
				fprintf(stderr, "stress: child %ld: printed %ld lines, log has %ld, status %ld\n",
					t, n, seen_c[t], st);
				errors++;
			}
			total += n;
		}
	}
	if (total != lineno) {
		fprintf(stderr, "stress: %ld lines printed, %ld in the log\n", total, lineno);
		errors++;
	}
	printf("stress: %s: %ld lines checked, %ld errors\n", errors ? "FAIL" : "ok", lineno, errors);
	free(line);
	return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	int opt;

	if (argc == 4 && !strcmp(argv[1], "check"))
		return check(argv[2], argv[3]);
	while ((opt = getopt(argc, argv, "t:n:c:u:w:s:")) != -1) {
		switch (opt) {
		case 't': nthreads = atol(optarg); break;
		case 'n': nlines = atol(optarg); break;
		case 'c': nchildren = atol(optarg); break;
		case 'u': usec = atol(optarg); break;
		case 'w': watchdog_s = atol(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || nchildren > MAX_CHILDREN || usec < 1)
		return 2;
	return run();
}
