// SPDX-License-Identifier: MIT
/*
 * close(), dup2(), dup3(), close_range() and closefrom(), interposed so
 * that the module knows at once when the program takes a file: output's
 * descriptor number for itself (sink/file.c then opens the path again),
 * rather than at its next identity check. Each is the system call the C
 * library's makes, with its result and errno: no dlsym() on a path a
 * forked child of a threaded program takes before exec, where the dynamic
 * linker's lock may be held by a thread that is gone. Unlike the C
 * library's close(), ours is not a cancellation point. A raw system call
 * is still caught by the identity checks only.
 * Thread-safety: as the system calls; the module's part is
 * pks_file_released()'s.
 */
#include "base/compiler.h"
#include "base/next.h"
#include "base/tsan.h"
#include "sink/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

/* After a call that succeeded (@ret >= 0): @lo..@hi are the program's now. */
static int released(int ret, int lo, int hi)
{
	int saved = errno;

	if (ret >= 0) {
		pks_tsan_hide();
		pks_file_released(lo, hi);
		pks_tsan_show();
	}
	errno = saved;
	return ret;
}

PKS_EXPORT int close(int fd)
{
	return released((int)syscall(SYS_close, fd), fd, fd);
}

PKS_EXPORT int dup2(int old, int new)
{
	if (old == new)		/* dup3 refuses it; dup2 checks @old (no SYS_dup2 on aarch64) */
		return fcntl(old, F_GETFD) < 0 ? -1 : new;
	return released((int)syscall(SYS_dup3, old, new, 0), new, new);
}

PKS_EXPORT int dup3(int old, int new, int flags)
{
	return released((int)syscall(SYS_dup3, old, new, flags), new, new);
}

PKS_EXPORT int close_range(unsigned int lo, unsigned int hi, int flags)
{
	int ret = (int)syscall(SYS_close_range, lo, hi, flags);

	if (flags & CLOSE_RANGE_CLOEXEC || lo > INT_MAX)
		return ret;	/* nothing closed */
	return released(ret, (int)lo, hi > INT_MAX ? INT_MAX : (int)hi);
}

/* A kernel without close_range (before 5.9): the C library's walk of /proc/self/fd. */
PKS_EXPORT void closefrom(int lo)
{
	static struct pks_next next;
	void (*fn)(int);
	int saved = errno;

	if (syscall(SYS_close_range, lo, ~0u, 0) && errno == ENOSYS &&
	    (fn = (void (*)(int))pks_next("closefrom", &next)) != NULL)
		fn(lo);
	errno = saved;
	released(0, lo, INT_MAX);
}
