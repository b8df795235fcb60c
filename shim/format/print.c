// SPDX-License-Identifier: MIT
/*
 * The format engine's output cursor and the kernel's basic printers: its
 * number() (a '#' hex value always gets "0x", also for 0; '0' pads after
 * the sign even with a precision), its string() with width and precision,
 * the "(null)"/"(efault)" pointer check, and the kernel's ctype isprint().
 * Standard C conversions never come here: they are the C library's.
 *
 * Thread-safety: no state.
 */
#include "format/internal.h"

#include <string.h>

static const char hex_lower[] = "0123456789abcdef";
static const char hex_upper[] = "0123456789ABCDEF";

void pks_put(struct pks_out *o, const char *s, size_t n)
{
	if (o->len < o->size) {
		size_t room = o->size - o->len;

		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

void pks_putc(struct pks_out *o, char c)
{
	if (o->len < o->size)
		o->buf[o->len] = c;
	o->len++;
}

void pks_fill(struct pks_out *o, char c, long n)
{
	if (n <= 0)
		return;
	if (o->len < o->size) {
		size_t room = o->size - o->len;

		memset(o->buf + o->len, c, (size_t)n < room ? (size_t)n : room);
	}
	o->len += (size_t)n;
}

/* NUL-terminate a local cursor (size > 0) and give its text. */
char *pks_terminate(struct pks_out *o)
{
	o->buf[o->len < o->size ? o->len : o->size - 1] = '\0';
	return o->buf;
}

char *pks_hexbyte(char *p, unsigned char c, int upper)
{
	const char *d = upper ? hex_upper : hex_lower;

	*p++ = d[c >> 4];
	*p++ = d[c & 15];
	return p;
}

static char sign_of(unsigned long long *num, unsigned int flags)
{
	if (!(flags & PKS_SIGN))
		return 0;
	if ((long long)*num < 0) {
		*num = -*num;
		return '-';
	}
	if (flags & PKS_PLUS)
		return '+';
	return flags & PKS_SPACE ? ' ' : 0;
}

/* The "0x"/"0" of '#': hex always, octal only for a value other than 0. */
static int prefix_of(char *pfx, int base, int zero, unsigned int flags)
{
	if (!(flags & PKS_SPECIAL) || base == 10)
		return 0;
	if (base == 8)
		return zero ? 0 : (pfx[0] = '0', 1);
	pfx[0] = '0';
	pfx[1] = flags & PKS_SMALL ? 'x' : 'X';
	return 2;
}

/**
 * pks_num() - the kernel's number(): @base 8, 10 or 16
 * Return: nothing; the digits, sign, prefix and padding go to @o.
 */
void pks_num(struct pks_out *o, unsigned long long num, int base,
	     struct pks_spec sp)
{
	const char *digit = sp.flags & PKS_SMALL ? hex_lower : hex_upper;
	char tmp[24], pfx[2];
	int n = 0, zero = num == 0, npfx;
	long pad;
	char sign = sign_of(&num, sp.flags);

	if (sp.flags & PKS_LEFT)
		sp.flags &= ~PKS_ZEROPAD;
	npfx = prefix_of(pfx, base, zero, sp.flags);
	do {
		tmp[n++] = digit[num % base];
		num /= base;
	} while (num);
	if (sp.prec < n)
		sp.prec = n;
	pad = (long)sp.width - sp.prec - npfx - (sign != 0);
	if (!(sp.flags & (PKS_LEFT | PKS_ZEROPAD)))
		pks_fill(o, ' ', pad);
	if (sign)
		pks_putc(o, sign);
	pks_put(o, pfx, npfx);
	if (sp.flags & PKS_ZEROPAD)
		pks_fill(o, '0', pad);
	pks_fill(o, '0', sp.prec - n);
	while (n)
		pks_putc(o, tmp[--n]);
	if (sp.flags & PKS_LEFT)
		pks_fill(o, ' ', pad);
}

/**
 * pks_str() - the kernel's string_nocheck() and widen_string()
 * Return: nothing; at most @sp.prec bytes of @s, space-padded to @sp.width.
 */
void pks_str(struct pks_out *o, const char *s, struct pks_spec sp)
{
	size_t n = sp.prec < 0 ? strlen(s) : strnlen(s, (size_t)sp.prec);
	long pad = (long)sp.width - (long)n;

	if (!(sp.flags & PKS_LEFT))
		pks_fill(o, ' ', pad);
	pks_put(o, s, n);
	if (sp.flags & PKS_LEFT)
		pks_fill(o, ' ', pad);
}

/* The kernel's error_string(): a message is cut at 2 * sizeof(void *). */
void pks_errstr(struct pks_out *o, const char *msg, struct pks_spec sp)
{
	if (sp.prec == -1)
		sp.prec = 2 * sizeof(void *);
	pks_str(o, msg, sp);
}

/**
 * pks_bad_ptr() - the kernel's check_pointer()
 * Return: 1 when @ptr is NULL, in the first page or an ERR_PTR; its
 * "(null)" or "(efault)" is then printed. 0 for a pointer to look at.
 */
int pks_bad_ptr(struct pks_out *o, const void *ptr, struct pks_spec sp)
{
	const char *msg = NULL;

	if (!ptr)
		msg = "(null)";
	else if ((uintptr_t)ptr < PKS_PAGE || PKS_IS_ERR(ptr))
		msg = "(efault)";
	if (!msg)
		return 0;
	pks_errstr(o, msg, sp);
	return 1;
}

/* The kernel's special_hex_number(): 0x and 2 * @bytes digits. */
void pks_hexnum(struct pks_out *o, unsigned long long v, int bytes)
{
	struct pks_spec sp = {
		.width = 2 + 2 * bytes,
		.prec = -1,
		.flags = PKS_SPECIAL | PKS_SMALL | PKS_ZEROPAD,
	};

	pks_num(o, v, 16, sp);
}

/*
 * The kernel's isprint() (lib/ctype.c): ASCII 0x20-0x7e and all of Latin-1
 * 0xa0-0xff; not the C library's, whose answer depends on the locale.
 */
int pks_kisprint(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c >= 0xa0;
}
