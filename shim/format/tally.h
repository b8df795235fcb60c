/* SPDX-License-Identifier: MIT */
/*
 * The counting walk of a plain compiled format (struct pks_shape): its
 * conversions' ops, the digits a number takes, and the walk itself, inline
 * for the callers that measure a line on every call. Pure.
 */
#ifndef PKS_FORMAT_TALLY_H
#define PKS_FORMAT_TALLY_H

#include "format/format.h"
#include "base/compiler.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * pks_strlen()'s way: 16 bytes a compare from the aligned block the string
 * starts in, which may hold bytes before it and after its NUL. A sanitizer
 * reports those (ASan: outside the object; TSan: a race with their writer),
 * so its builds take strlen().
 */
#if defined(__SSE2__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define PKS_STRLEN_SSE2 1
#include <emmintrin.h>
#endif

/*
 * How a plain shape's conversion is measured: the argument's type, and
 * what of it is counted. 4 bits each in pks_shape.tally, the first
 * conversion in the low bits, PKS_T_END after the last.
 */
enum {
	PKS_T_END,
	PKS_T_D8, PKS_T_D16, PKS_T_D32, PKS_T_D64,	/* %d %i: hh, h, int, 64-bit lengths */
	PKS_T_U8, PKS_T_U16, PKS_T_U32, PKS_T_U64,	/* %u */
	PKS_T_X8, PKS_T_X16, PKS_T_X32, PKS_T_X64,	/* %x %X */
	PKS_T_STR, PKS_T_CHAR, PKS_T_PCT,		/* %s, %c, "%%" */
};
_Static_assert(PKS_T_PCT < 16 && PKS_SHAPE_CONV <= 2 * sizeof(((struct pks_shape *)0)->tally),
	       "a tally holds the ops of a shape");

/* The ops of @s's conversions (its tally), the first in the low 4 bits: one load. */
static inline uint32_t pks_tally_ops(const struct pks_shape *s)
{
	uint32_t ops;

	memcpy(&ops, s->tally, sizeof(ops));
	return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ops : __builtin_bswap32(ops);
}

/*
 * Digits of @v, from its top bit b: 2^b has guess[b] digits, and @v, below
 * 2^(b+1), one more when it reaches 10^guess[b]. Two look-ups, no division.
 */
static inline size_t pks_ndecimal(uintmax_t v)
{
	static const uint8_t guess[64] = {
		1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7,
		7, 7, 8, 8, 8, 9, 9, 9, 10, 10, 10, 10, 11, 11, 11, 12, 12, 12, 13,
		13, 13, 13, 14, 14, 14, 15, 15, 15, 16, 16, 16, 16, 17, 17, 17, 18,
		18, 18, 19, 19, 19, 19,
	};
	static const uint64_t p10[] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
		1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
		1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	unsigned int n = guess[63u ^ (unsigned int)__builtin_clzll((unsigned long long)v | 1)];

	return n + (v >= p10[n]);
}

/*
 * Digits of a 32-bit @v, in two instructions past its top bit b: step[b]
 * is 2^32 times one more than 2^b's digits, less the power of ten that
 * reaches that many (Kendall Willets), so the sum carries into the top
 * half exactly when @v has the extra digit.
 */
static inline size_t pks_ndecimal32(uint32_t v)
{
#define D(n, p)	(((uint64_t)(n) + 1) << 32) - (p)	/* n digits, n + 1 from p up */
#define N(n)	((uint64_t)(n) << 32)			/* n digits, below 2^(b+1) */
	static const uint64_t step[32] = {
		N(1), D(1, 10), D(1, 10), D(1, 10), D(2, 100), D(2, 100), D(2, 100),
		D(3, 1000), D(3, 1000), D(3, 1000), D(4, 10000), D(4, 10000), D(4, 10000),
		D(4, 10000), D(5, 100000), D(5, 100000), D(5, 100000), D(6, 1000000),
		D(6, 1000000), D(6, 1000000), D(7, 10000000), D(7, 10000000), D(7, 10000000),
		D(7, 10000000), D(8, 100000000), D(8, 100000000), D(8, 100000000),
		D(9, 1000000000), D(9, 1000000000), D(9, 1000000000), N(10), N(10),
	};
#undef N
#undef D
	return (size_t)((v + step[31u ^ (unsigned int)__builtin_clz(v | 1)]) >> 32);
}

/* Hex digits of @v. */
static inline size_t pks_nhex(uintmax_t v)
{
	return (67 - (unsigned int)__builtin_clzll((unsigned long long)v | 1)) / 4;
}

/*
 * strlen() without a call, for a %s the walk measures: its short strings
 * take two or three compares. Each load is an aligned 16 bytes, which never
 * crosses a page, so no byte of a page past the string's NUL is read; the
 * bytes before @p in its first block are shifted out of the mask.
 */
static inline size_t pks_strlen(const char *p)
{
#ifdef PKS_STRLEN_SSE2
	const __m128i *b = (const __m128i *)((uintptr_t)p & ~(uintptr_t)15);
	const __m128i zero = _mm_setzero_si128();
	unsigned int m = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(*b, zero)) >>
			 ((uintptr_t)p & 15);

	if (m)
		return (size_t)__builtin_ctz(m);
	do
		m = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(*++b, zero));
	while (!m);
	return (size_t)((const char *)b - p) + (size_t)__builtin_ctz(m);
#else
	return strlen(p);
#endif
}

/*
 * pks_strlen() of @p, and in *@nl whether a newline comes before its NUL:
 * one walk where a %s that may not hold one (defer/args.c) took two.
 */
