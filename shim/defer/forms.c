// SPDX-License-Identifier: MIT
/*
 * The forms of the formats whose lines are kept as their arguments and
 * whose bytes never change nor go away (base/rodata.c): each interned once
 * for the process, so that a record names its form instead of carrying it
 * (args.c). Thread-safety: lock-free, async-signal-safe; a form is never
 * changed once its slot holds it, and a fork's child inherits them all.
 */
#include "defer/internal.h"
#include "base/compiler.h"

#include <stdatomic.h>
#include <stdint.h>

#define FORMS	2048	/* formats interned; later ones keep carrying their form */
#define SLOTS	4096	/* of the table that finds them, a power of two */
#define PROBES	8	/* slots looked at for one format */

static struct pks_defer_form pool[FORMS];
static _Atomic uint32_t used;
static const struct pks_defer_form *_Atomic slots[SLOTS];

/* The first slot of @fmt's: Fibonacci hashing of its address. */
static inline uint32_t first(const char *fmt)
{
	return (uint32_t)(((uint64_t)(uintptr_t)fmt * 0x9e3779b97f4a7c15ull) >> 52) & (SLOTS - 1);
}

/**
 * pks_defer_form_find() - the form interned for @fmt
 * Return: it, or NULL when there is none yet.
 */
const struct pks_defer_form *pks_defer_form_find(const char *fmt)
{
	uint32_t i = first(fmt);

	for (int k = 0; k < PROBES; k++, i = (i + 1) & (SLOTS - 1)) {
		/* acquire: pairs with pks_defer_form_add()'s release: the form's fields first */
		const struct pks_defer_form *f = atomic_load_explicit(&slots[i], memory_order_acquire);

		if (!f || f->fmt == fmt)
			return f;
	}
	return NULL;
}

/**
 * pks_defer_form_add() - @f interned for @f->fmt, or the one another call
 * interned for it first
 * Return: the form, or NULL when the table has no room for it: a pool's
 * form is taken only where a slot is free, so that a format the table has
 * no room for takes none on each of its calls.
 */
const struct pks_defer_form *pks_defer_form_add(const struct pks_defer_form *f)
{
	struct pks_defer_form *mine = NULL;
	uint32_t i = first(f->fmt), n;

	for (int k = 0; k < PROBES; k++, i = (i + 1) & (SLOTS - 1)) {
		/* acquire: pairs with the release below, another call's: its fields first */
		const struct pks_defer_form *o = atomic_load_explicit(&slots[i], memory_order_acquire);

		if (o && o->fmt == f->fmt)
			return o;
		if (o)
			continue;
		if (!mine) {
			/* no pair: counts of the pool's forms given out, each one's alone;
			 * looked at first, so that the count stops near FORMS */
			if (atomic_load_explicit(&used, memory_order_relaxed) >= FORMS ||
			    (n = atomic_fetch_add_explicit(&used, 1, memory_order_relaxed)) >= FORMS)
				return NULL;
			mine = &pool[n];
			*mine = *f;
		}
		/* release: pairs with the acquires above and in pks_defer_form_find():
		 * the form's fields before it; acquire: as above, for another's */
		if (atomic_compare_exchange_strong_explicit(&slots[i], &o, mine, memory_order_acq_rel,
							    memory_order_acquire))
			return mine;
		if (o->fmt == f->fmt)
			return o;	/* another call's; this one's form stays unused */
	}
	return NULL;
}
