/* SPDX-License-Identifier: MIT */
/*
 * What the deferred ring's two sides share (printk-shim(7) DEFERRED
 * PRINTING): the record, the lanes, the state words and the consumer word.
 * producer.c puts lines in; printer.c takes them out.
 */
#ifndef PKS_DEFER_INTERNAL_H
#define PKS_DEFER_INTERNAL_H

#include "defer/defer.h"
#include "base/compiler.h"
#include "core/ring.h"
#include "format/tally.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PKS_DEFER_LANES	8

enum { PKS_DEFER_OFF, PKS_DEFER_STARTING, PKS_DEFER_RUNNING, PKS_DEFER_CLOSED,
       PKS_DEFER_FAILED };				/* pks_defer_dq.state, in this order */
enum { PKS_DEFER_AWAKE, PKS_DEFER_NAP, PKS_DEFER_IDLE };	/* *pks_defer_dq.sleep_word */
#define PKS_DEFER_MANY	(-1L)				/* pks_defer_dq.owner: no one thread */

/* What a record's payload is: a table in printer.c turns each kind into a line. */
enum pks_defer_kind {
	PKS_REC_TEXT,		/* the line's text, formatted by the caller */
	PKS_REC_ARGS,		/* a simple format's arguments, and its form (args.c) */
	PKS_REC_FORM,		/* a fixed simple format's arguments, and its form's name */
	PKS_REC_KINDS,		/* a kind for arguments the printer formats goes before this */
};

/*
 * A record's payload, in parts copied one after another: a line's text;
 * or a line kept as its arguments (args.c), its head, its format's text
 * when carried, and its strings.
 */
#define PKS_DEFER_PARTS	(PKS_SHAPE_CONV + 2)
struct pks_defer_payload {
	int kind;			/* enum pks_defer_kind */
	unsigned int n;			/* parts */
	size_t bytes;			/* of them all */
	const char *p[PKS_DEFER_PARTS];
	uint32_t len[PKS_DEFER_PARTS];
};

/* A conversion of a line kept as its arguments: the literal run before it, and its op (args.c). */
struct pks_defer_conv {
	uint8_t at, n;
	uint8_t op;
} __attribute__((packed));

/* A simple format's form: what the printer needs to make its text (args.c, forms.c). */
struct pks_defer_form {
	const char *fmt;		/* its bytes, which never change nor go away */
	uint8_t nconv;
	uint8_t at, n;			/* the literal run after the last conversion */
	struct pks_defer_conv conv[PKS_SHAPE_CONV];
};

/*
 * A line in the ring: everything known at the call (the time, the thread,
 * the caller and its name), so that the printer looks nothing up; then the
 * payload and the caller's name, @n and @func_len bytes.
 */
struct pks_defer_rec {
	uint64_t stamp;		/* the order across lanes: CLOCK_MONOTONIC when it went
				 * in, or one past the last (producer.c's when()) */
	uint32_t n;		/* bytes of payload */
	uint8_t kind;		/* enum pks_defer_kind */
	int8_t level;
	bool cont, in_handler;
	uint8_t func_len;	/* bytes of the caller's name after the payload; 0: none */
	uint8_t after;		/* 0, or 1 + the lane this thread's earlier lines are in,
				 * written up to the position after the name (producer.c's
				 * spill()) before this one */
	long tid;
	uint64_t t_ns;
	const void *site;
	char data[];
};

/*
 * The ring is split in lanes, four per CPU the process may use
 * (PKS_DEFER_LANES at most): a thread's lines go to its own lane first, so
 * threads running at once rarely reserve from the same head or write the
 * same cache lines; the consumer merges the lanes by stamp.
 */
struct pks_defer_lane {
	struct pks_ring ring;
	uint64_t pos, done;	/* the consumer's: read up to, released up to */
	uint64_t end;		/* the consumer's: committed records gathered up to */
	const struct pks_defer_rec *next;	/* the consumer's: the record at pos, if before end */
	uint64_t after;		/* the position past next */
};

/*
 * The one thread writing lines, whose stamps count up (producer.c's when()),
 * in a cache line of its own: the owner stores its last stamp at every line.
 */
struct pks_defer_owner {
	_Atomic long tid;		/* 0: none yet; PKS_DEFER_MANY: every line has the clock's */
	_Atomic uint64_t last;		/* the last stamp the owner gave, or the one before it */
} __attribute__((aligned(64)));

struct pks_defer_state {
	struct pks_defer_lane lanes[PKS_DEFER_LANES];
	int nlanes;
	_Atomic int state;
	_Atomic pid_t pid;		/* the process the ring is of, once mapped; 0: none */
	_Atomic int *sleep_word;	/* futex: the printer's sleep, sleep_own or shared */
	int sleep_private;		/* FUTEX_PRIVATE_FLAG, unless shared */
	_Atomic uint32_t *drains;	/* the control file's count of the printer's drains */
	_Atomic unsigned long dropped;
	_Atomic bool crashing;
	bool want_func;			/* the outputs show the caller's name: take it at the call */
	char *mem;			/* the ring, the batch buffers and the consumer's line;
					 * set before pid, kept when the printer ends */
	size_t mem_size;
	/*
	 * What the printer writes as it goes, in cache lines apart from the
	 * words above, which every caller reads at every line.
	 */
	_Atomic int sleep_own __attribute__((aligned(64)));
	_Atomic uint32_t space __attribute__((aligned(64)));	/* futex: bumped at every release */
	_Atomic int waiters;		/* callers waiting for room */
	_Atomic int busy;		/* futex: the consumer word; 0 free, 1 held, 2 held and wanted */
	struct pks_defer_owner owner;
};

extern struct pks_defer_state pks_defer_dq;

bool pks_defer_put(struct pks_line *l, struct pks_writer *w, const struct pks_defer_payload *y);
long pks_defer_futex(volatile void *word, int op, int val, unsigned long ms);
void pks_defer_wake(int upto);
bool pks_defer_take(void);
void pks_defer_give(void);
size_t pks_defer_drain_now(bool crash);
size_t pks_defer_drop_text(char *buf, unsigned long k);
size_t pks_defer_args_text(const struct pks_defer_rec *r, char *buf, size_t size);
size_t pks_defer_form_text(const struct pks_defer_rec *r, char *buf, size_t size);
const struct pks_defer_form *pks_defer_form_find(const char *fmt);
const struct pks_defer_form *pks_defer_form_add(const struct pks_defer_form *f);
bool pks_defer_map(void);
bool pks_defer_spawn(void);

#endif
