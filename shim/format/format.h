/* SPDX-License-Identifier: MIT */
/*
 * The kernel format engine: printf conversions as the C library prints them,
 * plus the kernel's %p extensions. Pure: no threads, no environment, no I/O.
 */
#ifndef PKS_FORMAT_H
#define PKS_FORMAT_H

#include <stdarg.h>
#include <stdbool.h>
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
	char conv;		/* or '%' for "%%" */
	uint8_t at, n;		/* the literal run before it: offset in the text, bytes */
};

#define PKS_SHAPE_TEXT	64	/* longest format compiled, with its NUL */
#define PKS_SHAPE_CONV	6	/* most conversions in a compiled format */
#define PKS_SHAPE_REFUSED 0xff	/* nconv of a fixed format that has no shape */

/* A format's compiled shape: a slot of pks_format_shaped() and pks_format_count_cached(). */
struct pks_shape {
	const char *fmt;	/* the address it was compiled from, or NULL */
	uint8_t nconv;
	uint8_t at, n;		/* the literal run after the last conversion */
	bool fixed;		/* @fmt's bytes cannot change: they are not compared */
	bool nl;		/* a newline in the literal text before its last byte */
	bool plain;		/* no flag, no width, and literal text after the last conversion */
	uint8_t lit;		/* bytes of literal text in the output ("%%" not counted) */
	struct pks_shape_conv conv[PKS_SHAPE_CONV];
	char text[PKS_SHAPE_TEXT];	/* @fmt's bytes: a format may be rewritten in place */
};

/* Whether the bytes at an address can never change while the process lives. */
typedef bool pks_fixed_fn(const void *p);

/**
 * pks_format_count_cached() - pks_format_count() through a cache of
 * compiled formats (@n slots, zeroed at first); same results. @fixed, if
 * not NULL, tells the formats whose bytes need not be compared on each call.
 */
int pks_format_count_cached(struct pks_shape *cache, size_t n, pks_fixed_fn *fixed,
			    const char *fmt, va_list ap, char *last)
	__attribute__((visibility("hidden")));

/**
 * pks_format_shaped() - pks_format_fast() through the same cache; same
 * results, with a hint for the caller's newline search
 * @inner: out; false when the output holds no newline before its last byte
 */
int pks_format_shaped(struct pks_shape *cache, size_t n, pks_fixed_fn *fixed, char *buf,
		      size_t size, const char *fmt, va_list ap, bool *inner)
	__attribute__((visibility("hidden")));

#endif
