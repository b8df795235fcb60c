/* SPDX-License-Identifier: MIT */
/*
 * The syslog output as the fan-out sees it: one line, delivered or not; or,
 * for the deferred printer, messages rendered first and sent many at once.
 */
#ifndef PKS_SINK_SYSLOG_H
#define PKS_SINK_SYSLOG_H

#include "sink/meta.h"

#include <stddef.h>
#include <sys/socket.h>

struct pks_config;

void pks_syslog_setup(const struct pks_config *c);
int pks_syslog_line(const struct pks_config *c, const struct pks_meta *m,
		    const char *text, size_t n);
size_t pks_syslog_render(const struct pks_config *c, const struct pks_meta *m,
			 const char *text, size_t n, char *buf, size_t room);
unsigned int pks_syslog_send_many(const struct pks_config *c, struct mmsghdr *v, unsigned int k);
void pks_syslog_gone(void);

#endif
