/* SPDX-License-Identifier: MIT */
/*
 * One printk call, from the exported entry point to the outputs.
 */
#ifndef PKS_EMIT_H
#define PKS_EMIT_H

#include "base/sym.h"

#include <stdarg.h>
#include <stdbool.h>

int pks_emit(enum pks_symid sym, const char *fmt, va_list ap, const void *caller);
bool pks_emit_reached(void);
void pks_emit_setup(void);

#endif
