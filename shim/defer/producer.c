// SPDX-License-Identifier: MIT
/*
 * Deferred printing's callers (printk-shim(7) DEFERRED PRINTING): a
 * complete line, with what is known of it at the call, copied into its
 * thread's lane of the ring (core/ring.c), or into another lane with room;
 * the ring and its printer started at the first line; the fork handlers.
 * Thread-safety: pks_defer_line() from any thread and signal handler. A
 * thread between reserving a record and committing it is in its window
 * (pks_defer_in_window()): ctx/signals.c holds the program's handlers until
 * it ends, so no jump leaves a record half made; a record that is left so
 * anyway (a fault's handler, cancellation) is recognised and skipped.
 */
#include "defer/defer.h"
#include "defer/internal.h"
#include "base/clock.h"
#include "base/compiler.h"
#include "base/digits.h"
#include "base/pid.h"
#include "base/say.h"
#include "config/config.h"
#include "ctl/record.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { RETRY, WRITE_IT, DROPPED };	/* what a full ring leaves a caller */

struct pks_defer_state pks_defer_dq = {
	.sleep_word = &pks_defer_dq.sleep_own,
	.sleep_private = FUTEX_PRIVATE_FLAG,
};
PKS_TLS bool pks_defer_reserving;

/* This thread's reservation not yet committed, and the frame that made it. */
static PKS_TLS struct pks_defer_rec *pending;
static PKS_TLS uintptr_t pending_frame;
static PKS_TLS unsigned int spilled;	/* this thread's lane: its tid's, plus this */
static PKS_TLS uint64_t mine;		/* the position past this thread's last record there */
static PKS_TLS uint32_t full_at;	/* pks_defer_dq.space + 1 when every lane was full */

static bool start(void);

/*
 * The printer is wanted (its sleep at @upto or deeper): wake it, or, when it
 * has ended (printer.c's park()), start another; a handler, which cannot
 * start a thread, writes the ring itself.
 */
static void rouse(bool handler, int upto)
{
	/* pairs with park()'s exchange to OFF and start()'s stores */
	if (atomic_load(&pks_defer_dq.state) != PKS_DEFER_OFF) {
		pks_defer_wake(upto);
	} else if (handler || !start()) {
		if (pks_defer_take()) {
			pks_defer_drain_now(handler);
			pks_defer_give();
		}
	}
}

/*
 * No room for a record of @n bytes in any lane. A handler that interrupted
 * this thread's own reservation cannot wait: the printer waits for that
 * record. @handler: a handler's line, whose drain makes no dladdr() call.
 */
static int overflow(size_t n, bool interrupted, bool handler)
{
	/* pairs with the printer's increment after each release (settle()) */
	uint32_t seen = atomic_load(&pks_defer_dq.space);

	if (n > pks_ring_max(&pks_defer_dq.lanes[0].ring)) {
		if (pks_defer_take()) {
			pks_defer_drain_now(handler);	/* too long for the ring: its elders first */
			pks_defer_give();
		}
		return WRITE_IT;
	}
	if (pks_config()->set.defer_full == PKS_FULL_DROP) {
		atomic_fetch_add(&pks_defer_dq.dropped, 1);	/* no pair: a count */
		return DROPPED;
	}
	if (pks_defer_consuming)
		return WRITE_IT;
	if (interrupted) {
		/*
		 * The thread's own record is not committed until this handler
		 * returns: write what the ring holds before it, then this line.
		 */
		if (pks_defer_take()) {
			pks_defer_drain_now(true);
			pks_defer_give();
		}
		return WRITE_IT;
	}
	pks_defer_reserving = false;
	/* pairs with settle()'s load of waiters after its increment of space:
	 * counted before it looks, this waiter is woken; the futex compares seen */
	atomic_fetch_add(&pks_defer_dq.waiters, 1);
	rouse(handler, PKS_DEFER_NAP);
	pks_defer_futex(&pks_defer_dq.space, FUTEX_WAIT, (int)seen, pks_config()->set.defer_latency);
	atomic_fetch_sub(&pks_defer_dq.waiters, 1);	/* no pair: a wake too many is harmless */
	pks_defer_reserving = true;
	return RETRY;
}

