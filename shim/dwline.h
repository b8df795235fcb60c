/* SPDX-License-Identifier: MIT */
/*
 * The source file and line of a code address, from the DWARF line tables
 * through libdw (elfutils), loaded on first use: dynamic debug's file and
 * line keywords for code built without our headers.
 */
#ifndef PKS_DWLINE_H
#define PKS_DWLINE_H

#include <stdbool.h>
#include <stddef.h>

enum pks_dwline { PKS_DW_FOUND, PKS_DW_NONE, PKS_DW_NOT_NOW };

enum pks_dwline pks_dwline(const void *addr, char *file, size_t size, unsigned int *line,
			   bool loud);
enum pks_dwline pks_dwline_loaded(const void *addr, char *file, size_t size, unsigned int *line);

#endif
