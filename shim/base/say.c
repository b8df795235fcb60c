// SPDX-License-Identifier: MIT
/*
 * The shim's own messages: warnings about the configuration and lost
 * output, the debug report, lint. Never on the output path of a line, so it
 * may format with vsnprintf; it still writes with one write(2) and never
 * fails its caller. Thread-safety: each message is a single write.
 */
#include "base/say.h"
#include "base/digits.h"
#include "base/fdio.h"
#include "base/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/** pks_strerror() - strerror without its locale lookup and static buffer. */
const char *pks_strerror(int err)
{
	const char *s = strerrordesc_np(err);

	return s ? s : "unknown error";
}

/*
 * Copy @n bytes of @s to @out (@room bytes) with every control byte written
 * out, so that a value or a fragment quoted in a message can neither end
 * the line nor start a forged one or a terminal sequence: \n \r \t, others
 * \xNN. Control bytes are C0, DEL and C1 (0x80 to 0x9f), as the kernel's
 * %pE counts them; a C1 byte inside a valid UTF-8 character is left alone,
 * a C1 control encoded in UTF-8 is escaped. An escape that does not fit is
 * left out whole.
 * Return: bytes written.
 */
static size_t escape(char *out, size_t room, const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[4] = { '\\', 0, 0, 0 };
		size_t len = 2, u = c >= 0x80 ? pks_utf8_printable((const unsigned char *)s + i, n - i) : 0;

		if (u) {
			if (o + u > room)
				break;
			memcpy(out + o, s + i, u);
			o += u;
			i += u - 1;
			continue;
		}
		if (c >= 0x20 && c != 0x7f && (c < 0x80 || c > 0x9f) &&
		    !(c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] <= 0x9f))
			e[0] = (char)c, len = 1;
		else if (c == '\n' || c == '\r' || c == '\t')
			e[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
		else
			e[1] = 'x', e[2] = pks_hex_lower[c >> 4], e[3] = pks_hex_lower[c & 15], len = 4;
		if (o + len > room)
			break;
		memcpy(out + o, e, len);
		o += len;
	}
	return o;
}

_Atomic bool pks_say_muted;

/*
 * The start-up words of a process that may never print, kept here until
 * pks_say_release() (base/say.h): only the constructor holds, before other
 * threads exist, and a fork child's handlers, in its one thread;
 * pthread_create() orders their stores before any line of another thread.
 * A word that does not fit is written at once.
 */
static char held[4096];
static size_t nheld;
static _Atomic bool holding, released;

/** pks_say_hold() - from now on, hold every message (@on), or no longer hold new ones */
void pks_say_hold(bool on)
{
	/* no pair: the constructor's own flag, as above */
	atomic_store_explicit(&holding, on, memory_order_relaxed);
}

/**
 * pks_say_release() - the messages held, written once, in order: at the
 * first line (emit.c), which a held word may concern
 */
void pks_say_release(void)
{
	pks_say_hold(false);
	/* no pair: one caller writes them; the bytes were stored before any line, as above */
	if (nheld && !atomic_exchange_explicit(&released, true, memory_order_relaxed))
		pks_fd_write(2, held, nheld);
}

/* @buf held, if holding and it fits. Return: whether it was. */
static bool keep(const char *buf, size_t n)
{
	/* no pair: as pks_say_hold() */
	if (!atomic_load_explicit(&holding, memory_order_relaxed) || nheld + n > sizeof(held))
		return false;
	memcpy(held + nheld, buf, n);
	nheld += n;
	return true;
}

/**
 * pks_say() - write "printk-shim: @kind: message\n" to fd 2 in one write
 * The message is always one line: control bytes in it are escaped.
 */
void pks_say(const char *kind, const char *fmt, ...)
{
	char raw[1024], buf[1024];
	size_t n;
	va_list ap;
	int m;

	va_start(ap, fmt);
	m = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n = (size_t)snprintf(buf, sizeof(buf), "printk-shim: %s: ", kind);
	n += escape(buf + n, sizeof(buf) - n - 1,	/* keep one byte for the newline */
		    raw, (size_t)m < sizeof(raw) ? (size_t)m : sizeof(raw) - 1);
	buf[n++] = '\n';
	/* no pair: a flag of the program's own calls, no data behind it */
	if (!atomic_load_explicit(&pks_say_muted, memory_order_relaxed) && !keep(buf, n))
		pks_fd_write(2, buf, n);	/* EINTR, short writes and EAGAIN, as for lines */
}
