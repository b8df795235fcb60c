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
#include <sys/single_threaded.h>
#include <sys/types.h>
#include <unistd.h>

/* RLIMIT_FSIZE at the last look (pks_fd_look_cap()), 0 when none: writes hold SIGXFSZ */
extern _Atomic uint64_t pks_fd_cap PKS_LOCAL;

#define PKS_FD_KINDS	1024	/* descriptors whose kind is kept: pks_fd_high()'s range */

/*
 * Per descriptor, the generation | quick, as pks_fd_look() last found it
 * (0: never, or not quick): quick when a write to it never waits long (a
 * regular file, a device that is no terminal). The generation, even,
 * counts the changes of descriptors the shim sees (pks_fd_changed()).
 */
extern _Atomic uint32_t pks_fd_kind[PKS_FD_KINDS] PKS_LOCAL;
extern _Atomic uint32_t pks_fd_gen PKS_LOCAL;
/* stumps noted and not ended (pks_fd_stump()): writes of whole lines look */
extern _Atomic int pks_fd_stumps PKS_LOCAL;
/* this thread was cancelled in a write that may wait (pks_fd_write_wait()) */
extern PKS_TLS bool pks_fd_cut PKS_LOCAL;

int pks_fd_write_rest(int fd, const char *p, size_t n, ssize_t done, size_t *out);
ssize_t pks_fd_write_held(int fd, const char *p, size_t n);
ssize_t pks_fd_write_quick(int fd, const char *p, size_t n);
ssize_t pks_fd_write_wait(int fd, const char *p, size_t n);
void pks_fd_look_cap(void);
void pks_fd_setup(void);
uint32_t pks_fd_look(int fd);
void pks_fd_changed(void);
bool pks_fd_fits(off_t size);
int pks_fd_high(int fd);
int pks_fd_dup3(int old, int new, int flags);
void pks_fd_stump(int fd, const char *p, size_t done);
void pks_fd_mend(int fd);
void pks_fd_forked(void);

/*
 * One write(2) of the shim's: where a file-size limit is set, a write to a
 * file at it must fail with EFBIG, not kill the program with SIGXFSZ; one
 * that never waits long, of a process with threads, has no cancellation
 * point (pks_fd_write_quick()), and one that may wait notes a cancellation
 * there (pks_fd_write_wait()).
 */
static inline ssize_t pks_fd_write1(int fd, const char *p, size_t n)
{
	uint32_t k;

	/* no pair: a flag the constructor and a file's (re)open set */
	if (unlikely(atomic_load_explicit(&pks_fd_cap, memory_order_relaxed)))
		return pks_fd_write_held(fd, p, n);
	/* a process of one thread has nobody to cancel it */
	if (!__libc_single_threaded && likely((unsigned int)fd < PKS_FD_KINDS)) {
		/* no pair: a hint, each word alone; a look stores the generation it read first */
		k = atomic_load_explicit(&pks_fd_kind[fd], memory_order_relaxed);
		/* no pair: as above; a change the load misses is as one made after the write */
		if (unlikely((k & ~1u) != atomic_load_explicit(&pks_fd_gen, memory_order_relaxed)))
			k = pks_fd_look(fd);
		if (k & 1)
			return pks_fd_write_quick(fd, p, n);
		return pks_fd_write_wait(fd, p, n);
	}
	return write(fd, p, n);
}

/* Before a write of whole lines to @fd: a stump there ended first. One load while there is none. */
static inline void pks_fd_mend_first(int fd)
{
	/* relaxed: pairs with pks_fd_stump()'s count; a stump noted after the
	 * load is as one noted after this write */
	if (unlikely(atomic_load_explicit(&pks_fd_stumps, memory_order_relaxed)))
		pks_fd_mend(fd);
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
	pks_fd_mend_first(fd);
	w = pks_fd_write1(fd, p, n);
	return likely(w == (ssize_t)n) ? 0 : pks_fd_write_rest(fd, p, n, w, NULL);
}

#endif
