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
 * the file's class and byte order (include/linux/dynamic_debug.h).
 */
#include "wrapper/dyndbg-list.h"
#include "core/dyndbg.h"
#include "core/escape.h"
#include "elf/elf.h"

#include <errno.h>
#include <stdint.h>
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
		escaped(t->s.format), t->s.lineno,
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
}

/* One binary's sites on stdout. Return: 0, or -1 when the file cannot be read. */
static int list(const struct ctx *c, const char *path)
{
	struct pks_elf_image im;
	const unsigned char *sec = NULL, *p;
	struct site *t = NULL;
	unsigned int ps;
	size_t size = 0, rec, n = 0;
	char name[256];
	int err = pks_elf_open(&im, path);
	char *shown = escaped(path);

	if (err) {
		c->warn("--dyndbg-list: %s: %s; skipping it", shown ? shown : "?",
			err == -ENOEXEC ? "not an ELF file this reads" : pks_elf_strerror(err));
		free(shown);
		return -1;
	}
	pks_dd_object_name(name, sizeof(name), path);
	ps = pks_elf_ptrsize(&im);
	rec = (4 * (size_t)ps + 8 + 7) & ~(size_t)7;
	sec = pks_elf_section(&im, "__dyndbg", &size);
	if (sec && size >= rec && !(t = calloc(size / rec, sizeof(*t)))) {
		c->warn("--dyndbg-list: %s: %s; skipping it", shown ? shown : "?", strerror(ENOMEM));
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
			(unsigned int)pks_elf_word(&im, p + 4 * ps, 4),
		};
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
	return 0;
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
		bad |= list(&c, paths[i]) != 0;
	fflush(stdout);
	return bad;
}
