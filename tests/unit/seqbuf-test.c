/* SPDX-License-Identifier: MIT */
/*
 * include/linux/seq_buf.h against the kernel's seq_buf_kunit cases
 * (lib/tests/seq_buf_kunit.c, as facts in kernel-printk.md 8.2), then the
 * rest of the API: capacity at size-1, size and size+1, putmem_hex,
 * hex_dump, to_user, commit past the end, and seq_buf_do_printk with a
 * printk that records what it is given.
 */
#include <linux/seq_buf.h>

#include "tap.h"

static char printed[1024];
static size_t printed_len;
static int printk_calls;

int (printk)(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(printed + printed_len, sizeof(printed) - printed_len, fmt, ap);
	va_end(ap);
	printed_len += (size_t)n;
	printk_calls++;
	return n;
}

static void printed_reset(void)
{
	printed[0] = '\0';
	printed_len = 0;
	printk_calls = 0;
}

static void kunit_init(void)
{
	char buf[32];
	struct seq_buf s;

	seq_buf_init(&s, buf, sizeof(buf));
	is_int((long long)s.size, 32, "init: size 32");
	is_int((long long)s.len, 0, "init: len 0");
	ok(!seq_buf_has_overflowed(&s), "init: not overflowed");
	is_int(seq_buf_buffer_left(&s), 32, "init: 32 left");
	is_int(seq_buf_used(&s), 0, "init: 0 used");
	is_str(seq_buf_str(&s), "", "init: str empty");
}

static void kunit_declare(void)
{
	DECLARE_SEQ_BUF(s, 24);

	is_int((long long)s.size, 24, "declare: size 24");
	is_int((long long)s.len, 0, "declare: len 0");
	ok(!seq_buf_has_overflowed(&s), "declare: not overflowed");
	is_int(seq_buf_buffer_left(&s), 24, "declare: 24 left");
	is_int(seq_buf_used(&s), 0, "declare: 0 used");
	is_str(seq_buf_str(&s), "", "declare: str empty");
}

static void kunit_clear(void)
{
	DECLARE_SEQ_BUF(s, 128);

	seq_buf_puts(&s, "hello");
	is_int((long long)s.len, 5, "clear: len 5 after puts");
	is_str(seq_buf_str(&s), "hello", "clear: str hello");
	seq_buf_clear(&s);
	is_int((long long)s.len, 0, "clear: len 0");
	ok(!seq_buf_has_overflowed(&s), "clear: not overflowed");
	is_str(seq_buf_str(&s), "", "clear: str empty");
}

static void kunit_puts(void)
{
	DECLARE_SEQ_BUF(s, 16);

	seq_buf_puts(&s, "hello");
	is_int(seq_buf_used(&s), 5, "puts: used 5");
	is_str(seq_buf_str(&s), "hello", "puts: hello");
	seq_buf_puts(&s, " world");
	is_int(seq_buf_used(&s), 11, "puts: used 11");
	is_str(seq_buf_str(&s), "hello world", "puts: hello world");
	ok(!seq_buf_has_overflowed(&s), "puts: not overflowed");
}

static void kunit_puts_overflow(void)
{
	DECLARE_SEQ_BUF(s, 10);

	is_int(seq_buf_puts(&s, "123456789"), 0, "puts_overflow: 9 bytes fit");
	ok(!seq_buf_has_overflowed(&s), "puts_overflow: not overflowed");
	is_int(seq_buf_used(&s), 9, "puts_overflow: used 9");
	is_int(seq_buf_puts(&s, "0"), -1, "puts_overflow: \"0\" needs 2 bytes");
	ok(seq_buf_has_overflowed(&s), "puts_overflow: overflowed");
	is_int(seq_buf_used(&s), 10, "puts_overflow: used 10");
	is_str(seq_buf_str(&s), "123456789", "puts_overflow: 0 not written");
	seq_buf_clear(&s);
	is_int((long long)s.len, 0, "puts_overflow: len 0 after clear");
	ok(!seq_buf_has_overflowed(&s), "puts_overflow: clear resets overflow");
	is_str(seq_buf_str(&s), "", "puts_overflow: str empty after clear");
}

