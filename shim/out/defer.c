// SPDX-License-Identifier: MIT
/*
 * Deferred printing (printk-shim(7) DEFERRED PRINTING). A complete line is
 * copied into a ring (core/ring.c) that every thread fills without a lock,
 * its thread's lane of it; one printer thread, started at the first line
 * (in a fork child, at the child's first), hands the records to the sink,
 * the lanes merged by the time each record went in, its descriptor writes
 * collected into one write per output and batch (base/fdio.c). Whoever
 * empties the ring holds the consumer word: the printer for one batch, or
 * exit, exec, a fatal signal. Lines a consumer writes, and lines of a
 * closed ring, go to the sink as they come.
 * The printer wakes when a lane passes half full, when a caller waits for
 * room, when a line comes while it idles, and otherwise after the latency
 * bound; so a caller makes a system call only for those.
 * Thread-safety: pks_defer_line() from any thread and signal handler; the
 * consumer word is never waited for by its own holder (a handler), nor
 * forever by a fatal signal's flush; a fork child starts from nothing.
 */
#include "out/defer.h"
#include "base/clock.h"
#include "base/compiler.h"
#include "base/digits.h"
#include "base/fdio.h"
#include "base/pid.h"
#include "base/say.h"
#include "config/config.h"
#include "core/render.h"
#include "core/ring.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BATCH_BYTES	(64u << 10)	/* per output and batch */
#define STACK_BYTES	(256u << 10)	/* the printer's: the sink's rendering, dladdr() */
#define CRASH_WAIT_MS	200		/* a fatal signal's wait for the printer's batch */
#define LANES_MAX	8
#define LANE_MIN	(64u << 10)

enum { OFF, STARTING, RUNNING, CLOSED, FAILED };	/* state, in this order */
enum { AWAKE, NAP, IDLE };				/* the printer's sleep */
enum { RETRY, WRITE_IT, DROPPED };			/* what a full ring leaves a caller */

/* A line in the ring: what the sink needs of it and of its writer. */
struct rec {
	uint64_t stamp;		/* CLOCK_MONOTONIC when it went in: the order across lanes */
	uint32_t n;		/* bytes of text */
	int8_t level;
	bool cont, in_handler;
	long tid;
	uint64_t t_ns;
	const void *site;
	char text[];
};

/*
 * The ring is split in lanes, four per CPU the process may use (LANES_MAX
 * at most, LANE_MIN bytes each at least): a thread's lines go to lane
 * tid % nlanes, so threads running at once rarely reserve from the same
 * head or write the same cache lines; the consumer merges the lanes by
 * stamp.
 */
struct lane {
	struct pks_ring ring;
	uint64_t pos, done;	/* the consumer's: read up to, released up to */
	const struct rec *next;	/* the consumer's: the record at pos, if committed */
	uint64_t after;		/* the position past next */
	unsigned long seen;	/* the consumer's look at pos: a count of looks */
};

static struct lane lanes[LANES_MAX];
static int nlanes;
static unsigned long looks;	/* the consumer's, for lane.seen */
static _Atomic int state;
static pid_t ring_pid;		/* the process the ring and the printer are of */
static _Atomic int sleep_own;
/* futex: AWAKE, NAP, IDLE; the control file's, shared, with runtime control on */
static _Atomic int *sleep_at = &sleep_own;
#define sleep_word	(*sleep_at)
static int sleep_private = FUTEX_PRIVATE_FLAG;
static _Atomic uint32_t *drains;	/* the control file's count of the printer's drains */
static _Atomic uint32_t space;	/* futex: bumped at every release */
static _Atomic int waiters;	/* callers waiting for room */
static _Atomic int busy;	/* futex: the consumer word; 0 free, 1 held, 2 held and wanted */
static _Atomic unsigned long dropped;
static _Atomic bool crashing;
static char *mem;		/* the ring, the batch buffers and the consumer's line */
static size_t mem_size;
static struct pks_fd_batch batch;
static struct pks_dgrams dgrams;	/* for syslog and the journal, when they are outputs */
static struct pks_line line;	/* a record again, with head and tail room for the sink */
static struct pks_writer writer;
static PKS_TLS bool consuming;	/* this thread holds the consumer word */
static PKS_TLS bool reserving;	/* this thread is between reserve and commit */

