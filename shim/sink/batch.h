/* SPDX-License-Identifier: MIT */
/*
 * A batch of rendered lines (printk-shim(7) DEFERRED PRINTING): what the
 * printer hands pks_sink_line() so that many lines leave in one write(2)
 * per descriptor and one sendmmsg(2) per daemon; a NULL batch writes now.
 */
#ifndef PKS_SINK_BATCH_H
#define PKS_SINK_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define PKS_BATCH_FDS	8
#define PKS_DGRAMS_MAX	256

struct pks_config;

/* Bytes per descriptor; a failed write's lines are told to @failed. */
struct pks_fd_batch {
	int n;				/* descriptors in use */
	int fd[PKS_BATCH_FDS];
	int tag[PKS_BATCH_FDS];		/* the first line's output index, for @failed */
	unsigned long puts[PKS_BATCH_FDS];	/* lines in buf[i] */
	size_t len[PKS_BATCH_FDS];
	size_t room[PKS_BATCH_FDS];	/* what buf[i] takes before it is written: @cap, or
					 * PIPE_BUF for a pipe or a socket, written so anyway
					 * (batch.c's write_lines()), so that @flushed is
					 * told after each write */
	char *buf[PKS_BATCH_FDS];	/* @cap bytes each */
	size_t cap;
	uint32_t gen;			/* pks_fd_gen when the slots were made */
	uint32_t seen[PKS_BATCH_FDS];	/* pks_fd_gen when fd[i]'s kind was looked at */
	void (*failed)(int tag, unsigned long puts, int err);
	void (*flushed)(void);		/* after each pks_batch_fd_flush(), or NULL */
};

/*
 * Messages for syslog and the journal, rendered into @buf as they come; a
 * message that was not sent goes the usual way again, through @redo.
 */
struct pks_dgrams {
	int n;
	int daemons;			/* outputs it takes messages for: pks_batch_daemons() */
	size_t used, cap;
	char *buf;			/* @cap bytes */
	const void *key;		/* the line being written, as @redo knows it */
	uint64_t seq;			/* its number in the kmsg format, kept for @redo */
	struct pks_dgram {
		int out;		/* the output's index */
		const void *key;
		uint64_t seq;
		size_t off, len;	/* the message in @buf */
		bool told;		/* stderr has the line: the writer's fallback, or a redo */
	} m[PKS_DGRAMS_MAX];
	/* Return: whether stderr has @m's line now. */
	bool (*redo)(const struct pks_dgram *m);
};

/* What pks_sink_line() is given besides the line; a NULL member: write now. */
struct pks_sink_batch {
	struct pks_fd_batch *fd;
	struct pks_dgrams *dg;
	int only;			/* an output's index: that output alone; -1: all */
	bool *told;			/* stderr has the line already, in and out; or NULL */
	uint64_t seq;			/* with @only: the line's kmsg number, as first written */
};

int pks_batch_put(struct pks_fd_batch *b, int fd, int tag, const char *p, size_t n);
char *pks_batch_room_slow(struct pks_fd_batch *b, int fd, int tag, size_t n, int *i);
void pks_batch_fd_flush(struct pks_fd_batch *b);
void pks_batch_fd_renew(struct pks_fd_batch *b);
int pks_batch_daemons(const struct pks_config *c);
bool pks_batch_dg_room(const struct pks_dgrams *b, size_t n);
void pks_batch_dg_told(struct pks_dgrams *b);
void pks_batch_dg_flush(struct pks_dgrams *b);

/**
 * pks_batch_room() - room for up to @n bytes at the end of @b's buffer for
 * @fd, made as pks_batch_put() makes it, for a line written there in place
 * @i: out; the buffer, for pks_batch_took()
 * Return: where they go, or NULL: no buffer takes them. Inline: the first
 * buffer, the usual one output's, is taken without a search.
 */
static inline char *pks_batch_room(struct pks_fd_batch *b, int fd, int tag, size_t n, int *i)
{
	if (__builtin_expect(b->n > 0 && b->fd[0] == fd && b->len[0] + n <= b->room[0], 1)) {
		*i = 0;
		return b->buf[0] + b->len[0];
	}
	return pks_batch_room_slow(b, fd, tag, n, i);
}

/** pks_batch_took() - one line of @n bytes was put at pks_batch_room()'s place in buffer @i */
static inline void pks_batch_took(struct pks_fd_batch *b, int i, size_t n)
{
	b->len[i] += n;
	b->puts[i]++;
}

#endif
