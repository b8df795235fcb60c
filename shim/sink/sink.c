// SPDX-License-Identifier: MIT
/*
 * Fan-out: each complete line, if its level passes PRINTK_SHIM_LEVEL, goes
 * to every configured output in order, rendered for that output and written
 * with one write(2). The prefix is rendered into the head room that every
 * line buffer keeps before its text and the suffix after it, so no line is
 * copied. A line no output could take is counted and reported (once when
 * it happens, and with the count at exit): nothing is lost silently.
 * Thread-safety: called by the context's owner; the counters are atomic.
 */
#include "sink/sink.h"
#include "base/compiler.h"
#include "base/clock.h"
#include "base/fdio.h"
#include "base/pid.h"
#include "base/say.h"
#include "config/config.h"
#include "core/level.h"
#include "ctl/ctl.h"
#include "ctl/record.h"
#include "core/render.h"
#include "core/json.h"
#include "elf/name.h"
#include "sink/batch.h"
#include "sink/file.h"
#include "sink/journal.h"
#include "sink/syslog.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static _Atomic uint64_t kmsg_seq;	/* the next kmsg line's number */
static _Atomic uint64_t kmsg_turn;	/* the number whose line goes out now */
PKS_TLS unsigned char pks_sink_windows;	/* sink.h */
static PKS_TLS uint64_t kmsg_held;	/* 1 + the number this thread took and has not written */
static _Atomic unsigned long lost[PKS_OUTPUTS_MAX];
static _Atomic int lost_errno[PKS_OUTPUTS_MAX];

/* How an output is called in a warning: "stderr", "syslog", "fd:3", a path. */
static const char *name_of(const struct pks_config *c, int i, char *buf, size_t size)
{
	const struct pks_out *o = &c->out[i];

	switch (o->kind) {
	case PKS_OUT_FILE:
		return c->set.outputs[o->spec].path;
	case PKS_OUT_FD:
		snprintf(buf, size, "fd:%d", o->fd);
		return buf;
	case PKS_OUT_SYSLOG:
		return "syslog";
	case PKS_OUT_JOURNAL:
		return "journal";
	default:
		return "stderr";
	}
}

/* @k lines lost by output @i to @err; the first loss is told now, unless @later (at exit only). */
static void count_lost(const struct pks_config *c, int i, unsigned long k, int err, bool later)
{
	char buf[16];

	PKS_WARN_ON_ONCE(i < 0 || i >= c->nout);
	pks_ctl_lost(i, k, err);
	/* pairs with pks_sink_report_lost()'s loads: the count, then the first errno */
	if (atomic_fetch_add(&lost[i], k) == 0) {
		atomic_store(&lost_errno[i], err);
		if (!later)
			pks_warn("output %d (%s): %s; its lines are being lost", i + 1,
				 name_of(c, i, buf, sizeof(buf)), pks_strerror(err));
	}
}

/**
 * pks_sink_failed() - @k lines for output @i were lost to @err in a batch
 * (struct pks_fd_batch's failed(): the deferred printer's); told at exit
 * only when @later
 */
void pks_sink_failed(int i, unsigned long k, int err, bool later)
{
	const struct pks_config *c = pks_config();

	if (i >= 0 && i < c->nout && k)
		count_lost(c, i, k, err, later);
}

/** pks_sink_report_lost() - at exit: how many lines each output lost, and why */
void pks_sink_report_lost(void)
{
	const struct pks_config *c = pks_config();
	char buf[16];

	for (int i = 0; i < c->nout; i++) {
		/* pairs with count_lost()'s read-modify-write and store */
		unsigned long n = atomic_load(&lost[i]);

		if (!n)
			continue;
		/* pairs with count_lost()'s store, as n */
		pks_warn("output %d (%s): %lu line%s lost (%s)", i + 1,
			 name_of(c, i, buf, sizeof(buf)), n, n == 1 ? "" : "s",
			 pks_strerror(atomic_load(&lost_errno[i])));
	}
}

