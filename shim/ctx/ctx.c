// SPDX-License-Identifier: MIT
/*
 * The life of a line outside a call. Each thread that calls printk gets a
 * node from a lock-free registry (a push-only list; a node of an exited
 * thread is reused by the next thread, never freed), and each node has one
 * context per signal depth, its buffers mapped with mmap on first use. The
 * registry lets exit, exec and a fatal signal write every thread's open line;
 * the pthread key destructor writes a thread's own at thread exit; a forked
 * child drops what it inherited. A context is owned by a state word: its
 * thread takes it for a call (BUSY), a flusher from elsewhere takes it
 * briefly (CLAIMED); no lock is ever held while writing, so neither a signal
 * handler nor a forked child can deadlock here.
 * A call that never returns (its handler left by siglongjmp, its thread
 * cancelled or ended by pthread_exit in a handler, exit from a handler)
 * leaves its context BUSY; it is taken back when that is known: when the
 * handler's depth is left, at thread exit, at process exit. Its open line
 * stays and is written later, never dropped; one cut in the outputs' write
 * waits for the node's next thread or process exit, since the output may be
 * what stopped it. A call pays for none of this but a flag set around the
 * write of each line (pks_ctx_out()).
 * Signal depth is signals.c's; exec hooks are exec.c's; the process's start
 * and end are init.c's.
 * Thread-safety: as described; setup is idempotent.
 */
#include "ctx/ctx.h"
#include "base/clock.h"
#include "base/compiler.h"
#include "base/fdio.h"
#include "base/once.h"
#include "base/pid.h"
#include "base/say.h"
#include "base/sigmask.h"
#include "base/tsan.h"
#include "config/config.h"
#include "core/render.h"
#include "ctx/spawn.h"
#include "defer/defer.h"
#include "sink/sink.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Read after every fragment: in .data, on the page of the module's other
 * flags every call reads, rather than alone on a page of .bss.
 */
_Atomic int pks_exiting __attribute__((section(".data")));

static _Atomic(struct pks_node *) nodes;
PKS_TLS struct pks_thread pks_thread;	/* ctx/thread.h */
static PKS_TLS struct pks_ctx *volatile flushing;	/* claimed by this thread, being written */
static pthread_key_t key;
static _Atomic int setup_state;		/* pks_once_claim() */
static bool key_ok;
static pid_t memory_pid;		/* whose memory this is: set at setup, after fork */

static void *map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Carve head room, the line, tail room, scratch and the room of a whole
 * record (kmsg, json) out of @buf.
 */
static void carve(struct pks_ctx *x, char *buf, size_t line, bool record)
{
	char *p = buf + PKS_HEAD_MAX;

	pks_line_init(&x->line, p, line);
	p += line + PKS_TAIL_MAX;
	x->scratch = p;
	p += PKS_SCRATCH;
	x->w.render = record ? p : NULL;
}

static size_t ctx_size(size_t line, enum pks_linefmt format)
{
	return PKS_HEAD_MAX + line + PKS_TAIL_MAX + PKS_SCRATCH + pks_render_room(format, line);
}

static int ctx_map(struct pks_ctx *x)
{
	const struct pks_config *c = pks_config();
	size_t size = ctx_size(c->set.line_max, c->format);
	char *p = map(size);

	if (!p)
		return -1;
	carve(x, p, c->set.line_max, pks_render_room(c->format, 1) > 0);
	x->map_size = size;
	/* release: pairs with flush_ctx()'s acquire, another thread's: carved before */
	__atomic_store_n(&x->map, p, __ATOMIC_RELEASE);
	return 0;
}

/**
 * pks_ctx_stack() - a context in @buf (the caller's stack) for one call
 * Its line is shorter than LINE_MAX when @size is small; a long line is then
 * written in more, shorter pieces.
 */
