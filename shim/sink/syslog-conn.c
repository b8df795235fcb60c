// SPDX-License-Identifier: MIT
/*
 * The syslog connection: one AF_UNIX socket per process, shared by all its
 * threads and handlers, opened on the first line: datagram, or stream where
 * the path is a stream socket (glibc's order), SOCK_CLOEXEC, every send
 * MSG_NOSIGNAL. The state is one atomic word (descriptor, senders, flags),
 * never a lock: a sender counts itself in for one line; a socket found
 * broken is marked dead, later senders get a new one, and the last sender
 * out closes the dead one. So a descriptor is never closed under a thread
 * still sending on it, whose number the program could have reused by then.
 * The program may close our descriptor itself (daemons close every fd when
 * they detach) and reuse the number: a thread checks that the descriptor is
 * still our socket, made by this process, on its first line on a connection
 * and every CHECK_EVERY lines, and so does a send that fails before the
 * socket is given up; one that is not ours is forgotten, never written
 * again or closed. A check is a system call: one a line would cost about
 * what the send costs.
 * A stream is a byte pipe: a send can be cut short (full buffer, signal),
 * and the kernel may queue a long one in pieces that interleave with
 * another thread's. So one send per line is not enough: the shared stream
 * carries one line at a time (an owner word). A handler that interrupted
 * the owner cannot wait for it and gets a socket of its own that never
 * waits; if that cannot take its line at once, the line is refused.
 * A full queue (a stopped reader) is waited out for as long as the socket
 * lives: an ordinary line blocks in its send, as glibc's syslog(3) does,
 * and the kernel wakes it when there is room or the reader is gone; a
 * handler's line, which must not sleep in the kernel under a lock the
 * program holds, sends without blocking and waits with poll or sleep, a
 * backoff up to 100 ms a round. A connect never waits: a stream daemon
 * that accepts no more (its backlog full) is as down as one that refuses.
 * A failed connect is not tried again for 100 ms: a dead daemon costs
 * nothing per line.
 * Thread-safety: the connection's state is lock-free; ordinary senders take
 * turns on a datagram socket (send_lock), which a handler never waits for,
 * so everything a handler calls is async-signal-safe; a forked child starts
 * with no connection (its atfork handler), and takes the turn over.
 */
#include "sink/syslog-impl.h"
#include "base/clock.h"
#include "base/compiler.h"
#include "base/fdio.h"
#include "base/pid.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define W_FD		0xffffffffull		/* descriptor + 1; 0: none */
#define W_USER		(1ull << 32)
#define W_USERS		(0x1fffffffull << 32)	/* senders counted in */
#define W_LOST		(1ull << 61)		/* not ours any more: never close it */
#define W_DEAD		(1ull << 62)		/* broken (or, without W_FD, being set up) */
#define W_STREAM	(1ull << 63)
#define HOLDOFF_NS	100000000ll
#define WAIT_MAX_MS	100
#define CHECK_EVERY	64	/* lines of a thread between two checks of the descriptor */
#define SETUP_WAIT_MS	64	/* the longest a sender waits for another's connect to be shared */
#define RACED		(-1)	/* fresh(): another sender shared a socket first */
#define L_WAIT		(1u << 31)	/* send_lock: a thread sleeps on it */

enum verdict { KEEP, BROKEN, LOST };
enum fresh { SHARE, OWN, HASTY };

static _Atomic uint64_t conn;
static _Atomic uint64_t conn_ino;	/* st_ino of the socket in conn */
static _Atomic pid_t conn_pid;		/* the process that made it */
static _Atomic unsigned int conn_gen;	/* its number */
static _Atomic unsigned int gens;	/* connections made so far */
static _Atomic long stream_owner;	/* thread sending on the shared stream, or 0 */
static _Atomic int64_t retry_at;	/* CLOCK_MONOTONIC ns: no connect before */
static _Atomic int refused;		/* why the last connect failed */
static _Atomic uint32_t send_lock;	/* pid of the process sending, | L_WAIT; or 0 */
static PKS_TLS unsigned int checked_gen;	/* the connection this thread checked last */
static PKS_TLS unsigned int unchecked;	/* its lines since */

