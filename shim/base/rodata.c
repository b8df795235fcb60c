// SPDX-License-Identifier: MIT
/*
 * The read-only segments of the objects loaded with the program, noted once
 * by the constructor: the dynamic linker never unloads those objects (a
 * dlclose() of one only drops a reference), so the bytes there, a port's
 * format strings, cannot change while the process lives. An object loaded
 * later may be unloaded and another mapped at its address, so it is not
 * noted, nor is anything writable. A program that mprotect()s its own
 * constant strings writable and rewrites them is not provided for.
 * Thread-safety: noted before other threads exist, published with a release
 * store; read without a lock, async-signal-safe.
 */
#include "base/rodata.h"

#include <link.h>
#include <stdatomic.h>
#include <stdint.h>

#define RANGES	64	/* segments noted; those of more objects are compared as any other */

static struct { uintptr_t lo, hi; } ranges[RANGES];
static _Atomic unsigned int nranges;

static int note(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned int *n = arg;

	(void)size;
	for (unsigned int i = 0; i < info->dlpi_phnum && *n < RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W))
			continue;
		ranges[*n].lo = info->dlpi_addr + ph->p_vaddr;
		ranges[*n].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		++*n;
	}
	return 0;
}

/** pks_rodata_setup() - from the constructor: note the start-up objects' segments */
void pks_rodata_setup(void)
{
	unsigned int n = 0;

	/* no pair: a second call only returns early, it reads no range */
	if (atomic_load_explicit(&nranges, memory_order_relaxed))
		return;
	dl_iterate_phdr(note, &n);
	/* Pairs with the acquire load in pks_rodata_fixed(): the ranges before their count. */
	atomic_store_explicit(&nranges, n, memory_order_release);
}

/**
 * pks_rodata_fixed() - Return: whether @p lies in a read-only segment of an
 * object loaded with the program (false before pks_rodata_setup()).
 */
bool pks_rodata_fixed(const void *p)
{
	/* Pairs with the release store in pks_rodata_setup(). */
	unsigned int n = atomic_load_explicit(&nranges, memory_order_acquire);
	uintptr_t a = (uintptr_t)p;

	for (unsigned int i = 0; i < n; i++)
		if (a >= ranges[i].lo && a < ranges[i].hi)
			return true;
	return false;
}
