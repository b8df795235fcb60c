/* SPDX-License-Identifier: MIT */
/*
 * printk-shim --dyndbg-list: the dynamic debug call sites of binaries, as
 * the kernel's control file shows them (printk-shim(1)).
 */
#ifndef PKS_WRAPPER_DYNDBG_LIST_H
#define PKS_WRAPPER_DYNDBG_LIST_H

typedef void pks_ddlist_warn_fn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int pks_ddlist(char *const *paths, int n, const char *queries, pks_ddlist_warn_fn *warn);

#endif