void pks_ctx_stack(struct pks_ctx *x, char *buf, size_t size)
{
	const struct pks_config *c = pks_config();
	size_t line = c->set.line_max;

	while (ctx_size(line, c->format) > size)
		line /= 2;
	memset(x, 0, sizeof(*x));
	carve(x, buf, line ? line : 1, pks_render_room(c->format, 1) > 0);
	x->w.tid = gettid();
	x->w.borrowed = pks_vfork_child();
	/*
	 * The thread's own context is busy: this call interrupted one of its
	 * own, from a handler installed around sigaction() (sigset(), a raw
	 * system call), which the depth does not count. Its line may not
	 * wait for what the interrupted call holds.
	 */
	/* no pair: the thread's own context, stored by this thread alone */
	x->w.in_handler = pks_sig_unwind_depth() > 0 ||
			  (!x->w.borrowed && pks_thread.self &&
			   atomic_load_explicit(&pks_thread.self->ctx[0].state, memory_order_relaxed) ==
			   PKS_BUSY);
	x->err = &errno;
}

static void thread_gone(void *p);

static void atfork_child(void);

/*
 * Before a fork: the ring's lines written (spawn.c), so that the child
 * inherits none and the parent may end at once, as daemon(3)'s does,
 * through the C library's own _exit (printk-shim(7) DEFERRED PRINTING).
 */
static void atfork_prepare(void)
{
	pks_spawn_prepare();
}

/**
 * pks_ctx_setup() - once, from init.c or the first context made: what a
 * handler's end does (ctx/signals.c), the key for thread exit, the fork
 * handlers
 */
void pks_ctx_setup(void)
{
	if (!pks_once_claim(&setup_state))
		return;
	/* before any context exists: a handler's end then always finds them */
	pks_signals_ops(&pks_ctx_sig_ops);
	memory_pid = getpid();
	key_ok = pthread_key_create(&key, thread_gone) == 0;
	if (!key_ok)
		pks_warn("no thread-specific key left: a thread's open line is written at process exit, not at thread exit");
	pthread_atfork(atfork_prepare, NULL, atfork_child);
	pks_spawn_child_op(atfork_child);	/* _Fork's child runs no handler */
	pks_once_done(&setup_state);
}

static void flush_ctx(struct pks_ctx *x, bool crash, bool cut, uint64_t until);
static uint64_t soon(void);

/* A free node, its last thread's lines written first (see thread_gone()). */
static struct pks_node *reuse(void)
{
	PKS_HB_AFTER(&nodes);
	/* pairs with attach()'s exchange, which published each node whole */
	for (struct pks_node *n = atomic_load(&nodes); n; n = n->next) {
		int free_ = 0;

		/* a relaxed look first (no pair: the exchange orders); the exchange
		 * pairs with thread_gone()'s store of 0: its lines are written */
		if (atomic_load_explicit(&n->inuse, memory_order_relaxed) == 0 &&
		    atomic_compare_exchange_strong(&n->inuse, &free_, 1)) {
			PKS_HB_AFTER(&n->inuse);
			for (int i = 0; i < PKS_NCTX; i++)
				flush_ctx(&n->ctx[i], false, false, soon());
			return n;
		}
	}
	return NULL;
}

/* The calling thread's node: a free one, or a new one pushed on the list. */
static struct pks_node *attach(void)
{
	struct pks_node *n, *head;

	pks_ctx_setup();
	n = reuse();
	if (!n) {
		n = map(sizeof(*n));
		if (!n)
			return NULL;
		/* no pair: not published yet; the exchange below publishes it */
		atomic_store_explicit(&n->inuse, 1, memory_order_relaxed);
		/* pairs with the other attach()es' exchanges: the head we push on */
		head = atomic_load(&nodes);
		do {
			n->next = head;
			PKS_HB_BEFORE(&nodes);
			/* pairs with every load of nodes: n's fields before n */
		} while (!atomic_compare_exchange_weak(&nodes, &head, n));
	}
	n->tid = gettid();
	for (int i = 0; i < PKS_NCTX; i++) {
		n->ctx[i].w.tid = n->tid;
		n->ctx[i].w.in_handler = i > 0;
		n->ctx[i].cache = n->cache[i];
		n->ctx[i].err = &errno;	/* a fork child's thread has the same */
	}
	pks_thread.self = n;
	if (key_ok)
		pthread_setspecific(key, n);
	return n;
}

