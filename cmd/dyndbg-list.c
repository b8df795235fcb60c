// SPDX-License-Identifier: MIT
/*
 * printk-shim --dyndbg-list BINARY...: each struct _ddebug in a binary's
 * __dyndbg section, read from the file (elf/elf.c applies the relative
 * relocations), printed as the kernel's control file prints a call site,
 * with the flags that PRINTK_SHIM_DYNDBG would give it (printk-shim(1)).
 * Every string from the file, and its name, is escaped as --index escapes
 * (core/escape.c): a newline in a descriptor forges no site line, and no
 * control sequence reaches the terminal.
 * A descriptor is four pointers and two 32-bit words, 8-byte aligned, in
 * the file's class and byte order (include/linux/dynamic_debug.h), the
 * first word holding lineno:18 and class_id:6; a class map in
 * __dyndbg_classes is two pointers and three 32-bit words.
 */
#include "cmd/dyndbg-list.h"
#include "cmd/shrunk.h"
#include "cmd/quote.h"
#include "core/ddquery.h"
#include "core/escape.h"
#include "elf/elf.h"

#include <errno.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ctx {
	const struct pks_dd_rules *rules;
	pks_ddlist_warn_fn *warn;
};

struct site {
	struct pks_dd_site s;
	unsigned int flags;
};

/* By file, then line: the order of the source, whatever the compiler's. */
static int by_place(const void *a, const void *b)
{
	const struct pks_dd_site *x = &((const struct site *)a)->s;
	const struct pks_dd_site *y = &((const struct site *)b)->s;
	int c = x->filename == y->filename ? 0 :	/* one string, maybe megabytes */
		strcmp(x->filename ? x->filename : "", y->filename ? y->filename : "");

	return c ? c : (x->lineno > y->lineno) - (x->lineno < y->lineno);
}

/* @s escaped (core/escape.c), malloc'ed; NULL stays NULL, and so does memory running out. */
static char *escaped(const char *s)
{
	size_t n = s ? pks_escape(NULL, 0, s) + 1 : 0;
	char *e = s ? malloc(n) : NULL;

	if (e)
		pks_escape(e, n, s);
	return e;
}

static void print(const struct site *t)
{
	struct pks_dd_site s = {
		escaped(t->s.module), escaped(t->s.function), escaped(t->s.filename),
		escaped(t->s.format), t->s.lineno, t->s.classed, t->s.class_id,
		escaped(t->s.class_name),
	};
	char line[1024], *big;
	size_t len = pks_dd_site_text(line, sizeof(line), &s, t->flags);

	if (len < sizeof(line)) {
		fputs(line, stdout);
	} else if ((big = malloc(len + 1)) != NULL) {
		pks_dd_site_text(big, len + 1, &s, t->flags);
		fputs(big, stdout);
		free(big);
	}
	free((char *)s.module);
	free((char *)s.function);
	free((char *)s.filename);
	free((char *)s.format);
	free((char *)s.class_name);
}

/*
 * The word of lineno:18 and class_id:6 as the compiler lays bit-fields out:
 * from the low bits on a little-endian target, from the high bits on a big one.
 */
static void lineno_class(const struct pks_elf_image *im, uint32_t w, struct pks_dd_site *s)
{
	unsigned int cls = im->msb ? (w >> 8) & 63 : (w >> 18) & 63;

	s->lineno = im->msb ? w >> 14 : w & 0x3ffff;
	s->classed = cls != 63;
	s->class_id = cls;
}

/* The relocated bytes at @addr: those of the allocated section that holds them. */
static const unsigned char *at(struct pks_elf_image *im, uint64_t addr, size_t n)
{
	struct pks_elf_sect sc;
	const unsigned char *b;
	size_t size;

	for (unsigned i = 1; pks_elf_sect_at(im, i, &sc); i++) {
		/* no sum that may wrap: @addr comes from the file */
		if (!sc.name[0] || addr < sc.addr || n > sc.size || addr - sc.addr > sc.size - n)
			continue;
		b = pks_elf_section(im, sc.name, &size);
		return b && n <= size && addr - sc.addr <= size - n ? b + (addr - sc.addr) : NULL;
	}
	return NULL;
}

#define CLASSES	63	/* class_id is 6 bits; 63 is none */

/*
 * A binary's class maps (__dyndbg_classes) as the sites ask them: the
 * first map whose range holds each class, found once, and the name it
 * gives, looked up once, so that a site costs the same however many maps
 * a crafted file has.
 */
struct classes {
	const unsigned char *map[CLASSES];
	const char *name[CLASSES];
	bool named[CLASSES];
	bool none;		/* no map at all: class 0 is of headers before classes */
	unsigned ps;
};

static void classes(struct classes *k, const struct pks_elf_image *im, const unsigned char *maps,
		    size_t size, unsigned ps)
{
	size_t rec = (2 * (size_t)ps + 12 + 7) & ~(size_t)7;
	unsigned left = CLASSES;

	memset(k, 0, sizeof(*k));
	k->ps = ps;
	k->none = !maps || size < rec;
	for (const unsigned char *m = maps; !k->none && left && m + rec <= maps + size; m += rec) {
		/* from the file: in 64 bits, so that no int overflows */
		int64_t length = (int32_t)pks_elf_word(im, m + 2 * ps, 4);
		int64_t base = (int32_t)pks_elf_word(im, m + 2 * ps + 4, 4);

		for (int64_t i = base < 0 ? 0 : base; i < CLASSES && i - base < length; i++)
			if (!k->map[i]) {
				k->map[i] = m;
				left--;
			}
	}
}

