// SPDX-License-Identifier: MIT
/*
 * The format engine's fast path: text and %d %i %u %x %X %c %s %% with
 * simple flags, width and length, formatted to the C library's bytes
 * without its stdio machinery; anything else is refused and the caller
 * formats the call its usual way. As the kernel's vsnprintf() does, it
 * decodes each conversion into a small spec (decode(), its format_decode())
 * and hands it to one printer per kind; the same walk also measures a
 * format without storing it, for lines the level filter drops. A format
 * compiled once (struct pks_shape) is printed or measured without decoding.
 * Thread-safety: pure.
 */
#include "format/format.h"
#include "format/internal.h"
#include "format/put.h"
#include "format/tally.h"
#include "base/compiler.h"
#include "base/digits.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WIDTH_MAX 4096		/* wider fields go the usual way */

/* Every helper is inlined, so that @count is a constant in each copy. */
#define ALWAYS_INLINE	inline __attribute__((always_inline))

/* Where the walk writes: the caller's buffer, or, counting, nowhere. */
struct cursor {
	char *p, *end;		/* next byte; where the NUL goes (nothing beyond) */
	size_t len;		/* bytes the whole output has */
	char last;		/* its last byte (counting only) */
};

/* What a conversion has besides the kernel's PKS_FMT_* flags. */
enum {
	HAS_PREC	= 1 << 8,	/* a precision, and not a negative '*' */
	STAR_WIDTH	= 1 << 9,	/* the width is the next argument */
	STAR_PREC	= 1 << 10,	/* the precision is the next argument */
};

/* One conversion, decoded: as much of the kernel's printf_spec as we take. */
struct plain {
	size_t width;
	size_t prec;		/* bytes of %s at most, with HAS_PREC */
	unsigned int flags;	/* PKS_FMT_LEFT _PLUS _SPACE _ZEROPAD _SPECIAL, and the above */
	int len;		/* -2 hh, -1 h, 0, 1 l, 2 ll/j, 3 z/t */
	char conv;		/* the conversion character, or any other byte */
};

/*
 * @count is a constant in each caller: counting stores nothing and keeps
 * the length and the last byte only, which is all a filtered line needs.
 */
static ALWAYS_INLINE void append(struct cursor *c, bool count, const char *s, size_t n)
{
	size_t room;

	c->len += n;
	if (count) {
		if (n)
			c->last = s[n - 1];
		return;
	}
	room = (size_t)(c->end - c->p);
	if (room > n)
		room = n;
	if (room > 16) {
		memcpy(c->p, s, room);
	} else if (room >= 8) {	/* a call, or a loop, costs more than two overlapping moves */
		memcpy(c->p, s, 8);
		memcpy(c->p + room - 8, s + room - 8, 8);
	} else if (room >= 4) {
		memcpy(c->p, s, 4);
		memcpy(c->p + room - 4, s + room - 4, 4);
	} else if (room >= 2) {
		memcpy(c->p, s, 2);
		memcpy(c->p + room - 2, s + room - 2, 2);
	} else if (room) {
		*c->p = *s;
	}
	c->p += room;
}

static inline void pad(struct cursor *c, bool count, char ch, size_t n)
{
	size_t room;

	c->len += n;
	if (count) {
		if (n)
			c->last = ch;
		return;
	}
	room = (size_t)(c->end - c->p);
	if (room > n)
		room = n;
	memset(c->p, ch, room);
	c->p += room;
}

/* The digits of a number: stored, or, counting, only their count and last one. */
struct digits {
	const char *s;		/* NULL when counting */
	size_t n;
	char last;
};

/*
 * @d (@npre bytes of @pre in front: a sign, "0x") in a field of @width.
 * Counting, @d.s may be NULL: @d.last stands for its last byte.
 */
static ALWAYS_INLINE void field(struct cursor *c, bool count, struct digits d, const char *pre,
				size_t npre, size_t width, bool left, bool zero)
{
	size_t all = d.n + npre, fill = width > all ? width - all : 0;

	if (fill && !left && !zero)
		pad(c, count, ' ', fill);
	append(c, count, pre, npre);
	if (fill && !left && zero)
		pad(c, count, '0', fill);
	if (!count)
		append(c, count, d.s, d.n);
	else if (d.n)
		c->len += d.n, c->last = d.last;
	if (fill && left)
		pad(c, count, ' ', fill);
}

