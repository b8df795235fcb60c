// SPDX-License-Identifier: MIT
/*
 * A file: output's descriptor, kept ours. The program may close it (a
 * daemon closes every descriptor when it detaches) and get the number back
 * for a file of its own, which a line written there would corrupt. So:
 * - the descriptor sits high (config/open.c), where open() hands out no
 *   number while a lower one is free;
 * - a write that fails with EBADF, and a check of its identity (fstat:
 *   st_dev and st_ino as opened) on the first line of each thread and then
 *   on every CHECK_EVERY-th line of a thread, find it gone;
 * - a descriptor found not ours is forgotten, never written or closed, and
 *   the file is opened again by its path under the rules of the first open;
 *   when it cannot be, the output falls back to stderr for good, said once.
 * A check costs a system call, as much as the write: one before every line
 * would double the cost of a line. A program that takes the number on
 * purpose (dup2) or uses up every number below it gets up to
 * CHECK_EVERY - 1 lines of a thread before the next check, but close(),
 * dup2() and the like are interposed (ctx/fds.c) and tell pks_file_released()
 * at once: the checks remain for raw system calls.
 * The path is followed too, as tail -F follows a name: renamed away or
 * removed (log rotation), it is opened again, checked (stat) every
 * CHECK_EVERY-th line of the process and on the first line of each second.
 * The new file takes the old one's number (dup3), so that no thread ever
 * writes to a number that is free for a moment.
 * Thread-safety: lock-free and async-signal-safe but for the one warning.
 * A thread that finds the descriptor gone opens its own and publishes it;
 * one that lost the race closes its own, which nobody else has seen.
 */
#include "sink/file.h"
#include "base/compiler.h"
#include "base/clock.h"
#include "base/fdio.h"
#include "base/sigmask.h"
#include "config/open.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHECK_EVERY	64
#define IDS		4		/* identities of recent opens, a ring */
#define FALLEN		(1ull << 63)	/* lines go to stderr for good */
#define TRIES		4

struct fstate {
	_Atomic uint64_t cur;		/* open number << 32 | fd; 0: config's; or FALLEN */
	_Atomic unsigned int opens;	/* open numbers handed out */
	_Atomic uint64_t dev[IDS], ino[IDS];
	_Atomic unsigned int count;	/* lines of the process, for the path check */
	_Atomic long second;		/* CLOCK_MONOTONIC_COARSE second of its last run */
	_Atomic uint64_t stuck;		/* FALLEN | the state whose path could not be followed, said */
	_Atomic uint64_t follower;	/* second << 32 | thread following the path (lead()); 0 */
};

static struct fstate files[PKS_OUTPUTS_MAX];
static PKS_TLS unsigned int lines[PKS_OUTPUTS_MAX];	/* this thread's, for CHECK_EVERY */

static int fd_of(const struct pks_config *c, int i, uint64_t s)
{
	return s ? (int)(uint32_t)s : c->out[i].fd;
}

/* Whether @st is the file that state @s opened. */
static bool same(const struct pks_config *c, int i, uint64_t s, const struct stat *st)
{
	const struct fstate *f = &files[i];
	unsigned int n = (unsigned int)(s >> 32) % IDS;

	if (!s)
		return st->st_dev == c->out_id[i].dev && st->st_ino == c->out_id[i].ino;
	/* pairs with publish()'s stores, through cur's compare-exchange and acquire */
	return (uint64_t)st->st_dev == atomic_load(&f->dev[n]) &&
	       (uint64_t)st->st_ino == atomic_load(&f->ino[n]);
}

static bool still_ours(const struct pks_config *c, int i, uint64_t s, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return errno != EBADF;	/* can't tell: keep it */
	return same(c, i, s, &st);
}

static const char *path_of(const struct pks_config *c, int i)
{
	return c->set.outputs[c->out[i].spec].path;
}

/* Publish @id as open number @n's. Return: the state that names @fd with it. */
static uint64_t publish(struct fstate *f, unsigned int n, const struct pks_fileid *id, int fd)
{
	/* pairs with same()'s loads, through the compare-exchange of cur after it */
	atomic_store(&f->dev[n % IDS], (uint64_t)id->dev);
	atomic_store(&f->ino[n % IDS], (uint64_t)id->ino);
	return (uint64_t)n << 32 | (uint32_t)fd;
}

