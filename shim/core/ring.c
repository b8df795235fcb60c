// SPDX-License-Identifier: MIT
/*
 * The deferred lines' ring (printk-shim(7) DEFERRED PRINTING): byte
 * positions that only grow, a record's header (state, length) at a position
 * a multiple of 8, a padding record where a record would cross the end.
 * The consumer zeroes what it releases, so a position past the last
 * committed record reads as "not committed" whatever was there before.
 * A record whose writer was cut off is discarded: padding to the reader.
 * Thread-safety: reserve, commit and discard from any thread or signal handler
 * (lock-free, async-signal-safe); read and release from one consumer.
 */
#include "base/compiler.h"
#include "core/ring.h"

#include <string.h>

/** pks_ring_init() - an empty ring over @size bytes of zeroed @mem (a power of two) */
void pks_ring_init(struct pks_ring *r, void *mem, size_t size)
{
	r->mem = mem;
	r->size = size;
	/* no pair: the ring is not shared yet; what shares it orders these */
	atomic_store(&r->head, 0);
	atomic_store(&r->tail, 0);
}

/**
 * pks_ring_discard() - the record whose payload is @rec will never be
 * filled (its writer was cut off): the reader steps over it
 */
void pks_ring_discard(void *rec)
{
	struct pks_ring_hdr *h = (struct pks_ring_hdr *)rec - 1;

	/* release: pairs with pks_ring_read()'s acquire, as a commit does */
	atomic_store_explicit(&h->state, PKS_RING_PAD, memory_order_release);
}

/**
 * pks_ring_read() - the committed record at *@pos, and *@pos past it
 * Return: its payload, or NULL when the record at *@pos is not committed
 * (or not reserved) yet. Only the consumer reads, from the released end on. The record stays until pks_ring_release().
 */
void *pks_ring_read(struct pks_ring *r, uint64_t *pos)
{
	/* no pair: only the consumer, this thread, writes tail */
	uint64_t end = atomic_load_explicit(&r->tail, memory_order_relaxed) + r->size;

	for (;;) {
		struct pks_ring_hdr *h = pks_ring_at(r, *pos);
		uint32_t s;

		if (*pos >= end)
			return NULL;	/* a full ring: the next lap is not written yet */
		/* acquire: pairs with the release of commit, discard and padding */
		s = atomic_load_explicit(&h->state, memory_order_acquire);
		if (s == PKS_RING_FREE)
			return NULL;
		PKS_WARN_ON_ONCE(h->len < sizeof(*h) || h->len > r->size);
		*pos += h->len;
		if (s == PKS_RING_DATA)
			return h + 1;
	}
}

/*
 * @n bytes from @p zeroed, a KiB at a time: glibc's memset(3) writes as
 * much with vector stores, a larger size with `rep stosb`, which takes
 * about as long but which callgrind, the benchmark's instruction count,
 * counts a byte at a time. The piece's size is hidden from gcc, which
 * would write `rep stosq` here itself for a size it knows is small.
 */
static void zero(char *p, uint64_t n)
{
	size_t piece = 1024;

	__asm__("" : "+r"(piece));
	for (; n > piece; p += piece, n -= piece)
		memset(p, 0, piece);
	memset(p, 0, n);
}

/** pks_ring_release() - the records before @pos are done with: their room is free */
void pks_ring_release(struct pks_ring *r, uint64_t pos)
{
	/* no pair: only the consumer, this thread, writes tail */
	uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t off = t & (r->size - 1), n = pos - t;

	PKS_WARN_ON_ONCE(pos < t || n > r->size);	/* the tail only grows, by a lane at most */

	if (off + n > r->size) {
		zero(r->mem + off, r->size - off);
		zero(r->mem, off + n - r->size);
	} else {
		zero(r->mem + off, n);
	}
	/* release: pairs with pks_ring_reserve()'s acquire: the zeroes are seen first */
	atomic_store_explicit(&r->tail, pos, memory_order_release);
}
