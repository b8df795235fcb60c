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
#include "sink/sink.h"
#include "base/clock.h"
#include "base/compiler.h"
#include "base/fdio.h"
#include "base/fdturn.h"
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
#define TURN_WAIT_MS	100	/* the longest a sender waits for another's turn on a datagram */
#define OWNER_WAIT_MS	1000	/* the longest it waits for another's message on a stream */

enum verdict { KEEP, BROKEN, LOST };
enum fresh { SHARE, OWN, HASTY };

static _Atomic uint64_t conn;
static _Atomic uint64_t conn_ino;	/* st_ino of the socket in conn */
static _Atomic pid_t conn_pid;		/* the process that made it */
static _Atomic unsigned int conn_gen;	/* its number */
static _Atomic unsigned int gens;	/* connections made so far */
static _Atomic uint64_t stream_owner;	/* the connection's number << 32 | the thread
					 * sending a message on it; or 0 */
static _Atomic int64_t retry_at;	/* CLOCK_MONOTONIC ns: no connect before */
static _Atomic int refused;		/* why the last connect failed */
static _Atomic uint32_t send_lock;	/* the thread whose turn it is, | L_WAIT; or 0 */
static PKS_TLS unsigned int checked_gen;	/* the connection this thread checked last */
static PKS_TLS unsigned int unchecked;	/* its lines since */
/*
 * The shared connection an ordinary call of this thread has pinned: its
 * number << 2, | TURN once it has the stream's turn, | SENT once it began
 * to send its message there; 0: none. Set after the pin and cleared before
 * the unpin, so that a call cut off between the two (a jump out of a
 * handler) is seen by the thread's next one, which gives them back
 * (left_behind()); one cut off outside leaves a pin behind, never gives
 * one back twice.
 */
static PKS_TLS uint64_t pinned;
#define TURN	1u
#define SENT	2u

static PKS_TLS uint32_t self;	/* thread()'s, forgotten in a fork's child */

/*
 * This thread's id, one system call a thread. A child of a bare fork keeps
 * its parent thread's: a turn it finds under that id it takes back, as it
 * would another's after a wait, and its connections are its own.
 */
static inline uint32_t thread(void)
{
	if (unlikely(!self))
		self = (uint32_t)gettid();
	return self;
}

/*
 * A window (sink.h) around each change of a connection's count of users
 * together with what pinned says of it: a jump out of a handler never
 * leaves the one changed without the other. Fences keep the stores inside.
 */
static inline void enter(void)
{
	pks_sink_windows++;
	atomic_signal_fence(memory_order_seq_cst);	/* pairs with the trampoline's look */
}