/* The number of output @f's next open (its state's top half). */
static unsigned int numbered(struct fstate *f)
{
	/* no pair: a number for each open, no data behind it */
	return (atomic_fetch_add(&f->opens, 1) + 1) & 0x7fffffff;
}

/* Whether output @i, in state @s, is a file: output that writes to @fd. */
static bool on(const struct pks_config *c, int i, uint64_t s, int fd)
{
	return c->out[i].kind == PKS_OUT_FILE && !(s & FALLEN) && fd_of(c, i, s) == fd;
}

/*
 * The descriptor at @seen is not ours any more: open the file again and
 * publish it, or fall back. Return: the state now.
 */
static uint64_t reopen(const struct pks_config *c, int i, uint64_t seen)
{
	struct fstate *f = &files[i];
	const char *path = path_of(c, i);
	unsigned int n = numbered(f);
	struct pks_fileid id;
	int fd = pks_open_file(path, &id, NULL);
	uint64_t next = (uint64_t)n << 32 | (uint32_t)fd;

	if (fd < 0) {
		/* pairs with the acquire loads of cur in the writers below */
		if (!atomic_compare_exchange_strong(&f->cur, &seen, FALLEN))
			return seen;
		/* Ours to say why: opening it once more says it the same way. */
		fd = pks_open_file(path, &id, "the program took its descriptor and it cannot be reopened; using stderr");
		if (fd < 0)
			return FALLEN;
		seen = FALLEN;
	}
	next = publish(f, n, &id, fd);
	/* pairs with the acquire loads of cur below: the identity is published first */
	if (atomic_compare_exchange_strong(&f->cur, &seen, next))
		return next;
	close(fd);
	return seen;
}

/*
 * Whether another thread holds output @f's path (lead()): it is putting a
 * new file on the number, or moving off it, and the state may not say so
 * yet.
 */
static bool busy(struct fstate *f)
{
	/* no pair: a hint; the holder publishes what it did by cur */
	uint64_t o = atomic_load_explicit(&f->follower, memory_order_relaxed);

	return o && (uint32_t)o != (uint32_t)gettid();
}

/*
 * Check the descriptor of state @s; open the file again if it is gone,
 * unless another thread is changing it (busy()): the next check looks
 * again. Return: the state now.
 */
static uint64_t check(const struct pks_config *c, int i, uint64_t s)
{
	for (int t = 0; t < TRIES && !(s & FALLEN); t++) {
		if (still_ours(c, i, s, fd_of(c, i, s)) || busy(&files[i]))
			break;
		s = reopen(c, i, s);
	}
	return s;
}

/*
 * Open the path of output @i again onto the descriptor of state @s, still
 * ours: the descriptor keeps its number and the lines go to the file the
 * path names now. When the path cannot be opened, lines go on to the old
 * file, and @err (if not NULL) says why, as does a warning ending @instead
 * (if not NULL). Return: the state now.
 */
static uint64_t swap(const struct pks_config *c, int i, uint64_t s, int *err,
		     const char *instead)
{
	struct fstate *f = &files[i];
	int fd = fd_of(c, i, s), nfd, r;
	struct pks_fileid id;
	unsigned int n;
	uint64_t next;

	if (!still_ours(c, i, s, fd))
		return check(c, i, s);
	nfd = pks_open_file(path_of(c, i), &id, instead);
	if (nfd < 0) {
		if (err)
			*err = errno ? errno : EIO;
		return s;
	}
	n = numbered(f);
	next = publish(f, n, &id, fd);
	r = pks_fd_dup3(nfd, fd, O_CLOEXEC);
	if (r < 0 && errno == EBADF) {
		/*
		 * @fd is past a limit the program lowered (RLIMIT_NOFILE): the new
		 * file keeps its own number, and the old descriptor stays open,
		 * as a thread may still write there; past the limit, no open()
		 * or dup2() can hand its number to the program.
		 */
		next = publish(f, n, &id, nfd);
		/* pairs with the acquire loads of cur below, as reopen()'s */
		if (atomic_compare_exchange_strong(&f->cur, &s, next))
			return next;
	} else if (r < 0) {
		if (err)
			*err = errno;
		next = s;
	} else {
		/* pairs with the acquire loads of cur below, as reopen()'s */
		atomic_compare_exchange_strong(&f->cur, &s, next);
	}
	close(nfd);
	return atomic_load(&f->cur);	/* pairs with the compare-exchanges of cur */
}

