// SPDX-License-Identifier: MIT
/*
 * pks_quote(): a value for a message of the command, escaped as
 * printk-shim(1) DIAGNOSTICS says: the wrapper's, --check's, --index's and
 * --dyndbg-list's messages alike.
 */
#include "cmd/quote.h"
#include "base/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * @s as a message may quote it: newline, tab and backslash as \n, \t, \\,
 * other control bytes as \xNN, as the kernel's %pE does, so that a value
 * cannot end the message and forge a line of its own nor send a terminal
 * sequence: C0, DEL and C1, raw or a C1 control encoded in UTF-8 (both
 * bytes); a valid UTF-8 character is kept. The result lives until four
 * more calls.
 */
const char *pks_quote(const char *s)
{
	static char *ring[4];
	static unsigned int next;
	char **slot = &ring[next++ % 4], *o;

	free(*slot);
	*slot = o = malloc(4 * strlen(s) + 1);
	if (!o)
		return "(out of memory)";
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t u = c >= 0x80 ? pks_utf8_printable((const unsigned char *)s, strlen(s)) : 0;

		if (u) {
			memcpy(o, s, u);
			o += u;
			s += u - 1;
		} else if (c == '\n' || c == '\t' || c == '\\') {
			o += sprintf(o, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : '\\');
		} else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) ||
			   (c == 0xc2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9f)) {
			o += sprintf(o, "\\x%02x", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o = '\0';
	return *slot;
}
