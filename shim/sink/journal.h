/* SPDX-License-Identifier: MIT */
/*
 * The journal output as the fan-out sees it: one line, delivered or not; or,
 * for the deferred printer, messages rendered first and sent many at once.
 */
#ifndef PKS_SINK_JOURNAL_H
#define PKS_SINK_JOURNAL_H

#include "sink/meta.h"

#include <stddef.h>
#include <sys/socket.h>

struct pks_config;

int pks_journal_line(const struct pks_config *c, const struct pks_meta *m,
		     const char *text, size_t n);
size_t pks_journal_render(const struct pks_config *c, const struct pks_meta *m,
			  const char *text, size_t n, char *buf, size_t room);
unsigned int pks_journal_send_many(const struct pks_config *c, struct mmsghdr *v, unsigned int k);

#endif
