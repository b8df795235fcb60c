/* SPDX-License-Identifier: MIT */
/*
 * Hex digit helpers for ported kernel code (the kernel's <linux/hex.h>):
 * hex_asc*, hex_byte_pack*, hex_to_bin, hex2bin, bin2hex. Header-only.
 * hex_asc and hex_asc_upper are string literals here, not arrays with
 * external linkage, so a port needs no library for them.
 * Thread-safety: pure functions.
 */
#ifndef _LINUX_HEX_H
#define _LINUX_HEX_H

#include <errno.h>
#include <stddef.h>
#include <linux/pks_byteorder.h>

#define hex_asc		"0123456789abcdef"
#define hex_asc_upper	"0123456789ABCDEF"
#define hex_asc_lo(x)	hex_asc[((x) & 0x0f)]
#define hex_asc_hi(x)	hex_asc[((x) & 0xf0) >> 4]
#define hex_asc_upper_lo(x)	hex_asc_upper[((x) & 0x0f)]
#define hex_asc_upper_hi(x)	hex_asc_upper[((x) & 0xf0) >> 4]

#ifdef __cplusplus
extern "C" {
#endif

static inline char *hex_byte_pack(char *buf, unsigned char byte)
{
	*buf++ = hex_asc_hi(byte);
	*buf++ = hex_asc_lo(byte);
	return buf;
}

static inline char *hex_byte_pack_upper(char *buf, unsigned char byte)
{
	*buf++ = hex_asc_upper_hi(byte);
	*buf++ = hex_asc_upper_lo(byte);
	return buf;
}

/* Return: the value of one hex digit, either case, or -1. */
static inline int hex_to_bin(unsigned char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Return: 0, or -EINVAL at the first bad digit (earlier bytes are stored). */
static inline int hex2bin(unsigned char *dst, const char *src, size_t count)
{
	while (count--) {
		int hi = hex_to_bin((unsigned char)*src++);
		int lo;

		if (hi < 0)
			return -EINVAL;
		lo = hex_to_bin((unsigned char)*src++);
		if (lo < 0)
			return -EINVAL;
		*dst++ = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* Return: the end of the 2 * @count digits written; no NUL is added. */
static inline char *bin2hex(char *dst, const void *src, size_t count)
{
	const unsigned char *p = (const unsigned char *)src;

	while (count--)
		dst = hex_byte_pack(dst, *p++);
	return dst;
}

#ifdef __cplusplus
}
#endif

#endif /* _LINUX_HEX_H */