static const char pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/*
 * Return: the digits of @v, written to end at @end unless counting. Two
 * digits a division, from the table of pairs: nearly every printk has a
 * number, and this takes fewer instructions than the digit a division of
 * pks_put_udec() (about a tenth fewer for all of "x=%d\n" of 4 digits).
 * (A constant base divides fast.)
 */
static ALWAYS_INLINE struct digits decimal(bool count, char *end, uintmax_t v)
{
	char *s = end;

	if (count)
		return (struct digits){ NULL, pks_ndecimal(v), (char)('0' + v % 10) };
	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		s -= 2;
		memcpy(s, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		s -= 2;
		memcpy(s, pairs + 2 * v, 2);
	} else {
		*--s = (char)('0' + v);
	}
	return (struct digits){ s, (size_t)(end - s), 0 };
}

static ALWAYS_INLINE struct digits hex(bool count, char *end, uintmax_t v, bool upper)
{
	const char *set = upper ? pks_hex_upper : pks_hex_lower;
	char *s = end;

	if (count)
		return (struct digits){ NULL, pks_nhex(v), set[v & 15] };
	do
		*--s = set[v & 15];
	while ((v >>= 4));
	return (struct digits){ s, (size_t)(end - s), 0 };
}

static inline struct digits text(const char *s, size_t n)
{
	return (struct digits){ s, n, n ? s[n - 1] : 0 };
}

/* A width or precision in digits, kept below WIDTH_MAX. Return: what follows. */
static ALWAYS_INLINE const char *decode_number(const char *f, size_t *n)
{
	while (*f >= '0' && *f <= '9' && *n < WIDTH_MAX)
		*n = *n * 10 + (size_t)(*f++ - '0');
	return f;
}

static ALWAYS_INLINE const char *decode_flags(const char *f, unsigned int *flags)
{
	for (;; f++) {
		if (*f == '-')
			*flags |= PKS_FMT_LEFT;
		else if (*f == '0')
			*flags |= PKS_FMT_ZEROPAD;
		else if (*f == '#')
			*flags |= PKS_FMT_SPECIAL;
		else if (*f == '+')
			*flags |= PKS_FMT_PLUS;
		else if (*f == ' ')
			*flags |= PKS_FMT_SPACE;
		else
			return f;
	}
}

static ALWAYS_INLINE const char *decode_length(const char *f, int *len)
{
	if (*f == 'h')
		*len = *++f == 'h' ? (f++, -2) : -1;
	else if (*f == 'l')
		*len = *++f == 'l' ? (f++, 2) : 1;
	else if (*f == 'j')
		*len = 2, f++;
	else if (*f == 'z' || *f == 't')
		*len = 3, f++;
	return f;
}

/*
 * decode() - the kernel's format_decode() for one plain conversion
 * @f: the byte after its '%'
 * A '*' is only noted: the caller takes its value from the arguments.
 * Return: the format after the conversion character (or after a NUL there,
 * which is no conversion and is refused).
 */
static ALWAYS_INLINE const char *decode(const char *f, struct plain *pc)
{
	*pc = (struct plain){ .len = 0 };
	if (*f < 'a') {		/* flags, width and precision are all below 'a' */
		f = decode_flags(f, &pc->flags);
		if (*f == '*')
			pc->flags |= STAR_WIDTH, f++;
		else
			f = decode_number(f, &pc->width);
		if (*f == '.') {	/* taken for %s only: see settle() */
			pc->flags |= HAS_PREC;
			if (*++f == '*')
				pc->flags |= STAR_PREC, f++;
			else
				f = decode_number(f, &pc->prec);
		}
	}
	f = decode_length(f, &pc->len);
	pc->conv = *f;
	return f + 1;
}

/*
 * A conversion with flags: take its '*' values (a negative width is '-', a
 * negative precision none) and refuse what glibc gives a meaning the fast
 * path does not copy: a width too wide, a flag or precision on a
 * conversion it does nothing for here. Return: false when refused.
 */
