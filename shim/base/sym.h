/* SPDX-License-Identifier: MIT */
/*
 * The shim's printk entry points as data: which names it exports, with
 * which prototype, and where each one's code is. The table is entry.c's;
 * each call hands pks_emit() its entry, from which the table is found.
 */
#ifndef PKS_BASE_SYM_H
#define PKS_BASE_SYM_H

#include <stdbool.h>

enum pks_symid {
	PKS_SYM_PRINTK, PKS_SYM__PRINTK, PKS_SYM_PRINTK_DEFERRED,
	PKS_SYM__PRINTK_DEFERRED, PKS_SYM_VPRINTK, PKS_NSYMS
};

struct pks_sym {
	enum pks_symid id;	/* its index in the table */
	const char *name;
	void *ours;		/* the shim's own definition, as the GOT has it */
	void *here;		/* the same, by a hidden alias: never another object's */
	bool va;		/* takes a va_list (vprintk) */
};

/* The table @s is an entry of: entry.c's, handed down one entry at a time. */
static inline const struct pks_sym *pks_sym_table(const struct pks_sym *s)
{
	return s - s->id;
}

#endif
