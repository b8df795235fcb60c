// SPDX-License-Identifier: MIT
/*
 * Deferred printing's callers (printk-shim(7) DEFERRED PRINTING): a
 * complete line, with what is known of it at the call, copied into its
 * thread's lane of the ring (core/ring.c), or into another lane with room
 * (the common way inline in internal.h, pks_defer_enqueue(); the rest
 * here); the ring and its printer started at the first line; the fork
 * handlers.
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
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct pks_defer_state pks_defer_dq = {
	.sleep_word = &pks_defer_dq.sleep_own,
	.sleep_private = FUTEX_PRIVATE_FLAG,
};
PKS_TLS struct pks_defer_self pks_defer_self;
static PKS_TLS uint32_t full_at;	/* pks_defer_dq.space + 1 when every lane was full */

static bool start(bool line);

/**
 * pks_defer_rouse() - the printer is wanted (its sleep at @upto or deeper):
 * wake it, or, when it has ended (printer.c's park()), start another; a
 * handler, which cannot start a thread, writes the ring itself
 */
void pks_defer_rouse(bool handler, int upto)
{
	/* pairs with park()'s exchange to OFF and start()'s stores */
	if (atomic_load(&pks_defer_dq.state) != PKS_DEFER_OFF) {
		pks_defer_wake(upto);
	} else if (handler || !start(false)) {
		if (pks_defer_take()) {
			pks_defer_drain_now(handler);
			pks_defer_give();
		}
	}
}

/* A cancellation in the wait for room: noted for the thread's cleanup handlers' calls. */
static void cut_off(void *unused)
{
	(void)unused;
	pks_defer_self.cut = true;
}

/**
 * pks_defer_overflow() - no room for a record of @n bytes of thread @tid in
 * any lane. A handler that interrupted this thread's own reservation cannot
 * wait: the printer waits for that record. @handler: a handler's line, whose drain
 * makes no dladdr() call. @text: the line's text is on its context's line,
 * where a thread cancelled in the wait leaves it to be written later
 * (printk-shim(7) WHEN A LINE IS WRITTEN); a line kept as its arguments is
 * nowhere else, so it is made into text before it waits. @keep: a piece of
 * a line whose earlier pieces are in the ring, not dropped (it waits, as
 * without PRINTK_SHIM_DEFER_FULL=drop, PKS_DEFER_KEEP_WAITS times at most),
 * so that no line is torn while its output moves at all.
 * Return: what the caller does: PKS_DEFER_RETRY, _WRITE_IT or _DROPPED.
 */
int pks_defer_overflow(size_t n, long tid, bool interrupted, bool handler, bool text, bool keep)
{
	/* pairs with the printer's increment after each release (settle()) */
	uint32_t seen = atomic_load(&pks_defer_dq.space);

	if (n > pks_ring_max(&pks_defer_dq.lanes[0].ring)) {
		pks_defer_elders(tid, handler);	/* too long for the ring: its elders first */
		return PKS_DEFER_WRITE_IT;
	}
	if (pks_config()->set.defer_full == PKS_FULL_DROP && !keep) {
		atomic_fetch_add(&pks_defer_dq.dropped, 1);	/* no pair: a count */
		return PKS_DEFER_DROPPED;
	}
	if (pks_defer_self.consuming)
		return PKS_DEFER_WRITE_IT;
	if (interrupted) {
		/*
		 * The thread's own record is not committed until this handler
		 * returns: write what the ring holds before it, then this line.
		 */
		if (pks_defer_take()) {
			pks_defer_drain_now(true);
			pks_defer_give();
		}
		return PKS_DEFER_WRITE_IT;
	}
	if (!text)
		return PKS_DEFER_WRITE_IT;
	pks_defer_self.reserving = false;
	/* pairs with settle()'s load of waiters after its increment of space:
	 * counted before it looks, this waiter is woken; the futex compares seen */
	atomic_fetch_add(&pks_defer_dq.waiters, 1);
	pks_defer_rouse(handler, PKS_DEFER_NAP);
	pks_defer_futex(&pks_defer_dq.space, FUTEX_WAIT, (int)seen, pks_config()->set.defer_latency);
	atomic_fetch_sub(&pks_defer_dq.waiters, 1);	/* no pair: a wake too many is harmless */
	/* a cancellation point, as the write(2) it stands for: a few ms at most
	 * after pthread_cancel(), the wait being bounded by the latency */
	if (!handler) {
		pthread_cleanup_push(cut_off, NULL);
		pthread_testcancel();
		pthread_cleanup_pop(0);
	}
	pks_defer_self.reserving = true;
	return PKS_DEFER_RETRY;
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

	/* relaxed: pairs with pks_defer_other()'s load through the program's order,
	 * as pks_defer_when()'s store */
	atomic_store_explicit(&pks_defer_dq.owner.last, s, memory_order_relaxed);
	return s;
}

