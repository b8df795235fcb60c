// SPDX-License-Identifier: MIT
/*
 * The two copies of the dynamic debug rules (printk-shim(7) DYNAMIC
 * DEBUG): who holds which, and the swap that puts a new one in force.
 * Thread-safety: holds from any thread and signal handler (atomic adds,
 * no wait); one writer at a time (control.c's applier), which never
 * waits for long: a copy held for good (a jump out of a handler that
 * held it) leaves the change to be made in place, as rules are added.
 */
#include "config/rules.h"

#include <time.h>

#define ASIDE_WAIT_MS	20	/* the longest the writer waits for the other copy's holders */

static _Atomic unsigned int held[2];	/* calls reading each copy now */

/**
 * pks_rules_hold() - the copy of @r in force, held until
 * pks_rules_let_go(*@i): the writer builds a copy only when no call holds it
 *
 * Every operation here and in pks_rules_aside() and pks_rules_swap() is
 * seq_cst: of this hold's add and second look at live, and the writer's
 * look at held before it builds the copy out of force (until its swap),
 * one sees the other. Either this call finds the copy out of force and
 * lets it go unread, or the writer finds it held and leaves it alone.
 */
const struct pks_dd_rules *pks_rules_hold(const struct pks_rules *r, unsigned int *i)
{
	for (;;) {
		/* pairs with pks_rules_swap(), as below */
		unsigned int k = atomic_load(&r->live) & 1;

		atomic_fetch_add(&held[k], 1);	/* pairs with pks_rules_aside()'s load */
		if ((atomic_load(&r->live) & 1) == k) {	/* pairs with pks_rules_swap() */
			*i = k;
			return &r->set[k];
		}
		atomic_fetch_sub(&held[k], 1);	/* pairs with pks_rules_aside()'s load */
	}
}

/** pks_rules_let_go() - done reading copy @i (pks_rules_hold()) */
void pks_rules_let_go(unsigned int i)
{
	atomic_fetch_sub(&held[i], 1);	/* pairs with pks_rules_aside()'s load */
}

/**
 * pks_rules_aside() - the copy of @r not in force, to build a change in,
 * once no call holds it (ASIDE_WAIT_MS at most)
 * Return: it, or NULL: add to the copy in force instead.
 */
struct pks_dd_rules *pks_rules_aside(struct pks_rules *r)
{
	/* no pair: only the writer stores live */
	unsigned int k = (atomic_load_explicit(&r->live, memory_order_relaxed) & 1) ^ 1;
	struct timespec ms = { 0, 1000000 };

	/* pairs with pks_rules_hold()'s adds, see there */
	for (int i = 0; atomic_load(&held[k]); i++) {
		if (i == ASIDE_WAIT_MS)
			return NULL;
		nanosleep(&ms, NULL);
	}
	return &r->set[k];
}

/** pks_rules_swap() - the copy pks_rules_aside() gave is built: in force from now on */
void pks_rules_swap(struct pks_rules *r)
{
	/* pairs with pks_rules_hold()'s loads, and with pks_rules_now()'s acquire */
	atomic_fetch_xor(&r->live, 1);
	pks_rules_counted(r);
}

/** pks_rules_counted() - rules were put in force: pks_rules_any() says so */
void pks_rules_counted(struct pks_rules *r)
{
	/* no pair: as pks_rules_any(); a copy's count never goes back to 0 */
	atomic_store_explicit(&r->n, pks_rules_now(r)->n, memory_order_relaxed);
}

/** pks_rules_forked() - in a fork child: no other thread holds a copy */
void pks_rules_forked(void)
{
	/* no pair: a fork's child runs one thread */
	atomic_store(&held[0], 0);
	atomic_store(&held[1], 0);
}
