/* SPDX-License-Identifier: MIT */
/*
 * The shim's own voice: one line per message on fd 2, "printk-shim: KIND: ...".
 */
#ifndef PKS_BASE_SAY_H
#define PKS_BASE_SAY_H

#include "base/compiler.h"

void pks_say(const char *kind, const char *fmt, ...) PKS_PRINTF(2, 3);
#define pks_warn(...)	pks_say("warning", __VA_ARGS__)
#define pks_debug(...)	pks_say("debug", __VA_ARGS__)

const char *pks_strerror(int err);

#endif
