// SPDX-License-Identifier: MIT
/*
 * The journal output: each line one entry of journald's native protocol,
 * one datagram to its socket, or a sealed memfd passed over it when the
 * entry is too large for a datagram (printk-shim(7) OUTPUTS AND FORMATS).
 * Thread-safety: lock-free and async-signal-safe; a handler's line never waits.
 */
#include "sink/journal.h"
#include "base/clock.h"
#include "base/compiler.h"
#include "base/digits.h"
#include "base/fdio.h"
#include "base/fdturn.h"
#include "base/say.h"
#include "config/config.h"
#include "core/level.h"
#include "core/render.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define FIELDS_MAX	512	/* every field but the message */
#define SNDBUF		(8 << 20)	/* as systemd's own clients ask */
#define WAIT_S		1	/* a calm line waits this long for a full journal */

/*
 * The shared socket in one word, so that no thread pairs one socket's
 * descriptor with another's inode: the inode number's low 32 bits (all of
 * a socket's, on Linux) << 32 | the descriptor + 1; 0: none yet.
 */
static _Atomic uint64_t sock;
static _Atomic int down;			/* an outage was reported */
static _Atomic int busy_warned;
static _Atomic unsigned long diverted;	/* lines written to stderr meanwhile */

static uint32_t ino_of(int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !S_ISSOCK(st.st_mode))
		return 0;
	return (uint32_t)st.st_ino;
}

static int fd_in(uint64_t w)
{
	return (int)(uint32_t)w - 1;
}

/*
 * A new datagram socket, set up: its descriptor and inode in one word, or
 * -errno. The program may close the number or put another file on it
 * meanwhile (a thread of its own closing every descriptor): the socket is
 * then not ours, and neither is the number, which is left alone; another
 * is made, twice at most.
 */
static int64_t fresh(void)
{
	struct timeval wait = { .tv_sec = WAIT_S };
	int want = SNDBUF, on = 1;

	for (int tries = 0; tries < 3; tries++) {
		int fd;
		uint32_t ino;

		pks_fd_making();
		fd = pks_fd_high(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
		pks_fd_made();
		ino = ino_of(fd);

		if (fd < 0)
			return -errno;
		if (!ino)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &want, sizeof(want));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof(wait));
		/*
		 * Our credentials go with every entry: the kernel attaches them at
		 * the send only when one side asks (unix(7) SO_PASSCRED), and
		 * journald asks just after it binds, so that an entry queued in
		 * between reaches it with pid 0 and is stored with no _PID.
		 */
		setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
		if (ino_of(fd) == ino)
			return (int64_t)((uint64_t)ino << 32 | (uint32_t)(fd + 1));
	}
	return -EBADF;
}

/*
 * The shared datagram socket. It is unconnected, so a journald restart
 * needs nothing from us; a program that closed it and reused the number
 * gets its descriptor left alone and we make another.
 * Return: the descriptor, or -errno.
 */
static int socket_get(void)
{
	/* pairs with the compare-exchange below, another thread's */
	uint64_t old = atomic_load(&sock);
	int64_t w;

	if (old && ino_of(fd_in(old)) == old >> 32)
		return fd_in(old);
	if ((w = fresh()) < 0)
		return (int)w;
	/* pairs with the load above, another thread's: descriptor and inode at once */
	if (!atomic_compare_exchange_strong(&sock, &old, (uint64_t)w)) {
		close(fd_in((uint64_t)w));	/* another thread's socket won */
		return fd_in(old);
	}
	return fd_in((uint64_t)w);
}

/* "NAME=value\n" with a value of at most @max bytes; one with a newline in the binary form. */
static char *text_field(char *p, const char *name, const char *v, size_t max)
{
	size_t n = strnlen(v, max);
	uint64_t le = n;

	p = pks_put_mem(p, name, strlen(name));
	if (!memchr(v, '\n', n)) {
		*p++ = '=';
	} else {	/* the protocol's binary form, as message_head()'s */
		*p++ = '\n';
		for (int i = 0; i < 8; i++, le >>= 8)
			*p++ = (char)(le & 0xff);
	}
	p = pks_put_mem(p, v, n);
	*p++ = '\n';
	return p;
}