/**
 * pks_defer_other() - the stamp of a line of thread @tid that is not the
 * owner, @o (pks_defer_when()): it takes over when there is none; otherwise
 * every line is stamped by the clock from now on, and this store comes
 * before the clock is read. Not inline: the owner's lines do without it.
 */
uint64_t pks_defer_other(long tid, long o)
{
	struct pks_defer_owner *w = &pks_defer_dq.owner;

	/* seq_cst: one owner at a time; pairs with pks_defer_gone()'s and itself */
	if (o == 0 && tid > 0 && atomic_compare_exchange_strong(&w->tid, &o, tid)) {
		/* relaxed: pairs with the last owner's stores through the
		 * compare-and-swap, which ordered them before it */
		return recount(atomic_load_explicit(&w->last, memory_order_relaxed));
	}
	if (o != PKS_DEFER_MANY)	/* seq_cst: pairs with pks_defer_when()'s load (see there) */
		atomic_store(&w->tid, PKS_DEFER_MANY);
	/* relaxed: pairs with pks_defer_when()'s store through the program's order, as above */
	return past(atomic_load_explicit(&w->last, memory_order_relaxed));
}

/*
 * The stamp of thread @tid's line, stamped @stamp, that goes to another
 * lane than its last. The owner's count orders its own lane; across lanes
 * its line must come after every line reserved before it, in any lane: so
 * it takes the clock's, as pks_defer_other() gives, and the count goes on
 * from there.
 */
static uint64_t moved(uint64_t stamp, long tid)
{
	/* no pair: whether this thread is the owner, which only it and
	 * pks_defer_other() change; another's line has the clock's already */
	if (atomic_load_explicit(&pks_defer_dq.owner.tid, memory_order_relaxed) != tid)
		return stamp;
	return recount(stamp);
}

/**
 * pks_defer_gone() - thread @tid writes no more lines: when it was the
 * owner (pks_defer_when()), the next thread to write one may be
 */
void pks_defer_gone(long tid)
{
	long o = tid;

	/* seq_cst: pairs with pks_defer_other()'s compare-and-swap, which then reads this one */
	atomic_compare_exchange_strong(&pks_defer_dq.owner.tid, &o, 0);
	/*
	 * The program's last thread may be ending (pthread_exit, or a fork
	 * child's one thread returning): the process ends when the printer
	 * does, which need not wait to idle out (printer.c's forsaken()).
	 */
	/* no pair: a printer that ends meanwhile finds no one to wait for */
	if (atomic_load_explicit(&pks_defer_dq.state, memory_order_relaxed) == PKS_DEFER_RUNNING &&
	    pks_pid_threads() == 2) {
		/* no pair: a hint the printer checks against /proc */
		atomic_store_explicit(&pks_defer_dq.forsaken, tid, memory_order_relaxed);
		pks_defer_wake(PKS_DEFER_NAP);
	}
}

/**
 * pks_defer_spill() - no room in this thread's lane: the next lane with
 * room, so that one thread can fill the whole ring; it stays there
 * (spilled) until that one is full too. A line in another lane keeps its
 * place: the printer merges the lanes by stamp (moved()); and while this
 * thread's records in the lane it leaves are not all released, the new one
 * carries that lane and where they end, for the printer to write them
 * first (struct pks_defer_rec's after): a record of another thread not yet
 * committed before them would hide them from the merge meanwhile. It is
 * put past the record's @n bytes, in room that pks_defer_fill() never
 * writes and that the ring gave zeroed. Noted (pks_defer_note()).
 */
