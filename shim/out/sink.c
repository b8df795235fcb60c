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
#include "out/sink.h"
#include "base/compiler.h"
#include "base/fdio.h"
#include "base/pid.h"
#include "base/say.h"
#include "config/config.h"
#include "ctl/ctl.h"
#include "ctl/record.h"
#include "core/render.h"
#include "elf/name.h"
#include "out/defer.h"
#include "out/file.h"
#include "out/journal.h"
#include "out/syslog.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static _Atomic uint64_t kmsg_seq;
static _Atomic unsigned long lost[PKS_OUTPUTS_MAX];
static _Atomic int lost_errno[PKS_OUTPUTS_MAX];

PKS_TLS struct pks_dgrams *pks_sink_dgrams;
PKS_TLS int pks_sink_only = -1;

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

static void count_lost(const struct pks_config *c, int i, unsigned long k, int err)
{
	char buf[16];

	pks_ctl_lost(i, k, err);
	if (atomic_fetch_add(&lost[i], k) == 0) {
		atomic_store(&lost_errno[i], err);
		pks_warn("output %d (%s): %s; its lines are being lost", i + 1,
			 name_of(c, i, buf, sizeof(buf)), pks_strerror(err));
	}
}

/**
 * pks_sink_failed() - @k lines for output @i were lost to @err in a batch
 * (struct pks_fd_batch's failed(): the deferred printer's)
 */
void pks_sink_failed(int i, unsigned long k, int err)
{
	const struct pks_config *c = pks_config();

	if (i >= 0 && i < c->nout && k)
		count_lost(c, i, k, err);
}

/** pks_sink_daemons() - Return: how many outputs pks_sink_dgrams takes messages for. */
int pks_sink_daemons(const struct pks_config *c)
{
	int k = 0;

	for (int i = 0; i < c->nout; i++)
		k += c->out[i].kind == PKS_OUT_SYSLOG || c->out[i].kind == PKS_OUT_JOURNAL;
	return k;
}

/**
 * pks_sink_dgrams_room() - Return: whether @b has room for every daemon
 * output's message of a line of @n bytes; if not, flush @b first, and a
 * line that still does not fit goes the usual way.
 */
bool pks_sink_dgrams_room(const struct pks_dgrams *b, size_t n)
{
	enum { HEAD_ROOM = 1024 };	/* more than syslog's or the journal's fields */

	return b->n + b->daemons <= PKS_DGRAMS_MAX &&
	       b->cap - b->used >= (size_t)b->daemons * (HEAD_ROOM + n);
}

/**
 * pks_sink_dgrams_flush() - send what @b holds, one sendmmsg(2) per output
 * where it can; each message that did not go, in order, to @b->redo
 */
void pks_sink_dgrams_flush(struct pks_dgrams *b)
{
	const struct pks_config *c = pks_config();
	struct mmsghdr v[PKS_DGRAMS_MAX];
	struct iovec iov[PKS_DGRAMS_MAX];
	int at[PKS_DGRAMS_MAX];

	for (int i = 0; i < c->nout && b->n; i++) {
		unsigned int k = 0, sent;

		for (int j = 0; j < b->n; j++) {
			if (b->m[j].out != i)
				continue;
			iov[k] = (struct iovec){ b->buf + b->m[j].off, b->m[j].len };
			v[k] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[k], .msg_iovlen = 1 } };
			at[k++] = j;
		}
		if (!k)
			continue;
		if (c->out[i].kind == PKS_OUT_JOURNAL)
			sent = pks_journal_send_many(c, v, k);
		else
			sent = pks_syslog_send_many(c, v, k);
		while (sent < k)
			b->redo(b->m[at[sent++]].key, i);
	}
	b->n = 0;
	b->used = 0;
}

/** pks_sink_report_lost() - at exit: how many lines each output lost, and why */
void pks_sink_report_lost(void)
{
	const struct pks_config *c = pks_config();
	char buf[16];

	for (int i = 0; i < c->nout; i++) {
		unsigned long n = atomic_load(&lost[i]);

		if (n)
			pks_warn("output %d (%s): %lu line%s lost (%s)", i + 1,
				 name_of(c, i, buf, sizeof(buf)), n, n == 1 ? "" : "s",
				 pks_strerror(atomic_load(&lost_errno[i])));
	}
}

/*
 * The name of the function at @site, for the formats and outputs that show
 * it; remembered per writer, since elf/name.c walks symbol tables, and never
 * looked up in a handler, since dladdr() takes the dynamic linker's lock.
 */
static const char *func_of(struct pks_writer *w, const void *site)
{
	struct pks_elf_name n;

	if (!site || w->in_handler)
		return NULL;
	if (site != w->site) {
		w->site = site;
		w->func[0] = '\0';
		if (pks_elf_name(site, &n) && n.name)
			strncat(w->func, n.name, sizeof(w->func) - 1);
	}
	return w->func[0] ? w->func : NULL;
}

/* One line for output @i to one descriptor, in @r's format. Return: 0 or an errno. */
static int to_fd(const struct pks_writer *w, struct pks_line *l, int i, int fd,
		 struct pks_render *r)
{
	char head[PKS_HEAD_MAX];
	char *text = l->sb.buffer;
	size_t n = seq_buf_used(&l->sb), hn, tn;

