// SPDX-License-Identifier: MIT
/*
 * The format engine's output buffer and the kernel's basic printers: its
 * number() (a '#' hex value always gets "0x", also for 0; '0' pads after
 * the sign even with a precision), its string() with width and precision,
 * the "(null)"/"(efault)" pointer check, and the kernel's ctype isprint().
 * Standard C conversions never come here: they are the C library's.
 *
 * Thread-safety: no state.
 */
#include "format/internal.h"
#include "base/digits.h"

#include <string.h>

void pks_fmt_put(struct pks_fmt_buf *b, const char *s, size_t n)
{
	if (b->len < b->size) {
		size_t room = b->size - b->len;

		memcpy(b->buf + b->len, s, n < room ? n : room);
	}
	b->len += n;
}

void pks_fmt_putc(struct pks_fmt_buf *b, char c)
{
	if (b->len < b->size)
		b->buf[b->len] = c;
	b->len++;
}

void pks_fmt_fill(struct pks_fmt_buf *b, char c, long n)
{
	if (n <= 0)
		return;
	if (b->len < b->size) {
		size_t room = b->size - b->len;

		memset(b->buf + b->len, c, (size_t)n < room ? (size_t)n : room);
	}
	b->len += (size_t)n;
}

/* NUL-terminate a local buffer (size > 0) and give its text. */
char *pks_fmt_terminate(struct pks_fmt_buf *b)
{
	b->buf[b->len < b->size ? b->len : b->size - 1] = '\0';
	return b->buf;
}

char *pks_fmt_hexbyte(char *p, unsigned char c, int upper)
{
	const char *d = upper ? pks_hex_upper : pks_hex_lower;

	*p++ = d[c >> 4];
	*p++ = d[c & 15];
	return p;
}

static char sign_of(unsigned long long *num, unsigned int flags)
{
	if (!(flags & PKS_FMT_SIGN))
		return 0;
	if ((long long)*num < 0) {
		*num = -*num;
		return '-';
	}
	if (flags & PKS_FMT_PLUS)
		return '+';
	return flags & PKS_FMT_SPACE ? ' ' : 0;
}

/* The "0x"/"0" of '#': hex always, octal only for a value other than 0. */
static int prefix_of(char *pfx, int base, int zero, unsigned int flags)
{
	if (!(flags & PKS_FMT_SPECIAL) || base == 10)
		return 0;
	if (base == 8)
		return zero ? 0 : (pfx[0] = '0', 1);
	pfx[0] = '0';
	pfx[1] = flags & PKS_FMT_SMALL ? 'x' : 'X';
	return 2;
}

/**
 * pks_fmt_num() - the kernel's number(): @base 8, 10 or 16
 * Return: nothing; the digits, sign, prefix and padding go to @b.
 */
void pks_fmt_num(struct pks_fmt_buf *b, unsigned long long num, int base,
		 struct pks_fmt_spec sp)
{
	const char *digit = sp.flags & PKS_FMT_SMALL ? pks_hex_lower :
						       pks_hex_upper;
	char tmp[24], pfx[2];
	int n = 0, zero = num == 0, npfx;
	long pad;
	char sign = sign_of(&num, sp.flags);

	if (sp.flags & PKS_FMT_LEFT)
		sp.flags &= ~PKS_FMT_ZEROPAD;
	npfx = prefix_of(pfx, base, zero, sp.flags);
	do {
		tmp[n++] = digit[num % base];
		num /= base;
	} while (num);
	if (sp.prec < n)
		sp.prec = n;
	pad = (long)sp.width - sp.prec - npfx - (sign != 0);
	if (!(sp.flags & (PKS_FMT_LEFT | PKS_FMT_ZEROPAD)))
		pks_fmt_fill(b, ' ', pad);
	if (sign)
		pks_fmt_putc(b, sign);
	pks_fmt_put(b, pfx, npfx);
	if (sp.flags & PKS_FMT_ZEROPAD)
		pks_fmt_fill(b, '0', pad);
	pks_fmt_fill(b, '0', sp.prec - n);
	while (n)
		pks_fmt_putc(b, tmp[--n]);
	if (sp.flags & PKS_FMT_LEFT)
		pks_fmt_fill(b, ' ', pad);
}

/**
 * pks_fmt_str() - the kernel's string_nocheck() and widen_string()
 * Return: nothing; at most @sp.prec bytes of @s, space-padded to @sp.width.
 */
void pks_fmt_str(struct pks_fmt_buf *b, const char *s, struct pks_fmt_spec sp)
{
	size_t n = sp.prec < 0 ? strlen(s) : strnlen(s, (size_t)sp.prec);
	long pad = (long)sp.width - (long)n;

	if (!(sp.flags & PKS_FMT_LEFT))
		pks_fmt_fill(b, ' ', pad);
	pks_fmt_put(b, s, n);
	if (sp.flags & PKS_FMT_LEFT)
		pks_fmt_fill(b, ' ', pad);
}

/* The kernel's error_string(): a message is cut at 2 * sizeof(void *). */
void pks_fmt_errstr(struct pks_fmt_buf *b, const char *msg,
		    struct pks_fmt_spec sp)
{
	if (sp.prec == -1)
		sp.prec = 2 * sizeof(void *);
	pks_fmt_str(b, msg, sp);
}

/**
 * pks_fmt_bad_ptr() - the kernel's check_pointer()
 * Return: 1 when @ptr is NULL, in the first page or an ERR_PTR; its
 * "(null)" or "(efault)" is then printed. 0 for a pointer to look at.
 */
int pks_fmt_bad_ptr(struct pks_fmt_buf *b, const void *ptr,
		    struct pks_fmt_spec sp)
{
	const char *msg = NULL;

	if (!ptr)
		msg = "(null)";
	else if ((uintptr_t)ptr < PKS_FMT_PAGE || PKS_FMT_IS_ERR(ptr))
		msg = "(efault)";
	if (!msg)
		return 0;
	pks_fmt_errstr(b, msg, sp);
	return 1;
}

/* The kernel's special_hex_number(): 0x and 2 * @bytes digits. */
void pks_fmt_hexnum(struct pks_fmt_buf *b, unsigned long long v, int bytes)
{
	struct pks_fmt_spec sp = {
		.width = 2 + 2 * bytes,
		.prec = -1,
		.flags = PKS_FMT_SPECIAL | PKS_FMT_SMALL | PKS_FMT_ZEROPAD,
	};

	pks_fmt_num(b, v, 16, sp);
}

/*
 * The kernel's isprint() (lib/ctype.c): ASCII 0x20-0x7e and all of Latin-1
 * 0xa0-0xff; not the C library's, whose answer depends on the locale.
 */
int pks_fmt_kisprint(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c >= 0xa0;
}
