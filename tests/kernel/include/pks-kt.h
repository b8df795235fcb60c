/* SPDX-License-Identifier: MIT */
/*
 * Included before each kernel test file (-include), as the kernel's build
 * includes kconfig.h: IS_ENABLED() and the CONFIG_* options a test asks
 * about, as a userspace port has them, and what the kernel's headers give
 * every file that ours do not: the integer types, error pointers,
 * is_power_of_2, ktime_get, memory_read_from_buffer, the compiler's
 * attributes, PAGE_SIZE.
 */
#ifndef PKS_KT_H
#define PKS_KT_H

#include <stdbool.h>
#include <linux/types.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/ktime.h>

/* <linux/compiler.h>'s, as the kernel's build has them in every file. */
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define __diag_push()
#define __diag_pop()
#define __diag_ignore_all(option, comment)
#define __maybe_unused		__attribute__((unused))
#define __used			__attribute__((used))
#define EXPORT_SYMBOL(sym)	extern int pks_kt_exported_##sym

#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(__ignored, val, ...) val
#define __is_defined(x)			___is_defined(x)
#define ___is_defined(val)		____is_defined(__ARG_PLACEHOLDER_##val)
#define ____is_defined(arg1_or_junk)	__take_second_arg(arg1_or_junk 1, 0)
#define IS_ENABLED(option)		__is_defined(option)
#define IS_BUILTIN(option)		__is_defined(option)

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define CONFIG_CPU_BIG_ENDIAN 1

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

#endif
#define PAGE_SIZE 4096L
#define offset_in_page(p)	((unsigned long)(p) & (PAGE_SIZE - 1))
#define CONFIG_DYNAMIC_DEBUG 1
#define CONFIG_DYNAMIC_DEBUG_CORE 1


static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

#endif
