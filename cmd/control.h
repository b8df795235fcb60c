/* SPDX-License-Identifier: MIT */
/*
 * printk-shim --pid/--all: running processes read and changed through
 * their control files (printk-shim(1) RUNTIME CONTROL).
 */
#ifndef PKS_WRAPPER_CONTROL_H
#define PKS_WRAPPER_CONTROL_H

#include <stdbool.h>

bool pks_control_wanted(int argc, char **argv);
int pks_control(int argc, char **argv);

#endif