static long futex(volatile void *word, int op, int val, unsigned long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

	int private = word == (volatile void *)sleep_at ? sleep_private : FUTEX_PRIVATE_FLAG;

	return syscall(SYS_futex, (void *)word, op | private, val, ms ? &ts : NULL, NULL, 0);
}

/* The printer sleeps at @upto or deeper (NAP: at all; IDLE: idles): wake it. */
static void wake(int upto)
{
	int s = atomic_load(&sleep_word);

	if (s >= upto && atomic_exchange(&sleep_word, AWAKE) != AWAKE)
		futex((volatile void *)&sleep_word, FUTEX_WAKE, 1, 0);
}

/* --- the consumer ------------------------------------------------------ */

/* The consumer word, waiting for it (not when this thread has it). */
static bool take(void)
{
	int free_ = 0;

	if (consuming)
		return false;
	if (!atomic_compare_exchange_strong(&busy, &free_, 1))
		while (atomic_exchange(&busy, 2) != 0)
			futex((volatile void *)&busy, FUTEX_WAIT, 2, 0);
	consuming = true;
	return true;
}

static void give(void)
{
	consuming = false;
	if (atomic_exchange(&busy, 0) == 2)
		futex((volatile void *)&busy, FUTEX_WAKE, 1, 0);
}

/* One record to the sink, as the line it was; this thread writes directly. */
static void print(const struct rec *r, bool crash)
{
	size_t n = r->n < line.sb.size ? r->n : line.sb.size;

	if (pks_sink_dgrams) {
		if (!pks_sink_dgrams_room(&dgrams, n))
			pks_sink_dgrams_flush(&dgrams);
		dgrams.key = r;
	}

	memcpy(line.sb.buffer, r->text, n);
	line.sb.len = n;
	line.level = r->level;
	line.cont = r->cont;
	line.t_ns = r->t_ns;
	line.site = r->site;
	writer.tid = r->tid;
	writer.in_handler = r->in_handler || crash;	/* no dladdr() in a handler */
	pks_sink_line(&line, &writer);
}

/*
 * A daemon's message that its batch did not deliver: the record again,
 * to output @out alone, the usual way (which may write it to stderr).
 */
static void redo(const void *key, int out)
{
	struct pks_fd_batch *fb = pks_fd_batch;

	pks_fd_batch = NULL;
	pks_sink_dgrams = NULL;
	pks_sink_only = out;
	print(key, false);
	pks_sink_only = -1;
	pks_sink_dgrams = &dgrams;
	pks_fd_batch = fb;
}

/* The lines read so far are written: flush the batches, free their room. */
static void settle(bool batched)
{
	if (batched && pks_sink_dgrams)
		pks_sink_dgrams_flush(&dgrams);
	if (batched)
		pks_fd_batch_flush(&batch);	/* a failed write's lines: pks_sink_failed() */
	for (int i = 0; i < nlanes; i++)
		if (lanes[i].done != lanes[i].pos)
			pks_ring_release(&lanes[i].ring, lanes[i].done = lanes[i].pos);
	atomic_fetch_add(&space, 1);
	if (atomic_load(&waiters))
		futex((volatile void *)&space, FUTEX_WAKE, INT_MAX, 0);
}

/* @l's next committed record, if there is one yet. */
static void peek(struct lane *l)
{
	l->after = l->pos;
	l->next = pks_ring_read(&l->ring, &l->after);
	l->seen = ++looks;
}

