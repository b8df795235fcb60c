// SPDX-License-Identifier: MIT
/*
 * close(), dup2(), dup3(), close_range(), closefrom() and fclose(), interposed so
 * that the module knows at once when the program takes a file: output's
 * descriptor number for itself (sink/file.c moves off one number before
 * the call and opens the path again after it), rather than at its next
 * identity check; these and fclose(), freopen()
 * and freopen64(), whose closing and dup3() the C library makes inside,
 * so that the deferred ring's lines reach a descriptor they were printed
 * for before the program closes or replaces it (printk-shim(7) DEFERRED
 * PRINTING); and dup(), only to hear of a new stderr (base/say.h). The
 * first six are the system call the C library's makes, with its result
 * and errno, and the stdio three were looked up at start:
 * no dlsym() on a path a forked child of a threaded program takes before
 * exec, where the dynamic linker's lock may be held by a thread that is
 * gone. Unlike the C library's close(), ours is not a cancellation point.
 * A raw system call is still caught by the identity checks only.
 * Thread-safety: as the system calls; the module's part is
 * pks_file_taking()'s and pks_file_released()'s.
 */
#include "base/compiler.h"
#include "base/fdio.h"
#include "base/fdturn.h"
#include "base/next.h"
#include "base/say.h"
#include "base/tsan.h"
#include "ctx/ctx.h"
#include "ctx/fds.h"
#include "defer/defer.h"
#include "sink/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * Before the program closes or replaces its descriptors @lo to @hi: the
 * ring's lines that may go to one of them are written first, as at exec.
 * Not in a vfork child, nor a clone sharing this memory: the ring is the
 * parent's (getpid() last, once the rest says the lines would go there).
 */
static void before(int lo, int hi)
{
	if (likely(!pks_defer_feeds(lo, hi)) || pks_vfork_child() || pks_ctx_foreign())
		return;
	pks_signals_drain();
}

/*
 * Whether the descriptors the call changed are this process's own to note:
 * a vfork child's table is a copy, but the module's state is its parent's
 * memory, which a note of the child's would mislead (getpid() last).
 */
static bool own(void)
{
	return !pks_vfork_child() && !pks_ctx_foreign();
}

/* Whether dup2(@old, @fd) can take @fd: @old is open, @fd under RLIMIT_NOFILE. */
static bool can_take(int old, int fd)
{
	struct rlimit rl;

	return fcntl(old, F_GETFD) >= 0 &&
	       (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || (rlim_t)fd < rl.rlim_cur);
}

/*
 * before() of one descriptor @fd the program is about to close (@old -1)
 * or put a copy of @old on: a file: output there moves to another number
 * first (sink/file.c), unless the call is bound to fail; then the ring is
 * written all the same, so that the printer's batch, begun with the old
 * number, ends before the program has it. Return: whether one moved.
 */
static bool taking(int fd, int old)
{
	int saved = errno;
	bool moved = false;

	if (!own())
		return false;
	pks_tsan_hide();
	if (pks_file_on(fd) && (old < 0 || can_take(old, fd)))
		moved = pks_file_taking(fd);
	pks_tsan_show();
	errno = saved;
	if (moved)
		pks_signals_drain();
	else
		before(fd, fd);
	return moved;
}

/* After a call that succeeded (@ret >= 0): @lo..@hi are the program's now. */
static int released(int ret, int lo, int hi)
{
	int saved = errno;

	pks_tsan_hide();
	pks_fd_changed();
	pks_file_released(lo, hi);
	pks_tsan_show();
	errno = saved;
	return ret;
}

/* Whether @fd is 2, whose next holder the shim's words are kept from (base/say.h). */
static void stderr_is(int ret, int lo, int hi, bool muted)
{
	if (ret >= 0 && lo <= 2 && hi >= 2)
		/* no pair: a flag, as pks_say()'s load */
		atomic_store_explicit(&pks_say_muted, muted, memory_order_relaxed);
}

/* After @lo..@hi were closed (@ret >= 0): a line for one of them is lost now, not later. */
static int closed(int ret, int lo, int hi)
{
	if (ret < 0 || !own())
		return ret;
	pks_defer_closed(lo, hi);
	stderr_is(ret, lo, hi, true);
	return released(ret, lo, hi);
}

/*
 * After @new was made a copy of another descriptor (@ret >= 0): a new
 * stderr, if 2. A call that failed after an output @moved off @new: its
 * path opened again onto its new number all the same, as after a take.
 */
static int given(int ret, int new, bool moved)
{
	if (ret < 0 && moved)
		return released(ret, new, new);
	if (ret < 0 || !own())
		return ret;
	stderr_is(ret, new, new, false);
	return released(ret, new, new);
}

/* The system call @nr, made when no descriptor of the module's sits low (base/fdturn.h). */
static long kept_apart(long nr, long a, long b, long c)
{
	long r;

	pks_fd_changed();	/* before too: the printer's batch looks again (sink/batch.c) */
	pks_fd_taking();
	r = syscall(nr, a, b, c);
	pks_fd_taken();
	return r;
}

