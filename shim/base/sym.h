/* SPDX-License-Identifier: MIT */
/*
 * The shim's printk entry points as data: which names it exports, with
 * which prototype, and where each one's code is. The table is entry.c's.
 */
#ifndef PKS_BASE_SYM_H
#define PKS_BASE_SYM_H

#include <stdbool.h>

enum pks_symid {
	PKS_SYM_PRINTK, PKS_SYM__PRINTK, PKS_SYM_PRINTK_DEFERRED,
	PKS_SYM__PRINTK_DEFERRED, PKS_SYM_VPRINTK, PKS_NSYMS
};

struct pks_sym {
	const char *name;
	void *ours;		/* the shim's own definition, as the GOT has it */
	void *here;		/* the same, by a hidden alias: never another object's */
	bool va;		/* takes a va_list (vprintk) */
};

#endif
