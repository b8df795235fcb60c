// SPDX-License-Identifier: MIT
/*
 * Deferred printing's consumer (printk-shim(7) DEFERRED PRINTING): the
 * printer thread, which hands the records to the outputs in batches
 * (sink/batch.h), the lanes merged by the time each record went in; and
 * the moments someone else empties the ring: exec, exit, fork, a fatal
 * signal. Whoever empties the ring holds the consumer word.
 * The printer wakes when a lane passes half full, when a caller waits for
 * room, when a line comes while it idles, and otherwise after the latency
 * bound; so a caller makes a system call only for those. Idle for a second,
 * it ends, and the next line starts another: a process whose other threads
 * are gone ends as it would without the module, with or without /proc.
 * Thread-safety: the consumer word is never waited for by its own holder
 * (a handler), nor forever by a fatal signal's flush.
 */
#include "defer/defer.h"
#include "defer/internal.h"
#include "base/clock.h"
#include "base/compiler.h"
#include "base/digits.h"
#include "base/pid.h"
#include "base/sigmask.h"
#include "base/tsan.h"
#include "config/config.h"
#include "core/render.h"
#include "sink/batch.h"
#include "sink/sink.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BATCH_BYTES	(64u << 10)	/* per output and batch */
#define STACK_BYTES	(256u << 10)	/* the printer's: the sink's rendering */
#define CRASH_WAIT_MS	200		/* a fatal signal's wait for the printer's batch */
#define PARK_MS		1000		/* and then for its write in flight, of 2 s (ctx/signals.c) */
#define LATE_MS		200		/* the closing drain's wait for records in flight: a thread
					   descheduled in its window on a loaded machine */
#define FLUSHED_MS	1000		/* a thread's wait for its own, after it (pks_defer_flushed()) */
#define HELD_US		2000		/* pks_defer_drain()'s wait for a record in flight that holds
					   a thread's earlier lines back (ordered()) */
#define IDLE_MS		1000		/* an empty ring's wait for a line before the printer ends */
#define LANE_MIN	(64u << 10)

static PKS_TLS bool printing;	/* this thread is the printer, with every signal blocked */

/* The consumer's: the batches, and a record again as a line with head and tail room. */
static struct pks_fd_batch fd_batch;
static struct pks_dgrams dgrams;
static struct pks_sink_batch batch;
static struct pks_line line;
static struct pks_writer writer;
static int plain_fd = -1;	/* pks_sink_plain()'s, per drain */
static bool held;		/* write_run() held a lane back since the consumer word was taken */

/**
 * pks_defer_futex() - futex(2) on @word, private but for a shared sleep
 * word; @ms: 0 waits for ever. A wait that futex(2) refuses (a seccomp(2)
 * filter's EPERM or ENOSYS) sleeps instead, @ms or the latency bound,
 * whichever is shorter, and says it timed out: the waiter looks again, as
 * after a wake, and a printer idles as it would, rather than spin.
 */
