/* SPDX-License-Identifier: MIT */
/*
 * A string from a file as a listing shows it: the kernel's printk index
 * escaping, for every string printk-shim --index and --dyndbg-list print.
 * Pure; escape.c.
 */
#ifndef PKS_CORE_ESCAPE_H
#define PKS_CORE_ESCAPE_H

#include <stddef.h>

#define PKS_ESCAPE_MAX	4	/* the bytes one input byte may become */

size_t pks_escape_byte(char out[PKS_ESCAPE_MAX], unsigned char c);
size_t pks_escape(char *buf, size_t size, const char *s);

#endif
