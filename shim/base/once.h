/* SPDX-License-Identifier: MIT */
/*
 * Work done once per process by whichever thread comes first, the others
 * waiting for it without a lock that a fork or a signal could leave held.
 */
#ifndef PKS_BASE_ONCE_H
#define PKS_BASE_ONCE_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

enum { PKS_ONCE_NOT, PKS_ONCE_RUNNING, PKS_ONCE_DONE };

/**
 * pks_once_claim() - Return: true to the one caller that must do the work
 * (it then calls pks_once_done()); false to every other, once it is done.
 */
static inline bool pks_once_claim(_Atomic int *state)
{
	int none = PKS_ONCE_NOT;

	/* acquire: pairs with pks_once_done()'s release: the work done is seen */
	if (atomic_load_explicit(state, memory_order_acquire) == PKS_ONCE_DONE)
		return false;
	/* no pair: it only elects the worker; DONE's release publishes the work */
	if (atomic_compare_exchange_strong(state, &none, PKS_ONCE_RUNNING))
		return true;
	/* acquire: pairs with pks_once_done()'s release, as above */
	while (atomic_load_explicit(state, memory_order_acquire) != PKS_ONCE_DONE)
		sched_yield();
	return false;
}

static inline void pks_once_done(_Atomic int *state)
{
	/* release: pairs with pks_once_claim()'s acquire loads */
	atomic_store_explicit(state, PKS_ONCE_DONE, memory_order_release);
}

#endif
