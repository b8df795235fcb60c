/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/string.h>: the C library's, and memchr_inv(). */
#ifndef _LINUX_STRING_H
#define _LINUX_STRING_H

#include <string.h>
#include <stddef.h>

/* The first byte of @n at @start that is not @c, or NULL. */
static inline void *memchr_inv(const void *start, int c, size_t n)
{
	const unsigned char *p = (const unsigned char *)start;

	for (; n; n--, p++)
		if (*p != (unsigned char)c)
			return (void *)p;
	return NULL;
}

#endif
