/* SPDX-License-Identifier: MIT */
/*
 * The counting walk of a plain compiled format (struct pks_shape): its
 * conversions' ops, the digits a number takes, and the walk itself, inline
 * for the callers that measure a line on every call. Pure.
 */
#ifndef PKS_FORMAT_TALLY_H
#define PKS_FORMAT_TALLY_H

#include "format/format.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
	unsigned int n = guess[63 ^ __builtin_clzll((unsigned long long)v | 1)];

	return n + (v >= p10[n]);
}

/* Hex digits of @v. */
static inline size_t pks_nhex(uintmax_t v)
{
	return (67 - (unsigned int)__builtin_clzll((unsigned long long)v | 1)) / 4;
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
	uint32_t ops = s->tally[0] | s->tally[1] << 8 | (uint32_t)s->tally[2] << 16;
	size_t len = s->lit;
	int64_t v;

	for (; ops; ops >>= 4) {
		switch (ops & 15) {
		case PKS_T_D8: v = (signed char)va_arg(*ap, int); goto sign;
		case PKS_T_D16: v = (short)va_arg(*ap, int); goto sign;
		case PKS_T_D32: v = va_arg(*ap, int); goto sign;
		case PKS_T_D64: v = va_arg(*ap, int64_t);
sign:
			len += (v < 0) + pks_ndecimal(v < 0 ? -(uint64_t)v : (uint64_t)v);
			break;
		case PKS_T_U8: len += pks_ndecimal((unsigned char)va_arg(*ap, unsigned int)); break;
		case PKS_T_U16: len += pks_ndecimal((unsigned short)va_arg(*ap, unsigned int)); break;
		case PKS_T_U32: len += pks_ndecimal(va_arg(*ap, unsigned int)); break;
		case PKS_T_U64: len += pks_ndecimal(va_arg(*ap, uint64_t)); break;
		case PKS_T_X8: len += pks_nhex((unsigned char)va_arg(*ap, unsigned int)); break;
		case PKS_T_X16: len += pks_nhex((unsigned short)va_arg(*ap, unsigned int)); break;
		case PKS_T_X32: len += pks_nhex(va_arg(*ap, unsigned int)); break;
		case PKS_T_X64: len += pks_nhex(va_arg(*ap, uint64_t)); break;
		case PKS_T_STR: {
			const char *p = va_arg(*ap, const char *);

			len += p ? strlen(p) : 6;	/* "(null)" */
			break;
		}
		case PKS_T_CHAR: (void)va_arg(*ap, int); len++; break;
		case PKS_T_PCT: len++; break;
		default: __builtin_unreachable();	/* PKS_T_END ends the loop */
		}
	}
	return len > INT32_MAX ? -2 : (int)len;
}

#endif
