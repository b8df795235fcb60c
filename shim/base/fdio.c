// SPDX-License-Identifier: MIT
/*
 * Writing one rendered line to a descriptor (stderr, fd:N, file:PATH) with
 * one write(2): a short write is finished, EINTR is retried, and EAGAIN on
 * a non-blocking descriptor waits for room rather than dropping the line,
 * a file at RLIMIT_FSIZE fails with EFBIG rather than killing with
 * SIGXFSZ, and a line a full file system cut short is ended before the
 * next. What a failure means is the caller's business.
 * Thread-safety: async-signal-safe.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/fdio.h"
#include "base/fdturn.h"
#include "base/clock.h"
#include "base/digits.h"
#include "base/sigmask.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

PKS_TLS bool pks_fd_cut;

/* A cancellation in a write or a wait for room: noted for the thread's cleanup handlers' calls. */
static void cut_off(void *unused)
{
	(void)unused;
	pks_fd_cut = true;
}

/**
 * pks_fd_write_wait() - write(2) to a descriptor that may make it wait (a
 * pipe, a socket, a terminal), a cancellation point, as a thread blocked
 * there must end when cancelled: one cancelled there is noted (pks_fd_cut),
 * so that the calls of its cleanup handlers take back what the cut call
 * left (ctx/ctx.c). Return: as write(2).
 */
ssize_t pks_fd_write_wait(int fd, const char *p, size_t n)
{
	ssize_t w;

	pthread_cleanup_push(cut_off, NULL);
	w = write(fd, p, n);
	pthread_cleanup_pop(0);
	return w;
}

/* poll(2) for room in @fd, as pks_fd_write_wait() writes. Return: as poll(2). */
static int wait_room(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int r;

	pthread_cleanup_push(cut_off, NULL);
	r = poll(&pfd, 1, -1);
	pthread_cleanup_pop(0);
	return r;
}

/**
 * pks_fd_write_rest() - the rest of pks_fd_write(), after a first write(2)
 * that returned @done (-1 with errno set, or fewer than @n bytes), of
 * whole lines: one a failure cuts short is a stump (pks_fd_stump())
 * @out: when not NULL, the bytes written in all, the failure's too
 * Return: 0 when all @n bytes were written, else the errno.
 */
int pks_fd_write_rest(int fd, const char *p, size_t n, ssize_t done, size_t *out)
{
	size_t sum = 0;
	int err = 0;

	for (ssize_t w = done;; w = pks_fd_write1(fd, p + sum, n - sum)) {
		if (w >= 0) {
			sum += (size_t)w;
			if (sum == n)
				break;
			continue;
		}
		if (errno == EINTR)
			continue;
		if ((errno == EAGAIN || errno == EWOULDBLOCK) && (wait_room(fd) >= 0 || errno == EINTR))
			continue;
		err = errno;
		break;
	}
	if (err)
		pks_fd_stump(fd, p, sum);
	if (out)
		*out = sum;
	return err;
}

_Atomic uint64_t pks_fd_cap;
_Atomic uint32_t pks_fd_kind[PKS_FD_KINDS];
_Atomic uint32_t pks_fd_gen = 2;

/*
 * The write(2) the module's calls reach is the C library's own: nobody
 * stands in for it (a sanitizer's runtime, a fault injector, the program),
 * so that a quick write may be the bare system call, which is what the
 * library's does, less its cancellation point.
 */
static bool bare;

/*
 * Whether the write(2) the module's calls reach (the address its GOT holds:
 * no dlsym() at start, which a program may stand in for too) is in the C
 * library's own object.
 */
static bool own_write(void)
{
	Dl_info f;
	const char *base;

	if (!dladdr((void *)&write, &f) || !f.dli_fname)
		return false;
	base = strrchr(f.dli_fname, '/');
	return !strncmp(base ? base + 1 : f.dli_fname, "libc.so.", 8);
}

/**
 * pks_fd_setup() - before main: whether quick writes may be bare; the
 * kinds named, raced on purpose, to Helgrind
 */
void pks_fd_setup(void)
{
	bare = own_write();
	PKS_HB_BENIGN(&pks_fd_kind);
	PKS_HB_BENIGN(&pks_fd_gen);
}

/* Whether writes to @fd, which is @st, never wait long: a file, a device that is no terminal. */
static bool quick(int fd, const struct stat *st)
{
	return S_ISREG(st->st_mode) || S_ISBLK(st->st_mode) || (S_ISCHR(st->st_mode) && !isatty(fd));
}

/**
 * pks_fd_look() - the kind of @fd (< PKS_FD_KINDS) now, kept for the
 * writes until the next change. errno is kept.
 * Return: what pks_fd_kind[@fd] holds now.
 */