/* The name the first map that holds class @s->class_id gives it, if any. */
static void class_name(struct pks_elf_image *im, struct classes *k, struct pks_dd_site *s)
{
	unsigned id = s->class_id, ps = k->ps;
	const unsigned char *m, *names;

	if (k->none) {
		s->classed = s->classed && id != 0;
		return;
	}
	if (!s->classed || id >= CLASSES || !(m = k->map[id]))
		return;
	if (!k->named[id]) {
		names = at(im, pks_elf_word(im, m + ps, ps) +
			   (uint64_t)(id - (int64_t)(int32_t)pks_elf_word(im, m + 2 * ps + 4, 4)) * ps, ps);
		k->name[id] = names ? pks_elf_string(im, pks_elf_word(im, names, ps)) : NULL;
		k->named[id] = true;
	}
	s->class_name = k->name[id];
}

/* One binary's sites on stdout. Return: 0, or -1 when the file cannot be read. */
static int list(const struct ctx *c, const char *path)
{
	struct pks_elf_image im;
	const unsigned char *sec = NULL, *p, *maps;
	struct site *t = NULL;
	struct classes k;
	unsigned int ps;
	size_t size = 0, msize = 0, rec, n = 0;
	char name[256], real[PATH_MAX];
	int err = pks_elf_open(&im, path);
	char *shown = escaped(path);
	const char *why = err ? NULL : pks_elf_unlinked(&im);

	if (err || why) {
		c->warn("--dyndbg-list: %s: %s: expected an ELF program or shared object; skipping it",
			pks_quote(path), why ? why : pks_elf_strerror(err));
		if (why)
			pks_elf_close(&im);
		free(shown);
		return -1;
	}
	/* the file's own name, as the process names its program (not a link's) */
	pks_dd_object_name(name, sizeof(name), realpath(path, real) ? real : path);
	ps = pks_elf_ptrsize(&im);
	rec = (4 * (size_t)ps + 8 + 7) & ~(size_t)7;
	sec = pks_elf_section(&im, "__dyndbg", &size);
	maps = pks_elf_section(&im, "__dyndbg_classes", &msize);
	classes(&k, &im, maps, msize, ps);
	if (sec && size >= rec && !(t = calloc(size / rec, sizeof(*t)))) {
		c->warn("--dyndbg-list: %s: %s; skipping it", pks_quote(path), strerror(ENOMEM));
		free(shown);
		pks_elf_close(&im);
		return -1;
	}
	for (p = sec; t && p + rec <= sec + size; p += rec, n++) {
		t[n].s = (struct pks_dd_site){
			pks_elf_string(&im, pks_elf_word(&im, p, ps)),
			pks_elf_string(&im, pks_elf_word(&im, p + ps, ps)),
			pks_elf_string(&im, pks_elf_word(&im, p + 2 * ps, ps)),
			pks_elf_string(&im, pks_elf_word(&im, p + 3 * ps, ps)),
			0, false, 0, NULL
		};
		lineno_class(&im, (uint32_t)pks_elf_word(&im, p + 4 * ps, 4), &t[n].s);
		class_name(&im, &k, &t[n].s);
		if (!t[n].s.module)
			t[n].s.module = name;
		t[n].flags = pks_dd_apply(c->rules, &t[n].s,
					  (unsigned int)pks_elf_word(&im, p + 4 * ps + 4, 4));
	}
	if (n)
		qsort(t, n, sizeof(*t), by_place);
	for (size_t i = 0; i < n; i++)
		print(&t[i]);
	if (!n)
		printf("# %s: no dynamic debug call sites (no __dyndbg section)\n", shown ? shown : "?");
	free(shown);
	free(t);
	pks_elf_close(&im);
	fflush(stdout);
	return 0;
}

/*
 * list(), and whether @path was cut short meanwhile (cmd/shrunk.c): asked
 * after each file, whatever came of it, so that no file's fault is told of the next.
 */
static int list_one(const struct ctx *c, const char *path)
{
	int rc = list(c, path);

	if (!pks_shrunk_seen() || rc)
		return rc;
	c->warn("--dyndbg-list: %s: the file shrank while it was read; expected it to stay as it "
		"was; what was printed for it may be cut short or wrong", pks_quote(path));
	return -1;
}

static void bad_query(void *arg, const char *q, size_t n, const char *why)
{
	((const struct ctx *)arg)->warn("PRINTK_SHIM_DYNDBG: \"%.*s\": %s; ignoring this query",
				       (int)n, q, why);
}

/**
 * pks_ddlist() - list the dynamic debug sites of @n binaries at @paths
 * @queries: PRINTK_SHIM_DYNDBG's value, or NULL
 * Return: 0, or 1 when some binary could not be read.
 */
int pks_ddlist(char *const *paths, int n, const char *queries, pks_ddlist_warn_fn *warn)
{
	static struct pks_dd_rules rules;
	struct ctx c = { &rules, warn };
	int bad = 0;

	if (queries && *queries)
		pks_dd_parse(&rules, queries, bad_query, &c);
	puts("# filename:lineno [module]function flags format");
	for (int i = 0; i < n; i++)
		bad |= list_one(&c, paths[i]) != 0;
	fflush(stdout);
	return bad;
}
