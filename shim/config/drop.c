// SPDX-License-Identifier: MIT
/*
 * The quick tests (drop.h): armed from the configuration once it is read,
 * disarmed when printk-shim --pid changes the level or the dynamic debug
 * queries, so that the next line either takes arms them anew.
 */
#include "config/drop.h"
#include "base/compiler.h"
#include "base/tsan.h"

_Atomic unsigned char pks_drop_from = PKS_DROP_UNREACHED;
_Atomic bool pks_drop_bare;
static _Atomic unsigned int changes;	/* pks_drop_changed() calls */
static _Atomic bool never;		/* pks_drop_never() was called */

/** pks_drop_setup() - before main: name the flags raced on purpose to Helgrind */
void pks_drop_setup(void)
{
	PKS_HB_BENIGN(&pks_drop_from);
	PKS_HB_BENIGN(&pks_drop_bare);
}

/** pks_drop_reached() - the first call: UNREACHED becomes UNARMED, or HIDDEN for good */
void pks_drop_reached(void)
{
	unsigned char want = PKS_DROP_UNREACHED;

	/* no pair: emit.c's quick test reads the word alone, relaxed; a stale one takes the usual way */
	atomic_compare_exchange_strong_explicit(&pks_drop_from, &want,
						pks_tsan_present() ? PKS_DROP_HIDDEN : PKS_DROP_UNARMED,
						memory_order_relaxed, memory_order_relaxed);
}

/** pks_drop_arm() - the quick test of @c, once it is read (not the early defaults) */
void pks_drop_arm(const struct pks_config *c)
{
	/* pairs with pks_drop_changed()'s increment: a level read after it is the new one */
	unsigned int seen = atomic_load(&changes);
	/* pairs with pks_drop_never()'s store, before its increment: as the level */
	bool quick = !c->set.disable && !pks_rules_any(&c->dd) && !c->set.lint && !atomic_load(&never);
	int level = __atomic_load_n(&c->set.level, __ATOMIC_RELAXED);

	if (!pks_config_ready())
		return;		/* UNARMED still: the next dropped line arms it */
	if (pks_tsan_present())
		return;		/* HIDDEN: never armed */
	/* no pair: each word is read alone, relaxed, by emit.c; the recheck below undoes a stale one */
	atomic_store_explicit(&pks_drop_bare, quick && c->set.default_level > level,
			      memory_order_relaxed);
	atomic_store_explicit(&pks_drop_from, !quick ? PKS_DROP_NEVER :
			      '0' + level + 1 - (c->set.defer ? PKS_DROP_RING : 0),
			      memory_order_relaxed);
	/* a change meanwhile may have been armed over with the old level: undo
	 * (pairs with pks_drop_changed()'s increment, as the load above) */
	if (atomic_load(&changes) != seen)
		atomic_store_explicit(&pks_drop_from, PKS_DROP_UNARMED, memory_order_relaxed);
}

/** pks_drop_changed() - the level or the queries changed: every call the usual way until re-armed */
void pks_drop_changed(void)
{
	/* pairs with pks_drop_arm()'s loads: the new level is stored before */
	atomic_fetch_add(&changes, 1);
	/* before the first call it stays UNREACHED, which ends as UNARMED too, and HIDDEN stays;
	 * no pair: a word emit.c reads alone, relaxed, and the increment orders the level */
	if (atomic_load_explicit(&pks_drop_from, memory_order_relaxed) < PKS_DROP_UNREACHED)
		atomic_store_explicit(&pks_drop_from, PKS_DROP_UNARMED, memory_order_relaxed);
}

/**
 * pks_drop_never() - from now on, every call of the process goes the
 * usual way (NEVER), which a thread with asynchronous cancellation needs
 * (ctx/cancel.c)
 */
void pks_drop_never(void)
{
	/* pairs with pks_drop_arm()'s load, after its load of changes; once:
	 * a thread that turns asynchronous around each loop disarms nothing again */
	if (!atomic_exchange(&never, true))
		pks_drop_changed();
}