uint32_t pks_fd_look(int fd)
{
	int saved = errno;
	/* no pair: read before the look, so that a change after it looks again */
	uint32_t k = atomic_load_explicit(&pks_fd_gen, memory_order_relaxed);
	struct stat st;

	if (!fstat(fd, &st) && quick(fd, &st))
		k |= 1;
	/* no pair: a hint, as pks_fd_write1()'s load */
	atomic_store_explicit(&pks_fd_kind[fd], k, memory_order_relaxed);
	errno = saved;
	return k;
}

/**
 * pks_fd_write_quick() - write(2) to a descriptor whose writes never wait
 * long (pks_fd_look()), with no cancellation point: the C library's write
 * acts on a request that came while the kernel wrote once it has written,
 * and the line, cut in its write, would be written again (ctx/ctx.c). The
 * bare system call when nobody stands in for write(2); else that one, with
 * cancellation off around it. The caller makes a cancellation point of its
 * own where nothing is cut.
 * Return: as write(2).
 */
ssize_t pks_fd_write_quick(int fd, const char *p, size_t n)
{
	ssize_t w;
	int was;

	if (likely(bare))
		return syscall(SYS_write, fd, p, n);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &was);
	w = write(fd, p, n);
	pthread_setcancelstate(was, NULL);	/* errno stays the write's */
	return w;
}

/** pks_fd_changed() - a descriptor may be another file now: every kind is looked at again */
void pks_fd_changed(void)
{
	/* no pair: a count, as pks_fd_write1()'s load; where it wraps to 0,
	 * a descriptor never looked at is taken as not quick, which is safe */
	atomic_fetch_add_explicit(&pks_fd_gen, 2, memory_order_relaxed);
}

/* RLIMIT_FSIZE's soft limit now; RLIM_INFINITY when it cannot be read. */
static rlim_t limit(void)
{
	struct rlimit r;

	return getrlimit(RLIMIT_FSIZE, &r) ? RLIM_INFINITY : r.rlim_cur;
}

/**
 * pks_fd_look_cap() - RLIMIT_FSIZE now: at start, and as a file output is
 * opened again (a limit the program sets later is seen then)
 */
void pks_fd_look_cap(void)
{
	int saved = errno;
	rlim_t l = limit();

	/* no pair: as pks_fd_write1()'s load; a limit of 0 is kept as 1, 0 meaning none */
	atomic_store_explicit(&pks_fd_cap, l == RLIM_INFINITY ? 0 : (uint64_t)l + !l,
			      memory_order_relaxed);
	errno = saved;
}

/**
 * pks_fd_fits() - whether a file may grow to @size bytes under RLIMIT_FSIZE:
 * past it, ftruncate(2) and posix_fallocate(3) raise SIGXFSZ, which kills.
 * Return: true, or false with errno EFBIG.
 */
bool pks_fd_fits(off_t size)
{
	rlim_t l = limit();

	if (l == RLIM_INFINITY || (rlim_t)size <= l)
		return true;
	errno = EFBIG;
	return false;
}

/* Where a write to regular file @fd, which is @st, lands: its end with O_APPEND, else its offset. */
static uint64_t landing(int fd, const struct stat *st)
{
	int fl = fcntl(fd, F_GETFL);
	off_t at = fl >= 0 && !(fl & O_APPEND) ? lseek(fd, 0, SEEK_CUR) : -1;

	return at >= 0 ? (uint64_t)at : (uint64_t)st->st_size;
}

/**
 * pks_fd_write_held() - pks_fd_write1() under a file-size limit: a line
 * that would pass it is not begun (a file ends with whole lines: of a batch,
 * those that fit are written), and the
 * write is made with SIGXFSZ held, in case another writer got there first;
 * the signal the kernel then sends this thread is taken back, unless the
 * thread held SIGXFSZ itself already. Return: as write(2), EFBIG.
 */