struct pks_defer_rec *pks_defer_spill(unsigned int *lane, size_t n, struct pks_ring **ring,
				      uint64_t *stamp, long tid)
{
	struct pks_defer_self *me = &pks_defer_self;
	unsigned int k = (unsigned int)pks_defer_dq.nlanes, from = *lane & (k - 1);
	/* no pair: a hint; a release missed here is seen at the next line */
	uint32_t seen = atomic_load_explicit(&pks_defer_dq.space, memory_order_relaxed);
	uint64_t upto = me->mine;
	struct pks_defer_rec *r;
	bool after;

	if (seen + 1 == full_at)
		return NULL;	/* every lane was full, and nothing was released since */
	/*
	 * mine is where this thread's last record ended, in the lane it went
	 * to; a line of another thread's context that this one wrote (a node
	 * it took over, an exit's flush) went to that thread's lane, so it
	 * may be another lane's position: one past this lane's head is none
	 * of its, and a record that waited for it would wait for ever.
	 * Acquire: pairs with pks_ring_release()'s store; what it passed was
	 * written.
	 */
	after = atomic_load_explicit(&(*ring)->tail, memory_order_acquire) < upto &&
		/* no pair: a bound; the head only grows */
		upto <= atomic_load_explicit(&(*ring)->head, memory_order_relaxed);
	*stamp = moved(*stamp, tid);
	for (unsigned int i = 1; i < k; i++) {
		*ring = &pks_defer_dq.lanes[(*lane + i) & (k - 1)].ring;
		r = pks_ring_reserve_at(*ring, n + (after ? sizeof(upto) : 0), &me->mine);
		if (r) {
			me->spilled += i;
			*lane += i;
			if (after) {
				r->after = (uint8_t)(from + 1);
				memcpy((char *)r + n, &upto, sizeof(upto));
			}
			pks_defer_note(r, stamp);
			return r;
		}
	}
	full_at = seen + 1;
	return NULL;
}

/**
 * pks_defer_report() - the count of lines dropped so far, as a line where
 * they went missing. The room comes first, the count after: a count is
 * never taken without a record to hold it, so that a thread stopped
 * between the two as the process ends holds a reserved record, which the
 * closing drain waits for, and never a count nobody would say.
 * Return: false when it found no room: the count stays, for a later line.
 */
bool pks_defer_report(uint64_t *stamp, unsigned int *lane, const struct pks_line *l,
		      const struct pks_writer *w)
{
	char text[64];		/* the words for any count, sizeof(unsigned long) <= 8 */
	struct pks_ring *ring;
	struct pks_defer_rec *r = pks_defer_reserve(lane, sizeof(*r) + sizeof(text), &ring, stamp,
						    w->tid);
	unsigned long k;
	size_t n;

	if (!r)
		return false;
	/* no pair: a count, taken whole; what it counts was never stored */
	k = atomic_exchange(&pks_defer_dq.dropped, 0);
	if (!k) {		/* another thread's line said it meanwhile */
		pks_defer_self.pending = NULL;
		pks_ring_discard(r);	/* release: pairs with pks_ring_read()'s acquire */
		return true;
	}
	n = pks_defer_drop_text(text, k);
	pks_defer_fill(r, *stamp, &(struct pks_defer_payload){ PKS_REC_TEXT, 1, n,
		       { text }, { (uint32_t)n } }, true, NULL, 0, l, w);
	return true;
}

/* The started state @s, to every thread, and to started()'s waiters. Return: it runs. */
static bool publish(int s)
{
	/* pairs with pks_defer_admit()'s and started()'s loads: a RUNNING ring is mapped */
	atomic_store(&pks_defer_dq.state, s);
	pks_defer_futex(&pks_defer_dq.state, FUTEX_WAKE, INT_MAX, 0);
	return s == PKS_DEFER_RUNNING;
}

