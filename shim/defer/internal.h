/* SPDX-License-Identifier: MIT */
/*
 * What the deferred ring's two sides share (printk-shim(7) DEFERRED
 * PRINTING): the record, the lanes, the state words and the consumer word.
 * producer.c puts lines in; printer.c takes them out. A line's way into
 * the ring is inline below, for producer.c and args.c: a line kept as its
 * arguments is taken and put in one frame.
 */
#ifndef PKS_DEFER_INTERNAL_H
#define PKS_DEFER_INTERNAL_H

#include "defer/defer.h"
#include "base/compiler.h"
#include "base/digits.h"
#include "base/pid.h"
#include "core/ring.h"
#include "ctl/record.h"
#include "format/tally.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#define PKS_DEFER_LANES	8

enum { PKS_DEFER_OFF, PKS_DEFER_STARTING, PKS_DEFER_RUNNING, PKS_DEFER_CLOSED,
       PKS_DEFER_FAILED };				/* pks_defer_dq.state, in this order */
enum { PKS_DEFER_AWAKE, PKS_DEFER_NAP, PKS_DEFER_IDLE };	/* *pks_defer_dq.sleep_word */
#define PKS_DEFER_MANY	(-1L)				/* pks_defer_dq.owner: no one thread */

/* What a record's payload is: a table in printer.c turns each kind into a line. */
enum pks_defer_kind {
	PKS_REC_TEXT,		/* the line's text, formatted by the caller */
	PKS_REC_ARGS,		/* a simple format's arguments, and its form (args.c) */
	PKS_REC_FORM,		/* a fixed simple format's arguments, and its form's name */
	PKS_REC_KINDS,		/* a kind for arguments the printer formats goes before this */
};

/*
 * A record's payload, in parts copied one after another: a line's text;
 * or a line kept as its arguments (args.c), its head, its format's text
 * when carried, and its strings.
 */
#define PKS_DEFER_PARTS	(PKS_SHAPE_CONV + 2)
struct pks_defer_payload {
	int kind;			/* enum pks_defer_kind */
	unsigned int n;			/* parts */
	size_t bytes;			/* of them all */
	const char *p[PKS_DEFER_PARTS];
	uint32_t len[PKS_DEFER_PARTS];
};

/* A conversion of a line kept as its arguments: the literal run before it, and its op (args.c). */
struct pks_defer_conv {
	uint8_t at, n;
	uint8_t op;
} __attribute__((packed));

/* A simple format's form: what the printer needs to make its text (args.c, forms.c). */
struct pks_defer_form {
	const char *fmt;		/* the format's address, whose bytes never change */
	uint8_t nconv;
	uint8_t at, n;			/* the literal run after the last conversion */
	struct pks_defer_conv conv[PKS_SHAPE_CONV];
	char text[PKS_SHAPE_TEXT];	/* its bytes as compiled: the printer reads these,
					 * never @fmt, which the program may yet make
					 * unreadable (mprotect(2)) */
};

/*
 * A line in the ring: everything known at the call (the time, the thread,
 * the caller and its name), so that the printer looks nothing up; then the
 * payload and the caller's name, @n and @func_len bytes.
 */
struct pks_defer_rec {
	uint64_t stamp;		/* the order across lanes: CLOCK_MONOTONIC when it went
				 * in, or one past the last (pks_defer_when()) */
	uint32_t n;		/* bytes of payload */
	uint8_t kind;		/* enum pks_defer_kind */
	int8_t level;
	bool cont, in_handler;
	uint8_t func_len;	/* bytes of the caller's name after the payload; 0: none */
	uint8_t after;		/* 0, or 1 + the lane this thread's earlier lines are in,
				 * written up to the position after the name
				 * (pks_defer_spill()) before this one */
	long tid;
	uint64_t t_ns;
	const void *site;
	char data[];
};

/*
 * The ring is split in lanes, four per CPU the process may use
 * (PKS_DEFER_LANES at most): a thread's lines go to its own lane first, so
 * threads running at once rarely reserve from the same head or write the
 * same cache lines; the consumer merges the lanes by stamp.
 */
struct pks_defer_lane {
	struct pks_ring ring;
	uint64_t pos, done;	/* the consumer's: read up to, released up to */
	uint64_t end;		/* the consumer's: committed records gathered up to */
	const struct pks_defer_rec *next;	/* the consumer's: the record at pos, if before end */
	uint64_t after;		/* the position past next */
	_Atomic uint64_t out;	/* the consumer's: written up to, not yet released (a
				 * fatal signal's drain that seized the ring starts there) */
};

/*
 * The one thread writing lines, whose stamps count up (pks_defer_when()),
 * in a cache line of its own: the owner stores its last stamp at every line.
 */
