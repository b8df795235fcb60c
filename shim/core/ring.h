/* SPDX-License-Identifier: MIT */
/*
 * A bounded ring of variable-size records that many threads fill without a
 * lock and one consumer empties: reserve (a compare-and-swap on the head),
 * fill, commit (a flag per record); the consumer reads records in the order
 * they were reserved and stops at the first one not yet committed.
 */
#ifndef PKS_CORE_RING_H
#define PKS_CORE_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PKS_RING_HDR	8	/* bytes of a record's header */

struct pks_ring {
	char *mem;		/* @size bytes, zero where no record is */
	uint64_t size;		/* a power of two, at least 64 */
	alignas(64) _Atomic uint64_t head;	/* the next byte to reserve; only grows */
	alignas(64) _Atomic uint64_t tail;	/* the first byte not yet released */
};

/* A record's header, PKS_RING_HDR bytes before its payload. */
struct pks_ring_hdr {
	_Atomic uint32_t state;	/* PKS_RING_FREE (zeroed room), _DATA or _PAD */
	uint32_t len;		/* bytes of the whole record, header included */
};
enum { PKS_RING_FREE, PKS_RING_DATA, PKS_RING_PAD };
_Static_assert(sizeof(struct pks_ring_hdr) == PKS_RING_HDR, "a record's header");

void pks_ring_init(struct pks_ring *r, void *mem, size_t size);
void pks_ring_discard(void *rec);
void *pks_ring_read(struct pks_ring *r, uint64_t *pos);
void pks_ring_release(struct pks_ring *r, uint64_t pos);

/* Inline below: every deferred line runs them. */
static inline struct pks_ring_hdr *pks_ring_at(struct pks_ring *r, uint64_t pos)
{
	return (struct pks_ring_hdr *)(r->mem + (pos & (r->size - 1)));
}

/** pks_ring_max() - Return: the largest payload a record can have. */
static inline size_t pks_ring_max(const struct pks_ring *r)
{
	return r->size / 2 - PKS_RING_HDR;
}

/**
 * pks_ring_reserve_at() - room for a record of @n payload bytes
 * @end: out; the position past it, as the consumer's positions count
 * Return: the payload, to fill and pass to pks_ring_commit(), or NULL when
 * the ring has no room now (or never: @n above pks_ring_max()).
 */
static inline void *pks_ring_reserve_at(struct pks_ring *r, size_t n, uint64_t *end)
{
	uint64_t need = (PKS_RING_HDR + n + 7) & ~(uint64_t)7;
	/* no pair: a stale head only fails the compare-exchange, which reloads it */
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed), off, pad;
	struct pks_ring_hdr *rec;

	if (n > pks_ring_max(r))
		return NULL;
	do {
		off = h & (r->size - 1);
		pad = off + need > r->size ? r->size - off : 0;
		/* acquire: pairs with pks_ring_release()'s store; the room is zeroed */
		if (h + pad + need - atomic_load_explicit(&r->tail, memory_order_acquire) > r->size)
			return NULL;
		/* no pair: it only claims the room; the state's release shows the record */
	} while (!atomic_compare_exchange_weak(&r->head, &h, h + pad + need));
	if (pad) {
		rec = pks_ring_at(r, h);
		rec->len = (uint32_t)pad;
		/* release: pairs with pks_ring_read()'s acquire */
		atomic_store_explicit(&rec->state, PKS_RING_PAD, memory_order_release);
	}
	rec = pks_ring_at(r, h + pad);
	rec->len = (uint32_t)need;
	*end = h + pad + need;
	return rec + 1;
}

/** pks_ring_reserve() - pks_ring_reserve_at(), the position not wanted */
static inline void *pks_ring_reserve(struct pks_ring *r, size_t n)
{
	uint64_t end;

	return pks_ring_reserve_at(r, n, &end);
}

/** pks_ring_commit() - the record whose payload is @rec may be read */
static inline void pks_ring_commit(void *rec)
{
	struct pks_ring_hdr *h = (struct pks_ring_hdr *)rec - 1;

	/* release: pairs with pks_ring_read()'s acquire; the payload is filled */
	atomic_store_explicit(&h->state, PKS_RING_DATA, memory_order_release);
}

/**
 * pks_ring_next() - pks_ring_read() again, of a position before one it
 * has returned: the records there are committed and were seen so, and
 * there is a DATA one before that position. The consumer's.
 */
static inline void *pks_ring_next(struct pks_ring *r, uint64_t *pos)
{
	for (;;) {
		struct pks_ring_hdr *h = pks_ring_at(r, *pos);
		/* no pair: pks_ring_read()'s acquire of this state, ours, ordered the bytes */
		uint32_t s = atomic_load_explicit(&h->state, memory_order_relaxed);

		*pos += h->len;
		if (s == PKS_RING_DATA)
			return h + 1;
	}
}

/** pks_ring_used() - Return: bytes reserved and not yet released. */
static inline uint64_t pks_ring_used(struct pks_ring *r)
{
	/*
	 * Tail first: an operand's order is unspecified, and a tail read after
	 * head may have passed it. Pairs with pks_ring_release()'s release,
	 * which follows the reserve of what it frees.
	 */
	uint64_t t = atomic_load(&r->tail);

	/* no pair: read after t, it is at least the head that reserved up to t */
	return atomic_load(&r->head) - t;
}

#endif
