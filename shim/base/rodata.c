// SPDX-License-Identifier: MIT
/*
 * The read-only segments of the objects loaded with the program, noted once
 * by the constructor: the dynamic linker never unloads those objects (a
 * dlclose() of one only drops a reference), so the bytes there, a port's
 * format strings, cannot change while the process lives. They are the
 * program and what its DT_NEEDED entries name, and theirs in turn: by the
 * time our constructor runs, another library's may have dlopen()ed more,
 * which may be unloaded and another mapped at its address, so those are
 * not noted, nor is anything writable. A program that mprotect()s its own
 * constant strings writable and rewrites them is not provided for.
 * Thread-safety: noted before other threads exist, published with a release
 * store; read without a lock, async-signal-safe.
 */
#include "base/rodata.h"

#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define RANGES	64	/* segments noted; those of more objects are compared as any other */
#define OBJS	64	/* objects looked at; those past them are not noted */

static struct { uintptr_t lo, hi; } ranges[RANGES];
static _Atomic unsigned int nranges;

/* A loaded object as the setup sees it: its segments, its names, its needs. */
struct obj {
	struct dl_phdr_info copy;
	const ElfW(Dyn) *dyn;	/* its dynamic section, as mapped; NULL: none */
	const char *str;	/* its DT_STRTAB; NULL: none */
	const char *soname;	/* its DT_SONAME; NULL: none */
	bool start;		/* loaded with the program */
	bool walked;		/* its DT_NEEDED entries marked */
};

struct objs {
	struct obj o[OBJS];
	unsigned int n;
};

/*
 * An address of @o's dynamic section: the dynamic linker made most of them
 * absolute in place, but not where the section is read-only; an object's
 * own addresses lie below its load address only when unrelocated.
 */
static const char *at(const struct obj *o, ElfW(Addr) a)
{
	return (const char *)(a < o->copy.dlpi_addr ? a + o->copy.dlpi_addr : a);
}

static int gather(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct objs *all = arg;
	struct obj *o;

	(void)size;
	if (all->n == OBJS)
		return 1;
	o = &all->o[all->n++];
	*o = (struct obj){ .copy = *info, .start = all->n == 1 };	/* the program is the first */
	for (unsigned int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			o->dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	for (const ElfW(Dyn) *d = o->dyn; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_STRTAB)
			o->str = at(o, d->d_un.d_ptr);
	for (const ElfW(Dyn) *d = o->dyn; o->str && d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_SONAME)
			o->soname = o->str + d->d_un.d_val;
	return 0;
}

/* Whether @o is what a DT_NEEDED entry @name asks for: its soname, its path, its file's name. */
static bool named(const struct obj *o, const char *name)
{
	const char *path = o->copy.dlpi_name, *base;

	if (o->soname && !strcmp(o->soname, name))
		return true;
	if (!path || !*path)
		return false;
	base = strrchr(path, '/');
	return !strcmp(path, name) || (base && !strcmp(base + 1, name));
}

/* Each object that @o's DT_NEEDED entries name, marked loaded with the program. */
static void needs(struct objs *all, struct obj *o)
{
	o->walked = true;
	for (const ElfW(Dyn) *d = o->dyn; o->str && d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_NEEDED)
			for (unsigned int i = 0; i < all->n; i++)
				if (!all->o[i].start && named(&all->o[i], o->str + d->d_un.d_val))
					all->o[i].start = true;
}

static void note(const struct dl_phdr_info *info, unsigned int *n)
{
	for (unsigned int i = 0; i < info->dlpi_phnum && *n < RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W))
			continue;
		ranges[*n].lo = info->dlpi_addr + ph->p_vaddr;
		ranges[*n].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		++*n;
	}
}

/** pks_rodata_setup() - from the constructor: note the start-up objects' segments */
void pks_rodata_setup(void)
{
	static struct objs all;	/* large: not on the constructor's stack */
	unsigned int n = 0;

	/* no pair: a second call only returns early, it reads no range */
	if (atomic_load_explicit(&nranges, memory_order_relaxed))
		return;
	all.n = 0;
	dl_iterate_phdr(gather, &all);
	/* each object once; one found may come before the one that needs it: again from 0 */
	for (unsigned int i = 0; i < all.n; i++)
		if (all.o[i].start && !all.o[i].walked) {
			needs(&all, &all.o[i]);
			i = (unsigned int)-1;
		}
	for (unsigned int i = 0; i < all.n; i++)
		if (all.o[i].start)
			note(&all.o[i].copy, &n);
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