/*
 * The lane whose next record went in first, or NULL: none is committed.
 * A line that the program ordered before the chosen one was committed
 * before it: so each lane that had none is looked at again once the chosen
 * record has been seen, until a look changes nothing.
 */
static struct lane *oldest(void)
{
	struct lane *o = NULL, *was;

	do {
		was = o;
		for (int i = 0; i < nlanes; i++) {
			struct lane *l = &lanes[i];

			if (!l->next && (!o || l->seen < o->seen))
				peek(l);
			if (l->next && (!o || l->next->stamp < o->next->stamp))
				o = l;
		}
	} while (o != was);
	return o;
}

/*
 * Write every committed record, the lanes merged by stamp, up to the first
 * one not committed in each lane, a quarter of a lane at most per batch.
 * @crash: one write per line, the printer's batch left alone, no dladdr():
 * a fatal signal's drain, or a signal handler's.
 * Return: how many.
 */
static size_t drain(bool crash)
{
	size_t n = 0;
	struct lane *l;

	if (!nlanes)
		return 0;
	for (int i = 0; i < nlanes; i++) {
		lanes[i].pos = lanes[i].done = atomic_load(&lanes[i].ring.tail);
		lanes[i].next = NULL;
	}
	pks_fd_batch = crash ? NULL : &batch;
	pks_sink_dgrams = crash || !dgrams.buf ? NULL : &dgrams;
	while ((l = oldest())) {
		print(l->next, crash);
		n++;
		l->pos = l->after;
		peek(l);
		if (l->pos - l->done >= l->ring.size / 4)
			settle(!crash);
	}
	settle(!crash);
	pks_fd_batch = NULL;
	pks_sink_dgrams = NULL;
	return n;
}

/* Bytes waiting in the fullest lane, as a share of its size: 0 empty, 2 over half. */
static int fill(void)
{
	int most = 0;

	for (int i = 0; i < nlanes; i++) {
		uint64_t used = pks_ring_used(&lanes[i].ring);
		int f = used > lanes[i].ring.size / 2 ? 2 : used > 0;

		most = f > most ? f : most;
	}
	return most;
}

/* The kernel's words for @k lost lines, in @buf. Return: their length. */
static size_t drop_text(char *buf, unsigned long k)
{
	static const char head[] = "** ", tail[] = " printk messages dropped **";
	char *p = pks_put_mem(buf, head, sizeof(head) - 1);

	p = pks_put_udec(p, k, 0, ' ');
	return (size_t)(pks_put_mem(p, tail, sizeof(tail) - 1) - buf);
}

/* Lines dropped after the last line that came: their count, now (a consumer's). */
static void report_now(void)
{
	unsigned long k = atomic_exchange(&dropped, 0);
	char text[64];
	size_t n;

	if (!k || !line.sb.size)
		return;
	n = drop_text(text, k);
	n = n < line.sb.size ? n : line.sb.size;
	memcpy(line.sb.buffer, text, n);
	line.sb.len = n;
	line.level = 4;
	line.cont = false;
	line.t_ns = pks_now_ns();
	line.site = NULL;
	writer.tid = gettid();
	writer.in_handler = true;
	pks_sink_line(&line, &writer);
}

/* --- the printer thread -------------------------------------------------- */

/*
 * Whether the printer is the process's last thread (main called
 * pthread_exit): /proc counts the main thread, a zombie then, until the end.
 */
static bool alone(void)
{
	char buf[512], *p, st;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	long threads;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return false;
	st = p[2];
	for (int field = 2; p && field < 20; field++)
		p = strchr(p + 1, ' ');
	threads = p ? strtol(p + 1, NULL, 10) : 0;
	return threads == 1 || (threads == 2 && st == 'Z');
}

/*
 * Sleep until woken or the latency bound passes; @idle: the ring was empty
 * for a whole bound, so sleep until a line comes (a second at most, to see
 * whether the printer is all that is left). Return: whether time ran out.
 */