static inline size_t pks_strline(const char *p, bool *nl)
{
#ifdef PKS_STRLEN_SSE2
	/* a byte that is 0 or '\n' is 0 as the lesser of itself and itself ^ '\n' */
	const __m128i *b = (const __m128i *)((uintptr_t)p & ~(uintptr_t)15);
	const __m128i zero = _mm_setzero_si128(), eol = _mm_set1_epi8('\n');
	unsigned int m = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(
		_mm_min_epu8(*b, _mm_xor_si128(*b, eol)), zero)) >> ((uintptr_t)p & 15);
	size_t at = 0;

	while (!m) {
		at = (size_t)((const char *)++b - p);
		m = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_min_epu8(*b, _mm_xor_si128(*b, eol)), zero));
	}
	at += (size_t)__builtin_ctz(m);	/* the first NUL or newline */
	*nl = p[at] != '\0';
	return *nl ? pks_strlen(p) : at;
#else
	size_t n = strlen(p);

	*nl = memchr(p, '\n', n) != NULL;
	return n;
#endif
}

/*
 * The next @n arguments of @ap where they lie in an array, *@r, read in
 * place with @ap left as it is: on x86-64, integers and pointers still in
 * the registers that va_start saved, 8 bytes apart from gp_offset to 48 in
 * the register save area (System V psABI 3.5.7, the va_list type).
 * Return: false when any of them is past it, and on other targets: va_arg
 * reads them.
 */
static inline bool pks_va_regs(va_list ap, unsigned int n, const uint64_t **r)
{
#if defined(__x86_64__) && defined(__LP64__)
	struct tag { unsigned int gp_offset, fp_offset; char *overflow, *saved; };
	unsigned int gp;
	char *saved;

	_Static_assert(sizeof(va_list) == sizeof(struct tag), "the psABI's va_list");
	/* field by field: a copy of the whole would be stored and read back */
	memcpy(&gp, (const char *)ap + offsetof(struct tag, gp_offset), sizeof(gp));
	memcpy(&saved, (const char *)ap + offsetof(struct tag, saved), sizeof(saved));
	*r = (const uint64_t *)(saved + gp);
	return gp + 8 * n <= 48;
#else
	(void)ap;
	(void)n;
	(void)r;
	return false;
#endif
}

/*
 * pks_tally()'s walk of a shape's @ops (pks_tally_ops()) and @lit bytes of
 * literal text. Constants: @regs, its arguments from @r (pks_va_regs()),
 * else with va_arg from @ap; @strings false when the shape has no %s (its
 * strings): no string to measure, no length past INT32_MAX.
 */
static inline __attribute__((always_inline)) int pks_tally_walk(uint32_t ops, size_t lit,
								 va_list *ap, const uint64_t *r,
								 bool regs, bool strings)
{
#define ARG(type, wide)	(regs ? (type)(wide)*r++ : va_arg(*ap, type))
	size_t len = lit;
	int64_t v;
	int32_t w;

	for (; ops; ops >>= 4) {
		switch (ops & 15) {
		case PKS_T_D8: w = (signed char)ARG(int, uint64_t); goto sign32;
		case PKS_T_D16: w = (short)ARG(int, uint64_t); goto sign32;
		case PKS_T_D32: w = ARG(int, uint64_t);
sign32:
			len += (w < 0) + pks_ndecimal32(w < 0 ? -(uint32_t)w : (uint32_t)w);
			break;
		case PKS_T_D64: v = ARG(int64_t, uint64_t);
			len += (v < 0) + pks_ndecimal(v < 0 ? -(uint64_t)v : (uint64_t)v);
			break;
		case PKS_T_U8: len += pks_ndecimal32((unsigned char)ARG(unsigned int, uint64_t)); break;
		case PKS_T_U16: len += pks_ndecimal32((unsigned short)ARG(unsigned int, uint64_t)); break;
		case PKS_T_U32: len += pks_ndecimal32(ARG(unsigned int, uint64_t)); break;
		case PKS_T_U64: len += pks_ndecimal(ARG(uint64_t, uint64_t)); break;
		case PKS_T_X8: len += pks_nhex((unsigned char)ARG(unsigned int, uint64_t)); break;
		case PKS_T_X16: len += pks_nhex((unsigned short)ARG(unsigned int, uint64_t)); break;
		case PKS_T_X32: len += pks_nhex(ARG(unsigned int, uint64_t)); break;
		case PKS_T_X64: len += pks_nhex(ARG(uint64_t, uint64_t)); break;
		case PKS_T_STR: {
			const char *p;

			if (!strings)
				__builtin_unreachable();	/* no %s: no code for it */
			p = ARG(const char *, uintptr_t);
			len += p ? pks_strlen(p) : 6;	/* "(null)" */
			break;
		}
		case PKS_T_CHAR: (void)ARG(int, uint64_t); len++; break;
		case PKS_T_PCT: len++; break;
		default: __builtin_unreachable();	/* PKS_T_END ends the loop */
		}
	}
#undef ARG
	return strings && len > INT32_MAX ? -2 : (int)len;	/* numbers alone never pass it */
}

/**
 * pks_tally() - the length of a plain shape's output (whose last byte is
 * its literal text's), read from @ap without storing a byte: a walk of its
 * ops, one jump a conversion, with the literal text's length already summed.
 * @ap is a pointer, the caller's copy: a va_list parameter may be an array.
 * Return: the length, or -2 when it passes INT32_MAX, having read @ap.
 */
static inline __attribute__((always_inline)) int pks_tally(const struct pks_shape *s,
							    va_list *ap)
{
	return pks_tally_walk(pks_tally_ops(s), s->lit, ap, NULL, false, true);
}

#endif
