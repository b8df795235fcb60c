/* SPDX-License-Identifier: MIT */
/*
 * The table of the exported printk entry points, for the pass-through, the
 * patcher and the start-up report, which are handed it.
 */
#ifndef PKS_ENTRY_H
#define PKS_ENTRY_H

#include "base/compiler.h"
#include "base/sym.h"

extern const struct pks_sym pks_syms[PKS_NSYMS] PKS_LOCAL;

#endif