/* This thread's reservation not yet committed, and the frame that made it. */
static void note(struct pks_defer_rec *r)
{
	pending = r;
	pending_frame = (uintptr_t)__builtin_frame_address(0);
}

/* A stamp past @last, and the clock's, if later: read after the stores below. */
static uint64_t past(uint64_t last)
{
	uint64_t now = pks_now_ns();

	return now > last ? now : last + 1;
}

/* The owner's stamp from the clock, past @last: its count goes on from it. */
static uint64_t recount(uint64_t last)
{
	uint64_t s = past(last);

	/* relaxed: pairs with other()'s load through the program's order, as when()'s store */
	atomic_store_explicit(&pks_defer_dq.owner.last, s, memory_order_relaxed);
	return s;
}

/*
 * The line of a thread that is not the owner (when()): it takes over when
 * there is none; otherwise every line is stamped by the clock from now on,
 * and this store comes before the clock is read. Not inline: the owner's
 * lines do without it.
 */
static __attribute__((noinline)) uint64_t other(long tid, long o)
{
	struct pks_defer_owner *w = &pks_defer_dq.owner;

	/* seq_cst: one owner at a time; pairs with pks_defer_gone()'s and itself */
	if (o == 0 && tid > 0 && atomic_compare_exchange_strong(&w->tid, &o, tid)) {
		/* relaxed: pairs with the last owner's stores through the
		 * compare-and-swap, which ordered them before it */
		return recount(atomic_load_explicit(&w->last, memory_order_relaxed));
	}
	if (o != PKS_DEFER_MANY)	/* seq_cst: pairs with when()'s load (see there) */
		atomic_store(&w->tid, PKS_DEFER_MANY);
	/* relaxed: pairs with when()'s store through the program's order, as above */
	return past(atomic_load_explicit(&w->last, memory_order_relaxed));
}

/*
 * The stamp of a line of thread @tid, taken before its reservation: a line
 * reserved after it in the same lane, by another thread, then has the later
 * stamp. While one thread alone writes lines (the owner), its stamps count
 * up from the clock's when it began, and the clock is not read again. A
 * line that the program orders after another thread's is ordered after
 * that thread's store of PKS_DEFER_MANY in other() too, so the load here
 * sees it, and its stamp comes from other(), past the owner's last. One
 * lane needs no merging.
 */
static inline uint64_t when(long tid)
{
	struct pks_defer_owner *w = &pks_defer_dq.owner;
	/* relaxed: pairs with other()'s store through the program's own order (above) */
	long o = atomic_load_explicit(&w->tid, memory_order_relaxed);
	uint64_t s;

	if (likely(o == tid)) {
		/* relaxed: pairs with other()'s load through the program's
		 * own order (see there); no one else stores it meanwhile */
		s = atomic_load_explicit(&w->last, memory_order_relaxed) + 1;
		atomic_store_explicit(&w->last, s, memory_order_relaxed);
		return s;
	}
	if (pks_defer_dq.nlanes == 1)
		return 0;
	return other(tid, o);
}

/*
 * The stamp of thread @tid's line, stamped @stamp, that goes to another
 * lane than its last. The owner's count orders its own lane; across lanes
 * its line must come after every line reserved before it, in any lane: so
 * it takes the clock's, as other() gives, and the count goes on from there.
 */
static uint64_t moved(uint64_t stamp, long tid)
{
	/* no pair: whether this thread is the owner, which only it and
	 * other() change; another's line has the clock's already */
	if (atomic_load_explicit(&pks_defer_dq.owner.tid, memory_order_relaxed) != tid)
		return stamp;
	return recount(stamp);
}

/**
 * pks_defer_gone() - thread @tid writes no more lines: when it was the
 * owner (when()), the next thread to write one may be
 */
void pks_defer_gone(long tid)
{
	long o = tid;

	/* seq_cst: pairs with other()'s compare-and-swap, which then reads this one */
	atomic_compare_exchange_strong(&pks_defer_dq.owner.tid, &o, 0);
}