static char *number_field(char *p, const char *name, unsigned long v)
{
	p = pks_put_mem(p, name, strlen(name));
	*p++ = '=';
	p = pks_put_udec(p, v, 1, '0');
	*p++ = '\n';
	return p;
}

/* Every field but MESSAGE. Return: its end. */
static char *fields(char *p, const struct pks_config *c, const struct pks_meta *j)
{
	p = number_field(p, "PRIORITY", (unsigned long)j->level);
	p = number_field(p, "SYSLOG_FACILITY", (unsigned long)c->set.syslog_facility >> 3);
	p = text_field(p, "SYSLOG_IDENTIFIER", c->ident, sizeof(c->ident));
	p = number_field(p, "SYSLOG_PID", (unsigned long)j->pid);
	p = number_field(p, "TID", (unsigned long)j->tid);
	p = text_field(p, "PRINTK_LEVEL", pks_level_name(j->level), 8);
	if (j->func)
		p = text_field(p, "CODE_FUNC", j->func, PKS_FUNC_MAX);
	return p;
}

/* The message's name and, for text with a newline, the protocol's binary length. */
static size_t message_head(char *h, const char *text, size_t n)
{
	uint64_t le = n;

	if (!memchr(text, '\n', n)) {
		memcpy(h, "MESSAGE=", 8);
		return 8;
	}
	memcpy(h, "MESSAGE\n", 8);
	for (int i = 0; i < 8; i++, le >>= 8)
		h[8 + i] = (char)(le & 0xff);
	return 16;
}

/* send_memfd() with the memfd @mfd made: sealed, sent and closed. */
static int sent(int fd, struct msghdr *m, int mfd)
{
	union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } ctl;
	struct msghdr fdm = { .msg_name = m->msg_name, .msg_namelen = m->msg_namelen,
			      .msg_control = &ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;
	int err = 0;

	for (size_t i = 0; i < m->msg_iovlen && !err; i++)
		err = pks_fd_write(mfd, m->msg_iov[i].iov_base, m->msg_iov[i].iov_len);
	if (!err && fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL))
		err = errno;
	memset(&ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&fdm);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &mfd, sizeof(int));
	while (!err && sendmsg(fd, &fdm, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			err = errno;
	close(mfd);
	return err;
}

/*
 * An entry too large for a datagram: in a sealed memfd, passed as
 * SCM_RIGHTS; the memfd kept apart from the program's closes until it is
 * moved up (base/fdturn.h).
 */
static int send_memfd(int fd, struct msghdr *m)
{
	int mfd, err;

	pks_fd_making();
	mfd = pks_fd_high(memfd_create("printk-shim", MFD_CLOEXEC | MFD_ALLOW_SEALING));
	err = errno;
	pks_fd_made();
	return mfd < 0 ? err : sent(fd, m, mfd);
}

/* journald's socket at @path (checked when it was read) in @a. */
static void address(struct sockaddr_un *a, const char *path)
{
	*a = (struct sockaddr_un){ .sun_family = AF_UNIX };
	memcpy(a->sun_path, path, strnlen(path, sizeof(a->sun_path) - 1));
}

/*
 * @wait: up to WAIT_S for room in a full journal; never in a handler, nor
 * during an outage, whose lines go to stderr at once.
 * Return: 0, or the errno of the send.
 */
static int send_entry(const char *path, struct iovec *iov, int n, bool wait)
{
	struct sockaddr_un a;
	struct msghdr m = { .msg_name = &a, .msg_namelen = sizeof(a), .msg_iov = iov,
			    .msg_iovlen = (size_t)n };
	int fd = socket_get();

	if (fd < 0)
		return -fd;
	address(&a, path);
	for (;;) {
		if (sendmsg(fd, &m, MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT)) >= 0)
			return 0;
		if (errno == EMSGSIZE || errno == ENOBUFS)
			return send_memfd(fd, &m);
		if (errno != EINTR)
			return errno;
	}
}