/**
 * pks_sink_func() - the name of the function at @site, for the formats and
 * outputs that show it; remembered per writer, since elf/name.c walks
 * symbol tables, and never looked up in a handler, since dladdr() takes the
 * dynamic linker's lock, and looked up again once an object was closed
 * (pks_elf_era()). The deferred printer's writer is told its name, from
 * the record, and never looks.
 */
const char *pks_sink_func(struct pks_writer *w, const void *site)
{
	struct pks_elf_name n;
	unsigned int era;

	if (!site)
		return NULL;
	if (w->replay)	/* the printer's: the name its caller looked up */
		return w->func[0] ? w->func : NULL;
	era = pks_elf_era();
	/* an object closed since: the address may be another's now */
	if (site != w->site || era != w->era) {
		if (w->in_handler)
			return NULL;
		w->site = site;
		w->era = era;
		w->func[0] = '\0';
		if (pks_elf_name(site, &n) && n.name)
			strncat(w->func, n.name, sizeof(w->func) - 1);
	}
	return w->func[0] ? w->func : NULL;
}

/** pks_sink_wants_func() - Return: whether a line's caller is shown (JSON, syslog, the journal). */
bool pks_sink_wants_func(const struct pks_config *c)
{
	return c->format == PKS_LINE_JSON || pks_batch_daemons(c) > 0;
}

/**
 * pks_sink_on_fds() - Return: whether a line may go to one of the program's
 * descriptors @lo to @hi: an stderr or fd: output's, or 2, where a line
 * that a file or a daemon refuses goes (fall_back())
 */
bool pks_sink_on_fds(const struct pks_config *c, int lo, int hi)
{
	if (lo <= 2 && hi >= 2)
		return true;
	for (int i = 0; i < c->nout; i++)
		if (c->out[i].kind != PKS_OUT_FILE && c->out[i].fd >= lo && c->out[i].fd <= hi)
			return true;
	return false;
}

/**
 * pks_sink_moved() - whether a file: output's path, checked when due, names
 * another file now (a rotation): pks_file_moved(), for the deferred ring's
 * callers, whose printer does not follow paths itself
 */
bool pks_sink_moved(const struct pks_config *c)
{
	return pks_file_moved(c);
}

/** pks_sink_follow() - the file: outputs whose paths moved open them again (pks_file_follow()) */
void pks_sink_follow(const struct pks_config *c)
{
	pks_file_follow(c);
}

/** pks_sink_has_file() - Return: whether a line goes to a file: output. */
bool pks_sink_has_file(const struct pks_config *c)
{
	for (int i = 0; i < c->nout; i++)
		if (c->out[i].kind == PKS_OUT_FILE)
			return true;
	return false;
}

/**
 * pks_sink_fd_closed() - Return: whether the descriptor of an stderr or
 * fd: output is closed now, so that a line written to it would be lost
 * (EBADF). errno is kept.
 */
bool pks_sink_fd_closed(const struct pks_config *c)
{
	int saved = errno;
	bool closed = false;

	for (int i = 0; i < c->nout && !closed; i++)
		closed = (c->out[i].kind == PKS_OUT_STDERR || c->out[i].kind == PKS_OUT_FD) &&
			 fcntl(c->out[i].fd, F_GETFD) < 0 && errno == EBADF;
	errno = saved;
	return closed;
}

/* Bytes of a line to @fd: into the batch, if there is one, else written now. */
/* always inline: pks_fd_write()'s look for a stump made GCC call it, 14 instructions a line */
static inline __attribute__((always_inline)) int put(const struct pks_sink_batch *b, int fd,
						     int tag, const char *p, size_t n)
{
	if (unlikely(b && b->fd))
		return pks_batch_put(b->fd, fd, tag, p, n);
	return pks_fd_write(fd, p, n);
}

/* One line for output @i to one descriptor, in @r's format. Return: 0 or an errno. */
static int to_fd(const struct pks_writer *w, struct pks_line *l, int i, int fd,
		 struct pks_render *r, const struct pks_sink_batch *b)
{
	char head[PKS_HEAD_MAX];
	char *text = l->sb.buffer;
	size_t n = seq_buf_used(&l->sb), hn, tn;

