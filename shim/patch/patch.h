/* SPDX-License-Identifier: MIT */
/*
 * Taking over printk functions the dynamic linker cannot interpose: at
 * start-up, their entries are patched to jump to the shim's (patch.c).
 */
#ifndef PKS_PATCH_PATCH_H
#define PKS_PATCH_PATCH_H

#include "base/sym.h"

#include <stdbool.h>
#include <stddef.h>

void pks_patch_apply(const struct pks_sym *table);
int pks_patch_report(const char *name);
int pks_patch_importers(const char *name, char *list, size_t size);
const char *pks_patch_exe_opaque(void);
const char *pks_patch_exe(void);
bool pks_patch_covers(const void *entry);
bool pks_patch_taken(const char *name);

#define PKS_PATCH_UNKNOWN	((const char *)-1)
const char *pks_patch_exe_unpatched(int *which);

#endif
