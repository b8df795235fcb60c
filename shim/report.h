/* SPDX-License-Identifier: MIT */
/*
 * The shim's own voice: one line per message on fd 2, "printk-shim: KIND: ...".
 */
#ifndef PKS_DIAG_H
#define PKS_DIAG_H

#include "base/compiler.h"

void pks_say(const char *kind, const char *fmt, ...) PKS_PRINTF(2, 3);
#define pks_warn(...)	pks_say("warning", __VA_ARGS__)
#define pks_debug(...)	pks_say("debug", __VA_ARGS__)

void pks_lint(const void *site, const char *text, unsigned long n);
const char *pks_strerror(int err);
void pks_debug_report(void);
void pks_check_unreached(void);

#endif