ssize_t pks_fd_write_held(int fd, const char *p, size_t n)
{
	static const struct timespec now;
	/* no pair: as pks_fd_write1()'s load */
	uint64_t cap = atomic_load_explicit(&pks_fd_cap, memory_order_relaxed);
	sigset_t xfsz, old;
	struct stat st = { 0 };
	const char *nl;
	uint64_t room, at = 0;
	ssize_t w;
	int err;

	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (at = landing(fd, &st)) + n > cap) {
		pks_fd_look_cap();	/* the program may have raised it since */
		/* no pair: as above */
		cap = atomic_load_explicit(&pks_fd_cap, memory_order_relaxed);
	}
	if (cap && S_ISREG(st.st_mode) && at + n > cap) {
		room = at < cap ? cap - at : 0;
		nl = room ? memrchr(p, '\n', room) : NULL;
		if (!nl) {
			errno = EFBIG;
			return -1;
		}
		n = (size_t)(nl - p) + 1;	/* a batch's lines that fit: a short write */
	}
	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &xfsz, &old);
	/* made as pks_fd_write1() makes it, the kind from the fstat() above */
	if (__libc_single_threaded)
		w = write(fd, p, n);
	else
		w = st.st_mode && quick(fd, &st) ? pks_fd_write_quick(fd, p, n) : pks_fd_write_wait(fd, p, n);
	err = errno;
	if (w < 0 && err == EFBIG && !sigismember(&old, SIGXFSZ))
		sigtimedwait(&xfsz, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return w;
}

#define HIGH_FD		1024	/* FD_SETSIZE: a table this big is small */
#define HIGH_SLOTS	16	/* the outputs' descriptors (8 at most), the sockets' reconnections */

/**
 * pks_fd_high() - move a descriptor the shim made as high as it goes below
 * min(RLIMIT_NOFILE, 1024): open(), socket() and dup() hand out the lowest
 * free number, so the program gets this one only by asking for it or by
 * using up every one below, and a daemon that closes "3 to 63" leaves it
 * alone. Where none is free up there, at least out of 0..2, where it would
 * receive the program's stdio.
 * Return: the descriptor, or -1.
 */
int pks_fd_high(int fd)
{
	struct rlimit rl;
	int top = HIGH_FD, hi;

	if (fd < 0)
		return fd;
	pks_fd_changed();
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)top)
		top = (int)rl.rlim_cur;
	for (int min = top - 1; min > fd && min >= top - HIGH_SLOTS; min--) {
		/* the lowest free from @min up: past @top when those up there are taken */
		if ((hi = fcntl(fd, F_DUPFD_CLOEXEC, min)) >= top) {
			close(hi);
		} else if (hi >= 0) {
			close(fd);
			return hi;
		}
	}
	if (fd > 2)
		return fd;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return hi;
}

/**
 * pks_fd_dup3() - dup3(2) as the kernel does it, not through the module's
 * own dup3() (ctx/fds.c), which would take the module's descriptor for
 * the program's
 * Return: @new, or -1 with errno.
 */
int pks_fd_dup3(int old, int new, int flags)
{
	int r = (int)syscall(SYS_dup3, old, new, flags), saved = errno;

	pks_fd_changed();
	errno = saved;
	return r;
}

/*
 * Stumps: the start of a line that a write cut short left in a regular file
 * (a full file system), without its newline. The next write of whole lines
 * to that file, through any descriptor, ends it first, so that the next
 * line is not joined to it (printk-shim(7) DIAGNOSTICS); a writer that finds
 * another one ending it waits for it. Slots are filled and ended with
 * signals blocked, so that no handler's jump leaves one HELD; one whose file
 * nobody wrote to for STUMP_IDLE seconds is let go.
 */
#define STUMPS		4	/* files with a stump at once; a fifth's joins its next line */
#define STUMP_IDLE	10	/* seconds */
#define STUMP_WAIT	2000	/* ms a writer waits for another that ends a stump, at most */

enum { FREE, HELD, SET };	/* struct stump's state */

struct stump {
	_Atomic int state;	/* FREE, HELD by one thread, or SET */
	dev_t dev;
	ino_t ino;
	_Atomic long seen;	/* CLOCK_MONOTONIC_COARSE second of the last write to its file */
};

static struct stump stumps[STUMPS];
_Atomic int pks_fd_stumps;

/* @s from @from to HELD. Return: whether this thread has it. */
static bool claim(struct stump *s, int from)
{
	/* acquire: pairs with put()'s release; the fields are whole */
	return atomic_compare_exchange_strong_explicit(&s->state, &from, HELD, memory_order_acquire,
						       memory_order_relaxed);
}

/* @s, HELD, to @to. */
static void put(struct stump *s, int to)
{
	if (to == FREE)		/* seq_cst: pairs with pks_fd_mend_first()'s load */
		atomic_fetch_sub(&pks_fd_stumps, 1);
	/* release: pairs with claim()'s acquire, the next holder's */
	atomic_store_explicit(&s->state, to, memory_order_release);
}

/**
 * pks_fd_stump() - a write of whole lines at @p to @fd failed after @done
 * bytes: if they end short of a newline in a regular file, its stump is noted
 */