static uint64_t ino_of(int fd)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISSOCK(st.st_mode))
		return 0;
	return (uint64_t)st.st_ino;
}

static void grow(int *ms)
{
	*ms = *ms * 2 > WAIT_MAX_MS ? WAIT_MAX_MS : *ms * 2;
}

static void nap(int *ms)
{
	struct timespec ts = { 0, *ms * 1000000L };

	nanosleep(&ts, NULL);
	grow(ms);
}

/*
 * A socket connected to @path, without waiting: a stream listener that
 * accepts no more (its backlog full) fails the connect with EAGAIN at once,
 * where a blocking connect would hold the line, and the program, until it
 * accepts. @flags: SOCK_NONBLOCK, a hasty socket; or 0, one that blocks in
 * its sends once connected (O_NONBLOCK, its one status flag, cleared).
 * Return: the descriptor, or -errno.
 */
static int dial(const char *path, int flags, bool *stream)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int type = SOCK_DGRAM;

	strncpy(a.sun_path, path, sizeof(a.sun_path) - 1);
	for (;;) {
		int fd = pks_fd_high(socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)), err;

		if (fd < 0)
			return -errno;
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
		    (flags || fcntl(fd, F_SETFL, 0) == 0)) {
			*stream = type == SOCK_STREAM;
			return fd;
		}
		err = errno;
		close(fd);
		if (err == EPROTOTYPE && type == SOCK_DGRAM)
			type = SOCK_STREAM;
		else if (err != EINTR)
			return -err;
	}
}

/* dial(), but within HOLDOFF_NS of a failure only repeat its error. */
static int dial_held(const char *path, int flags, bool *stream)
{
	int64_t now = (int64_t)pks_now_ns();
	int fd;

	/* acquire: pairs with the release of retry_at below */
	if (now < atomic_load_explicit(&retry_at, memory_order_acquire))
		return -atomic_load_explicit(&refused, memory_order_relaxed);
	fd = dial(path, flags, stream);
	/* EAGAIN: a full backlog; for a hasty socket a busy daemon, not an outage */
	if (fd < 0 && (fd != -EAGAIN || !flags)) {
		/* no pair: the release of retry_at below publishes it */
		atomic_store_explicit(&refused, -fd, memory_order_relaxed);
		/* release: pairs with the acquire of retry_at above */
		atomic_store_explicit(&retry_at, now + HOLDOFF_NS, memory_order_release);
	}
	return fd;
}

/* A new socket for @s: the shared one if there is none and @how says so, else its own. */
static int fresh(const char *path, struct pks_slsock *s, enum fresh how)
{
	uint64_t none = 0, ino;
	bool stream = false;
	int fd = dial_held(path, how == HASTY ? SOCK_NONBLOCK : 0, &stream);

	if (fd < 0) {
		s->hasty = how == HASTY;	/* the socket that failed (pks_slconn_get()) */
		return -fd;
	}
	ino = ino_of(fd);
	/* no pair: a number for each connection, no data behind it */
	*s = (struct pks_slsock){ fd, stream, true, how == HASTY, atomic_fetch_add(&gens, 1) + 1 };
	if (how != SHARE)
		return 0;
	/* no pair: it claims the setup; W_DEAD keeps pin() off until the release below */
	if (!atomic_compare_exchange_strong(&conn, &none, W_DEAD)) {
		/*
		 * Another sender's connection is the shared one: a line sent on
		 * a stream of its own could reach the daemon after this
		 * thread's later lines on the shared one. Never shared, so closed.
		 */
		close(fd);
		return RACED;
	}
	/* no pair: the release of conn below publishes these */
	atomic_store_explicit(&conn_ino, ino, memory_order_relaxed);
	atomic_store_explicit(&conn_pid, pks_pid(), memory_order_relaxed);
	atomic_store_explicit(&conn_gen, s->gen, memory_order_relaxed);
	/*
	 * Nobody can own a stream not yet shared; a _Fork() child may have
	 * inherited an owner. No pair: published by the release below, too.
	 */
	atomic_store_explicit(&stream_owner, 0, memory_order_relaxed);
	/* release: pairs with pin()'s acquire: the fields above are seen first */
	atomic_store_explicit(&conn, (uint64_t)(fd + 1) | W_USER | (stream ? W_STREAM : 0),
			      memory_order_release);
	s->own = false;
	return 0;
}

