// SPDX-License-Identifier: MIT
/*
 * The escaping of strings read from a binary: as the kernel's printk index
 * shows a format (seq_escape_str() with ESCAPE_ANY | ESCAPE_NAP |
 * ESCAPE_APPEND and "\"\\"), so that no byte of a file forges a line or
 * reaches the terminal as a control sequence. Thread-safety: pure.
 */
#include "core/escape.h"

/* The bytes with a name of their own after the backslash. */
static const char named[][2] = {
	{ '\n', 'n' }, { '\r', 'r' }, { '\t', 't' }, { '\v', 'v' }, { '\f', 'f' },
	{ '"', '"' }, { '\\', '\\' }, { '\a', 'a' }, { '\033', 'e' },
};

/**
 * pks_escape_byte() - @c as a listing shows it: printable ASCII as it is
 * but for '"' and '\\', which get a backslash; \n \r \t \v \f \a \e by
 * name; any other byte as a backslash and three octal digits
 * Return: the bytes written to @out.
 */
size_t pks_escape_byte(char out[PKS_ESCAPE_MAX], unsigned char c)
{
	if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
		out[0] = (char)c;
		return 1;
	}
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (named[i][0] == (char)c) {
			out[0] = '\\';
			out[1] = named[i][1];
			return 2;
		}
	out[0] = '\\';
	out[1] = (char)('0' + (c >> 6));
	out[2] = (char)('0' + ((c >> 3) & 7));
	out[3] = (char)('0' + (c & 7));
	return 4;
}

/**
 * pks_escape() - the C string @s escaped into @buf, @size bytes, as snprintf() would
 * Return: the length the whole of it needs, without its NUL.
 */
size_t pks_escape(char *buf, size_t size, const char *s)
{
	size_t n = 0;
	char one[PKS_ESCAPE_MAX];

	for (; *s; s++) {
		size_t k = pks_escape_byte(one, (unsigned char)*s);

		for (size_t i = 0; i < k; i++, n++)
			if (n + 1 < size)
				buf[n] = one[i];
	}
	if (size)
		buf[n < size ? n : size - 1] = '\0';
	return n;
}