/* start()'s work, in the window: one starter, which makes the ring and the printer. */
static bool starting(void)
{
	int off = PKS_DEFER_OFF;

	/* pairs with park()'s exchanges and pks_defer_admit()'s, _rouse()'s and ours()'s loads:
	 * one starter; RUNNING is stored once the ring is mapped (publish()) */
	if (!atomic_compare_exchange_strong(&pks_defer_dq.state, &off, PKS_DEFER_STARTING))
		return false;
	if (!pks_defer_map() || !pks_defer_spawn()) {
		pks_warn("PRINTK_SHIM_DEFER: no printer thread: %s; writing every line at once",
			 pks_strerror(errno));
		return publish(PKS_DEFER_FAILED);
	}
	return publish(PKS_DEFER_RUNNING);
}

/*
 * The first deferred line of this process: the ring and its printer, made
 * inside the ring's window (printk-shim(7) DEFERRED PRINTING): a handler
 * that arrives meanwhile waits (ctx/signals.c), as one that left by a jump
 * would leave the state STARTING for good. @line: a line is on its way
 * into the ring, and the window stays open for it: the handler waits for
 * that line too.
 */
static bool start(bool line)
{
	bool was = pks_defer_self.reserving, ok;

	/*
	 * In memory not this process's own (a vfork child that went past
	 * the vfork hook, a clone sharing memory), the ring would be the
	 * parent's: the line is written now, the state left alone.
	 */
	if (pks_pid_differs(pks_pid()))
		return false;
	pks_defer_self.reserving = true;
	ok = starting();
	pks_defer_self.reserving = was || (ok && line);	/* pks_defer_enqueue() closes it */
	return ok;
}

/*
 * Another thread of this process is starting the printer: wait for it,
 * rather than write the line now, beside the ring's and perhaps between
 * the parts of another thread's (printk-shim(7) DEFERRED PRINTING). A
 * while at most, and once: a starter that a handler left by a jump never
 * ends. Return: the state then.
 */
static int started(void)
{
	static _Atomic bool stuck;
	int s = PKS_DEFER_STARTING;

	/* no pair: a flag, no data behind it */
	if (atomic_load_explicit(&stuck, memory_order_relaxed) || pks_pid_differs(pks_pid()))
		return s;	/* or a vfork child: the starter is its parent's */
	for (int i = 0; i < 20 && s == PKS_DEFER_STARTING; i++) {
		pks_defer_futex(&pks_defer_dq.state, FUTEX_WAIT, PKS_DEFER_STARTING, 5);
		s = atomic_load(&pks_defer_dq.state);	/* pairs with start()'s stores */
	}
	if (s == PKS_DEFER_STARTING)
		atomic_store_explicit(&stuck, true, memory_order_relaxed);	/* as above */
	return s;
}

/**
 * pks_defer_crashed() - a fatal signal's handler on another thread writes
 * the ring (pks_defer_crash()): wait for it before writing a line, as at exit,
 * so that the line comes after this thread's lines still in the ring. The
 * process ends within 2 s of the signal (ctx/signals.c's dying()): a while
 * at most, and once; a waiter the end overtakes never returns, as a
 * synchronous caller the end overtakes in its write.
 */
void pks_defer_crashed(void)
{
	static _Atomic bool stuck;

	/* no pair: a flag, no data behind it */
	if (atomic_load_explicit(&stuck, memory_order_relaxed))
		return;
	/* pairs with pks_defer_crash()'s store after its drain */
	for (int i = 0; i < 210 && !atomic_load(&pks_defer_dq.crashed); i++)
		pks_defer_futex(&pks_defer_dq.crashed, FUTEX_WAIT, 0, 10);
	/* pairs with pks_defer_crash()'s store, as above; the flag's: no pair */
	if (!atomic_load(&pks_defer_dq.crashed))
		atomic_store_explicit(&stuck, true, memory_order_relaxed);
}

/**
 * pks_defer_admit() - the ring is not running, or not this process's: may
 * @w's line go into it?
 */
