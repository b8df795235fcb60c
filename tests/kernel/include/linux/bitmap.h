/* SPDX-License-Identifier: MIT */
/*
 * The kernel test harness's <linux/bitmap.h>: what test_printf's %*pb
 * cases and test_bitmap's printing tests use; the printing functions
 * themselves are lib/bitmap.c's, taken from the kernel's source by run.sh.
 */
#ifndef _LINUX_BITMAP_H
#define _LINUX_BITMAP_H

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <linux/gfp.h>
#include <linux/types.h>
#include <sys/types.h>

#define BITS_PER_LONG_PKS	(CHAR_BIT * sizeof(unsigned long))
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG_PKS - 1) / BITS_PER_LONG_PKS)
#define DECLARE_BITMAP(name, bits)	unsigned long name[BITS_TO_LONGS(bits)]

/* lib/bitmap.c's, which run.sh builds in with the test. */
int bitmap_print_to_pagebuf(bool list, char *buf, const unsigned long *maskp, int nmaskbits);
int bitmap_print_bitmask_to_buf(char *buf, const unsigned long *maskp, int nmaskbits,
				loff_t off, size_t count);
int bitmap_print_list_to_buf(char *buf, const unsigned long *maskp, int nmaskbits,
			     loff_t off, size_t count);

static inline void set_bit(unsigned int nr, unsigned long *addr)
{
	addr[nr / BITS_PER_LONG_PKS] |= 1UL << (nr % BITS_PER_LONG_PKS);
}

#if __LONG_WIDTH__ == 64
#define BITMAP_FROM_U64(n)	(n)
#else
#define BITMAP_FROM_U64(n)	((unsigned long)((u64)(n) & 0xffffffffUL)), \
				((unsigned long)((u64)(n) >> 32))
#endif

static inline bool test_bit(unsigned int nr, const unsigned long *addr)
{
	return addr[nr / BITS_PER_LONG_PKS] >> (nr % BITS_PER_LONG_PKS) & 1;
}

static inline bool bitmap_equal(const unsigned long *a, const unsigned long *b,
				unsigned int nbits)
{
	for (unsigned int i = 0; i < nbits; i++)
		if (test_bit(i, a) != test_bit(i, b))
			return false;
	return true;
}

static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

static inline void bitmap_set(unsigned long *map, unsigned int start, unsigned int n)
{
	while (n--)
		set_bit(start++, map);
}

/* Every bit up to @nbits set, the rest of the last word clear, as the kernel's. */
static inline void bitmap_fill(unsigned long *dst, unsigned int nbits)
{
	bitmap_zero(dst, nbits);
	bitmap_set(dst, 0, nbits);
}

static inline unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t flags)
{
	(void)flags;
	return (unsigned long *)calloc(BITS_TO_LONGS(nbits), sizeof(unsigned long));
}

static inline void bitmap_free(const unsigned long *bitmap)
{
	free((void *)bitmap);
}

#endif
