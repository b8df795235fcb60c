// SPDX-License-Identifier: MIT
/*
 * Signals. A printk from a signal handler is a context of its own, as
 * interrupt context is in the kernel, so we must know when code runs in a
 * handler: sigaction() is interposed, and every call the C library builds
 * on it (sigcalls.c), and a handler the program installs is called through
 * a trampoline that counts the thread's depth.
 * The program cannot tell: the old action it reads back is its own, SIG_DFL
 * and SIG_IGN are passed through untouched, and its flags and mask are
 * kept. Also the signals whose default action ends the process: where
 * their disposition is the default, a handler of ours writes every pending
 * and open line and then lets the default action happen, so the exit status
 * still says "killed by SIGTERM"; the program reads SIG_DFL back, and an
 * exec resets ours to SIG_DFL as the kernel resets every handler.
 * A handler that arrives while the thread is inside the deferred ring's
 * window (defer/defer.h), or an output's (sink/sink.h), is held and
 * delivered again, with its siginfo, as soon as the call ends: a jump out
 * of the handler then never leaves a record half made, nor a connection's
 * count (printk-shim(7) Signal handlers).
 * A handler left with siglongjmp is noticed by the stack address: a frame
 * above the trampoline's means the handler is gone, and with it any printk
 * it interrupted, which cannot be where the jump landed. (On an alternate
 * signal stack that lies above the thread's stack this cannot be told.)
 * Thread-safety: the per-signal table is written by sigaction() and read by
 * the trampoline, as the kernel's own table is; depth is per thread.
 */
#include "base/compiler.h"
#include "base/next.h"
#include "base/tsan.h"
#include "config/config.h"
#include "ctl/ctl.h"
#include "ctl/record.h"
#include "ctx/signals.h"
#include "ctx/vfork.h"
#include "elf/name.h"
#include "defer/defer.h"
#include "sink/sink.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEPTH_MAX 16
#define DYING_NS	(2 * 1000000000L)	/* the longest dying() may write */
#define HELD_MAX 4

enum { OWNER_PROGRAM, OWNER_WRAPPED, OWNER_CRASH };	/* whose handler the kernel has */

#define CRASH_FLAGS	(SA_SIGINFO | SA_ONSTACK | SA_NODEFER)	/* crashed()'s own, for a fault */
#define END_FLAGS	(SA_SIGINFO | SA_ONSTACK | SA_RESTART)	/* and for the others */

static struct sigaction user[NSIG];	/* the program's action, where we stand in */
static _Atomic int owner[NSIG];
static bool pristine[NSIG];		/* a stand-in for a SIG_DFL the program never set */
static PKS_TLS uintptr_t frames[DEPTH_MAX];
static PKS_TLS siginfo_t held[HELD_MAX];	/* handlers held by the ring's window */
static PKS_TLS int nheld;
static const struct pks_sig_ops *ops;	/* the contexts' (pks_signals_ops()), or NULL */

/*
 * The signals whose default action ends the process, as signal(7) lists
 * them, but SIGKILL and SIGSTOP (no handler), SIGTRAP (a debugger's) and
 * the real-time signals (a program that uses them sets them; a stand-in
 * for each would cost start-up 60 system calls). The faults first: they
 * are synchronous, so they are never held.
 */
static const int fatal[] = {
	SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS,
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGVTALRM,
	SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT,
};
#define FAULTS	6

/* The C library's sigaction(); ENOSYS in the moment dlsym itself runs. */
static int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static struct pks_next next;
	int (*fn)(int, const struct sigaction *, struct sigaction *) =
		(__typeof__(fn))pks_next("sigaction", &next);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(sig, act, old);
}

static int do_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/* The contexts' operations; acquire pairs with the release in pks_signals_ops(). */
static const struct pks_sig_ops *contexts(void)
{
	return __atomic_load_n(&ops, __ATOMIC_ACQUIRE);
}

/**
 * pks_signals_ops() - what a handler's end does to the contexts, from
 * ctx.c before it makes the first context
 */
void pks_signals_ops(const struct pks_sig_ops *o)
{
	__atomic_store_n(&ops, o, __ATOMIC_RELEASE);	/* pairs with contexts()'s acquire */
}

