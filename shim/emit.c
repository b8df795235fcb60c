// SPDX-License-Identifier: MIT
/*
 * One call, start to end: keep errno, read the leading markers, decide
 * (cont.c), and put the text on the context's line (linebuf.c), whose
 * complete lines go to sink.c. Markers literal in the format are read and
 * decided before anything is formatted, and the text is then formatted in
 * place, at the end of the line, or only measured when the level filter
 * drops it; others are read from the text formatted into scratch. Also
 * the pass-through of PRINTK_SHIM_DISABLE=1. Which context a call uses and
 * when lines are flushed outside a call is ctx.c's business.
 * Thread-safety: a context is owned for the whole call (pks_ctx_enter); a
 * call that cannot own one (a signal handler that interrupted printk on the
 * same thread, a thread that cannot get memory) uses a context on its own
 * stack and writes every line before it returns. A whole line the filter
 * drops owns nothing: it reads its thread's shapes, writes nothing, and
 * reads them again (filter(), dropped()).
 */
#include "emit.h"
#include "control.h"
#include "dyndbg.h"
#include "report.h"
#include "base/clock.h"
#include "base/compiler.h"
#include "base/fdio.h"
#include "base/next.h"
#include "base/rodata.h"
#include "base/say.h"
#include "base/tsan.h"
#include "config/config.h"
#include "config/drop.h"
#include "ctl/ctl.h"
#include "ctl/record.h"
#include "core/cont.h"
#include "core/level.h"
#include "ctx/cancel.h"
#include "ctx/ctx.h"
#include "ctx/signals.h"
#include "ctx/vfork.h"
#include "defer/defer.h"
#include "format/format.h"
#include "format/put.h"
#include "format/tally.h"
#include "sink/sink.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* A context's cache holds compiled formats, for the fragments it formats or measures. */
enum { SHAPES = PKS_CTX_CACHE / sizeof(struct pks_shape) };
_Static_assert(SHAPES >= 4, "PKS_CTX_CACHE holds a few compiled formats");

static _Atomic int reached;	/* some call got here: see pks_report_unreached() */

/**
 * pks_emit_setup() - before main: name the flags raced on purpose to Helgrind;
 * note where the formats that cannot change lie
 */
void pks_emit_setup(void)
{
	PKS_HB_BENIGN(&reached);
	pks_drop_setup();
	pks_fd_setup();
	pks_rodata_setup();
}

/* Decide and feed one formatted fragment. Return: printk's return value. */
static int feed(const struct pks_config *c, struct pks_ctx *x, const char *s, size_t n,
		const void *caller)
{
	struct pks_line *l = &x->line;
	struct pks_mark m;
	size_t skip = pks_level_parse(s, n, c->set.legacy_markers, &m);
	const char *text = s + skip;
	size_t len = n - skip;
	enum pks_act act = pks_cont_decide(l->open, m.flags, c->set.cont,
					   len == 1 && text[0] == '\n');

	if (act == PKS_DROP)
		return 0;
	if (act == PKS_NEW) {
		pks_line_close(l, pks_ctx_out, &x->w);
		pks_line_start(l, m.level != PKS_LEVEL_NONE ? m.level : c->set.default_level,
			       m.flags & PKS_M_CONT, c->need_time ? pks_now_ns() : 0);
		l->site = caller;
	} else if (unlikely(c->set.lint) && !(m.flags & PKS_M_CONT) && pks_sig_unwind_depth() == 0) {
		pks_report_lint(caller, text, len);
	}
	pks_line_feed(l, text, len, pks_ctx_out, &x->w);
	/* no pair: a flag, no data behind it; a line that misses it, exit flushes */
	if (unlikely(atomic_load_explicit(&pks_exiting, memory_order_relaxed)))
		pks_line_close(l, pks_ctx_out, &x->w);
	return (int)(len - (len && text[len - 1] == '\n'));
}

typedef int formatter(char *buf, size_t size, const char *fmt, va_list ap);

/*
 * @big, holding at least @need bytes. Growing it, the old mapping is
 * forgotten before it is unmapped and the new one remembered as soon as
 * mmap returns: a jump out of the call can then leave at most the one
 * mapping being made or unmapped behind, never one per call.
 * Return: the memory, or NULL.
 */
static char *grow(struct pks_spill *big, size_t need)
{
	char *old = big->p, *p;
	size_t size = big->size;

	if (likely(need <= size))
		return old;
	big->p = NULL;
	big->size = 0;
	/* pairs with a handler of this thread, which must see it forgotten first */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (old)
		munmap(old, size);
	size = (need + 4095) & ~(size_t)4095;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	big->p = p;
	big->size = size;
	return p;
}

/** Unmap @big (a context that ends with the call). */
static void release(struct pks_spill *big)
{
	if (big->p)
		munmap(big->p, big->size);
	big->p = NULL;
	big->size = 0;
}

/*
 * Format all of @fmt with @f: into @buf, or, when it does not fit, into
 * @big (never malloc). A format the C library gives up on keeps what was
 * written before it.
 * Return: the text; its length in *@len.
 */
static const char *whole(formatter *f, char *buf, size_t size, const char *fmt, va_list ap,
			 size_t *len, struct pks_spill *big)
{
	const char *s = buf;
	va_list again;
	char *p;
	int n;

	va_copy(again, ap);
	n = f(buf, size, fmt, ap);
	if (likely(n >= 0 && (size_t)n < size)) {
		*len = (size_t)n;
	} else if (n < 0) {
		*len = strnlen(buf, size - 1);
		if (errno == EOVERFLOW)	/* a count past INT_MAX, as vsnprintf(3) says */
			pks_warn("a fragment's text passes %d bytes; it is cut to its first %zu, "
				 "any markers among them", INT_MAX, *len);
	} else if (!(p = grow(big, (size_t)n + 1))) {
		*len = size - 1;
		pks_warn("a %d-byte fragment did not fit in memory; it is cut to its first %zu, "
			 "any markers among them", n, size - 1);
	} else {
		f(p, (size_t)n + 1, fmt, again);
		*len = (size_t)n;
		s = p;
	}
	va_end(again);
	return s;
}

