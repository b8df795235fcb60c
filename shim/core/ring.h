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

void pks_ring_init(struct pks_ring *r, void *mem, size_t size);
size_t pks_ring_max(const struct pks_ring *r);
void *pks_ring_reserve(struct pks_ring *r, size_t n);
void pks_ring_commit(void *rec);
void pks_ring_discard(void *rec);
void *pks_ring_read(struct pks_ring *r, uint64_t *pos);
void pks_ring_release(struct pks_ring *r, uint64_t pos);

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
