/* SPDX-License-Identifier: MIT */
/*
 * Where lines live between calls: one node per thread that printk'd, one
 * context per thread and signal-handler depth, and the moments they must be
 * written (thread exit, process exit, exec, fatal signal) or dropped (fork).
 */
#ifndef PKS_CTX_CTX_H
#define PKS_CTX_CTX_H

#include "base/compiler.h"
#include "core/linebuf.h"
#include "config/config.h"
#include "ctx/signals.h"
#include "ctx/vfork.h"
#include "defer/defer.h"
#include "sink/sink.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PKS_NCTX	3	/* the thread, a handler, a handler inside a handler */
#define PKS_SCRATCH	2048	/* formatted fragments up to this fit without a mapping */
#define PKS_CTX_CANCEL_EVERY	64	/* lines between two cancellation points */
#define PKS_CTX_CACHE	1152	/* bytes a context keeps for its calls (emit.c: 8 compiled formats) */

enum { PKS_IDLE, PKS_BUSY, PKS_CLAIMED };

/*
 * A mapping of its own for what does not fit in scratch. It is kept and
 * reused rather than unmapped after each call, so that a call that never
 * returns (a handler left by siglongjmp) leaves nothing behind.
 */
struct pks_spill {
	char *p;
	size_t size;		/* bytes mapped at p, or 0 */
};

struct pks_ctx {
	_Atomic int state;	/* PKS_IDLE, PKS_BUSY (its owner is in printk), PKS_CLAIMED (a flusher) */
	bool writing;		/* its line is with the outputs (pks_ctx_out) */
	unsigned int outs;	/* lines out, for the cancellation point (pks_ctx_counted()) */
	_Atomic uintptr_t claim_by;	/* CLAIMED: the flushing thread (its flushing's address) */
	int claim_depth;	/* CLAIMED: that thread's handler depth at the claim */
	struct pks_line line;
	struct pks_writer w;	/* what the outputs need: kmsg room, tid, handler or not */
	char *scratch;		/* PKS_SCRATCH bytes to format into */
	void *cache;		/* PKS_CTX_CACHE bytes, zero at first; NULL on the stack */
	char *map;		/* the mapping line, scratch and kmsg room live in */
	size_t map_size;
	struct pks_spill big;	/* fragments longer than scratch (emit.c), kept for the next */
	int *err;		/* &errno of its thread: the quick ways keep errno without a call */
};

/*
 * A marked format whose whole lines the level filter dropped (emit.c
 * remember()): what counting one needs, copied from its compiled shape,
 * which never changes (its bytes are fixed), so that its next line is
 * counted with neither its marker nor its shape looked at again.
 */
struct pks_seen {
	const char *fmt;	/* with its marker; NULL while empty or written */
	uint32_t ops;		/* the shape's (pks_tally_ops()) */
	uint8_t lit, nconv;
};

#define PKS_SEEN	8	/* formats a thread's node keeps so, in pairs */

struct pks_node {
	struct pks_node *next;	/* the registry; nodes are reused, never freed */
	_Atomic int inuse;
	long tid;
	struct pks_ctx ctx[PKS_NCTX];
	_Alignas(16) unsigned char cache[PKS_NCTX][PKS_CTX_CACHE];
	struct pks_seen seen[PKS_SEEN];	/* emit.c, for its thread's own calls outside handlers */
};

/* Why every thread's lines are written (pks_flush_all). */
enum pks_flush {
	PKS_FLUSH_EXEC,		/* may fail and return: a call this thread is in goes on */
	PKS_FLUSH_EXIT,		/* exit(): no call of this thread ever goes on */
	PKS_FLUSH_CRASH,	/* a fatal signal: never wait */
};

extern _Atomic int pks_exiting PKS_LOCAL;


struct pks_ctx *pks_ctx_enter_slow(void);
void pks_ctx_after(void);
void pks_ctx_stack(struct pks_ctx *x, char *buf, size_t size);
void pks_ctx_setup(void);
void pks_ctx_abandoned(int depth);
bool pks_ctx_foreign(void);
void pks_flush_all(enum pks_flush why);
void pks_flush_depth(int depth);

extern const struct pks_sig_ops pks_ctx_sig_ops;	/* handed to ctx/signals.c by pks_ctx_setup() */