/*
 * No room in this thread's lane: the next lane with room, so that one
 * thread can fill the whole ring; it stays there (spilled) until that one
 * is full too. A line in another lane keeps its place: the printer merges
 * the lanes by stamp (moved()); and while this thread's records in the
 * lane it leaves are not all released, the new one carries that lane and
 * where they end, for the printer to write them first (struct
 * pks_defer_rec's after): a record of another thread not yet committed
 * before them would hide them from the merge meanwhile. It is put past
 * the record's @n bytes, in room that put() never writes and that the
 * ring gave zeroed.
 */
static struct pks_defer_rec *spill(unsigned int *lane, size_t n, struct pks_ring **ring,
				   uint64_t *stamp, long tid)
{
	unsigned int k = (unsigned int)pks_defer_dq.nlanes, from = *lane & (k - 1);
	/* no pair: a hint; a release missed here is seen at the next line */
	uint32_t seen = atomic_load_explicit(&pks_defer_dq.space, memory_order_relaxed);
	uint64_t upto = mine;
	struct pks_defer_rec *r;
	bool after;

	if (seen + 1 == full_at)
		return NULL;	/* every lane was full, and nothing was released since */
	/* acquire: pairs with pks_ring_release()'s store; what it passed was written */
	after = atomic_load_explicit(&(*ring)->tail, memory_order_acquire) < upto;
	*stamp = moved(*stamp, tid);
	for (unsigned int i = 1; i < k; i++) {
		*ring = &pks_defer_dq.lanes[(*lane + i) & (k - 1)].ring;
		r = pks_ring_reserve_at(*ring, n + (after ? sizeof(upto) : 0), &mine);
		if (r) {
			spilled += i;
			*lane += i;
			if (after) {
				r->after = (uint8_t)(from + 1);
				memcpy((char *)r + n, &upto, sizeof(upto));
			}
			note(r);
			return r;
		}
	}
	full_at = seen + 1;
	return NULL;
}

/*
 * Room for a record of @n bytes, stamped *@stamp, in thread @tid's lane
 * (*@lane), or another.
 */
static inline struct pks_defer_rec *reserve(unsigned int *lane, size_t n, struct pks_ring **ring,
					    uint64_t *stamp, long tid)
{
	struct pks_defer_rec *r;

	*ring = &pks_defer_dq.lanes[*lane & (unsigned int)(pks_defer_dq.nlanes - 1)].ring;
	r = pks_ring_reserve_at(*ring, n, &mine);
	if (unlikely(!r))
		return spill(lane, n, ring, stamp, tid);
	note(r);
	return r;
}

/*
 * Fill @r with @l's and @w's facts, the payload @y and the caller's name,
 * and commit it. Constant @text: @y is a line's text, one part.
 */
static inline __attribute__((always_inline)) void put(struct pks_defer_rec *r, uint64_t stamp,
		const struct pks_defer_payload *y, bool text, const char *func, size_t fn,
		const struct pks_line *l, const struct pks_writer *w)
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
	if (text)		/* a whole line: one call */
		p = pks_put_mem(p, y->p[0], y->len[0]);
	else			/* short parts */
		for (unsigned int i = 0; i < y->n; i++)
			p = pks_put_part(p, y->p[i], y->len[i]);
	if (unlikely(fn))
		memcpy(p, func, fn);
	pks_ring_commit(r);	/* release: pairs with pks_ring_read()'s acquire */
	pending = NULL;
}

/* The count of lines dropped so far, as a line where they went missing. */
static void report(uint64_t *stamp, unsigned int *lane, const struct pks_line *l,
		   const struct pks_writer *w)
{
	/* no pair: a count, taken whole; what it counts was never stored */
	unsigned long k = atomic_exchange(&pks_defer_dq.dropped, 0);
	char text[64];
	size_t n = pks_defer_drop_text(text, k);
	struct pks_ring *ring;
	struct pks_defer_rec *r = k ? reserve(lane, sizeof(*r) + n, &ring, stamp, w->tid) : NULL;

	if (r)
		put(r, *stamp, &(struct pks_defer_payload){ PKS_REC_TEXT, 1, n, { text }, { (uint32_t)n } },
		    true, NULL, 0, l, w);
	else if (k)	/* no pair: the count given back */
		atomic_fetch_add(&pks_defer_dq.dropped, k);
}

