// SPDX-License-Identifier: MIT
/*
 * The pid cache: a page the kernel zeroes in the child of every fork
 * (MADV_WIPEONFORK, Linux 4.14), also one made by _Fork() or clone(), which
 * run no atfork handler. Where the advice is refused, every call asks
 * getpid(). The count of threads, from /proc. Thread-safety:
 * async-signal-safe; setup may race harmlessly.
 */
#include "base/pid.h"
#include "base/fdturn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

_Atomic(_Atomic pid_t *) pks_pid_page;

/** pks_pid_setup() - map the cache page; before it, pks_pid() asks getpid() */
void pks_pid_setup(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t size = page > 0 ? (size_t)page : 4096;
	_Atomic pid_t *none = NULL;
	void *p;

	/* no pair: a second call only returns early, it follows no pointer */
	if (atomic_load(&pks_pid_page))
		return;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	/*
	 * Filled now: a vfork child, which shares the page, must find its
	 * parent's pid there, never leave its own for the parent.
	 * No pair: the page is this thread's until the exchange below.
	 */
	atomic_store_explicit((_Atomic pid_t *)p, getpid(), memory_order_relaxed);
	/* pairs with pks_pid()'s acquire load: the pid is in the page first */
	if (madvise(p, size, MADV_WIPEONFORK) != 0 ||
	    !atomic_compare_exchange_strong(&pks_pid_page, &none, p))
		munmap(p, size);
}

/** pks_pid_slow() - pks_pid() with no page yet, or a fork child's first ask */
pid_t pks_pid_slow(void)
{
	/* acquire: pairs with the seq_cst compare-exchange that set pks_pid_page */
	_Atomic pid_t *pp = atomic_load_explicit(&pks_pid_page, memory_order_acquire);
	pid_t pid;

	if (!pp)
		return getpid();
	/* no pair: the pid is all there is, and a process stores only its own */
	pid = atomic_load_explicit(pp, memory_order_relaxed);
	if (!pid) {
		pid = getpid();
		if (pid > 0)	/* a seccomp(2) filter may refuse it: asked again next time */
			/* no pair: as the load's */
			atomic_store_explicit(pp, pid, memory_order_relaxed);
	}
	return pid;
}

/**
 * pks_pid_differs() - whether the system call says this process is not
 * @pid (a vfork child, a raw clone's). A getpid() that a seccomp(2) filter
 * refuses says nothing: taken as the same process. errno is kept.
 */
bool pks_pid_differs(pid_t pid)
{
	int saved = errno;
	pid_t now = getpid();

	errno = saved;
	return now > 0 && now != pid;
}

/*
 * The text of @path into @buf, @size bytes, NUL-terminated; errno as it was,
 * open(2)'s in *@err. Return: its length, or -1.
 */
static ssize_t slurp(const char *path, char *buf, size_t size, int *err)
{
	int saved = errno, fd;
	ssize_t n;

	pks_fd_making();
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, size - 1);
	*err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	pks_fd_made();
	buf[n > 0 ? n : 0] = '\0';
	errno = saved;
	return n;
}

/** pks_pid_threads() - Return: the threads of this process, per /proc/self/status; 0: not known. */
int pks_pid_threads(void)
{
	char buf[4096], *p;
	int err;

	if (slurp("/proc/self/status", buf, sizeof(buf), &err) <= 0)
		return 0;
	p = strstr(buf, "\nThreads:");
	return p ? atoi(p + 9) : 0;
}

/**
 * pks_pid_thread_gone() - Return: whether thread @tid of this process has
 * ended: its /proc/self/task entry is gone, or, the thread group's leader,
 * a zombie until the others end (proc(5), /proc/pid/stat); false when
 * /proc cannot say.
 */
bool pks_pid_thread_gone(long tid)
{
	char path[64], buf[512], *p;
	int err, saved;
	ssize_t n;
	bool gone;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", tid);
	n = slurp(path, buf, sizeof(buf), &err);
	if (n < 0 && err == ENOENT) {
		saved = errno;
		gone = !access("/proc/self/task", F_OK);	/* else no /proc: not known */
		errno = saved;
		return gone;
	}
	p = n > 0 ? strrchr(buf, ')') : NULL;	/* the name may hold anything */
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}
