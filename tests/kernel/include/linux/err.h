/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/err.h>: error pointers, as the kernel's. */
#ifndef _LINUX_ERR_H
#define _LINUX_ERR_H

#include <stdbool.h>
#include <stdint.h>

#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return IS_ERR_VALUE((unsigned long)ptr);
}

#endif
