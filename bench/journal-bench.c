// SPDX-License-Identifier: MIT
/*
 * journal-bench sd|printk LINES DIR: LINES entries to the systemd-journald
 * whose native socket is DIR/socket (a namespace instance's
 * /run/systemd/journal.NAME), timed; prints "ns=... cpu=... lines=...
 * failed=...", cpu being the sender's own CPU time.
 *
 * MODE printk calls printk, for printk-shim run with
 * PRINTK_SHIM_OUTPUT=journal PRINTK_SHIM_JOURNAL_SOCKET=DIR/socket.
 * MODE sd calls libsystemd's sd_journal_send(3) with the fields the shim
 * sends. libsystemd sends to /run/systemd/journal/socket and nowhere else
 * (no variable or namespace moves it), so the process first moves to a
 * mount namespace of its own where DIR is mounted there (root only;
 * otherwise it prints ns=-1 and a reason). libsystemd is opened with
 * dlopen, so neither this program nor the module links it.
 */
#include "bench.h"

#include <dlfcn.h>
#include <linux/printk.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define WARMUP	64
#define RUN	"/run/systemd"

static int (*send)(const char *format, ...);
static char pid_field[32], tid_field[32];

/* Mount DIR on /run/systemd/journal, in this process only. */
static const char *private_journal(const char *dir)
{
	char hold[] = "/tmp/pks-journal.XXXXXX";

	if (!mkdtemp(hold))
		return "mkdtemp";
	if (unshare(CLONE_NEWNS) < 0)
		return "unshare";
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return "mount-private";
	/* held aside, as the tmpfs below hides it */
	if (mount(dir, hold, NULL, MS_BIND, NULL) < 0)
		return "mount-hold";
	if (mount("tmpfs", RUN, "tmpfs", 0, "mode=0755") < 0)
		return "mount-tmpfs";
	if (mkdir(RUN "/journal", 0755) < 0)
		return "mkdir";
	if (mount(hold, RUN "/journal", NULL, MS_BIND, NULL) < 0)
		return "mount-bind";
	umount2(hold, MNT_DETACH);
	rmdir(hold);
	return NULL;
}

static const char *open_libsystemd(void)
{
	void *h = dlopen("libsystemd.so.0", RTLD_NOW);

	if (!h)
		return "no-libsystemd";
	send = (int (*)(const char *, ...))dlsym(h, "sd_journal_send");
	return send ? NULL : "no-sd_journal_send";
}

static int one(bool sd, long i)
{
	int v = (int)(i * 7 % 1000);

	if (!sd)
		return printk(KERN_INFO BENCH_LINE, 0, i, v) < 0;
	return send("MESSAGE=bench t%d l%ld: value=%d end", 0, i, v, "PRIORITY=6",
		    "SYSLOG_FACILITY=1", "SYSLOG_IDENTIFIER=journal-bench", pid_field, tid_field,
		    "PRINTK_LEVEL=info", "CODE_FUNC=one", NULL) < 0;
}

int main(int argc, char **argv)
{
	bool sd = argc == 4 && !strcmp(argv[1], "sd");
	long lines = bench_arg(argc == 4 ? argv[2] : NULL, 100000), failed = 0;
	const char *fail = NULL;
	uint64_t t0, t1, cpu;

	if (argc != 4 || (!sd && strcmp(argv[1], "printk"))) {
		printf("usage: journal-bench sd|printk LINES DIR\n");
		return 2;
	}
	if (sd && !(fail = open_libsystemd()))
		fail = private_journal(argv[3]);
	if (fail) {
		printf("ns=-1 lines=0 failed=0 why=%s\n", fail);
		return 0;
	}
	snprintf(pid_field, sizeof(pid_field), "SYSLOG_PID=%d", (int)getpid());
	snprintf(tid_field, sizeof(tid_field), "TID=%d", (int)gettid());
	for (long i = 0; i < WARMUP; i++)
		one(sd, -1 - i);
	t0 = bench_now();
	cpu = bench_cpu();
	for (long i = 0; i < lines; i++)
		failed += one(sd, i);
	cpu = bench_cpu() - cpu;
	t1 = bench_now();
	printf("ns=%llu cpu=%llu lines=%ld failed=%ld\n", (unsigned long long)(t1 - t0),
	       (unsigned long long)cpu, lines, failed);
	return 0;
}
