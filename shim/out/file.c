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
 * CHECK_EVERY - 1 lines of a thread before the next check.
 * Thread-safety: lock-free and async-signal-safe but for the one warning.
 * A thread that finds the descriptor gone opens its own and publishes it;
 * one that lost the race closes its own, which nobody else has seen.
 */
#include "out/file.h"
#include "base/compiler.h"
#include "config/open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK_EVERY	64
#define IDS		4		/* identities of recent opens, a ring */
#define FALLEN		(1ull << 63)	/* lines go to stderr for good */
#define TRIES		4

struct fstate {
	_Atomic uint64_t cur;		/* open number << 32 | fd; 0: config's; or FALLEN */
	_Atomic unsigned int opens;	/* open numbers handed out */
	_Atomic uint64_t dev[IDS], ino[IDS];
};

static struct fstate files[PKS_OUTPUTS_MAX];
static PKS_TLS unsigned int lines[PKS_OUTPUTS_MAX];	/* this thread's, for CHECK_EVERY */

static int fd_of(const struct pks_config *c, int i, uint64_t s)
{
	return s ? (int)(uint32_t)s : c->out[i].fd;
}

static bool still_ours(const struct pks_config *c, int i, uint64_t s, int fd)
{
	const struct fstate *f = &files[i];
	unsigned int n = (unsigned int)(s >> 32) % IDS;
	struct stat st;

	if (fstat(fd, &st))
		return errno != EBADF;	/* can't tell: keep it */
	if (!s)
		return st.st_dev == c->out_id[i].dev && st.st_ino == c->out_id[i].ino;
	return (uint64_t)st.st_dev == atomic_load(&f->dev[n]) &&
	       (uint64_t)st.st_ino == atomic_load(&f->ino[n]);
}

/*
 * The descriptor at @seen is not ours any more: open the file again and
 * publish it, or fall back. Return: the state now.
 */
static uint64_t reopen(const struct pks_config *c, int i, uint64_t seen)
{
	struct fstate *f = &files[i];
	const char *path = c->set.outputs[c->out[i].spec].path;
	unsigned int n = (atomic_fetch_add(&f->opens, 1) + 1) & 0x7fffffff;
	struct pks_fileid id;
	int fd = pks_open_file(path, &id, NULL);
	uint64_t next = (uint64_t)n << 32 | (uint32_t)fd;

	if (fd < 0) {
		if (!atomic_compare_exchange_strong(&f->cur, &seen, FALLEN))
			return seen;
		/* Ours to say why: opening it once more says it the same way. */
		fd = pks_open_file(path, &id, "the program took its descriptor and it cannot be reopened; using stderr");
		if (fd < 0)
			return FALLEN;
		seen = FALLEN;
		next = (uint64_t)n << 32 | (uint32_t)fd;
	}
	atomic_store(&f->dev[n % IDS], (uint64_t)id.dev);
	atomic_store(&f->ino[n % IDS], (uint64_t)id.ino);
	if (atomic_compare_exchange_strong(&f->cur, &seen, next))
		return next;
	close(fd);
	return seen;
}

/* Check the descriptor of state @s; open the file again if it is gone. Return: the state now. */
static uint64_t check(const struct pks_config *c, int i, uint64_t s)
{
	for (int t = 0; t < TRIES && !(s & FALLEN); t++) {
		if (still_ours(c, i, s, fd_of(c, i, s)))
			break;
		s = reopen(c, i, s);
	}
	return s;
}

/**
 * pks_file_fd() - the descriptor to write file: output @i's next line to
 * Return: a descriptor of ours, or -1: the output fell back to stderr.
 */
int pks_file_fd(const struct pks_config *c, int i)
{
	struct fstate *f = &files[i];
	uint64_t s = atomic_load_explicit(&f->cur, memory_order_acquire);

	if (unlikely(lines[i]++ % CHECK_EVERY == 0))
		s = check(c, i, s);
	return s & FALLEN ? -1 : fd_of(c, i, s);
}

/**
 * pks_file_gone() - a write to @fd failed with EBADF: it was closed under us
 * Return: the descriptor to write the line to instead, or -1: stderr.
 */
int pks_file_gone(const struct pks_config *c, int i, int fd)
{
	uint64_t s = atomic_load_explicit(&files[i].cur, memory_order_acquire);

	if (!(s & FALLEN) && fd_of(c, i, s) == fd)
		s = check(c, i, s);
	return s & FALLEN ? -1 : fd_of(c, i, s);
}

/**
 * pks_file_reopen() - file: output @i opened again by its path (log
 * rotation: printk-shim(1) --reopen). The new file takes the old
 * descriptor's number (dup3), so a thread writing at that moment writes
 * its line whole to the one or the other, and no number is leaked.
 * Return: 0, or an errno: the output keeps the file it had.
 */
int pks_file_reopen(const struct pks_config *c, int i)
{
	struct fstate *f = &files[i];
	uint64_t s = check(c, i, atomic_load_explicit(&f->cur, memory_order_acquire));
	const char *path = c->set.outputs[c->out[i].spec].path;
	struct pks_fileid id;
	unsigned int n;
	int fd, old, err;

	if (s & FALLEN)
		return EBADF;
	old = fd_of(c, i, s);
	fd = pks_open_file(path, &id, NULL);
	if (fd < 0)
		return errno ? errno : EIO;
	n = (atomic_fetch_add(&f->opens, 1) + 1) & 0x7fffffff;
	atomic_store(&f->dev[n % IDS], (uint64_t)id.dev);
	atomic_store(&f->ino[n % IDS], (uint64_t)id.ino);
	err = dup3(fd, old, O_CLOEXEC) < 0 ? errno : 0;
	close(fd);
	if (!err)
		atomic_compare_exchange_strong(&f->cur, &s, (uint64_t)n << 32 | (uint32_t)old);
	return err;
}
