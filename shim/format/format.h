/* SPDX-License-Identifier: MIT */
/*
 * The kernel format engine: printf conversions as the C library prints them,
 * plus the kernel's %p extensions. Pure: no threads, no environment, no I/O.
 */
#ifndef PKS_FORMAT_H
#define PKS_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

/**
 * pks_vsnprintf() - format @fmt as the kernel's vsnprintf() would
 * Return: the length the whole output has (as vsnprintf()); at most @size - 1
 * bytes and a NUL are stored. Never allocates.
 */
int pks_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((visibility("hidden")));

/**
 * pks_format_fast() - pks_vsnprintf() for formats of the plain conversions
 * only (see fast.c), which most printk calls are
 * Return: as pks_vsnprintf(), or -2 when @fmt holds anything else (@ap was
 * read: the caller formats from its own copy).
 */
int pks_format_fast(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((visibility("hidden")));

/**
 * pks_format_count() - the length of @fmt's output, for the plain
 * conversions only (see fast.c); nothing is stored
 * @last: out; the output's last byte, '\0' when it is empty
 * Return: the length, or -2 when @fmt holds anything else (@ap was read).
 */
int pks_format_count(const char *fmt, va_list ap, char *last)
	__attribute__((visibility("hidden")));

#endif
