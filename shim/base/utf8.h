/* SPDX-License-Identifier: MIT */
/*
 * What a message may show of a byte beyond ASCII: a printable UTF-8
 * character as it is, anything else (an invalid sequence, a C1 control)
 * escaped. The module's messages and the command's quote alike.
 */
#ifndef PKS_BASE_UTF8_H
#define PKS_BASE_UTF8_H

#include <stddef.h>

/*
 * The length of the UTF-8 sequence at @s (at most @n bytes) that is a
 * printable character beyond ASCII, or 0: an invalid one, or a C1 control
 * (U+0080 to U+009F, 0xc2 0x80 to 0xc2 0x9f).
 */
static inline size_t pks_utf8_printable(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;

	if (s[0] < 0xc2 || s[0] > 0xf4 || len > n || (s[0] == 0xc2 && s[1] < 0xa0))
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

#endif
