/* SPDX-License-Identifier: MIT */
/*
 * The definition of a function that comes after the shim's in the lookup
 * order (the C library's, usually), looked up once.
 */
#ifndef PKS_BASE_NEXT_H
#define PKS_BASE_NEXT_H

#include <stdatomic.h>
#include <stdbool.h>

struct pks_next {
	void *_Atomic fn;
	_Atomic bool looked;
};

void *pks_next(const char *name, struct pks_next *cache);

#endif
