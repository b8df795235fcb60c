// SPDX-License-Identifier: MIT
/*
 * libkcompat: the naive printk of a typical port's compat layer, the thing
 * printk-shim sits in front of. Markers go out as raw bytes, fragments are
 * written as they come, and the level is thrown away. The demo and every
 * test fixture get their printk from here, as a real port would: from a
 * shared library, which LD_PRELOAD can interpose.
 */
#include <stdarg.h>
#include <stdio.h>

#define KCOMPAT __attribute__((visibility("default")))

KCOMPAT int vprintk(const char *fmt, va_list ap);
KCOMPAT int printk(const char *fmt, ...);
KCOMPAT int _printk(const char *fmt, ...);
KCOMPAT int printk_deferred(const char *fmt, ...);
KCOMPAT int _printk_deferred(const char *fmt, ...);

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

int vprintk(const char *fmt, va_list ap)
{
	return vfprintf(stderr, fmt, ap);
}

#define NAIVE(fn)					\
int fn(const char *fmt, ...)				\
{							\
	va_list ap;					\
	int r;						\
							\
	va_start(ap, fmt);				\
	r = vfprintf(stderr, fmt, ap);			\
	va_end(ap);					\
	return r;					\
}

NAIVE(printk)
NAIVE(_printk)
NAIVE(printk_deferred)
NAIVE(_printk_deferred)