static void outage(const struct pks_config *c, int err, bool calm)
{
	if (err == EAGAIN && !calm) {
		/* a handler's line never waits: not an outage; no pair: one warning */
		if (!atomic_exchange(&busy_warned, 1))
			pks_warn("journal: %s: %s for a signal handler's line; writing such lines to stderr",
				 c->set.journal_socket, pks_strerror(err));
		return;
	}
	/* pairs with delivered()'s exchange: one warning each way */
	if (!atomic_exchange(&down, 1))
		pks_warn("journal: %s: %s; writing its lines to stderr until it is back",
			 c->set.journal_socket, pks_strerror(err));
	atomic_fetch_add(&diverted, 1);	/* no pair: a count, taken whole below */
}

static void delivered(const struct pks_config *c)
{
	unsigned long n;

	/* no pair: a quick look; the exchange, paired with outage()'s, decides */
	if (likely(!atomic_load_explicit(&down, memory_order_relaxed)) || !atomic_exchange(&down, 0))
		return;
	n = atomic_exchange(&diverted, 0);	/* no pair: outage()'s count, whole */
	pks_warn("journal: %s: delivering again; %lu line%s went to stderr meanwhile",
		 c->set.journal_socket, n, n == 1 ? "" : "s");
}

/**
 * pks_journal_render() - @j's line as the entry pks_journal_line() sends
 * Return: its length in @buf, or 0: it might not fit @room.
 */
size_t pks_journal_render(const struct pks_config *c, const struct pks_meta *j,
			  const char *text, size_t n, char *buf, size_t room)
{
	char *p;

	if (room < FIELDS_MAX + 17 || room - FIELDS_MAX - 17 < n)
		return 0;
	p = fields(buf, c, j);
	p += message_head(p, text, n);
	p = pks_put_mem(p, text, n);
	*p++ = '\n';
	return (size_t)(p - buf);
}

/**
 * pks_journal_send_many() - @k rendered entries, in order, with one
 * sendmmsg(2) outside an outage. Return: how many were delivered; the
 * caller sends the rest again with pks_journal_line(), which knows what to
 * do with an entry too large for a datagram or a journal that is gone.
 */
unsigned int pks_journal_send_many(const struct pks_config *c, struct mmsghdr *v, unsigned int k)
{
	struct sockaddr_un a;
	int fd = socket_get(), r = 0;
	unsigned int sent = 0;
	uint64_t until;
	bool full;

	if (fd < 0 || atomic_load(&down))	/* no pair: a flag, nothing read through it */
		return 0;
	address(&a, c->set.journal_socket);
	for (unsigned int i = 0; i < k; i++) {
		v[i].msg_hdr.msg_name = &a;
		v[i].msg_hdr.msg_namelen = sizeof(a);
	}
	/* each call may wait WAIT_S for room (SO_SNDTIMEO), the batch as long as a line */
	until = pks_now_ns() + WAIT_S * 1000000000ull;
	while (sent < k && ((r = sendmmsg(fd, v + sent, k - sent, MSG_NOSIGNAL)) > 0 ||
			    (r < 0 && errno == EINTR))) {
		sent += r > 0 ? (unsigned int)r : 0;
		if (sent < k && pks_now_ns() >= until)
			break;
	}
	/* full that long, a call's own wait or the batch's: the rest to stderr, not waited for again */
	full = sent < k && (r > 0 || (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)));
	if (sent)
		delivered(c);
	if (full)
		outage(c, EAGAIN, true);
	return sent;
}

/**
 * pks_journal_line() - one complete line as one journal entry
 * Return: 0 delivered; -1 not, and the caller writes it to stderr.
 */
int pks_journal_line(const struct pks_config *c, const struct pks_meta *j,
		     const char *text, size_t n)
{
	char head[FIELDS_MAX], mh[16];
	struct iovec iov[4] = {
		{ head, 0 }, { mh, message_head(mh, text, n) }, { (void *)text, n }, { (void *)"\n", 1 },
	};
	int err, saved = errno;

	iov[0].iov_len = (size_t)(fields(head, c, j) - head);
	/* no pair: a flag, nothing read through it */
	err = send_entry(c->set.journal_socket, iov, 4,
			 j->patient && !atomic_load_explicit(&down, memory_order_relaxed));
	if (err)
		outage(c, err, j->patient);
	else
		delivered(c);
	errno = saved;
	return err ? -1 : 0;
}
