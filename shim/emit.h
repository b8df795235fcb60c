/* SPDX-License-Identifier: MIT */
/*
 * One printk call, from the exported entry point to the outputs.
 */
#ifndef PKS_EMIT_H
#define PKS_EMIT_H

#include "base/sym.h"
#include "core/ddquery.h"

#include <stdarg.h>
#include <stdbool.h>

int pks_emit(const struct pks_sym *sym, const char *fmt, va_list ap, const void *caller);
int pks_emit_decorated(const struct pks_sym *sym, unsigned int flags,
		       const struct pks_dd_site *s, const char *fmt, va_list ap, const void *caller);
bool pks_emit_reached(void);
void pks_emit_setup(void);

#endif
