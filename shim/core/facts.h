/* SPDX-License-Identifier: MIT */
/*
 * What a line is rendered from, whichever format renders it: the facts
 * beside its text, the formats' names and the bounds of what goes around
 * the text. Pure.
 */
#ifndef PKS_CORE_FACTS_H
#define PKS_CORE_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The date and time of day of a JSON line, kept for the next in the same second. */
struct pks_utc {
	uint64_t sec;
	bool valid;
	char text[19];		/* "YYYY-MM-DDThh:mm:ss" */
};

/* The line formats of PRINTK_SHIM_FORMAT; AUTO is resolved before rendering. */
enum pks_linefmt {
	PKS_LINE_AUTO, PKS_LINE_PLAIN, PKS_LINE_PREFIX, PKS_LINE_DMESG, PKS_LINE_KMSG, PKS_LINE_JSON
};

#define PKS_HEAD_MAX	96	/* longest prefix pks_render_prefix() writes */
#define PKS_TAIL_MAX	8	/* longest suffix */
#define PKS_IDENT_MAX	64	/* bytes of ident a JSON line shows */
#define PKS_FUNC_MAX	64	/* bytes of the caller's name, with its NUL */

struct pks_render {
	enum pks_linefmt format;	/* never PKS_LINE_AUTO */
	bool time, caller, color;
	int level;
	bool cont;		/* kmsg flag 'c' */
	uint64_t t_ns;		/* CLOCK_MONOTONIC of the line's start */
	uint64_t seq;		/* kmsg sequence number */
	long tid;
	/* JSON only: */
	uint64_t t_real_ns;	/* CLOCK_REALTIME when the line was written */
	long pid;
	const char *ident;
	const char *func;	/* the caller's function, or NULL */
	struct pks_utc *utc;	/* the writer's cache of the time text, or NULL */
};

#endif
