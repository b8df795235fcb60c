/* SPDX-License-Identifier: MIT */
/*
 * The seq_buf of <linux/seq_buf.h> without printk or printf: the structure
 * and its byte writers, nothing but the C library's string functions. The
 * public header includes it; printk-shim's own line buffer includes it
 * alone, so the module's objects see neither <linux/printk.h> nor the
 * dynamic debug constructor it brings. A port includes <linux/seq_buf.h>.
 * Thread-safety: none; a seq_buf belongs to one thread at a time.
 */
#ifndef _LINUX_PKS_SEQ_BUF_H
#define _LINUX_PKS_SEQ_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/pks_byteorder.h>	/* every header defines the kernel's __*_ENDIAN */

struct seq_buf {
	char *buffer;
	size_t size;	/* bytes at buffer */
	size_t len;	/* bytes used; size + 1 once overflowed */
};

#ifdef __cplusplus
extern "C" {
#endif

static inline void seq_buf_clear(struct seq_buf *s)
{
	s->len = 0;
	if (s->size)
		s->buffer[0] = '\0';
}

static inline void seq_buf_init(struct seq_buf *s, char *buf, unsigned int size)
{
	s->buffer = buf;
	s->size = size;
	seq_buf_clear(s);
}

static inline bool seq_buf_has_overflowed(struct seq_buf *s)
{
	return s->len > s->size;
}

static inline void seq_buf_set_overflow(struct seq_buf *s)
{
	s->len = s->size + 1;
}

/* Return: bytes still free; 0 once overflowed. */
static inline unsigned int seq_buf_buffer_left(struct seq_buf *s)
{
	if (seq_buf_has_overflowed(s))
		return 0;
	return (unsigned int)(s->size - s->len);
}

/* Return: bytes written, at most size (also after an overflow). */
static inline unsigned int seq_buf_used(struct seq_buf *s)
{
	return (unsigned int)(s->len < s->size ? s->len : s->size);
}

/*
 * Return: the contents as a C string. When the buffer is full or overflowed
 * the NUL goes on the last byte, hiding it (seq_buf_used() still counts it).
 */
static inline const char *seq_buf_str(struct seq_buf *s)
{
	if (s->size == 0)
		return "";
	if (seq_buf_buffer_left(s))
		s->buffer[s->len] = '\0';
	else
		s->buffer[s->size - 1] = '\0';
	return s->buffer;
}

/* Return: free bytes at *@bufp, for a direct write; 0 and NULL when full. */
static inline size_t seq_buf_get_buf(struct seq_buf *s, char **bufp)
{
	if (s->len < s->size) {
		*bufp = s->buffer + s->len;
		return s->size - s->len;
	}
	*bufp = NULL;
	return 0;
}

/* Counts @num bytes written through seq_buf_get_buf(); < 0 marks overflow. */
static inline void seq_buf_commit(struct seq_buf *s, int num)
{
	if (num < 0 || s->len + (size_t)num > s->size)
		seq_buf_set_overflow(s);
	else
		s->len += (size_t)num;
}

static inline bool pks_seq_buf_can_fit(struct seq_buf *s, size_t len)
{
	return s->len + len <= s->size;
}

/* Copies @str with its NUL (so even "" needs a free byte); len counts no NUL. */
static inline int seq_buf_puts(struct seq_buf *s, const char *str)
{
	size_t n = strlen(str) + 1;

	if (!pks_seq_buf_can_fit(s, n)) {
		seq_buf_set_overflow(s);
		return -1;
	}
	memcpy(s->buffer + s->len, str, n);
	s->len += n - 1;
	return 0;
}

/* May fill the last byte: no NUL is kept. */
static inline int seq_buf_putc(struct seq_buf *s, unsigned char c)
{
	if (!pks_seq_buf_can_fit(s, 1)) {
		seq_buf_set_overflow(s);
		return -1;
	}
	s->buffer[s->len++] = (char)c;
	return 0;
}

/* All @len bytes or none; no NUL is written. */
static inline int seq_buf_putmem(struct seq_buf *s, const void *mem,
				 unsigned int len)
{
	if (!pks_seq_buf_can_fit(s, len)) {
		seq_buf_set_overflow(s);
		return -1;
	}
	memcpy(s->buffer + s->len, mem, len);
	s->len += len;
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* _LINUX_PKS_SEQ_BUF_H */
