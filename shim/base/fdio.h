/* SPDX-License-Identifier: MIT */
/*
 * Writing bytes to a descriptor the way every output and every message of
 * the shim needs it: all of them, or an errno.
 */
#ifndef PKS_BASE_FDIO_H
#define PKS_BASE_FDIO_H

#include "base/compiler.h"

#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

#define PKS_BATCH_FDS	8

/*
 * The deferred printer's batch (printk-shim(7) DEFERRED PRINTING): while a
 * thread's pks_fd_batch points at one, pks_fd_put() appends to the
 * descriptor's buffer there and pks_fd_batch_flush() writes each buffer at
 * once, telling @failed of the lines a failed write lost.
 */
struct pks_fd_batch {
	int n;				/* descriptors in use */
	int fd[PKS_BATCH_FDS];
	int tag[PKS_BATCH_FDS];		/* the first pks_fd_put()'s @tag for the descriptor */
	unsigned long puts[PKS_BATCH_FDS];	/* pks_fd_put() calls in buf[i] */
	size_t len[PKS_BATCH_FDS];
	char *buf[PKS_BATCH_FDS];	/* @cap bytes each */
	size_t cap;
	void (*failed)(int tag, unsigned long puts, int err);
};

extern PKS_TLS struct pks_fd_batch *pks_fd_batch;

int pks_fd_write_rest(int fd, const char *p, size_t n, ssize_t done);
int pks_fd_batch_add(struct pks_fd_batch *b, int fd, int tag, const char *p, size_t n);
void pks_fd_batch_flush(struct pks_fd_batch *b);
int pks_fd_above_stdio(int fd);
int pks_fd_dup3(int old, int new, int flags);

/**
 * pks_fd_write() - Return: 0 when all @n bytes were written, else the errno.
 * The first write(2) is made here, inline: it is all a line costs nearly
 * always; the rest (short writes, EINTR, EAGAIN) is pks_fd_write_rest()'s.
 */
static inline int pks_fd_write(int fd, const char *p, size_t n)
{
	ssize_t w;

	if (unlikely(!n))
		return 0;
	w = write(fd, p, n);
	return likely(w == (ssize_t)n) ? 0 : pks_fd_write_rest(fd, p, n, w);
}

/**
 * pks_fd_put() - a rendered line to @fd: into this thread's batch when it
 * has one, else written now; @tag names the line's destination to the
 * batch's failed(). Return: 0 when written or batched, else the errno.
 */
static inline int pks_fd_put(int fd, int tag, const char *p, size_t n)
{
	if (unlikely(pks_fd_batch))
		return pks_fd_batch_add(pks_fd_batch, fd, tag, p, n);
	return pks_fd_write(fd, p, n);
}

#endif