/*
 * @fmt formatted into @x's scratch buffer: by the fast path, else by the
 * whole engine (into x->big when it does not fit, see whole()).
 * Return: the text; its length in *@n.
 */
static const char *scratch(struct pks_ctx *x, const char *fmt, va_list ap, size_t *n)
{
	int ret = pks_format_fast(x->scratch, PKS_SCRATCH, fmt, ap);

	if (likely(ret >= 0 && ret < PKS_SCRATCH)) {
		*n = (size_t)ret;
		return x->scratch;
	}
	return whole(pks_vsnprintf, x->scratch, PKS_SCRATCH, fmt, ap, n, &x->big);
}

/*
 * The general path: @fmt formatted into scratch (the fast path, else the
 * whole engine), its markers read from the text, decided and fed.
 */
static __attribute__((noinline)) int slow(const struct pks_config *c, struct pks_ctx *x,
					  const char *fmt, va_list ap, const void *caller)
{
	size_t n;
	const char *s = scratch(x, fmt, ap, &n);

	return feed(c, x, s, n, caller);
}

/* The line was exited with the process: write it now (pks_flush_all() came first). */
static inline void exiting(struct pks_ctx *x)
{
	int *err, saved;

	/* no pair: a flag, as in feed() */
	if (unlikely(atomic_load_explicit(&pks_exiting, memory_order_relaxed))) {
		err = x->err;	/* appended() keeps errno only where a line goes out */
		saved = *err;
		pks_line_close(&x->line, pks_ctx_out, &x->w);
		*err = saved;
	}
}

/*
 * pks_ctx_out() for a call that keeps errno only where its line goes out
 * (appended()): the ring may wait or wake.
 */
static void kept(struct pks_line *l, void *writer)
{
	struct pks_ctx *x = (struct pks_ctx *)((char *)writer - offsetof(struct pks_ctx, w));
	int *err = x->err, saved = *err;

	pks_ctx_out(l, writer);
	*err = saved;
}

/*
 * The text of a fragment already decided (@fmt past its markers) that
 * direct() could not take in place: formatted into scratch and fed.
 */
static __attribute__((noinline)) int spill(struct pks_ctx *x, const char *fmt, va_list ap)
{
	int *err = x->err, saved = *err;	/* as kept() */
	size_t n;
	const char *s = scratch(x, fmt, ap, &n);

	pks_line_feed(&x->line, s, n, pks_ctx_out, &x->w);
	exiting(x);
	*err = saved;
	return (int)(n - (n && s[n - 1] == '\n'));
}

/*
 * A decided fragment's text (@fmt past its markers) formatted straight to
 * the end of the open line, from its compiled shape @s if it has one: one
 * pass, no copy, and only a %s or %c that brought a newline makes the text
 * searched for one. What does not fit there, a format the fast path does
 * not take, a newline before the last byte go to spill(). A NUL one past
 * the line's end lands in its tail room. A line it ends goes to @out:
 * pks_ctx_out(), or kept() for a caller that has not kept errno.
 */
static inline __attribute__((always_inline)) int direct(struct pks_ctx *x,
		const struct pks_shape *s, const char *fmt, va_list ap, pks_line_out *out)
{
	size_t room, n;
	char *at = pks_line_end(&x->line, &room);
	bool inner = true;	/* a newline may be inside: search */
	int ret = likely(s) ? pks_shape_print(s, at, room + 1, ap, &inner) :
			      pks_format_fast(at, room + 1, fmt, ap);
	bool nl;

	if (unlikely(ret < 0 || (size_t)ret > room))
		return spill(x, fmt, ap);
	n = (size_t)ret;
	if (unlikely(inner) && n > 1 && memchr(at, '\n', n - 1))
		return spill(x, fmt, ap);
	nl = n && at[n - 1] == '\n';
	pks_line_took(&x->line, n, nl, out, &x->w);
	exiting(x);
	return (int)(n - nl);
}

/*
 * A fragment of a line the level filter drops (@fmt past its markers) is
 * measured, not formatted: printk still returns its length (printk-shim(7)
 * SYMBOLS), and all the line needs is whether it stays open. It is measured
 * from its compiled shape @s when it has one, so a format seen again is not
 * decoded again. A format the counting walk does not take goes the general
 * way, where the sink drops the line. The first one arms filter().
 * Inline in its two callers, run() and marked(), as it was in run().
 */
static inline __attribute__((always_inline)) int quiet(const struct pks_config *c,
		struct pks_ctx *x, const struct pks_shape *s, const char *fmt, va_list ap,
		enum pks_act act, int level, const struct pks_mark *m, size_t skip,
		const void *caller)
{
	struct pks_line *l = &x->line;
	int len;
	bool ends;		/* the fragment ends with a newline */
	char last;

	pks_drop_ready(c);
	if (likely(s))
		len = pks_shape_count(s, ap, &last);
	else
		len = pks_format_count(fmt, ap, &last);
	if (len < 0)
		return slow(c, x, fmt - skip, ap, caller);
	if (act == PKS_NEW) {
		pks_line_close(l, pks_ctx_out, &x->w);
		pks_line_start(l, level, m->flags & PKS_M_CONT, 0);
	}
	ends = len && last == '\n';
	if (ends)
		l->open = false;
	exiting(x);
	return len - ends;
}