/*
 * The frame of the trampoline at @depth (1 up). Past DEPTH_MAX none is
 * kept: the last one kept stands for them, as every deeper handler runs
 * inside it, below its frame.
 */
static uintptr_t frame_at(int depth)
{
	return frames[(depth < DEPTH_MAX ? depth : DEPTH_MAX) - 1];
}

/*
 * The handlers left by siglongjmp, seen from the frame @here: those whose
 * trampoline's frame is at or below it. Equal counts as gone: a trampoline
 * run again where the last one ran (a signal that lands at the same call
 * each time) has the same frame, and a nested one is always below it.
 * Deeper than DEPTH_MAX (a signal pending at each jump's unblocking of the
 * mask runs its handler inside the siglongjmp of the last, and so on), a
 * jump is seen once it leaves the handler at DEPTH_MAX: never to stop
 * looking would leave the thread that deep for good, its own calls in the
 * last context with the handlers'.
 * Return: the depth now.
 */
static int unwind(uintptr_t here)
{
	const struct pks_sig_ops *o = contexts();
	bool left = false;

	while (unlikely(pks_thread.depth > 0) && here >= frame_at(pks_thread.depth)) {
		pks_thread.depth--;	/* left by siglongjmp: that handler's line ends, as on return */
		if (o) {	/* a flush it cut off is let go before its line is flushed */
			o->handler_left(pks_thread.depth);
			o->handler_done(pks_thread.depth + 1);
		}
		left = true;
	}
	/* A ring record of the depth the jump landed at, or deeper, is never committed. */
	if (left)
		pks_defer_abandoned(pks_thread.depth > 0 && pks_thread.depth <= DEPTH_MAX ? frames[pks_thread.depth - 1]
									   : UINTPTR_MAX);
	return pks_thread.depth;
}

/* pks_sig_unwind_depth(), once some handler ran on this thread. */
int pks_sig_unwind_depth_slow(void)
{
	return unwind((uintptr_t)__builtin_frame_address(0));
}

/* A fault's signal: the instruction would fault again, so its handler runs now. */
static bool synchronous(int sig, const siginfo_t *si)
{
	for (size_t i = 0; i < FAULTS; i++)
		if (fatal[i] == sig && sig != SIGABRT)
			return si->si_code > 0 && si->si_code != SI_KERNEL;
	return sig == SIGTRAP && si->si_code > 0;
}

/*
 * A handler for @si that arrived inside the ring's window: kept for
 * pks_signals_release(). A standard signal already held is not held twice,
 * as the kernel keeps one pending.
 */
static void hold(int sig, const siginfo_t *si)
{
	for (int i = 0; i < nheld; i++)
		if (held[i].si_signo == sig && sig < SIGRTMIN)
			return;
	if (nheld < HELD_MAX)
		held[nheld++] = *si;
	pks_thread.sig_held = true;
}

/**
 * pks_signals_release() - the ring's window closed: each signal held meanwhile
 * sent again to this thread with its siginfo (rt_tgsigqueueinfo(2)), its
 * handler run as it returns. A handler that SA_RESETHAND took away is put
 * back first: the kernel takes it away again at this delivery.
 */
void pks_signals_release(void)
{
	siginfo_t si[HELD_MAX];
	int n = nheld, err = errno;
	pid_t pid = getpid(), tid = gettid();

	memcpy(si, held, sizeof(si[0]) * (size_t)n);
	nheld = 0;
	pks_thread.sig_held = false;
	for (int i = 0; i < n; i++) {
		int sig = si[i].si_signo;

		if (user[sig].sa_flags & SA_RESETHAND)
			do_sigaction(sig, &user[sig], NULL);
		if (syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, &si[i]) != 0)
			syscall(SYS_tgkill, pid, tid, sig);
	}
	errno = err;
}

/**
 * pks_signals_drain() - the deferred ring written from outside printk
 * (before an exec, a child, a descriptor's change): the handlers held
 * while this thread was its consumer run after it, as a call's end runs
 * them (pks_ctx_leave()); errno as the program left it
 */
void pks_signals_drain(void)
{
	pks_signals_let_go(pks_signals_drain_held());
}

/**
 * pks_signals_drain_held() - pks_signals_drain() before an exec: the ring's
 * consumer word kept until the exec (pks_defer_drain_held()), and the
 * handlers held meanwhile with it. Return: whether it is kept, for
 * pks_signals_let_go()
 */
