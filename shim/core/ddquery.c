// SPDX-License-Identifier: MIT
/*
 * Dynamic debug's control language, as lib/dynamic_debug.c reads it
 * (printk-shim(7) DYNAMIC DEBUG): queries split on ';' and newlines, words
 * split on blanks with ' and " quoting, keyword-value pairs, then the flags.
 * A query is kept whole or not at all. Also the decorations and the control
 * file's line of one call site. Pure: no environment, no I/O, no heap.
 */
#include "core/ddquery.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define MAXWORDS	9	/* the kernel's: four pairs and the flags */

struct word { const char *p; size_t n; };

/* The kernel's opt_array: the control file prints the flags in this order. */
static const struct { char c; unsigned int flag; } opts[] = {
	{ 'p', PKS_DD_PRINT }, { 'm', PKS_DD_MODNAME }, { 'f', PKS_DD_FUNCNAME },
	{ 's', PKS_DD_SRCNAME }, { 'l', PKS_DD_LINENO }, { 't', PKS_DD_TID }, { '_', 0 },
};

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* Split @n bytes at @s into words. Return: how many, or -1 with *@why. */
static int tokenize(const char *s, size_t n, struct word *w, const char **why)
{
	const char *e = s + n, *end;
	int nw = 0;

	for (;;) {
		while (s < e && blank(*s))
			s++;
		if (s == e || *s == '#')
			return nw;
		if (nw == MAXWORDS) {
			*why = "too many words, expected at most 4 keyword-value pairs and the flags";
			return -1;
		}
		if (*s == '"' || *s == '\'') {
			end = memchr(s + 1, *s, (size_t)(e - s - 1));
			if (!end) {
				*why = "unclosed quote";
				return -1;
			}
			w[nw++] = (struct word){ s + 1, (size_t)(end - s - 1) };
			s = end + 1;
		} else {
			for (end = s; end < e && !blank(*end); end++)
				;
			w[nw++] = (struct word){ s, (size_t)(end - s) };
			s = end;
		}
	}
}

static bool is(const struct word *w, const char *k)
{
	return w->n == strlen(k) && !memcmp(w->p, k, w->n);
}

/* A copy of @n bytes in the pool, NUL-terminated, or NULL when full. */
static char *keep(struct pks_dd_rules *r, const char *p, size_t n)
{
	char *d;

	if (n >= sizeof(r->pool) - r->used)
		return NULL;
	d = r->pool + r->used;
	memcpy(d, p, n);
	d[n] = '\0';
	r->used += n + 1;
	return d;
}

/* The kernel's string_unescape(UNESCAPE_SPACE | UNESCAPE_OCTAL | UNESCAPE_SPECIAL), in place. */
static void unescape(char *s)
{
	static const char from[] = "fnrtv\"\\ae", to[] = "\f\n\r\t\v\"\\\a\033";
	char *d = s, *k;

	while (*s) {
		if (*s != '\\' || !s[1]) {
			*d++ = *s++;
		} else if (s[1] >= '0' && s[1] <= '7') {
			/* as unescape_octal(): a digit more only while the byte stays below 32 */
			unsigned int v = (unsigned int)(s[1] - '0');
			int i;

			for (i = 2; i <= 3 && v < 32 && s[i] >= '0' && s[i] <= '7'; i++)
				v = v * 8 + (unsigned int)(s[i] - '0');
			*d++ = (char)v;
			s += i;
		} else if ((k = strchr(from, s[1])) != NULL) {
			*d++ = to[k - from];
			s += 2;
		} else {
			*d++ = *s++;	/* unknown: kept as written */
		}
	}
	*d = '\0';
}

/* A line number: digits, a '+' before them as kstrtouint() takes, or empty for none. */
static int lineno(const char *p, size_t n, unsigned int *v)
{
	unsigned long x = 0;

	if (n > 1 && *p == '+')
		p++, n--;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		x = x * 10 + (unsigned long)(p[i] - '0');
		if (x > UINT_MAX)
			return -1;
	}
	*v = (unsigned int)x;
	return 0;
}