/*
 * A whole line, just started, of a format whose compiled shape @s is
 * simple (plain conversions, closed by its newline, none before): with
 * deferred printing, its arguments go into the ring as they are and the
 * printer makes the text (printk-shim(7) DEFERRED PRINTING). The line is
 * not open meanwhile: a call cut off leaves nothing of it to write. A
 * line recorded goes the usual way; run() let no other hidden one come.
 * Return: printk's count, or -1 when the line is formatted here after all.
 */
static inline int captured(const struct pks_config *c, struct pks_ctx *x,
			   const struct pks_shape *s, va_list ap)
{
	int n;

	PKS_WARN_ON_ONCE(x->line.level > c->set.level && !pks_rec_on);
	if (!s || !s->closes || s->nl || pks_rec_on || pks_vfork_child())
		return -1;
	x->line.open = false;
	n = pks_defer_args(&x->line, &x->w, s, ap);
	if (n < 0) {
		x->line.open = true;
		return -1;
	}
	pks_ctx_counted(x);
	exiting(x);
	return n - 1;		/* the newline not counted */
}

/*
 * A KERN_DEBUG call that dynamic debug turned off: it starts a line that
 * is measured and dropped as one the level filter drops (quiet()), so that
 * its KERN_CONT fragments are dropped with it rather than start a line of
 * their own. A format the counting walk does not take is formatted into
 * scratch, only to be measured. With the record buffer on, the line is
 * formatted and its fragments join it, so that it is recorded whole.
 */
static int off(const struct pks_config *c, struct pks_ctx *x, const char *fmt, va_list ap,
	       const void *caller)
{
	struct pks_line *l = &x->line;
	struct pks_mark m;
	size_t skip = pks_level_parse(fmt, 16, c->set.legacy_markers, &m), n;	/* stops at the NUL */
	const char *s;
	int len;
	char last = 0;

	(void)caller;	/* in_ctx's, as run() */
	if (unlikely(pks_rec_on)) {
		s = scratch(x, fmt + skip, ap, &n);
		pks_line_close(l, pks_ctx_out, &x->w);
		pks_line_start(l, PKS_LEVEL_OFF, false, c->need_time ? pks_now_ns() : 0);
		pks_line_feed(l, s, n, pks_ctx_out, &x->w);
		exiting(x);
		return (int)(n - (n && s[n - 1] == '\n'));
	}
	if (likely(x->cache))
		len = pks_format_count_cached(x->cache, SHAPES, pks_rodata_fixed, fmt + skip, ap, &last);
	else
		len = pks_format_count(fmt + skip, ap, &last);
	if (len < 0) {
		s = scratch(x, fmt + skip, ap, &n);
		len = (int)n;
		last = n ? s[n - 1] : 0;
	}
	pks_line_close(l, pks_ctx_out, &x->w);
	pks_line_start(l, PKS_LEVEL_OFF, false, 0);
	if (len && last == '\n') {
		l->open = false;
		len--;
	}
	exiting(x);
	return len;
}

/*
 * pks_level_parse() for the usual case, a lone KERN_<LEVEL> or KERN_CONT
 * before the text: two bytes, and a third that starts no other marker.
 * Return: whether @fmt starts so; its meaning in @m.
 */
static inline bool one_mark(const char *fmt, bool legacy, struct pks_mark *m)
{
	char k = fmt[1];

	if (k >= '0' && k <= '7')
		*m = (struct pks_mark){ k - '0', PKS_M_LEVEL };
	else if (k == 'c')
		*m = (struct pks_mark){ PKS_LEVEL_NONE, PKS_M_CONT };
	else
		return false;
	/* fmt[2] only now: fmt[1] was no NUL */
	return fmt[2] != '\001' && !(fmt[2] == '<' && legacy);
}

/*
 * The markers at the start of @fmt, if they are all the text's markers can
 * be: the AHEAD bytes after them are no conversion. Most formats start with
 * no marker or a KERN_* one. The compiled shape of the text after them, if
 * it has one, goes to *@s, and tells.
 */
static inline bool literal_marks(const struct pks_config *c, struct pks_ctx *x, const char *fmt,
				 struct pks_mark *m, size_t *skip, const struct pks_shape **s)
{
	enum { SEEN = 16, AHEAD = PKS_SHAPE_AHEAD };	/* a marker is at most AHEAD bytes */
	size_t n = 0;
	const char *p;

	if (fmt[0] == '\001' && one_mark(fmt, c->set.legacy_markers, m)) {
		n = 2;
	} else if (fmt[0] == '\001' || (fmt[0] == '<' && c->set.legacy_markers)) {
		n = pks_level_parse(fmt, SEEN, c->set.legacy_markers, m);	/* stops at the NUL */
		if (n > SEEN - AHEAD)
			return false;	/* a longer run than we looked at */
	} else {
		*m = (struct pks_mark){ PKS_LEVEL_NONE, 0 };
	}
	*skip = n;
	p = fmt + n;
	*s = likely(x->cache) ? pks_shape_find(x->cache, SHAPES, pks_rodata_fixed, p) : NULL;
	if (likely(*s))
		return (*s)->ahead;
	/* AHEAD bytes, or up to the NUL, and no '%' among them */
	return p[0] != '%' && (!p[0] || (p[1] != '%' && (!p[1] || p[2] != '%')));
}

