// SPDX-License-Identifier: MIT
/*
 * The printer's batches (sink/batch.h): bytes collected per descriptor and
 * written at once, messages for the daemons sent with one sendmmsg(2) per
 * output. Thread-safety: a batch is its one owner's (the consumer's).
 */
#include "sink/batch.h"
#include "base/compiler.h"
#include "base/fdio.h"
#include "config/config.h"
#include "sink/journal.h"
#include "sink/syslog.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

/* All @n bytes to @fd, the first write(2) included; those written in *@done, if asked. */
static int write_all(int fd, const char *p, size_t n, size_t *done)
{
	if (!n)
		return 0;
	pks_fd_mend_first(fd);
	return pks_fd_write_rest(fd, p, n, pks_fd_write1(fd, p, n), done);
}

/*
 * Whether @fd is a pipe or a socket, where write_lines() writes PIPE_BUF
 * bytes at most at a time: looked at when a slot is made, and again once a
 * descriptor may be another file (pipe_now()), not for each write.
 */
static bool piped(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/*
 * Whether buffer @i goes to a pipe or a socket now: as its slot last found,
 * unless a descriptor may have changed since, when it looks again, once a
 * change. The program's calls count a change before and after theirs
 * (pks_fd_changed()), so that a write that finds the count as it was comes
 * before the call, as a look before each write would have seen it.
 */
static bool pipe_now(struct pks_fd_batch *b, int i)
{
	/* no pair: a count of changes (base/fdio.h); fstat(2) sees the table as it is */
	uint32_t g = atomic_load_explicit(&pks_fd_gen, memory_order_relaxed);

	if (unlikely(g != b->seen[i])) {
		b->seen[i] = g;
		b->room[i] = piped(b->fd[i]) && b->cap > PIPE_BUF ? PIPE_BUF : b->cap;
	}
	return b->room[i] < b->cap;
}

/*
 * write_all() of whole lines: to a pipe or a socket, in writes of PIPE_BUF
 * bytes at most, each ending in a newline, which pipe(7) keeps whole beside
 * another writer's, so that the lines a fatal signal's handler writes while
 * this write waits for a slow reader never land inside one of these (a
 * line longer than PIPE_BUF goes in one write of its own).
 */
static int write_lines(int fd, const char *p, size_t n, size_t *done, bool pipe)
{
	size_t sum = 0, k, part;
	const char *nl;
	int err = 0;

	if (n <= PIPE_BUF || !pipe)
		return write_all(fd, p, n, done);
	for (; sum < n && !err; sum += k) {
		k = n - sum;
		if (k > PIPE_BUF) {
			nl = memrchr(p + sum, '\n', PIPE_BUF);
			if (!nl)
				nl = memchr(p + sum + PIPE_BUF, '\n', k - PIPE_BUF);
			k = nl ? (size_t)(nl - (p + sum)) + 1 : k;
		}
		part = 0;
		err = write_all(fd, p + sum, k, &part);
		if (err)
			k = part;
	}
	if (done)
		*done = sum;
	return err;
}

/* The lines of the @n bytes at @p not written whole: each ends in its newline. */
static unsigned int unwritten(const char *p, size_t n, unsigned int puts)
{
	unsigned int k = 0;

	for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))) && k < puts; p++)
		k++;
	return k;
}

/**
 * pks_batch_fd_flush() - write what @b holds; a failed write's lines that
 * did not go out whole are told to @b->failed; then @b->flushed is told
 */
void pks_batch_fd_flush(struct pks_fd_batch *b)
{
	for (int i = 0; i < b->n; i++) {
		size_t done = 0;
		int err = write_lines(b->fd[i], b->buf[i], b->len[i], &done, pipe_now(b, i));

		if (err && b->failed)
			b->failed(b->tag[i], unwritten(b->buf[i] + done, b->len[i] - done, b->puts[i]),
				  err);
		b->len[i] = 0;
		b->puts[i] = 0;
	}
	if (b->flushed)
		b->flushed();
}

/**
 * pks_batch_fd_renew() - when a descriptor may be another file since @b's
 * slots were made (pks_fd_changed()): each is made again at its next line,
 * and its descriptor looked at anew. Only between batches, when none holds
 * a line.
 */
void pks_batch_fd_renew(struct pks_fd_batch *b)
{
	/* no pair: a count of changes made (base/fdio.h); fstat(2) sees the table as it is */
	uint32_t g = atomic_load_explicit(&pks_fd_gen, memory_order_relaxed);

	if (likely(g == b->gen))
		return;
	for (int i = 0; i < b->n; i++)
		if (PKS_WARN_ON_ONCE(b->len[i]))
			return;	/* never: a drain ends with its batch written */
	b->gen = g;
	b->n = 0;
}