struct pks_defer_owner {
	_Atomic long tid;		/* 0: none yet; PKS_DEFER_MANY: every line has the clock's */
	_Atomic uint64_t last;		/* the last stamp the owner gave, or the one before it */
} __attribute__((aligned(64)));

struct pks_defer_state {
	struct pks_defer_lane lanes[PKS_DEFER_LANES];
	int nlanes;
	_Atomic int state;
	_Atomic pid_t pid;		/* the process the ring is of, once mapped; 0: none */
	_Atomic int *sleep_word;	/* futex: the printer's sleep, sleep_own or shared */
	int sleep_private;		/* FUTEX_PRIVATE_FLAG, unless shared */
	_Atomic uint32_t *drains;	/* the control file's count of the printer's drains */
	_Atomic unsigned long dropped;
	_Atomic bool crashing;
	_Atomic bool seized;		/* a fatal signal's drain went on without the consumer word */
	_Atomic bool parked;		/* the drain it went on without stopped: its lanes' out
					 * is all it wrote (printer.c's overtaken()) */
	_Atomic long forsaken;		/* a thread that ended with the printer alone left, or 0 */
	_Atomic int crashed;		/* futex: 1 once a fatal signal's drain is done */
	_Atomic bool fd_closed;		/* an output's descriptor may be closed (pks_defer_closed()) */
	bool want_func;			/* the outputs show the caller's name: take it at the call */
	bool follow;			/* a file: output's path is followed by the callers */
	char *mem;			/* the ring, the batch buffers and the consumer's line;
					 * set before pid, kept when the printer ends */
	size_t mem_size;
	/*
	 * What the printer writes as it goes, in cache lines apart from the
	 * words above, which every caller reads at every line.
	 */
	_Atomic int sleep_own __attribute__((aligned(64)));
	_Atomic uint32_t space __attribute__((aligned(64)));	/* futex: bumped at every release */
	_Atomic int waiters;		/* callers waiting for room */
	_Atomic int busy;		/* futex: the consumer word; 0 free, 1 held, 2 held and wanted */
	_Atomic int takers;		/* threads but the printer waiting for the consumer word */
	struct pks_defer_owner owner;
};

extern struct pks_defer_state pks_defer_dq PKS_LOCAL;

enum { PKS_DEFER_RETRY, PKS_DEFER_WRITE_IT, PKS_DEFER_DROPPED };	/* pks_defer_overflow() */

/*
 * The waits for room of a later piece of a line whose first piece is in
 * the ring, with PRINTK_SHIM_DEFER_FULL=drop: each a latency at most, so
 * that a stalled output holds a caller a bounded while, never for good.
 */
#define PKS_DEFER_KEEP_WAITS	10

bool pks_defer_admit(const struct pks_writer *w);
void pks_defer_crashed(void);
void pks_defer_flushed(long tid, bool handler);
bool pks_defer_fd_gone(void);
void pks_defer_follow(void);
void pks_defer_rouse(bool handler, int upto);
int pks_defer_overflow(size_t n, long tid, bool interrupted, bool handler, bool text, bool keep);
uint64_t pks_defer_other(long tid, long o);
struct pks_defer_rec *pks_defer_spill(unsigned int *lane, size_t n, struct pks_ring **ring,
				      uint64_t *stamp, long tid);
bool pks_defer_report(uint64_t *stamp, unsigned int *lane, const struct pks_line *l,
		      const struct pks_writer *w);
long pks_defer_futex(volatile void *word, int op, int val, unsigned long ms);
void pks_defer_wake(int upto);
bool pks_defer_take(void);
void pks_defer_give(void);
size_t pks_defer_drain_now(bool crash);
void pks_defer_elders(long tid, bool handler);
size_t pks_defer_drop_text(char *buf, unsigned long k);
size_t pks_defer_args_text(const struct pks_defer_rec *r, char *buf, size_t size);
size_t pks_defer_form_text(const struct pks_defer_rec *r, char *buf, size_t size);
const struct pks_defer_form *pks_defer_form_find(const char *fmt);
const struct pks_defer_form *pks_defer_form_add(const struct pks_defer_form *f);
bool pks_defer_map(void);
bool pks_defer_spawn(void);

/*
 * The stamp of a line of thread @tid, taken before its reservation: a line
 * reserved after it in the same lane, by another thread, then has the later
 * stamp. While one thread alone writes lines (the owner), its stamps count
 * up from the clock's when it began, and the clock is not read again. A
 * line that the program orders after another thread's is ordered after
 * that thread's store of PKS_DEFER_MANY in pks_defer_other() too, so the
 * load here sees it, and its stamp comes from there, past the owner's
 * last. One lane needs no merging.
 */
