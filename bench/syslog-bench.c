// SPDX-License-Identifier: MIT
/*
 * syslog-bench glibc|printk LINES DIR [THREADS]: LINES messages to a syslog
 * receiver, from THREADS threads (1), timed; prints "ns=... cpu=...
 * lines=... delivered=...", cpu being the senders' own CPU time, summed
 * (the receiver's and the scheduler's are not in it).
 *
 * The receiver is a child process bound to DIR/log, an AF_UNIX datagram
 * socket as /dev/log is; it counts datagrams (with recvmmsg, to keep up)
 * until a stop datagram and hands the count back through a pipe, so a row
 * whose messages did not arrive there can say so. MODE printk calls printk, for printk-shim run with
 * PRINTK_SHIM_OUTPUT=syslog PRINTK_SHIM_SYSLOG_SOCKET=DIR/log. MODE glibc
 * calls syslog(3), which only knows /dev/log: the process moves to a mount
 * namespace of its own where DIR is mounted on /dev (root only; otherwise
 * it prints ns=-1 and a reason).
 */
#include "bench.h"

#include <errno.h>
#include <linux/printk.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#define WARMUP	64
#define STOP	"bench-stop"
#define BATCH	64	/* datagrams per recvmmsg() */
#define MAX_THREADS	64

static struct sockaddr_un where;
static bool glibc;
static long per_thread;
static pthread_barrier_t start;
static _Atomic uint64_t t_first = UINT64_MAX, t_last, cpu_sum;

static void receive(int sock, int out)
{
	static char buf[BATCH][2048];
	struct mmsghdr m[BATCH];
	struct iovec iov[BATCH];
	long n = 0;

	for (int i = 0; i < BATCH; i++) {
		iov[i] = (struct iovec){ .iov_base = buf[i], .iov_len = sizeof(buf[i]) };
		m[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	for (;;) {
		int got = recvmmsg(sock, m, BATCH, MSG_WAITFORONE, NULL);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		for (int i = 0; i < got; i++) {
			if (m[i].msg_len == sizeof(STOP) - 1 && !memcmp(buf[i], STOP, sizeof(STOP) - 1))
				goto done;
			n++;
		}
	}
done:
	if (write(out, &n, sizeof(n)) != sizeof(n))
		_exit(1);
	_exit(0);
}

/* Return: the receiver's pid; its count will come through *@count_fd. */
static pid_t start_receiver(const char *dir, int *count_fd)
{
	int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), p[2], big = 1 << 22;
	pid_t pid;

	where.sun_family = AF_UNIX;
	snprintf(where.sun_path, sizeof(where.sun_path), "%s/log", dir);
	unlink(where.sun_path);
	if (sock < 0 || bind(sock, (struct sockaddr *)&where, sizeof(where)) < 0 || pipe(p) < 0)
		return -1;
	setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		receive(sock, p[1]);
	}
	close(sock);
	close(p[1]);
	*count_fd = p[0];
	return pid;
}

/* Return: how many datagrams the receiver counted, or -1. */
static long stop_receiver(pid_t pid, int count_fd)
{
	int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	long n = -1;

	sendto(sock, STOP, sizeof(STOP) - 1, 0, (struct sockaddr *)&where, sizeof(where));
	close(sock);
	if (read(count_fd, &n, sizeof(n)) != sizeof(n))
		n = -1;
	waitpid(pid, NULL, 0);
	unlink(where.sun_path);
	return n;
}

/* glibc's syslog(3) writes to /dev/log: make DIR our /dev, privately. */
static const char *private_dev(const char *dir)
{
	if (unshare(CLONE_NEWNS) < 0)
		return "unshare";
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return "mount-private";
	if (mount(dir, "/dev", NULL, MS_BIND, NULL) < 0)
		return "mount-bind";
	return NULL;
}

static void one(int t, long i)
{
	int v = (int)(i * 7 % 1000);

	if (glibc)
		syslog(LOG_INFO, "bench t%d l%ld: value=%d end", t, i, v);
	else
		printk(KERN_INFO BENCH_LINE, t, i, v);
}

/* One sender: its own clock readings, as the main thread may not run in time. */
static void *work(void *arg)
{
	int t = (int)(long)arg;
	uint64_t t0, t1, cpu, seen;

	for (long i = 0; i < WARMUP / 8; i++)
		one(t, -1 - i);
	pthread_barrier_wait(&start);
	t0 = bench_now();
	cpu = bench_cpu();
	for (long i = 0; i < per_thread; i++)
		one(t, i);
	cpu = bench_cpu() - cpu;
	t1 = bench_now();
	atomic_fetch_add(&cpu_sum, cpu);
	seen = atomic_load(&t_first);
	while (t0 < seen && !atomic_compare_exchange_weak(&t_first, &seen, t0))
		;
	seen = atomic_load(&t_last);
	while (t1 > seen && !atomic_compare_exchange_weak(&t_last, &seen, t1))
		;
	return NULL;
}

int main(int argc, char **argv)
{
	long lines = bench_arg(argc >= 4 ? argv[2] : NULL, 100000), got, threads;
	pthread_t tid[MAX_THREADS];
	const char *fail = NULL;
	int count_fd;
	pid_t pid;

	glibc = (argc == 4 || argc == 5) && !strcmp(argv[1], "glibc");
	if ((argc != 4 && argc != 5) || (!glibc && strcmp(argv[1], "printk"))) {
		printf("usage: syslog-bench glibc|printk LINES DIR [THREADS]\n");
		return 2;
	}
	threads = bench_arg(argc == 5 ? argv[4] : NULL, 1);
	threads = threads > MAX_THREADS ? MAX_THREADS : threads;
	per_thread = lines / threads;
	pid = start_receiver(argv[3], &count_fd);
	if (pid < 0) {
		printf("ns=-1 lines=0 delivered=0 why=receiver\n");
		return 0;
	}
	if (glibc && (fail = private_dev(argv[3])) == NULL)
		openlog("syslog-bench", LOG_PID | LOG_NDELAY, LOG_USER);
	if (!fail) {
		pthread_barrier_init(&start, NULL, (unsigned int)threads);
		for (long t = 0; t < threads; t++)
			pthread_create(&tid[t], NULL, work, (void *)t);
		for (long t = 0; t < threads; t++)
			pthread_join(tid[t], NULL);
	}
	got = stop_receiver(pid, count_fd);
	if (fail)
		printf("ns=-1 lines=0 delivered=0 why=%s\n", fail);
	else
		printf("ns=%llu cpu=%llu lines=%ld delivered=%ld\n",
		       (unsigned long long)(atomic_load(&t_last) - atomic_load(&t_first)),
		       (unsigned long long)atomic_load(&cpu_sum), per_thread * threads,
		       got > WARMUP / 8 * threads ? got - WARMUP / 8 * threads : 0);
	return 0;
}
