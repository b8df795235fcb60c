/* SPDX-License-Identifier: MIT */
/*
 * The syslog output as the fan-out sees it: one line, delivered or not.
 */
#ifndef PKS_OUT_SYSLOG_H
#define PKS_OUT_SYSLOG_H

#include "out/meta.h"

#include <stddef.h>

struct pks_config;

void pks_syslog_setup(const struct pks_config *c);
int pks_syslog_line(const struct pks_config *c, const struct pks_meta *m,
		    const char *text, size_t n);

#endif
