// SPDX-License-Identifier: MIT
/*
 * The shim's own messages: warnings about the configuration and lost
 * output, the debug report, lint. Never on the output path of a line, so it
 * may format with vsnprintf; it still writes with one write(2) and never
 * fails its caller. Thread-safety: each message is a single write.
 */
#include "base/say.h"
#include "base/fdio.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/** pks_strerror() - strerror without its locale lookup and static buffer. */
const char *pks_strerror(int err)
{
	const char *s = strerrordesc_np(err);

	return s ? s : "unknown error";
}

/** pks_say() - write "printk-shim: @kind: message\n" to fd 2 in one write. */
void pks_say(const char *kind, const char *fmt, ...)
{
	char buf[1024];
	size_t n, room;
	va_list ap;
	int m;

	n = (size_t)snprintf(buf, sizeof(buf), "printk-shim: %s: ", kind);
	room = sizeof(buf) - n - 1;	/* keep one byte for the newline */
	va_start(ap, fmt);
	m = vsnprintf(buf + n, room, fmt, ap);
	va_end(ap);
	if (m > 0)
		n += (size_t)m < room ? (size_t)m : room - 1;
	buf[n++] = '\n';
	pks_fd_write(2, buf, n);	/* EINTR, short writes and EAGAIN, as for lines */
}