bool pks_signals_drain_held(void)
{
	int saved = errno;
	bool kept;

	pks_tsan_hide();
	kept = pks_defer_drain_held(pks_thread.depth != 0);
	pks_tsan_show();
	if (!kept && pks_thread.sig_held)
		pks_signals_release();
	errno = saved;
	return kept;
}

/** pks_signals_let_go() - the word pks_signals_drain_held() kept (@kept) back; the handlers held */
void pks_signals_let_go(bool kept)
{
	int saved = errno;

	if (kept) {
		pks_tsan_hide();
		pks_defer_let_go();
		pks_tsan_show();
	}
	if (pks_thread.sig_held)
		pks_signals_release();
	errno = saved;
}

/*
 * The kernel put SIG_DFL back for a handler of SA_RESETHAND as it called
 * it: the program's action is the default now, and ours stands in for it
 * again, so that the signal raised again from the handler, as such
 * handlers do, writes the open lines before it ends the process. The
 * flags stay, as the kernel keeps them.
 */
static __attribute__((noinline)) void reset(int sig)
{
	struct sigaction dfl = user[sig];	/* in this frame: gone before the handler runs */

	dfl.sa_handler = SIG_DFL;
	dfl.sa_flags &= ~SA_SIGINFO;
	do_sigaction(sig, &dfl, NULL);
}

/*
 * A SIGBUS in a file the module maps that was cut short (the control file,
 * the record buffer: ctl/; an object's file read for names: elf/): made
 * good there, the access is made again, and the program never sees it.
 * errno as it was.
 */
static bool mine(int sig, const siginfo_t *si)
{
	int err = errno;
	bool ok = sig == SIGBUS && si && si->si_code == BUS_ADRERR &&
		  (pks_ctl_fault(si->si_addr) || pks_rec_fault(si->si_addr) ||
		   pks_elf_fault(si->si_addr));

	errno = err;
	return ok;
}

static void trampoline(int sig, siginfo_t *si, void *uc)
{
	/*
	 * Of the program's action, the handler and its flags, read once: it
	 * may change them meanwhile. No more of it in this frame, which lies
	 * under the handler's on what may be a small alternate stack.
	 */
	void (*info)(int, siginfo_t *, void *) = user[sig].sa_sigaction;
	void (*plain)(int) = user[sig].sa_handler;
	int flags = user[sig].sa_flags;
	const struct pks_sig_ops *o;
	int d, hid;
	uintptr_t saved;

	if (unlikely(mine(sig, si)))
		return;
	/*
	 * Not under ThreadSanitizer: its runtime runs handlers at moments of
	 * its own, and one sent again would come back inside a later window,
	 * or, left by a jump, undo its bookkeeping (printk-shim(7) SANITIZERS).
	 */
	if (unlikely(pks_defer_in_window() || pks_sink_in_window()) && !synchronous(sig, si) &&
	    !pks_tsan_present()) {
		hold(sig, si);
		return;
	}
	d = unwind((uintptr_t)__builtin_frame_address(0));	/* our frame, as frames[] holds */
	PKS_WARN_ON_ONCE(d < 0);
	saved = d < DEPTH_MAX ? frames[d] : 0;

	/*
	 * A signal can arrive between any two of these stores: frames[d]
	 * before depth, and back in the reverse order, so that a handler that
	 * interrupts us never sees a depth without its frame; and the frame of
	 * the handler we interrupted, if any, put back for it.
	 */
	if (d < DEPTH_MAX)
		frames[d] = (uintptr_t)__builtin_frame_address(0);
	if (flags & SA_RESETHAND)
		reset(sig);
	/* pairs with the fence after the handler: a handler sees frame before depth */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pks_thread.depth = d + 1;
	hid = pks_tsan_swap(0);	/* ThreadSanitizer's runtime called us with none */
	if (flags & SA_SIGINFO)
		info(sig, si, uc);
	else if (plain != SIG_IGN && plain != SIG_DFL)
		plain(sig);
	if ((o = contexts()))
		o->handler_done(d + 1);
	if (pks_thread.sig_held)
		pks_signals_release();	/* held by a window of the handler's own lines' end */
	pks_tsan_swap(hid);	/* and puts its own back as we return */
	pks_thread.depth = d;
	/* pairs with the fence before the handler, in the reverse order */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (d < DEPTH_MAX)
		frames[d] = saved;
}

