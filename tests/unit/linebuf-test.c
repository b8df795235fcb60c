// SPDX-License-Identifier: MIT
/*
 * Unit tests of shim/core/linebuf.c: lines, pieces at size-1, size and size+1,
 * pieces that never split a UTF-8 character they can hold, embedded newlines, close and drop, a call cut off in its write. Complete
 * lines are collected as "<level>text|" so one string shows what went out
 * and in which order.
 */
#include "core/linebuf.h"
#include "tap.h"

#include <setjmp.h>
#include <stdio.h>

static char got[4096];
static size_t gotn;

static void out(struct pks_line *l, void *arg)
{
	(void)arg;
	gotn += (size_t)snprintf(got + gotn, sizeof(got) - gotn, "<%d>%.*s|", l->level,
				 (int)seq_buf_used(&l->sb), l->sb.buffer);
}

static jmp_buf cut;

/* An output whose write is cut off as it returns: the line is out, the call is gone. */
static void out_cut(struct pks_line *l, void *arg)
{
	out(l, arg);
	longjmp(cut, 1);
}

/* Feed @s to an output that cuts the call off, then take the line back. */
static void feed_cut(struct pks_line *l, const char *s)
{
	if (!setjmp(cut))
		pks_line_feed(l, s, strlen(s), out_cut, NULL);
	pks_line_cut(l);
}

static void close_cut(struct pks_line *l)
{
	if (!setjmp(cut))
		pks_line_close(l, out_cut, NULL);
	pks_line_cut(l);
}

static void feed(struct pks_line *l, const char *s)
{
	pks_line_feed(l, s, strlen(s), out, NULL);
}

static struct pks_line *fresh(size_t size, int level)
{
	static char buf[64];
	static struct pks_line l;

	gotn = 0;
	got[0] = '\0';
	pks_line_init(&l, buf, size);
	pks_line_start(&l, level, false, 0);
	return &l;
}

int main(void)
{
	struct pks_line *l;

	l = fresh(8, 6);
	feed(l, "abc\n");
	is_str(got, "<6>abc|", "a complete line");
	ok(!l->open, "closed after its newline");

	l = fresh(8, 6);
	feed(l, "abc");
	feed(l, "def\n");
	is_str(got, "<6>abcdef|", "two fragments, one line");

	l = fresh(8, 3);
	feed(l, "1234567\n");
	is_str(got, "<3>1234567|", "size-1 bytes: one line");

	l = fresh(8, 3);
	feed(l, "12345678\n");
	is_str(got, "<3>12345678|", "exactly size bytes: one line, no empty piece");

	l = fresh(8, 3);
	feed(l, "123456789\n");
	is_str(got, "<3>12345678|<3>9|", "size+1 bytes: two pieces at the same level");

	l = fresh(8, 3);
	feed(l, "12345678");
	ok(l->open && seq_buf_used(&l->sb) == 8, "full but open: nothing written yet");
	is_str(got, "", "no piece before more text comes");
	pks_line_close(l, out, NULL);
	is_str(got, "<3>12345678|", "close writes it");

	l = fresh(8, 5);
	feed(l, "a\nb\nc");
	is_str(got, "<5>a|<5>b|", "embedded newlines: one line each");
	ok(l->open, "the rest stays open");
	feed(l, "d\n");
	is_str(got, "<5>a|<5>b|<5>cd|", "and continues at the same level");

	l = fresh(8, 4);
	feed(l, "\n");
	is_str(got, "<4>|", "an empty line");

	l = fresh(8, 4);
	feed(l, "");
	ok(l->open, "an empty fragment opens a line");
	pks_line_close(l, out, NULL);
	is_str(got, "<4>|", "which closes as an empty line");

	l = fresh(8, 4);
	feed(l, "open");
	pks_line_drop(l);
	ok(!l->open && seq_buf_used(&l->sb) == 0, "drop forgets the line");
	pks_line_close(l, out, NULL);
	is_str(got, "", "nothing to close after drop");

	l = fresh(1, 2);
	feed(l, "abc\n");
	is_str(got, "<2>a|<2>b|<2>c|", "size 1: a piece per byte");

	l = fresh(8, 6);
	feed(l, "123456\xd0\xb6\xd0\xb6\n");	/* "123456жж" */
	is_str(got, "<6>123456\xd0\xb6|<6>\xd0\xb6|", "a piece ends after a whole character");
	l = fresh(8, 6);
	feed(l, "1234567\xd0\xb6\n");
	is_str(got, "<6>1234567|<6>\xd0\xb6|", "a character cut at the end opens the next piece");
	l = fresh(8, 6);
	feed(l, "123456\xe2\x82\xac" "9\n");	/* "123456€9" */
	is_str(got, "<6>123456|<6>\xe2\x82\xac" "9|", "three bytes of a character, two of them at the end");
	l = fresh(8, 6);
	feed(l, "12345\xf0\x9f\x98\x80\n");	/* "12345😀" */
	is_str(got, "<6>12345|<6>\xf0\x9f\x98\x80|", "four bytes, three at the end");
	l = fresh(8, 6);
	feed(l, "1234567\xff\xb6\n");
	is_str(got, "<6>1234567\xff|<6>\xb6|", "a byte that starts no character is cut as any");
	l = fresh(2, 6);
	feed(l, "\xe2\x82\xac\n");
	is_str(got, "<6>\xe2\x82|<6>\xac|", "a piece too short for the character keeps what it can");

	l = fresh(8, 6);
	feed_cut(l, "abc\n");
	ok(!l->open && pks_line_again(l), "cut in its write: ended, to be written once more");
	pks_line_close(l, out, NULL);
	is_str(got, "<6>abc|<6>abc|", "a second copy, at the next close");
	ok(!pks_line_again(l) && seq_buf_used(&l->sb) == 0, "and then it is done");

	l = fresh(8, 6);
	feed_cut(l, "abc\n");
	close_cut(l);
	ok(!pks_line_again(l) && seq_buf_used(&l->sb) == 0, "the second write cut too: never a third");
	pks_line_close(l, out, NULL);
	is_str(got, "<6>abc|<6>abc|", "two copies at most");

	l = fresh(8, 6);
	feed_cut(l, "abc\n");
	pks_line_close(l, out, NULL);
	pks_line_start(l, 5, true, 0);
	feed(l, "def\n");
	is_str(got, "<6>abc|<6>abc|<5>def|", "a KERN_CONT after the cut starts a line of its own");

	l = fresh(4, 3);
	feed_cut(l, "12345");
	ok(l->open && pks_line_again(l), "a piece cut: the line stays open, the piece to go again");
	feed(l, "6\n");
	is_str(got, "<3>1234|<3>1234|<3>6|",
	       "the piece again, then the next call's text; the cut call's own rest is lost");

	l = fresh(8, 6);
	feed_cut(l, "abc\n");
	close_cut(l);
	pks_line_cut(l);
	pks_line_cut(l);
	pks_line_close(l, out, NULL);
	is_str(got, "<6>abc|<6>abc|", "taking a cut line back twice changes nothing: no empty line");
	return tap_done();
}