/*
 * Count in on the shared socket. Return: 1 done, 0 there is none, -1 not
 * usable now, -2 about to be shared.
 */
static int pin(struct pks_slsock *s)
{
	/* acquire: pairs with the release that shared the socket above */
	uint64_t w = atomic_load_explicit(&conn, memory_order_acquire);

	do {
		if (!w)
			return 0;
		if (w == W_DEAD)
			return -2;	/* another sender is sharing its connect (fresh()) */
		if (!(w & W_FD) || (w & (W_DEAD | W_LOST)))
			return -1;
	/* acquire: pairs with the release that shared the socket, as above */
	} while (!atomic_compare_exchange_weak_explicit(&conn, &w, w + W_USER,
			memory_order_acquire, memory_order_acquire));
	s->fd = (int)(w & W_FD) - 1;
	s->stream = w & W_STREAM;
	s->own = false;
	s->hasty = false;
	/* pairs with fresh()'s release of conn, through the acquire above */
	s->gen = atomic_load_explicit(&conn_gen, memory_order_relaxed);
	return 1;
}

/* Count out; the last one out of a broken socket closes it. */
static void unpin(const struct pks_slsock *s, enum verdict how)
{
	/*
	 * Pairs with the other users' unpin(): each one's sends end before its
	 * count is given back, so the last one out closes after them all.
	 */
	uint64_t w = atomic_load(&conn), n;

	do {
		n = w - W_USER;
		if (how == BROKEN)
			n |= W_DEAD;
		if (how == LOST)
			n |= W_LOST;
		if ((n & (W_DEAD | W_LOST)) && !(n & W_USERS))
			n = 0;
		/* pairs with the others' unpin(), as above */
	} while (!atomic_compare_exchange_weak(&conn, &w, n));
	if (!n && !(w & W_LOST) && how != LOST)
		close(s->fd);
}

/* Still our socket, and made by this process (_Fork() runs no atfork handler)? */
static bool mine(const struct pks_slsock *s)
{
	uint64_t ino = ino_of(s->fd);

	/* pairs with fresh()'s release of conn, through pin()'s acquire */
	return ino && ino == atomic_load_explicit(&conn_ino, memory_order_relaxed) &&
	       atomic_load_explicit(&conn_pid, memory_order_relaxed) == pks_pid();
}

/*
 * Own the shared stream for one line. A handler that interrupted the owner
 * gets a hasty socket of its own, one that never waits: the daemon may be
 * waiting for the rest of the interrupted message before it reads another.
 */
static int hold_stream(const char *path, struct pks_slsock *s)
{
	long me, cur = 0;
	int ms = 1;

	if (!s->stream || s->own)
		return 0;
	me = gettid();
	/* pairs with pks_slconn_put()'s store of 0: the last owner's send is over */
	while (!atomic_compare_exchange_strong(&stream_owner, &cur, me)) {
		if (cur == me) {
			unpin(s, KEEP);
			return fresh(path, s, HASTY);
		}
		nap(&ms);
		cur = 0;
	}
	return 0;
}

/**
 * pks_slconn_get() - a socket to send one line on; connects if need be
 * Return: 0, or the errno of the failed connect (repeated for 100 ms), and
 * then @s->hasty says whether it was a hasty socket's, one of a handler
 * that found the shared stream busy: EAGAIN there is a busy daemon, not an
 * outage.
 */