static bool doze(bool idle)
{
	unsigned long ms = pks_config()->set.defer_latency;
	int kind = NAP;

	if (idle) {
		atomic_store(&sleep_word, IDLE);
		if (fill() == 0) {
			kind = IDLE;
			ms = 1000;
		}
	}
	atomic_store(&sleep_word, kind);
	if (kind == NAP && fill() == 2) {
		atomic_store(&sleep_word, AWAKE);
		return false;
	}
	if (futex((volatile void *)&sleep_word, FUTEX_WAIT, kind, ms) == 0 || errno != ETIMEDOUT) {
		atomic_store(&sleep_word, AWAKE);
		return false;
	}
	atomic_store(&sleep_word, AWAKE);
	return true;
}

/* Until the ring closes; it may not say RUNNING yet when the thread starts. */
static void *printer(void *arg)
{
	bool quiet = false, idle;
	size_t n;

	(void)arg;
	while (atomic_load(&state) <= RUNNING) {
		if (!take())
			break;
		n = drain(false);
		give();
		if (drains)
			atomic_fetch_add(drains, 1);	/* printk-shim(1) --flush waits for it */
		idle = quiet && !n;
		quiet = doze(idle) && !n;
		if (idle && quiet && alone()) {
			pks_defer_close();
			break;
		}
	}
	return NULL;
}

/* --- starting, the callers -------------------------------------------------- */

/* Lanes for a ring of @size bytes: a power of two, four a CPU at most, LANE_MIN each at least. */
static int lanes_for(size_t size)
{
	cpu_set_t set;
	int cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set), n = 1;

	while (n * 2 <= 4 * cpus && n * 2 <= LANES_MAX && size / (size_t)(n * 2) >= LANE_MIN)
		n *= 2;
	return n;
}

/*
 * The ring, the batch buffers and the consumer's line, in one mapping,
 * touched now: a first touch of a page on a caller's path would cost it a
 * page fault.
 */
static bool map(const struct pks_config *c)
{
	size_t ring_size = c->set.defer_size, lmax = c->set.line_max;
	size_t room = pks_render_room(c->format, lmax);
	size_t size = ring_size + PKS_BATCH_FDS * BATCH_BYTES + BATCH_BYTES + PKS_HEAD_MAX + lmax +
		      PKS_TAIL_MAX + room;
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		return false;
	mem = p;
	mem_size = size;
	nlanes = lanes_for(ring_size);
	for (int i = 0; i < nlanes; i++, p += ring_size / (size_t)nlanes)
		pks_ring_init(&lanes[i].ring, p, ring_size / (size_t)nlanes);
	memset(&batch, 0, sizeof(batch));
	batch.cap = BATCH_BYTES;
	batch.failed = pks_sink_failed;
	for (int i = 0; i < PKS_BATCH_FDS; i++, p += BATCH_BYTES)
		batch.buf[i] = p;
	memset(&dgrams, 0, sizeof(dgrams));
	dgrams.redo = redo;
	dgrams.daemons = pks_sink_daemons(c);
	dgrams.buf = dgrams.daemons ? p : NULL;	/* NULL: drain() sets no batch */
	dgrams.cap = BATCH_BYTES;
	p += BATCH_BYTES;
	pks_line_init(&line, p + PKS_HEAD_MAX, lmax);
	p += PKS_HEAD_MAX + lmax + PKS_TAIL_MAX;
	memset(&writer, 0, sizeof(writer));
	writer.render = room ? p : NULL;
	writer.replay = true;	/* printk-shim(7) RECORD BUFFER: recorded by its caller */
	return true;
}

/* The printer, with every signal blocked: the program's handlers are not for it. */
static bool spawn(void)
{
	pthread_attr_t attr;
	pthread_t t;
	sigset_t all, old;
	int err;

	if (pthread_attr_init(&attr))
		return false;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, STACK_BYTES);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t, &attr, printer, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		errno = err;
	return !err;
}

