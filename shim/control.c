// SPDX-License-Identifier: MIT
/*
 * What the printk-shim command asked of this process (printk-shim(7)
 * RUNTIME CONTROL), applied by the first call that sees the request: the
 * level, dynamic debug queries, file outputs opened again. Calls on other
 * threads wait for it, so no call that starts after the command returned
 * runs under the old settings.
 * Thread-safety: one applier at a time; a call from a signal handler
 * applies nothing (queries look objects up with dladdr(), which takes the
 * dynamic linker's lock) and goes on under the settings as they are.
 */
#include "control.h"
#include "dyndbg.h"
#include "base/clock.h"
#include "base/compiler.h"
#include "base/say.h"
#include "config/config.h"
#include "config/drop.h"
#include "ctl/ctl.h"
#include "ctx/signals.h"
#include "ctx/vfork.h"
#include "defer/defer.h"
#include "sink/file.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static _Atomic long applier;	/* the thread applying, 0: none */
static _Atomic uint64_t began;	/* when the applier began (CLOCK_MONOTONIC ns), 0: not yet */

static void reopen(struct pks_config *c)
{
	bool drained = false;

	for (int i = 0; i < c->nout; i++) {
		int err;

		if (c->out[i].kind != PKS_OUT_FILE)
			continue;
		/*
		 * The deferred ring's lines were printed before the request:
		 * to the file as it was, as a synchronous caller's went.
		 */
		if (!drained)
			pks_defer_drain(false);
		drained = true;
		err = pks_file_reopen(c, i);
		if (err)
			pks_warn("--reopen: file:%s: %s; writing to the file as it was opened",
				 c->set.outputs[c->out[i].spec].path, pks_strerror(err));
	}
}

/* The queries of the request from those applied last up to @to, each ended by a newline. */
static void queries(struct pks_ctl_page *h, uint32_t to)
{
	static char text[PKS_DD_POOL + 1];

	/* printk-shim(1) writes no more than dd holds past those applied */
	PKS_WARN_ON_ONCE(to - h->st.dd_done > sizeof(h->req.dd));
	pks_ctl_queries(&h->req, h->st.dd_done, to, text);
	if (!pks_dyndbg_more(text))
		pks_warn("--dyndbg: more than %d queries, or %d bytes of their words, in all, even merged; the last ones changed the sites loaded now, but objects loaded from now on do not see them",
			 PKS_DD_QUERIES, PKS_DD_POOL);
	h->st.dd_done = to;
}

/* Everything asked so far. */
static void apply(void)
{
	struct pks_ctl_page *h = &pks_ctl_area.p;
	struct pks_config *c = &pks_cfg;
	uint32_t reopens = h->req.reopen, dd = h->req.dd_len;
	int32_t level = h->req.level;

	/* pairs with pks_drop_arm()'s load, through pks_drop_changed() below */
	if (level >= 0 && level <= 7)
		__atomic_store_n(&c->set.level, level, __ATOMIC_RELAXED);
	if (dd != h->st.dd_done)
		queries(h, dd);
	if (reopens != h->st.reopen_done) {
		reopen(c);
		h->st.reopen_done = reopens;
	}
	pks_drop_changed();	/* the level or the queries may be new */
	pks_ctl_publish(c);
}

/*
 * The frame of this thread's apply(), while it runs: a call that finds
 * itself the applier below it is a handler inside apply() (one installed
 * by a raw system call, which the unwind depth does not count); above it,
 * the apply() was left by a jump from a handler, and is taken up again.
 */
static PKS_TLS uintptr_t applying;

/*
 * The wait for another thread's apply(): at most this from when it began,
 * then the call goes on; once an applier is stuck (a full pipe as standard
 * error), later calls go on at once, not each after a wait of its own.
 */
#define WAIT_NS		2000000000ull

/* The applier's claim let go: its apply() is done, or cut off by cancellation or pthread_exit. */
static void release(void *unused)
{
	(void)unused;
	applying = 0;
	/* no pair: ordered before the next claim by the store of applier below */
	atomic_store_explicit(&began, 0, memory_order_relaxed);
	atomic_store(&applier, 0);	/* pairs with the claim in pks_control_apply() */
}

/* apply() as the applier, @w the request it saw. */
static void run(uint64_t w)
{
	applying = (uintptr_t)__builtin_frame_address(0);
	/* no pair: a waiter reads it after the claim, through applier's
	 * seq_cst exchanges; one that reads 0 times its wait itself */
	atomic_store_explicit(&began, pks_now_ns(), memory_order_relaxed);
	pthread_cleanup_push(release, NULL);
	apply();
	/*
	 * A request made meanwhile stays asked, and is applied next round:
	 * pairs with the command's increment of ask.
	 */
	atomic_compare_exchange_strong(&pks_ctl_area.p.ask, &w, 0);
	pthread_cleanup_pop(1);
}

/**
 * pks_control_apply() - a request is pending (pks_ctl_asked()): apply it,
 * or wait for the thread applying it. A fork child no atfork handler ran
 * in makes its own file first, where the parent's requests are not.
 */
void pks_control_apply(void)
{
	long me = gettid(), none;
	uint64_t until = 0, b;
	int saved = errno;

	if (pks_sig_unwind_depth() > 0 || !pks_ctl_mine())
		return;	/* a handler may have cut off the dynamic linker: the next call applies it */
	if (pks_vfork_child())
		return;	/* its descriptors are its own, the "done" its parent's: the parent applies it */
	while (pks_ctl_asked()) {
		none = 0;
		/* pairs with release()'s store of 0, the last applier's: its apply() is over */
		if (atomic_compare_exchange_strong(&applier, &none, me)) {
			/* pairs with the command's release when it adds its request */
			run(atomic_load_explicit(&pks_ctl_area.p.ask, memory_order_acquire));
		} else if (none == me) {
			if (applying && (uintptr_t)__builtin_frame_address(0) < applying)
				break;	/* inside our own apply() */
			/* pairs with the command's release, as above */
			run(atomic_load_explicit(&pks_ctl_area.p.ask, memory_order_acquire));
		} else {
			/* no pair: as run()'s store */
			b = atomic_load_explicit(&began, memory_order_relaxed);
			if (b)
				until = b + WAIT_NS;
			else if (!until)
				until = pks_now_ns() + WAIT_NS;
			if (pks_now_ns() > until)
				break;	/* an applier stuck in its output: go on as things are */
			sched_yield();
		}
	}
	errno = saved;
}

/**
 * pks_control_prepare() - before a fork: a request no call applied yet is
 * applied now, so that the child, whose file is its own, starts under it
 * too (printk-shim(7) RUNTIME CONTROL)
 */
void pks_control_prepare(void)
{
	if (pks_ctl_asked())
		pks_control_apply();
}

/** pks_control_forked() - in a fork child: no thread of the parent applies here */
void pks_control_forked(void)
{
	/* no pair: a fork's child runs one thread */
	atomic_store_explicit(&began, 0, memory_order_relaxed);
	atomic_store(&applier, 0);	/* no pair: as above */
	pks_rules_forked();
}
