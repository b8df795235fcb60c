/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/types.h>: the kernel's integer names. */
#ifndef _LINUX_TYPES_H
#define _LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef int64_t time64_t;
typedef uint16_t __be16;
typedef uint32_t __be32;

#define BITS_PER_LONG	__LONG_WIDTH__
#define BITS_PER_BYTE	8

#endif