/*
 * One call: when @fmt's markers are literal, the fragment is decided from
 * them before anything is formatted, and then measured (quiet()) or
 * formatted in place (direct()); otherwise, the general way (slow()). An
 * orphan KERN_CONT is decided by whether its text is a bare newline
 * (printk-shim(7) CONTINUATION), and PRINTK_SHIM_LINT reads the text: both
 * go the general way.
 */
static PKS_HOT int run(const struct pks_config *c, struct pks_ctx *x, const char *fmt,
		       va_list ap, const void *caller)
{
	struct pks_line *l = &x->line;
	const struct pks_shape *s;
	struct pks_mark m;
	enum pks_act act;
	size_t skip;
	int level, ret;

	if (unlikely(c->set.lint) || !literal_marks(c, x, fmt, &m, &skip, &s) ||
	    unlikely((m.flags & PKS_M_CONT) && !l->open))
		return slow(c, x, fmt, ap, caller);
	/* pks_cont_decide()'s answer for the usual markers, without the call */
	if (m.flags == PKS_M_LEVEL)
		act = PKS_NEW;
	else if (m.flags == PKS_M_CONT)
		act = PKS_APPEND;	/* the line is open: see above */
	else
		act = pks_cont_decide(l->open, m.flags, c->set.cont, false);
	if (act == PKS_APPEND)
		level = l->level;
	else
		level = m.level != PKS_LEVEL_NONE ? m.level : c->set.default_level;
	/* a line recorded is formatted, hidden or not (printk-shim(7) RECORD BUFFER) */
	if (unlikely(level > c->set.level) && likely(!pks_rec_on))
		return quiet(c, x, s, fmt + skip, ap, act, level, &m, skip, caller);
	if (act == PKS_NEW) {
		pks_line_close(l, pks_ctx_out, &x->w);
		pks_line_start(l, level, m.flags & PKS_M_CONT, c->need_time ? pks_now_ns() : 0);
		l->site = caller;
		if (unlikely(c->set.defer)) {
			if (likely(!pks_rec_on))	/* a line recorded is never quick */
				pks_drop_ready(c);	/* the next such line goes ringed() */
			if ((ret = captured(c, x, s, ap)) >= 0)
				return ret;
		}
	}
	return direct(x, s, fmt + skip, ap, pks_ctx_out);
}

/*
 * A context of our own on the stack: every line is written before return.
 * Beside the scratch buffer it holds a line's head and tail room and a
 * 512-byte line in kmsg form (96 + 8 + 512 + 4 * 512 + 80 = 2744 bytes,
 * rounded up); a longer line is written in pieces (pks_ctx_stack()).
 */
#define STACK_ROOM	2816
typedef int in_ctx(const struct pks_config *c, struct pks_ctx *x, const char *fmt, va_list ap,
		   const void *caller);

/* @f (run() or off()) in a context on the stack. */
static int on_stack(in_ctx *f, const struct pks_config *c, const char *fmt, va_list ap,
		    const void *caller)
{
	char buf[PKS_SCRATCH + STACK_ROOM];
	struct pks_ctx x;
	int ret;

	pks_ctx_stack(&x, buf, sizeof(buf));
	ret = f(c, &x, fmt, ap, caller);
	pks_line_close(&x.line, pks_ctx_out, &x.w);
	release(&x.big);
	return ret;
}

/*
 * PRINTK_SHIM_DISABLE=1: the next definition gets the call. A variadic one
 * cannot take our va_list, so it gets the text through "%s", which prints
 * the same bytes. With no next definition, the text goes to stderr as is,
 * markers removed, and the call returns the kernel's count.
 */
static void *next_of(const struct pks_sym *sym)
{
	static struct pks_next next[PKS_NSYMS];
	void *p = pks_next(sym->name, &next[sym->id]);

	return p == sym->ours ? NULL : p;
}

/* Hand the formatted text of @n bytes on, or write it without its markers. */
static int pass(const struct pks_config *c, void *next, const char *s, size_t n)
{
	struct pks_mark m;
	size_t skip;

	if (next)
		return ((int (*)(const char *, ...))next)("%s", s);
	skip = pks_level_parse(s, n, c->set.legacy_markers, &m);
	pks_fd_write(2, s + skip, n - skip);
	return (int)(n - skip - (n > skip && s[n - 1] == '\n'));	/* the kernel's count */
}

/* The C library's own formatting: what the next printk would have printed. */
static int libc_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	return vsnprintf(buf, size, fmt, ap);
#pragma GCC diagnostic pop
}

static int forward(const struct pks_config *c, const struct pks_sym *sym, const char *fmt, va_list ap)
{
	void *next = next_of(sym);
	struct pks_spill big = { NULL, 0 };
	char buf[PKS_SCRATCH];
	const char *s;
	size_t n;
	int ret;

	if (next && sym->va)
		return ((int (*)(const char *, va_list))next)(fmt, ap);
	s = whole(libc_vsnprintf, buf, sizeof(buf), fmt, ap, &n, &big);
	ret = pass(c, next, s, n);
	release(&big);
	return ret;
}

static __attribute__((noinline)) int held(struct pks_ctx *x, const char *fmt, va_list ap,
					  const void *caller);
static __attribute__((noinline)) int marked(struct pks_ctx *x, const struct pks_shape *s,
					    const char *fmt, va_list ap, const void *caller);

/*
 * The text after @fmt's marker, if it starts as a line the quick ways may
 * take: a literal KERN_<N> marker (one_mark()'s test, and no '<' after it,
 * legacy or not), or none. *@drop tells whether the level filter drops it:
 * a digit @cut or more; no marker, the default level (pks_drop_bare). No
 * call: pks_emit() stays two jumps for the others.
 * Return: the text, or NULL.
 */