long pks_defer_futex(volatile void *word, int op, int val, unsigned long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

	/* the sleep word may be the control file's, shared with printk-shim --flush */
	int private = word == (volatile void *)pks_defer_dq.sleep_word ? pks_defer_dq.sleep_private
								       : FUTEX_PRIVATE_FLAG;
	long r = syscall(SYS_futex, (void *)word, op | private, val, ms ? &ts : NULL, NULL, 0);

	if (r < 0 && op == FUTEX_WAIT && (errno == EPERM || errno == ENOSYS)) {
		/* no longer than the latency bound: no wake can cut it short */
		ms = ms && ms < pks_config()->set.defer_latency ? ms : pks_config()->set.defer_latency;
		nanosleep(&(struct timespec){ (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 }, NULL);
		errno = ETIMEDOUT;
	}
	return r;
}

/** pks_defer_wake() - the printer sleeps at @upto or deeper (NAP: at all; IDLE: idles): wake it */
void pks_defer_wake(int upto)
{
	/* pairs with doze()'s and park()'s stores: seq_cst against the commit
	 * before it, so a printer going to sleep sees the line or is woken */
	int s = atomic_load(pks_defer_dq.sleep_word);

	/* pairs with doze()'s stores, as the load above */
	if (s >= upto && atomic_exchange(pks_defer_dq.sleep_word, PKS_DEFER_AWAKE) != PKS_DEFER_AWAKE)
		pks_defer_futex(pks_defer_dq.sleep_word, FUTEX_WAKE, 1, 0);
}

/* --- the consumer word --------------------------------------------------- */

/** pks_defer_take() - the consumer word, waiting for it (not when this thread has it) */
bool pks_defer_take(void)
{
	int free_ = 0;

	if (pks_defer_self.consuming)
		return false;
	pks_defer_self.consuming = true;	/* first: from here a handler of ours is held */
	/* pairs with pks_defer_give()'s exchange: the last consumer's releases
	 * and positions before ours (a futex lock: 0 free, 1 taken, 2 waited for) */
	if (!atomic_compare_exchange_strong(&pks_defer_dq.busy, &free_, 1)) {
		/* no pair: a count the printer's drain looks at between batches (wanted()) */
		if (!printing)
			atomic_fetch_add_explicit(&pks_defer_dq.takers, 1, memory_order_relaxed);
		while (atomic_exchange(&pks_defer_dq.busy, 2) != 0)
			pks_defer_futex(&pks_defer_dq.busy, FUTEX_WAIT, 2, 0);
		/* no pair: as above */
		if (!printing)
			atomic_fetch_sub_explicit(&pks_defer_dq.takers, 1, memory_order_relaxed);
	}
	/* pairs with a fatal signal's handler on this thread (pks_defer_crash()): set once taken */
	atomic_signal_fence(memory_order_seq_cst);
	pks_defer_self.owns = true;
	return true;
}

/** pks_defer_give() - the consumer word back, a waiter woken */
void pks_defer_give(void)
{
	pks_defer_self.owns = false;
	/* pairs with a fatal signal's handler on this thread, as in pks_defer_take(): cleared first */
	atomic_signal_fence(memory_order_seq_cst);
	/* pairs with pks_defer_take()'s exchanges: our work before the next consumer's */
	if (atomic_exchange(&pks_defer_dq.busy, 0) == 2)
		pks_defer_futex(&pks_defer_dq.busy, FUTEX_WAKE, 1, 0);
	pks_defer_self.consuming = false;
}

/* --- records to the outputs --------------------------------------------- */

static size_t text_of(const struct pks_defer_rec *r, char *buf, size_t size)
{
	size_t n = r->n < size ? r->n : size;

	memcpy(buf, r->data, n);
	return n;
}

/* Each kind of payload as the text of a line, into @buf of @size bytes. */
static size_t (*const to_text[PKS_REC_KINDS])(const struct pks_defer_rec *, char *, size_t) = {
	[PKS_REC_TEXT] = text_of,
	[PKS_REC_ARGS] = pks_defer_args_text,
	[PKS_REC_FORM] = pks_defer_form_text,
};

/*
 * One record to the outputs, as the line it was, with what its caller knew
 * (write_rec()'s way, but for a plain batched output).
 */
static __attribute__((noinline)) void write_line(const struct pks_defer_rec *r,
						 const struct pks_sink_batch *b, bool crash)
{
	line.sb.len = to_text[r->kind](r, line.sb.buffer, line.sb.size);
	if (b && b->dg) {
		if (!pks_batch_dg_room(b->dg, line.sb.len)) {
			/* its redo() makes the lines it sends again in line: ours anew after */
			pks_batch_dg_flush(b->dg);
			/* every line before this one out everywhere: noted (flushed()),
			 * so that a fatal signal's drain does not send them again */
			pks_batch_fd_flush(b->fd);
			line.sb.len = to_text[r->kind](r, line.sb.buffer, line.sb.size);
		}
		b->dg->key = r;
	}
	line.level = r->level;
	line.cont = r->cont;
	line.t_ns = r->t_ns;
	line.site = r->site;
	writer.tid = r->tid;
	writer.in_handler = r->in_handler || crash;
	/* a calm line waits for a full journal as its caller would have; no pair: a flag */
	writer.dying = crash && !r->in_handler &&
		       atomic_load_explicit(&pks_defer_dq.crashing, memory_order_relaxed);
	writer.site = r->site;	/* the name as the caller saw it: never looked up here */
	memcpy(writer.func, r->data + r->n, r->func_len);
	writer.func[r->func_len] = '\0';
	pks_sink_line(&line, &writer, b);
}

/*
 * One record to the outputs: made where the batch holds it when the output
 * writes it as it lies (inline in the drain: the usual case), else by
 * write_line().
 */
static inline void write_rec(const struct pks_defer_rec *r, const struct pks_sink_batch *b,
			     bool crash)
{
	size_t n;
	char *at;
	int i;

	if (b == &batch && plain_fd >= 0 &&
	    (at = pks_batch_room(b->fd, plain_fd, 0, line.sb.size + 1, &i))) {
		n = to_text[r->kind](r, at, line.sb.size);
		at[n] = '\n';
		pks_batch_took(b->fd, i, n + 1);
		return;
	}
	write_line(r, b, crash);
}

/*
 * A daemon's message @m that its batch did not deliver: the record again,
 * to that output alone, sent now; a line it writes to stderr instead
 * (unless told: it is there) goes into the descriptors' batch, after the
 * lines before it. Return: whether stderr has it now.
 */
static bool redo(const struct pks_dgram *m)
{
	bool told = m->told;

	write_rec(m->key, &(struct pks_sink_batch){ &fd_batch, NULL, m->out, &told, m->seq },
		  false);
	return told;
}

/*
 * @k lines of output @out's batch lost to @err (pks_sink_failed()). A
 * write to a pipe whose reader is gone sent SIGPIPE to the thread that
 * wrote (pipe(7)); the printer blocks every signal, so the process gets
 * one, as the caller of a synchronous write would have: a program printing
 * into "| head" ends when head does, one that ignores SIGPIPE goes on.
 * The loss is then told at exit only: the signal reaches another thread
 * while this one goes on, and a warning now would come out before the
 * process ends, where the caller's write would have ended it first.
 */
static void failed(int out, unsigned long k, int err)
{
	bool epipe = err == EPIPE && printing;

	if (epipe)
		kill(pks_pid(), SIGPIPE);
	pks_sink_failed(out, k, err, epipe);
}

/*
 * A drain whose consumer word a fatal signal's handler stopped waiting for
 * (pks_defer_crash()), back from its write: the handler writes the lanes
 * now, and this thread touches them no more until the process ends, a
 * moment later (ctx/signals.c's dying()).
 */
static void overtaken(void)
{
	/* seq_cst: pairs with pks_defer_crash()'s load: the lanes' out stored before */
	atomic_store(&pks_defer_dq.parked, true);
	for (;;)
		pause();
}

/*
 * The descriptors' batch was written, all that was read before the record
 * being put (its lane's pos is still its start): out, where no daemon's
 * message of them waits. A fatal signal's drain that stopped waiting for
 * this one waits for it to come back here, and starts from there, so that
 * what a slow reader took already is not written twice; this drain writes
 * nothing more.
 */
static void flushed(void)
{
	for (int i = 0; !dgrams.n && i < pks_defer_dq.nlanes; i++)
		/* release: pairs with drain()'s acquire in the handler: the lines are out */
		atomic_store_explicit(&pks_defer_dq.lanes[i].out, pks_defer_dq.lanes[i].pos,
				      memory_order_release);
	/* pairs with pks_defer_crash()'s store, as settle()'s */
	if (unlikely(atomic_load(&pks_defer_dq.seized)))
		overtaken();
}

/*
 * Where a fatal signal's drain starts in @l when it took over from a drain
 * it seized or cut off on its own thread: @out, what that one wrote, if
 * past the tail and not past the head.
 */
static uint64_t from(const struct pks_defer_lane *l, uint64_t out)
{
	/* no pair: the handler's own loads; the ring's are ordered by seized */
	return out > l->pos && out <= atomic_load(&l->ring.head) ? out : l->pos;
}

/* The lines read so far are written: flush the batch, free their room. */
static void settle(const struct pks_sink_batch *b)
{
	if (b && b->dg)
		pks_batch_dg_flush(b->dg);
	if (b)
		pks_batch_fd_flush(b->fd);	/* a failed write's lines: pks_sink_failed() */
	/* pairs with pks_defer_crash()'s store: the handler's drain is the only one now */
	if (b && unlikely(atomic_load(&pks_defer_dq.seized)))
		overtaken();
	for (int i = 0; i < pks_defer_dq.nlanes; i++) {
		struct pks_defer_lane *l = &pks_defer_dq.lanes[i];

		if (l->done != l->pos)
			pks_ring_release(&l->ring, l->done = l->pos);
	}
	/* pairs with pks_defer_overflow()'s load of space and its waiters count: a
	 * waiter counted before our load is woken, a later one sees new space */
	atomic_fetch_add(&pks_defer_dq.space, 1);
	if (atomic_load(&pks_defer_dq.waiters))
		pks_defer_futex(&pks_defer_dq.space, FUTEX_WAKE, INT_MAX, 0);
}

/*
 * The printer's drain, while other threads keep filling the ring, would
 * hold the consumer word for ever: a caller that waits for it (a fork's,
 * an exec's, a descriptor's drain: pks_defer_take()) has it after the
 * printer's batch.
 */
static inline bool wanted(void)
{
	/* no pair: a hint; the word's own exchanges order what it guards */
	return printing && atomic_load_explicit(&pks_defer_dq.takers, memory_order_relaxed) > 0;
}

/*
 * Whether a drain that is not a fatal signal's (@crash false) gives way to
 * one: a signal that ends the process came, and its handler waits for the
 * consumer word to write the ring (pks_defer_crash()), rather than write
 * beside this drain.
 */
static inline bool stopped(bool crash)
{
	/* no pair: a hint; the handler takes the word after */
	return !crash && unlikely(atomic_load_explicit(&pks_defer_dq.crashing, memory_order_relaxed)) &&
	       /* no pair: as above */
	       !atomic_load_explicit(&pks_defer_dq.crashed, memory_order_relaxed);
}

/* @l's next gathered record, if it has one left. */
static void advance(struct pks_defer_lane *l)
{
	l->after = l->pos;
	l->next = l->pos < l->end ? pks_ring_next(&l->ring, &l->after) : NULL;	/* gather() read it */
}

/*
 * Every lane's committed records, up to where each stops, until a look at
 * every lane finds none more. A line that the program ordered before a
 * gathered one was committed before it was seen: so that last look, which
 * came after every record gathered was seen, found it too, and the merge
 * by stamp puts it first. @stop: NULL, or where each lane's reading ends
 * (pks_defer_drain()). Return: whether any record was gathered.
 */
static bool gather(const uint64_t *stop)
{
	bool grew, any = false;

	do {
		grew = false;
		for (int i = 0; i < pks_defer_dq.nlanes; i++) {
			struct pks_defer_lane *l = &pks_defer_dq.lanes[i];
			uint64_t p = l->end;

			while ((!stop || p < stop[i]) && pks_ring_read(&l->ring, &p)) {
				l->end = p;
				grew = true;
			}
			if (!l->next && l->pos < l->end)
				advance(l);
		}
		any |= grew;
	} while (grew);
	return any;
}

/*
 * The lane whose next gathered record went in first, or NULL: none is
 * left; *@limit: the earliest stamp of the other lanes' next records, up
 * to which the chosen lane's records go first.
 */
static struct pks_defer_lane *oldest(uint64_t *limit)
{
	struct pks_defer_lane *o = NULL;
	uint64_t first = UINT64_MAX;

	*limit = UINT64_MAX;
	for (int i = 0; i < pks_defer_dq.nlanes; i++) {
		struct pks_defer_lane *l = &pks_defer_dq.lanes[i];
		const struct pks_defer_rec *n = l->next;

		if (!n)
			continue;
		if (!o || n->stamp < first) {
			if (o)
				*limit = first;
			o = l;
			first = n->stamp;
		} else if (n->stamp < *limit) {
			*limit = n->stamp;
		}
	}
	return o;
}

/*
 * The lane that the earlier lines of @r's thread are in (@r->after), when
 * they are not all written yet, or NULL: @r may go now.
 */
static struct pks_defer_lane *behind(const struct pks_defer_rec *r)
{
	struct pks_defer_lane *w;
	uint64_t upto;

	if (PKS_WARN_ON_ONCE(r->after > pks_defer_dq.nlanes))
		return NULL;
	w = &pks_defer_dq.lanes[r->after - 1];
	memcpy(&upto, r->data + r->n + r->func_len, sizeof(upto));
	return w->pos < upto ? w : NULL;
}

/*
 * Lane @l's next records while their stamps stay at most @limit. One whose
 * thread's earlier lines wait in another lane goes after them: that lane's
 * records go first, one at a time before the merge looks again; when that
 * lane stops before them (a record not committed yet), @l is held until the
 * next gather(). @order false: nothing is held (every drain but the
 * printer's).
 * Return: how many were written.
 */
static size_t write_run(struct pks_defer_lane *l, uint64_t limit,
			const struct pks_sink_batch *b, bool crash, bool order)
{
	struct pks_defer_lane *w;
	int hops = 0;
	size_t n = 0;

	for (;;) {
		/* more hops than lanes before a write: links that make a cycle, never written */
		if (unlikely(l->next->after) && order && (w = behind(l->next)) &&
		    !PKS_WARN_ON_ONCE(++hops > pks_defer_dq.nlanes)) {
			if (!w->next) {
				l->next = NULL;		/* held: gather() advances it again */
				held = true;
				return n;
			}
			l = w;
			limit = 0;
			continue;
		}
		hops = 0;
		write_rec(l->next, b, crash);
		n++;
		l->pos = l->after;
		advance(l);
		if (l->pos - l->done >= l->ring.size / 4) {
			settle(b);
			if (stopped(crash))
				return n;	/* a batch at a time: the crash waits 200 ms at most */
		}
		if (!l->next || l->next->stamp > limit)
			return n;
	}
}

/*
 * Every committed record written, the lanes merged by stamp, up to the
 * first one not committed in each lane, a quarter of a lane at most per
 * batch; the consumer word's holder's. @crash as pks_defer_drain_now()'s;
 * @order: a thread's lines wait for its earlier ones that another lane
 * holds back (write_run()), as the printer, which comes back, can afford;
 * @stop as gather()'s.
 */
static size_t drain(bool crash, bool order, const uint64_t *stop)
{
	const struct pks_sink_batch *b = crash ? NULL : &batch;
	struct pks_defer_lane *l;
	uint64_t limit;
	size_t n = 0;

	if (!pks_defer_dq.nlanes)
		return 0;
	plain_fd = pks_sink_plain(b);
	if (b)
		pks_batch_fd_renew(b->fd);	/* a pipe or not, as the descriptors are now */
	for (int i = 0; i < pks_defer_dq.nlanes; i++) {
		l = &pks_defer_dq.lanes[i];
		/* no pair: only the consumer, which holds the word, moves the tail */
		l->pos = l->done = l->end = atomic_load(&l->ring.tail);
		l->next = NULL;
		if (crash && (pks_defer_self.owns || atomic_load(&pks_defer_dq.seized)))
			/* acquire: pairs with flushed()'s release, past what the cut drain wrote */
			l->pos = l->end = from(l, atomic_load_explicit(&l->out, memory_order_acquire));
		else
			/* no pair: the consumer's own; a handler reads it once seized, which orders it */
			atomic_store_explicit(&l->out, l->pos, memory_order_relaxed);
	}
	while (!stopped(crash) && !wanted() && gather(stop)) {
		/* a run from one lane while its stamps stay below the others' next */
		while (!stopped(crash) && (l = oldest(&limit)))
			n += write_run(l, limit, b, crash, order);
	}
	settle(b);
	return n;
}

/*
 * The consumer word's holder was cancelled in a write, a cancellation point
 * as the caller's own write would be: the word is given back, and what its
 * batches held is dropped, their records not yet released, so that the next
 * consumer writes them (a line written before the cut, once more at most).
 */
static void cancelled(void *arg)
{
	(void)arg;
	for (int i = 0; i < fd_batch.n; i++) {
		fd_batch.len[i] = 0;
		fd_batch.puts[i] = 0;
	}
	dgrams.n = 0;
	dgrams.used = 0;
	pks_defer_give();
}

/* drain() by a consumer that is not the printer, which a cancellation may cut off. */
static size_t empty(bool crash, bool order, const uint64_t *stop)
{
	size_t n;

	pthread_cleanup_push(cancelled, NULL);
	n = drain(crash, order, stop);
	pthread_cleanup_pop(0);
	return n;
}

/**
 * pks_defer_drain_now() - every committed record written, as the printer
 * does, by another thread (an exit, an exec, a fork, a caller with no
 * printer or no room): all that can be read goes now, nothing waits
 * @crash: one write per line, the printer's batch left alone: a fatal
 * signal's drain, or a signal handler's.
 * Return: how many.
 */
size_t pks_defer_drain_now(bool crash)
{
	return empty(crash, false, NULL);
}

/* Bytes waiting in the fullest lane, as a share of its size: 0 empty, 2 over half. */
static int gauge(void)
{
	int most = 0;

	for (int i = 0; i < pks_defer_dq.nlanes; i++) {
		uint64_t used = pks_ring_used(&pks_defer_dq.lanes[i].ring);
		int f = used > pks_defer_dq.lanes[i].ring.size / 2 ? 2 : used > 0;

		most = f > most ? f : most;
	}
	return most;
}

/** pks_defer_drop_text() - the kernel's words for @k lost lines, in @buf. Return: their length. */
size_t pks_defer_drop_text(char *buf, unsigned long k)
{
	static const char head[] = "** ", tail[] = " printk messages dropped **";
	char *p = pks_put_mem(buf, head, sizeof(head) - 1);

	p = pks_put_udec(p, k, 0, ' ');
	return (size_t)(pks_put_mem(p, tail, sizeof(tail) - 1) - buf);
}

/* Lines dropped after the last line that came: their count, now (a consumer's). */
static void report_now(void)
{
	/* no pair: a count; the lines it counts were never stored */
	unsigned long k = atomic_exchange(&pks_defer_dq.dropped, 0);
	char text[64];
	size_t n;

	if (!k || !line.sb.size)
		return;
	n = pks_defer_drop_text(text, k);
	n = n < line.sb.size ? n : line.sb.size;
	memcpy(line.sb.buffer, text, n);
	line.sb.len = n;
	line.level = 4;
	line.cont = false;
	line.t_ns = pks_now_ns();
	line.site = NULL;
	writer.tid = gettid();
	writer.in_handler = true;
	writer.site = NULL;
	pks_sink_line(&line, &writer, NULL);
}

/* --- the printer thread -------------------------------------------------- */

/*
 * Sleep until woken or the latency bound passes; @idle: the ring was empty
 * for a whole bound, so sleep until a line comes (IDLE_MS at most).
 * Return: whether time ran out.
 */
static bool doze(bool idle)
{
	unsigned long ms = pks_config()->set.defer_latency;
	int kind = PKS_DEFER_NAP;

	/* the sleep word's stores pair with pks_defer_wake()'s load and exchange:
	 * seq_cst, each before gauge() looks at the lanes (see park()) */
	if (idle) {	/* pairs with pks_defer_wake(), as below */
		atomic_store(pks_defer_dq.sleep_word, PKS_DEFER_IDLE);
		if (gauge() == 0) {
			kind = PKS_DEFER_IDLE;
			ms = IDLE_MS;
		}
	}
	/* pairs with pks_defer_wake(), as above */
	atomic_store(pks_defer_dq.sleep_word, kind);
	if (kind == PKS_DEFER_NAP && gauge() == 2) {
		atomic_store(pks_defer_dq.sleep_word, PKS_DEFER_AWAKE);
		return false;
	}
	if (pks_defer_futex(pks_defer_dq.sleep_word, FUTEX_WAIT, kind, ms) == 0 || errno != ETIMEDOUT) {
		/* pairs with pks_defer_wake(), as above */
		atomic_store(pks_defer_dq.sleep_word, PKS_DEFER_AWAKE);
		return false;
	}
	/* pairs with pks_defer_wake(), as above */
	atomic_store(pks_defer_dq.sleep_word, PKS_DEFER_AWAKE);
	return true;
}

/*
 * The ring stayed empty while the printer idled: it ends, the state OFF,
 * so that the next line starts another printer. The sleep word stays IDLE
 * meanwhile: a caller that commits a line after fill() looked sees IDLE
 * (both seq_cst: the head's compare-and-swap and its load of the sleep
 * word, against this store and fill()'s loads of the heads) and starts or
 * wakes a printer itself. Return: whether this printer ends.
 */
static bool park(void)
{
	int running = PKS_DEFER_RUNNING, off = PKS_DEFER_OFF;

	/* pairs with the caller's commit and its load of the sleep word (above);
	 * the exchanges on state pair with start()'s in producer.c */
	atomic_store(pks_defer_dq.sleep_word, PKS_DEFER_IDLE);
	if (!atomic_compare_exchange_strong(&pks_defer_dq.state, &running, PKS_DEFER_OFF))
		return atomic_load(&pks_defer_dq.state) > PKS_DEFER_RUNNING;	/* pairs with start(), as above */
	if (gauge() == 0)
		return true;
	/* A line came: this printer goes on, unless a caller started another
	 * (pairs with start()'s exchange, and the wake as above). */
	atomic_store(pks_defer_dq.sleep_word, PKS_DEFER_AWAKE);
	return !atomic_compare_exchange_strong(&pks_defer_dq.state, &off, PKS_DEFER_RUNNING);
}

/*
 * The thread named by pks_defer_dq.forsaken was the program's last: once it
 * has ended and the ring is empty, the printer ends now, not an idle
 * second later, and with it the process, as it would have without the
 * ring. An idle second at most, then the printer goes on as it was.
 */
static bool forsaken(void)
{
	/* no pair: a hint, checked below */
	long tid = atomic_load_explicit(&pks_defer_dq.forsaken, memory_order_relaxed);

	if (!tid)
		return false;
	for (int ms = 0; ms < IDLE_MS; ms++) {
		if (gauge() != 0)
			return false;	/* its last lines, from a destructor after ours */
		if (pks_pid_thread_gone(tid)) {
			/* no pair: as above; a line meanwhile keeps the printer, as after a wake */
			atomic_store_explicit(&pks_defer_dq.forsaken, 0, memory_order_relaxed);
			return true;	/* the printer and, if it led, its zombie: /proc says 2 */
		}
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	/* no pair: as above */
	atomic_store_explicit(&pks_defer_dq.forsaken, 0, memory_order_relaxed);
	return false;
}

/*
 * The printer's name and scheduling, its own: not those of whichever thread
 * printed the line that started it, which may be a real-time thread, or
 * have a timer slack of seconds that would stretch every wait of the
 * latency bound. It runs under SCHED_OTHER, on the CPUs, and at the nice
 * value, of the program's main thread; each step may be refused (a lower
 * nice value takes a privilege), and the rest goes on.
 */
static void own_ways(void)
{
	cpu_set_t cpus;
	int nice;

	prctl(PR_SET_NAME, "printk-shim");
	/* set here, not by the attributes: with PTHREAD_EXPLICIT_SCHED the new
	 * thread waits on a lock of glibc's, which aborts where futex(2) is refused */
	sched_setscheduler(0, SCHED_OTHER, &(struct sched_param){ 0 });
	/* the kernel's own default: 0 would give back the starter's, as inherited */
	prctl(PR_SET_TIMERSLACK, 50000UL);
	if (!sched_getaffinity(getpid(), sizeof(cpus), &cpus))
		sched_setaffinity(0, sizeof(cpus), &cpus);
	errno = 0;
	nice = getpriority(PRIO_PROCESS, (id_t)getpid());
	if (!errno)
		setpriority(PRIO_PROCESS, (id_t)gettid(), nice);
}

static void unblock_bus(void)
{
	sigset_t bus;

	sigemptyset(&bus);
	sigaddset(&bus, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &bus, NULL);
}

/* Until the ring closes or stays empty; it may not say RUNNING yet when the thread starts. */
static void *printer(void *arg)
{
	bool quiet = false, idle;
	size_t n;

	(void)arg;
	printing = true;
	/*
	 * Every signal is blocked here but SIGBUS, which a store to the
	 * control file's page raises once the file was cut short: blocked, it
	 * would end the process at once; met, the module's handler puts zeroes
	 * there and the store goes on (ctl/ctl.c's pks_ctl_fault()).
	 */
	unblock_bus();
	own_ways();
	pks_tsan_hide();	/* all its work is the module's */
	/* a printer runs: --flush has a drain to wait for, though the first
	 * may not end for long (a slow reader); pairs with printk-shim(1)
	 * --flush's loads of the count, as the count of each drain below */
	if (pks_defer_dq.drains)
		atomic_fetch_add(pks_defer_dq.drains, 1);
	/* pairs with pks_defer_close()'s and _crash()'s exchanges: closed, it ends */
	while (atomic_load(&pks_defer_dq.state) <= PKS_DEFER_RUNNING) {
		if (!pks_defer_take())
			break;
		n = drain(false, true, NULL);
		pks_defer_give();
		/* pairs with printk-shim(1) --flush's loads of the count (cmd/control.c) */
		if (pks_defer_dq.drains)	/* printk-shim(1) --flush waits for it */
			atomic_fetch_add(pks_defer_dq.drains, 1);
		if (!n && forsaken() && park())
			break;
		idle = quiet && !n;
		quiet = doze(idle) && !n;
		if (idle && quiet && park())
			break;
	}
	pks_tsan_show();
	return NULL;
}

/* Lanes for a ring of @size bytes: a power of two, four a CPU at most, LANE_MIN each at least. */
static int lanes_for(size_t size)
{
	cpu_set_t set;
	int cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set), n = 1;

	while (n * 2 <= 4 * cpus && n * 2 <= PKS_DEFER_LANES && size / (size_t)(n * 2) >= LANE_MIN)
		n *= 2;
	return n;
}

/**
 * pks_defer_map() - the ring, the batch buffers and the consumer's line, in
 * one mapping, touched now: a first touch of a page on a caller's path
 * would cost it a page fault. Kept when the printer ends, until a fork.
 * Only by start(), which the state word makes one thread's.
 */
bool pks_defer_map(void)
{
	const struct pks_config *c = pks_config();
	size_t ring_size = c->set.defer_size, lmax = c->set.line_max;
	size_t room = pks_render_room(c->format, lmax);
	size_t size = ring_size + PKS_BATCH_FDS * BATCH_BYTES + BATCH_BYTES + PKS_HEAD_MAX + lmax +
		      PKS_TAIL_MAX + room;
	char *p;

	if (pks_defer_dq.mem)
		return true;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return false;
	pks_defer_dq.mem = p;
	pks_defer_dq.mem_size = size;
	pks_defer_dq.want_func = pks_sink_wants_func(c);
	pks_defer_dq.follow = pks_sink_has_file(c);
	pks_defer_dq.nlanes = lanes_for(ring_size);
	for (int i = 0; i < pks_defer_dq.nlanes; i++, p += ring_size / (size_t)pks_defer_dq.nlanes)
		pks_ring_init(&pks_defer_dq.lanes[i].ring, p, ring_size / (size_t)pks_defer_dq.nlanes);
	memset(&fd_batch, 0, sizeof(fd_batch));
	fd_batch.cap = BATCH_BYTES;
	fd_batch.failed = failed;
	fd_batch.flushed = flushed;
	for (int i = 0; i < PKS_BATCH_FDS; i++, p += BATCH_BYTES)
		fd_batch.buf[i] = p;
	memset(&dgrams, 0, sizeof(dgrams));
	dgrams.redo = redo;
	dgrams.daemons = pks_batch_daemons(c);
	dgrams.buf = p;
	dgrams.cap = BATCH_BYTES;
	p += BATCH_BYTES;
	batch = (struct pks_sink_batch){ &fd_batch, dgrams.daemons ? &dgrams : NULL, -1, NULL, 0 };
	pks_line_init(&line, p + PKS_HEAD_MAX, lmax);
	p += PKS_HEAD_MAX + lmax + PKS_TAIL_MAX;
	memset(&writer, 0, sizeof(writer));
	writer.render = room ? p : NULL;
	writer.replay = true;	/* printk-shim(7) RECORD BUFFER: recorded by its caller */
	/* no pair: a hint; an output's descriptor may be closed from the start (2>&-) */
	atomic_store_explicit(&pks_defer_dq.fd_closed, true, memory_order_relaxed);
	/* release: pairs with the acquire of ours() and the producer's ready() */
	atomic_store_explicit(&pks_defer_dq.pid, pks_pid(), memory_order_release);
	return true;
}

/** pks_defer_spawn() - the printer, with every signal blocked: the program's handlers are not for it */
bool pks_defer_spawn(void)
{
	pthread_attr_t attr;
	pthread_t t;
	sigset_t old;
	int err;

	if (pthread_attr_init(&attr))
		return false;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, STACK_BYTES);
	pks_block_all(&old);
	err = pthread_create(&t, &attr, printer, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		errno = err;
	return !err;
}

/* --- the ends -------------------------------------------------------------- */

/* Whether this process has a ring of its own with lines that may wait in it. */
static bool ours(void)
{
	/* pairs with start()'s stores in producer.c */
	int s = atomic_load(&pks_defer_dq.state);

	/* acquire: pairs with pks_defer_map()'s release; the mapping is complete */
	pid_t pid = atomic_load_explicit(&pks_defer_dq.pid, memory_order_acquire);

	return pid && pid == pks_pid() && s != PKS_DEFER_CLOSED && s != PKS_DEFER_FAILED;
}

/* Where each lane's reading stops (gather()): what its ring holds now, committed or not. */
static void bound(uint64_t *stop)
{
	for (int i = 0; i < pks_defer_dq.nlanes; i++)
		/* no pair: a bound; what is committed below it is read with acquire */
		stop[i] = atomic_load_explicit(&pks_defer_dq.lanes[i].ring.head, memory_order_relaxed);
}

/*
 * pks_defer_drain_now() with each thread's lines in order (write_run()):
 * while a line waits for its thread's earlier ones, which another lane
 * holds back behind a record not committed yet, that record's caller gets
 * a while to commit it, HELD_US at most; a signal handler, which may have
 * cut that caller off, none. Then whatever is still held goes all the same.
 * The lanes' bounds, @stop, are read again before each wait: the lines a
 * held one waits for may have gone into their lane after its bound was
 * read and before the held one went into its own, read later.
 */
static void ordered(bool handler, uint64_t *stop)
{
	struct timespec ts = { 0, 50000 };

	held = false;
	empty(handler, true, stop);
	for (int us = 0; held && !handler && us < HELD_US; us += 50) {
		bound(stop);
		nanosleep(&ts, NULL);
		held = false;
		empty(handler, true, stop);
	}
	if (held)
		empty(handler, false, stop);
}

/**
 * pks_defer_drain() - before an exec, a fork (its prepare handler), or a
 * change of a descriptor the lines go to (pks_defer_feeds()): every
 * committed line written, each thread's in order (ordered()), so that the
 * child inherits none, and each line reaches the file that was there when
 * it was printed; then the count of lines dropped since the last one (an
 * exec's new image would never say it)
 * @handler: called from a signal handler (pks_defer_drain_now()'s @crash)
 */
void pks_defer_drain(bool handler)
{
	if (pks_defer_drain_held(handler))
		pks_defer_give();
}

/**
 * pks_defer_drain_held() - pks_defer_drain(), the consumer word kept:
 * before an exec, which ends every other thread wherever it is, a printer
 * that took the word back would be cut off inside a batch's write(2), a
 * line torn and the new image's first joined to it. Return: whether it is
 * held; pks_defer_let_go() gives it back, when the exec failed.
 */
bool pks_defer_drain_held(bool handler)
{
	uint64_t stop[PKS_DEFER_LANES];

	if (!ours() || !pks_defer_take())
		return false;
	/*
	 * What the ring held as the drain began: the lines other threads go
	 * on printing meanwhile are the printer's, or the drain would never
	 * end while they do.
	 */
	bound(stop);
	ordered(handler, stop);
	report_now();
	return true;
}

/** pks_defer_let_go() - the consumer word pks_defer_drain_held() kept, back */
void pks_defer_let_go(void)
{
	pks_defer_give();
}

/**
 * pks_defer_feeds() - Return: whether this process's ring is running and
 * its lines may go to one of the program's descriptors @lo to @hi, which
 * the program is about to close or replace
 */
bool pks_defer_feeds(int lo, int hi)
{
	return ours() && pks_sink_on_fds(pks_config(), lo, hi);
}

/* Whether a lane holds a record reserved and not yet written: after a drain, one not committed. */
static bool reserved(void)
{
	for (int i = 0; i < pks_defer_dq.nlanes; i++) {
		struct pks_ring *r = &pks_defer_dq.lanes[i].ring;

		/* pairs with the head's compare-and-swap (pks_ring_reserve_at()),
		 * after the exchange of state that closed the ring (pks_defer_enqueue()) */
		if (atomic_load(&r->head) != atomic_load(&r->tail))
			return true;
	}
	return false;
}

/*
 * The drain that closes the ring, and then, a while at most, the records
 * reserved before it closed and not yet committed: their callers saw the
 * ring running after they reserved, so it is theirs to wait for. One
 * reserved after it closed is its caller's (pks_defer_flushed()). Meanwhile
 * a thread's lines wait for its earlier ones that another lane holds back
 * behind such a record, as the printer has them wait (write_run()).
 */
static void closing(bool crash)
{
	struct timespec ts = { 0, 1000000 };

	empty(crash, true, NULL);
	for (int ms = 0; ms < LATE_MS && reserved() && !stopped(crash); ms++) {
		nanosleep(&ts, NULL);
		empty(crash, true, NULL);
	}
	pks_defer_drain_now(crash);	/* what a record never committed holds back, all the same */
	report_now();
}

/* Whether this thread's records in its lane (@tid's) are all written. */
static bool mine_out(long tid)
{
	const struct pks_defer_self *me = &pks_defer_self;
	unsigned int k = (unsigned int)pks_defer_dq.nlanes;

	/* pairs with pks_ring_release()'s store: what it passed was written */
	return !k || atomic_load(&pks_defer_dq.lanes[((unsigned int)tid + me->spilled) & (k - 1)]
					.ring.tail) >= me->mine;
}

/**
 * pks_defer_elders() - a line of thread @tid that goes around the ring (too
 * long for a lane) comes after the thread's lines in it: they are written,
 * in order, while records in flight before them get HELD_US at most to be
 * committed; then whatever can be read goes all the same. A handler
 * (@handler: pks_defer_drain_now()'s @crash) waits for nothing.
 */
void pks_defer_elders(long tid, bool handler)
{
	struct timespec ts = { 0, 50000 };

	if (pks_defer_self.consuming)
		return;		/* this thread holds the consumer word: nothing to wait for */
	for (int us = 0;; us += 50) {
		if (pks_defer_take()) {
			empty(handler, true, NULL);
			pks_defer_give();
		}
		if (mine_out(tid) || handler || us >= HELD_US)
			break;
		nanosleep(&ts, NULL);
	}
	if (!mine_out(tid) && pks_defer_take()) {
		pks_defer_drain_now(handler);
		pks_defer_give();
	}
}

/* The consumer word: waited for at exit; at a fatal signal, taken only if free. */
static bool grab(bool crash)
{
	int free_ = 0;

	if (!crash)
		return pks_defer_take();
	/* pairs with pks_defer_give()'s exchange, as pks_defer_take()'s */
	if (!atomic_compare_exchange_strong(&pks_defer_dq.busy, &free_, 1))
		return false;
	pks_defer_self.consuming = true;
	pks_defer_self.owns = true;
	return true;
}

/**
 * pks_defer_flushed() - the ring closed (exit, a fatal signal): its lines
 * written, thread @tid's own among them, before the thread writes another
 * itself or returns from the call that put one in as it closed, which the
 * closing drain may have passed by (closing()). A thread stopped between
 * reserving a record and committing it holds back the records after it in
 * its lane: they are waited for, a second at most, and once. At a fatal
 * signal, after the signal's own drain (pks_defer_crashed()). The count of
 * lines dropped meanwhile follows. @handler: a signal handler's line
 * (pks_defer_drain_now()'s @crash).
 */
void pks_defer_flushed(long tid, bool handler)
{
	static _Atomic bool stuck;
	struct timespec ts = { 0, 1000000 };
	/* pairs with pks_defer_crash()'s exchange, before its exchange of state */
	bool crash = atomic_load(&pks_defer_dq.crashing);

	if (pks_defer_self.consuming)
		return;
	if (crash)
		pks_defer_crashed();
	for (int ms = 0;; ms++) {
		if (grab(crash)) {
			/* in order, as closing(); at the end, whatever is held back */
			empty(crash || handler, ms < FLUSHED_MS, NULL);
			report_now();	/* lines dropped as it closed: counted after its count */
			pks_defer_give();
		}
		/* this thread's own record not committed holds them: never */
		if (mine_out(tid) || pks_defer_self.reserving ||
		    /* no pair: a flag, no data behind it */
		    atomic_load_explicit(&stuck, memory_order_relaxed))
			return;
		if (ms == FLUSHED_MS)
			break;
		nanosleep(&ts, NULL);
	}
	atomic_store_explicit(&stuck, true, memory_order_relaxed);	/* no pair: as above */
}

/**
 * pks_defer_close() - at exit and _exit: the ring written and closed; a
 * line from now on is written by its caller (the printer, woken, ends).
 * A record this thread left unfinished (exit from a handler that cut it
 * off) is skipped.
 */
void pks_defer_close(void)
{
	bool mine = ours();

	/* pairs with the printer's loop and pks_defer_admit()'s loads: no line goes in after */
	if (atomic_exchange(&pks_defer_dq.state, PKS_DEFER_CLOSED) == PKS_DEFER_CLOSED || !mine)
		return;
	pks_defer_abandoned(UINTPTR_MAX);
	pks_defer_wake(PKS_DEFER_NAP);
	if (!pks_defer_take())
		return;
	closing(false);
	pks_defer_give();
}

/* The ring's lines are out, or there were none: other threads' lines go on (pks_defer_crashed()). */
static void done_crash(void)
{
	/* pairs with pks_defer_crashed()'s loads */
	atomic_store(&pks_defer_dq.crashed, 1);
	pks_defer_futex(&pks_defer_dq.crashed, FUTEX_WAKE, INT_MAX, 0);
}

/**
 * pks_defer_crash() - a signal that ends the process: the ring written
 * from the handler, one write per line. The printer's batch is waited for
 * a moment, then taken over: a line may be written twice, none is lost.
 * Meanwhile the other threads' new lines wait for it (pks_defer_admit()).
 */
void pks_defer_crash(void)
{
	/* acquire: pairs with pks_defer_map()'s release; the mapping is complete */
	pid_t pid = atomic_load_explicit(&pks_defer_dq.pid, memory_order_acquire);
	bool took = false;

	/* pairs with pks_defer_admit()'s loads of crashing and state, and the printer's loop;
	 * and with another crash's exchange: that one writes the ring */
	if (atomic_exchange(&pks_defer_dq.crashing, true))
		return;
	/*
	 * Closed by exit already, its drain perhaps still going (a slow
	 * reader): written from here all the same, the drain giving way
	 * (stopped()). Pairs with pks_defer_admit()'s loads, as above.
	 */
	if (atomic_exchange(&pks_defer_dq.state, PKS_DEFER_CLOSED) == PKS_DEFER_FAILED || !pid ||
	    pid != pks_pid()) {
		done_crash();	/* no ring of this process's: none to wait for */
		return;
	}
	pks_defer_abandoned(UINTPTR_MAX);
	/*
	 * This thread may be waiting for the word (exit's drain, interrupted
	 * in pks_defer_take()) while another drains: that one's batch is
	 * waited for all the same. Only a drain this handler cut off on its
	 * own thread is taken over at once, from what it wrote (drain()).
	 */
	for (int ms = 0; !pks_defer_self.owns && ms < CRASH_WAIT_MS; ms++) {
		struct timespec ts = { 0, 1000000 };

		if ((took = grab(true)))	/* the printer's batch is done */
			break;
		nanosleep(&ts, NULL);
	}
	/* seq_cst: pairs with settle()'s load: a drain that comes back from its write stops there */
	if (!pks_defer_self.owns)
		atomic_store(&pks_defer_dq.seized, true);
	/*
	 * and says what it wrote: a reader that keeps reading, however slowly,
	 * takes the write it waits in, which this drain then never writes again
	 */
	for (int ms = 0; !took && !pks_defer_self.owns && ms < PARK_MS; ms++) {
		struct timespec ts = { 0, 1000000 };

		/* seq_cst: pairs with overtaken()'s store */
		if (atomic_load(&pks_defer_dq.parked))
			break;
		nanosleep(&ts, NULL);
	}
	pks_defer_self.consuming = true;
	closing(true);
	if (took) {
		pks_defer_give();	/* for a line that came late (pks_defer_flushed()) */
		pks_defer_self.consuming = true;	/* this thread's lines go out at once */
	}
	done_crash();
}

/**
 * pks_defer_share() - before the printer starts: it sleeps on @word, in
 * the control file, where printk-shim(1) --flush can wake it, and counts
 * its drains in @drained (printk-shim(7) RUNTIME CONTROL)
 */
void pks_defer_share(_Atomic int *word, _Atomic uint32_t *drained)
{
	/* no pair: before the printer starts, by the thread that will start it */
	if (atomic_load(&pks_defer_dq.state) != PKS_DEFER_OFF)
		return;
	atomic_store(word, PKS_DEFER_AWAKE);
	pks_defer_dq.sleep_word = word;
	pks_defer_dq.sleep_private = 0;
	pks_defer_dq.drains = drained;
}
