/* SPDX-License-Identifier: MIT */
/*
 * This process's pid without a system call per line, right in the child of
 * every fork, also one made without atfork handlers.
 */
#ifndef PKS_BASE_PID_H
#define PKS_BASE_PID_H

#include <sys/types.h>

void pks_pid_setup(void);
pid_t pks_pid(void);

#endif
