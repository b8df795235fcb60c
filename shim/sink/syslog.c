// SPDX-License-Identifier: MIT
/*
 * The syslog output. A line becomes one message, in the format of glibc's
 * syslog(3), RFC 3164: "<PRI>Mmm dd hh:mm:ss IDENT[PID]: text" (local time,
 * no host), or with PRINTK_SHIM_SYSLOG_FORMAT=rfc5424
 * "<PRI>1 TIME HOST APP PID - - text"; PRI is the facility plus the printk
 * level. It goes out in one send on the shim's own socket, never through
 * openlog()/syslog(), whose state belongs to the program. A send that the
 * connection broke is tried once more on a new connection; a line that
 * still cannot go is refused, and sink.c writes it to stderr. The first
 * refusal of an outage says why, in one warning; the outage ends when a
 * connection made after it delivers. Nothing here allocates, uses stdio or
 * takes a lock: lines come from signal handlers, fatal signals and forked
 * children too. The socket is syslog-conn.c's, the clock syslog-time.c's.
 * Thread-safety: lock-free, async-signal-safe.
 */
#include "sink/syslog.h"
#include "sink/syslog-impl.h"
#include "base/compiler.h"
#include "base/digits.h"
#include "base/say.h"
#include "config/config.h"
#include "core/level.h"
#include "core/render.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define HEAD_MAX	512	/* the longest header, structured data included */
#define APP_MAX		48	/* RFC 5424 APP-NAME */
#define HOST_MAX	255	/* RFC 5424 HOSTNAME */

static _Atomic unsigned int down;	/* 0, or 1 + the connection count when an outage began */
static _Atomic int big_warned, busy_warned;
static _Atomic unsigned long diverted;		/* lines written to stderr in the outage */

/* An RFC 5424 header field: printable ASCII without space, "-" when empty. */
static char *put_field(char *p, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++)
		p[i] = s[i] > ' ' && s[i] < 0x7f ? s[i] : '_';
	if (!i)
		p[i++] = '-';
	return p + i;
}

/*
 * An RFC 3164 tag: what PRINTK_SHIM_SYSLOG_IDENT refuses (a program's own
 * name may hold it) as '_', so that a collector's parser, which ends the
 * tag at a blank, a bracket or a colon, reads it whole.
 */
static char *put_tag(char *p, const char *s)
{
	for (; *s; s++)
		*p++ = (unsigned char)*s < ' ' || *s == 0x7f || strchr(" []:", *s) ? '_' : *s;
	return p;
}

static char *put_pri(char *p, int pri)
{
	*p++ = '<';
	p = pks_put_udec(p, (uint64_t)pri, 1, '0');
	*p++ = '>';
	return p;
}

/* With PRINTK_SHIM_CALLER=1, the thread as the kernel's console shows it. */
static size_t head_3164(char *h, int pri, const struct pks_sltime *t, const struct pks_config *c,
			const struct pks_meta *m)
{
	char *p = put_pri(h, pri);

	p += pks_sltime_3164(p, t);
	*p++ = ' ';
	p = put_tag(p, c->ident);
	*p++ = '[';
	p = pks_put_udec(p, (uint64_t)m->pid, 1, '0');
	p = pks_put_mem(p, "]: ", 3);
	if (c->set.caller) {
		p = pks_put_mem(p, "[T", 2);
		p = pks_put_udec(p, (uint64_t)m->tid, 1, '0');
		p = pks_put_mem(p, "] ", 2);
	}
	return (size_t)(p - h);
}

/* An RFC 5424 PARAM-VALUE: '"', '\\' and ']' escaped, at most @max bytes of @s. */
static char *put_sdvalue(char *p, const char *s, size_t max)
{
	*p++ = '"';
	for (size_t i = 0; s[i] && i < max; i++) {
		if (s[i] == '"' || s[i] == '\\' || s[i] == ']')
			*p++ = '\\';
		*p++ = s[i];
	}
	*p++ = '"';
	return p;
}

/*
 * [printk@32473 level="4" level_name="warn" tid="123" caller="fn"]: what a
 * collector needs to keep of the line (printk-shim(7) Syslog). 32473 is the
 * enterprise number RFC 5612 sets aside for documentation: the shim has none.
 */
