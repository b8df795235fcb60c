/* SPDX-License-Identifier: MIT */
/*
 * One context's open line on a seq_buf, cut into complete lines and into
 * pieces of at most the seq_buf's size. What happens to a complete line is
 * the caller's @out callback; this file knows nothing of outputs or threads.
 */
#ifndef PKS_LINEBUF_H
#define PKS_LINEBUF_H

#include "base/compiler.h"
#include <linux/pks_seq_buf.h>	/* not seq_buf.h: no printk, no constructor */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct pks_line {
	struct seq_buf sb;	/* text of the open line; size is LINE_MAX */
	int level;		/* level of the line's first fragment */
	bool open;		/* a line was started and has not ended */
	unsigned char sent;	/* times the text was handed to @out: more than 0 only after a cut */
	bool cont;		/* it was started by an orphan KERN_CONT */
	uint16_t done;		/* @out's own: where the text went whole in this handing; else 0 */
	bool parted;		/* a piece of it went out: it is longer than the buffer */
	bool shed;		/* a full deferred ring dropped its first piece: and the rest */
	uint64_t t_ns;		/* CLOCK_MONOTONIC when it started, or 0 */
	const void *site;	/* the call that started it, for the journal; or NULL */
};

typedef void pks_line_out(struct pks_line *l, void *arg);

void pks_line_init(struct pks_line *l, char *buf, size_t size);
void pks_line_feed(struct pks_line *l, const char *s, size_t n, pks_line_out *out, void *arg);
void pks_line_drop(struct pks_line *l);
void pks_line_cut(struct pks_line *l);

/*
 * pks_line_idle() - Return: whether @l holds nothing: no line open, and
 * nothing a cut left for pks_line_close(). One load of both bytes.
 */
static inline bool pks_line_idle(const struct pks_line *l)
{
	uint16_t both;

	_Static_assert(offsetof(struct pks_line, sent) == offsetof(struct pks_line, open) + 1,
		       "open and sent are one word");
	memcpy(&both, &l->open, sizeof(both));
	return both == 0;
}

/* Inline below: each line runs them. */
static inline void pks_line_start(struct pks_line *l, int level, bool cont, uint64_t t_ns)
{
	seq_buf_clear(&l->sb);
	l->level = level;
	l->cont = cont;
	l->t_ns = t_ns;
	l->site = NULL;
	l->sent = 0;
	l->done = 0;
	l->parted = false;
	l->shed = false;
	l->open = true;
}

/*
 * The facts of a whole line that is handed on as it is, never kept here
 * (a deferred line stored as its arguments): a line closed and with
 * nothing sent stays so, and the next start overwrites them.
 */
static inline void pks_line_head(struct pks_line *l, int level, uint64_t t_ns, const void *site)
{
	l->level = level;
	l->cont = false;
	l->t_ns = t_ns;
	l->site = site;
}

/*
 * The line (or a piece of it) to @out; the buffer is empty after. A call
 * cut off in @out (a handler left by siglongjmp) leaves l->sent counting
 * the tries, and l->done what @out noted it finished, for the next try;
 * pks_line_cut() decides what becomes of the text. The fences keep the
 * stores on either side of @out in program order for a handler on this
 * thread; they pair with the one in pks_line_cut().
 */
static inline void pks_line_emit(struct pks_line *l, pks_line_out *out, void *arg)
{
	l->sent++;
	/* pairs with a handler of this thread reading sent: set before the write */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	out(l, arg);
	seq_buf_clear(&l->sb);
	/* pairs with that handler, too: the buffer cleared before sent and done are */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	l->done = 0;
	l->sent = 0;
}

/*
 * pks_line_taken() - the line handed out is out for good (it went into the
 * deferred ring, or was counted dropped): a cut from now on, before
 * pks_line_emit() clears it, never hands it out again (pks_line_cut()).
 */
static inline void pks_line_taken(struct pks_line *l)
{
	/* pairs with pks_line_cut()'s fence: a handler on this thread sees it */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	l->sent = 2;
}

/* Whether a cut left text handed out once to be written again (pks_line_cut()). */
static inline bool pks_line_again(struct pks_line *l)
{
	return l->sent == 1 && seq_buf_used(&l->sb);
}

/*
 * pks_line_close() - hand out the open line as it stands (a newline is
 * implied), or a finished one a cut left to be written again
 */
static inline void pks_line_close(struct pks_line *l, pks_line_out *out, void *arg)
{
	if (!l->open && !pks_line_again(l))
		return;
	l->open = false;
	pks_line_emit(l, out, arg);
}

/**
 * pks_line_end() - where a fragment can be written in place: the end of the
 * open line, with *@room bytes before the buffer's end
 */
static inline char *pks_line_end(struct pks_line *l, size_t *room)
{
	PKS_WARN_ON_ONCE(l->sb.len > l->sb.size);
	*room = l->sb.size - l->sb.len;		/* a line never overflows its seq_buf */
	return l->sb.buffer + l->sb.len;
}

/**
 * pks_line_took() - the @n bytes written at pks_line_end() join the line
 * @nl: the last of them is a newline, the only one among them; the line
 *	goes to @out without it
 */
static inline void pks_line_took(struct pks_line *l, size_t n, bool nl, pks_line_out *out,
				 void *arg)
{
	l->sb.len += n - nl;
	if (nl) {
		l->open = false;	/* ended before the write: see pks_line_cut() */
		pks_line_emit(l, out, arg);
	}
}

#endif
