/* SPDX-License-Identifier: MIT */
/*
 * Complete lines to the configured outputs. A line arrives with the few
 * facts about its writer that rendering and delivery need, never a context.
 */
#ifndef PKS_SINK_SINK_H
#define PKS_SINK_SINK_H

#include "core/linebuf.h"
#include "core/render.h"
#include "base/compiler.h"
#include "sink/meta.h"

#include <stdbool.h>
#include <stddef.h>

/* Who writes the line: set up by the owner of the line buffer. */
struct pks_writer {
	char *render;		/* room for a kmsg record of LINE_MAX, or NULL */
	long tid;		/* the thread the line belongs to */
	bool in_handler;	/* written from a signal handler's context */
	bool dying;		/* in_handler, by a fatal signal's drain of a line that was not a handler's */
	const void *site;	/* the last caller looked up, in pks_elf_era() @era, and its name: */
	unsigned int era;
	char func[PKS_FUNC_MAX];	/* dladdr() walks symbol tables */
	struct pks_utc utc;	/* a JSON line's time text, per second */
	bool replay;		/* the deferred printer's: recorded and let through when it went into the ring */
	bool borrowed;		/* a vfork child's: its parent's memory, descriptors of its own */
};

struct pks_config;

struct pks_sink_batch;

/*
 * Windows of this thread's in which a jump out of a handler would leave an
 * output's shared state half changed (syslog-conn.c: a connection's count
 * of users and what the thread notes of it): ctx/signals.c holds the
 * program's handlers until they close, as inside the deferred ring's.
 */
extern PKS_TLS unsigned char pks_sink_windows;

/** pks_sink_in_window() - Return: whether this thread is inside one. */
static inline bool pks_sink_in_window(void)
{
	return pks_sink_windows != 0;
}

void pks_sink_line(struct pks_line *l, struct pks_writer *w, const struct pks_sink_batch *b);
int pks_sink_plain(const struct pks_sink_batch *b);
const char *pks_sink_func(struct pks_writer *w, const void *site);
bool pks_sink_wants_func(const struct pks_config *c);
bool pks_sink_on_fds(const struct pks_config *c, int lo, int hi);
bool pks_sink_fd_closed(const struct pks_config *c);
bool pks_sink_moved(const struct pks_config *c);
void pks_sink_follow(const struct pks_config *c);
bool pks_sink_has_file(const struct pks_config *c);
void pks_sink_failed(int i, unsigned long k, int err, bool later);
void pks_sink_report_lost(void);
void pks_sink_thread_gone(void);
void pks_sink_forked(void);

#endif