static char *put_sd(char *p, const struct pks_meta *m)
{
	p = pks_put_mem(p, "[printk@32473 level=\"", 21);
	p = pks_put_udec(p, (uint64_t)m->level, 1, '0');
	p = pks_put_mem(p, "\" level_name=", 13);
	p = put_sdvalue(p, pks_level_name(m->level), 8);
	p = pks_put_mem(p, " tid=\"", 6);
	p = pks_put_udec(p, (uint64_t)m->tid, 1, '0');
	*p++ = '"';
	if (m->func) {
		p = pks_put_mem(p, " caller=", 8);
		p = put_sdvalue(p, m->func, PKS_FUNC_MAX);
	}
	*p++ = ']';
	return p;
}

static size_t head_5424(char *h, int pri, const struct pks_sltime *t, const char *ident,
			const struct pks_meta *m)
{
	struct utsname u;
	char *p = pks_put_mem(put_pri(h, pri), "1 ", 2);

	if (uname(&u))
		u.nodename[0] = '\0';
	p += pks_sltime_5424(p, t);
	*p++ = ' ';
	p = put_field(p, u.nodename, HOST_MAX);
	*p++ = ' ';
	p = put_field(p, ident, APP_MAX);
	*p++ = ' ';
	p = pks_put_udec(p, (uint64_t)m->pid, 1, '0');
	p = put_sd(pks_put_mem(p, " - ", 3), m);
	*p++ = ' ';
	return (size_t)(p - h);
}

/* The message header for the line @m says, now. */
static size_t head(const struct pks_config *c, const struct pks_meta *m, char *h)
{
	int pri = c->set.syslog_facility | m->level;
	struct pks_sltime t;
	struct timespec ts;

	pks_sltime_prepare(m->calm);	/* the zone only where it is safe to read */
	clock_gettime(CLOCK_REALTIME, &ts);
	pks_sltime_at(&ts, m->calm, &t);
	if (c->set.syslog_format == PKS_SYSLOG_RFC5424)
		return head_5424(h, pri, &t, c->ident, m);
	return head_3164(h, pri, &t, c, m);
}

/*
 * One message on @s: @iov holds the header, the text and the NUL that ends
 * a message on a stream (glibc's framing). There a NUL in the text would
 * end the message early and make the rest a message of its own, so each
 * goes as the four bytes \x00 (printk-shim(7) SYSLOG); the stream is ours
 * for the whole message (pks_slconn_get()). Return: 0 or errno.
 */
static int send_one(const struct pks_slsock *s, const struct iovec *iov, int cancel)
{
	const char *t = iov[1].iov_base, *z;
	size_t n = iov[1].iov_len;
	struct iovec v[3] = { iov[0] };
	int k = 1, err = 0;

	if (!s->stream)
		return pks_slconn_send(s, iov, 2, cancel);
	while (!err && (z = memchr(t, '\0', n))) {
		v[k++] = (struct iovec){ (void *)t, (size_t)(z - t) };
		v[k++] = (struct iovec){ (void *)"\\x00", 4 };
		err = pks_slconn_send(s, v, k, cancel);
		n -= (size_t)(z - t) + 1;
		t = z + 1;
		k = 0;
	}
	v[k++] = (struct iovec){ (void *)t, n };
	v[k++] = iov[2];
	return err ? err : pks_slconn_send(s, v, k, cancel);
}

/*
 * Send, and once more on a new connection if the old one broke; @cancel,
 * the caller's cancellation state, for the send (pks_slconn_send()).
 * Return: 0 or errno.
 */
static int deliver(const char *path, struct iovec *iov, struct pks_slsock *s, bool calm, int cancel)
{
	int err = 0;

	for (int tries = 0; tries < 2; tries++) {
		err = pks_slconn_get(path, s, calm);
		if (err)
			return err;
		err = send_one(s, iov, cancel);
		if (!pks_slconn_put(s, err))
			return err;
	}
	return err;
}

static void outage(const struct pks_config *c, int err)
{
	unsigned int none = 0;

	/* pairs with delivered()'s compare-exchange: one warning each way */
	if (atomic_compare_exchange_strong(&down, &none, pks_slconn_gen() + 1))
		pks_warn("syslog: %s: %s; writing its lines to stderr until it is back",
			 c->set.syslog_socket, pks_strerror(err));
	atomic_fetch_add(&diverted, 1);	/* no pair: a count, taken whole below */
}

