/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/random.h>: random(3), seeded by the harness. */
#ifndef _LINUX_RANDOM_H
#define _LINUX_RANDOM_H

#include <stdint.h>
#include <stdlib.h>
#include <stddef.h>

static inline uint32_t get_random_u32(void)
{
	return (uint32_t)random() << 16 ^ (uint32_t)random();
}

static inline uint32_t prandom_u32_max(uint32_t ceil)
{
	return (uint32_t)(((uint64_t)get_random_u32() * ceil) >> 32);
}

static inline void get_random_bytes(void *buf, size_t n)
{
	unsigned char *p = (unsigned char *)buf;

	while (n--)
		*p++ = (unsigned char)random();
}

#endif
