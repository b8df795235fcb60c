// SPDX-License-Identifier: MIT
/*
 * libprintk-port's printk family: each thread's fragments made into whole
 * lines, written to stderr as the module writes them by default (plain, or
 * with a "<N>" prefix when stderr is the journal's stream). The preloaded
 * module defines the same symbols first, and takes over.
 */
#define PKS_NO_PRINTK_INDEX	/* the definitions below are of the functions themselves */
#include "base/compiler.h"
#include "base/journal.h"
#include "config/vars.h"
#include "core/cont.h"
#include "core/level.h"
#include "core/linebuf.h"
#include "format/format.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define LINE_BYTES	1024	/* the kernel's longest record text, near enough */
#define THREADS_MAX	4096	/* open lines the destructor can find */

enum { FREE, USED, TAKEN };	/* port_line.state */

struct port_line {
	struct pks_line line;
	_Atomic int state;	/* USED by its thread in emit(); TAKEN for good by exit */
	char text[LINE_BYTES];
	char scratch[LINE_BYTES];
};

static __thread struct port_line self;
static __thread bool registered;
static __thread bool unfound;	/* no slot in threads[]: its calls leave no line open */
/*
 * emit()'s frame while it runs, 0 when it does not: a handler's call
 * finds it set and its own frame below it, or runs on the alternate
 * signal stack, and must not touch self; a call above it finds the one a
 * handler left by siglongjmp.
 */
static __thread volatile uintptr_t busy;
static struct port_line *_Atomic threads[THREADS_MAX];	/* open lines, for exit */
/* the thread that ran exit's writing of the open lines: its later lines stay open no more */
static struct port_line *_Atomic ended;
static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct pks_settings set;
static bool journal;		/* stderr is the journal's: "<N>" before each line */

PKS_EXPORT int printk(const char *fmt, ...);
PKS_EXPORT int _printk(const char *fmt, ...);
PKS_EXPORT int printk_deferred(const char *fmt, ...);
PKS_EXPORT int _printk_deferred(const char *fmt, ...);
PKS_EXPORT int vprintk(const char *fmt, va_list ap);

/* Drops the first @w bytes of @v[0..@n); returns the first vector left. */
static struct iovec *skip(struct iovec *v, int *n, size_t w)
{
	while (*n && w >= v->iov_len) {
		w -= v->iov_len;
		v++, (*n)--;
	}
	if (*n) {
		v->iov_base = (char *)v->iov_base + w;
		v->iov_len -= w;
	}
	return v;
}

/*
 * Whether descriptor 2 could never take a write, so that no wait for room
 * may end: open for reading only (a pipe's read end that took number 2),
 * or a listening socket. Its write fails at once.
 */
static bool nowhere(void)
{
	int fl = fcntl(2, F_GETFL), on = 0;
	socklen_t len = sizeof(on);

	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
		return true;
	return !getsockopt(2, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) && on;
}

/*
 * One writev(2): the prefix, the text and its newline together; short
 * writes are finished, and a stderr that is full, blocking or not, is
 * waited for rather than the line dropped, as the module does. The wait
 * for room, poll(2) before each write, is the cancellation point; the
 * write is made with cancellation off: a thread cancelled there has
 * written none of the line, which exit then writes, and one cancelled
 * meanwhile finishes it first, so it is never written twice. No room now
 * is waited for only where room can come (nowhere()).
 */