static inline const char *quick_mark(const char *fmt, unsigned char cut, bool *drop)
{
	if (fmt[0] == '\001') {
		if (fmt[1] < '0' || fmt[1] > '7' || fmt[2] == '\001' || fmt[2] == '<')
			return NULL;
		*drop = (unsigned char)fmt[1] >= cut;
		return fmt + 2;
	}
	if (fmt[0] == '<')
		return NULL;
	/* no pair: the quick filter's flag (config/drop.c), no data behind it */
	*drop = atomic_load_explicit(&pks_drop_bare, memory_order_relaxed);
	return fmt;
}

/* A literal KERN_CONT before the text, as one_mark() reads it, no '<' after it. Return: the text, or NULL. */
static inline const char *quick_cont(const char *fmt)
{
	if (fmt[0] != '\001' || fmt[1] != 'c' || fmt[2] == '\001' || fmt[2] == '<')
		return NULL;
	return fmt + 2;
}

static __attribute__((noinline)) int measured(struct pks_ctx *x, const char *fmt, const char *p,
					      va_list ap, const void *caller);

/* ringed()'s line formatted in place: apart, so that its arguments' way keeps a small frame. */
static __attribute__((noinline)) int started(struct pks_ctx *x, const struct pks_shape *s,
					     const char *p, va_list ap, int level, uint64_t t,
					     const void *caller)
{
	pks_line_start(&x->line, level, false, t);
	x->line.site = caller;
	return direct(x, s, p, ap, pks_ctx_out);
}

/*
 * A line the level filter passes, with deferred printing: run()'s
 * decisions for a new line at its marker's level (or the default), made
 * by the armed state (config/drop.h) and the format's steady shape, with
 * nothing before it still to write; the configuration was read, as it armed
 * the state. A quick shape's line goes from its arguments into the ring as
 * captured() puts it, any other is formatted in place (direct()), where
 * its KERN_CONT fragments join it (appended()) and its newline sends it to
 * the ring. Any other call goes on in held(), as from pks_emit(). noipa as
 * filter().
 */
static __attribute__((noipa)) int ringed(const char *p, const char *fmt, va_list ap,
					const void *caller)
{
	struct pks_ctx *x = pks_ctx_try();
	const struct pks_shape *s;
	struct pks_line *l;
	int *err, saved, len, level;
	uint64_t t;

	if (unlikely(!x) || unlikely(!(s = pks_shape_steady(x->cache, SHAPES, p))) ||
	    unlikely(!pks_line_idle(&x->line)))
		return held(x, fmt, ap, caller);
	l = &x->line;
	err = x->err;	/* the ring may wait or wake */
	saved = *err;
	level = p == fmt ? pks_cfg.set.default_level : fmt[1] - '0';
	t = pks_cfg.need_time ? pks_now_ns() : 0;
	if (likely(s->quick) && !s->nl && likely(!pks_rec_on) && !pks_vfork_child()) {
		pks_line_head(l, level, t, caller);
		len = pks_defer_args(l, &x->w, s, ap) - 1;	/* the newline not counted */
		/* a line the ring did not take keeps its head: nothing else lives across the call */
		if (unlikely(len < 0))
			len = started(x, s, p, ap, l->level, l->t_ns, l->site);
		else
			pks_ctx_counted(x);
	} else {
		len = started(x, s, p, ap, level, t, caller);
	}
	*err = saved;
	pks_ctx_leave(x);
	return len;
}

/*
 * A KERN_CONT fragment, with deferred printing, of a line the level filter
 * passes: run()'s append to the open line, with its look-ups made by the
 * format's steady shape. An orphan, and any other, goes on in held().
 */
static __attribute__((noipa)) int appended(const char *p, const char *fmt, va_list ap,
					const void *caller)
{
	struct pks_ctx *x = pks_ctx_try();
	const struct pks_shape *s;
	int len;

	if (unlikely(!x) || unlikely(!(s = pks_shape_steady(x->cache, SHAPES, p))) ||
	    unlikely(!x->line.open) || unlikely(x->line.level > pks_cfg.set.level))
		return held(x, fmt, ap, caller);
	len = direct(x, s, p, ap, kept);	/* errno kept where the line goes out */
	pks_ctx_leave(x);
	return len;
}

/* A call filter() did not take at a glance: measured() in its context, if owned, else held(). */
static __attribute__((noinline)) int unfiltered(const char *fmt, va_list ap, const void *caller)
{
	struct pks_ctx *x = pks_ctx_try();

	if (unlikely(!x))
		return held(x, fmt, ap, caller);
	return measured(x, fmt, fmt[0] == '\001' ? fmt + 2 : fmt, ap, caller);
}

/*
 * @v into @e for @fmt: the format cleared first and set last, so that a
 * handler's dropped() finds the slot whole or empty.
 */
static void seen_put(struct pks_seen *e, const char *fmt, struct pks_seen v)
{
	e->fmt = NULL;
	/* pairs with dropped()'s, in a handler that comes meanwhile */
	atomic_signal_fence(memory_order_seq_cst);
	v.fmt = NULL;
	*e = v;
	/* pairs with dropped()'s, as the one above */
	atomic_signal_fence(memory_order_seq_cst);
	e->fmt = fmt;
}

/*
 * @s, the quick shape of the text past @fmt's KERN_<N> marker (at @p),
 * noted in this thread's node for dropped(): in the slot @fmt's address
 * chooses, whose format moves to the other of its pair, as the shapes do.
 * Only the context's owner writes there, so that no two writes mix (a
 * handler that comes meanwhile finds the context busy).
 */