static inline uint64_t pks_defer_when(long tid)
{
	struct pks_defer_owner *w = &pks_defer_dq.owner;
	/* relaxed: pairs with pks_defer_other()'s store through the program's own order (above) */
	long o = atomic_load_explicit(&w->tid, memory_order_relaxed);
	uint64_t s;

	if (likely(o == tid)) {
		/* relaxed: pairs with pks_defer_other()'s load through the
		 * program's own order (see there); no one else stores it meanwhile */
		s = atomic_load_explicit(&w->last, memory_order_relaxed) + 1;
		atomic_store_explicit(&w->last, s, memory_order_relaxed);
		return s;
	}
	if (pks_defer_dq.nlanes == 1)
		return 0;
	return pks_defer_other(tid, o);
}

/*
 * @r, just reserved, as this thread's record not yet committed, made in the
 * frame holding @stamp: any address in it compares with a handler's frame
 * as the frame itself does (pks_defer_abandoned()).
 */
static inline void pks_defer_note(struct pks_defer_rec *r, const uint64_t *stamp)
{
	pks_defer_self.pending = r;
	pks_defer_self.frame = (uintptr_t)stamp;
}

/*
 * Room for a record of @n bytes, stamped *@stamp, in thread @tid's lane
 * (*@lane), or another; noted (pks_defer_note()).
 */
static inline struct pks_defer_rec *pks_defer_reserve(unsigned int *lane, size_t n,
		struct pks_ring **ring, uint64_t *stamp, long tid)
{
	struct pks_defer_self *me = &pks_defer_self;
	struct pks_defer_rec *r;

	*ring = &pks_defer_dq.lanes[*lane & (unsigned int)(pks_defer_dq.nlanes - 1)].ring;
	r = pks_ring_reserve_at(*ring, n, &me->mine);
	if (unlikely(!r))
		return pks_defer_spill(lane, n, ring, stamp, tid);
	pks_defer_note(r, stamp);
	return r;
}

/*
 * Fill @r with @l's and @w's facts, the payload @y and the caller's name,
 * and commit it. Constant @text: @y is a line's text, one part.
 */
static inline __attribute__((always_inline)) void pks_defer_fill(struct pks_defer_rec *r,
		uint64_t stamp, const struct pks_defer_payload *y, bool text, const char *func,
		size_t fn, const struct pks_line *l, const struct pks_writer *w)
{
	char *p = r->data;

	r->stamp = stamp;
	r->n = (uint32_t)y->bytes;
	r->kind = (uint8_t)y->kind;
	r->level = (int8_t)l->level;
	r->cont = l->cont;
	r->in_handler = w->in_handler;
	r->func_len = (uint8_t)fn;
	r->tid = w->tid;
	r->t_ns = l->t_ns;
	r->site = l->site;
	if (text) {		/* a whole line: one call */
		p = pks_put_mem(p, y->p[0], y->len[0]);
	} else {		/* short parts, the first always there (args.c's head) */
		p = pks_put_part(p, y->p[0], y->len[0]);
		for (unsigned int i = 1; i < y->n; i++)
			p = pks_put_part(p, y->p[i], y->len[i]);
	}
	if (unlikely(fn))
		memcpy(p, func, fn);
	pks_ring_commit(r);	/* release: pairs with pks_ring_read()'s acquire */
	pks_defer_self.pending = NULL;
}

/*
 * @l into the record buffer (printk-shim(7) RECORD BUFFER) by its caller, as
 * it goes into the ring: the printer's writer never records (replay).
 */
static inline void pks_defer_record(struct pks_line *l, const struct pks_writer *w)
{
	if (unlikely(pks_rec_on))
		pks_rec_put(l->level, l->sb.buffer, seq_buf_used(&l->sb), w->tid, l->t_ns,
			    l->cont ? PKS_REC_CONT : 0);
}

/*
 * What @w's thread just did to the ring (a record committed, a drop
 * counted) came after the look at the state before it: closed since (exit,
 * a fatal signal), the closing drain may not have seen it, and the thread
 * writes the ring itself (pks_defer_flushed()).
 */
static inline void pks_defer_closing(const struct pks_writer *w)
{
	/* seq_cst: pairs with the close's exchange of state, as the commit's
	 * head compare-and-swap or the count's add before this load */
	if (unlikely(atomic_load(&pks_defer_dq.state) == PKS_DEFER_CLOSED))
		pks_defer_flushed(w->tid, w->in_handler);
}

/*
 * A complete line, if deferred printing takes it, its payload @y; constant
 * @text: a line's text, which the record buffer gets too
 * (pks_defer_record()). Inline in its callers, pks_defer_line() and
 * pks_defer_args(): the latter's payload stays in its frame.
 * Return: true when the line is in the ring (or counted as dropped); false:
 * the caller writes it now (this thread empties the ring, the ring is
 * closed or could not start, or there is no room a handler may wait for).
 */
