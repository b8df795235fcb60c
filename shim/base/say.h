/* SPDX-License-Identifier: MIT */
/*
 * The shim's own voice: one line per message on fd 2, "printk-shim: KIND: ...".
 */
#ifndef PKS_BASE_SAY_H
#define PKS_BASE_SAY_H

#include "base/compiler.h"

#include <stdatomic.h>
#include <stdbool.h>

/*
 * Descriptor 2 is not stderr any more: the program closed it (ctx/fds.c)
 * and gave it no new one with dup(), dup2(), dup3() or freopen(), so a
 * file it opens may have that number. The shim's own words, and a line
 * another output refused, are not written there (printk-shim(7)
 * DIAGNOSTICS).
 */
extern _Atomic bool pks_say_muted PKS_LOCAL;

void pks_say(const char *kind, const char *fmt, ...) PKS_PRINTF(2, 3);
void pks_say_hold(bool on);
void pks_say_release(void);
#define pks_warn(...)	pks_say("warning", __VA_ARGS__)
#define pks_debug(...)	pks_say("debug", __VA_ARGS__)

const char *pks_strerror(int err);

#endif
