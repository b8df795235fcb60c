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
 * thread's pks_fd_batch points at one, pks_fd_write() appends to the
 * descriptor's buffer there and pks_fd_batch_flush() writes each buffer at
 * once.
 */
struct pks_fd_batch {
	int n;				/* descriptors in use */
	int fd[PKS_BATCH_FDS];
	size_t len[PKS_BATCH_FDS];
	char *buf[PKS_BATCH_FDS];	/* @cap bytes each */
	size_t cap;
	int err;			/* the first failure since the last flush, or 0 */
};

extern PKS_TLS struct pks_fd_batch *pks_fd_batch;

int pks_fd_write_rest(int fd, const char *p, size_t n, ssize_t done);
int pks_fd_batch_add(struct pks_fd_batch *b, int fd, const char *p, size_t n);
int pks_fd_batch_flush(struct pks_fd_batch *b);
int pks_fd_above_stdio(int fd);

/**
 * pks_fd_write() - Return: 0 when all @n bytes were written (or batched),
 * else the errno. The first write(2) is made here, inline: it is all a line
 * costs nearly always; the rest (short writes, EINTR, EAGAIN) is
 * pks_fd_write_rest()'s.
 */
static inline int pks_fd_write(int fd, const char *p, size_t n)
{
	ssize_t w;

	if (unlikely(pks_fd_batch))
		return pks_fd_batch_add(pks_fd_batch, fd, p, n);
	if (unlikely(!n))
		return 0;
	w = write(fd, p, n);
	return likely(w == (ssize_t)n) ? 0 : pks_fd_write_rest(fd, p, n, w);
}

#endif