/*
 * Whether the path check is due: on every CHECK_EVERY-th line of the
 * process, and on the first line of each second.
 */
static bool due(struct fstate *f)
{
	long now, was;

	/* no pair: a count and a second that only elect who checks, no data behind them */
	if (atomic_fetch_add_explicit(&f->count, 1, memory_order_relaxed) % CHECK_EVERY ==
	    CHECK_EVERY - 1)
		return true;
	now = pks_coarse_s();
	/* no pair: as count, above */
	was = atomic_load_explicit(&f->second, memory_order_relaxed);
	return was != now &&
	       atomic_compare_exchange_strong_explicit(&f->second, &was, now,
						       memory_order_relaxed, memory_order_relaxed);
}

/* Whether the path of output @i no longer names the file of state @s: renamed or removed. */
static bool moved(const struct pks_config *c, int i, uint64_t s)
{
	struct stat st;

	if (s & FALLEN)
		return false;
	return stat(path_of(c, i), &st) ? errno == ENOENT : !same(c, i, s, &st);
}

/* The state of file: output @i. */
static uint64_t state_of(int i)
{
	/* acquire: pairs with the compare-exchanges of cur in reopen() and swap() */
	return atomic_load_explicit(&files[i].cur, memory_order_acquire);
}

#define LEAD_MAX	2	/* seconds a follower may hold the path: past it, a fork child's copy */

/*
 * Whether this thread may follow output @f's path now, or move it off a
 * number: one thread at a time, so that a file opened before another
 * thread's swap or move is never put on the number after it. The word
 * holds the holder and the second it began: one held LEAD_MAX seconds is
 * taken over, a fork child's copy of another thread's (no jump leaves it
 * held: hold() blocks the signals).
 */
static bool lead(struct fstate *f)
{
	long now = pks_coarse_s();
	uint64_t o = 0, me = (uint64_t)now << 32 | (uint32_t)gettid();

	/* acquire: pairs with let_go()'s release, the last holder's swap before it */
	if (atomic_compare_exchange_strong_explicit(&f->follower, &o, me, memory_order_acquire,
						    memory_order_relaxed))
		return true;
	/* acquire: pairs with let_go()'s release, as above */
	return now - (long)(o >> 32) >= LEAD_MAX &&
	       atomic_compare_exchange_strong_explicit(&f->follower, &o, me, memory_order_acquire,
						       memory_order_relaxed);
}

static PKS_TLS bool releasing;	/* our own close() meanwhile is not the program's */
/*
 * The outputs this thread moved off a number the program takes (move()),
 * a bit each: its own to open again once the call is done. Not shared: the
 * module's own close() of a descriptor in another thread meanwhile reaches
 * pks_file_released() too, and would open the path onto the old number.
 */
static PKS_TLS uint32_t took;
_Static_assert(PKS_OUTPUTS_MAX <= 32, "took holds a bit for each output");

/* What hold() changed, for let_go() to put back. */
struct held {
	sigset_t mask;
	int cancel;
	bool releasing;
};

/*
 * lead() of output @f's path, with signals blocked and cancellation off
 * until let_go(), so that no handler's jump or cancellation leaves it held,
 * and the module's own close() calls meanwhile not taken for the program's
 * (releasing); @wait: for another thread that has it, LEAD_MAX at most
 * (lead()), else give up at once. Return: whether this thread has it.
 */
static bool hold(struct fstate *f, struct held *h, bool wait)
{
	pks_block_all(&h->mask);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &h->cancel);
	while (!lead(f)) {
		if (!wait) {
			pthread_setcancelstate(h->cancel, NULL);
			pthread_sigmask(SIG_SETMASK, &h->mask, NULL);
			return false;
		}
		nanosleep(&(struct timespec){ 0, 20000 }, NULL);	/* a follower's open and dup3 */
	}
	h->releasing = releasing;
	releasing = true;
	return true;
}

/* The lead hold() took, given back. */
static void let_go(struct fstate *f, const struct held *h)
{
	/* release: pairs with lead()'s acquire, the next holder's */
	atomic_store_explicit(&f->follower, 0, memory_order_release);
	releasing = h->releasing;
	pthread_setcancelstate(h->cancel, NULL);
	pthread_sigmask(SIG_SETMASK, &h->mask, NULL);
}