/*
 * What a thread makes once, its node and each context's mapping, is made
 * with every signal blocked (pks_block_all()): a handler that left by
 * siglongjmp halfway would leave it made but not yet found, and the next
 * call would make another, at every call under a timer that cuts each one
 * short. Two system calls, once each.
 */
static struct pks_node *attached(void)
{
	sigset_t old;
	struct pks_node *n;

	pks_block_all(&old);
	n = attach();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return n;
}

static int mapped(struct pks_ctx *x)
{
	sigset_t old;
	int err;

	pks_block_all(&old);
	err = x->map ? 0 : ctx_map(x);	/* a handler may have mapped it meanwhile */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

static bool take_back(struct pks_ctx *x, bool *in_write);

/**
 * pks_ctx_after() - what the end of a call has left to do (pks_ctx_leave()):
 * the handlers held while the deferred ring's window was open run, then
 * the cancellation point that is due is made, outside any handler
 */
void pks_ctx_after(void)
{
	if (pks_thread.sig_held)
		pks_signals_release();
	if (pks_thread.cancel_due && pks_thread.depth == 0) {
		pks_thread.cancel_due = false;
		pthread_testcancel();
	}
}

/** pks_ctx_enter_slow() - pks_ctx_enter(), for every case */
struct pks_ctx *pks_ctx_enter_slow(void)
{
	struct pks_node *n = pks_thread.self;
	struct pks_ctx *x;
	int want = PKS_IDLE, d;
	bool in_write;

	/* a vfork child's contexts are its parent's: it gets one on its stack */
	if (pks_vfork_child() || (unlikely(!n) && !(n = attached())))
		return NULL;
	d = pks_sig_unwind_depth();
	x = &n->ctx[d < PKS_NCTX ? d : PKS_NCTX - 1];
	if (unlikely(!x->map) && mapped(x))
		return NULL;
	/* acquire: pairs with the release of pks_ctx_leave(), the last owner's */
	for (int spin = 0; !atomic_compare_exchange_strong_explicit(&x->state, &want, PKS_BUSY,
			memory_order_acquire, memory_order_relaxed); spin++) {
		/*
		 * BUSY: we interrupted ourselves, or this is a cleanup handler
		 * of a cancellation in our write or wait, whose call never
		 * goes on (pks_fd_cut, pks_defer_cut()). CLAIMED: a flusher, for a
		 * moment; but never wait for a flush that we interrupted, on
		 * this thread: it cannot end before we do.
		 */
		if (want == PKS_BUSY && d == 0 && (pks_fd_cut || pks_defer_cut())) {
			take_back(x, &in_write);	/* its line is written once more, at most */
			want = PKS_IDLE;
			continue;
		}
		if (want == PKS_BUSY || flushing == x || spin == 10000)
			return NULL;
		want = PKS_IDLE;
		sched_yield();
	}
	PKS_HB_AFTER(&x->state);
	return x;
}

/*
 * The call of this thread that owns @x never goes on: take its context
 * back. The open line stays as the call left it, and a line cut off in its
 * write is written once more at most (pks_line_cut()). Only the owner makes
 * a context BUSY, and nobody else takes it from BUSY, so a load will do.
 * Return: whether @x was BUSY; *@in_write, whether the cut was in the write.
 */
static bool take_back(struct pks_ctx *x, bool *in_write)
{
	*in_write = false;
	/* acquire: pairs with the release of pks_ctx_leave() */
	if (atomic_load_explicit(&x->state, memory_order_acquire) != PKS_BUSY)
		return false;
	*in_write = x->writing;
	x->writing = false;
	pks_line_cut(&x->line);
	pks_ctx_leave(x);
	return true;
}

/*
 * A flush of this thread's that claimed @x at @depth or deeper never goes
 * on: a handler entered after it cut it off (the jump leaves that handler),
 * or the thread or the process ends inside it (@depth 0). Its line, cut,
 * is written once more at most (pks_line_cut()); without this the context
 * stayed CLAIMED for good, the line unwritten, and every later call at its
 * depth was written alone.
 * Return: whether @x was such a claim, now let go.
 */
static bool dead_claim(struct pks_ctx *x, int depth)
{
	/* no pair: its own claim's, stored by this thread; another thread's is not ours */
	if (atomic_load_explicit(&x->claim_by, memory_order_relaxed) != (uintptr_t)&flushing ||
	    x->claim_depth < depth ||
	    /* pairs with flush_ctx()'s claim, by this same thread: program order */
	    atomic_load_explicit(&x->state, memory_order_relaxed) != PKS_CLAIMED)
		return false;
	pks_line_cut(&x->line);
	if (flushing == x)
		flushing = NULL;	/* the outer one it kept is lost with its frame */
	/* no pair: as flush_ctx()'s release of it */
	atomic_store_explicit(&x->claim_by, 0, memory_order_relaxed);
	atomic_store(&x->state, PKS_IDLE);	/* pairs with the next claim or call's exchange */
	return true;
}

/**
 * pks_ctx_abandoned() - this thread left a handler by siglongjmp, down to
 * @depth: a printk at @depth that the handler interrupted never goes on
 * (a depth beyond the last context shares it, and cannot be told), nor
 * does a flush at @depth or deeper
 */
void pks_ctx_abandoned(int depth)
{
	bool in_write;

	if (!pks_thread.self)
		return;
	for (int i = 0; i < PKS_NCTX; i++)
		dead_claim(&pks_thread.self->ctx[i], depth);
	if (depth < PKS_NCTX)
		take_back(&pks_thread.self->ctx[depth], &in_write);
}

/**
 * pks_ctx_foreign() - whether this process runs in memory not its own: a
 * vfork child (its parent's, shared) or a child made without the fork
 * handlers (a raw clone: copied), whose open lines are the parent's
 */
bool pks_ctx_foreign(void)
{
	return memory_pid && pks_pid_differs(memory_pid);
}

#define CLAIM_WAIT_NS	100000000ull	/* a flush's wait for busy contexts: 0.1 s in all */

/* The end of a claim's wait from now (flush_ctx()). */
static uint64_t soon(void)
{
	return pks_now_ns() + CLAIM_WAIT_NS;
}

/*
 * Line @l to the outputs by writer @w from a fatal signal's handler: as a
 * handler's line (no lock, no time zone, no symbol looked up), which may
 * still wait as long as the dying may for an output that is full, as the
 * deferred printer's crash drain writes its records. The call @w's thread
 * was cut off in may hold what an ordinary line takes (a syslog send's
 * lock), and never gives it back.
 */
static void close_dying(struct pks_line *l, struct pks_writer *w)
{
	bool in_handler = w->in_handler, dying = w->dying;

	w->dying = !in_handler;
	w->in_handler = true;
	pks_line_close(l, pks_ctx_line_out, w);
	w->in_handler = in_handler;
	w->dying = dying;
}

/*
 * At an exec from a handler, the line of the call of this thread's that
 * the handler cut off (@x, still its call's), written as close_dying()
 * writes one, from a copy: if the exec fails and the handler returns, that
 * call goes on as it was, and may write the line once more.
 */
static void copy_out(struct pks_ctx *x)
{
	struct pks_line l = x->line;

	pks_line_cut(&l);
	close_dying(&l, &x->w);
}

/*
 * Write @x's open line from outside its call. @crash: a fatal signal's
 * flush, from its handler; this thread's own contexts are written even if
 * it was cut off in printk (forced). @crash or @cut (an exit from a handler
 * that cut this thread's call off): written as close_dying() writes it. A
 * context its thread is busy in is waited for 2000 yields, and until
 * @until at most: on a CPU that many printing threads share, each yield
 * lets every one of them run.
 */
static void flush_ctx(struct pks_ctx *x, bool crash, bool cut, uint64_t until)
{
	struct pks_ctx *outer = flushing;
	bool own = pks_thread.self && x >= pks_thread.self->ctx && x < pks_thread.self->ctx + PKS_NCTX;
	bool force = crash && own;
	int want = PKS_IDLE;
	bool claimed = false;

	/* acquire: pairs with ctx_map()'s release; a fatal signal's flush reads
	 * the context of a thread mapping it, and claims nothing (force) */
	if (!__atomic_load_n(&x->map, __ATOMIC_ACQUIRE))
		return;
	/*
	 * This thread's own flush of it, interrupted by a handler whose end
	 * flushes it again: that flush goes on once the handler returns. Its
	 * claim would be waited for in vain, 2000 yields a handler, which a
	 * periodic signal turned into a thread that never ran again.
	 */
	if (outer == x && !force)
		return;
	flushing = x;		/* before the claim: a handler of ours must see it */
	for (int spin = 0; spin < (force ? 1 : 2000); spin++) {
		want = PKS_IDLE;
		/* pairs with pks_ctx_leave()'s release and the store of IDLE below */
		if ((claimed = atomic_compare_exchange_strong(&x->state, &want, PKS_CLAIMED)))
			break;
		if (force || (want == PKS_BUSY && own))
			break;	/* our own call, interrupted: it will not end first */
		if (pks_now_ns() > until)
			break;
		sched_yield();
	}
	if (claimed || force) {
		if (claimed) {
			PKS_HB_AFTER(&x->state);
			x->claim_depth = pks_thread.depth;	/* a handler that cuts this off is deeper */
			/* no pair: read by this thread alone, as its own (dead_claim()) */
			atomic_store_explicit(&x->claim_by, (uintptr_t)&flushing, memory_order_relaxed);
		}
		if (crash || cut) {
			/* forced: its call was cut off, and a line it began has no text yet */
			if (!claimed)
				pks_line_cut(&x->line);
			close_dying(&x->line, &x->w);
		} else
			pks_line_close(&x->line, pks_ctx_line_out, &x->w);
		if (claimed) {
			/* no pair: as above */
			atomic_store_explicit(&x->claim_by, 0, memory_order_relaxed);
			PKS_HB_BEFORE(&x->state);
			/* pairs with pks_ctx_enter()'s exchange and the next claim above */
			atomic_store(&x->state, PKS_IDLE);
		}
	}
	flushing = outer;
}

/**
 * pks_flush_all() - write every thread's open lines (exit, exec, fatal signal)
 * @why: at exec, a handler this thread left by siglongjmp is noticed first;
 * at exit, a call this thread is in (exit from a handler) ends; at a fatal
 * signal, in an async-signal context, nothing waits and this thread's lines
 * are written even if the signal arrived inside printk. A free node's line
 * is one its thread's output never took (thread_gone()).
 */
void pks_flush_all(enum pks_flush why)
{
	uint64_t until = soon();	/* for all the busy contexts together */
	bool in_write, cut;

	if (why != PKS_FLUSH_CRASH)
		pks_sig_unwind_depth();	/* a flush's claim then knows its depth */
	PKS_HB_AFTER(&nodes);
	/* pairs with attach()'s exchange, which published each node whole */
	for (struct pks_node *n = atomic_load(&nodes); n; n = n->next) {
		for (int i = 0; i < PKS_NCTX; i++) {
			/* exit or exec from a handler that cut off a flush of ours */
			if (n == pks_thread.self && why != PKS_FLUSH_CRASH)
				dead_claim(&n->ctx[i], 0);
			cut = n == pks_thread.self && why == PKS_FLUSH_EXIT &&
			      take_back(&n->ctx[i], &in_write);
			/* no pair: this thread's own context, as flush_ctx()'s look */
			if (n == pks_thread.self && why == PKS_FLUSH_EXEC && i < pks_thread.depth &&
			    atomic_load_explicit(&n->ctx[i].state, memory_order_relaxed) == PKS_BUSY)
				copy_out(&n->ctx[i]);
			else
				flush_ctx(&n->ctx[i], why == PKS_FLUSH_CRASH, cut, until);
		}
	}
}

/*
 * pks_flush_depth() - a handler at @depth returns: its context's line ends.
 * Hidden from ThreadSanitizer's runtime only when there is a line: the
 * signal may have come inside the runtime, which its handler (the
 * runtime's, wrapping the program's) then only noted, and a call into it
 * from there waits for itself for ever.
 */
void pks_flush_depth(int depth)
{
	struct pks_ctx *x;

	if (!pks_thread.self || depth >= PKS_NCTX)
		return;
	x = &pks_thread.self->ctx[depth];
	/* this thread's own context, its handler over: no one else's store to see */
	if (pks_line_idle(&x->line))
		return;
	pks_tsan_hide();
	flush_ctx(x, false, false, soon());
	pks_tsan_show();
}

#ifdef __SANITIZE_ADDRESS__
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);