#define LINES "a line N, a range N-M, N- or -M"

/* "N", "N-M", "N-" (to the end) or "-M" (from the start), as parse_linerange(). */
static const char *linerange(struct pks_dd_query *q, const char *p, size_t n)
{
	const char *dash = memchr(p, '-', n);

	if (q->first || q->last)
		return "line given twice";
	if (!dash) {	/* empty: any line, as "file x.c:" gives */
		if (lineno(p, n, &q->first))
			return "expected " LINES;
		q->last = q->first;
		return NULL;
	}
	if (lineno(p, (size_t)(dash - p), &q->first) ||
	    lineno(dash + 1, n - (size_t)(dash - p) - 1, &q->last))
		return "expected " LINES;
	if (!q->last)
		q->last = UINT_MAX;
	if (q->last < q->first)
		return "the range's last line is before its first";
	return NULL;
}

/* Set *@dst to a pool copy of @w, once. */
static const char *set(struct pks_dd_rules *r, const char **dst, const struct word *w,
		       const char *name)
{
	static char twice[32];

	if (*dst) {
		snprintf(twice, sizeof(twice), "%s given twice", name);
		return twice;
	}
	*dst = keep(r, w->p, w->n);
	return *dst ? NULL : "no room left for the query's words";
}

/* "file NAME[:FUNC|:LINES]": the kernel's tail after a colon. */
static const char *file(struct pks_dd_rules *r, struct pks_dd_query *q, const struct word *w)
{
	const char *colon = memchr(w->p, ':', w->n);
	struct word tail;
	const char *why;
	char c;

	if (!colon)
		return set(r, &q->file, w, "file");
	tail = (struct word){ colon + 1, w->n - (size_t)(colon - w->p) - 1 };
	why = set(r, &q->file, &(struct word){ w->p, (size_t)(colon - w->p) }, "file");
	if (why)
		return why;
	c = tail.n ? tail.p[0] : '\0';
	if (((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '*' || c == '?')
		return set(r, &q->func, &tail, "func");
	return linerange(q, tail.p, tail.n);
}

static const char *pair(struct pks_dd_rules *r, struct pks_dd_query *q, const struct word *k,
			const struct word *v)
{
	const char *why;

	if (is(k, "func"))
		return set(r, &q->func, v, "func");
	if (is(k, "file"))
		return file(r, q, v);
	if (is(k, "module"))
		return set(r, &q->module, v, "module");
	if (is(k, "line"))
		return linerange(q, v->p, v->n);
	if (is(k, "class"))
		return set(r, &q->cls, v, "class");
	if (is(k, "format")) {
		why = set(r, &q->format, v, "format");
		if (!why)
			unescape((char *)q->format);
		return why;
	}
	return "unknown keyword, expected file, func, line, module, format or class";
}

/* "[+-=][pmfslt_]*": the op, then flags; '=' with none clears them all. */
static const char *flags(struct pks_dd_query *q, const struct word *w)
{
	static char bad[80];
	unsigned int f = 0;
	size_t i, j;

	if (!w->n || !strchr("+-=", w->p[0]))
		return "the flags must start with +, - or =";
	for (i = 1; i < w->n; i++) {
		for (j = 0; j < sizeof(opts) / sizeof(opts[0]) && opts[j].c != w->p[i]; j++)
			;
		if (j == sizeof(opts) / sizeof(opts[0])) {
			snprintf(bad, sizeof(bad),
				 "unknown flag '%c', expected p, m, f, s, l, t or _", w->p[i]);
			return bad;
		}
		f |= opts[j].flag;
	}
	switch (w->p[0]) {
	case '=':
		q->flags = f, q->mask = 0;
		break;
	case '+':
		q->flags = f, q->mask = ~0u;
		break;
	default:
		q->flags = 0, q->mask = ~f;
		break;
	}
	return NULL;
}

/* One query of @n bytes: into the next rule, or NULL after *@why. */
static const char *query(struct pks_dd_rules *r, const char *s, size_t n)
{
	struct pks_dd_query q = { NULL, NULL, NULL, NULL, 0, 0, 0, 0, NULL };
	struct word w[MAXWORDS];
	size_t used = r->used;
	const char *why = NULL;
	int nw = tokenize(s, n, w, &why);

	if (nw < 0)
		return why;
	if (r->n == PKS_DD_QUERIES)
		return "too many queries";
	if (nw % 2 == 0)
		return "expected keyword-value pairs, then the flags";
	for (int i = 0; i + 1 < nw && !why; i += 2)
		why = pair(r, &q, &w[i], &w[i + 1]);
	if (!why)
		why = flags(&q, &w[nw - 1]);
	if (why) {
		r->used = used;	/* the query's words are given back */
		return why;
	}
	r->uses |= (q.file ? PKS_DD_USES_FILE : 0) | (q.first || q.last ? PKS_DD_USES_LINE : 0);
	r->q[r->n] = q;
	/* pairs with pks_dd_apply()'s acquire: a rule is whole before it counts */
	__atomic_store_n(&r->n, r->n + 1, __ATOMIC_RELEASE);
	return NULL;
}

/**
 * pks_dd_parse() - read the queries of @text into @r
 * @bad: told of each query ignored, with the reason
 * Return: the number of queries kept.
 */
int pks_dd_parse(struct pks_dd_rules *r, const char *text, pks_dd_bad_fn *bad, void *arg)
{
	memset(r, 0, sizeof(*r) - sizeof(r->pool));
	return pks_dd_parse_more(r, text, bad, arg);
}

/**
 * pks_dd_parse_more() - @text's queries added after @r's rules, as writes
 * to the kernel's control file add to the flags; a reader of @r meanwhile
 * sees each rule whole or not at all. Return: the rules now.
 */
int pks_dd_parse_more(struct pks_dd_rules *r, const char *text, pks_dd_bad_fn *bad, void *arg)
{
	const char *s = text, *e, *why;

	for (;; s = e + 1) {
		e = s + strcspn(s, ";\n");
		while (s < e && blank(*s))
			s++;
		if (s < e && *s != '#' && (why = query(r, s, (size_t)(e - s))) != NULL)
			bad(arg, s, (size_t)(e - s), why);
		if (!*e)
			return r->n;
	}
}

/* Whether @a and @b are the same words, or both none. */
static bool same_word(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Whether @a and @b pick the same sites: the same words and lines. */
static bool same_sites(const struct pks_dd_query *a, const struct pks_dd_query *b)
{
	return same_word(a->file, b->file) && same_word(a->func, b->func) &&
	       same_word(a->module, b->module) && same_word(a->format, b->format) &&
	       same_word(a->cls, b->cls) && a->first == b->first && a->last == b->last;
}

/* The flags @q sets whatever they were: each flag of a site is changed alone. */
static unsigned int decides(const struct pks_dd_query *q)
{
	return ~q->mask | q->flags;
}

/* *@w, if any, kept in @r's pool instead. Return: false when the pool has no room for it. */
static bool rekeep(struct pks_dd_rules *r, const char **w)
{
	return !*w || (*w = keep(r, *w, strlen(*w)));
}

/* The @i-th rule of @a's @na then @b's. */
static const struct pks_dd_query *nth(const struct pks_dd_rules *a, int na,
				      const struct pks_dd_rules *b, int i)
{
	return i < na ? &a->q[i] : &b->q[i - na];
}

/**
 * pks_dd_compact() - @src's rules, then @more's if not NULL, into @dst,
 * every site's flags after them unchanged: a rule whose every flag a later
 * rule for the same sites decides is left out (a query turned on and off
 * again), and two rules for the same sites, one after the other, are made
 * one. @dst's words are its own, no more than theirs.
 * Return: the rules in @dst, or -1 when even so they pass its room
 * (PKS_DD_QUERIES, PKS_DD_POOL): @dst is then left half made.
 */
int pks_dd_compact(struct pks_dd_rules *dst, const struct pks_dd_rules *src,
		   const struct pks_dd_rules *more)
{
	/* acquire: pairs with query()'s release, as pks_dd_apply()'s; the same for @more's */
	int na = __atomic_load_n(&src->n, __ATOMIC_ACQUIRE), k = 0;
	int n = na + (more ? __atomic_load_n(&more->n, __ATOMIC_ACQUIRE) : 0);

	dst->used = 0;
	dst->uses = 0;
	for (int i = 0; i < n; i++) {
		const struct pks_dd_query *q = nth(src, na, more, i);
		struct pks_dd_query *last = k ? &dst->q[k - 1] : NULL, *d;
		bool decided = false;

		for (int j = i + 1; j < n && !decided; j++)
			decided = same_sites(q, nth(src, na, more, j)) &&
				  !(decides(q) & ~decides(nth(src, na, more, j)));
		if (decided)
			continue;
		if (last && same_sites(last, q)) {
			/* (x & m1 | f1) & m2 | f2 = x & (m1 & m2) | (f1 & m2 | f2) */
			last->flags = (last->flags & q->mask) | q->flags;
			last->mask &= q->mask;
			continue;
		}
		if (k == PKS_DD_QUERIES)
			return -1;
		d = &dst->q[k++];
		*d = *q;
		if (!rekeep(dst, &d->file) || !rekeep(dst, &d->func) || !rekeep(dst, &d->module) ||
		    !rekeep(dst, &d->format) || !rekeep(dst, &d->cls))
			return -1;
		dst->uses |= (q->file ? PKS_DD_USES_FILE : 0) |
			     (q->first || q->last ? PKS_DD_USES_LINE : 0);
	}
	/* pairs with pks_dd_apply()'s acquire, as query()'s */
	__atomic_store_n(&dst->n, k, __ATOMIC_RELEASE);
	return k;
}

/**
 * pks_dd_wild() - the kernel's match_wildcard(): '*' any run, '?' any one byte
 * Return: whether @pat matches all of @s.
 */
bool pks_dd_wild(const char *pat, const char *s)
{
	const char *star = NULL, *from = s;

	while (*s) {
		if (*pat == '*') {
			star = ++pat;
			from = s;
		} else if (*pat == '?' || *pat == *s) {
			pat++, s++;
		} else if (star) {
			pat = star;
			s = ++from;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}

static const char *base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/**
 * pks_dd_object_name() - the kernel's name for the object at @path: its
 * base name up to the first '.', in @dst (@size > 0). Return: its length.
 */
size_t pks_dd_object_name(char *dst, size_t size, const char *path)
{
	const char *b = base(path);
	size_t n = strcspn(b, ".");

	n = n < size ? n : size - 1;
	memcpy(dst, b, n);
	dst[n] = '\0';
	return n;
}

static bool match(const struct pks_dd_query *q, const struct pks_dd_site *s)
{
	const char *at;

	/* The kernel's rule: a classed site changes only by a query naming its class. */
	if (q->cls ? !s->class_name || strcmp(q->cls, s->class_name) : s->classed)
		return false;
	if (q->module && !(s->module && pks_dd_wild(q->module, s->module)))
		return false;
	if (q->file && !(s->filename && (pks_dd_wild(q->file, s->filename) ||
					 pks_dd_wild(q->file, base(s->filename)))))
		return false;
	if (q->func && !(s->function && pks_dd_wild(q->func, s->function)))
		return false;
	if (q->format) {
		if (!s->format)
			return false;
		if (q->format[0] == '^') {	/* anchored at the start */
			at = strstr(s->format, q->format + 1);
			if (at != s->format)
				return false;
		} else if (!strstr(s->format, q->format)) {
			return false;
		}
	}
	if ((q->first || q->last) && !s->lineno)
		return false;
	if (q->first && s->lineno < q->first)
		return false;
	return !(q->last && s->lineno > q->last);
}

/** pks_dd_apply() - Return: @flags of site @s after every rule, in order. */
unsigned int pks_dd_apply(const struct pks_dd_rules *r, const struct pks_dd_site *s,
			  unsigned int flags)
{
	/* acquire: pairs with the release of r->n when a query is added */
	int n = __atomic_load_n(&r->n, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++)
		if (match(&r->q[i], s))
			flags = (flags & r->q[i].mask) | r->q[i].flags;
	return flags;
}

/* snprintf's count, kept within the room left, as the kernel's remaining(). */
#define PUT(...) (pos += (size_t)snprintf(pos < size ? buf + pos : NULL,		\
					   pos < size ? size - pos : 0, __VA_ARGS__))

/**
 * pks_dd_prefix() - the kernel's dynamic_emit_prefix(): "[tid] " (or
 * "<intr> " for @tid < 0, in a signal handler), then "module:", "function:",
 * "file:", "line:" for the flags that ask, and a space after any of those.
 * An unknown field is left out.
 * Return: the length, truncated to @size - 1.
 */
size_t pks_dd_prefix(char *buf, size_t size, unsigned int flags, const struct pks_dd_site *s,
		     long tid)
{
	size_t pos = 0, after_tid;

	buf[0] = '\0';
	if (flags & PKS_DD_TID) {
		if (tid < 0)
			PUT("<intr> ");
		else
			PUT("[%ld] ", tid);
	}
	after_tid = pos;
	if ((flags & PKS_DD_MODNAME) && s->module)
		PUT("%s:", s->module);
	if ((flags & PKS_DD_FUNCNAME) && s->function)
		PUT("%s:", s->function);
	if ((flags & PKS_DD_SRCNAME) && s->filename)
		PUT("%s:", s->filename);
	if ((flags & PKS_DD_LINENO) && s->lineno)
		PUT("%u:", s->lineno);
	if (pos != after_tid)
		PUT(" ");
	return pos < size ? pos : size - 1;
}

/** pks_dd_flags_text() - @flags as the control file shows them; @buf holds 8. */
size_t pks_dd_flags_text(char *buf, unsigned int flags)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (flags & opts[i].flag)
			buf[n++] = opts[i].c;
	if (!n)
		buf[n++] = '_';
	buf[n] = '\0';
	return n;
}

/**
 * pks_dd_site_text() - "file:line [module]function =flags \"format\"\n", as
 * the kernel's control file: tab, CR and newline in the format escaped as
 * \t, \r, \n (seq_escape_str() with ESCAPE_SPACE), nothing else; a classed
 * site ends in " class:NAME", or " class unknown, _id:N" if no map names it.
 * Return: the length it needs; what fits of it is in @buf.
 */
size_t pks_dd_site_text(char *buf, size_t size, const struct pks_dd_site *s, unsigned int flags)
{
	char f[8];
	size_t pos = 0;
	const char *p;

	pks_dd_flags_text(f, flags);
	PUT("%s:%u [%s]%s =%s \"", s->filename ? s->filename : "", s->lineno,
	    s->module ? s->module : "", s->function ? s->function : "", f);
	for (p = s->format ? s->format : ""; *p; p++) {
		if (*p == '\t')
			PUT("\\t");
		else if (*p == '\r')
			PUT("\\r");
		else if (*p == '\n')
			PUT("\\n");
		else
			PUT("%c", *p);
	}
	PUT("\"");
	if (s->classed && s->class_name)
		PUT(" class:%s", s->class_name);
	else if (s->classed)
		PUT(" class unknown, _id:%u", s->class_id);
	PUT("\n");
	return pos;
}
