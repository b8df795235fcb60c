/* SPDX-License-Identifier: MIT */
/*
 * One printk call, from the exported entry point to the outputs.
 */
#ifndef PKS_EMIT_H
#define PKS_EMIT_H

#include <stdarg.h>
#include <stdbool.h>

enum {
	PKS_SYM_PRINTK, PKS_SYM__PRINTK, PKS_SYM_PRINTK_DEFERRED,
	PKS_SYM__PRINTK_DEFERRED, PKS_SYM_VPRINTK, PKS_NSYMS
};

struct pks_sym {
	const char *name;
	void *ours;		/* the shim's own definition, as the GOT has it */
	void *here;		/* the same, by a hidden alias: never another object's */
	bool va;		/* takes a va_list (vprintk) */
};

extern const struct pks_sym pks_syms[PKS_NSYMS];	/* entry.c */

int pks_emit(int sym, const char *fmt, va_list ap, const void *caller);
int pks_emit_reached(void);

#endif