int pks_slconn_get(const char *path, struct pks_slsock *s)
{
	int ms = 1, waited = 0;

	for (int i = 0; i < 2; i++) {
		int r = pin(s), err;

		/*
		 * Another sender's connect, a moment from shared: its socket,
		 * not one of this line's own (a handler that interrupted that
		 * very sender gives up waiting and takes one of its own).
		 */
		if (r == -2 && waited < SETUP_WAIT_MS) {
			waited += ms;
			nap(&ms);
			i--;
			continue;
		}
		if (r < 0)
			return fresh(path, s, OWN);
		if (r == 0) {
			err = fresh(path, s, SHARE);
			if (err == RACED)
				continue;	/* the winner's socket, from pin() */
			return err ? err : hold_stream(path, s);
		}
		/* pairs with fresh()'s release of conn, through pin()'s acquire */
		if (likely(s->gen == checked_gen) && likely(++unchecked % CHECK_EVERY) &&
		    likely(atomic_load_explicit(&conn_pid, memory_order_relaxed) == pks_pid()))
			return hold_stream(path, s);
		if (mine(s)) {
			checked_gen = s->gen;
			unchecked = 0;
			return hold_stream(path, s);
		}
		unpin(s, LOST);
	}
	return fresh(path, s, OWN);
}

/* Drop @n sent bytes from the front of @m. Return: true if some are left. */
static bool skip(struct msghdr *m, size_t n)
{
	while (m->msg_iovlen && n >= m->msg_iov->iov_len) {
		n -= m->msg_iov->iov_len;
		m->msg_iov++;
		m->msg_iovlen--;
	}
	if (!m->msg_iovlen)
		return false;
	m->msg_iov->iov_base = (char *)m->msg_iov->iov_base + n;
	m->msg_iov->iov_len -= n;
	return true;
}

static void wait_room(int fd, int err, int *ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	/* ENOBUFS is short memory, not a full queue: nothing to poll for. */
	if (err == ENOBUFS || poll(&p, 1, *ms) < 0)
		nap(ms);
	else
		grow(ms);
}

/* One message, whole; @calm: it may block. Return: 0, or the errno that stopped it. */
static int push(const struct pks_slsock *s, const struct iovec *iov, int n, bool calm)
{
	struct iovec v[4];
	struct msghdr m = { .msg_iov = v, .msg_iovlen = (size_t)n };
	int ms = 1, how = MSG_NOSIGNAL | (calm ? 0 : MSG_DONTWAIT);

	memcpy(v, iov, sizeof(*iov) * (size_t)n);
	for (;;) {
		ssize_t r = sendmsg(s->fd, &m, how);

		if (r >= 0) {
			if (!skip(&m, (size_t)r))
				return 0;
			continue;
		}
		if (errno == EINTR)
			continue;
		if ((errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS) || s->hasty)
			return errno;
		wait_room(s->fd, errno, &ms);
	}
}


static void futex(_Atomic uint32_t *w, int op, uint32_t v)
{
	syscall(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, v, NULL, NULL, 0);
}

/*
 * The threads that may block take turns on the shared datagram socket, as
 * glibc's syslog(3) does under its lock: 8 threads sleeping in one send
 * queue and woken all at once by each read cost several times the CPU of
 * 8 threads sleeping on a futex and woken one at a time. The word holds
 * the pid of the process that locked it, so that the child of a fork made
 * while another thread held it takes it over. Handlers never take it.
 */
static void send_lock_take(void)
{
	uint32_t me = (uint32_t)pks_pid(), c = 0;

	/* acquire: pairs with the release of send_lock in the unlock below */
	if (atomic_compare_exchange_strong_explicit(&send_lock, &c, me, memory_order_acquire,
						    memory_order_relaxed))
		return;
	for (;;) {
		if ((c & ~L_WAIT) != me) {	/* free, or a parent's: a fork child's */
			/* acquire: pairs with the release in the unlock below */
			if (atomic_compare_exchange_strong_explicit(&send_lock, &c, me | L_WAIT,
					memory_order_acquire, memory_order_relaxed))
				return;
			continue;
		}
		/* acquire: pairs with the unlock's release, as above */
		c = atomic_exchange_explicit(&send_lock, me | L_WAIT, memory_order_acquire);
		if ((c & ~L_WAIT) != me)
			return;		/* it was free, or a parent's: ours now */
		futex(&send_lock, FUTEX_WAIT, me | L_WAIT);
		/* no pair: a guess for the loop; what takes the lock acquires */
		c = atomic_load_explicit(&send_lock, memory_order_relaxed);
	}
}