static inline __attribute__((always_inline)) bool pks_defer_enqueue(struct pks_line *l,
		struct pks_writer *w, const struct pks_defer_payload *y, bool text)
{
	size_t fn = 0;
	bool interrupted = pks_defer_self.reserving;
	unsigned int lane;
	struct pks_ring *ring;
	struct pks_defer_rec *r;
	const char *func = NULL;
	uint64_t stamp;
	int why, sleep, waits = 0;

	if (pks_defer_self.consuming)
		return false;
	/* acquire: pairs with the seq_cst store of RUNNING once the printer is set up */
	if (unlikely(atomic_load_explicit(&pks_defer_dq.state, memory_order_acquire) != PKS_DEFER_RUNNING ||
		     /* relaxed: the state's acquire orders it */
		     atomic_load_explicit(&pks_defer_dq.pid, memory_order_relaxed) != pks_pid()) &&
	    !pks_defer_admit(w))
		return false;
	/* no pair: a hint, the kernel asked again (pks_defer_fd_gone()) */
	if (unlikely(atomic_load_explicit(&pks_defer_dq.fd_closed, memory_order_relaxed)) &&
	    pks_defer_fd_gone())
		return false;	/* lost now, as without the ring: never later in what reuses it */
	if (unlikely(pks_defer_dq.follow) && !w->in_handler && pks_sink_moved(pks_config()))
		pks_defer_follow();	/* the lines before this one to the old file */
	if (unlikely(pks_defer_dq.want_func) && (func = pks_sink_func(w, l->site)))
		fn = strnlen(func, PKS_FUNC_MAX - 1);	/* looked up now: the code may be gone later */
	pks_defer_self.reserving = true;
	/*
	 * Inside the window, which holds the program's handlers: a handler's
	 * line before it may have spilled to another lane, and the lane must
	 * be the one this thread's last record went to (pks_defer_spill()).
	 */
	lane = (unsigned int)w->tid + pks_defer_self.spilled;
	stamp = pks_defer_when(w->tid);
	/*
	 * The count of the lines dropped before this one goes in first; with
	 * no room for it, there is none for the line: it never goes in ahead
	 * of the words that say what is missing before it. No pair: a count's
	 * hint; pks_defer_report() takes it whole by exchange.
	 */
	while ((unlikely(atomic_load_explicit(&pks_defer_dq.dropped, memory_order_relaxed)) &&
		!pks_defer_report(&stamp, &lane, l, w)) ||
	       !(r = pks_defer_reserve(&lane, sizeof(*r) + y->bytes + fn, &ring, &stamp, w->tid))) {
		why = pks_defer_overflow(sizeof(*r) + y->bytes + fn, w->tid, interrupted, w->in_handler,
					 text, text && l->parted && waits++ < PKS_DEFER_KEEP_WAITS);
		if (why != PKS_DEFER_RETRY) {
			if (why == PKS_DEFER_DROPPED && text) {
				pks_line_taken(l);	/* inside the window, as below */
				l->shed = l->open;	/* its other pieces with it */
			}
			pks_defer_self.reserving = interrupted;
			if (why == PKS_DEFER_DROPPED && text)
				pks_defer_record(l, w);
			/* counted as the ring closed: the close may have said its
			 * count already, taken after its exchange of state */
			if (why == PKS_DEFER_DROPPED)
				pks_defer_closing(w);
			return why == PKS_DEFER_DROPPED;
		}
		/* the wait opened the window: as above, and a later stamp than its lines' */
		lane = (unsigned int)w->tid + pks_defer_self.spilled;
		stamp = pks_defer_when(w->tid);
	}
	pks_defer_fill(r, stamp, y, text, func, fn, l, w);
	/*
	 * In the ring now: a handler's jump from here on, before the caller
	 * clears the line, must not hand it out again. Inside the window,
	 * which holds the program's handlers.
	 */
	if (text)
		pks_line_taken(l);
	pks_defer_self.reserving = interrupted;
	/*
	 * Through the head's compare-and-swap before the look and the drain's
	 * load of the head after the close's exchange, either the look sees
	 * the ring closed, or the drain sees the record reserved and waits for
	 * it (printer.c's closing()).
	 */
	pks_defer_closing(w);
	if (text)
		pks_defer_record(l, w);
	/*
	 * An idle printer is woken at once, a napping one when the lane is
	 * half full: a printer that went idle after this load sees the record
	 * (its gauge()), and goes on. seq_cst: pairs with printer.c's park(),
	 * as the head's compare-and-swap.
	 */
	sleep = atomic_load(pks_defer_dq.sleep_word);
	if (unlikely(sleep != PKS_DEFER_AWAKE) &&
	    (sleep == PKS_DEFER_IDLE || pks_ring_used(ring) > ring->size / 2))
		pks_defer_rouse(w->in_handler, PKS_DEFER_NAP);
	return true;
}

#endif
