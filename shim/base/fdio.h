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

int pks_fd_write_rest(int fd, const char *p, size_t n, ssize_t done, size_t *out);
int pks_fd_high(int fd);
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
	return likely(w == (ssize_t)n) ? 0 : pks_fd_write_rest(fd, p, n, w, NULL);
}

#endif