	if (r->format == PKS_LINE_KMSG && w->render)
		return pks_fd_put(fd, i, w->render, pks_render_kmsg(w->render, r, text, n));
	if (r->format == PKS_LINE_JSON && w->render)
		return pks_fd_put(fd, i, w->render, pks_render_json(w->render, r, text, n));
	hn = pks_render_prefix(head, r);
	memcpy(text - hn, head, hn);
	tn = pks_render_suffix(text + n, r);
	return pks_fd_put(fd, i, text - hn, hn + n + tn);
}

/* Output @i's message into the printer's batch. Return: whether it took it. */
static bool queue(const struct pks_config *c, const struct pks_out *o, int i,
		  const struct pks_meta *m, const char *text, size_t n)
{
	struct pks_dgrams *b = pks_sink_dgrams;
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
	b->m[b->n++] = (struct pks_dgram){ i, b->key, b->used, len };
	b->used += len;
	return true;
}

/*
 * A line for a daemon's socket, output @i; with the printer's batch, into
 * it when there is room (see pks_sink_dgrams_room()).
 * Return: 0 delivered or queued, -1 not (it goes to stderr).
 */
static int to_daemon(const struct pks_config *c, const struct pks_out *o, int i,
		     struct pks_writer *w, struct pks_line *l)
{
	struct pks_meta m = { l->level, w->tid, func_of(w, l->site), !w->in_handler };
	const char *text = l->sb.buffer;
	size_t n = seq_buf_used(&l->sb);

	if (unlikely(pks_sink_dgrams) && queue(c, o, i, &m, text, n))
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
	r->pid = pks_pid();
	r->ident = c->ident;
	r->func = func_of(w, l->site);
	r->utc = &w->utc;
}

/*
 * A line output @i could not take, to stderr, unless stderr has it already:
 * it is an output itself (under any name), or another output fell back
 * (*@told). Return: 0 or an errno.
 */
static int fall_back(const struct pks_writer *w, struct pks_line *l, int i,
		     struct pks_render *r, bool *told)
{
	if (*told)
		return 0;
	*told = true;
	r->color = false;
	return to_fd(w, l, i, 2, r);
}

/*
 * One line to file: output @i, on a descriptor still ours; to stderr once
 * the output fell back (fall_back()).
 */
static int to_file(const struct pks_config *c, int i, const struct pks_writer *w,
		   struct pks_line *l, struct pks_render *r, bool *told)
{
	int fd = pks_file_fd(c, i), err;

	if (likely(fd >= 0)) {
		err = to_fd(w, l, i, fd, r);
		if (likely(err != EBADF))
			return err;
		fd = pks_file_gone(c, i, fd);
		if (fd >= 0)
			return to_fd(w, l, i, fd, r);
	}
	return fall_back(w, l, i, r, told);
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
 * pks_sink_line() - a complete line (or a piece of a long one) leaves
 * @writer: the struct pks_writer of @l's owner
 */
PKS_HOT void pks_sink_line(struct pks_line *l, void *writer)
{
	const struct pks_config *c = pks_config();
	struct pks_writer *w = writer;
	struct pks_render r;
	int err, fd, only;
	bool told;

	if (unlikely(pks_rec_on) && !w->replay)
		pks_rec_put(l->level, l->sb.buffer, seq_buf_used(&l->sb), w->tid, l->t_ns,
			    l->level > c->set.level);
	if (l->level > c->set.level)
		return;
	if (unlikely(c->set.defer) && pks_defer_line(l, w))
		return;		/* printk-shim(7) DEFERRED PRINTING */
	if (likely((fd = plain_fd(c)) >= 0)) {
		/* The newline goes in the tail room; the line is written as it lies. */
		l->sb.buffer[seq_buf_used(&l->sb)] = '\n';
		err = pks_fd_put(fd, 0, l->sb.buffer, seq_buf_used(&l->sb) + 1);
		if (unlikely(err))
			count_lost(c, 0, 1, err);
		return;
	}
	r = (struct pks_render){
		.format = c->format, .time = c->set.time, .caller = c->set.caller,
		.level = l->level, .cont = l->cont, .t_ns = l->t_ns, .tid = w->tid,
	};
	if (c->format == PKS_LINE_KMSG)
		r.seq = atomic_fetch_add_explicit(&kmsg_seq, 1, memory_order_relaxed);
	if (c->format == PKS_LINE_JSON)
		json(c, w, l, &r);
	only = pks_sink_only;
	told = c->has_stderr;
	for (int i = 0; i < c->nout; i++) {
		const struct pks_out *o = &c->out[i];

		if (unlikely(only >= 0) && i != only)
			continue;
		r.color = o->color;
		if (o->kind == PKS_OUT_FILE) {
			err = to_file(c, i, w, l, &r, &told);
		} else if (o->fd < 0) {
			if (!to_daemon(c, o, i, w, l))
				continue;
			err = fall_back(w, l, i, &r, &told);
		} else {
			err = to_fd(w, l, i, o->fd, &r);
		}
		if (unlikely(err))
			count_lost(c, i, 1, err);
	}
}
