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
 * The payload of a line kept as its arguments, unaligned, as small as it
 * can be (the ring holds records, not lines): a head; then the format's form
 * (struct pks_defer_form: where each literal run lies in its text, and what
 * each conversion is), named or carried; each conversion's digit count, as
 * the call counted it; each value (8 bytes for a 64-bit number, 4 for
 * another number or a string's length, 1 for a character, none for "%%");
 * with a carried form, the format's text; the strings' bytes, in order.
 * - PKS_REC_FORM: the format's bytes never change nor go away (base/rodata.c):
 *   its form, interned once (forms.c) with a copy of its text, is named by
 *   its address; the printer reads the copy, as a synchronous call prints
 *   from its compiled shape's.
 * - PKS_REC_ARGS: any other; its form and text are carried, so that nothing
 *   in it points outside the ring: the format may be unloaded or rewritten
 *   before the printer gets to it.
 */
struct head {
	uint32_t len;		/* bytes of the text it makes, the newline included */
	uint8_t nconv;
	uint8_t vals;		/* bytes of the values */
} __attribute__((packed));
_Static_assert(PKS_SHAPE_CONV * 8 <= UINT8_MAX, "a head counts its values' bytes");

/* PKS_REC_ARGS: after the head, the last literal run, then each conversion's form. */
struct tail {
	uint8_t at, n;
} __attribute__((packed));

#define UPPER	0x10	/* a struct pks_defer_conv's op for %X */

/* Where the digit counts start, after the head and the form's name or the form. */
#define NAMED		(sizeof(struct head) + sizeof(const struct pks_defer_form *))
#define CARRIED(k)	(sizeof(struct head) + sizeof(struct tail) + (k) * sizeof(struct pks_defer_conv))

/*
 * What a call's arguments are, read once, before anything is reserved: the
 * payload's parts (its head up to the values' end, made here; the format's
 * text when carried; the strings), and the form.
 */
struct taken {
	const struct pks_shape *s;
	const struct pks_defer_form *f;	/* its interned form, or NULL: carried */
	struct pks_defer_payload y;
	char head[CARRIED(PKS_SHAPE_CONV) + PKS_SHAPE_CONV * (1 + 8)];
};

/* @v, of @w bytes, at @p. Return: past it. */
static inline char *put(char *p, uint64_t v, size_t w)
{
	uint32_t v32 = (uint32_t)v;

	if (w == 8)
		memcpy(p, &v, 8);
	else
		memcpy(p, &v32, 4);
	return p + w;
}

/*
 * @t->s's arguments into @t, as pks_tally_walk() walks them, measuring the
 * text: their digit counts at @at in @t->bytes, their values after them.
 * Constant @regs: the arguments lie at @r (pks_va_regs()), else va_arg
 * reads them from @ap.
 * Return: the text's length, or -1 when a string or character holds a
 * newline, which the general way ends the line at, or it passes INT32_MAX.
 */
static inline __attribute__((always_inline)) int64_t take(va_list *ap, const uint64_t *r,
							    bool regs, struct taken *t, size_t at)
{
#define ARG(type)	(regs ? (type)*r++ : va_arg(*ap, type))
	const struct pks_shape *s = t->s;
	uint32_t ops = pks_tally_ops(s);
	uint8_t *dig = (uint8_t *)t->head + at;
	char *v0 = (char *)dig + s->nconv, *v = v0;
	size_t len = s->lit, n;
	const char *p;
	uint32_t u32;
	uint64_t u;
	int32_t w;
	int64_t d;
	size_t nd;
	bool nl;
	struct pks_defer_payload *y = &t->y;

	for (unsigned int i = 0; ops; ops >>= 4, i++) {
		switch (ops & 15) {
		case PKS_T_D8: w = (signed char)ARG(int); goto sign;
		case PKS_T_D16: w = (short)ARG(int); goto sign;
		case PKS_T_D32: w = ARG(int);
sign:
			v = put(v, (uint32_t)w, 4);
			nd = pks_ndecimal32(w < 0 ? -(uint32_t)w : (uint32_t)w);
			dig[i] = (uint8_t)nd;
			len += (w < 0) + nd;
			break;
		case PKS_T_D64: d = ARG(int64_t);
			v = put(v, (uint64_t)d, 8);
			nd = pks_ndecimal(d < 0 ? -(uint64_t)d : (uint64_t)d);
			dig[i] = (uint8_t)nd;
			len += (d < 0) + nd;
			break;
		case PKS_T_U8: u32 = (unsigned char)ARG(unsigned int); goto dec;
		case PKS_T_U16: u32 = (unsigned short)ARG(unsigned int); goto dec;
		case PKS_T_U32: u32 = ARG(unsigned int);
dec:
			v = put(v, u32, 4);
			nd = pks_ndecimal32(u32);
			dig[i] = (uint8_t)nd;
			len += nd;
			break;
		case PKS_T_U64: u = ARG(uint64_t);
			v = put(v, u, 8);
			nd = pks_ndecimal(u);
			dig[i] = (uint8_t)nd;
			len += nd;
			break;
		case PKS_T_X8: u = (unsigned char)ARG(unsigned int); goto hex;
		case PKS_T_X16: u = (unsigned short)ARG(unsigned int); goto hex;
		case PKS_T_X32: u = ARG(unsigned int);
hex:
			v = put(v, u, 4);
			goto nhex;
		case PKS_T_X64: u = ARG(uint64_t);
			v = put(v, u, 8);
nhex:
			nd = pks_nhex(u);
			dig[i] = (uint8_t)nd;
			len += nd;
			break;
		case PKS_T_STR:
			p = ARG(const char *);
			if (!p)
				p = "(null)";
			n = pks_strline(p, &nl);
			if (nl)	/* past UINT32_MAX, len passes INT32_MAX below */
				return -1;
			v = put(v, n, 4);
			dig[i] = 0;
			y->p[y->n] = p;
			y->len[y->n++] = (uint32_t)n;
			y->bytes += n;
			len += n;
			break;
		case PKS_T_CHAR:
			*v = (char)ARG(int);
			if (*v++ == '\n')
				return -1;
			dig[i] = 0;
			len++;
			break;
		case PKS_T_PCT:
			dig[i] = 0;
			len++;
			break;
		default:
			__builtin_unreachable();	/* PKS_T_END ends the loop */
		}
	}
#undef ARG
	if (len > INT32_MAX)
		return -1;	/* printk's count is an int: the general way says what it does */
	memcpy(t->head, &(struct head){ (uint32_t)len, s->nconv, (uint8_t)(v - v0) },
	       sizeof(struct head));
	y->len[0] = (uint32_t)(v - t->head);
	y->bytes += y->len[0];
	return (int64_t)len;
}

/* Each of @s's conversions' forms at @k. */
static void convs(const struct pks_shape *s, struct pks_defer_conv *k)
{
	uint32_t ops = pks_tally_ops(s);

	for (unsigned int i = 0; i < s->nconv; i++, ops >>= 4)
		k[i] = (struct pks_defer_conv){ s->conv[i].at, s->conv[i].n,
			(uint8_t)((ops & 15) | (s->conv[i].conv == 'X' ? UPPER : 0)) };
}

/*
 * The last form this thread's lines named: a loop's lines have one. Forms
 * never change nor go away, so a handler that replaces it between the load
 * and the look at its format leaves either one whole.
 */
static PKS_TLS const struct pks_defer_form *last;

/* The form of @s, whose bytes never change: interned at its first line. */
static inline const struct pks_defer_form *form(const struct pks_shape *s)
{
	const struct pks_defer_form *f = last;
	struct pks_defer_form n;

	if (likely(f) && likely(f->fmt == s->fmt))
		return f;
	f = pks_defer_form_find(s->fmt);
	if (!f) {
		n = (struct pks_defer_form){ s->fmt, s->nconv, s->at, s->n, { { 0, 0, 0 } }, "" };
		convs(s, n.conv);
		memcpy(n.text, s->text, sizeof(n.text));
		f = pks_defer_form_add(&n);
	}
	return f ? (last = f) : NULL;
}

/**
 * pks_defer_args() - @l, just started, is the whole output of the simple
 * compiled format @s (struct pks_shape: plain, closed by its newline, none
 * before): its arguments from @ap into the ring, if it takes the line
 * Return: the text's length, its newline included, or -1: format it now.
 */
int pks_defer_args(struct pks_line *l, struct pks_writer *w, const struct pks_shape *s, va_list ap)
{
	const uint64_t *r;
	struct taken t;
	int64_t len;
	va_list cp;
	size_t at;

	t.s = s;
	t.f = s->fixed ? form(s) : NULL;
	t.y.p[0] = t.head;	/* its length once taken */
	if (t.f) {
		at = NAMED;
		t.y.kind = PKS_REC_FORM;
		t.y.n = 1;
		t.y.bytes = 0;
	} else {
		at = CARRIED(s->nconv);
		t.y.kind = PKS_REC_ARGS;
		t.y.p[1] = s->text;
		t.y.len[1] = s->at + s->n;
		t.y.n = 2;
		t.y.bytes = s->at + s->n;
	}
	if (likely(pks_va_regs(ap, s->nconv, &r))) {
		len = take(NULL, r, true, &t, at);	/* read in place: no copy of @ap */
	} else {
		va_copy(cp, ap);
		len = take(&cp, NULL, false, &t, at);
		va_end(cp);
	}
	if (len < 0 || (uint64_t)len > l->sb.size)
		return -1;
	if (t.f) {
		memcpy(t.head + sizeof(struct head), &t.f, sizeof(t.f));
	} else {
		memcpy(t.head + sizeof(struct head), &(struct tail){ s->at, s->n }, sizeof(struct tail));
		convs(s, (struct pks_defer_conv *)(t.head + CARRIED(0)));
	}
	return pks_defer_enqueue(l, w, &t.y, false) ? (int)len : -1;
}

/* @v in decimal at @p, its @n digits (the call's count). Return: past it. */
static inline char *decimal(char *p, uint64_t v, size_t n)
{
	PKS_WARN_ON_ONCE(n != pks_ndecimal(v));
	return pks_put_dec(p, v, n);
}

/* decimal() of a 32-bit @v. */
static inline char *decimal32(char *p, uint32_t v, size_t n)
{
	PKS_WARN_ON_ONCE(n != pks_ndecimal32(v));
	return pks_put_dec32(p, v, n);
}

/* @v in hexadecimal at @p, its @n digits from @set. Return: past it. */
static inline char *hex(char *p, uint64_t v, size_t n, const char *set)
{
	PKS_WARN_ON_ONCE(n != pks_nhex(v));
	return pks_put_hex(p, v, n, set);
}

/* Whether @op is one take() writes. */
static inline bool known(uint8_t op)
{
	return (op > PKS_T_END && op <= PKS_T_PCT) ||
	       (op >= (PKS_T_X8 | UPPER) && op <= (PKS_T_X64 | UPPER));
}

/* The 4 or 8 bytes of a value at *@val, and *@val past them. */
static inline uint32_t take4(const char **val)
{
	uint32_t v;

	memcpy(&v, *val, 4);
	*val += 4;
	return v;
}

static inline uint64_t take8(const char **val)
{
	uint64_t v;

	memcpy(&v, *val, 8);
	*val += 8;
	return v;
}

/*
 * The text of a line kept as its arguments, into @buf: the form's @nconv
 * conversions at @k, its @text and the literal run at @at of @n bytes
 * after the last; the record's digit counts at @dig, its values at @val,
 * its strings at @str. Inline in its two callers.
 */
static inline __attribute__((always_inline)) size_t made(char *buf,
		const struct pks_defer_conv *k, unsigned int nconv, const char *text,
		unsigned int at, unsigned int n, const uint8_t *dig, const char *val,
		const char *str)
{
	char *p = buf;
	int32_t d;
	int64_t q;
	uint32_t len;

	for (const struct pks_defer_conv *end = k + nconv; k < end; k++, dig++) {
		if (PKS_WARN_ON_ONCE(!known(k->op)))
			break;	/* never: convs() wrote it */
		p = pks_put_run(p, text + k->at, k->n);
		switch (k->op) {
		case PKS_T_D8: case PKS_T_D16: case PKS_T_D32:
			d = (int32_t)take4(&val);
			if (d < 0)
				*p++ = '-';
			p = decimal32(p, d < 0 ? -(uint32_t)d : (uint32_t)d, *dig);
			break;
		case PKS_T_D64:
			q = (int64_t)take8(&val);
			if (q < 0)
				*p++ = '-';
			p = decimal(p, q < 0 ? -(uint64_t)q : (uint64_t)q, *dig);
			break;
		case PKS_T_U8: case PKS_T_U16: case PKS_T_U32:
			p = decimal32(p, take4(&val), *dig);
			break;
		case PKS_T_U64:
			p = decimal(p, take8(&val), *dig);
			break;
		case PKS_T_X8: case PKS_T_X16: case PKS_T_X32:
			p = hex(p, take4(&val), *dig, pks_hex_lower);
			break;
		case PKS_T_X8 | UPPER: case PKS_T_X16 | UPPER: case PKS_T_X32 | UPPER:
			p = hex(p, take4(&val), *dig, pks_hex_upper);
			break;
		case PKS_T_X64:
			p = hex(p, take8(&val), *dig, pks_hex_lower);
			break;
		case PKS_T_X64 | UPPER:
			p = hex(p, take8(&val), *dig, pks_hex_upper);
			break;
		case PKS_T_STR:
			len = take4(&val);
			p = pks_put_mem(p, str, len);
			str += len;
			break;
		case PKS_T_CHAR:
			*p++ = *val++;
			break;
		case PKS_T_PCT:
			*p++ = '%';
			break;
		default:
			__builtin_unreachable();	/* known(), and no bounds check */
		}
	}
	p = pks_put_run(p, text + at, n - 1u);	/* the newline stays behind */
	return (size_t)(p - buf);
}

/**
 * pks_defer_args_text() - the text of PKS_REC_ARGS record @r, as the call
 * would have formatted it, into @buf of @size bytes (the line's newline
 * left out, as a text record has it)
 * Return: its length.
 */
size_t pks_defer_args_text(const struct pks_defer_rec *r, char *buf, size_t size)
{
	const struct head *h = (const struct head *)r->data;
	const struct tail *t = (const struct tail *)(h + 1);
	const struct pks_defer_conv *k = (const struct pks_defer_conv *)(t + 1);
	const uint8_t *dig = (const uint8_t *)(k + h->nconv);
	const char *val = (const char *)dig + h->nconv, *text = val + h->vals;

	if (h->len > size + 1 || PKS_WARN_ON_ONCE(h->nconv > PKS_SHAPE_CONV))
		return 0;	/* never: the call kept it within the line's size */
	return made(buf, k, h->nconv, text, t->at, t->n, dig, val, text + t->at + t->n);
}

/** pks_defer_form_text() - pks_defer_args_text() of a PKS_REC_FORM record */
size_t pks_defer_form_text(const struct pks_defer_rec *r, char *buf, size_t size)
{
	const struct head *h = (const struct head *)r->data;
	const uint8_t *dig = (const uint8_t *)r->data + NAMED;
	const char *val = (const char *)dig + h->nconv;
	const struct pks_defer_form *f;

	/* its fields were published before the call found it (forms.c), so before its record */
	memcpy(&f, h + 1, sizeof(f));
	if (h->len > size + 1 || PKS_WARN_ON_ONCE(h->nconv != f->nconv))
		return 0;	/* never: the call kept it within the line's size */
	return made(buf, f->conv, f->nconv, f->text, f->at, f->n, dig, val, val + h->vals);
}
