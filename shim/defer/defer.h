/* SPDX-License-Identifier: MIT */
/*
 * Deferred printing (printk-shim(7) DEFERRED PRINTING): complete lines into
 * a lock-free ring, written in batches by one printer thread; the moments
 * the ring is emptied by someone else (exit, exec, fork, a fatal signal)
 * and the fork child's fresh start.
 */
#ifndef PKS_DEFER_DEFER_H
#define PKS_DEFER_DEFER_H

#include "base/compiler.h"
#include "core/linebuf.h"
#include "sink/sink.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pks_defer_rec;
struct pks_shape;

/*
 * A thread's side of the ring, in one place: one look-up finds it all.
 * Outside defer/, only the window's two flags are read (pks_defer_in_window()),
 * and cut (pks_defer_cut()).
 */
struct pks_defer_self {
	bool reserving;			/* between reserving a record and committing it */
	bool consuming;			/* taking or holding the consumer word */
	bool owns;			/* holding it: taken, not given back yet */
	struct pks_defer_rec *pending;	/* the reservation not yet committed */
	uintptr_t frame;		/* an address in the frame that made it */
	uint64_t mine;			/* the position past the thread's last record in its lane */
	unsigned int spilled;		/* the thread's lane: its tid's, plus this */
	bool cut;			/* cancelled in a wait for room (pks_defer_cut()) */
};
extern PKS_TLS struct pks_defer_self pks_defer_self;

/*
 * pks_defer_cut() - whether this thread was cancelled in a wait for room in
 * the ring: its cleanup handlers run now, and the call that waited never
 * goes on
 */
static inline bool pks_defer_cut(void)
{
	return pks_defer_self.cut;
}

bool pks_defer_line(struct pks_line *l, struct pks_writer *w);
int pks_defer_args(struct pks_line *l, struct pks_writer *w, const struct pks_shape *s, va_list ap);
void pks_defer_abandoned(uintptr_t below);
void pks_defer_gone(long tid);
void pks_defer_drain(bool handler);
bool pks_defer_drain_held(bool handler);
void pks_defer_let_go(void);
bool pks_defer_feeds(int lo, int hi);
void pks_defer_closed(int lo, int hi);
void pks_defer_close(void);
void pks_defer_crash(void);
void pks_defer_forked(void);
void pks_defer_share(_Atomic int *word, _Atomic uint32_t *drained);

/**
 * pks_defer_in_window() - whether a jump out of this thread now would leave
 * the ring stalled: it is filling a record or holds the consumer word
 */
static inline bool pks_defer_in_window(void)
{
	return pks_defer_self.reserving || pks_defer_self.consuming;
}

#endif