static ALWAYS_INLINE bool settle(struct plain *pc, va_list *ap)
{
	unsigned int fl = pc->flags;
	char k = pc->conv;

	if (fl & STAR_WIDTH) {
		int w = va_arg(*ap, int);

		if (w < -WIDTH_MAX || w > WIDTH_MAX)
			return false;
		fl |= w < 0 ? PKS_FMT_LEFT : 0;
		pc->width = (size_t)(w < 0 ? -w : w);
	}
	if (fl & STAR_PREC) {
		int m = va_arg(*ap, int);

		if (m < 0)
			fl &= ~(unsigned int)HAS_PREC;
		pc->prec = (size_t)(m < 0 ? 0 : m);
	}
	pc->flags = fl;
	return !((fl & (PKS_FMT_PLUS | PKS_FMT_SPACE) && k != 'd' && k != 'i') ||
		 (fl & PKS_FMT_SPECIAL && k != 'x' && k != 'X') ||
		 (fl & HAS_PREC && k != 's') ||
		 (fl & PKS_FMT_ZEROPAD && (k == 'c' || k == 's')));
}

static ALWAYS_INLINE uintmax_t signed_arg(va_list *ap, int len)
{
	switch (len) {
	case -2: return (uintmax_t)(intmax_t)(signed char)va_arg(*ap, int);
	case -1: return (uintmax_t)(intmax_t)(short)va_arg(*ap, int);
	case 0: return (uintmax_t)(intmax_t)va_arg(*ap, int);
	case 1: return (uintmax_t)(intmax_t)va_arg(*ap, long);
	case 2: return (uintmax_t)va_arg(*ap, intmax_t);
	default: return (uintmax_t)(intmax_t)va_arg(*ap, ptrdiff_t);
	}
}

static ALWAYS_INLINE uintmax_t unsigned_arg(va_list *ap, int len)
{
	switch (len) {
	case -2: return (unsigned char)va_arg(*ap, unsigned int);
	case -1: return (unsigned short)va_arg(*ap, unsigned int);
	case 0: return va_arg(*ap, unsigned int);
	case 1: return va_arg(*ap, unsigned long);
	case 2: return va_arg(*ap, uintmax_t);
	default: return va_arg(*ap, size_t);
	}
}

/* The literal run of the format. Return: the '%' that ends it, or the NUL. */
static ALWAYS_INLINE const char *print_text(struct cursor *c, bool count, const char *f)
{
	const char *pct = strchrnul(f, '%');

	append(c, count, f, (size_t)(pct - f));
	return pct;
}

/* %d %i %u %x %X: the kernel's number(), for the flags the fast path takes. */
static ALWAYS_INLINE void print_int(struct cursor *c, bool count, const struct plain *pc,
				    uintmax_t v)
{
	char tmp[3 * sizeof(uintmax_t)], sign = 0;
	const char *pre = &sign;
	struct digits d;
	size_t npre = 0;

	if (pc->conv == 'x' || pc->conv == 'X') {
		d = hex(count, tmp + sizeof(tmp), v, pc->conv == 'X');
		if (pc->flags & PKS_FMT_SPECIAL && v) {
			pre = pc->conv == 'X' ? "0X" : "0x";
			npre = 2;
		}
	} else {
		if (pc->conv != 'u' && (intmax_t)v < 0) {
			sign = '-';
			v = -v;
		} else if (pc->flags & (PKS_FMT_PLUS | PKS_FMT_SPACE)) {
			sign = pc->flags & PKS_FMT_PLUS ? '+' : ' ';
		}
		d = decimal(count, tmp + sizeof(tmp), v);
		npre = sign != 0;
	}
	field(c, count, d, pre, npre, pc->width, pc->flags & PKS_FMT_LEFT,
	      pc->flags & PKS_FMT_ZEROPAD);
}

/* @nl (a constant NULL where nobody asks): set when the output got a newline. */
static ALWAYS_INLINE void print_char(struct cursor *c, bool count, const struct plain *pc,
				     char ch, bool *nl)
{
	if (nl && ch == '\n')
		*nl = true;
	field(c, count, text(&ch, 1), "", 0, pc->width, pc->flags & PKS_FMT_LEFT, false);
}

/*
 * The length of @s, and whether it holds a newline: one pass when it holds
 * none, which is what a line's strings nearly always are.
 */
static ALWAYS_INLINE size_t measure(const char *s, bool *nl)
{
	const char *e = strchrnul(s, '\n');

	if (likely(!*e))
		return (size_t)(e - s);
	*nl = true;
	return (size_t)(e - s) + strlen(e);
}

