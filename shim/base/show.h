/* SPDX-License-Identifier: MIT */
/*
 * Whether what the module reads from a file may be shown to whoever runs
 * the process: everything, but in a set-ID (AT_SECURE) one only what its
 * real user could read too (printk-shim(7) ENVIRONMENT).
 */
#ifndef PKS_BASE_SHOW_H
#define PKS_BASE_SHOW_H

#include <stdbool.h>
#include <sys/auxv.h>
#include <unistd.h>

/**
 * pks_may_show() - whether names, lines or symbols read from the file at
 * @path may be printed, or decide what is: as access(2) answers for the
 * real user and group in a privileged process, so that a mode-4711
 * program's .symtab and DWARF stay its own
 */
static inline bool pks_may_show(const char *path)
{
	return !getauxval(AT_SECURE) || (path && access(path, R_OK) == 0);
}

#endif