static void delivered(const struct pks_config *c, const struct pks_slsock *s)
{
	/* no pair: a quick look; the compare-exchange below decides */
	unsigned int d = atomic_load_explicit(&down, memory_order_relaxed);
	unsigned long n;

	/* pairs with outage()'s compare-exchange */
	if (likely(!d) || s->gen < d || !atomic_compare_exchange_strong(&down, &d, 0))
		return;
	n = atomic_exchange(&diverted, 0);	/* no pair: outage()'s count, whole */
	pks_warn("syslog: %s: delivering again; %lu line%s went to stderr meanwhile",
		 c->set.syslog_socket, n, n == 1 ? "" : "s");
}

/*
 * Not an outage: a line too long, or a handler's line that a hasty socket
 * (@s) could not send or connect at once. Anything else is one, a full
 * backlog on the connect of an ordinary socket too.
 */
static void refused(const struct pks_config *c, const struct pks_slsock *s, size_t n, int err)
{
	bool busy = err == EAGAIN && s->hasty;

	/* no pair: each exchange only elects the one warning */
	if (err == EMSGSIZE && !atomic_exchange(&big_warned, 1))
		pks_warn("syslog: a line of %zu bytes: %s; writing such lines to stderr",
			 n, pks_strerror(err));
	else if (busy && !atomic_exchange(&busy_warned, 1))	/* no pair: as above */
		pks_warn("syslog: %s: %s for a signal handler's line; writing such lines to stderr",
			 c->set.syslog_socket, pks_strerror(err));
	else if (err != EMSGSIZE && !busy)
		outage(c, err);
}

/**
 * pks_syslog_line() - one complete line to syslog
 * Return: 0 delivered; -1 not, and the caller writes it to stderr.
 */
int pks_syslog_line(const struct pks_config *c, const struct pks_meta *m,
		    const char *text, size_t n)
{
	char h[HEAD_MAX];
	struct iovec iov[3] = {
		{ h, head(c, m, h) }, { (void *)text, n }, { (void *)"", 1 },
	};
	struct pks_slsock s;
	int err, cancel, saved = errno;

	/* cancelled only in the send itself, which gives back what it holds */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	err = deliver(c->set.syslog_socket, iov, &s, m->calm, cancel);
	pthread_setcancelstate(cancel, NULL);
	if (err)
		refused(c, &s, n, err);
	else
		delivered(c, &s);
	errno = saved;
	return err ? -1 : 0;
}

/**
 * pks_syslog_render() - @m's line as the datagram pks_syslog_line() sends
 * Return: its length in @buf, or 0: it might not fit @room.
 */
size_t pks_syslog_render(const struct pks_config *c, const struct pks_meta *m,
			 const char *text, size_t n, char *buf, size_t room)
{
	size_t hn;

	if (room < HEAD_MAX || room - HEAD_MAX < n)
		return 0;
	hn = head(c, m, buf);
	memcpy(buf + hn, text, n);
	return hn + n;
}

/**
 * pks_syslog_send_many() - @k rendered messages, in order, with one
 * sendmmsg(2) where it can: on the shared datagram connection, outside an
 * outage. Return: how many were delivered; the caller sends the rest again
 * with pks_syslog_line(), which knows what to do when one cannot go.
 */
unsigned int pks_syslog_send_many(const struct pks_config *c, struct mmsghdr *v, unsigned int k)
{
	struct pks_slsock s;
	unsigned int sent = 0;
	int err;

	/* no pair: a flag for a quick decision, nothing read through it */
	if (atomic_load(&down) || pks_slconn_get(c->set.syslog_socket, &s, true))
		return 0;
	err = s.stream || s.own ? 0 : pks_slconn_send_many(&s, v, k, &sent);
	pks_slconn_put(&s, err);
	if (sent)
		delivered(c, &s);
	return sent;
}

/**
 * pks_syslog_setup() - before main, when syslog is an output: read the time
 * zone while the process is still one thread and in no handler, and let a
 * forked child make its own connection
 */
void pks_syslog_setup(const struct pks_config *c)
{
	for (int i = 0; i < c->nout; i++) {
		if (c->out[i].kind == PKS_OUT_SYSLOG) {
			pks_sltime_prepare(true);
			pks_slconn_setup();
			return;
		}
	}
}

/**
 * pks_syslog_gone() - this thread ends: what a send it was cancelled in,
 * or a jump cut off, holds is given back (syslog-conn.c)
 */
void pks_syslog_gone(void)
{
	pks_slconn_gone();
}
