/* SPDX-License-Identifier: MIT */
/*
 * Deferred printing (printk-shim(7) DEFERRED PRINTING): complete lines into
 * a lock-free ring, written in batches by one printer thread; the moments
 * the ring is emptied by someone else (exit, exec, a fatal signal) and the
 * fork child's fresh start.
 */
#ifndef PKS_OUT_DEFER_H
#define PKS_OUT_DEFER_H

#include "core/linebuf.h"
#include "out/sink.h"

#include <stdbool.h>
#include <stdint.h>

bool pks_defer_line(struct pks_line *l, const struct pks_writer *w);
void pks_defer_drain(void);
void pks_defer_close(void);
void pks_defer_crash(void);
void pks_defer_forked(void);
void pks_defer_share(_Atomic int *word, _Atomic uint32_t *drained);

#endif
