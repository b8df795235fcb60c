/* SPDX-License-Identifier: MIT */
/*
 * Dynamic debug in the module (printk-shim(7) DYNAMIC DEBUG): the call sites
 * of code built with our headers, registered as their object is loaded, and
 * the KERN_DEBUG calls of code built without them.
 */
#ifndef PKS_DYNDBG_H
#define PKS_DYNDBG_H

#include "config/config.h"

#include <stdarg.h>
#include <stdbool.h>

/* include/linux/dynamic_debug.h's struct _ddebug, field for field. */
struct pks_ddebug {
	const char *modname, *function, *filename, *format;
	unsigned int lineno:18, class_id:6;
	unsigned int flags;
} __attribute__((aligned(8)));

#define PKS_DD_CLASS_DFLT	63	/* _DPRINTK_CLASS_DFLT: no class */

/* Its struct ddebug_class_map, field for field. */
struct pks_ddebug_class_map {
	const char *mod_name;
	const char **class_names;
	int length, base, map_type;
} __attribute__((aligned(8)));

/* What pks_dyndbg_claim() did with a call. */
enum pks_dd_claim {
	PKS_DD_LEFT,		/* nothing: the usual path takes it */
	PKS_DD_DONE,		/* printed, decorated */
	PKS_DD_OFF,		/* turned off: its line, continuations and all, is dropped */
};

enum pks_dd_claim pks_dyndbg_claim(const struct pks_config *c, const char *fmt, va_list ap,
				   const void *caller, int *ret);
void pks_dyndbg_list(void);
bool pks_dyndbg_more(const char *text);

#endif
