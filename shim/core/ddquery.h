/* SPDX-License-Identifier: MIT */
/*
 * Dynamic debug's control language (printk-shim(7) DYNAMIC DEBUG): queries
 * parsed into rules, a call site's flags after the rules, the decorations
 * a site's flags put before its text, and a site as the kernel's control
 * file prints it. Pure: bytes in, bytes out.
 */
#ifndef PKS_CORE_DDQUERY_H
#define PKS_CORE_DDQUERY_H

#include <stdbool.h>
#include <stddef.h>

/* The kernel's _DPRINTK_FLAGS_* bits. */
#define PKS_DD_PRINT	(1u << 0)	/* p */
#define PKS_DD_MODNAME	(1u << 1)	/* m */
#define PKS_DD_FUNCNAME	(1u << 2)	/* f */
#define PKS_DD_LINENO	(1u << 3)	/* l */
#define PKS_DD_TID	(1u << 4)	/* t */
#define PKS_DD_SRCNAME	(1u << 5)	/* s */
#define PKS_DD_INCL_ANY	(PKS_DD_MODNAME | PKS_DD_FUNCNAME | PKS_DD_LINENO | PKS_DD_TID | \
			 PKS_DD_SRCNAME)

#define PKS_DD_QUERIES	32	/* queries kept; more are warned about */
#define PKS_DD_POOL	4096	/* bytes of query words kept */
#define PKS_DD_PREFIX	128	/* the kernel's PREFIX_SIZE */

/* Which keywords some query uses, in pks_dd_rules.uses. */
#define PKS_DD_USES_FILE	1u
#define PKS_DD_USES_LINE	2u

struct pks_dd_query {
	const char *file, *func, *module, *format;	/* in the pool; NULL: any */
	unsigned int first, last;			/* 0: no bound */
	unsigned int flags, mask;			/* new = (old & mask) | flags */
	const char *cls;	/* in the pool; NULL: only sites of the default class */
};

struct pks_dd_rules {
	int n;
	unsigned int uses;
	size_t used;
	struct pks_dd_query q[PKS_DD_QUERIES];
	char pool[PKS_DD_POOL];
};

/* A call site as the rules see it; a NULL or 0 field is unknown and matches no bound on it. */
struct pks_dd_site {
	const char *module, *function, *filename, *format;
	unsigned int lineno;
	bool classed;		/* of a class, not the default one: class_id holds it */
	unsigned int class_id;
	const char *class_name;	/* its name in the object's class maps, or NULL */
};

/* Told of each query ignored: its @n bytes at @query and why. */
typedef void pks_dd_bad_fn(void *arg, const char *query, size_t n, const char *why);

int pks_dd_parse(struct pks_dd_rules *r, const char *text, pks_dd_bad_fn *bad, void *arg);
int pks_dd_parse_more(struct pks_dd_rules *r, const char *text, pks_dd_bad_fn *bad, void *arg);
int pks_dd_compact(struct pks_dd_rules *dst, const struct pks_dd_rules *src,
		   const struct pks_dd_rules *more);
unsigned int pks_dd_apply(const struct pks_dd_rules *r, const struct pks_dd_site *s,
			  unsigned int flags);
bool pks_dd_wild(const char *pat, const char *s);
size_t pks_dd_prefix(char *buf, size_t size, unsigned int flags, const struct pks_dd_site *s,
		     long tid);
size_t pks_dd_flags_text(char *buf, unsigned int flags);
size_t pks_dd_object_name(char *dst, size_t size, const char *path);
size_t pks_dd_site_text(char *buf, size_t size, const struct pks_dd_site *s, unsigned int flags);

#endif