	if (r->format == PKS_LINE_KMSG && w->render)
		return put(b, fd, i, w->render, pks_render_kmsg(w->render, r, text, n));
	if (r->format == PKS_LINE_JSON && w->render)
		return put(b, fd, i, w->render, pks_json_line(w->render, r, text, n));
	hn = pks_render_prefix(head, r);
	memcpy(text - hn, head, hn);
	tn = pks_render_suffix(text + n, r);
	return put(b, fd, i, text - hn, hn + n + tn);
}

/* Output @i's message into the batch @b. Return: whether it took it. */
static bool queue(const struct pks_config *c, const struct pks_out *o, int i,
		  const struct pks_meta *m, const char *text, size_t n, struct pks_dgrams *b)
{
	char *at = b->buf + b->used;
	size_t room = b->cap - b->used, len;

	if (b->n == PKS_DGRAMS_MAX)
		return false;
	if (o->kind == PKS_OUT_JOURNAL)
		len = pks_journal_render(c, m, text, n, at, room);
	else
		len = pks_syslog_render(c, m, text, n, at, room);
	if (!len)
		return false;
	b->m[b->n++] = (struct pks_dgram){ i, b->key, b->seq, b->used, len, false };
	b->used += len;
	return true;
}

/*
 * @w's process. A vfork child's is asked: the cache (base/pid.c) lies in
 * the memory it shares with its parent, and holds the parent's pid.
 */
static inline pid_t writer_pid(const struct pks_writer *w)
{
	return unlikely(w->borrowed) ? getpid() : pks_pid();
}

/*
 * A line for a daemon's socket, output @i; with a batch, into it when
 * there is room (see pks_batch_dg_room()).
 * Return: 0 delivered or queued, -1 not (it goes to stderr).
 */
static int to_daemon(const struct pks_config *c, const struct pks_out *o, int i,
		     struct pks_writer *w, struct pks_line *l, const struct pks_sink_batch *b)
{
	struct pks_meta m = { l->level, writer_pid(w), w->tid, pks_sink_func(w, l->site),
			      !w->in_handler, !w->in_handler || w->dying };
	const char *text = l->sb.buffer;
	size_t n = seq_buf_used(&l->sb);

	if (unlikely(b && b->dg) && queue(c, o, i, &m, text, n, b->dg))
		return 0;
	if (o->kind == PKS_OUT_JOURNAL)
		return pks_journal_line(c, &m, text, n);
	return pks_syslog_line(c, &m, text, n);
}

/* What a JSON line says beyond the other formats. */
static void json(const struct pks_config *c, struct pks_writer *w, const struct pks_line *l,
		 struct pks_render *r)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	r->t_real_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	r->pid = writer_pid(w);
	r->ident = c->ident;
	r->func = pks_sink_func(w, l->site);
	r->utc = &w->utc;
}

/*
 * A line output @i could not take, to stderr, unless stderr has it already:
 * it is an output itself (under any name), or another output fell back
 * (*@told). Return: 0 or an errno.
 */
static int fall_back(const struct pks_writer *w, struct pks_line *l, int i,
		     struct pks_render *r, bool *told, const struct pks_sink_batch *b)
{
	if (*told)
		return 0;
	/* no pair: as pks_say()'s load */
	if (unlikely(atomic_load_explicit(&pks_say_muted, memory_order_relaxed)))
		return EBADF;	/* not into what the program opened on 2 */
	*told = true;
	r->color = false;
	return to_fd(w, l, i, 2, r, b);
}

/*
 * One line to file: output @i, on a descriptor still ours; to stderr once
 * the output fell back (fall_back()).
 */
static int to_file(const struct pks_config *c, int i, const struct pks_writer *w,
		   struct pks_line *l, struct pks_render *r, bool *told, const struct pks_sink_batch *b)
{
	int fd = pks_file_fd(c, i, w->replay, w->borrowed), err;

	if (likely(fd >= 0)) {
		err = to_fd(w, l, i, fd, r, b);
		if (likely(err != EBADF))
			return err;
		fd = pks_file_gone(c, i, fd);
		if (fd >= 0)
			return to_fd(w, l, i, fd, r, b);
	}
	return fall_back(w, l, i, r, told, b);
}

