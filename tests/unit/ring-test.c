// SPDX-License-Identifier: MIT
/*
 * Unit tests of shim/core/ring.c: reserve, commit and read order, a record
 * not yet committed holding back the ones after it, a full ring and the room
 * a release gives back, the padding record at the end, a record too large
 * for any ring; a record discarded by a writer that was cut off, stepped
 * over; then four producer threads against one consumer, every
 * record seen once and in each producer's order.
 */
#include "core/ring.h"
#include "tap.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

static _Alignas(64) char mem[4096];

static struct pks_ring *fresh(size_t size)
{
	static struct pks_ring r;

	memset(mem, 0, sizeof(mem));
	pks_ring_init(&r, mem, size);
	return &r;
}

static char *put(struct pks_ring *r, const char *s, int commit)
{
	char *p = pks_ring_reserve(r, strlen(s) + 1);

	if (p) {
		memcpy(p, s, strlen(s) + 1);
		if (commit)
			pks_ring_commit(p);
	}
	return p;
}

/* Every committed record from *@pos, joined by '|'. */
static const char *drain(struct pks_ring *r, uint64_t *pos)
{
	static char out[1024];
	size_t n = 0;
	char *p;

	out[0] = '\0';
	while ((p = pks_ring_read(r, pos)))
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s|", p);
	return out;
}

static void basics(void)
{
	struct pks_ring *r = fresh(256);
	uint64_t pos = 0;
	char *a, *b;

	is_str(drain(r, &pos), "", "an empty ring reads nothing");
	a = put(r, "one", 0);
	b = put(r, "two", 1);
	is_str(drain(r, &pos), "", "a record not committed holds back the committed one after it");
	is_int((long long)pos, 0, "and the read position stays");
	pks_ring_commit(a);
	is_str(drain(r, &pos), "one|two|", "committed: both, in reserve order");
	is_int((long long)pos, 32, "the position moves by whole 8-byte records");
	is_int((long long)pks_ring_used(r), 32, "read is not released");
	pks_ring_release(r, pos);
	is_int((long long)pks_ring_used(r), 0, "released");
	(void)b;
}

static void discarded(void)
{
	struct pks_ring *r = fresh(256);
	uint64_t pos = 0;
	char *a;

	put(r, "one", 1);
	a = put(r, "cut", 0);
	put(r, "three", 1);
	is_str(drain(r, &pos), "one|", "a record its writer never commits holds back the rest");
	pks_ring_discard(a);
	is_str(drain(r, &pos), "three|", "discarded: the reader steps over it to the next");
	is_int((long long)pos, 48, "past all three");
	pks_ring_release(r, pos);
	is_int((long long)pks_ring_used(r), 0, "and its room comes back with the others'");
}

static void full(void)
{
	struct pks_ring *r = fresh(64);
	uint64_t pos = 0;

	is_int((long long)pks_ring_max(r), 24, "a record takes half the ring at most");
	ok(pks_ring_reserve(r, 25) == NULL, "a record above the most is refused, empty ring or not");
	ok(put(r, "aaaaaaaaaaaaaaaaaaaaaa", 1) != NULL, "a record of 32 bytes fits");
	ok(put(r, "bbbbbbbbbbbbbbbbbbbbbb", 1) != NULL, "and a second fills the ring");
	ok(put(r, "c", 1) == NULL, "a full ring refuses even 16 bytes");
	is_str(drain(r, &pos), "aaaaaaaaaaaaaaaaaaaaaa|bbbbbbbbbbbbbbbbbbbbbb|", "both read");
	ok(put(r, "c", 1) == NULL, "read but not released: still full");
	pks_ring_release(r, 32);
	ok(put(r, "c", 1) != NULL, "the first released: room again");
	pks_ring_release(r, pos);
	is_str(drain(r, &pos), "c|", "the new record, after the old ones");
}

static void wrap(void)
{
	struct pks_ring *r = fresh(64);
	uint64_t pos = 0;

	put(r, "0123456789012345678", 1);	/* 32 bytes */
	put(r, "x", 1);				/* 16: ends at 48 */
	drain(r, &pos);
	pks_ring_release(r, pos);
	ok(put(r, "0123456789", 1) != NULL, "a 24-byte record that would cross the end");
	is_int((long long)atomic_load(&r->head), 64 + 24, "goes to the start, after 16 bytes of padding");
	is_str(drain(r, &pos), "0123456789|", "the padding is skipped");
	pks_ring_release(r, pos);
	is_int((long long)pks_ring_used(r), 0, "and released with it");
	ok(mem[48] == 0 && mem[0] == 0 && mem[16] == 0, "released bytes are zero again");
	is_str(drain(r, &pos), "", "old bytes past the last record read as nothing");
}

/* --- four producers, one consumer --------------------------------------- */

#define PRODUCERS	4
#define PER		200000

static struct pks_ring big;
static _Alignas(64) char bigmem[1 << 14];

static void *produce(void *arg)
{
	uint32_t id = (uint32_t)(uintptr_t)arg;

	for (uint32_t n = 0; n < PER; n++) {
		uint32_t *p;
		size_t size = 8 + (n % 7) * 8;	/* records of different sizes */

		while (!(p = pks_ring_reserve(&big, size)))
			;
		p[0] = id;
		p[1] = n;
		pks_ring_commit(p);
	}
	return NULL;
}

static void threads(void)
{
	pthread_t t[PRODUCERS];
	uint32_t next[PRODUCERS] = { 0 }, bad = 0, seen = 0;
	uint64_t pos = 0;

	pks_ring_init(&big, bigmem, sizeof(bigmem));
	for (uintptr_t i = 0; i < PRODUCERS; i++)
		pthread_create(&t[i], NULL, produce, (void *)i);
	while (seen < PRODUCERS * PER) {
		uint32_t *p = pks_ring_read(&big, &pos);

		if (!p) {
			pks_ring_release(&big, pos);
			continue;
		}
		if (p[0] >= PRODUCERS || p[1] != next[p[0]]++)
			bad++;
		seen++;
	}
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(t[i], NULL);
	is_int(bad, 0, "4 threads x 200000 records: each producer's in order, none torn");
	ok(pks_ring_read(&big, &pos) == NULL, "and nothing more");
}

int main(void)
{
	basics();
	discarded();
	full();
	wrap();
	threads();
	return tap_done();
}
