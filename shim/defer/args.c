// SPDX-License-Identifier: MIT
/*
 * Deferred lines kept as their arguments (printk-shim(7) DEFERRED PRINTING):
 * a whole line of a simple compiled format stored raw in the ring at the
 * call, and its text made by the printer, byte for byte what the call would
 * have formatted. Thread-safety: the caller's side reads only its own
 * arguments; the printer's side is pure (async-signal-safe).
 */
#include "defer/defer.h"
#include "defer/internal.h"
#include "base/compiler.h"
#include "base/digits.h"
#include "format/tally.h"

#include <stddef.h>
#include <string.h>

/*
 * The payload of a PKS_REC_ARGS record: a head; each conversion's value in
 * 8 bytes (a number, a character, a string's length; nothing for "%%");
 * the shape's copy from its nconv to its text's end (what its printing
 * reads); and the strings' bytes, in order. Nothing in it points outside
 * the ring: the format may be unloaded or rewritten before the printer
 * gets to it.
 */
struct head {
	uint32_t len;		/* bytes of the text it makes, the newline included */
	uint32_t nconv;
};

#define SHAPE_AT	offsetof(struct pks_shape, nconv)
#define SHAPE_FIXED	(offsetof(struct pks_shape, text) - SHAPE_AT)

/* What a call's arguments are, read once, before anything is reserved. */
struct taken {
	const struct pks_shape *s;
	uint64_t v[PKS_SHAPE_CONV];	/* as the payload has them */
	const char *str[PKS_SHAPE_CONV];	/* each string's bytes */
	size_t strings;			/* their sum */
	size_t len;			/* bytes of the text */
};

/* Bytes of @s that a payload copies. */
static inline size_t shape_bytes(const struct pks_shape *s)
{
	return SHAPE_FIXED + s->at + s->n;
}

/*
 * @t->s's arguments from @ap into @t, as pks_tally() walks them, measuring
 * the text. Return: false when a string or character holds a newline, which
 * the general way ends the line at.
 */
static bool take(va_list *ap, struct taken *t)
{
	const struct pks_shape *s = t->s;
	uint32_t ops = s->tally[0] | s->tally[1] << 8 | (uint32_t)s->tally[2] << 16;
	size_t len = s->lit;
	uint64_t *v = t->v;
	const char *p;
	int64_t d;

	t->strings = 0;
	for (unsigned int i = 0; ops; ops >>= 4, i++, v++) {
		switch (ops & 15) {
		case PKS_T_D8: d = (signed char)va_arg(*ap, int); goto sign;
		case PKS_T_D16: d = (short)va_arg(*ap, int); goto sign;
		case PKS_T_D32: d = va_arg(*ap, int); goto sign;
		case PKS_T_D64: d = va_arg(*ap, int64_t);
sign:
			*v = (uint64_t)d;
			len += (d < 0) + pks_ndecimal(d < 0 ? -(uint64_t)d : (uint64_t)d);
			break;
		case PKS_T_U8: *v = (unsigned char)va_arg(*ap, unsigned int); goto dec;
		case PKS_T_U16: *v = (unsigned short)va_arg(*ap, unsigned int); goto dec;
		case PKS_T_U32: *v = va_arg(*ap, unsigned int); goto dec;
		case PKS_T_U64: *v = va_arg(*ap, uint64_t);
dec:
			len += pks_ndecimal(*v);
			break;
		case PKS_T_X8: *v = (unsigned char)va_arg(*ap, unsigned int); goto hex;
		case PKS_T_X16: *v = (unsigned short)va_arg(*ap, unsigned int); goto hex;
		case PKS_T_X32: *v = va_arg(*ap, unsigned int); goto hex;
		case PKS_T_X64: *v = va_arg(*ap, uint64_t);
hex:
			len += pks_nhex(*v);
			break;
		case PKS_T_STR:
			p = va_arg(*ap, const char *);
			if (!p)
				p = "(null)";
			*v = strlen(p);
			if (memchr(p, '\n', *v))
				return false;
			t->str[i] = p;
			t->strings += *v;
			len += *v;
			break;
		case PKS_T_CHAR:
			*v = (unsigned char)va_arg(*ap, int);
			if (*v == '\n')
				return false;
			len++;
			break;
		case PKS_T_PCT:
			len++;
			break;
		default:
			__builtin_unreachable();	/* PKS_T_END ends the loop */
		}
	}
	t->len = len;
	return true;
}

/* The payload of @arg, a struct taken, at @to (pks_defer_put()'s filler). */
static void fill(char *to, const void *arg)
{
	const struct taken *t = arg;
	const struct pks_shape *s = t->s;
	size_t nv = 8 * s->nconv, ns = shape_bytes(s);
	char *p = to + sizeof(struct head) + nv + ns;

	*(struct head *)to = (struct head){ (uint32_t)t->len, s->nconv };
	memcpy(to + sizeof(struct head), t->v, nv);
	memcpy(to + sizeof(struct head) + nv, (const char *)s + SHAPE_AT, ns);
	if (t->strings)
		for (unsigned int i = 0; i < s->nconv; i++)
			if (s->conv[i].conv == 's')
				p = pks_put_mem(p, t->str[i], t->v[i]);
}

