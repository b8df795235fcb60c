/* SPDX-License-Identifier: MIT */
/*
 * The kernel format engine: printf conversions as the C library prints them,
 * plus the kernel's %p extensions. Pure: no threads, no environment, no I/O.
 */
#ifndef PKS_FORMAT_H
#define PKS_FORMAT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

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

/* One conversion of a compiled format (see fast.c's struct plain). */
struct pks_shape_conv {
	uint16_t width, prec, flags;
	int8_t len;
	char conv;
	char before;		/* the last literal byte before it, since the last conversion; or 0 */
};

#define PKS_SHAPE_TEXT	64	/* longest format compiled, with its NUL */
#define PKS_SHAPE_CONV	6	/* most conversions in a compiled format */

/* A format's compiled shape, for counting: a slot of pks_format_count_cached(). */
struct pks_shape {
	const char *fmt;	/* the address it was compiled from, or NULL */
	char text[PKS_SHAPE_TEXT];	/* and its bytes: a format may be rewritten in place */
	uint32_t lit;		/* bytes of literal text in the output */
	uint8_t nconv;
	char after;		/* the last literal byte after the last conversion, or 0 */
	struct pks_shape_conv conv[PKS_SHAPE_CONV];
};

/**
 * pks_format_count_cached() - pks_format_count() through a cache of
 * compiled formats (@n slots, zeroed at first); same results
 */
int pks_format_count_cached(struct pks_shape *cache, size_t n, const char *fmt, va_list ap,
			    char *last) __attribute__((visibility("hidden")));

#endif
