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

#endif
