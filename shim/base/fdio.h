/* SPDX-License-Identifier: MIT */
/*
 * Writing bytes to a descriptor the way every output and every message of
 * the shim needs it: all of them, or an errno.
 */
#ifndef PKS_BASE_FDIO_H
#define PKS_BASE_FDIO_H

#include "base/compiler.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

/* RLIMIT_FSIZE at the last look (pks_fd_look_cap()), 0 when none: writes hold SIGXFSZ */
extern _Atomic uint64_t pks_fd_cap PKS_LOCAL;

int pks_fd_write_rest(int fd, const char *p, size_t n, ssize_t done, size_t *out);
ssize_t pks_fd_write_held(int fd, const char *p, size_t n);
void pks_fd_look_cap(void);
bool pks_fd_fits(off_t size);
int pks_fd_high(int fd);
int pks_fd_dup3(int old, int new, int flags);

/*
 * One write(2) of the shim's: where a file-size limit is set, a write to a
 * file at it must fail with EFBIG, not kill the program with SIGXFSZ.
 */
static inline ssize_t pks_fd_write1(int fd, const char *p, size_t n)
{
	/* no pair: a flag the constructor and a file's (re)open set */
	if (unlikely(atomic_load_explicit(&pks_fd_cap, memory_order_relaxed)))
		return pks_fd_write_held(fd, p, n);
	return write(fd, p, n);
}

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
	w = pks_fd_write1(fd, p, n);
	return likely(w == (ssize_t)n) ? 0 : pks_fd_write_rest(fd, p, n, w, NULL);
}

#endif