/* Return: false for NULL with a precision (glibc: "(null)" or nothing, by the precision). */
static ALWAYS_INLINE bool print_string(struct cursor *c, bool count, const struct plain *pc,
				       const char *s, bool *nl)
{
	bool prec = pc->flags & HAS_PREC;
	size_t n;

	if (!s && prec)
		return false;
	if (!s)
		s = "(null)";
	if (prec) {
		n = strnlen(s, pc->prec);
		if (nl && memchr(s, '\n', n))
			*nl = true;
	} else {
		n = nl ? measure(s, nl) : strlen(s);
	}
	field(c, count, text(s, n), "", 0, pc->width, pc->flags & PKS_FMT_LEFT, false);
	return true;
}

/*
 * One decoded conversion, its arguments taken from @ap; @nl as print_char()'s.
 * Return: 0, or -2 when refused.
 */
static ALWAYS_INLINE int print_conv(struct cursor *c, bool count, struct plain *pc, va_list *ap,
				    bool *nl)
{
	if (pc->flags && !settle(pc, ap))
		return -2;
	switch (pc->conv) {
	case 'd':
	case 'i':
		print_int(c, count, pc, signed_arg(ap, pc->len));
		return 0;
	case 'u':
	case 'x':
	case 'X':
		print_int(c, count, pc, unsigned_arg(ap, pc->len));
		return 0;
	case 'c':
		if (pc->len)	/* %lc %ls: wide characters */
			return -2;
		print_char(c, count, pc, (char)va_arg(*ap, int), nl);
		return 0;
	case 's':
		if (pc->len || !print_string(c, count, pc, va_arg(*ap, const char *), nl))
			return -2;
		return 0;
	default:
		return -2;
	}
}

/*
 * The kernel's vsnprintf() loop, for the plain conversions; @ap is read
 * through a pointer, so that the helpers may take arguments too.
 * Return: 0, or -2 when @f holds anything but the plain conversions.
 */
static ALWAYS_INLINE int print_format(struct cursor *c, bool count, const char *f, va_list *ap)
{
	struct plain pc;

	while (*(f = print_text(c, count, f))) {
		const char *pct = f;

		f = decode(pct + 1, &pc);
		if (pc.conv == '%' && !pc.flags && !pc.len) {
			if (f - pct != 2)
				return -2;
			append(c, count, "%", 1);
		} else if (print_conv(c, count, &pc, ap, NULL)) {
			return -2;
		}
	}
	return c->len > INT32_MAX ? -2 : 0;
}

/* The width, in bits, of @len's argument (@len as struct plain's, not h or hh). */
#define ARG_BITS(len)	((len) == 0 ? 32 : (len) == 1 ? 8 * sizeof(long) : \
			 (len) == 2 ? 64 : 8 * sizeof(size_t))
_Static_assert(sizeof(int) == 4 && sizeof(intmax_t) == 8 && sizeof(long long) == 8,
	       "the tally's argument widths");

/* The op of a decoded conversion that compile() takes. */
static unsigned int op_of(const struct plain *pc)
{
	unsigned int w = pc->len == -2 ? 0 : pc->len == -1 ? 1 : ARG_BITS(pc->len) == 32 ? 2 : 3;

	switch (pc->conv) {
	case 's': return PKS_T_STR;
	case 'c': return PKS_T_CHAR;
	case '%': return PKS_T_PCT;
	case 'u': return PKS_T_U8 + w;
	case 'x':
	case 'X': return PKS_T_X8 + w;
	default: return PKS_T_D8 + w;	/* 'd', 'i' */
	}
}

/*
 * A format's compiled shape: its literal runs located once, its conversions
 * decoded once ("%%" is a conversion that prints '%'). compile() takes what
 * print_format() takes, refusing only what it would refuse whatever the
 * arguments. Return: whether @fmt was compiled into @s (all but its fmt).
 */
