/* SPDX-License-Identifier: MIT */
/*
 * What the outputs that keep fields (syslog, the journal) are told about a
 * line besides its text.
 */
#ifndef PKS_OUT_META_H
#define PKS_OUT_META_H

#include <stdbool.h>
#include <stddef.h>

struct pks_meta {
	int level;
	long tid;
	const char *func;	/* the function that called printk, or NULL */
	bool calm;		/* not from a signal handler: may wait, may read the zone */
};

#define PKS_DGRAMS_MAX	256

/*
 * The deferred printer's messages for syslog and the journal (printk-shim(7)
 * DEFERRED PRINTING): rendered into @buf as they come, sent with one
 * sendmmsg(2) per output and batch; a message that was not sent goes the
 * usual way again, through @redo.
 */
struct pks_dgrams {
	int n;
	int daemons;			/* outputs it takes messages for: pks_sink_daemons() */
	size_t used, cap;
	char *buf;			/* @cap bytes, or NULL: no such output */
	const void *key;		/* the line being written, as @redo knows it */
	void (*redo)(const void *key, int out);
	struct pks_dgram {
		int out;		/* the output's index */
		const void *key;
		size_t off, len;	/* the message in @buf */
	} m[PKS_DGRAMS_MAX];
};

#endif
