// SPDX-License-Identifier: MIT
/*
 * Line assembly. A fragment's text (markers already removed) is appended to
 * the context's open line; each '\n' completes a line, and a line that
 * outgrows the buffer is handed out in pieces of the buffer's size (less
 * the start of a UTF-8 character cut at its end), all at the line's level.
 * Nothing is dropped. The buffer is the kernel's seq_buf,
 * from include/linux/seq_buf.h, the same code the ported program can use.
 * Thread-safety: none; one context owns a line at a time (see emit.c).
 */
#include "core/linebuf.h"

#include <string.h>

void pks_line_init(struct pks_line *l, char *buf, size_t size)
{
	seq_buf_init(&l->sb, buf, (unsigned int)size);
	l->open = false;
	l->cont = false;
	l->sent = 0;
	l->done = 0;
	l->parted = false;
	l->shed = false;
	l->level = 0;
	l->t_ns = 0;
}

/*
 * How many bytes at the end of @l's full buffer start a UTF-8 character
 * that does not end there: they open the next piece, so that no piece
 * splits one. None when the piece would keep nothing, or the bytes are not
 * the start of a valid character (a lead byte C2 to F4).
 */
static size_t unfinished(const struct pks_line *l)
{
	const unsigned char *p = (const unsigned char *)l->sb.buffer;

	for (size_t k = 1; k <= 3 && k < l->sb.len; k++) {
		unsigned char b = p[l->sb.len - k];

		if ((b & 0xc0) == 0x80)
			continue;
		if (b < 0xc2 || b > 0xf4)
			return 0;
		return (size_t)(b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2) > k ? k : 0;
	}
	return 0;
}

/* Append @n bytes without a newline; a full buffer goes out as a piece. */
static void append(struct pks_line *l, const char *s, size_t n, pks_line_out *out, void *arg)
{
	while (n) {
		size_t room = seq_buf_buffer_left(&l->sb);
		size_t take, k;
		char carry[3];

		if (!room) {
			k = unfinished(l);
			memcpy(carry, l->sb.buffer + l->sb.len - k, k);
			l->sb.len -= (unsigned int)k;
			pks_line_emit(l, out, arg);
			l->parted = true;	/* a piece: the line goes on */
			seq_buf_putmem(&l->sb, carry, (unsigned int)k);
			room = seq_buf_buffer_left(&l->sb);
		}
		take = n < room ? n : room;
		seq_buf_putmem(&l->sb, s, (unsigned int)take);
		s += take;
		n -= take;
	}
}

/**
 * pks_line_feed() - append a fragment's text to the open line
 * Each '\n' hands the line to @out; the text after the last one stays open
 * at the same level. The line must have been started.
 */
void pks_line_feed(struct pks_line *l, const char *s, size_t n, pks_line_out *out, void *arg)
{
	while (n) {
		const char *nl = memchr(s, '\n', n);
		size_t run = nl ? (size_t)(nl - s) : n;

		append(l, s, run, out, arg);
		if (!nl)
			break;
		l->open = false;	/* ended before the write: see pks_line_cut() */
		pks_line_emit(l, out, arg);
		l->parted = false;	/* what follows is a line of its own */
		l->shed = false;
		s = nl + 1;
		n -= run + 1;
		l->open = n > 0;
	}
}

/**
 * pks_line_cut() - the call that owned @l never goes on (its handler was
 * left by siglongjmp, its thread cancelled)
 * A line ends before it is written, so a cut in the write never leaves it
 * open for the next fragment. Text cut off in its write may be out already
 * (a signal lands as write(2) returns), or not: it is written once more
 * (pks_line_close()), never a third time, so that a line comes out at most
 * twice and a single cut loses nothing (printk-shim(7) WHEN A LINE IS
 * WRITTEN). An open line left empty is dropped. Idempotent: a cut of this
 * very call, and its next run, decide the same.
 */
void pks_line_cut(struct pks_line *l)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* pairs with pks_line_emit()'s */
	if (l->sent > 1) {
		seq_buf_clear(&l->sb);
		/* cut here, the next run clears again: pairs with pks_line_emit()'s second */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		l->done = 0;
		l->sent = 0;
	}
	if (l->open && !seq_buf_used(&l->sb))
		l->open = false;
}

/** pks_line_drop() - forget the open line (a forked child's inherited one) */
void pks_line_drop(struct pks_line *l)
{
	seq_buf_clear(&l->sb);
	l->open = false;
	l->sent = 0;
	l->done = 0;
	l->parted = false;
	l->shed = false;
}