static void put(struct pks_line *l, void *arg)
{
	char pre[3] = { '<', (char)('0' + l->level), '>' };
	struct iovec all[3] = {
		{ pre, journal ? sizeof(pre) : 0 },
		{ l->sb.buffer, seq_buf_used(&l->sb) },
		{ (void *)"\n", 1 },
	}, *v = all;
	int n = 3;
	ssize_t w;
	int was;

	(void)arg;
	while (n) {
		struct pollfd p = { .fd = 2, .events = POLLOUT };

		if (poll(&p, 1, 0) == 0 && !nowhere())
			poll(&p, 1, -1);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &was);
		w = writev(2, v, n);
		pthread_setcancelstate(was, NULL);
		if (w == 0 || (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			return;
		if (w > 0)
			v = skip(v, &n, (size_t)w);
	}
}

/*
 * A line whose write a cancellation cut: the thread must die now, as it was
 * asked, not block again on the stderr that is full, so its line is kept
 * here for exit to write, as the module keeps it (printk-shim(7) THE
 * LIBRARY). One line: a second such line, while the first waits, is
 * written by its thread after all.
 */
static struct port_line orphan;

/* @l, cut in its write, into orphan. Return: whether it went there. */
static bool adopt(struct pks_line *l)
{
	int free = FREE;

	/* pairs with fini()'s claim: orphan is whole before it is USED */
	if (!atomic_compare_exchange_strong(&orphan.state, &free, TAKEN))
		return false;
	pks_line_init(&orphan.line, orphan.text, sizeof(orphan.text));
	pks_line_start(&orphan.line, l->level, l->cont, 0);
	pks_line_feed(&orphan.line, l->sb.buffer, seq_buf_used(&l->sb), put, NULL);
	atomic_store(&orphan.state, USED);	/* pairs with fini()'s exchange */
	return true;
}

/* A thread's exit writes its open line; pthread runs this while its TLS lives. */
static void leave(void *arg)
{
	struct port_line *p = arg;
	/* pairs with fini()'s claim: the line is written by one of them */
	int was = atomic_exchange(&p->state, TAKEN);
	size_t i;

	if (was == USED)	/* this thread's own call, cut off: cancelled, or pthread_exit in a handler */
		pks_line_cut(&p->line);
	if (was == USED && p->line.sent && adopt(&p->line))
		pks_line_drop(&p->line);
	else if (was != TAKEN)
		pks_line_close(&p->line, put, NULL);
	for (i = 0; i < THREADS_MAX; i++) {
		struct port_line *want = p;

		/* Pairs with the CAS in join() and the load in fini(); the
		 * relaxed load a hint, as in join(), only this thread stores p */
		if (atomic_load_explicit(&threads[i], memory_order_relaxed) == p &&
		    atomic_compare_exchange_strong(&threads[i], &want, NULL))
			break;
	}
}

static void fini(void);

static _Atomic bool ready;	/* set holds the defaults */

/*
 * The defaults, at load or at the first call, whichever comes first: a
 * library loaded before this one calls printk from its constructor, and
 * .preinit_array runs before any. One thread then, or the constructor's.
 */
static void settle(void)
{
	pks_settings_default(&set);
	/* no pair: one thread before main; the constructor's store ends any doubt */
	atomic_store_explicit(&ready, true, memory_order_relaxed);
}

/*
 * At load: a handler's call may come while the first call is still in
 * join(); and quick_exit writes the open lines as exit does.
 */
__attribute__((constructor)) static void defaults(void)
{
	settle();
	at_quick_exit(fini);
}

/*
 * In a fork child: the open lines are the parent's to write, and the other
 * threads are gone; the forking thread's line is kept findable, empty.
 */
static void forked(void)
{
	atomic_store(&orphan.state, FREE);	/* no pair: one thread; a cut line is the parent's too */
	for (size_t i = 0; i < THREADS_MAX; i++)
		atomic_store(&threads[i], NULL);	/* no pair: one thread */
	if (registered) {
		pks_line_drop(&self.line);
		atomic_store(&threads[0], &self);
		unfound = false;
	}
}

static void setup(void)
{
	journal = pks_fd_is_journal(2);
	pthread_key_create(&key, leave);
	pthread_atfork(NULL, NULL, forked);
}

/* A slot in threads[] for @p, or unfound. */
static void slot(struct port_line *p)
{
	for (size_t i = 0; i < THREADS_MAX; i++) {
		struct port_line *none = NULL;

		/* no pair: a hint, so that taken slots cost no locked operation */
		if (!atomic_load_explicit(&threads[i], memory_order_relaxed) &&
		    atomic_compare_exchange_strong(&threads[i], &none, p))
			return;
	}
	unfound = true;
}

/*
 * First use in a thread: its line, a slot in threads[] and the key that
 * calls leave(), with every signal blocked: a handler that left this by
 * siglongjmp(3) would leave the line unmade or the C library's own locks
 * held (pthread_once(), pthread_atfork()). registered says it is done.
 */
static void join(struct port_line *p)
{
	sigset_t all, was;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	pks_line_init(&p->line, p->text, sizeof(p->text));
	pthread_once(&once, setup);
	pthread_setspecific(key, p);
	slot(p);
	registered = true;
	pthread_sigmask(SIG_SETMASK, &was, NULL);
}

/*
 * At exit and quick_exit, every thread's open line as it stands, taken
 * from its thread for good: its later calls write each fragment at once.
 * A line its thread is writing now is its thread's to finish.
 */
__attribute__((destructor)) static void fini(void)
{
	size_t i;

	/* pairs with emit()'s load after its feed: a line this thread begins later ends there */
	atomic_store(&ended, &self);
	if (registered && busy) {
		/*
		 * This thread's own call never went on (left by a jump from
		 * its handler), or exit came from a handler inside it: its
		 * line, cut (written once more at most), is taken as any.
		 */
		pks_line_cut(&self.line);
		busy = 0;
		/* no pair: this thread's own claim, cut off before its release */
		atomic_store_explicit(&self.state, FREE, memory_order_relaxed);
	}
	/* pairs with adopt()'s store: a line left by a cancelled thread, once */
	if (atomic_exchange(&orphan.state, TAKEN) == USED)
		pks_line_close(&orphan.line, put, NULL);

	for (i = 0; i < THREADS_MAX; i++) {
		/* pairs with join()'s compare-exchange: the line is initialised */
		struct port_line *p = atomic_load(&threads[i]);
		int free = FREE;

		/* pairs with emit()'s claim and release: not while its thread is in it */
		if (p && atomic_compare_exchange_strong(&p->state, &free, TAKEN))
			pks_line_close(&p->line, put, NULL);
	}
}

/* A call's text into @p's line. Return: as emit(). */
static int feed(struct port_line *p, const char *fmt, va_list ap)
{
	struct pks_line *l = &p->line;
	struct pks_mark m;
	size_t len, skip;
	const char *text;
	int n;

	n = pks_vsnprintf(p->scratch, sizeof(p->scratch), fmt, ap);
	/* a format the engine gives up on keeps what was written before it */
	len = n < 0 ? strnlen(p->scratch, sizeof(p->scratch) - 1) :
	      (size_t)n < sizeof(p->scratch) ? (size_t)n : sizeof(p->scratch) - 1;
	skip = pks_level_parse(p->scratch, len, set.legacy_markers, &m);
	text = p->scratch + skip;
	len -= skip;
	switch (pks_cont_decide(l->open, m.flags, set.cont, len == 1 && text[0] == '\n')) {
	case PKS_DROP:
		return 0;
	case PKS_NEW:
		pks_line_close(l, put, NULL);
		pks_line_start(l, m.level != PKS_LEVEL_NONE ? m.level : set.default_level,
			       m.flags & PKS_M_CONT, 0);
		break;
	case PKS_APPEND:
		break;
	}
	pks_line_feed(l, text, len, put, NULL);
	return (int)(len - (len && text[len - 1] == '\n'));
}

/* Whether this runs on the alternate signal stack: a handler's, wherever it lies. */
static bool on_altstack(void)
{
	stack_t ss;

	return !sigaltstack(NULL, &ss) && (ss.ss_flags & SS_ONSTACK);
}

/* A call with a line of its own, on the stack, written before it returns. */
static int alone(struct port_line *own, const char *fmt, va_list ap, int saved)
{
	int n;

	pks_line_init(&own->line, own->text, sizeof(own->text));
	n = feed(own, fmt, ap);
	pks_line_close(&own->line, put, NULL);
	errno = saved;
	return n;
}

/*
 * Return: printk's value, the bytes of text without markers or the final
 * newline. A call that interrupts another of its thread (a signal
 * handler's) has a line of its own on the stack, written before it
 * returns; the interrupted call's line is left whole.
 */
static int emit(const char *fmt, va_list ap)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0), was = busy;
	struct port_line own;
	int saved = errno, n, free = FREE;

	if (was && (here < was || on_altstack()))
		return alone(&own, fmt, ap, saved);	/* a handler inside emit() */
	busy = here;
	atomic_signal_fence(memory_order_seq_cst);	/* before the line is touched */
	/* no pair: as settle()'s store */
	if (unlikely(!atomic_load_explicit(&ready, memory_order_relaxed)))
		settle();
	if (unlikely(!registered))
		join(&self);
	if (unlikely(was)) {	/* a call left by a jump from its handler */
		pks_line_cut(&self.line);
		/* no pair: this thread's own claim, cut off before its release */
		atomic_store_explicit(&self.state, FREE, memory_order_relaxed);
	}
	/* pairs with fini()'s claim: exit takes no line this thread is writing */
	if (unlikely(!atomic_compare_exchange_strong(&self.state, &free, USED))) {
		busy = 0;
		return alone(&own, fmt, ap, saved);	/* taken by exit */
	}
	n = feed(&self, fmt, ap);
	/* exit could not write it, or ran on this thread: written now; pairs with fini()'s store */
	if (unlikely(unfound) || unlikely(atomic_load(&ended) == &self))
		pks_line_close(&self.line, put, NULL);
	/* release: pairs with fini()'s claim, which then sees the line whole */
	atomic_store_explicit(&self.state, FREE, memory_order_release);
	atomic_signal_fence(memory_order_seq_cst);	/* after it is left */
	busy = 0;
	errno = saved;
	return n;
}

#define VARIADIC(fn)					\
int fn(const char *fmt, ...)				\
{							\
	va_list ap;					\
	int r;						\
							\
	va_start(ap, fmt);				\
	r = emit(fmt, ap);				\
	va_end(ap);					\
	return r;					\
}

VARIADIC(printk)
VARIADIC(_printk)
VARIADIC(printk_deferred)
VARIADIC(_printk_deferred)

int vprintk(const char *fmt, va_list ap)
{
	return emit(fmt, ap);
}
