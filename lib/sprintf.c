// SPDX-License-Identifier: MIT
/*
 * libprintk-port's kernel string formatting: the kernel's vsnprintf() and
 * its family over the module's engine, so that a string holds byte for
 * byte what printk() would print; the kernel's return values and sizes.
 */
#include "base/compiler.h"
#include "format/format.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned int gfp_t;

PKS_EXPORT int pks_kernel_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
PKS_EXPORT int pks_kernel_snprintf(char *buf, size_t size, const char *fmt, ...);
PKS_EXPORT int pks_kernel_vsprintf(char *buf, const char *fmt, va_list ap);
PKS_EXPORT int pks_kernel_sprintf(char *buf, const char *fmt, ...);
PKS_EXPORT int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap);
PKS_EXPORT int scnprintf(char *buf, size_t size, const char *fmt, ...);
PKS_EXPORT char *kvasprintf(gfp_t gfp, const char *fmt, va_list ap);
PKS_EXPORT char *kasprintf(gfp_t gfp, const char *fmt, ...);
PKS_EXPORT const char *kvasprintf_const(gfp_t gfp, const char *fmt, va_list ap);

/*
 * The engine's count @n for @buf of @size bytes, as the kernel counts: a
 * format it gives up on (a '%' ending it, a %ls the locale cannot convert)
 * ends the text there, and what was written before it is the count, where
 * vsnprintf(3) says -1.
 */
static int counted(const char *buf, size_t size, int n)
{
	if (n >= 0)
		return n;
	return size ? (int)strnlen(buf, size - 1) : 0;
}

/*
 * The kernel refuses a size above INT_MAX (WARN_ON_ONCE there): nothing is
 * written. errno is kept, here and below: the kernel has none, and a
 * format the engine gives up on sets it.
 */
int pks_kernel_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	int saved = errno, n;

	if (size > INT_MAX)
		return 0;
	n = counted(buf, size, pks_vsnprintf(buf, size, fmt, ap));
	errno = saved;
	return n;
}

/* The kernel's vsprintf(): no bound, as its size is INT_MAX. */
int pks_kernel_vsprintf(char *buf, const char *fmt, va_list ap)
{
	return pks_kernel_vsnprintf(buf, INT_MAX, fmt, ap);
}

/* Return: the bytes written to @buf without the NUL; 0 when @size is 0. */
int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = pks_kernel_vsnprintf(buf, size, fmt, ap);

	if (size == 0)
		return 0;
	return (size_t)n < size ? n : (int)(size - 1);
}

/*
 * kvasprintf() of a format the engine gives up on, which measures nothing:
 * formatted into a buffer that doubles until the text stops short of its
 * end (counted()), 1 MiB at most.
 */
static char *given_up(const char *fmt, va_list ap)
{
	char *p = NULL, *q;
	va_list again;

	for (size_t size = 256; size <= (1u << 20); size *= 2) {
		if (!(q = realloc(p, size)))
			break;
		p = q;
		va_copy(again, ap);
		if ((size_t)counted(p, size, pks_vsnprintf(p, size, fmt, again)) < size - 1) {
			va_end(again);
			return p;
		}
		va_end(again);
	}
	free(p);
	return NULL;
}

/* The string kvasprintf() returns, errno aside. */
static char *made(const char *fmt, va_list ap)
{
	va_list again;
	char *p;
	int n;

	va_copy(again, ap);
	n = pks_vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0)
		return given_up(fmt, ap);
	if (!(p = malloc((size_t)n + 1)))
		return NULL;
	pks_vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

/* Return: a malloc'ed string (free() it, or the port's kfree), or NULL; errno kept. */
char *kvasprintf(gfp_t gfp, const char *fmt, va_list ap)
{
	int saved = errno;
	char *p;

	(void)gfp;
	p = made(fmt, ap);
	errno = saved;
	return p;
}

/* Always a copy here: the kernel's may return @fmt itself, which kfree_const() knows. */
const char *kvasprintf_const(gfp_t gfp, const char *fmt, va_list ap)
{
	return kvasprintf(gfp, fmt, ap);
}

#define VARIADIC(type, fn, vfn, params, args)	\
type fn params					\
{						\
	va_list ap;				\
	type r;					\
						\
	va_start(ap, fmt);			\
	r = vfn args;				\
	va_end(ap);				\
	return r;				\
}

VARIADIC(int, pks_kernel_snprintf, pks_kernel_vsnprintf,
	 (char *buf, size_t size, const char *fmt, ...), (buf, size, fmt, ap))
VARIADIC(int, pks_kernel_sprintf, pks_kernel_vsprintf,
	 (char *buf, const char *fmt, ...), (buf, fmt, ap))
VARIADIC(int, scnprintf, vscnprintf,
	 (char *buf, size_t size, const char *fmt, ...), (buf, size, fmt, ap))
VARIADIC(char *, kasprintf, kvasprintf,
	 (gfp_t gfp, const char *fmt, ...), (gfp, fmt, ap))