bool pks_defer_admit(const struct pks_writer *w)
{
	/* acquire: pairs with pks_defer_map()'s release */
	pid_t pid = atomic_load_explicit(&pks_defer_dq.pid, memory_order_acquire);
	int s;

	if (pid && pid != pks_pid())
		pks_defer_forked();	/* a child made without the fork handlers */
	/* pairs with start()'s stores and pks_defer_close()'s and _crash()'s exchanges */
	s = atomic_load(&pks_defer_dq.state);
	if (s == PKS_DEFER_OFF && !w->in_handler) {
		if (start(true))
			return true;
		s = atomic_load(&pks_defer_dq.state);	/* pairs with start()'s stores: another may start it */
	}
	if (s == PKS_DEFER_STARTING && !w->in_handler)
		s = started();
	if (s == PKS_DEFER_CLOSED)
		pks_defer_flushed(w->tid, w->in_handler);	/* the ring's lines first: this one follows */
	return s == PKS_DEFER_RUNNING;
}

/**
 * pks_defer_fd_gone() - an output's descriptor was closed by the program,
 * or was at the start: while one still is, a line is written by its caller
 * and lost as without the ring, rather than written later into whatever
 * file the program opens on that number (printk-shim(7) DEFERRED
 * PRINTING). Once all are open again, lines go into the ring.
 * Return: whether one is closed now.
 */
bool pks_defer_fd_gone(void)
{
	if (pks_sink_fd_closed(pks_config()))
		return true;
	/* no pair: the hint cleared; a close after this sets it again */
	atomic_store_explicit(&pks_defer_dq.fd_closed, false, memory_order_relaxed);
	return false;
}

/**
 * pks_defer_follow() - a file: output's path names another file now (log
 * rotation): the ring's lines, printed before, are written to the old file
 * first, then the path is opened again, as a synchronous caller follows it
 * (printk-shim(7) DEFERRED PRINTING)
 */
void pks_defer_follow(void)
{
	pks_defer_drain(false);	/* never from a handler: its line follows no path */
	pks_sink_follow(pks_config());
}

/**
 * pks_defer_closed() - the program closed its descriptors @lo to @hi: if a
 * line may go to one of them, the next line asks whether it still is
 */
void pks_defer_closed(int lo, int hi)
{
	if (pks_defer_feeds(lo, hi))	/* no pair: a hint, as in pks_defer_enqueue() */
		atomic_store_explicit(&pks_defer_dq.fd_closed, true, memory_order_relaxed);
}

/* A piece of a line whose first piece a full ring dropped (l->shed): left out with it, uncounted. */
static __attribute__((noinline, cold)) bool shed(struct pks_line *l, struct pks_writer *w)
{
	pks_line_taken(l);
	pks_defer_record(l, w);
	return true;
}

/** pks_defer_line() - pks_defer_enqueue() of @l's text, or shed() */
bool pks_defer_line(struct pks_line *l, struct pks_writer *w)
{
	size_t n = seq_buf_used(&l->sb);

	if (unlikely(l->shed))
		return shed(l, w);

	return pks_defer_enqueue(l, w, &(struct pks_defer_payload){ PKS_REC_TEXT, 1, n,
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
	struct pks_defer_self *me = &pks_defer_self;
	struct pks_defer_rec *r = me->pending;

	if (r && me->frame < below) {
		me->pending = NULL;
		me->reserving = false;
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
	atomic_store(&pks_defer_dq.takers, 0);	/* no pair: one thread */
	atomic_store(&pks_defer_dq.forsaken, 0);	/* no pair: one thread */
	atomic_store(pks_defer_dq.sleep_word, PKS_DEFER_AWAKE);
	atomic_store(&pks_defer_dq.waiters, 0);
	atomic_store(&pks_defer_dq.dropped, 0);	/* no pair: one thread */
	atomic_store(&pks_defer_dq.seized, false);	/* no pair: one thread */
	atomic_store(&pks_defer_dq.owner.tid, 0);	/* no pair: one thread */
	pks_defer_self = (struct pks_defer_self){ .pending = NULL };	/* every word zero */
}