/*
 * AddressSanitizer unpoisons the frames that a cancellation unwound only
 * where it sees a jump: their red zones stay poisoned below this frame,
 * where the flush below calls down into them.
 */
static void unpoison_below(void)
{
	size_t span = 64 << 10;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);

	__asan_unpoison_memory_region((const void *)(sp - span), span);
}
#else
static inline void unpoison_below(void)
{
}
#endif

/*
 * The thread exits: a call it is still in (cancelled, or pthread_exit from a
 * handler) never goes on. A line whose write was cut is left for the next
 * thread to take the node, or for exit: its output may be full, and the
 * thread must die now, as cancellation asked.
 */
static void thread_gone(void *p)
{
	struct pks_node *n = p;
	bool in_write;

	unpoison_below();
	pks_tsan_hide();
	pks_sink_thread_gone();	/* a send cancellation cut off: what it holds given back */
	pks_defer_abandoned(UINTPTR_MAX);	/* a record cancellation cut off: skipped */
	for (int i = 0; i < PKS_NCTX; i++)
		if (!dead_claim(&n->ctx[i], 0) &&	/* a flush cancelled in its write: left too */
		    (!take_back(&n->ctx[i], &in_write) || !in_write))
			flush_ctx(&n->ctx[i], false, false, soon());
	pks_defer_gone(n->tid);	/* after its last line: the next thread's come later */
	if (pks_thread.sig_held)
		pks_signals_release();	/* held by a window of those lines: before the thread ends */
	pks_thread.self = NULL;
	PKS_HB_BEFORE(&n->inuse);
	/* pairs with reuse()'s exchange: the lines above are written first */
	atomic_store(&n->inuse, 0);
	pks_tsan_show();
}