/* The first deferred line of this process: the ring and its printer. */
static bool start(void)
{
	int off = PKS_DEFER_OFF;

	/*
	 * In memory not this process's own (a vfork child that went past
	 * the vfork hook, a clone sharing memory), the ring would be the
	 * parent's: the line is written now, the state left alone.
	 */
	if (getpid() != pks_pid())
		return false;
	/* pairs with park()'s exchanges and admit()'s, rouse()'s and ours()'s loads:
	 * one starter; RUNNING is stored once the ring is mapped (and below) */
	if (!atomic_compare_exchange_strong(&pks_defer_dq.state, &off, PKS_DEFER_STARTING))
		return false;
	if (!pks_defer_map() || !pks_defer_spawn()) {
		pks_warn("PRINTK_SHIM_DEFER: no printer thread: %s; writing every line at once",
			 pks_strerror(errno));
		atomic_store(&pks_defer_dq.state, PKS_DEFER_FAILED);	/* pairs with the loads above */
		return false;
	}
	/* pairs with admit()'s load: a RUNNING ring is mapped */
	atomic_store(&pks_defer_dq.state, PKS_DEFER_RUNNING);
	return true;
}

/* The ring is not running, or not this process's: may @w's line go into it? */
static bool admit(const struct pks_writer *w)
{
	/* acquire: pairs with pks_defer_map()'s release */
	pid_t pid = atomic_load_explicit(&pks_defer_dq.pid, memory_order_acquire);
	int s;

	if (pid && pid != pks_pid())
		pks_defer_forked();	/* a child made without the fork handlers */
	/* pairs with start()'s stores and pks_defer_close()'s and _crash()'s exchanges */
	s = atomic_load(&pks_defer_dq.state);
	if (s == PKS_DEFER_OFF && !w->in_handler)
		return start();
	/* crashing pairs with pks_defer_crash()'s store, before its exchange of state */
	if (s == PKS_DEFER_CLOSED && !atomic_load(&pks_defer_dq.crashing) && pks_defer_take()) {
		pks_defer_drain_now(w->in_handler);	/* the ring's lines first: this one follows them */
		pks_defer_give();
	}
	return s == PKS_DEFER_RUNNING;
}

/*
 * @l into the record buffer (printk-shim(7) RECORD BUFFER) by its caller, as
 * it goes into the ring: the printer's writer never records (replay).
 */
static inline void record(struct pks_line *l, const struct pks_writer *w)
{
	if (unlikely(pks_rec_on))
		pks_rec_put(l->level, l->sb.buffer, seq_buf_used(&l->sb), w->tid, l->t_ns, false);
}

/*
 * A complete line, if deferred printing takes it, its payload @y; constant
 * @text: a line's text, which the record buffer gets too (record()).
 * Return: true when the line is in the ring (or counted as dropped); false:
 * the caller writes it now (this thread empties the ring, the ring is
 * closed or could not start, or there is no room a handler may wait for).
 */
static inline __attribute__((always_inline)) bool enqueue(struct pks_line *l,
		struct pks_writer *w, const struct pks_defer_payload *y, bool text)
{
	size_t fn = 0;
	bool interrupted = pks_defer_reserving;
	unsigned int lane;
	struct pks_ring *ring;
	struct pks_defer_rec *r;
	const char *func = NULL;
	uint64_t stamp;
	int why;

