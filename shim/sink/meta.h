/* SPDX-License-Identifier: MIT */
/*
 * What the outputs that keep fields (syslog, the journal) are told about a
 * line besides its text.
 */
#ifndef PKS_SINK_META_H
#define PKS_SINK_META_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pks_meta {
	int level;
	pid_t pid;		/* the writer's process (a vfork child's own) */
	long tid;
	const char *func;	/* the function that called printk, or NULL */
	bool calm;		/* not from a signal handler: may wait, may read the zone */
	bool patient;		/* calm, or a calm line a fatal signal's drain writes: may wait */
};

#endif