static bool compile(struct pks_shape *s, const char *fmt)
{
	size_t n = strlen(fmt);
	const char *f = fmt, *run = fmt;
	struct plain pc;

	if (n >= sizeof(s->text))
		return false;
	s->nconv = 0;
	s->lit = 0;
	s->plain = true;
	s->simple = 0;
	s->strings = false;
	memset(s->tally, PKS_T_END, sizeof(s->tally));
	while (*(f = strchrnul(f, '%'))) {
		const char *pct = f;

		f = decode(pct + 1, &pc);
		if (pc.conv == '%' && !pc.flags && !pc.len && f - pct == 2)
			;	/* "%%" */
		else if (pc.conv == '%' || !pc.conv || !strchr("diuxXcs", pc.conv) ||
			 ((pc.conv == 'c' || pc.conv == 's') && pc.len))
			return false;
		if (s->nconv == PKS_SHAPE_CONV)
			return false;
		s->conv[s->nconv++] = (struct pks_shape_conv){
			(uint16_t)pc.width, (uint16_t)pc.prec, (uint16_t)pc.flags, (int8_t)pc.len,
			pc.conv, (uint8_t)(run - fmt), (uint8_t)(pct - run) };
		s->lit += (uint8_t)(pct - run);
		s->strings |= pc.conv == 's';
		s->plain &= !pc.flags && !pc.width;
		if (pc.conv != '%' && !pc.flags && !pc.width)
			s->simple |= (uint8_t)(1u << (s->nconv - 1));
		s->tally[(s->nconv - 1) / 2] |= (uint8_t)(op_of(&pc) << 4 * ((s->nconv - 1) % 2));
		run = f;
	}
	s->at = (uint8_t)(run - fmt);
	s->n = (uint8_t)(f - run);
	s->lit += s->n;
	s->plain &= s->n > 0;
	s->closes = s->plain && fmt[n - 1] == '\n';
	s->ahead = !s->nconv || s->conv[0].n >= PKS_SHAPE_AHEAD;
	/* A final newline is the output's last byte; any other one is not. */
	s->nl = n > 1 && memchr(fmt, '\n', n - (fmt[n - 1] == '\n'));
	memcpy(s->text, fmt, n + 1);
	return true;
}

/*
 * print_format() for a compiled shape; @nl as print_conv()'s. A constant
 * @count: the copy that measures, or the one that stores.
 * Return: 0, or -2 as print_format().
 */
static ALWAYS_INLINE int print_shape(struct cursor *c, bool count, const struct pks_shape *s,
				     va_list *ap, bool *nl)
{
	for (unsigned int i = 0; i < s->nconv; i++) {
		const struct pks_shape_conv *k = &s->conv[i];
		struct plain pc = { 0, 0, 0, k->len, k->conv };
		int r;

		append(c, count, s->text + k->at, k->n);
		/* Most conversions have no flags and no width: a copy for them alone. */
		if (likely(s->simple >> i & 1)) {
			r = print_conv(c, count, &pc, ap, nl);
		} else if (k->conv == '%') {
			append(c, count, "%", 1);
			continue;
		} else {
			pc = (struct plain){ k->width, k->prec, k->flags, k->len, k->conv };
			r = print_conv(c, count, &pc, ap, nl);
		}
		if (r)
			return -2;
	}
	append(c, count, s->text + s->at, s->n);
	return c->len > INT32_MAX ? -2 : 0;
}

/**
 * pks_shape_learn() - pks_shape_find()'s miss in @cache[@i] and the next
 * slot: @fmt compiled into slot @i, whose shape moves to the next one, or,
 * refused, remembered so when its bytes are fixed
 * Return: the shape, or NULL.
 */
const struct pks_shape *pks_shape_learn(struct pks_shape *cache, size_t n, size_t i,
					const char *fmt, pks_fixed_fn *fixed)
{
	struct pks_shape *s = &cache[i], *next = &cache[i + 1 < n ? i + 1 : 0];
	const char *was = s->fmt;
	bool is_fixed;

	/*
	 * A slot's address is cleared first and set last, fenced, so that a
	 * caller that reads a shape without owning its cache (emit.c
	 * filter()), interrupted by a handler that comes here, finds the
	 * slot it read still its format's, or its copies stale.
	 */
	if (was && next != s) {
		next->fmt = NULL;
		/* pairs with filter()'s, in the thread this handler interrupted */
		atomic_signal_fence(memory_order_seq_cst);
		*next = *s;
		next->fmt = NULL;
		/* pairs with filter()'s, as the one above */
		atomic_signal_fence(memory_order_seq_cst);
		next->fmt = was;
	}
	is_fixed = fixed && fixed(fmt);
	s->fmt = NULL;
	/* pairs with filter()'s, as the one above */
	atomic_signal_fence(memory_order_seq_cst);
	if (!compile(s, fmt)) {
		if (!is_fixed)
			return NULL;	/* its bytes may change, to a format that compiles */
		s->nconv = PKS_SHAPE_REFUSED;
	}
	s->fixed = is_fixed;
	s->steady = is_fixed && s->nconv != PKS_SHAPE_REFUSED && s->ahead;
	s->quick = s->steady && s->closes;
	/* pairs with filter()'s, as the one above */
	atomic_signal_fence(memory_order_seq_cst);
	s->fmt = fmt;
	return s->nconv == PKS_SHAPE_REFUSED ? NULL : s;
}

