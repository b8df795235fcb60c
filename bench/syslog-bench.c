// SPDX-License-Identifier: MIT
/*
 * syslog-bench glibc|printk LINES DIR: LINES messages to a syslog receiver,
 * timed; prints "ns=... cpu=... lines=... delivered=...", cpu being the
 * sender's own CPU time (the receiver's and the scheduler's are not in it).
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
#include <sched.h>
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

static struct sockaddr_un where;

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

static void one(bool glibc, long i)
{
	int v = (int)(i * 7 % 1000);

	if (glibc)
		syslog(LOG_INFO, "bench t%d l%ld: value=%d end", 0, i, v);
	else
		printk(KERN_INFO BENCH_LINE, 0, i, v);
}

int main(int argc, char **argv)
{
	bool glibc = argc == 4 && !strcmp(argv[1], "glibc");
	long lines = bench_arg(argc == 4 ? argv[2] : NULL, 100000), got;
	const char *fail = NULL;
	uint64_t t0 = 0, t1 = 0, cpu = 0;
	int count_fd;
	pid_t pid;

	if (argc != 4 || (!glibc && strcmp(argv[1], "printk"))) {
		printf("usage: syslog-bench glibc|printk LINES DIR\n");
		return 2;
	}
	pid = start_receiver(argv[3], &count_fd);
	if (pid < 0) {
		printf("ns=-1 lines=0 delivered=0 why=receiver\n");
		return 0;
	}
	if (glibc && (fail = private_dev(argv[3])) == NULL)
		openlog("syslog-bench", LOG_PID | LOG_NDELAY, LOG_USER);
	if (!fail) {
		for (long i = 0; i < WARMUP; i++)
			one(glibc, -1 - i);
		t0 = bench_now();
		cpu = bench_cpu();
		for (long i = 0; i < lines; i++)
			one(glibc, i);
		cpu = bench_cpu() - cpu;
		t1 = bench_now();
	}
	got = stop_receiver(pid, count_fd);
	if (fail)
		printf("ns=-1 lines=0 delivered=0 why=%s\n", fail);
	else
		printf("ns=%llu cpu=%llu lines=%ld delivered=%ld\n", (unsigned long long)(t1 - t0),
		       (unsigned long long)cpu, lines, got > WARMUP ? got - WARMUP : 0);
	return 0;
}