static __attribute__((noinline)) void remember(const struct pks_shape *s, const char *p,
					       const char *fmt)
{
	struct pks_ctx *x = pks_ctx_try();
	size_t i = pks_shape_slot(fmt, PKS_SEEN);
	struct pks_seen *e;

	if (unlikely(!x))
		return;
	e = pks_thread.self->seen;
	if (likely(s->fmt == p)) {	/* owned: no handler changes it now */
		if (e[i].fmt && e[i].fmt != fmt)
			seen_put(&e[i ^ 1], e[i].fmt, e[i]);
		seen_put(&e[i], fmt, (struct pks_seen){ fmt, pks_tally_ops(s), s->lit, s->nconv });
	}
	pks_ctx_leave(x);
}

/*
 * A whole line the level filter drops, in a thread with no line open: its
 * length is all the call does (quiet()'s work, none of it stored). Its
 * format must close the line with its own newline, whatever the arguments,
 * and make no marker of them: a quick shape (pks_shape_quick()), measured
 * with its arguments left where they are; any other goes on in measured(),
 * as does a line past INT32_MAX. Nothing is owned: a handler that comes
 * meanwhile may put another shape in the slot read, which is looked at
 * again after; neither errno nor any line is touched: the line that was
 * not open stays so. @p is @fmt past its marker, where pks_emit() had
 * @sym: the other arguments stay where they are (noipa: as declared).
 * @keep: note the shape for dropped(), which takes the next line.
 */
static __attribute__((noipa)) int filter(const char *p, const char *fmt, va_list ap,
					const void *caller, bool keep)
{
	struct pks_node *n = pks_thread.self;
	/*
	 * What the end reads again waits in memory: the walk wants every
	 * register, and a store and a load cost less than a push and a pop.
	 */
	const char *volatile again = fmt;
	const void *volatile from = caller;
	const struct pks_shape *s;
	const uint64_t *r;
	unsigned int nconv;
	uint32_t ops;
	size_t lit;
	int len;

	/* not open, and nothing a cut left for pks_line_close() to write */
	if (likely(n) && likely(!pks_thread.away) &&
	    likely(s = pks_shape_quick((const struct pks_shape *)n->cache[0], SHAPES, p)) &&
	    pks_line_idle(&n->ctx[0].line)) {
		ops = pks_tally_ops(s);
		lit = s->lit;
		nconv = s->nconv;
		/*
		 * The copies are the shape's, whole, when the slot is still
		 * @p's: pairs with pks_shape_learn()'s, in a handler meanwhile.
		 */
		atomic_signal_fence(memory_order_seq_cst);
		if (likely(s->fmt == p) && likely(pks_va_regs(ap, nconv, &r)) &&
		    likely((len = pks_tally_walk(ops, lit, NULL, r, true, true)) >= 0)) {
			if (keep)
				remember(s, p, again);
			return len - 1;		/* the newline not counted */
		}
	}
	return unfiltered(again, ap, from);	/* not quick, or past INT32_MAX */
}

/*
 * A call filter() did not take at a glance, in @x, owned; @p is @fmt past
 * its marker: its shape found or compiled, the line measured as filter()
 * does when it closes, else decided at once (marked()) or the usual way
 * (held()).
 */
static int measured(struct pks_ctx *x, const char *fmt, const char *p, va_list ap,
		    const void *caller)
{
	const struct pks_shape *s = pks_shape_find(x->cache, SHAPES, pks_rodata_fixed, p);
	va_list cp;
	int len;

	if (!s || !s->ahead)
		return held(x, fmt, ap, caller);
	if (pks_line_idle(&x->line) && s->closes) {
		va_copy(cp, ap);
		len = pks_tally(s, &cp);	/* -2 past INT32_MAX */
		va_end(cp);
		if (likely(len > 0)) {
			pks_ctx_leave(x);
			return len - 1;
		}
	}
	return p == fmt ? held(x, fmt, ap, caller) : marked(x, s, fmt, ap, caller);
}

/* run() in @x, owned, or, when there is none, in a context on the stack. */
static inline int usual(const struct pks_config *c, struct pks_ctx *x, const char *fmt,
			va_list ap, const void *caller)
{
	int ret;

	if (unlikely(!x))
		return on_stack(run, c, fmt, ap, caller);
	ret = run(c, x, fmt, ap, caller);
	pks_ctx_leave(x);
	return ret;
}

/*
 * A call filter() did not take, in @x if it owns it: as emit(), which
 * armed filter() only where nothing but run() applies (the configuration
 * read, no PRINTK_SHIM_DISABLE, no dynamic debug, a format).
 */
static int held(struct pks_ctx *x, const char *fmt, va_list ap, const void *caller)
{
	int *err = &errno, saved = *err, ret;	/* one __errno_location() call */

	ret = usual(pks_config(), x ? x : pks_ctx_enter_slow(), fmt, ap, caller);
	*err = saved;
	return ret;
}

/*
 * A fragment filter() did not take, of a marker the filter drops and a
 * shape @s that makes no marker: run()'s decision without its look-ups,
 * a new line at that level, measured by quiet(); in @x, owned.
 */
static int marked(struct pks_ctx *x, const struct pks_shape *s, const char *fmt, va_list ap,
		  const void *caller)
{
	int *err = &errno, saved = *err, ret;	/* the open line may be written */
	struct pks_mark m = { fmt[1] - '0', PKS_M_LEVEL };

	ret = quiet(pks_config(), x, s, fmt + 2, ap, PKS_NEW, m.level, &m, 2, caller);
	pks_ctx_leave(x);
	*err = saved;
	return ret;
}