/*
 * The index of @b's buffer for @fd, a new one if it has none, with room for
 * @n more bytes, what it holds written first if they would not fit.
 * Return: -1: no buffer for @fd, or @n more than one holds.
 */
static int slot(struct pks_fd_batch *b, int fd, int tag, size_t n)
{
	int i = 0;

	while (i < b->n && b->fd[i] != fd)
		i++;
	if (i == b->n) {
		if (i == PKS_BATCH_FDS)
			return -1;
		b->fd[i] = fd;
		b->tag[i] = tag;
		b->len[i] = 0;
		b->puts[i] = 0;
		/* no pair: as pipe_now()'s */
		b->seen[i] = atomic_load_explicit(&pks_fd_gen, memory_order_relaxed);
		b->room[i] = piped(fd) && b->cap > PIPE_BUF ? PIPE_BUF : b->cap;
		b->n++;
	}
	if (b->len[i] + n > b->room[i]) {
		pks_batch_fd_flush(b);
		if (n > b->room[i])
			return -1;
	}
	return i;
}

/**
 * pks_batch_put() - @n bytes into @b's buffer for @fd, what it holds
 * written first if they would not fit; with no buffer for them, written now.
 * Return: 0, or the errno of writing them now.
 */
int pks_batch_put(struct pks_fd_batch *b, int fd, int tag, const char *p, size_t n)
{
	int i = slot(b, fd, tag, n);

	if (i < 0)
		return write_all(fd, p, n, NULL);
	memcpy(b->buf[i] + b->len[i], p, n);
	pks_batch_took(b, i, n);
	return 0;
}

/** pks_batch_room_slow() - pks_batch_room() past its first buffer, or with a flush */
char *pks_batch_room_slow(struct pks_fd_batch *b, int fd, int tag, size_t n, int *i)
{
	*i = slot(b, fd, tag, n);
	return *i < 0 ? NULL : b->buf[*i] + b->len[*i];
}

/** pks_batch_daemons() - Return: how many outputs a struct pks_dgrams takes messages for. */
int pks_batch_daemons(const struct pks_config *c)
{
	int k = 0;

	for (int i = 0; i < c->nout; i++)
		k += c->out[i].kind == PKS_OUT_SYSLOG || c->out[i].kind == PKS_OUT_JOURNAL;
	return k;
}

/**
 * pks_batch_dg_room() - Return: whether @b has room for every daemon
 * output's message of a line of @n bytes; if not, flush @b first, and a
 * line that still does not fit goes the usual way.
 */
bool pks_batch_dg_room(const struct pks_dgrams *b, size_t n)
{
	enum { HEAD_ROOM = 1024 };	/* more than syslog's or the journal's fields */

	return b->n + b->daemons <= PKS_DGRAMS_MAX &&
	       b->cap - b->used >= (size_t)b->daemons * (HEAD_ROOM + n);
}

/**
 * pks_batch_dg_told() - stderr has the line being written (@b->key): the
 * redo of a message of it queued for a daemon does not write it there again
 */
void pks_batch_dg_told(struct pks_dgrams *b)
{
	for (int j = b->n - 1; j >= 0 && b->m[j].key == b->key; j--)
		b->m[j].told = true;
}

/* @m again, to its output alone; once a line is on stderr, no other output's redo writes it there. */
static void redo(struct pks_dgrams *b, const struct pks_dgram *m)
{
	if (!b->redo(m) || m->told)
		return;
	for (int j = 0; j < b->n; j++)
		if (b->m[j].key == m->key)
			b->m[j].told = true;
}

/**
 * pks_batch_dg_flush() - send what @b holds, one sendmmsg(2) per output
 * where it can; each message that did not go, in order, to @b->redo
 */
void pks_batch_dg_flush(struct pks_dgrams *b)
{
	const struct pks_config *c = pks_config();
	struct mmsghdr v[PKS_DGRAMS_MAX];
	struct iovec iov[PKS_DGRAMS_MAX];
	int at[PKS_DGRAMS_MAX];

	for (int i = 0; i < c->nout && b->n; i++) {
		unsigned int k = 0, sent;

		for (int j = 0; j < b->n; j++) {
			if (b->m[j].out != i)
				continue;
			iov[k] = (struct iovec){ b->buf + b->m[j].off, b->m[j].len };
			v[k] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[k], .msg_iovlen = 1 } };
			at[k++] = j;
		}
		if (!k)
			continue;
		if (c->out[i].kind == PKS_OUT_JOURNAL)
			sent = pks_journal_send_many(c, v, k);
		else
			sent = pks_syslog_send_many(c, v, k);
		while (sent < k)
			redo(b, &b->m[at[sent++]]);
	}
	b->n = 0;
	b->used = 0;
}
