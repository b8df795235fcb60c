/* SPDX-License-Identifier: MIT */
/*
 * A compiled format printed (struct pks_shape): the plain one's walk, inline
 * for the callers that print a fragment on every call, and any other's by
 * the engine (fast.c). Pure.
 */
#ifndef PKS_FORMAT_PUT_H
#define PKS_FORMAT_PUT_H

#include "format/format.h"
#include "format/tally.h"
#include "base/compiler.h"
#include "base/digits.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int pks_shape_bounded(const struct pks_shape *s, char *buf, size_t size, va_list ap, bool *inner)
	__attribute__((visibility("hidden")));

/*
 * pks_shape_print() of a plain shape (no flag, no width), from its tally as
 * pks_tally_walk() walks it: each number's digits counted, then written
 * backwards, with no cursor. The room is checked once for what can be
 * bounded (the literal text, and 20 bytes a conversion, which no number
 * passes) and at each string for the rest. Constant @regs: the arguments
 * lie at @r (pks_va_regs()), else va_arg reads them from @ap. @nl as
 * fast.c's print_conv()'s.
 * Return: the output's length, or -1 when it may not fit @room bytes (the
 * bytes stored are then no output: pks_shape_bounded() makes it).
 */
static inline __attribute__((always_inline)) int pks_shape_put(const struct pks_shape *s,
		char *buf, size_t room, va_list *ap, const uint64_t *r, bool regs, bool *nl)
{
#define ARG(type)	(regs ? (type)*r++ : va_arg(*ap, type))
	uint32_t ops = pks_tally_ops(s);
	size_t bound = s->lit + 20u * s->nconv, n;
	const char *str;
	char *p = buf, ch;
	uint32_t u;
	uint64_t v;
	int32_t d;
	int64_t q;
	bool line;

	if (room < bound)
		return -1;
	room = (room < INT32_MAX ? room : INT32_MAX) - bound;	/* what the strings may take */
	for (const struct pks_shape_conv *k = s->conv; ops; ops >>= 4, k++) {
		p = pks_put_run(p, s->text + k->at, k->n);
		switch (ops & 15) {
		case PKS_T_D8: d = (signed char)ARG(int); goto sign;
		case PKS_T_D16: d = (short)ARG(int); goto sign;
		case PKS_T_D32: d = ARG(int);
sign:
			if (d < 0)
				*p++ = '-';
			u = d < 0 ? -(uint32_t)d : (uint32_t)d;
			p = pks_put_dec32(p, u, pks_ndecimal32(u));
			break;
		case PKS_T_D64: q = ARG(int64_t);
			if (q < 0)
				*p++ = '-';
			v = q < 0 ? -(uint64_t)q : (uint64_t)q;
			p = pks_put_dec(p, v, pks_ndecimal(v));
			break;
		case PKS_T_U8: u = (unsigned char)ARG(unsigned int); goto dec;
		case PKS_T_U16: u = (unsigned short)ARG(unsigned int); goto dec;
		case PKS_T_U32: u = ARG(unsigned int);
dec:
			p = pks_put_dec32(p, u, pks_ndecimal32(u));
			break;
		case PKS_T_U64: v = ARG(uint64_t);
			p = pks_put_dec(p, v, pks_ndecimal(v));
			break;
		case PKS_T_X8: v = (unsigned char)ARG(unsigned int); goto hex;
		case PKS_T_X16: v = (unsigned short)ARG(unsigned int); goto hex;
		case PKS_T_X32: v = ARG(unsigned int); goto hex;
		case PKS_T_X64: v = ARG(uint64_t);
hex:
			p = pks_put_hex(p, v, pks_nhex(v), k->conv == 'X' ? pks_hex_upper : pks_hex_lower);
			break;
		case PKS_T_STR:
			str = ARG(const char *);
			if (!str)
				str = "(null)";
			n = pks_strline(str, &line);
			if (n > room)
				return -1;
			room -= n;
			*nl |= line;
			p = pks_put_part(p, str, n);
			break;
		case PKS_T_CHAR:
			ch = (char)ARG(int);
			*nl |= ch == '\n';
			*p++ = ch;
			break;
		case PKS_T_PCT:
			*p++ = '%';
			break;
		default:
			__builtin_unreachable();	/* PKS_T_END ends the loop */
		}
	}
#undef ARG
	p = pks_put_run(p, s->text + s->at, s->n);
	return (int)(p - buf);
}

/**
 * pks_shape_print() - pks_format_fast() of the format @s was compiled from,
 * into @size bytes, at least 1
 * @inner: out; false when the output holds no newline before its last byte
 * Return: as pks_format_fast(), having read @ap.
 */
static inline int pks_shape_print(const struct pks_shape *s, char *buf, size_t size, va_list ap,
				  bool *inner)
{
	bool nl = s->nl;
	const uint64_t *at;
	va_list cp;
	int r;

	if (unlikely(!s->plain))
		return pks_shape_bounded(s, buf, size, ap, inner);
	if (likely(pks_va_regs(ap, s->nconv, &at))) {
		r = pks_shape_put(s, buf, size - 1, NULL, at, true, &nl);	/* read in place */
	} else {
		va_copy(cp, ap);
		r = pks_shape_put(s, buf, size - 1, &cp, NULL, false, &nl);
		va_end(cp);
	}
	if (unlikely(r < 0))
		return pks_shape_bounded(s, buf, size, ap, inner);
	buf[r] = '\0';
	*inner = nl;
	return r;
}

#endif
