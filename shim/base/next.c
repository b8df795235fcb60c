// SPDX-License-Identifier: MIT
/*
 * dlsym(RTLD_NEXT) with its answer kept, for the hooks and the
 * pass-through. A call made from inside dlsym (an interposed dlsym or
 * malloc that prints or installs a handler) gets NULL instead of recursing.
 * Thread-safety: racing first calls look up the same answer.
 */
#include "base/next.h"
#include "base/compiler.h"

#include <dlfcn.h>
#include <stddef.h>

/** pks_next() - Return: the next definition of @name, or NULL if there is none (yet). */
void *pks_next(const char *name, struct pks_next *cache)
{
	static PKS_TLS volatile bool looking;	/* glibc declares dlsym leaf: volatile */
	void *fn;

	/* acquire: pairs with the release below, after the lookup's store */
	if (atomic_load_explicit(&cache->looked, memory_order_acquire))
		return atomic_load_explicit(&cache->fn, memory_order_relaxed);
	if (looking)
		return NULL;
	looking = true;
	fn = dlsym(RTLD_NEXT, name);
	looking = false;
	/* no pair: the release of looked below publishes it */
	atomic_store_explicit(&cache->fn, fn, memory_order_relaxed);
	/* release: pairs with the acquire above: the pointer is seen first */
	atomic_store_explicit(&cache->looked, true, memory_order_release);
	return fn;
}
