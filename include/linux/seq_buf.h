/* SPDX-License-Identifier: MIT */
/*
 * The kernel's seq_buf, header-only, with v6.7+ semantics: a fixed buffer
 * whose overflow is sticky (len = size + 1 marks it), writes that are all or
 * nothing except printf (which leaves its cut-down output in place), 0/-1
 * returns, and seq_buf_str() for a NUL-terminated view. The structure and
 * the byte writers are in <linux/pks_seq_buf.h>, which printk-shim's own
 * line buffer includes alone. seq_buf_printf() formats with the
 * kernel's vsnprintf() when the program is linked with libprintk-port, else
 * with the C library's.
 *
 * Where the kernel WARNs or BUGs this code does nothing and carries on
 * (seq_buf_commit() past the end marks overflow instead of crashing).
 * Not provided, as they need kernel objects: seq_buf_path(),
 * seq_buf_print_seq(), seq_buf_bprintf(). seq_buf_do_printk() is the only
 * user of printk; a file that never calls it needs no printk at link time.
 * Thread-safety: none; a seq_buf belongs to one thread at a time.
 */
#ifndef _LINUX_SEQ_BUF_H
#define _LINUX_SEQ_BUF_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/pks_byteorder.h>
#include <linux/pks_seq_buf.h>
#include <linux/printk.h>

#ifndef __cplusplus
/* A seq_buf over a zero-filled buffer of @SIZE bytes (a compound literal). */
#define DECLARE_SEQ_BUF(NAME, SIZE)					\
	struct seq_buf NAME = {						\
		.buffer = (char[SIZE]) { 0 },				\
		.size = SIZE,						\
		.len = 0,						\
	}
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The kernel's vsnprintf() from libprintk-port (<linux/sprintf.h>); a weak
 * reference, so that seq_buf_printf() formats as printk() does in a port
 * linked with it, and as the C library's vsnprintf() in one that is not.
 */
int pks_kernel_vsnprintf(char *buf, size_t size, const char *fmt, va_list args)
	__attribute__((weak, format(printf, 3, 0)));

/*
 * Needs room for the output and its NUL. On failure the cut-down output
 * stays in the buffer and overflow is marked. A vsnprintf error (glibc
 * only, e.g. an unconvertible wide string) is treated as overflow.
 */
static inline __attribute__((format(printf, 2, 0)))
int seq_buf_vprintf(struct seq_buf *s, const char *fmt, va_list args)
{
	int n;

	if (s->len < s->size) {
		char *at = s->buffer + s->len;
		size_t room = s->size - s->len;

		n = pks_kernel_vsnprintf ? pks_kernel_vsnprintf(at, room, fmt, args) :
			(vsnprintf)(at, room, fmt, args);
		if (n >= 0 && s->len + (size_t)n < s->size) {
			s->len += (size_t)n;
			return 0;
		}
	}
	seq_buf_set_overflow(s);
	return -1;
}

