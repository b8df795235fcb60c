// SPDX-License-Identifier: MIT
/*
 * Raw memory, by reference, as the kernel prints it: hex bytes (%*ph with
 * C/D/N separators, at most 64 bytes), escaped bytes (%*pE with the flags
 * a c h n o p s of lib/string_helpers.c, '"' included in the c class as
 * since 2021), bitmaps (%*pb hex chunks, %*pbl range lists), UUIDs/GUIDs
 * (%pU[bBlL]) and FourCC codes (%p4cc, %p4ch[R], %p4cl, %p4cb). For %ph,
 * %pE and %pb the field width is the length, as in the kernel: it is never
 * padding, and without one %ph and %pE print one byte.
 *
 * Thread-safety: no state.
 */
#include "format/internal.h"

#include <limits.h>
#include <string.h>

#define LONG_BITS	(sizeof(unsigned long) * CHAR_BIT)

static char hex_separator(char letter)
{
	switch (letter) {
	case 'C':
		return ':';
	case 'D':
		return '-';
	case 'N':
		return 0;
	}
	return ' ';
}

void pks_fmt_ext_hex(struct pks_fmt_buf *b, const void *ptr, const char *ext,
		     struct pks_fmt_spec sp)
{
	const unsigned char *a = ptr;
	char sep = hex_separator(ext[1]), two[2];
	int len = 1;

	if (sp.width == 0)
		return;
	if (pks_fmt_bad_ptr(b, ptr, sp))
		return;
	if (sp.width > 0)
		len = sp.width < 64 ? sp.width : 64;
	for (int i = 0; i < len; i++) {
		pks_fmt_hexbyte(two, a[i], 0);
		pks_fmt_put(b, two, 2);
		if (sep && i != len - 1)
			pks_fmt_putc(b, sep);
	}
}

/* lib/string_helpers.c classes */
enum {
	ESC_SPACE = 1, ESC_SPECIAL = 2, ESC_NULL = 4, ESC_OCTAL = 8,
	ESC_ANY = ESC_SPACE | ESC_SPECIAL | ESC_NULL | ESC_OCTAL,
	ESC_NP = 16, ESC_HEX = 32,
};

static const unsigned char esc_flag[128] = {
	['a'] = ESC_ANY, ['c'] = ESC_SPECIAL, ['h'] = ESC_HEX, ['n'] = ESC_NULL,
	['o'] = ESC_OCTAL, ['p'] = ESC_NP, ['s'] = ESC_SPACE,
};

/* A two-character escape of @c from one class, or 0. */
static char short_escape(unsigned char c, unsigned int flags)
{
	static const char space_in[] = "\n\r\t\v\f", space_out[] = "nrtvf";
	static const char special_in[] = "\\\a\033\"", special_out[] = "\\ae\"";
	const char *hit;

	if (!c)
		return flags & ESC_NULL ? '0' : 0;
	if ((flags & ESC_SPACE) && (hit = strchr(space_in, c)))
		return space_out[hit - space_in];
	if ((flags & ESC_SPECIAL) && (hit = strchr(special_in, c)))
		return special_out[hit - special_in];
	return 0;
}

static void escape_byte(struct pks_fmt_buf *b, unsigned char c,
			unsigned int flags)
{
	char e[4] = { '\\' };
	char to = short_escape(c, flags);

	if ((flags & ESC_NP) && pks_fmt_kisprint(c)) {
		pks_fmt_putc(b, c);
	} else if (to) {
		e[1] = to;
		pks_fmt_put(b, e, 2);
	} else if (flags & ESC_OCTAL) {
		e[1] = '0' + (c >> 6);
		e[2] = '0' + ((c >> 3) & 7);
		e[3] = '0' + (c & 7);
		pks_fmt_put(b, e, 4);
	} else if (flags & ESC_HEX) {
		e[1] = 'x';
		pks_fmt_hexbyte(e + 2, c, 0);
		pks_fmt_put(b, e, 4);
	} else {
		pks_fmt_putc(b, c);
	}
}

void pks_fmt_ext_escape(struct pks_fmt_buf *b, const void *ptr, const char *ext,
			struct pks_fmt_spec sp)
{
	const unsigned char *a = ptr;
	unsigned int flags = 0;
	int len = sp.width < 0 ? 1 : sp.width;

	if (sp.width == 0)
		return;
	if (pks_fmt_bad_ptr(b, ptr, sp))
		return;
	for (const char *f = ext + 1; (unsigned char)*f < 128 && esc_flag[(unsigned char)*f]; f++)
		flags |= esc_flag[(unsigned char)*f];
	if (!flags)
		flags = ESC_ANY | ESC_NP;
	for (int i = 0; i < len; i++)
		escape_byte(b, a[i], flags);
}

static int test_bit(const unsigned long *bm, unsigned int bit)
{
	return (bm[bit / LONG_BITS] >> (bit % LONG_BITS)) & 1;
}