/**
 * pks_ctx_try() - own the calling context for one call, if that is quick:
 * a thread outside any handler and any vfork of its own, whose context is
 * mapped and free. Nothing is made, no system call made, errno untouched.
 * Return: the context, or NULL.
 */
static inline struct pks_ctx *pks_ctx_try(void)
{
	struct pks_node *n = pks_thread.self;
	struct pks_ctx *x;
	int want = PKS_IDLE;

	if (unlikely(!n) || unlikely(pks_thread.away != 0))	/* a handler, a vfork child */
		return NULL;
	x = &n->ctx[0];
	/* acquire: pairs with the release of pks_ctx_leave(), the last owner's */
	if (unlikely(!x->map) ||
	    unlikely(!atomic_compare_exchange_strong_explicit(&x->state, &want, PKS_BUSY,
			memory_order_acquire, memory_order_relaxed)))
		return NULL;
	PKS_HB_AFTER(&x->state);
	return x;
}

/**
 * pks_ctx_enter() - own the calling context for one call
 * Inline, the common case (pks_ctx_try()); everything else is
 * pks_ctx_enter_slow()'s.
 * Return: the context, or NULL when it is already owned (a handler that
 * interrupted printk on this thread) or cannot get memory.
 */
static inline struct pks_ctx *pks_ctx_enter(void)
{
	struct pks_ctx *x = pks_ctx_try();

	return likely(x) ? x : pks_ctx_enter_slow();
}

/*
 * The call is over: handlers held while the deferred ring's window was open
 * run now, as if they came just after it (ctx/signals.c), and a
 * cancellation point that is due is made (pks_ctx_after()).
 */
static inline void pks_ctx_leave(struct pks_ctx *x)
{
	/* only the owner leaves, and it made the context BUSY (no pair: its own store) */
	PKS_WARN_ON_ONCE(atomic_load_explicit(&x->state, memory_order_relaxed) != PKS_BUSY);
	PKS_HB_BEFORE(&x->state);
	/* release: pairs with the acquire of the next owner's compare-exchange */
	atomic_store_explicit(&x->state, PKS_IDLE, memory_order_release);
	if (unlikely(pks_thread.after))
		pks_ctx_after();
}

/*
 * A line of @x's went out (written, or into the deferred ring): every
 * PKS_CTX_CANCEL_EVERY of a thread's own lines, its call ends with a
 * cancellation point (pks_ctx_after()), as a write(2) of each line would
 * be one, so that a thread that does nothing but print is cancelled all
 * the same; there, the line is out and the context free, so that a
 * cleanup handler's lines are whole (pthread_cleanup_push(3)). A
 * handler's and a vfork child's calls make none.
 */
static inline void pks_ctx_counted(struct pks_ctx *x)
{
	if (unlikely(!(++x->outs % PKS_CTX_CANCEL_EVERY)) && !x->w.in_handler && !x->w.borrowed)
		pks_thread.cancel_due = true;
}

/**
 * pks_ctx_line_out() - a complete line leaves a context (a struct
 * pks_line_out): into the deferred ring, or to the outputs now. The one
 * place that decides (printk-shim(7) DEFERRED PRINTING): a vfork child's
 * lines are written now.
 * @writer: the context's w
 */
static inline void pks_ctx_line_out(struct pks_line *l, void *writer)
{
	const struct pks_config *c = pks_config();

	if (unlikely(c->set.defer)) {
		if (l->level <= c->set.level && !pks_vfork_child() && pks_defer_line(l, writer))
			return;
		if (unlikely(l->shed))
			return;	/* the rest of a line the full ring dropped (pks_defer_line()) */
	}
	pks_sink_line(l, writer, NULL);
}

/**
 * pks_ctx_out() - a context's line out, from inside its call
 * @writer: the context's w
 * The context is marked meanwhile: a call cut off there may be blocked by
 * the output, and may have written the line already.
 */
static inline void pks_ctx_out(struct pks_line *l, void *writer)
{
	struct pks_ctx *x = (struct pks_ctx *)((char *)writer - offsetof(struct pks_ctx, w));

	x->writing = true;
	pks_ctx_line_out(l, writer);
	x->writing = false;
	pks_ctx_counted(x);
}

#endif