static inline __attribute__((format(printf, 2, 3)))
int seq_buf_printf(struct seq_buf *s, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = seq_buf_vprintf(s, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * Hex in chunks of up to 8 bytes, each followed by a space and read as a
 * host-order number: on little-endian {01 02 03} gives "030201 ". Stops at
 * the first chunk that does not fit; earlier chunks stay.
 */
static inline int seq_buf_putmem_hex(struct seq_buf *s, const void *mem,
				     unsigned int len)
{
	const unsigned char *data = (const unsigned char *)mem;
	char hex[8 * 2 + 1];
	unsigned int chunk, i, j;

	while (len) {
		chunk = len < 8 ? len : 8;
		for (i = 0, j = 0; i < chunk; i++) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			unsigned char b = data[i];
#else
			unsigned char b = data[chunk - 1 - i];
#endif
			hex[j++] = hex_asc_hi(b);
			hex[j++] = hex_asc_lo(b);
		}
		hex[j++] = ' ';
		if (seq_buf_putmem(s, hex, j))
			return -1;
		len -= chunk;
		data += chunk;
	}
	return 0;
}

/**
 * seq_buf_hex_dump() - print_hex_dump() into a seq_buf, without a level
 * @prefix_type: DUMP_PREFIX_ADDRESS prints seq_buf_printf()'s "%p" (glibc: the raw
 *	address as 0x...; the kernel prints it hashed)
 * Return: 0, or -1 at the first row that does not fit (earlier rows stay).
 */
static inline int seq_buf_hex_dump(struct seq_buf *s, const char *prefix_str,
				   int prefix_type, int rowsize, int groupsize,
				   const void *buf, size_t len, bool ascii)
{
	const unsigned char *p = (const unsigned char *)buf;
	char line[32 * 3 + 2 + 32 + 1];
	size_t i, n;
	int ret;

	if (rowsize != 16 && rowsize != 32)
		rowsize = 16;
	for (i = 0; i < len; i += (size_t)rowsize) {
		n = len - i < (size_t)rowsize ? len - i : (size_t)rowsize;
		hex_dump_to_buffer(p + i, n, rowsize, groupsize, line,
				   sizeof(line), ascii);
		if (prefix_type == DUMP_PREFIX_ADDRESS)
			ret = seq_buf_printf(s, "%s%p: %s\n", prefix_str,
					     (const void *)(p + i), line);
		else if (prefix_type == DUMP_PREFIX_OFFSET)
			ret = seq_buf_printf(s, "%s%.8x: %s\n", prefix_str,
					     (unsigned int)i, line);
		else
			ret = seq_buf_printf(s, "%s%s\n", prefix_str, line);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * seq_buf_to_user() - copy out of the buffer (userspace: a plain memcpy)
 * @start: offset into the used part to copy from
 * Return: bytes copied; 0 if @cnt is 0; -EBUSY if nothing is left at @start.
 */
static inline int seq_buf_to_user(struct seq_buf *s, char *ubuf, size_t start,
				  int cnt)
{
	size_t len = seq_buf_used(s);

	if (!cnt)
		return 0;
	if (len <= start)
		return -EBUSY;
	len -= start;
	if ((size_t)cnt < len)
		len = (size_t)cnt;
	memcpy(ubuf, s->buffer + start, len);
	return (int)len;
}

/*
 * printk()s every line at @lvl (passed as a "%s" argument so printk parses
 * it), adding a newline to an unterminated last line. Reads through
 * seq_buf_str(), so a full buffer loses its last byte, and an overflowed
 * one ending in '\n' prints an extra empty line, as in the kernel.
 */
static inline void seq_buf_do_printk(struct seq_buf *s, const char *lvl)
{
	const char *start, *lf;

	if (s->size == 0 || s->len == 0)
		return;
	start = seq_buf_str(s);
	while ((lf = strchr(start, '\n')) != NULL) {
		printk("%s%.*s", lvl, (int)(lf - start + 1), start);
		start = lf + 1;
	}
	if (start < s->buffer + s->len)
		printk("%s%s\n", lvl, start);
}

#ifdef __cplusplus
}

/*
 * C++ has no array compound literals: the buffer is a member of an object
 * that is a seq_buf, so `static DECLARE_SEQ_BUF(...)` still declares one
 * object and &NAME still converts to struct seq_buf *.
 */
template <size_t N>
struct pks_seq_buf_storage : seq_buf {
	char storage[N];

	pks_seq_buf_storage() : seq_buf(), storage()
	{
		buffer = storage;
		size = N;
		len = 0;
	}
	pks_seq_buf_storage(const pks_seq_buf_storage &) = delete;
	pks_seq_buf_storage &operator=(const pks_seq_buf_storage &) = delete;
};

#define DECLARE_SEQ_BUF(NAME, SIZE) pks_seq_buf_storage<(SIZE)> NAME
#endif /* __cplusplus */

#endif /* _LINUX_SEQ_BUF_H */