/*
 * The process ends from here, without exit's destructors or _exit: every
 * pending and open line written. Not in a vfork child: the lines it sees
 * are its parent's.
 */
static void dying(void)
{
	const struct pks_sig_ops *o;

	pks_tsan_hide();
	if (!pks_vfork_shared() && (o = contexts())) {
		pks_defer_crash();	/* the ring's lines are older than the open ones */
		o->crash();
	}
	pks_tsan_show();
}

/*
 * @sig to this thread in DYING_NS, by a timer of the kernel's (raw system
 * calls: the C library's timer_create() is not async-signal-safe).
 */
static void deadline(int sig)
{
	struct sigevent ev = { .sigev_signo = sig, .sigev_notify = SIGEV_THREAD_ID };
	struct itimerspec at = { .it_value = { DYING_NS / 1000000000L, DYING_NS % 1000000000L } };
	int id;

	ev._sigev_un._tid = gettid();
	if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id) == 0)
		syscall(SYS_timer_settime, id, 0, &at, NULL);
}

/*
 * Whether the fault @si of @sig comes again when its instruction runs
 * again: a kernel's fault code (not SI_KERNEL, whose causes vary, nor a
 * trap, which stops after its instruction).
 */
static bool recurs(int sig, const siginfo_t *si)
{
	return (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL) && si &&
	       si->si_code > 0 && si->si_code != SI_KERNEL;
}

/*
 * A signal that ends the process, at its default: the default action put
 * back and let through first, so that the same signal sent again (by the
 * deadline, or by the sender's patience) ends the process at once, even in
 * a write(2) to a pipe nobody reads; then dying(), then that action, with
 * the signal's own siginfo, which a core keeps: a fault by running its
 * instruction again, any other sent again as it came.
 */
static void crashed(int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t set;
	int err = errno;

	(void)uc;
	if (mine(sig, si))
		return;
	/* pairs with do_sigaction()'s load: a later sigaction() sees the default back */
	atomic_store(&owner[sig], OWNER_PROGRAM);
	real_sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	deadline(sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	errno = err;	/* %m in the lines written: as the program left it */
	dying();
	if (recurs(sig, si))
		return;
	if (!si || syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), sig, si))
		raise(sig);
}

static bool is_fatal(int sig)
{
	for (size_t i = 0; i < PKS_ARRAY_SIZE(fatal); i++)
		if (fatal[i] == sig)
			return true;
	return false;
}

static bool is_fault(int sig)
{
	for (size_t i = 0; i < FAULTS; i++)
		if (fatal[i] == sig)
			return true;
	return false;
}

static void *handler_of(const struct sigaction *a)
{
	return a->sa_flags & SA_SIGINFO ? (void *)a->sa_sigaction : (void *)a->sa_handler;
}

/* What the kernel should get for the program's @act on @sig, and whose it is. */
static int stand_in(int sig, const struct sigaction *act, struct sigaction *k)
{
	void *h = handler_of(act);

	*k = *act;
	if (h == (void *)SIG_IGN)
		return OWNER_PROGRAM;
	if (h == (void *)SIG_DFL) {
		if (!is_fatal(sig) || !pks_config_known()->set.crash_flush)
			return OWNER_PROGRAM;
		k->sa_sigaction = crashed;
		k->sa_flags |= is_fault(sig) ? CRASH_FLAGS : END_FLAGS;
		if (!is_fault(sig))
			sigfillset(&k->sa_mask);	/* one flush: no other signal cuts it */
		return OWNER_CRASH;
	}
	k->sa_sigaction = trampoline;
	k->sa_flags |= SA_SIGINFO;
	return OWNER_WRAPPED;
}

/*
 * The old action as the program would read it had it installed @prev
 * itself: the kernel's (glibc's SA_RESTORER and restorer, the mask as the
 * kernel keeps it), with the program's handler and its own @ours flags.
 */
static void as_installed(struct sigaction *old, const struct sigaction *prev, int ours)
{
	old->sa_sigaction = prev->sa_sigaction;
	old->sa_flags = (old->sa_flags & ~ours) | (prev->sa_flags & ours);
}

