/* SPDX-License-Identifier: MIT */
/*
 * The journal output as the fan-out sees it: one line, delivered or not.
 */
#ifndef PKS_OUT_JOURNAL_H
#define PKS_OUT_JOURNAL_H

#include "out/meta.h"

#include <stddef.h>

struct pks_config;

int pks_journal_line(const struct pks_config *c, const struct pks_meta *m,
		     const char *text, size_t n);

#endif
