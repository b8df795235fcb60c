// SPDX-License-Identifier: MIT
/*
 * close(), dup2(), dup3(), close_range() and closefrom(), interposed so
 * that the module knows at once when the program takes a file: output's
 * descriptor number for itself (out/file.c then opens the path again),
 * rather than at its next identity check. Each call goes to the C
 * library's function unchanged, with its result and errno; a raw system
 * call is still caught by the checks only.
 * Thread-safety: as the C library's functions; the module's part is
 * pks_file_released()'s.
 */
#include "base/compiler.h"
#include "base/next.h"
#include "out/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct pks_next next_close, next_dup2, next_dup3, next_close_range, next_closefrom;

#define NEXT(fn) ((__typeof__(fn) *)pks_next(#fn, &next_##fn))

/* After a call that succeeded (@ret >= 0): @lo..@hi are the program's now. */
static int released(int ret, int lo, int hi)
{
	int saved = errno;

	if (ret >= 0)
		pks_file_released(lo, hi);
	errno = saved;
	return ret;
}

/*
 * Each goes to the C library's function; while dlsym itself runs (it may
 * close a file), to the system call.
 */
PKS_EXPORT int close(int fd)
{
	__typeof__(close) *fn = NEXT(close);
	int ret = fn ? fn(fd) : (int)syscall(SYS_close, fd);

	return released(ret, fd, fd);
}

PKS_EXPORT int dup2(int old, int new)
{
	__typeof__(dup2) *fn = NEXT(dup2);
	int ret;

	if (fn)
		ret = fn(old, new);
	else if (old == new)	/* dup3 refuses it; dup2 checks @old (no SYS_dup2 on aarch64) */
		ret = fcntl(old, F_GETFD) < 0 ? -1 : new;
	else
		ret = (int)syscall(SYS_dup3, old, new, 0);

	return old == new ? ret : released(ret, new, new);
}

PKS_EXPORT int dup3(int old, int new, int flags)
{
	__typeof__(dup3) *fn = NEXT(dup3);
	int ret = fn ? fn(old, new, flags) : (int)syscall(SYS_dup3, old, new, flags);

	return released(ret, new, new);
}

PKS_EXPORT int close_range(unsigned int lo, unsigned int hi, int flags)
{
	__typeof__(close_range) *fn = NEXT(close_range);
	int ret = fn ? fn(lo, hi, flags) : (int)syscall(SYS_close_range, lo, hi, flags);

	if (flags & CLOSE_RANGE_CLOEXEC || lo > INT_MAX)
		return ret;	/* nothing closed */
	return released(ret, (int)lo, hi > INT_MAX ? INT_MAX : (int)hi);
}

PKS_EXPORT void closefrom(int lo)
{
	__typeof__(closefrom) *fn = NEXT(closefrom);

	if (fn)
		fn(lo);
	else
		syscall(SYS_close_range, lo, ~0u, 0);
	released(0, lo, INT_MAX);
}