/* A stand-in that masks every signal: the program's own mask read back, as the kernel keeps it. */
static void program_mask(struct sigaction *old, const struct sigaction *prev)
{
	as_installed(old, prev, END_FLAGS);
	old->sa_mask = prev->sa_mask;
	sigdelset(&old->sa_mask, SIGKILL);
	sigdelset(&old->sa_mask, SIGSTOP);
}

static bool passing;	/* another copy of the module stands in: pass every call on */

/**
 * pks_signals_pass() - at start, in a copy of the module that another came
 * before (init.c): that one stands in for the program's handlers, and its
 * calls of the next sigaction(2) reach this copy's, which passes them on
 * without reading the configuration or standing in a second time
 */
void pks_signals_pass(void)
{
	passing = true;
}

static int do_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction k, kold, prev = sig > 0 && sig < NSIG ? user[sig] : (struct sigaction){ 0 };
	/* pairs with the stores below and in the crash path, by earlier calls */
	int r, was = sig > 0 && sig < NSIG ? atomic_load(&owner[sig]) : OWNER_PROGRAM, now = OWNER_PROGRAM;
	bool was_pristine = sig > 0 && sig < NSIG && pristine[sig];

	if (passing || pks_config_known()->set.disable || sig <= 0 || sig >= NSIG)
		return real_sigaction(sig, act, old);
	if (act) {
		now = stand_in(sig, act, &k);
		if (now != OWNER_PROGRAM)
			user[sig] = *act;
	}
	r = real_sigaction(sig, act ? &k : NULL, &kold);
	if (r < 0)
		return r;
	if (act) {
		/* pairs with the load at the top, in a later call */
		atomic_store(&owner[sig], now);
		pristine[sig] = false;
	}
	if (old) {
		void *h = handler_of(&kold);

		*old = kold;
		if (h == (void *)trampoline)
			as_installed(old, &prev, SA_SIGINFO);
		else if (h == (void *)crashed && was_pristine)
			*old = (struct sigaction){ .sa_handler = SIG_DFL };	/* never set */
		else if (h == (void *)crashed && is_fault(sig))
			as_installed(old, &prev, CRASH_FLAGS);
		else if (h == (void *)crashed)
			program_mask(old, &prev);
		else if (was == OWNER_WRAPPED && h == (void *)SIG_DFL && (prev.sa_flags & SA_RESETHAND))
			old->sa_flags = (kold.sa_flags & ~SA_SIGINFO) | (prev.sa_flags & SA_SIGINFO);
	}
	return 0;
}

/**
 * pks_signals_set() - sigaction(2) as the program sees it: a handler it
 * installs is called through the trampoline, a fatal signal's SIG_DFL
 * through the flushing stand-in; the old action read back is its own.
 * For the C library's other ways to set a handler (ctx/sigcalls.c).
 */
int pks_signals_set(int sig, const struct sigaction *act, struct sigaction *old)
{
	return do_sigaction(sig, act, old);
}

PKS_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return do_sigaction(sig, act, old);
}

/*
 * A sanitizer's runtime (ASan, LSan, TSan, UBSan), when the process has
 * one: after a report that ends it (a fault its own handler took, a leak
 * found at exit) it calls its death callback and makes the exit system
 * call, past every handler, destructor and _exit (printk-shim(7) WHEN A
 * LINE IS WRITTEN). One callback: a program that sets its own replaces it.
 */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/**
 * pks_signals_setup() - stand in for SIG_DFL on the fatal signals; be a
 * sanitizer's death callback
 */
void pks_signals_setup(void)
{
	if (!pks_config()->set.crash_flush)
		return;
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(dying);
	for (size_t i = 0; i < PKS_ARRAY_SIZE(fatal); i++) {
		struct sigaction cur;

		if (real_sigaction(fatal[i], NULL, &cur) == 0 && cur.sa_handler == SIG_DFL &&
		    !(cur.sa_flags & SA_SIGINFO)) {
			/*
			 * As it is: a SIG_DFL with flags and a mask that code
			 * before this constructor set (a library's constructor,
			 * .preinit_array) reads back as it set them.
			 */
			bool untouched = !cur.sa_flags && sigisemptyset(&cur.sa_mask);

			do_sigaction(fatal[i], &cur, NULL);
			pristine[fatal[i]] = untouched;
		}
	}
}