/* The kernel's __dynamic_pr_debug() format: the decorations, then the call's. */
static const char own[] = "\001" "7" "%s%pV";
static PKS_TLS const char *ours;	/* the format pks_emit_decorated() emits on this thread */

struct va_format_k {		/* include/linux/printk.h */
	const char *fmt;
	va_list *va;
};

/* pks_emit() through printk's entry @sym, with a format of ours; @caller stays the program's. */
static int reemit(const struct pks_sym *sym, const void *caller, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = pks_emit(sym, fmt, ap, caller);
	va_end(ap);
	return r;
}

#define FMT_ROOM	512	/* a longer format takes the %pV road */

/*
 * KERN_DEBUG, @pre with its '%' doubled, and @fmt, in @buf: one format that
 * the fast path can take, where "%s%pV" always needs the whole engine.
 * Return: false when it does not fit.
 */
static bool joined(char *buf, size_t size, const char *pre, const char *fmt)
{
	size_t n = 2, len = strlen(fmt);

	memcpy(buf, "\001" "7", 2);
	for (; *pre; pre++) {
		if (n + 2 >= size)
			return false;
		if (*pre == '%')
			buf[n++] = '%';
		buf[n++] = *pre;
	}
	if (len >= size - n)
		return false;
	memcpy(buf + n, fmt, len + 1);
	return true;
}

/**
 * pks_emit_decorated() - a KERN_DEBUG line of @fmt with the decorations
 * dynamic debug's @flags ask for, for the site @s, printed through the
 * printk entry of @sym's table (a call of its own, as the kernel's
 * __dynamic_pr_debug() makes). With PRINTK_SHIM_DISABLE=1 the text is
 * formatted here, undecorated, for the next printk, which cannot read %pV.
 * Return: as printk().
 */
int pks_emit_decorated(const struct pks_sym *sym, unsigned int flags,
		       const struct pks_dd_site *s, const char *fmt, va_list ap, const void *caller)
{
	const struct pks_config *c = pks_config();
	char pre[PKS_DD_PREFIX] = "", buf[2 * PKS_DD_PREFIX + FMT_ROOM];
	const char *outer = ours;
	struct va_format_k vaf;
	va_list cp;
	int r;

	sym = &pks_sym_table(sym)[PKS_SYM_PRINTK];
	va_copy(cp, ap);
	if (unlikely(c->set.disable)) {
		memcpy(buf, "\001" "7", 2);
		pks_vsnprintf(buf + 2, sizeof(buf) - 2, fmt, cp);
		r = reemit(sym, caller, "%s", buf);
	} else {
		if (flags & PKS_DD_INCL_ANY)
			pks_dd_prefix(pre, sizeof(pre), flags, s,
				      pks_sig_unwind_depth() ? -1 : (long)gettid());
		if (joined(buf, sizeof(buf), pre, fmt)) {
			ours = buf;
			r = pks_emit(sym, buf, cp, caller);
			ours = outer;
		} else {
			vaf = (struct va_format_k){ fmt, &cp };
			r = reemit(sym, caller, own, pre, &vaf);
		}
	}
	va_end(cp);
	return r;
}

/*
 * printk-shim(7) DYNAMIC DEBUG: a KERN_DEBUG call of code built without our
 * headers, decided by dyndbg.c. Apart, so that emit() keeps a small frame.
 * Return: whether it was taken (printed decorated, or its line dropped),
 * with printk's return value in *@ret.
 */
static __attribute__((noinline)) bool claimed(const struct pks_config *c, const struct pks_sym *sym,
					      const char *fmt, va_list ap, const void *caller, int *ret)
{
	struct pks_dd_call call;
	struct pks_ctx *x;

	if (fmt == own || fmt == ours)
		return false;	/* decided already: pks_emit_decorated() prints it */
	switch (pks_dyndbg_claim(c, fmt, caller, &call)) {
	case PKS_DD_LEFT:
		return false;
	case PKS_DD_DECORATE:
		*ret = pks_emit_decorated(sym, call.flags, &call.site, call.fmt, ap, caller);
		return true;
	case PKS_DD_OFF:
		break;
	}
	if ((x = pks_ctx_enter()) != NULL) {
		*ret = off(c, x, fmt, ap, caller);
		pks_ctx_leave(x);
	} else {
		*ret = on_stack(off, c, fmt, ap, caller);	/* no fragment can follow */
	}
	return true;
}

static __attribute__((noinline)) int emit(const struct pks_sym *sym, const char *fmt, va_list ap,
					  const void *caller);

/*
 * emit() in a thread whose cancellation is asynchronous: deferred for the
 * call, so that a request lands as it returns (ctx/cancel.c)
 */
static __attribute__((noinline)) int uncancelled(const struct pks_sym *sym, const char *fmt,
						 va_list ap, const void *caller)
{
	int type = pks_cancel_hold(), ret = emit(sym, fmt, ap, caller);

	pks_cancel_give(type);	/* errno is the call's: the C library leaves it */
	return ret;
}

/*
 * pks_emit(), for every call that filter() does not take. Apart, so that
 * pks_emit() itself saves no register for the calls filter() takes.
 */
static __attribute__((noinline)) int emit(const struct pks_sym *sym, const char *fmt, va_list ap,
					  const void *caller)
{
	int *err = &errno, saved = *err, ret;	/* one __errno_location() call */
	const struct pks_config *c = pks_config();

	if (unlikely(pks_cancel_async()))
		return uncancelled(sym, fmt, ap, caller);
	if (unlikely(pks_ctl_asked()))
		pks_control_apply();	/* printk-shim(7) RUNTIME CONTROL */
	if (unlikely(!fmt)) {
		ret = 0;
	} else if (unlikely(c->set.disable)) {
		ret = forward(c, sym, fmt, ap);
	} else if (unlikely(pks_rules_any(&c->dd)) && claimed(c, sym, fmt, ap, caller, &ret)) {
		/* printed decorated, or its line dropped */
	} else {
		ret = usual(c, pks_ctx_enter(), fmt, ap, caller);
	}
	*err = saved;
	return ret;
}

