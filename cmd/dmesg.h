/* SPDX-License-Identifier: MIT */
/*
 * printk-shim --dmesg --pid=PID: a process's record buffer, printed
 * (printk-shim(7) RECORD BUFFER).
 */
#ifndef PKS_WRAPPER_DMESG_H
#define PKS_WRAPPER_DMESG_H

#include "core/render.h"

#include <sys/types.h>

const char *pks_dmesg(pid_t pid, enum pks_linefmt f);

#endif