	if (pks_defer_consuming)
		return false;
	/* acquire: pairs with the seq_cst store of RUNNING once the printer is set up */
	if (unlikely(atomic_load_explicit(&pks_defer_dq.state, memory_order_acquire) != PKS_DEFER_RUNNING ||
		     /* relaxed: the state's acquire orders it */
		     atomic_load_explicit(&pks_defer_dq.pid, memory_order_relaxed) != pks_pid()) &&
	    !admit(w))
		return false;
	if (unlikely(pks_defer_dq.want_func) && (func = pks_sink_func(w, l->site)))
		fn = strnlen(func, PKS_FUNC_MAX - 1);	/* looked up now: the code may be gone later */
	lane = (unsigned int)w->tid + spilled;
	stamp = when(w->tid);
	pks_defer_reserving = true;
	/* no pair: a count's hint; report() takes it whole by exchange */
	if (unlikely(atomic_load_explicit(&pks_defer_dq.dropped, memory_order_relaxed)))
		report(&stamp, &lane, l, w);
	while (!(r = reserve(&lane, sizeof(*r) + y->bytes + fn, &ring, &stamp, w->tid))) {
		why = overflow(sizeof(*r) + y->bytes + fn, interrupted, w->in_handler);
		if (why != RETRY) {
			pks_defer_reserving = interrupted;
			if (why == DROPPED && text)
				record(l, w);
			return why == DROPPED;
		}
	}
	put(r, stamp, y, text, func, fn, l, w);
	pks_defer_reserving = interrupted;
	if (text)
		record(l, w);
	/* seq_cst: pairs with printer.c's park(), as the head's compare-and-swap */
	if (unlikely(atomic_load(pks_defer_dq.sleep_word) != PKS_DEFER_AWAKE))
		rouse(w->in_handler, pks_ring_used(ring) > ring->size / 2 ? PKS_DEFER_NAP : PKS_DEFER_IDLE);
	return true;
}

/** pks_defer_put() - enqueue() of a line kept as its arguments (args.c) */
bool pks_defer_put(struct pks_line *l, struct pks_writer *w, const struct pks_defer_payload *y)
{
	return enqueue(l, w, y, false);
}

/** pks_defer_line() - enqueue() of @l's text */
bool pks_defer_line(struct pks_line *l, struct pks_writer *w)
{
	size_t n = seq_buf_used(&l->sb);

	return enqueue(l, w, &(struct pks_defer_payload){ PKS_REC_TEXT, 1, n,
		       { l->sb.buffer }, { (uint32_t)n } }, true);
}

/**
 * pks_defer_abandoned() - this thread's calls in frames below @below (newer,
 * the stack growing down) never go on: a handler left by a jump, the
 * thread ending, the process dying from inside a call (UINTPTR_MAX). A
 * record one of them reserved is skipped by the reader.
 */
void pks_defer_abandoned(uintptr_t below)
{
	struct pks_defer_rec *r = pending;

	if (r && pending_frame < below) {
		pending = NULL;
		pks_defer_reserving = false;
		pks_ring_discard(r);	/* release: pairs with pks_ring_read()'s acquire */
	}
}

/*
 * ThreadSanitizer's runtime, when the program has one: it kills a fork child
 * of a threaded process that starts a thread (printk-shim(7) DEFERRED
 * PRINTING).
 */
extern void __tsan_init(void) __attribute__((weak, visibility("default")));

/**
 * pks_defer_forked() - in a fork child: the parent's pending lines are the
 * parent's to write; the child's first deferred line starts its own ring
 * (under ThreadSanitizer, the child writes its lines at once)
 */
void pks_defer_forked(void)
{
	/* no pair: a fork child has one thread (here and below) */
	int s = atomic_load(&pks_defer_dq.state);

	/* first: a handler's line now goes out at once (no pair: one thread) */
	if (s != PKS_DEFER_CLOSED)
		atomic_store(&pks_defer_dq.state, __tsan_init ? PKS_DEFER_FAILED : PKS_DEFER_OFF);
	if (pks_defer_dq.mem)
		munmap(pks_defer_dq.mem, pks_defer_dq.mem_size);
	pks_defer_dq.mem = NULL;
	atomic_store(&pks_defer_dq.pid, 0);	/* no pair: one thread */
	memset(pks_defer_dq.lanes, 0, sizeof(pks_defer_dq.lanes));
	pks_defer_dq.nlanes = 0;
	/* no pair: one thread, and no printer in this process yet */
	atomic_store(&pks_defer_dq.busy, 0);
	atomic_store(pks_defer_dq.sleep_word, PKS_DEFER_AWAKE);
	atomic_store(&pks_defer_dq.waiters, 0);
	atomic_store(&pks_defer_dq.dropped, 0);	/* no pair: one thread */
	atomic_store(&pks_defer_dq.owner.tid, 0);	/* no pair: one thread */
	pks_defer_consuming = false;
	pks_defer_reserving = false;
	pending = NULL;
	spilled = 0;
	mine = 0;
}
