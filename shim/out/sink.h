/* SPDX-License-Identifier: MIT */
/*
 * Complete lines to the configured outputs.
 */
#ifndef PKS_SINK_H
#define PKS_SINK_H

#include "core/linebuf.h"

#include <stddef.h>

void pks_sink_line(struct pks_line *l, void *ctx);
void pks_sink_report_lost(void);

/* sink-fd.c */
int pks_fd_write(int fd, const char *p, size_t n);

/* sink-syslog.c */
struct pks_config;
int pks_syslog_line(const struct pks_config *c, int level, const char *text, size_t n);
void pks_syslog_atfork_child(void);

#endif