/* The first deferred line of this process: the ring and its printer. */
static bool start(void)
{
	int off = OFF;

	if (!atomic_compare_exchange_strong(&state, &off, STARTING))
		return false;
	ring_pid = pks_pid();
	if (!map(pks_config()) || !spawn()) {
		pks_warn("PRINTK_SHIM_DEFER: no printer thread: %s; writing every line at once",
			 pks_strerror(errno));
		atomic_store(&state, FAILED);
		return false;
	}
	atomic_store(&state, RUNNING);
	return true;
}

/* The ring is not running: may @w's line go into it (after starting it)? */
static bool ready(const struct pks_writer *w)
{
	int s = atomic_load(&state);

	if (s == RUNNING && ring_pid != pks_pid()) {
		pks_defer_forked();	/* a child made without the fork handlers */
		s = atomic_load(&state);
	}
	if (s == OFF && !w->in_handler)
		return start();
	if (s == CLOSED && !atomic_load(&crashing) && take()) {
		drain(w->in_handler);	/* the ring's lines first: this one follows them */
		give();
	}
	return s == RUNNING;
}

/*
 * No room for a record of @n bytes. A handler that interrupted this thread's
 * own reservation cannot wait: the printer waits for that record. @handler:
 * a handler's line, whose drain makes no dladdr() call.
 */
static int full(const struct pks_ring *ring, size_t n, bool interrupted, bool handler)
{
	uint32_t seen = atomic_load(&space);

	if (n > pks_ring_max(ring)) {
		if (take()) {
			drain(handler);	/* too long for the ring: its elders first */
			give();
		}
		return WRITE_IT;
	}
	if (pks_config()->set.defer_full == PKS_FULL_DROP) {
		atomic_fetch_add(&dropped, 1);
		return DROPPED;
	}
	if (consuming)
		return WRITE_IT;
	if (interrupted) {
		/*
		 * The thread's own record is not committed until this handler
		 * returns: write what the ring holds before it, then this line.
		 */
		if (take()) {
			drain(true);
			give();
		}
		return WRITE_IT;
	}
	reserving = false;
	atomic_fetch_add(&waiters, 1);
	wake(NAP);
	futex((volatile void *)&space, FUTEX_WAIT, (int)seen, pks_config()->set.defer_latency);
	atomic_fetch_sub(&waiters, 1);
	reserving = true;
	return RETRY;
}

/* Copy @n bytes of @text, with @l's and @w's facts, into a record and commit it. */
static void put(struct rec *r, uint64_t stamp, const char *text, size_t n,
		const struct pks_line *l, const struct pks_writer *w)
{
	r->stamp = stamp;
	r->n = (uint32_t)n;
	r->level = (int8_t)l->level;
	r->cont = l->cont;
	r->in_handler = w->in_handler;
	r->tid = w->tid;
	r->t_ns = l->t_ns;
	r->site = l->site;
	memcpy(r->text, text, n);
	pks_ring_commit(r);
}

/* The count of lines dropped so far, as a line where they went missing. */
static void report(struct pks_ring *ring, uint64_t stamp, const struct pks_line *l,
		   const struct pks_writer *w)
{
	unsigned long k = atomic_exchange(&dropped, 0);
	char text[64];
	size_t n = drop_text(text, k);
	struct rec *r = k ? pks_ring_reserve(ring, sizeof(*r) + n) : NULL;

	if (r)
		put(r, stamp, text, n, l, w);
	else if (k)
		atomic_fetch_add(&dropped, k);
}

/**
 * pks_defer_line() - a complete line, if deferred printing takes it
 * Return: true when the line is in the ring (or counted as dropped); false:
 * the caller writes it now (this thread empties the ring, the ring is
 * closed or could not start, or there is no room a handler may wait for).
 */