PKS_EXPORT int close(int fd)
{
	taking(fd, -1);
	return closed((int)kept_apart(SYS_close, fd, 0, 0), fd, fd);
}

/* Only to hear of a new stderr: a copy that lands on 2, close(2) then dup(fd), is one. */
PKS_EXPORT int dup(int old)
{
	int ret = (int)syscall(SYS_dup, old);

	return ret == 2 ? given(ret, ret, false) : ret;
}

PKS_EXPORT int dup2(int old, int new)
{
	bool moved;

	if (old == new)		/* dup3 refuses it; dup2 checks @old (no SYS_dup2 on aarch64) */
		return fcntl(old, F_GETFD) < 0 ? -1 : new;
	moved = taking(new, old);
	return given((int)kept_apart(SYS_dup3, old, new, 0), new, moved);
}

PKS_EXPORT int dup3(int old, int new, int flags)
{
	bool moved = old != new && taking(new, old);	/* else EINVAL, nothing changed */

	return given((int)kept_apart(SYS_dup3, old, new, flags), new, moved);
}

PKS_EXPORT int close_range(unsigned int lo, unsigned int hi, int flags)
{
	int last = hi > INT_MAX ? INT_MAX : (int)hi, ret;

	if (flags & CLOSE_RANGE_CLOEXEC || lo > INT_MAX || lo > hi)
		return (int)syscall(SYS_close_range, lo, hi, flags);	/* nothing closed now */
	before((int)lo, last);
	ret = (int)kept_apart(SYS_close_range, lo, hi, flags);
	return closed(ret, (int)lo, last);
}

/*
 * From 0 for a negative @lo, as the C library's. A kernel without
 * close_range (before 5.9): the C library's walk of /proc/self/fd.
 */
PKS_EXPORT void closefrom(int lo)
{
	static struct pks_next next;
	void (*fn)(int);
	int saved = errno, from = lo < 0 ? 0 : lo;

	before(from, INT_MAX);
	if (kept_apart(SYS_close_range, from, ~0u, 0) && errno == ENOSYS &&
	    (fn = (void (*)(int))pks_next("closefrom", &next)) != NULL)
		fn(from);
	errno = saved;
	closed(0, from, INT_MAX);
}

static struct pks_next next_fclose, next_freopen, next_freopen64;

/**
 * pks_fds_setup() - at start: the C library's fclose, freopen and
 * freopen64; a descriptor 2 closed before the program began is as one it
 * closed (printk-shim(7) DIAGNOSTICS): what it opens next takes the number.
 */
void pks_fds_setup(void)
{
	int saved = errno;

	pks_next("fclose", &next_fclose);
	pks_next("freopen", &next_freopen);
	pks_next("freopen64", &next_freopen64);
	if (fcntl(2, F_GETFD) < 0 && errno == EBADF)
		stderr_is(0, 2, 2, true);
	errno = saved;
}

/* before() of @f's descriptor, if it has one. Return: that descriptor, or -1. */
static int before_stream(FILE *f)
{
	int saved = errno, fd = f ? fileno_unlocked(f) : -1;

	errno = saved;
	if (fd >= 0)
		before(fd, fd);
	return fd;
}

typedef int close_fn(FILE *);
typedef FILE *reopen_fn(const char *, const char *, FILE *);

/* The C library's freopen or freopen64, from @cache, for @f. */
static FILE *reopen(struct pks_next *cache, const char *name, const char *path,
		    const char *mode, FILE *f)
{
	reopen_fn *fn = (reopen_fn *)pks_next(name, cache);
	FILE *r;
	int saved;

	if (unlikely(!fn)) {	/* a call from inside the lookup (base/next.c) */
		errno = ENOSYS;
		return NULL;
	}
	before_stream(f);
	pks_fd_changed();	/* as kept_apart() */
	r = fn(path, mode, f);
	saved = errno;
	if (r && own())
		pks_fd_changed();
	if (r && fileno_unlocked(r) == 2 && own())
		stderr_is(0, 2, 2, false);	/* freopen(..., stderr): a new stderr */
	errno = saved;
	return r;
}

PKS_EXPORT int fclose(FILE *f)
{
	close_fn *fn = (close_fn *)pks_next("fclose", &next_fclose);
	int fd, ret, saved;

	if (unlikely(!fn)) {	/* a call from inside the lookup (base/next.c) */
		errno = ENOSYS;
		return EOF;
	}
	fd = before_stream(f);
	pks_fd_changed();	/* as kept_apart() */
	ret = fn(f);
	/* the descriptor is closed whatever the flush did (fclose(3)) */
	if (fd >= 0) {
		saved = errno;
		closed(0, fd, fd);
		errno = saved;
	}
	return ret;
}

PKS_EXPORT FILE *freopen(const char *path, const char *mode, FILE *f)
{
	return reopen(&next_freopen, "freopen", path, mode, f);
}

PKS_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *f)
{
	return reopen(&next_freopen64, "freopen64", path, mode, f);
}
