// SPDX-License-Identifier: MIT
/*
 * Line assembly. A fragment's text (markers already removed) is appended to
 * the context's open line; each '\n' completes a line, and a line that
 * outgrows the buffer is handed out in pieces of the buffer's size, all at
 * the line's level. Nothing is dropped. The buffer is the kernel's seq_buf,
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
	l->level = 0;
	l->t_ns = 0;
}

/* Append @n bytes without a newline; a full buffer goes out as a piece. */
static void append(struct pks_line *l, const char *s, size_t n, pks_line_out *out, void *arg)
{
	while (n) {
		size_t room = seq_buf_buffer_left(&l->sb);
		size_t take;

		if (!room) {
			pks_line_emit(l, out, arg);
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
		pks_line_emit(l, out, arg);
		s = nl + 1;
		n -= run + 1;
		l->open = n > 0;
	}
}

/** pks_line_drop() - forget the open line (a forked child's inherited one) */
void pks_line_drop(struct pks_line *l)
{
	seq_buf_clear(&l->sb);
	l->open = false;
}
