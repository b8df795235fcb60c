/* SPDX-License-Identifier: MIT */
/*
 * What a binary's file says before it runs: the printk index its call
 * sites left (printk-shim --index) and whether its printk calls will reach
 * the shim (printk-shim --check). The wrapper's; inspect.c.
 */
#ifndef PKS_INSPECT_INSPECT_H
#define PKS_INSPECT_INSPECT_H

#include <stdbool.h>
#include <stdio.h>

/* Exit statuses of the two commands, besides 0. */
enum { PKS_INSPECT_UNREACHED = 1, PKS_INSPECT_ERROR = 125 };

int pks_inspect_index(char *const *paths, int n, FILE *out, bool legacy_markers);
/* For --check: NULL when the module fits the program at @path, else what it is, in @buf. */
typedef const char *pks_inspect_misfit(const char *path, char *buf, size_t size);

int pks_inspect_check(char *const *paths, int n, FILE *out, bool legacy_markers,
		      pks_inspect_misfit *misfit);
bool pks_inspect_may_printk(const char *path);
bool pks_inspect_caps(const char *path);

#endif
