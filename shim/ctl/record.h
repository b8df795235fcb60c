/* SPDX-License-Identifier: MIT */
/*
 * The record buffer (printk-shim(7) RECORD BUFFER): the last
 * PRINTK_SHIM_RECORD bytes of lines of every level, in a file that
 * outlives the process, for printk-shim --dmesg.
 */
#ifndef PKS_CTL_RECORD_H
#define PKS_CTL_RECORD_H

#include "base/compiler.h"
#include "config/config.h"
#include "ctl/recbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern bool pks_rec_on PKS_LOCAL;

bool pks_rec_setup(const struct pks_config *c);
void pks_rec_put(int level, const char *text, size_t n, long tid, uint64_t t_ns, unsigned int flags);
void pks_rec_close(void);
bool pks_rec_fault(const void *addr);

#endif