/**
 * pks_shape_count() - pks_format_count() of the format @s was compiled from
 * Return: as pks_format_count(), having read @ap.
 */
PKS_HOT int pks_shape_count(const struct pks_shape *s, va_list ap, char *last)
{
	struct cursor c = { NULL, NULL, 0, 0 };
	va_list cp;
	int r;

	if (likely(s->plain)) {
		*last = s->text[s->at + s->n - 1];
		va_copy(cp, ap);
		r = pks_tally(s, &cp);
		va_end(cp);
		return r;
	}
	va_copy(cp, ap);
	r = print_shape(&c, true, s, &cp, NULL);
	va_end(cp);
	if (r)
		return -2;
	*last = c.last;
	return (int)c.len;
}

/**
 * pks_shape_bounded() - pks_shape_print() of a shape pks_shape_put() does
 * not take, or not in @size bytes
 */
__attribute__((noinline)) int pks_shape_bounded(const struct pks_shape *s, char *buf, size_t size,
						va_list ap, bool *inner)
{
	struct cursor c = { buf, buf + size - 1, 0, 0 };	/* @size is at least 1 */
	bool nl = s->nl;
	va_list cp;
	int r;

	va_copy(cp, ap);
	r = print_shape(&c, false, s, &cp, &nl);
	va_end(cp);
	*c.p = '\0';
	*inner = nl;
	return r ? -2 : (int)c.len;
}

/**
 * pks_format_count_cached() - pks_format_count(), with the shape of @fmt
 * taken from @cache (see pks_shape_find())
 * @last: out, as pks_format_count()'s
 * Return: as pks_format_count(), having read @ap.
 */
int pks_format_count_cached(struct pks_shape *cache, size_t n, pks_fixed_fn *fixed,
			    const char *fmt, va_list ap, char *last)
{
	const struct pks_shape *s = pks_shape_find(cache, n, fixed, fmt);

	return s ? pks_shape_count(s, ap, last) : pks_format_count(fmt, ap, last);
}

/**
 * pks_format_shaped() - pks_format_fast(), with the shape of @fmt taken from
 * @cache as pks_format_count_cached() does
 * @inner: out; false when the output holds no newline before its last byte
 * Return: as pks_format_fast(), having read @ap.
 */
int pks_format_shaped(struct pks_shape *cache, size_t n, pks_fixed_fn *fixed, char *buf,
		      size_t size, const char *fmt, va_list ap, bool *inner)
{
	const struct pks_shape *s = pks_shape_find(cache, n, fixed, fmt);

	if (s && size)
		return pks_shape_print(s, buf, size, ap, inner);
	*inner = true;
	return pks_format_fast(buf, size, fmt, ap);
}

/**
 * pks_format_fast() - format @fmt if it holds only the plain conversions
 * Return: the length of the whole output, as vsnprintf() (at most @size - 1
 * bytes and a NUL are stored); -2 when @fmt holds anything else, having
 * read @ap (the caller formats from its own copy). Never allocates.
 */
PKS_HOT int pks_format_fast(char *buf, size_t size, const char *fmt, va_list ap)
{
	char dummy;
	struct cursor c = { size ? buf : &dummy, size ? buf + size - 1 : &dummy, 0, 0 };
	va_list cp;		/* a va_list parameter may be an array: &ap is no va_list * */
	int r;

	va_copy(cp, ap);
	r = print_format(&c, false, fmt, &cp);
	va_end(cp);
	if (r)
		return -2;
	*c.p = '\0';
	return (int)c.len;
}

/**
 * pks_format_count() - what pks_format_fast() would return, storing nothing
 * @last: out; the last byte of the output ('\0' when it is empty)
 * Return: the length of the output, or -2 as pks_format_fast(), having
 * read @ap. Numbers are measured, not converted: this is the whole cost of
 * a line that the level filter drops, whose length printk still returns.
 */
int pks_format_count(const char *fmt, va_list ap, char *last)
{
	struct cursor c = { NULL, NULL, 0, 0 };
	va_list cp;
	int r;

	va_copy(cp, ap);
	r = print_format(&c, true, fmt, &cp);
	va_end(cp);
	if (r)
		return -2;
	*last = c.last;
	return (int)c.len;
}
