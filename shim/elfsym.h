/* SPDX-License-Identifier: MIT */
/*
 * Reading the executable's own symbol tables from its file.
 */
#ifndef PKS_ELFSYM_H
#define PKS_ELFSYM_H

const char *pks_elf_exe_defines(const char *name);

#endif