/*
 * The one descriptor of the only output, when its lines are the text and a
 * newline (FORMAT=plain, no time, caller or colour); else -1.
 */
static inline int plain_fd(const struct pks_config *c)
{
	const struct pks_out *o = &c->out[0];

	if (c->nout != 1 || o->kind == PKS_OUT_FILE || o->fd < 0 || o->color ||
	    c->format != PKS_LINE_PLAIN || c->set.time || c->set.caller)
		return -1;
	return o->fd;
}

/**
 * pks_sink_plain() - whether batch @b takes lines made in place, at
 * pks_batch_room(): when their one output writes the text as it lies (the
 * plain format to a descriptor), which is what pks_sink_line() would put
 * there for a line the level lets through, its newline after it
 * Return: the descriptor, or -1: lines go through pks_sink_line().
 */
int pks_sink_plain(const struct pks_sink_batch *b)
{
	return b && b->fd && b->only < 0 ? plain_fd(pks_config()) : -1;
}

/* @seq's line is written: the next number's turn, unless a later one's came already. */
static void kmsg_done(uint64_t seq)
{
	/* no pair: the compare-exchange reads what it replaces */
	uint64_t t = atomic_load_explicit(&kmsg_turn, memory_order_relaxed);

	/* release: pairs with kmsg_wait()'s acquire */
	while (t <= seq && !atomic_compare_exchange_weak_explicit(&kmsg_turn, &t, seq + 1,
			memory_order_release, memory_order_relaxed))
		;
}

#define KMSG_WAIT_NS	50000000	/* a kmsg line waits this long at most for the one before */

/*
 * A kmsg line's number, @seq, has its turn: lines go out in their numbers'
 * order, as /dev/kmsg's readers expect (printk-shim(7) FORMATS), though a
 * thread may be preempted between taking its number and writing. A line
 * whose number was taken and never written (its thread stopped or
 * cancelled) holds the others KMSG_WAIT_NS at most; a handler's line does
 * not wait, nor the deferred printer's, which takes numbers alone. This
 * thread's own number not written yet (a call left by siglongjmp, or one a
 * handler the module does not wrap interrupted) is given up first: it
 * would wait for itself.
 */
static void kmsg_wait(uint64_t seq)
{
	uint64_t until = 0;

	if (kmsg_held)
		kmsg_done(kmsg_held - 1);
	kmsg_held = seq + 1;
	/* acquire: pairs with kmsg_done()'s release, the line before written */
	while (atomic_load_explicit(&kmsg_turn, memory_order_acquire) < seq) {
		if (!until)
			until = pks_now_ns() + KMSG_WAIT_NS;
		else if (pks_now_ns() > until)
			return;
		sched_yield();
	}
}


/**
 * pks_sink_forked() - in a fork child, which has one thread: the numbers
 * other threads took are never written here, so the next one's turn is now;
 * a stump another thread was ending is the child's to end (base/fdio.c)
 */
void pks_sink_forked(void)
{
	/* no pair: one thread */
	atomic_store_explicit(&kmsg_turn, atomic_load_explicit(&kmsg_seq, memory_order_relaxed),
			      memory_order_relaxed);
	pks_fd_forked();
}

#define DONE_TOLD	(1u << PKS_OUTPUTS_MAX)	/* struct pks_line's done: stderr took a fallback */
_Static_assert(DONE_TOLD <= UINT16_MAX, "struct pks_line's done holds every output and stderr");

/*
 * Output @i is done with @l (and stderr has it, if @told), in a handing
 * that a cut may leave to be redone (pks_line_emit(), pks_line_again()):
 * the redo passes it by, so that a line an output took whole is not
 * written there again because a later output blocked (a full pipe, a
 * stopped daemon) and was cut off there.
 */
static inline void done_with(struct pks_line *l, int i, bool told)
{
	if (l->sent != 1)
		return;		/* the printer's line, or the redo itself */
	/* pairs with pks_line_cut()'s fence: a handler that sees the bit sees the write over */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	l->done |= (uint16_t)(1u << i | (told ? DONE_TOLD : 0));
}