void pks_fd_stump(int fd, const char *p, size_t done)
{
	struct stat st;
	sigset_t old;
	int saved = errno;

	/* a file with no name (a memfd, a log removed) has no reader to mislead */
	if (!done || p[done - 1] == '\n' || fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_nlink)
		return;
	pks_block_all(&old);	/* no jump leaves a slot HELD */
	for (struct stump *s = stumps; s < stumps + STUMPS; s++) {
		if (!claim(s, FREE))
			continue;
		/* seq_cst: pairs with pks_fd_mend_first()'s load: counted while not FREE */
		atomic_fetch_add(&pks_fd_stumps, 1);
		s->dev = st.st_dev;
		s->ino = st.st_ino;
		/* no pair: a second, read by the thread that holds the slot */
		atomic_store_explicit(&s->seen, pks_coarse_s(), memory_order_relaxed);
		put(s, SET);
		break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
}

/*
 * The last byte of @fd's file before @at, read through a descriptor of its
 * own (an output is opened for writing only). Return: it, or -1: it cannot
 * be read (no /proc, no permission to read the file).
 */
static int last_byte(int fd, uint64_t at)
{
	char path[32] = "/proc/self/fd/", c;
	int r;
	ssize_t n;

	*pks_put_udec(path + 14, (unsigned int)fd, 0, '0') = '\0';
	/* the system calls: neither the C library's cancellation points nor our close() */
	r = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (r < 0)
		return -1;
	n = syscall(SYS_pread64, r, &c, 1, (off_t)at - 1);
	syscall(SYS_close, r);
	return n == 1 ? (unsigned char)c : -1;
}

/*
 * @fd's file has a stump: a newline after it, unless the file ends in
 * one already (another writer's line joined the stump, or a copy of this
 * process ended it), or cannot be read, where a newline might make an
 * empty line. Return: whether the stump stays (the newline found no room
 * either).
 */
static bool finish(int fd)
{
	struct stat now;
	uint64_t at;
	int last;

	/* its size now: the look for this slot may have waited, or ended another */
	if (fstat(fd, &now))
		return false;
	at = landing(fd, &now);
	last = at ? last_byte(fd, at) : -1;

	if (last < 0 || last == '\n')
		return false;
	return pks_fd_write1(fd, "\n", 1) != 1;
}

/*
 * @s claimed from SET, waiting STUMP_WAIT ms at most while another thread
 * holds it (ends it, or notes it): a line written meanwhile would join the
 * stump before its newline, which would then make an empty line; a slow
 * file takes its while, and only a holder that is gone takes all of it.
 * Return: whether this thread has it.
 */
static bool take(struct stump *s)
{
	for (int i = 0; i < STUMP_WAIT * 10; i++) {
		/* no pair: a look before the claim, which orders the fields */
		int now = atomic_load_explicit(&s->state, memory_order_relaxed);

		if (now == FREE || (now == SET && claim(s, SET)))
			return now == SET;
		if (now == HELD)
			nanosleep(&(struct timespec){ 0, 100000 }, NULL);	/* its pread and write */
	}
	return false;
}

/* Each stump of @st's file ended (finish()); any other let go once idle @now. */
static void end(int fd, const struct stat *st, long now)
{
	bool stays;

	for (struct stump *s = stumps; s < stumps + STUMPS; s++) {
		if (!take(s))
			continue;
		if (st && s->dev == st->st_dev && s->ino == st->st_ino) {
			stays = finish(fd);
			/* no pair: as in pks_fd_stump() */
			atomic_store_explicit(&s->seen, now, memory_order_relaxed);
		} else {
			/* no pair: as in pks_fd_stump() */
			stays = now - atomic_load_explicit(&s->seen, memory_order_relaxed) < STUMP_IDLE;
		}
		put(s, stays ? SET : FREE);
	}
}

/**
 * pks_fd_mend() - before a write of whole lines to @fd: a stump in its file
 * ended (pks_fd_stump()). errno is kept.
 */
void pks_fd_mend(int fd)
{
	int saved = errno;
	struct stat st;
	bool file = !fstat(fd, &st) && S_ISREG(st.st_mode);
	sigset_t old;

	pks_block_all(&old);	/* as in pks_fd_stump() */
	end(fd, file ? &st : NULL, pks_coarse_s());
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
}

/**
 * pks_fd_forked() - in a fork child: a slot another thread of the parent
 * held is the child's to end, and only this thread's windows of fdturn.c
 * are open
 */
void pks_fd_forked(void)
{
	pks_fd_turns_forked();
	for (struct stump *s = stumps; s < stumps + STUMPS; s++) {
		int held = HELD;

		/* no pair: one thread */
		atomic_compare_exchange_strong(&s->state, &held, SET);
	}
}