static void kunit_putc(void)
{
	DECLARE_SEQ_BUF(s, 4);

	seq_buf_putc(&s, 'a');
	seq_buf_putc(&s, 'b');
	seq_buf_putc(&s, 'c');
	is_int(seq_buf_used(&s), 3, "putc: used 3");
	is_str(seq_buf_str(&s), "abc", "putc: abc");
	is_int(seq_buf_putc(&s, 'd'), 0, "putc: d fills the last byte");
	is_int(seq_buf_used(&s), 4, "putc: used 4");
	ok(!seq_buf_has_overflowed(&s), "putc: full is not overflowed");
	is_str(seq_buf_str(&s), "abc", "putc: the NUL hides d");
	is_int(seq_buf_putc(&s, 'e'), -1, "putc: e does not fit");
	is_int(seq_buf_used(&s), 4, "putc: still used 4");
	ok(seq_buf_has_overflowed(&s), "putc: overflowed");
	is_str(seq_buf_str(&s), "abc", "putc: str abc after overflow");
	seq_buf_clear(&s);
	is_int((long long)s.len, 0, "putc: len 0 after clear");
	is_str(seq_buf_str(&s), "", "putc: str empty after clear");
}

static void kunit_printf(void)
{
	DECLARE_SEQ_BUF(s, 32);

	seq_buf_printf(&s, "hello %s", "world");
	is_int(seq_buf_used(&s), 11, "printf: used 11");
	is_str(seq_buf_str(&s), "hello world", "printf: hello world");
	seq_buf_printf(&s, " %d", 123);
	is_int(seq_buf_used(&s), 15, "printf: used 15");
	is_str(seq_buf_str(&s), "hello world 123", "printf: hello world 123");
}

static void kunit_printf_overflow(void)
{
	DECLARE_SEQ_BUF(s, 16);

	seq_buf_printf(&s, "%lu", 1234567890UL);
	is_int(seq_buf_used(&s), 10, "printf_overflow: used 10");
	is_str(seq_buf_str(&s), "1234567890", "printf_overflow: digits");
	ok(!seq_buf_has_overflowed(&s), "printf_overflow: not yet");
	is_int(seq_buf_printf(&s, "%s", "abcdefghij"), -1,
	       "printf_overflow: returns -1");
	ok(seq_buf_has_overflowed(&s), "printf_overflow: overflowed");
	is_int(seq_buf_used(&s), 16, "printf_overflow: used 16");
	is_str(seq_buf_str(&s), "1234567890abcde",
	       "printf_overflow: the cut-down output stays");
	seq_buf_clear(&s);
	is_int((long long)s.len, 0, "printf_overflow: len 0 after clear");
	is_str(seq_buf_str(&s), "", "printf_overflow: empty after clear");
}

static void kunit_get_buf_commit(void)
{
	DECLARE_SEQ_BUF(s, 16);
	char *p = NULL;
	size_t n;

	n = seq_buf_get_buf(&s, &p);
	is_int((long long)n, 16, "get_buf: 16 free");
	ok(p != NULL, "get_buf: pointer");
	memcpy(p, "hello", 5);
	seq_buf_commit(&s, 5);
	is_int(seq_buf_used(&s), 5, "commit: used 5");
	is_str(seq_buf_str(&s), "hello", "commit: hello");
	n = seq_buf_get_buf(&s, &p);
	is_int((long long)n, 11, "get_buf: 11 free");
	memcpy(p, " world!!", 8);
	seq_buf_commit(&s, 6);
	is_int(seq_buf_used(&s), 11, "commit: only 6 of 8 counted");
	is_str(seq_buf_str(&s), "hello world", "commit: hello world");
	n = seq_buf_get_buf(&s, &p);
	is_int((long long)n, 5, "get_buf: 5 free");
	seq_buf_commit(&s, -1);
	ok(seq_buf_has_overflowed(&s), "commit(-1): overflowed");
}