/**
 * pks_defer_args() - @l, just started, is the whole output of the simple
 * compiled format @s (struct pks_shape: plain, closed by its newline, none
 * before): its arguments from @ap into the ring, if it takes the line
 * Return: the text's length, its newline included, or -1: format it now.
 */
int pks_defer_args(struct pks_line *l, struct pks_writer *w, const struct pks_shape *s, va_list ap)
{
	struct taken t;
	va_list cp;
	bool ok;

	t.s = s;
	va_copy(cp, ap);
	ok = take(&cp, &t);
	va_end(cp);
	if (!ok || t.len > l->sb.size || t.strings > UINT32_MAX)
		return -1;
	return pks_defer_put(l, w, PKS_REC_ARGS,
			     sizeof(struct head) + 8 * s->nconv + shape_bytes(s) + t.strings, fill, &t) ?
		       (int)t.len : -1;
}

/* Up to 64 bytes from @s at @p, in a few moves. Return: past them. */
static inline char *run(char *p, const char *s, size_t n)
{
	if (n > 16)
		return pks_put_mem(p, s, n);
	if (n >= 8) {	/* two overlapping moves cost less than a call */
		memcpy(p, s, 8);
		memcpy(p + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(p, s, 4);
		memcpy(p + n - 4, s + n - 4, 4);
	} else if (n) {
		p[0] = s[0];
		p[n - 1] = s[n - 1];
		p[n / 2] = s[n / 2];
	}
	return p + n;
}

static const char pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* @v in decimal at @p, two digits a division. Return: past it. */
static inline char *decimal(char *p, uint64_t v)
{
	size_t n = pks_ndecimal(v);
	char *e = p + n;

	while (v >= 100) {
		e -= 2;
		memcpy(e, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(e - 2, pairs + 2 * v, 2);
	else
		e[-1] = (char)('0' + v);
	return p + n;
}

/* @v in hexadecimal at @p, from @set. Return: past it. */
static inline char *hex(char *p, uint64_t v, const char *set)
{
	size_t n = pks_nhex(v);

	for (char *e = p + n; e > p; v >>= 4)
		*--e = set[v & 15];
	return p + n;
}

/* A byte of the shape's copy @sh in a payload, at its offset @off in struct pks_shape. */
#define SH(sh, off)	((uint8_t)(sh)[(off) - SHAPE_AT])
#define CONV(i, m)	(offsetof(struct pks_shape, conv) + (i) * sizeof(struct pks_shape_conv) + \
			 offsetof(struct pks_shape_conv, m))

/**
 * pks_defer_args_text() - the text of PKS_REC_ARGS record @r, as the call
 * would have formatted it, into @buf of @size bytes (the line's newline
 * left out, as a text record has it)
 * Return: its length.
 */
size_t pks_defer_args_text(const struct pks_defer_rec *r, char *buf, size_t size)
{
	const struct head *h = (const struct head *)r->data;
	const char *vals = r->data + sizeof(*h);
	const char *sh = vals + 8 * h->nconv;	/* the shape's copy */
	const char *text = sh + SHAPE_FIXED;
	const char *str = text + SH(sh, offsetof(struct pks_shape, at)) +
			  SH(sh, offsetof(struct pks_shape, n));	/* the strings */
	uint32_t ops = SH(sh, offsetof(struct pks_shape, tally)) |
		       SH(sh, offsetof(struct pks_shape, tally) + 1) << 8 |
		       (uint32_t)SH(sh, offsetof(struct pks_shape, tally) + 2) << 16;
	uint64_t v;
	char *p = buf;

	if (h->len > size + 1 || h->nconv > PKS_SHAPE_CONV)
		return 0;	/* never: the call kept it within the line's size */
	for (unsigned int i = 0; i < h->nconv; i++, ops >>= 4) {
		p = run(p, text + SH(sh, CONV(i, at)), SH(sh, CONV(i, n)));
		memcpy(&v, vals + 8 * i, 8);
		switch (ops & 15) {
		case PKS_T_D8: case PKS_T_D16: case PKS_T_D32: case PKS_T_D64:
			if ((int64_t)v < 0) {
				*p++ = '-';
				v = -v;
			}
			/* fall through */
		case PKS_T_U8: case PKS_T_U16: case PKS_T_U32: case PKS_T_U64:
			p = decimal(p, v);
			break;
		case PKS_T_STR:
			p = pks_put_mem(p, str, v);
			str += v;
			break;
		case PKS_T_CHAR:
			*p++ = (char)v;
			break;
		case PKS_T_PCT:
			*p++ = '%';
			break;
		default:
			p = hex(p, v, SH(sh, CONV(i, conv)) == 'X' ? pks_hex_upper : pks_hex_lower);
		}
	}
	/* the newline stays behind */
	p = run(p, text + SH(sh, offsetof(struct pks_shape, at)), SH(sh, offsetof(struct pks_shape, n)) - 1u);
	return (size_t)(p - buf);
}
