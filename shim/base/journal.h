/* SPDX-License-Identifier: MIT */
/*
 * Whether a descriptor is the journal's stream: what decides the default
 * line format of the module and of libprintk-port (printk-shim(7)
 * PRINTK_SHIM_FORMAT).
 */
#ifndef PKS_BASE_JOURNAL_H
#define PKS_BASE_JOURNAL_H

#include <stdbool.h>

bool pks_fd_is_journal(int fd);

#endif