/* Not in the kunit file: the house habit of size-1, size and size+1. */
static void capacity_edges(void)
{
	DECLARE_SEQ_BUF(s, 8);
	char *p;

	is_int(seq_buf_putmem(&s, "abcdefg", 7), 0, "putmem: size-1 fits");
	is_int(seq_buf_buffer_left(&s), 1, "putmem: 1 left");
	is_int(seq_buf_putmem(&s, "h", 1), 0, "putmem: size fits exactly");
	ok(!seq_buf_has_overflowed(&s), "putmem: full is not overflowed");
	is_int(seq_buf_buffer_left(&s), 0, "putmem: 0 left");
	is_int((long long)seq_buf_get_buf(&s, &p), 0, "get_buf: 0 when full");
	ok(p == NULL, "get_buf: NULL when full");
	is_int(seq_buf_putmem(&s, "i", 1), -1, "putmem: size+1 refused");
	ok(seq_buf_has_overflowed(&s), "putmem: overflowed");
	is_int(seq_buf_putmem(&s, "", 0), -1, "putmem: overflow is sticky");
	is_int(seq_buf_printf(&s, "x"), -1, "printf: refused after overflow");
	is_int(seq_buf_used(&s), 8, "used: size after overflow");
	is_mem(s.buffer, 8, "abcdefgh", 8, "putmem: bytes intact");
	seq_buf_clear(&s);
	is_int(seq_buf_putmem(&s, "abcdefghi", 9), -1, "putmem: all or nothing");
	is_mem(s.buffer, 1, "", 1, "putmem: nothing copied");
}

static void printf_room_for_nul(void)
{
	DECLARE_SEQ_BUF(s, 8);

	is_int(seq_buf_printf(&s, "%s", "abcdefg"), 0, "printf: 7 of 8 fits");
	is_int(seq_buf_printf(&s, "%s", ""), 0, "printf: \"\" fits in the NUL byte");
	is_int(seq_buf_printf(&s, "%s", "h"), -1, "printf: 1 byte needs 2");
	ok(seq_buf_has_overflowed(&s), "printf: overflowed");
	is_str(seq_buf_str(&s), "abcdefg", "printf: the NUL hides the cut-down byte");
	seq_buf_clear(&s);
	is_int(seq_buf_puts(&s, ""), 0, "puts: \"\" into empty fits");
	is_int(seq_buf_used(&s), 0, "puts: \"\" adds nothing");
}

static void commit_past_end(void)
{
	DECLARE_SEQ_BUF(s, 4);

	seq_buf_commit(&s, 5);
	ok(seq_buf_has_overflowed(&s), "commit past the end marks overflow (kernel: BUG)");
}

static void zero_size(void)
{
	struct seq_buf s;

	seq_buf_init(&s, NULL, 0);
	is_str(seq_buf_str(&s), "", "size 0: str is \"\"");
	is_int(seq_buf_putc(&s, 'x'), -1, "size 0: putc refused");
	is_int(seq_buf_printf(&s, "x"), -1, "size 0: printf refused");
	printed_reset();
	seq_buf_do_printk(&s, KERN_INFO);
	is_int(printk_calls, 0, "size 0: do_printk prints nothing");
}

static void putmem_hex(void)
{
	DECLARE_SEQ_BUF(s, 64);
	static const unsigned char b[] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0xab, 0xcd
	};
	const char *want;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	want = "0102030405060708 09abcd ";
#else
	want = "0807060504030201 cdab09 ";