/* The first call (or the first few, racing): reached, then emit(). */
static __attribute__((noinline)) int first(const struct pks_sym *sym, const char *fmt, va_list ap,
					   const void *caller)
{
	int *err = &errno, saved = *err;	/* the report may write */

	/* no pair: a flag read at exit by pks_report_unreached(), no data behind it */
	atomic_store_explicit(&reached, 1, memory_order_relaxed);
	pks_say_release();	/* the start-up words held for a line (init.c) */
	pks_drop_reached();
	pks_report_debug_once(pks_sym_table(sym));	/* before its line; another object's constructor may call first */
	*err = saved;
	return emit(sym, fmt, ap, caller);
}

/*
 * pks_emit()'s way for the drop states UNREACHED and HIDDEN (drop.h): the
 * first call, and every call of a program that runs ThreadSanitizer,
 * hidden from its runtime (base/tsan.h).
 */
static __attribute__((noinline)) int other(const struct pks_sym *sym, const char *fmt,
					   va_list ap, const void *caller, unsigned char from)
{
	int ret;

	pks_tsan_hide();
	ret = from == PKS_DROP_UNREACHED ? first(sym, fmt, ap, caller) : emit(sym, fmt, ap, caller);
	pks_tsan_show();
	return ret;
}

/*
 * A line whose KERN_<N> marker the level filter drops, outside the
 * deferred ring, in a thread with no line open: when filter() noted its
 * format (remember()), counted from the node's copy of its shape, with
 * neither the marker nor the shape read again; else as pks_emit() goes on.
 * As in filter(), nothing is owned nor touched, and the slot is looked at
 * again before the count.
 */
static __attribute__((noipa)) int dropped(const struct pks_sym *sym, const char *fmt,
					 va_list ap, const void *caller)
{
	struct pks_node *n = pks_thread.self;
	/* as in filter(): what the end reads again waits in memory */
	const struct pks_sym *volatile by = sym;
	const char *volatile again = fmt;
	const void *volatile at = caller;
	const struct pks_seen *e;
	struct pks_seen v;
	const uint64_t *r;
	const char *p;
	bool drop;
	size_t i;
	int len;

	if (likely(n) && likely(!pks_thread.away) &&
	    (likely((e = &n->seen[i = pks_shape_slot(fmt, PKS_SEEN)])->fmt == fmt) ||
	     (e = &n->seen[i ^ 1])->fmt == fmt) &&
	    pks_line_idle(&n->ctx[0].line)) {
		v = *e;
		/*
		 * The copy is whole when the slot is still @fmt's: pairs with
		 * seen_put()'s, in a handler that came meanwhile.
		 */
		atomic_signal_fence(memory_order_seq_cst);
		if (likely(e->fmt == fmt) && likely(pks_va_regs(ap, v.nconv, &r)) &&
		    likely((len = pks_tally_walk(v.ops, v.lit, NULL, r, true, true)) >= 0))
			return len - 1;		/* the newline not counted */
	}
	fmt = again;
	/* its digit is dropped: what else pks_emit()'s quick_mark() asks */
	if ((p = quick_mark(fmt, '0', &drop)))
		return filter(p, fmt, ap, at, true);
	return emit(by, fmt, ap, at);
}

/**
 * pks_emit() - everything one printk call does
 * @sym: the entry point called (entry.c's pks_syms[]), for the pass-through
 * @caller: return address in the caller, for PRINTK_SHIM_LINT
 * Return: bytes of text stored for this call (markers and the final newline
 * not counted), as the kernel's printk returns. errno is left unchanged.
 */
PKS_HOT int pks_emit(const struct pks_sym *sym, const char *fmt, va_list ap, const void *caller)
{
	/* no pair: the quick tests' state (config/drop.c), no data behind it */
	unsigned char from = atomic_load_explicit(&pks_drop_from, memory_order_relaxed);
	const char *p;
	bool ring, drop;

	/* two compares while nothing is dropped nor deferred; else a look at the marker */
	if (unlikely(from <= '7')) {
		/* a request of printk-shim --pid is applied the usual way (emit()) */
		if (likely(fmt) && likely(!pks_ctl_asked())) {
			ring = from < '0';
			/* a digit from @from to '7': a marker dropped, outside the ring */
			if (!ring && fmt[0] == '\001' && (unsigned char)fmt[1] >= from &&
			    likely(fmt[1] <= '7'))
				return dropped(sym, fmt, ap, caller);
			if ((p = quick_mark(fmt, ring ? from + PKS_DROP_RING : from, &drop))) {
				if (drop)
					return filter(p, fmt, ap, caller, !ring && p != fmt);
				if (ring)
					return ringed(p, fmt, ap, caller);
			} else if (ring && (p = quick_cont(fmt))) {
				return appended(p, fmt, ap, caller);
			}
		}
	} else if (unlikely(from >= PKS_DROP_UNREACHED)) {
		return other(sym, fmt, ap, caller, from);
	}
	return emit(sym, fmt, ap, caller);
}

/** pks_emit_reached() - Return: whether any printk call reached the shim. */
bool pks_emit_reached(void)
{
	/* no pair: a flag, as first()'s store */
	return atomic_load_explicit(&reached, memory_order_relaxed);
}
