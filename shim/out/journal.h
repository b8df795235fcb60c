/* SPDX-License-Identifier: MIT */
/*
 * The journal output as the fan-out sees it: one line, delivered or not.
 */
#ifndef PKS_OUT_JOURNAL_H
#define PKS_OUT_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

struct pks_config;

/* What an entry says besides the message. */
struct pks_jline {
	int level;
	long tid;
	const char *func;	/* the function that called printk, or NULL */
	bool calm;		/* not from a signal handler: may wait */
};

int pks_journal_line(const struct pks_config *c, const struct pks_jline *j,
		     const char *text, size_t n);

#endif