static inline void leave(void)
{
	atomic_signal_fence(memory_order_seq_cst);	/* pairs with the trampoline's look */
	pks_sink_windows--;
}

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
		int fd, err;

		pks_fd_making();
		fd = pks_fd_high(socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
		pks_fd_made();
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
static int fresh(const char *path, struct pks_slsock *s, enum fresh how, bool calm)
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
	*s = (struct pks_slsock){ fd, stream, true, how == HASTY, atomic_fetch_add(&gens, 1) + 1, false };
	if (how != SHARE)
		return 0;
	enter();
	/* no pair: it claims the setup; W_DEAD keeps pin() off until the release below */
	if (!atomic_compare_exchange_strong(&conn, &none, W_DEAD)) {
		leave();
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
	if (calm)
		pinned = (uint64_t)s->gen << 2;
	leave();
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

/* unpin() of @s, with what pinned says of it for a @calm call, in one window. */
static void let_go(const struct pks_slsock *s, enum verdict how, bool calm)
{
	enter();
	if (calm)
		pinned = 0;
	unpin(s, how);
	leave();
}

/*
 * The shared connection @s was pinned on is given up: this line goes on a
 * stream of its own, whole; the next lines get a new shared one once the
 * last user of this one is out.
 */
static int give_up(const char *path, struct pks_slsock *s, bool calm)
{
	let_go(s, BROKEN, calm);
	return fresh(path, s, OWN, calm);
}

/*
 * Own the shared stream for one message. A handler that interrupted the
 * owner gets a hasty socket of its own, one that never waits: the daemon
 * may be waiting for the rest of the interrupted message before it reads
 * another. An ordinary call of the owning thread finds a call of its own
 * cut off (a jump out of a handler) that left_behind() could not see: its
 * message may be cut short, so the connection is given up. One that waited
 * OWNER_WAIT_MS for another thread's message (cut off so, or a daemon
 * that stopped reading) gives it up too; that thread's message, if it
 * goes on, is whole on it all the same.
 */
static int hold_stream(const char *path, struct pks_slsock *s, bool calm)
{
	uint64_t me, cur = 0;
	int ms = 1, waited = 0;

	if (!s->stream || s->own)
		return 0;
	me = (uint64_t)s->gen << 32 | thread();
	for (;;) {
		bool taken = cur && cur >> 32 == s->gen;	/* by a message on this connection */
		bool won;

		if (!taken) {
			/* free, or an owner's of a connection given up since: ours.
			 * Pairs with pks_slconn_put()'s release: the last owner's send is over */
			enter();
			if ((won = atomic_compare_exchange_strong(&stream_owner, &cur, me)))
				pinned |= calm ? TURN : 0;
			leave();
			if (won)
				return 0;
			continue;
		}
		if ((uint32_t)cur == (uint32_t)me) {
			if (calm)
				return give_up(path, s, calm);
			let_go(s, KEEP, calm);
			return fresh(path, s, HASTY, calm);
		}
		if (waited >= OWNER_WAIT_MS)
			return give_up(path, s, calm);
		waited += ms;
		nap(&ms);
		/* pairs with pks_slconn_put()'s release, as above */
		cur = atomic_load(&stream_owner);
	}
}

/* pks_slconn_get()'s socket, once a cut-off call's pin is given back. */
static int get(const char *path, struct pks_slsock *s, bool calm)
{
	int ms = 1, waited = 0;

	for (int i = 0; i < 2; i++) {
		int r, err;

		enter();
		r = pin(s);
		if (r > 0 && calm)
			pinned = (uint64_t)s->gen << 2;
		leave();
		/*
		 * Another sender's connect, a moment from shared, or the last
		 * users of one given up, a moment from out: the next shared
		 * socket, not one of this line's own (a handler that
		 * interrupted that very sender gives up waiting and takes one
		 * of its own).
		 */
		if (r < 0 && waited < SETUP_WAIT_MS) {
			waited += ms;
			nap(&ms);
			i--;
			continue;
		}
		if (r < 0)
			return fresh(path, s, OWN, calm);
		if (r == 0) {
			err = fresh(path, s, SHARE, calm);
			if (err == RACED)
				continue;	/* the winner's socket, from pin() */
			return err ? err : hold_stream(path, s, calm);
		}
		/* pairs with fresh()'s release of conn, through pin()'s acquire */
		if (likely(s->gen == checked_gen) && likely(++unchecked % CHECK_EVERY) &&
		    likely(atomic_load_explicit(&conn_pid, memory_order_relaxed) == pks_pid()))
			return hold_stream(path, s, calm);
		if (mine(s)) {
			checked_gen = s->gen;
			unchecked = 0;
			return hold_stream(path, s, calm);
		}
		let_go(s, LOST, calm);
	}
	return fresh(path, s, OWN, calm);
}

/*
 * An ordinary call of this thread was cut off (a jump out of a handler,
 * an exit from one) with the shared connection pinned: its pin given back,
 * and its turn on the stream; a stream it began to send its message on may
 * hold the start of it, and is given up. The pin kept the connection, and
 * its number, as they were.
 */
static void left_behind(void)
{
	unsigned int gen = (unsigned int)(pinned >> 2);
	uint64_t me = (uint64_t)gen << 32 | thread();
	/* pairs with fresh()'s release of conn, as pin()'s acquire */
	uint64_t w = atomic_load(&conn);
	struct pks_slsock s = { .fd = (int)(w & W_FD) - 1, .gen = gen };
	enum verdict how = pinned & SENT ? BROKEN : KEEP;

	enter();
	/* pairs with hold_stream()'s compare-exchange, as pks_slconn_put()'s */
	if ((pinned & TURN) && !atomic_compare_exchange_strong(&stream_owner, &me, 0))
		how = BROKEN;	/* taken over by a thread that waited too long for it */
	pinned = 0;
	/* the pin holds the connection: its number cannot have changed */
	if (!PKS_WARN_ON_ONCE(!(w & W_FD) || !(w & W_USERS)))
		unpin(&s, how);
	leave();
}

/**
 * pks_slconn_get() - a socket to send one line on; connects if need be
 * @calm: not from a signal handler
 * Return: 0, or the errno of the failed connect (repeated for 100 ms), and
 * then @s->hasty says whether it was a hasty socket's, one of a handler
 * that found the shared stream busy: EAGAIN there is a busy daemon, not an
 * outage.
 */
int pks_slconn_get(const char *path, struct pks_slsock *s, bool calm)
{
	int err;

	if (calm && pinned)
		left_behind();
	err = get(path, s, calm);
	s->calm = calm;
	return err;
}

/* Drop @n sent bytes from the front of @m. Return: true if some are left. */
static inline __attribute__((always_inline)) bool skip(struct msghdr *m, size_t n)
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

/*
 * The turn on the datagram socket this thread's send holds, for
 * pks_slconn_gone() when the thread is cancelled in it; or 0.
 */
static PKS_TLS uint32_t sending;

/*
 * One message, whole. @calm: it may block, in its send, and then, with
 * @cancel (the caller's cancellation state) PTHREAD_CANCEL_ENABLE, that
 * send and its wait for room are cancellation points, as the write(2) of
 * a line is; else it is sent without blocking, with poll(2) or a nap
 * between tries. Return: 0, or the errno that stopped it.
 */
static int push(const struct pks_slsock *s, const struct iovec *iov, int n, bool calm, int cancel)
{
	struct iovec v[4];
	struct msghdr m = { .msg_iov = v, .msg_iovlen = (size_t)n };
	int ms = 1, how = MSG_NOSIGNAL | (calm ? 0 : MSG_DONTWAIT);

	memcpy(v, iov, sizeof(*iov) * (size_t)n);
	for (;;) {
		ssize_t r;

		pthread_setcancelstate(cancel, NULL);
		r = sendmsg(s->fd, &m, how);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		if (r >= 0) {
			if (!skip(&m, (size_t)r))
				return 0;
			continue;
		}
		if (errno == EINTR)
			continue;
		if ((errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS) || s->hasty)
			return errno;
		pthread_setcancelstate(cancel, NULL);
		wait_room(s->fd, errno, &ms);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	}
}

/* The futex operation @op on @w, if it holds @v, for @ms at most (0: no bound). */
static void futex(_Atomic uint32_t *w, int op, uint32_t v, int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	syscall(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, v, ms ? &ts : NULL, NULL, 0);
}

/*
 * The threads that may block take turns on the shared datagram socket, as
 * glibc's syslog(3) does under its lock: 8 threads sleeping in one send
 * queue and woken all at once by each read cost several times the CPU of
 * 8 threads sleeping on a futex and woken one at a time. Handlers never
 * take a turn. The turns only spare CPU, a datagram is whole whatever is
 * sent beside it, so none is waited for long: a thread that finds the turn
 * its own takes it back (its call that had it was cut off by a jump out of
 * a handler, or by an exit from one), and one that waited TURN_WAIT_MS for
 * another's takes it over (that thread was cut off so, or is gone, or is
 * its parent's in a child of a bare fork; or the daemon reads slowly).
 * A thread gives back only a turn still its own.
 * Return: the word stored, for send_lock_give().
 */
static uint32_t send_lock_take(void)
{
	uint32_t me = thread(), c = 0, wait = 0;
	uint64_t since = 0;

	for (;;) {
		if (!c || (c & ~L_WAIT) == me ||
		    (since && pks_now_ns() - since >= TURN_WAIT_MS * 1000000ull)) {
			/* one that waited keeps the bit: others may sleep still.
			 * acquire: pairs with the release in send_lock_give() */
			if (atomic_compare_exchange_strong_explicit(&send_lock, &c, me | wait | (c & L_WAIT),
					memory_order_acquire, memory_order_relaxed))
				return me;
			continue;
		}
		wait = L_WAIT;
		/* no pair: the bit only asks the giver for a wake */
		if (!(c & L_WAIT) && !atomic_compare_exchange_strong_explicit(&send_lock, &c, c | L_WAIT,
					memory_order_relaxed, memory_order_relaxed))
			continue;
		since = since ? since : pks_now_ns();
		futex(&send_lock, FUTEX_WAIT, c | L_WAIT, 10);
		/* no pair: a guess for the loop; what takes the turn acquires */
		c = atomic_load_explicit(&send_lock, memory_order_relaxed);
	}
}

static inline void send_lock_give(uint32_t me)
{
	/* no pair: a guess for the compare-exchange below */
	uint32_t c = atomic_load_explicit(&send_lock, memory_order_relaxed);

	do {
		if ((c & ~L_WAIT) != me)
			return;	/* taken over: its taker gives it back */
	/* release: pairs with the acquire in send_lock_take() */
	} while (!atomic_compare_exchange_weak_explicit(&send_lock, &c, 0, memory_order_release,
							memory_order_relaxed));
	if (c & L_WAIT)
		futex(&send_lock, FUTEX_WAKE, 1, 0);
}

/**
 * pks_slconn_send() - one message of @n pieces (at most 4), whole; a calm
 * @s's (pks_slconn_get()) may block
 * @cancel: the caller's cancellation state: with PTHREAD_CANCEL_ENABLE, a
 *	calm send is a cancellation point
 * A full queue is waited for, however long, while the socket lives.
 * Return: 0, or the errno that stopped it.
 */
int pks_slconn_send(const struct pks_slsock *s, const struct iovec *iov, int n, int cancel)
{
	int err;

	if (!s->calm)
		return push(s, iov, n, false, PTHREAD_CANCEL_DISABLE);
	/* a stream has its owner */
	sending = !s->own && !s->stream ? send_lock_take() : 0;
	if (s->stream && !s->own)
		pinned |= SENT;
	err = push(s, iov, n, true, cancel);
	if (sending)
		send_lock_give(sending);
	sending = 0;
	return err;
}

/**
 * pks_slconn_gone() - this thread ends, maybe cancelled in a send or its
 * wait: its turn, its pin and its turn on the stream given back
 * (left_behind()). A socket of its own is left open: a jump out of a
 * handler may have left its number noted, which the program may have
 * taken since.
 */
void pks_slconn_gone(void)
{
	if (sending)
		send_lock_give(sending);
	sending = 0;
	if (pinned)
		left_behind();
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
	/* Not checked on every line: never close what is no longer ours. */
	if (how == BROKEN && !mine(s))
		how = LOST;
	enter();
	if (s->calm)
		pinned = 0;
	/* the stream's turn, if still this message's: pairs with hold_stream()'s compare-exchange */
	if (s->stream)
		atomic_compare_exchange_strong(&stream_owner,
			&(uint64_t){ (uint64_t)s->gen << 32 | thread() }, 0);
	unpin(s, how);
	leave();
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
	atomic_store(&send_lock, 0);
	self = 0;
}

/** pks_slconn_setup() - once: a forked child starts without a connection */
void pks_slconn_setup(void)
{
	static _Atomic int once;

	if (!atomic_exchange(&once, 1))	/* no pair: it only elects one caller */
		pthread_atfork(NULL, NULL, atfork_child);
}
