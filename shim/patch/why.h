/* SPDX-License-Identifier: MIT */
/*
 * Why a definition's calls do not reach the shim by themselves, from what
 * its object's file says: the rule patch.c applies to each definition at
 * start-up and inspect.c to a binary that printk-shim --check reads.
 */
#ifndef PKS_PATCH_WHY_H
#define PKS_PATCH_WHY_H

#include <elf.h>
#include <stdbool.h>

/* WHY_NONE: they do, through the dynamic linker. */
enum why {
	WHY_EXE, WHY_SYMBOLIC, WHY_BOUND, WHY_LOCAL, WHY_HIDDEN, WHY_PROTECTED, WHY_RENAMED, WHY_FIRST,
	WHY_NONE,
};

/*
 * @exe: the definition is in the executable; @info, @other: its symbol's
 * st_info and st_other; @symbolic: its object binds its own calls
 * (DT_SYMBOLIC, DF_SYMBOLIC); @bound: its object's code calls it straight,
 * not through the PLT (pks_elf_calls()); @renamed: a name the shim does not export;
 * @after_shim: the shim comes first in the lookup order.
 */
static inline unsigned char pks_patch_why(bool exe, unsigned char info, unsigned char other,
					  bool symbolic, bool bound, bool renamed, bool after_shim)
{
	int vis = ELF64_ST_VISIBILITY(other);

	if (exe)
		return WHY_EXE;
	if (ELF64_ST_BIND(info) == STB_LOCAL)
		return WHY_LOCAL;
	if (vis == STV_HIDDEN || vis == STV_INTERNAL)
		return WHY_HIDDEN;
	if (vis == STV_PROTECTED)
		return WHY_PROTECTED;
	if (symbolic)
		return WHY_SYMBOLIC;
	if (bound)
		return WHY_BOUND;
	if (renamed)
		return WHY_RENAMED;
	return after_shim ? WHY_NONE : WHY_FIRST;
}

#endif