/*
 * The path of output @i no longer names the file of state @s (a
 * rotation): open it again. Not an error, and said nowhere; a path that
 * cannot be opened is said once for the file it stopped naming, though
 * each due check tries it again. A thread that finds another one
 * following it, or the program taking its number (pks_file_taking()),
 * writes to the number as it is. Return: the state now.
 */
static uint64_t follow(const struct pks_config *c, int i, uint64_t s)
{
	struct fstate *f = &files[i];
	const char *say = NULL;
	struct held h;

	if (!moved(c, i, s) || !hold(f, &h, false))
		return s;
	s = state_of(i);	/* the last follower's, who may have followed it already */
	if (moved(c, i, s)) {
		/* no pair: elects the one who says it, no data behind it */
		if (atomic_exchange_explicit(&f->stuck, s | FALLEN, memory_order_relaxed) != (s | FALLEN))
			say = "lines go on to the file it named before";
		s = swap(c, i, s, NULL, say);
	}
	let_go(f, &h);
	return s;
}

/**
 * pks_file_moved() - whether the path of a file: output whose check is due
 * (every CHECK_EVERY-th line of the process, the first of each second)
 * names another file now: the deferred ring's caller asks, as the caller of
 * a synchronous write follows it (pks_file_fd()), so that a line goes to
 * the file its path named when printk was called
 */
bool pks_file_moved(const struct pks_config *c)
{
	for (int i = 0; i < c->nout; i++)
		if (c->out[i].kind == PKS_OUT_FILE && due(&files[i]) && moved(c, i, state_of(i)))
			return true;
	return false;
}

/** pks_file_follow() - each file: output whose path names another file now opens it */
void pks_file_follow(const struct pks_config *c)
{
	for (int i = 0; i < c->nout; i++)
		if (c->out[i].kind == PKS_OUT_FILE)
			follow(c, i, state_of(i));
}


/*
 * Output @i's descriptor @fd (state @s), which the program is about to take:
 * a copy of it at a number of the module's (pks_fd_high()), the same open
 * file, is the output's until the program's call is done (retake()), so
 * that no line begun meanwhile goes to the number once it is the
 * program's. Return: whether it moved.
 */
static bool move(int i, uint64_t s, int fd)
{
	struct fstate *f = &files[i];
	int nfd = pks_fd_high(fcntl(fd, F_DUPFD_CLOEXEC, 3));
	struct stat st;
	unsigned int n;

	if (nfd >= 0 && !fstat(nfd, &st)) {
		n = numbered(f);
		/* pairs with the acquire loads of cur, as reopen()'s: the identity first */
		if (atomic_compare_exchange_strong(&f->cur, &s,
						   publish(f, n, &(struct pks_fileid){ st.st_dev, st.st_ino },
							   nfd))) {
			took |= 1u << i;
			return true;
		}
	}
	if (nfd >= 0)
		close(nfd);
	return false;
}

/*
 * Output @i, moved off the number the program took (move()): its path
 * opened again, as after any take, onto the number it moved to, which it
 * keeps (swap()); or, when the path cannot be opened, the warning and
 * stderr (reopen()).
 */
static void retake(const struct pks_config *c, int i, uint64_t s)
{
	struct held h;
	int err = 0;

	hold(&files[i], &h, true);	/* as a follower's: one swap at a time */
	s = swap(c, i, state_of(i), &err, NULL);
	let_go(&files[i], &h);
	if (err)
		reopen(c, i, s);
}

/** pks_file_on() - whether a file: output's lines go to descriptor @fd now */
bool pks_file_on(int fd)
{
	const struct pks_config *c;

	if (!pks_config_ready())
		return false;
	c = pks_config();
	for (int i = 0; i < c->nout; i++) {
		if (on(c, i, state_of(i), fd))
			return true;
	}
	return false;
}

/**
 * pks_file_taking() - the program is about to put a file of its own on
 * descriptor @fd, or to close it (ctx/fds.c): a file: output there moves to
 * another number first, where the lines begun meanwhile go, and opens its
 * path again once the call is done (pks_file_released()).
 * Return: whether one moved.
 */
