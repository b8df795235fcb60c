// SPDX-License-Identifier: MIT
/*
 * The walk over a format string: the fast path, the C library's conversions
 * one at a time, and the dispatch of %p extensions to their printers; it
 * prints only %pV itself, re-entering the walk. What each conversion does is
 * printk-shim(7), KERNEL FORMAT EXTENSIONS.
 * Thread-safety: no state; reentrant, and async-signal-safe as far as the
 * C library's snprintf() is (the %pS family is not; see sym.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "format/format.h"
#include "format/internal.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define FIELD_WIDTH_MAX	((1 << 23) - 1)	/* the kernel's clamps */
#define PRECISION_MAX	((1 << 15) - 1)
#define SPEC_TEXT_MAX	64		/* longer specs are compacted (spec_text()) */
#define VA_DEPTH_MAX	8		/* %pV inside %pV inside ... */

/* What scan() finds in a format. */
enum {
	SCAN_ENGINE	= 1,	/* a p or n conversion: the walk is needed */
	SCAN_NOUT	= 2,	/* an n conversion */
	SCAN_POS	= 4,	/* a positional (%1$d) conversion */
};

/* Every character the C library accepts between '%' and the conversion. */
static const unsigned char spec_char[256] = {
	['-'] = 1, ['+'] = 1, [' '] = 1, ['#'] = 1, ['\''] = 1, ['I'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1,
	['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, ['.'] = 1, ['*'] = 1,
	['h'] = 1, ['l'] = 1, ['L'] = 1, ['q'] = 1, ['j'] = 1, ['z'] = 1,
	['Z'] = 1, ['t'] = 1, ['w'] = 1, ['$'] = 2,
};

/* What one conversion takes from the arguments. */
enum kind { K_BAD, K_INT, K_FLT, K_CHR, K_STR, K_PTR, K_NOUT, K_NOARG };

static const unsigned char kind_of[128] = {
	['d'] = K_INT, ['i'] = K_INT, ['o'] = K_INT, ['u'] = K_INT,
	['x'] = K_INT, ['X'] = K_INT, ['b'] = K_INT, ['B'] = K_INT,
	['e'] = K_FLT, ['E'] = K_FLT, ['f'] = K_FLT, ['F'] = K_FLT,
	['g'] = K_FLT, ['G'] = K_FLT, ['a'] = K_FLT, ['A'] = K_FLT,
	['c'] = K_CHR, ['C'] = K_CHR, ['s'] = K_STR, ['S'] = K_STR,
	['p'] = K_PTR, ['n'] = K_NOUT, ['m'] = K_NOARG, ['%'] = K_NOARG,
};

/* The C type of an argument, as the C library will read it. */
enum atype {
	A_NONE, A_INT, A_LONG, A_LLONG, A_INTMAX, A_SIZE, A_PTRDIFF,
	A_DOUBLE, A_LDOUBLE, A_PTR, A_WINT,
};

union arg {
	int i;
	long l;
	long long ll;
	intmax_t j;
	size_t z;
	ptrdiff_t t;
	double d;
	long double ld;
	const void *p;
	wint_t wc;
};

/* One conversion: pointers into the format, nothing fetched yet. */
struct conv {
	const char *start;	/* the '%' */
	const char *flags, *width, *prec, *len, *ext;
	int nflags, nwidth, nprec, nlen;	/* text lengths; nprec counts the '.' */
	int star_w, star_p;	/* '*' width, '*' precision */
	char c;			/* the conversion character */
	int to_slow;		/* puts glibc's printf on its slow path */
	enum kind kind;
	const char *next;	/* the format after it */
};

static int is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/*
 * glibc takes one length modifier, so "%hl%n" is "%hl" (invalid) and "%n"
 * to it, where scan() sees "%hl%" and "n". Once the two may disagree on
 * where a conversion starts, any '%' from @f on may start one: could it
 * be an n conversion?
 */
static int maybe_nout(const char *f)
{
	for (; (f = strchr(f, '%')); f++) {
		const char *q = f + 1;

		while (*q && spec_char[(unsigned char)*q])
			q++;
		if (*q == 'n')
			return 1;
	}
	return 0;
}

/* One cheap pass: strchr() from '%' to '%', a table for what is between. */
static inline unsigned int scan(const char *f)
{
	unsigned int r = 0;

	while ((f = strchr(f, '%'))) {
		const char *pct = f;
		unsigned char c;

		while ((c = *++f) && spec_char[c])
			if (spec_char[c] == 2)
				r |= SCAN_POS;
		if (c == 'p')
			r |= SCAN_ENGINE;
		else if (c == 'n')
			r |= SCAN_ENGINE | SCAN_NOUT;
		else if (c == '%' && f > pct + 1 && maybe_nout(f))
			r |= SCAN_ENGINE | SCAN_NOUT;
		if (c)
			f++;
	}
	return r;
}

/* hh h ll l L q j z Z t: the length of the length modifier at @p. */
static int length_mod(const char *p)
{
	if ((p[0] == 'h' || p[0] == 'l') && p[1] == p[0])
		return 2;
	return *p && strchr("hlLqjzZt", *p) ? 1 : 0;
}

/* Split the conversion at @pct; K_BAD for anything unusual. */
static void parse(const char *pct, struct conv *cv)
{
	const char *p = pct + 1;

	memset(cv, 0, sizeof(*cv));
	cv->start = pct;
	cv->flags = p;
	cv->nflags = strspn(p, "-+ #0'I");
	p += cv->nflags;
	cv->width = p;
	cv->star_w = *p == '*';
	cv->nwidth = cv->star_w ? 1 : (int)strspn(p, "0123456789");
	p += cv->nwidth;
	cv->prec = p;
	if (*p == '.') {
		cv->star_p = p[1] == '*';
		cv->nprec = 1 + (cv->star_p ? 1 : (int)strspn(p + 1, "0123456789"));
		p += cv->nprec;
	}
	cv->len = p;
	cv->nlen = length_mod(p);
	p += cv->nlen;
	cv->c = *p;
	cv->kind = (unsigned char)*p < 128 ? kind_of[(unsigned char)*p] : K_BAD;
	cv->next = *p ? p + 1 : p;
	cv->ext = cv->next;
	cv->to_slow = cv->nlen == 1 && cv->len[0] == 'h' && *p &&
		      !strchr("diouxXbBn%", *p);
	if (cv->kind == K_PTR)
		while (is_alnum(*cv->next))
			cv->next++;
}

/* The C library's idea of l: ll, L, q, and j, z, t wider than long. */
static int is_long_double(const struct conv *cv)
{
	switch (cv->nlen ? cv->len[0] : 0) {
	case 'l':
		return cv->nlen == 2;
	case 'L':
	case 'q':
		return 1;
	case 'j':
		return sizeof(intmax_t) > sizeof(long);
	case 'z':
	case 'Z':
		return sizeof(size_t) > sizeof(long);
	case 't':
		return sizeof(ptrdiff_t) > sizeof(long);
	}
	return 0;
}

static int is_wide(const struct conv *cv)
{
	return cv->c == 'C' || cv->c == 'S' ||
	       (cv->nlen && cv->len[0] != 'h');
}

static enum atype int_type(const struct conv *cv)
{
	switch (cv->nlen ? cv->len[0] : 0) {
	case 'l':
		return cv->nlen == 2 ? A_LLONG : A_LONG;
	case 'L':
	case 'q':
		return A_LLONG;
	case 'j':
		return A_INTMAX;
	case 'z':
	case 'Z':
		return A_SIZE;
	case 't':
		return A_PTRDIFF;
	}
	return A_INT;
}

static enum atype arg_type(const struct conv *cv)
{
	switch (cv->kind) {
	case K_INT:
		return int_type(cv);
	case K_FLT:
		return is_long_double(cv) ? A_LDOUBLE : A_DOUBLE;
	case K_CHR:
		return is_wide(cv) ? A_WINT : A_INT;
	case K_STR:
		return A_PTR;
	default:
		return A_NONE;
	}
}

static void fetch(va_list *ap, enum atype t, union arg *a)
{
	switch (t) {
	case A_INT:	a->i = va_arg(*ap, int); break;
	case A_LONG:	a->l = va_arg(*ap, long); break;
	case A_LLONG:	a->ll = va_arg(*ap, long long); break;
	case A_INTMAX:	a->j = va_arg(*ap, intmax_t); break;
	case A_SIZE:	a->z = va_arg(*ap, size_t); break;
	case A_PTRDIFF:	a->t = va_arg(*ap, ptrdiff_t); break;
	case A_DOUBLE:	a->d = va_arg(*ap, double); break;
	case A_LDOUBLE:	a->ld = va_arg(*ap, long double); break;
	case A_PTR:	a->p = va_arg(*ap, const void *); break;
	case A_WINT:	a->wc = va_arg(*ap, wint_t); break;
	case A_NONE:	break;
	}
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

/* The '*' values of a conversion, in order: glibc is handed the '*' itself. */
struct stars {
	int n;
	int v[2];
};

#define WITH_STARS(x)							\
	(st->n == 0 ? snprintf(dst, n, spec, x) :			\
	 st->n == 1 ? snprintf(dst, n, spec, st->v[0], x) :		\
		      snprintf(dst, n, spec, st->v[0], st->v[1], x))

/* One conversion through the C library: exactly what its printf prints. */
static int call(char *dst, size_t n, const char *spec, const struct stars *st,
		enum atype t, const union arg *a)
{
	switch (t) {
	case A_INT:	return WITH_STARS(a->i);
	case A_LONG:	return WITH_STARS(a->l);
	case A_LLONG:	return WITH_STARS(a->ll);
	case A_INTMAX:	return WITH_STARS(a->j);
	case A_SIZE:	return WITH_STARS(a->z);
	case A_PTRDIFF:	return WITH_STARS(a->t);
	case A_DOUBLE:	return WITH_STARS(a->d);
	case A_LDOUBLE:	return WITH_STARS(a->ld);
	case A_PTR:	return WITH_STARS(a->p);
	case A_WINT:	return WITH_STARS(a->wc);
	case A_NONE:	break;
	}
	if (st->n == 1)
		return snprintf(dst, n, spec, st->v[0]);
	if (st->n == 2)
		return snprintf(dst, n, spec, st->v[0], st->v[1]);
	return snprintf(dst, n, spec);
}

/* The rest of the format, from @fmt on, as the C library prints it. */
static void put_vsnprintf(struct pks_fmt_buf *b, const char *fmt, va_list *ap)
{
	char *dst = b->len < b->size ? b->buf + b->len : NULL;
	int r;

	errno = b->err;
	r = vsnprintf(dst, dst ? b->size - b->len : 0, fmt, *ap);
	if (r < 0)
		b->fail = errno ? errno : EINVAL;
	else
		b->len += r;
}

#pragma GCC diagnostic pop

static void put_call(struct pks_fmt_buf *b, const char *spec,
		     const struct stars *st, enum atype t, const union arg *a)
{
	char *dst = b->len < b->size ? b->buf + b->len : NULL;
	int r;

	errno = b->err;		/* for %m */
	r = call(dst, dst ? b->size - b->len : 0, spec, st, t, a);
	if (r < 0)
		b->fail = errno ? errno : EINVAL;
	else
		b->len += r;
}

static int clamp(long v, long max)
{
	return v > max ? max : v < -max ? -max : v;
}

/* The kernel's reading of the field, for a %p conversion. */
static struct pks_fmt_spec kernel_spec(const struct conv *cv, int width,
				       int prec)
{
	static const char letters[] = "-+ #0";
	static const unsigned int bits[] = {
		PKS_FMT_LEFT, PKS_FMT_PLUS, PKS_FMT_SPACE, PKS_FMT_SPECIAL,
		PKS_FMT_ZEROPAD };
	struct pks_fmt_spec sp = { .width = -1, .prec = -1 };

	for (int i = 0; i < cv->nflags; i++) {
		const char *hit = strchr(letters, cv->flags[i]);

		if (hit)
			sp.flags |= bits[hit - letters];
	}
	if (cv->star_w) {
		sp.width = clamp(width, FIELD_WIDTH_MAX);
		if (sp.width < 0) {
			sp.flags |= PKS_FMT_LEFT;
			sp.width = -sp.width;
		}
	} else if (cv->nwidth) {
		sp.width = clamp(strtol(cv->width, NULL, 10), FIELD_WIDTH_MAX);
	}
	if (cv->star_p)
		sp.prec = prec < 0 ? 0 : clamp(prec, PRECISION_MAX);
	else if (cv->nprec > 1)
		sp.prec = clamp(strtol(cv->prec + 1, NULL, 10), PRECISION_MAX);
	return sp;
}

struct va_format_k {		/* include/linux/printk.h */
	const char *fmt;
	va_list *va;
};

/* %pV: the inner format goes to the same output, one level deeper. */
static void ext_va_format(struct pks_fmt_buf *b, const void *ptr,
			  const char *ext, struct pks_fmt_spec sp)
{
	const struct va_format_k *vf = ptr;
	va_list ap;

	(void)ext;
	if (pks_fmt_bad_ptr(b, ptr, sp) || pks_fmt_bad_ptr(b, vf->fmt, sp))
		return;
	if (b->depth >= VA_DEPTH_MAX) {
		pks_fmt_errstr(b, "(%pV?)", sp);
		return;
	}
	va_copy(ap, *vf->va);
	b->depth++;
	pks_fmt_vprintf(b, vf->fmt, &ap);
	b->depth--;
	va_end(ap);
}

/*
 * %pfw is a firmware node. %pF, %pFR, %pf and %pfR alone are the old names
 * of %pS and %ps; any other word starting with f or F is unknown.
 */
static void ext_f(struct pks_fmt_buf *b, const void *ptr, const char *ext,
		  struct pks_fmt_spec sp)
{
	const char *end = ext + 1 + (ext[1] == 'R');

	if (ext[0] == 'f' && ext[1] == 'w')
		pks_fmt_ext_kobj(b, ptr, ext, sp);
	else if (!is_alnum(*end))
		pks_fmt_ext_symbol(b, ptr, ext, sp);
	else
		pks_fmt_ext_hashed(b, ptr, ext, sp);
}

static pks_fmt_ext_fn *const ext_table[128] = {
	['S'] = pks_fmt_ext_symbol, ['s'] = pks_fmt_ext_symbol,
	['B'] = pks_fmt_ext_symbol, ['F'] = ext_f, ['f'] = ext_f,
	['x'] = pks_fmt_ext_raw, ['K'] = pks_fmt_ext_hashed,
	['a'] = pks_fmt_ext_addr, ['N'] = pks_fmt_ext_netdev,
	['e'] = pks_fmt_ext_errptr,
	['M'] = pks_fmt_ext_mac, ['m'] = pks_fmt_ext_mac,
	['I'] = pks_fmt_ext_ip, ['i'] = pks_fmt_ext_ip,
	['h'] = pks_fmt_ext_hex, ['E'] = pks_fmt_ext_escape,
	['b'] = pks_fmt_ext_bitmap, ['U'] = pks_fmt_ext_uuid,
	['4'] = pks_fmt_ext_fourcc, ['V'] = ext_va_format,
	['t'] = pks_fmt_ext_time,
	['r'] = pks_fmt_ext_resource, ['R'] = pks_fmt_ext_resource,
	['d'] = pks_fmt_ext_kobj, ['D'] = pks_fmt_ext_kobj,
	['C'] = pks_fmt_ext_kobj, ['g'] = pks_fmt_ext_kobj,
	['G'] = pks_fmt_ext_kobj, ['O'] = pks_fmt_ext_kobj,
	['k'] = pks_fmt_ext_kstr, ['u'] = pks_fmt_ext_kstr,
};

static void put_ext(struct pks_fmt_buf *b, const struct conv *cv,
		    const struct stars *st, const void *ptr)
{
	unsigned char c = *cv->ext;
	pks_fmt_ext_fn *fn = c < 128 && is_alnum(c) ? ext_table[c] : NULL;
	int width = cv->star_w ? st->v[0] : 0;
	int prec = cv->star_p ? st->v[st->n - 1] : -1;

	if (!fn)
		fn = pks_fmt_ext_hashed;
	fn(b, ptr, cv->ext, kernel_spec(cv, width, prec));
}

/*
 * glibc's printf leaves its fast path for good at a conversion its tables
 * do not expect (an 'h' before s, c, f, p, m ...); what follows is then
 * printed by its positional code, which differs in corners (%Lu has 32
 * bits, a negative '*' width keeps '0' padding). "%.0hm" takes that path
 * without printing or reading anything, so each later conversion is
 * handed to it with that prefix.
 */
#define SLOW_PREFIX	"%.0hm"

/*
 * @cv's text, SPEC_TEXT_MAX bytes at most, at @out: as written, or with
 * each flag once and a precision's leading zeros gone, which mean the
 * same ("%0000000005d" is "%05d").
 * Return: its length, or 0 when it is longer even so.
 */
static size_t spec_text(const struct conv *cv, char *out)
{
	size_t n = (size_t)(cv->next - cv->start), w, p;
	const char *digits = cv->prec + 1;
	char *o = out;

	if (n <= SPEC_TEXT_MAX) {
		memcpy(out, cv->start, n);
		return n;
	}
	*o++ = '%';
	for (int i = 0; i < cv->nflags; i++)
		if (!memchr(out + 1, cv->flags[i], (size_t)(o - out - 1)))
			*o++ = cv->flags[i];
	p = cv->nprec && !cv->star_p ? strspn(digits, "0") : 0;
	if (p && p == (size_t)cv->nprec - 1)
		p--;		/* ".000" is ".0" */
	w = (size_t)cv->nwidth + (size_t)cv->nprec - p + (size_t)cv->nlen + 1;
	if ((size_t)(o - out) + w > SPEC_TEXT_MAX)
		return 0;
	o = mempcpy(o, cv->width, (size_t)cv->nwidth);
	if (cv->nprec) {
		*o++ = '.';
		o = mempcpy(o, cv->prec + 1 + p, (size_t)cv->nprec - 1 - p);
	}
	o = mempcpy(o, cv->len, (size_t)cv->nlen);
	*o++ = cv->c;
	return (size_t)(o - out);
}

static void convert(struct pks_fmt_buf *b, const struct conv *cv, va_list *ap,
		    int slow)
{
	char spec[sizeof(SLOW_PREFIX) + SPEC_TEXT_MAX];
	size_t pre = slow ? strlen(SLOW_PREFIX) : 0;
	enum atype t = arg_type(cv);
	struct stars st = { 0 };
	union arg a;

	if (cv->star_w)
		st.v[st.n++] = va_arg(*ap, int);
	if (cv->star_p)
		st.v[st.n++] = va_arg(*ap, int);
	if (cv->kind == K_PTR) {
		put_ext(b, cv, &st, va_arg(*ap, const void *));
		return;
	}
	if (cv->kind == K_NOUT) {
		(void)va_arg(*ap, void *);	/* the kernel never writes %n */
		return;
	}
	if (cv->c == '%' && cv->next == cv->start + 2) {
		pks_fmt_putc(b, '%');
		return;
	}
	memcpy(spec, SLOW_PREFIX, pre);
	spec[pre + spec_text(cv, spec + pre)] = '\0';	/* walk() saw it fit */
	fetch(ap, t, &a);
	put_call(b, spec, &st, t, &a);
}

/* From a conversion the walk does not know on, the C library decides;
 * but an n conversion there is never handed to it: output stops. */
static void put_rest(struct pks_fmt_buf *b, const char *pct, va_list *ap,
		     int slow)
{
	char rest[512];
	size_t n = strlen(pct);

	if (scan(pct) & SCAN_NOUT)
		return;
	if (slow && n < sizeof(rest) - sizeof(SLOW_PREFIX)) {
		memcpy(mempcpy(rest, SLOW_PREFIX, strlen(SLOW_PREFIX)), pct, n + 1);
		pct = rest;
	}
	put_vsnprintf(b, pct, ap);
}

static void walk(struct pks_fmt_buf *b, const char *f, va_list *ap)
{
	char spec[SPEC_TEXT_MAX];
	struct conv cv;
	int slow = 0;

	while (*f && !b->fail) {
		const char *pct = strchrnul(f, '%');

		pks_fmt_put(b, f, pct - f);
		if (!*pct)
			return;
		parse(pct, &cv);
		if (cv.kind == K_BAD || (cv.kind != K_PTR && !spec_text(&cv, spec))) {
			put_rest(b, pct, ap, slow);
			return;
		}
		convert(b, &cv, ap, slow);
		slow |= cv.to_slow;
		f = cv.next;
	}
}

/**
 * pks_fmt_vprintf() - format @fmt into @b, choosing the path
 * Return: nothing; @b->len grows, @b->fail is set when the C library fails.
 */
void pks_fmt_vprintf(struct pks_fmt_buf *b, const char *fmt, va_list *ap)
{
	unsigned int s = scan(fmt);

	if (!(s & SCAN_ENGINE) || s == (SCAN_ENGINE | SCAN_POS))
		put_vsnprintf(b, fmt, ap);
	else if (s & SCAN_POS)
		pks_fmt_put(b, fmt, strchrnul(fmt, '%') - fmt);
	else
		walk(b, fmt, ap);
}

/* The walk, for a format that needs it; pks_vsnprintf()'s return value. */
static int format_slow(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct pks_fmt_buf b = { .buf = buf, .size = size, .err = errno };
	va_list cp;

	va_copy(cp, ap);
	pks_fmt_vprintf(&b, fmt, &cp);
	va_end(cp);
	if (size)
		buf[b.len < size ? b.len : size - 1] = '\0';
	if (b.fail || b.len > INT_MAX) {
		errno = b.fail ? b.fail : EOVERFLOW;
		return -1;
	}
	errno = b.err;
	return (int)b.len;
}

int pks_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	if (!fmt)
		fmt = "(null)";
	va_copy(cp, ap);
	n = pks_format_fast(buf, size, fmt, cp);
	va_end(cp);
	if (__builtin_expect(n != -2, 1))
		return n;
	if (!(scan(fmt) & SCAN_ENGINE)) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		return vsnprintf(buf, size, fmt, ap);
#pragma GCC diagnostic pop
	}
	return format_slow(buf, size, fmt, ap);
}