static void send_lock_give(void)
{
	/* release: pairs with the lock's acquires above */
	if (atomic_exchange_explicit(&send_lock, 0, memory_order_release) & L_WAIT)
		futex(&send_lock, FUTEX_WAKE, 1);
}

/**
 * pks_slconn_send() - one message of @n pieces (at most 4), whole
 * @calm: not from a signal handler: the send may block
 * A full queue is waited for, however long, while the socket lives.
 * Return: 0, or the errno that stopped it.
 */
int pks_slconn_send(const struct pks_slsock *s, const struct iovec *iov, int n, bool calm)
{
	int err;
	bool turns = calm && !s->own && !s->stream;	/* a stream has its owner */

	if (turns)
		send_lock_take();
	err = push(s, iov, n, calm);
	if (turns)
		send_lock_give();
	return err;
}
/**
 * pks_slconn_send_many() - @k datagrams in order, each whole, a full queue
 * waited for as pks_slconn_send() waits
 * Return: 0, or the errno that stopped it; how many went in *@sent.
 */
int pks_slconn_send_many(const struct pks_slsock *s, struct mmsghdr *v, unsigned int k,
			 unsigned int *sent)
{
	int ms = 1;

	for (*sent = 0; *sent < k;) {
		int r = sendmmsg(s->fd, v + *sent, k - *sent, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (r > 0) {
			*sent += (unsigned int)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS) ||
		    s->hasty)
			return r ? errno : EIO;
		wait_room(s->fd, errno, &ms);
	}
	return 0;
}

static enum verdict verdict(int err)
{
	switch (err) {
	case EBADF:
	case ENOTSOCK:
		return LOST;
	case ECONNREFUSED:
	case ECONNRESET:
	case ENOTCONN:
	case EPIPE:
	case EDESTADDRREQ:
		return BROKEN;
	}
	return KEEP;
}

/**
 * pks_slconn_put() - done with @s for this line
 * @err: what pks_slconn_send() returned
 * Return: true if @err was the connection's fault: a new one may carry the line.
 */
bool pks_slconn_put(struct pks_slsock *s, int err)
{
	enum verdict how = verdict(err);

	if (s->own) {
		if (how != LOST)
			close(s->fd);
		return how != KEEP;
	}
	if (s->stream)	/* pairs with hold_stream()'s compare-exchange */
		atomic_store(&stream_owner, 0);
	/* Not checked on every line: never close what is no longer ours. */
	if (how == BROKEN && !mine(s))
		how = LOST;
	unpin(s, how);
	return how != KEEP;
}

/** pks_slconn_gen() - Return: how many connections were made so far. */
unsigned int pks_slconn_gen(void)
{
	/* no pair: a count, compared with a socket's number, no data behind it */
	return atomic_load_explicit(&gens, memory_order_relaxed);
}

/* The child's copy of the socket is not its to share. */
static void atfork_child(void)
{
	/* no pair: a fork's child runs one thread */
	uint64_t w = atomic_load(&conn), ino = atomic_load(&conn_ino);
	int fd = (int)(w & W_FD) - 1;

	if (fd >= 0 && !(w & W_LOST) && ino_of(fd) == ino)
		close(fd);
	/* no pair: the one thread's, too */
	atomic_store(&conn, 0);
	atomic_store(&stream_owner, 0);
}

/** pks_slconn_setup() - once: a forked child starts without a connection */
void pks_slconn_setup(void)
{
	static _Atomic int once;

	if (!atomic_exchange(&once, 1))	/* no pair: it only elects one caller */
		pthread_atfork(NULL, NULL, atfork_child);
}