/*
 * The child keeps no line it inherited: the parent writes them, once; its
 * thread is its own. A fork's handler, and _Fork's child's (spawn.c).
 */
static void atfork_child(void)
{
	pks_tsan_hide();
	memory_pid = getpid();
	pks_defer_forked();	/* the ring's lines too: printk-shim(7) DEFERRED PRINTING */
	pks_sink_forked();
	/* no pair: the child has one thread (here and below) */
	for (struct pks_node *n = atomic_load(&nodes); n; n = n->next) {
		for (int i = 0; i < PKS_NCTX; i++) {
			if (n->ctx[i].map)
				pks_line_drop(&n->ctx[i].line);
			if (n != pks_thread.self)	/* no pair: one thread */
				atomic_store(&n->ctx[i].state, PKS_IDLE);
		}
		if (n == pks_thread.self) {
			n->tid = gettid();
			for (int i = 0; i < PKS_NCTX; i++)
				n->ctx[i].w.tid = n->tid;
		} else {	/* no pair: one thread */
			atomic_store(&n->inuse, 0);
		}
	}
	pks_tsan_show();
}

static void crash_flush(void)
{
	pks_flush_all(PKS_FLUSH_CRASH);
}

/* What ctx/signals.c calls when a handler ends; pks_ctx_setup() hands it over. */
const struct pks_sig_ops pks_ctx_sig_ops = {
	.handler_done = pks_flush_depth,
	.handler_left = pks_ctx_abandoned,
	.crash = crash_flush,
};