bool pks_file_taking(int fd)
{
	const struct pks_config *c;
	bool moved = false;

	if (!pks_config_ready() || releasing)
		return false;
	c = pks_config();
	releasing = true;
	for (int i = 0; i < c->nout; i++) {
		uint64_t s = state_of(i);
		struct held h;

		if (!on(c, i, s, fd))
			continue;
		/*
		 * The path held meanwhile: a follower that found the number
		 * still ours before the move would put the new file on it
		 * after the program's call, over the program's own.
		 */
		hold(&files[i], &h, true);
		/* a state that changed meanwhile (a rotation's swap) is looked at again */
		for (int t = 0; t < TRIES && on(c, i, (s = state_of(i)), fd); t++) {
			if (move(i, s, fd)) {
				moved = true;
				break;
			}
		}
		let_go(&files[i], &h);
	}
	releasing = false;
	return moved;
}

/**
 * pks_file_released() - the program closed descriptors @lo to @hi, or put
 * a file of its own on them (ctx/fds.c): a file: output's descriptor among
 * them is not ours any more, and its path is opened again now, before any
 * line could be written to the number
 */
void pks_file_released(int lo, int hi)
{
	const struct pks_config *c;

	if (!pks_config_ready() || releasing)
		return;
	c = pks_config();
	releasing = true;
	for (int i = 0; i < c->nout; i++) {
		/* acquire: pairs with the seq_cst compare-exchanges of cur in reopen() and swap() */
		uint64_t s = atomic_load_explicit(&files[i].cur, memory_order_acquire);
		int fd = fd_of(c, i, s);

		if (c->out[i].kind != PKS_OUT_FILE || (s & FALLEN))
			continue;
		if (took & 1u << i) {
			took &= ~(1u << i);
			retake(c, i, s);
		}
		else if (fd >= lo && fd <= hi)
			reopen(c, i, s);
	}
	releasing = false;
}

/**
 * pks_file_fd() - the descriptor to write file: output @i's next line to;
 * its path followed unless @ring (the deferred printer's: the callers
 * follow it, pks_file_moved()). A vfork child (@borrowed) opens nothing:
 * the file it opened would be in its own descriptors, and its parent's
 * memory, which it shares, would say that file is open in the parent's
 * (printk-shim(7) OUTPUTS AND FORMATS); it writes to the file as the parent left it.
 * Return: a descriptor of ours, or -1: the output fell back to stderr.
 */
int pks_file_fd(const struct pks_config *c, int i, bool ring, bool borrowed)
{
	struct fstate *f = &files[i];
	uint64_t s = state_of(i);

	if (likely(!borrowed)) {
		if (unlikely(lines[i]++ % CHECK_EVERY == 0))
			s = check(c, i, s);
		if (!ring && unlikely(due(f)))
			s = follow(c, i, s);
	}
	return s & FALLEN ? -1 : fd_of(c, i, s);
}

/**
 * pks_file_gone() - a write to @fd failed with EBADF: it was closed under us
 * Return: the descriptor to write the line to instead, or -1: stderr.
 */
int pks_file_gone(const struct pks_config *c, int i, int fd)
{
	/* acquire: pairs with the compare-exchanges of cur in reopen() and swap() */
	uint64_t s = atomic_load_explicit(&files[i].cur, memory_order_acquire);

	if (!(s & FALLEN) && fd_of(c, i, s) == fd)
		s = check(c, i, s);
	return s & FALLEN ? -1 : fd_of(c, i, s);
}

/**
 * pks_file_reopen() - file: output @i opened again by its path, whether or
 * not it names another file now (log rotation: printk-shim(1) --reopen).
 * The new file takes the old descriptor's number (swap()), so a thread
 * writing at that moment writes its line whole to the one or the other.
 * Return: 0, or an errno: the output keeps the file it had.
 */
int pks_file_reopen(const struct pks_config *c, int i)
{
	/* acquire: pairs with the compare-exchanges of cur in reopen() and swap() */
	uint64_t s = check(c, i, atomic_load_explicit(&files[i].cur, memory_order_acquire));
	int err = 0;

	if (s & FALLEN)
		return EBADF;
	swap(c, i, s, &err, NULL);
	if (err)	/* said where --reopen is applied: the next follow() says it no more */
		/* no pair: as follow()'s exchange */
		atomic_store_explicit(&files[i].stuck, s | FALLEN, memory_order_relaxed);
	return err;
}