/* %*pb: 32-bit chunks in hex, the highest first and only as wide as needed */
static void bitmap_hex(struct pks_fmt_buf *b, const unsigned long *bm,
		       int nbits)
{
	struct pks_fmt_spec sp = {
		.prec = 0, .flags = PKS_FMT_SMALL | PKS_FMT_ZEROPAD };
	int chunk = nbits % 32 ? nbits % 32 : 32;

	for (int i = (nbits + 31) / 32 * 32 - 32; i >= 0; i -= 32) {
		unsigned long v = bm[i / LONG_BITS] >> (i % LONG_BITS);

		sp.width = (chunk + 3) / 4;
		pks_fmt_num(b, v & ((1ULL << chunk) - 1), 16, sp);
		if (i)
			pks_fmt_putc(b, ',');
		chunk = 32;
	}
}

/* %*pbl: "0-3,7,9-11" */
static void bitmap_list(struct pks_fmt_buf *b, const unsigned long *bm,
			int nbits)
{
	struct pks_fmt_spec sp = { .prec = -1 };
	int first = 1;

	for (int lo = 0; lo < nbits; lo++) {
		int hi = lo;

		if (!test_bit(bm, lo))
			continue;
		while (hi + 1 < nbits && test_bit(bm, hi + 1))
			hi++;
		if (!first)
			pks_fmt_putc(b, ',');
		first = 0;
		pks_fmt_num(b, lo, 10, sp);
		if (hi > lo) {
			pks_fmt_putc(b, '-');
			pks_fmt_num(b, hi, 10, sp);
		}
		lo = hi;
	}
}

void pks_fmt_ext_bitmap(struct pks_fmt_buf *b, const void *ptr, const char *ext,
			struct pks_fmt_spec sp)
{
	int nbits = sp.width > 0 ? sp.width : 0;

	if (pks_fmt_bad_ptr(b, ptr, sp))
		return;
	if (ext[1] == 'l')
		bitmap_list(b, ptr, nbits);
	else
		bitmap_hex(b, ptr, nbits);
}

void pks_fmt_ext_uuid(struct pks_fmt_buf *b, const void *ptr, const char *ext,
		      struct pks_fmt_spec sp)
{
	static const unsigned char be[16] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	static const unsigned char le[16] = {
		3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	const unsigned char *a = ptr, *idx = be;
	char s[sizeof("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")], *p = s;
	int upper = ext[1] == 'B' || ext[1] == 'L';

	if (pks_fmt_bad_ptr(b, ptr, sp))
		return;
	if (ext[1] == 'l' || ext[1] == 'L')
		idx = le;
	for (int i = 0; i < 16; i++) {
		p = pks_fmt_hexbyte(p, a[idx[i]], upper);
		if (i == 3 || i == 5 || i == 7 || i == 9)
			*p++ = '-';
	}
	*p = '\0';
	pks_fmt_str(b, s, sp);
}

static uint32_t swab32(uint32_t v)
{
	return v >> 24 | (v >> 8 & 0xff00) | (v << 8 & 0xff0000) | v << 24;
}

/* How %p4c? reads the stored word; -1 for an unknown letter. */
static int fourcc_order(const char *ext, uint32_t *v)
{
	int host_le = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

	switch (ext[2]) {
	case 'c':
		return 1;	/* V4L2/DRM pixel format */
	case 'h':
		*v = ext[3] == 'R' ? swab32(*v) : *v;
		return 0;
	case 'l':
		*v = host_le ? *v : swab32(*v);
		return 0;
	case 'b':
		*v = host_le ? swab32(*v) : *v;
		return 0;
	}
	return -1;
}

void pks_fmt_ext_fourcc(struct pks_fmt_buf *b, const void *ptr, const char *ext,
			struct pks_fmt_spec sp)
{
	char s[sizeof("0123 little-endian (0x01234567)")];
	struct pks_fmt_buf l = { .buf = s, .size = sizeof(s) };
	uint32_t orig, val;
	int pixel;

	if (ext[1] != 'c') {
		pks_fmt_errstr(b, "(%p4?)", sp);
		return;
	}
	if (pks_fmt_bad_ptr(b, ptr, sp))
		return;
	memcpy(&orig, ptr, sizeof(orig));
	pixel = fourcc_order(ext, &orig);
	if (pixel < 0) {
		pks_fmt_errstr(b, "(%p4?)", sp);
		return;
	}
	val = pixel ? swab32(orig & ~(1u << 31)) : orig;
	for (int i = 3; i >= 0; i--) {
		unsigned char c = val >> (i * 8);

		pks_fmt_putc(&l, c >= 0x20 && c < 0x7f ? c : '.');
	}
	if (pixel)
		pks_fmt_put(&l, orig >> 31 ? " big-endian" : " little-endian",
			    orig >> 31 ? 11 : 14);
	pks_fmt_put(&l, " (", 2);
	pks_fmt_hexnum(&l, orig, sizeof(orig));
	pks_fmt_putc(&l, ')');
	pks_fmt_str(b, pks_fmt_terminate(&l), sp);
}
