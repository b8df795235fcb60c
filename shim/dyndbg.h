/* SPDX-License-Identifier: MIT */
/*
 * Dynamic debug in the module (printk-shim(7) DYNAMIC DEBUG): the call sites
 * of code built with our headers, registered as their object is loaded, and
 * the KERN_DEBUG calls of code built without them.
 */
#ifndef PKS_DYNDBG_H
#define PKS_DYNDBG_H

#include "config/config.h"
#include "core/ddquery.h"

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

/* What pks_dyndbg_claim() decided for a call. */
enum pks_dd_claim {
	PKS_DD_LEFT,		/* nothing: the usual path takes it */
	PKS_DD_DECORATE,	/* printed decorated (pks_emit_decorated()) */
	PKS_DD_OFF,		/* turned off: its line, continuations and all, is dropped */
};

/* The names of a call site of code built without our headers, for struct pks_dd_site. */
struct pks_dd_names {
	char module[64], file[256];
};

/* A call to print decorated: its flags and site, its format past the marker. */
struct pks_dd_call {
	unsigned int flags;
	struct pks_dd_site site;	/* its strings may point into names */
	struct pks_dd_names names;
	const char *fmt;
};

enum pks_dd_claim pks_dyndbg_claim(const struct pks_config *c, const char *fmt,
				   const void *caller, struct pks_dd_call *call);
struct pks_dd_site pks_dyndbg_site(const struct pks_ddebug *d);
void pks_dyndbg_register(struct pks_ddebug *start, struct pks_ddebug *stop);
void pks_dyndbg_classes(struct pks_ddebug *sites, struct pks_ddebug_class_map *start,
			struct pks_ddebug_class_map *stop);
void pks_dyndbg_list(void);
bool pks_dyndbg_more(const char *text);

#endif
