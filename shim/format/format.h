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
#include <string.h>

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
#define PKS_SHAPE_AHEAD	3	/* bytes a level marker may take */

/* A format's compiled shape: a slot of pks_format_shaped() and pks_format_count_cached(). */
struct pks_shape {
	const char *fmt;	/* the address it was compiled from, or NULL */
	uint8_t nconv;
	uint8_t at, n;		/* the literal run after the last conversion */
	/* Bits, and the tally in bytes, so that a slot stays 144 bytes. */
	bool fixed : 1;		/* @fmt's bytes cannot change: they are not compared */
	bool nl : 1;		/* a newline in the literal text before its last byte */
	bool ahead : 1;		/* its first PKS_SHAPE_AHEAD bytes (or fewer, all) hold no '%' */
	bool plain : 1;		/* no flag, no width, and literal text after the last conversion */
	bool closes : 1;	/* plain, and its literal text ends with a newline */
	bool quick : 1;		/* steady and closes: measured from its tally alone */
	bool steady : 1;	/* fixed, compiled and ahead: found, its markers read, at a glance */
	bool strings : 1;	/* a %s among its conversions: measuring it reads strings */
	uint8_t simple;		/* bit i: conv[i] has no flag and no width, and is not "%%" */
	uint8_t lit;		/* bytes of literal text in the output ("%%" not counted) */
	/* plain: how each conversion is measured, 4 bits each (tally.h); aligned, one load */
	_Alignas(4) uint8_t tally[4];
	struct pks_shape_conv conv[PKS_SHAPE_CONV];
	char text[PKS_SHAPE_TEXT];	/* @fmt's bytes: a format may be rewritten in place */
};

/* Whether the bytes at an address can never change while the process lives. */
typedef bool pks_fixed_fn(const void *p);

const struct pks_shape *pks_shape_learn(struct pks_shape *cache, size_t n, size_t i,
					const char *fmt, pks_fixed_fn *fixed)
	__attribute__((visibility("hidden")));

/* The slot of @fmt's shape in a cache of @n slots, or the one after it (pks_shape_find()). */
static inline size_t pks_shape_slot(const char *fmt, size_t n)
{
	/*
	 * Fibonacci hashing of the address's low 32 bits, scaled to @n by a
	 * multiplication: no division. The hash times @n (a small table)
	 * fits 64 bits on every target; no __int128, which 32-bit ones lack.
	 */
	uint32_t h = (uint32_t)(uintptr_t)fmt * 0x9e3779b9u;

	return (size_t)((h * (uint64_t)(uint32_t)n) >> 32);
}

/**
 * pks_shape_find() - the compiled shape of @fmt, kept in @cache (@n slots,
 * zeroed at first): in the slot @fmt's address chooses or the next, while
 * it holds that address and, unless they are fixed (@fixed tells, if not
 * NULL), the same bytes; else compiled there now. Inline: most calls find it.
 * Return: the shape, or NULL when @fmt has none (the fast path refuses it,
 * or it is too long or has too many conversions to be compiled).
 */
static inline const struct pks_shape *pks_shape_find(struct pks_shape *cache, size_t n,
						     pks_fixed_fn *fixed, const char *fmt)
{
	size_t i = pks_shape_slot(fmt, n);
	const struct pks_shape *s = &cache[i];

	if ((s->fmt == fmt && (s->fixed || !strcmp(s->text, fmt))) ||
	    ((s = &cache[i + 1 < n ? i + 1 : 0])->fmt == fmt && (s->fixed || !strcmp(s->text, fmt))))
		return s->nconv == PKS_SHAPE_REFUSED ? NULL : s;
	return pks_shape_learn(cache, n, i, fmt, fixed);
}

/*
 * The shape of @fmt in @cache, if pks_shape_find() has met it: a look at
 * its two slots, no byte of it compared. A refused one is never steady.
 */
static inline const struct pks_shape *pks_shape_met(const struct pks_shape *cache, size_t n,
						    const char *fmt)
{
	size_t i = pks_shape_slot(fmt, n);
	const struct pks_shape *s = &cache[i];

	if (s->fmt != fmt && (s = &cache[i + 1 < n ? i + 1 : 0])->fmt != fmt)
		return NULL;
	return s;
}

/**
 * pks_shape_quick() - the shape of @fmt in @cache, if pks_shape_find() has
 * met it and it is quick
 * Return: the shape, or NULL (pks_shape_find() then tells more).
 */
static inline const struct pks_shape *pks_shape_quick(const struct pks_shape *cache, size_t n,
						      const char *fmt)
{
	const struct pks_shape *s = pks_shape_met(cache, n, fmt);

	return s && s->quick ? s : NULL;
}

/** pks_shape_steady() - pks_shape_quick() of a steady shape */
static inline const struct pks_shape *pks_shape_steady(const struct pks_shape *cache, size_t n,
						       const char *fmt)
{
	const struct pks_shape *s = pks_shape_met(cache, n, fmt);

	return s && s->steady ? s : NULL;
}


/** pks_shape_count() - pks_format_count() from a shape */
int pks_shape_count(const struct pks_shape *s, va_list ap, char *last)
	__attribute__((visibility("hidden")));

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
