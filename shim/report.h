/* SPDX-License-Identifier: MIT */
/*
 * What the shim tells about the program it runs in: the PRINTK_SHIM_DEBUG
 * report, the exit warning when no call reached it, PRINTK_SHIM_LINT.
 */
#ifndef PKS_REPORT_H
#define PKS_REPORT_H

#include "base/sym.h"

void pks_report_debug(const struct pks_sym *syms);
void pks_report_debug_once(const struct pks_sym *syms);
void pks_report_unreached(const struct pks_sym *syms);
void pks_report_lint(const void *site, const char *text, unsigned long n);

#endif