#endif
	is_int(seq_buf_putmem_hex(&s, b, sizeof(b)), 0, "putmem_hex: fits");
	is_str(seq_buf_str(&s), want, "putmem_hex: 8-byte host-order chunks");

	DECLARE_SEQ_BUF(t, 20);
	is_int(seq_buf_putmem_hex(&t, b, sizeof(b)), -1,
	       "putmem_hex: second chunk does not fit");
	is_mem(t.buffer, 17, want, 17, "putmem_hex: first chunk stays");
	ok(seq_buf_has_overflowed(&t), "putmem_hex: overflowed");
}

static void hex_dump(void)
{
	DECLARE_SEQ_BUF(s, 256);
	const char *data = "0123456789abcdefXYZ";

	is_int(seq_buf_hex_dump(&s, "p: ", DUMP_PREFIX_OFFSET, 16, 1, data, 19, true),
	       0, "hex_dump: fits");
	is_str(seq_buf_str(&s),
	       "p: 00000000: 30 31 32 33 34 35 36 37 38 39 61 62 63 64 65 66  0123456789abcdef\n"
	       "p: 00000010: 58 59 5a                                         XYZ\n",
	       "hex_dump: two rows, kernel format");

	DECLARE_SEQ_BUF(t, 100);
	is_int(seq_buf_hex_dump(&t, "", DUMP_PREFIX_NONE, 16, 1, data, 19, true),
	       -1, "hex_dump: second row does not fit");
	ok(seq_buf_has_overflowed(&t), "hex_dump: overflowed");
	ok(strncmp(t.buffer, "30 31", 5) == 0, "hex_dump: first row stays");
}

static void to_user(void)
{
	DECLARE_SEQ_BUF(s, 16);
	char out[16] = "";

	seq_buf_puts(&s, "hello world");
	is_int(seq_buf_to_user(&s, out, 6, 3), 3, "to_user: cnt bytes");
	is_mem(out, 3, "wor", 3, "to_user: from start");
	is_int(seq_buf_to_user(&s, out, 6, 100), 5, "to_user: at most used-start");
	is_int(seq_buf_to_user(&s, out, 11, 1), -EBUSY, "to_user: -EBUSY at the end");
	is_int(seq_buf_to_user(&s, out, 0, 0), 0, "to_user: cnt 0");
}

static void do_printk(void)
{
	DECLARE_SEQ_BUF(s, 64);

	seq_buf_puts(&s, "one\ntwo\nthree");
	printed_reset();
	seq_buf_do_printk(&s, KERN_ERR);
	is_int(printk_calls, 3, "do_printk: one call per line");
	is_str(printed, KERN_ERR "one\n" KERN_ERR "two\n" KERN_ERR "three\n",
	       "do_printk: level on each line, newline added to the last");

	seq_buf_clear(&s);
	printed_reset();
	seq_buf_do_printk(&s, KERN_ERR);
	is_int(printk_calls, 0, "do_printk: empty buffer prints nothing");
}

static void do_printk_overflow(void)
{
	DECLARE_SEQ_BUF(s, 8);

	seq_buf_puts(&s, "abc\nde\n");
	seq_buf_putc(&s, 'x');
	seq_buf_putc(&s, 'y');
	printed_reset();
	seq_buf_do_printk(&s, KERN_INFO);
	is_str(printed, KERN_INFO "abc\n" KERN_INFO "de\n" KERN_INFO "\n",
	       "do_printk: after overflow the last byte is hidden (kernel edge case)");
}

int main(void)
{
	kunit_init();
	kunit_declare();
	kunit_clear();
	kunit_puts();
	kunit_puts_overflow();
	kunit_putc();
	kunit_printf();
	kunit_printf_overflow();
	kunit_get_buf_commit();
	capacity_edges();
	printf_room_for_nul();
	commit_past_end();
	zero_size();
	putmem_hex();
	hex_dump();
	to_user();
	do_printk();
	do_printk_overflow();
	return tap_done();
}