bool pks_defer_line(struct pks_line *l, const struct pks_writer *w)
{
	size_t n = seq_buf_used(&l->sb);
	bool interrupted = reserving;
	struct pks_ring *ring;
	uint64_t stamp;
	struct rec *r;
	int why;

	if (consuming)
		return false;
	if (unlikely(atomic_load_explicit(&state, memory_order_acquire) != RUNNING ||
		     ring_pid != pks_pid()) && !ready(w))
		return false;
	ring = &lanes[(unsigned long)w->tid % (unsigned int)nlanes].ring;
	/*
	 * Taken before the reservation: a line reserved after this one in the
	 * same lane, by another thread, then has the later stamp. One lane
	 * needs no merging.
	 */
	stamp = nlanes > 1 ? pks_now_ns() : 0;
	reserving = true;
	if (unlikely(atomic_load_explicit(&dropped, memory_order_relaxed)))
		report(ring, stamp, l, w);
	while (!(r = pks_ring_reserve(ring, sizeof(*r) + n))) {
		why = full(ring, sizeof(*r) + n, interrupted, w->in_handler);
		if (why != RETRY) {
			reserving = interrupted;
			return why == DROPPED;
		}
	}
	put(r, stamp, l->sb.buffer, n, l, w);
	reserving = interrupted;
	if (unlikely(atomic_load(&sleep_word) != AWAKE))
		wake(pks_ring_used(ring) > ring->size / 2 ? NAP : IDLE);
	return true;
}

/* --- the ends -------------------------------------------------------------- */

/** pks_defer_drain() - before an exec: every committed line written */
void pks_defer_drain(void)
{
	if (atomic_load(&state) == RUNNING && ring_pid == pks_pid() && take()) {
		drain(false);
		give();
	}
}

/**
 * pks_defer_close() - at exit: the ring written and closed; a line from now
 * on is written by its caller (the printer, woken, ends)
 */
void pks_defer_close(void)
{
	int s = atomic_exchange(&state, CLOSED);

	if (s != RUNNING || ring_pid != pks_pid())
		return;
	wake(NAP);
	if (!take())
		return;
	drain(false);
	report_now();
	give();
}

/**
 * pks_defer_crash() - a fatal signal: the ring written from the handler,
 * one write per line. The printer's batch is waited for a moment, then
 * taken over: a line may be written twice, none is lost.
 */
void pks_defer_crash(void)
{
	int free_ = 0;

	atomic_store(&crashing, true);
	if (atomic_exchange(&state, CLOSED) != RUNNING || ring_pid != pks_pid())
		return;
	for (int ms = 0; !consuming && ms < CRASH_WAIT_MS; ms++) {
		struct timespec ts = { 0, 1000000 };

		free_ = 0;
		if (atomic_compare_exchange_strong(&busy, &free_, 1))
			break;
		nanosleep(&ts, NULL);
	}
	consuming = true;
	drain(true);
	report_now();
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
	if (atomic_load(&state) != CLOSED)	/* first: a handler's line now goes out at once */
		atomic_store(&state, __tsan_init ? FAILED : OFF);
	if (mem)
		munmap(mem, mem_size);
	mem = NULL;
	memset(lanes, 0, sizeof(lanes));
	nlanes = 0;
	atomic_store(&busy, 0);
	atomic_store(&sleep_word, AWAKE);
	atomic_store(&waiters, 0);
	atomic_store(&dropped, 0);
	consuming = false;
	reserving = false;
}

/**
 * pks_defer_share() - before the printer starts: it sleeps on @word, in
 * the control file, where printk-shim(1) --flush can wake it, and counts
 * its drains in @drained (printk-shim(7) RUNTIME CONTROL)
 */
void pks_defer_share(_Atomic int *word, _Atomic uint32_t *drained)
{
	if (atomic_load(&state) != OFF)
		return;
	atomic_store(word, AWAKE);
	sleep_at = word;
	sleep_private = 0;
	drains = drained;
}