/* @l into the record buffer (printk-shim(7) RECORD BUFFER); @hidden: no output writes it. */
static void record(struct pks_line *l, const struct pks_writer *w, bool hidden)
{
	pks_rec_put(l->level == PKS_LEVEL_OFF ? PKS_LEVEL_MAX : l->level, l->sb.buffer,
		    seq_buf_used(&l->sb), w->tid, l->t_ns,
		    (hidden ? PKS_REC_HIDDEN : 0) | (l->cont ? PKS_REC_CONT : 0));
}

/**
 * pks_sink_line() - a complete line (or a piece of a long one) leaves
 * @w: what the outputs need of @l's writer
 * @b: the batch to put it in, or NULL: written now
 */
PKS_HOT void pks_sink_line(struct pks_line *l, struct pks_writer *w, const struct pks_sink_batch *b)
{
	const struct pks_config *c = pks_config();
	struct pks_render r;
	int err, fd, only;
	bool told, turn;

	if (unlikely(pks_rec_on) && !w->replay)
		record(l, w, l->level > c->set.level);
	/* the printer's line passed the filter at its call, before any change since */
	if (l->level > c->set.level && !w->replay)
		return;
	if (likely((fd = plain_fd(c)) >= 0)) {
		/* The newline goes in the tail room; the line is written as it lies. */
		l->sb.buffer[seq_buf_used(&l->sb)] = '\n';
		err = put(b, fd, 0, l->sb.buffer, seq_buf_used(&l->sb) + 1);
		if (unlikely(err))
			count_lost(c, 0, 1, err, false);
		return;
	}
	r = (struct pks_render){
		.format = c->format, .time = c->set.time, .caller = c->set.caller,
		.level = l->level, .cont = l->cont, .t_ns = l->t_ns, .tid = w->tid,
	};
	only = b ? b->only : -1;
	turn = c->format == PKS_LINE_KMSG && only < 0 && !b && !w->in_handler;
	if (c->format == PKS_LINE_KMSG && only >= 0)
		r.seq = b->seq;		/* a redo: the number the line first had */
	else if (c->format == PKS_LINE_KMSG)
		/* no pair: a number, unique by the read-modify-write alone */
		r.seq = atomic_fetch_add_explicit(&kmsg_seq, 1, memory_order_relaxed);
	if (turn)
		kmsg_wait(r.seq);
	if (b && b->dg)
		b->dg->seq = r.seq;
	if (c->format == PKS_LINE_JSON)
		json(c, w, l, &r);
	told = c->has_stderr || (b && b->told && *b->told) || (l->done & DONE_TOLD);
	for (int i = 0; i < c->nout; i++) {
		const struct pks_out *o = &c->out[i];

		if (unlikely(only >= 0) && i != only)
			continue;
		if (unlikely(l->done & 1u << i))
			continue;	/* it took the line before the cut this pass redoes */
		r.color = o->color;
		if (o->kind == PKS_OUT_FILE) {
			err = to_file(c, i, w, l, &r, &told, b);
		} else if (o->fd < 0) {
			err = to_daemon(c, o, i, w, l, b) ? fall_back(w, l, i, &r, &told, b) : 0;
		} else {
			err = to_fd(w, l, i, o->fd, &r, b);
		}
		if (unlikely(err))
			count_lost(c, i, 1, err, false);
		done_with(l, i, told);
	}
	if (c->format == PKS_LINE_KMSG && only < 0)
		kmsg_done(r.seq);
	if (turn)
		kmsg_held = 0;
	if (b && b->told)
		*b->told = told;
	if (b && b->dg && told)
		pks_batch_dg_told(b->dg);	/* this pass wrote it there, or stderr is an output */
}

/**
 * pks_sink_thread_gone() - this thread ends (ctx/ctx.c), maybe cancelled
 * in an output's send: what that send holds given back
 */
void pks_sink_thread_gone(void)
{
	pks_syslog_gone();
}
