// SPDX-License-Identifier: MIT
/*
 * The loaded image's facts the format engine asks for: the GNU build ID of
 * the object an address is in (its PT_NOTE segments, as mapped), and the
 * 16 random bytes the kernel hands every process (AT_RANDOM, getauxval(3));
 * and, for the constructor, whether another copy of an object came first.
 * Thread-safety: dl_iterate_phdr() takes the dynamic linker's lock, so
 * pks_elf_build_id() is not async-signal-safe; AT_RANDOM is read-only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "elf/loaded.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>

struct build_id {
	uintptr_t addr;		/* in: an address inside the object */
	unsigned char *id;	/* out: PKS_ELF_BUILD_ID_LEN bytes */
	bool found;
};

static bool in_object(const struct dl_phdr_info *info, uintptr_t addr)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && addr - start < ph->p_memsz)
			return true;
	}
	return false;
}

static void scan_notes(struct build_id *b, const char *p, size_t size)
{
	while (size >= sizeof(ElfW(Nhdr))) {
		const ElfW(Nhdr) *nh = (const void *)p;
		size_t name = (nh->n_namesz + 3) & ~3u, desc = (nh->n_descsz + 3) & ~3u;
		size_t step = sizeof(*nh) + name + desc;

		if (step > size)
			return;
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
		    !memcmp(p + sizeof(*nh), "GNU", 4)) {
			memcpy(b->id, p + sizeof(*nh) + name,
			       nh->n_descsz < PKS_ELF_BUILD_ID_LEN ? nh->n_descsz :
								    PKS_ELF_BUILD_ID_LEN);
			b->found = true;
			return;
		}
		p += step;
		size -= step;
	}
}

static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
	struct build_id *b = data;

	(void)size;
	if (!in_object(info, b->addr))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && !b->found; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_NOTE)
			scan_notes(b, (const char *)(info->dlpi_addr + ph->p_vaddr),
				   ph->p_memsz);
	}
	return 1;
}

/**
 * pks_elf_build_id() - the GNU build ID of the object @addr is in
 * @id: filled with PKS_ELF_BUILD_ID_LEN bytes, zero-padded when shorter;
 *	callers pass it zeroed
 * Return: whether the object has one.
 */
bool pks_elf_build_id(const void *addr, unsigned char id[PKS_ELF_BUILD_ID_LEN])
{
	struct build_id b = { .addr = (uintptr_t)addr, .id = id };

	dl_iterate_phdr(find_build_id, &b);
	return b.found;
}

/*
 * @info's DT_SONAME, or NULL: its dynamic section as mapped, whose DT_STRTAB
 * the dynamic linker made absolute, unless the section is read-only.
 */
static const char *soname(const struct dl_phdr_info *info)
{
	const ElfW(Dyn) *d = NULL;
	ElfW(Addr) str = 0;
	const ElfW(Dyn) *name = NULL;

	for (int i = 0; i < info->dlpi_phnum && !d; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			d = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	for (; d && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_STRTAB)
			str = d->d_un.d_ptr;
		else if (d->d_tag == DT_SONAME)
			name = d;
	}
	if (!str || !name)
		return NULL;
	return (const char *)(str < info->dlpi_addr ? str + info->dlpi_addr : str) + name->d_un.d_val;
}

struct copy {
	uintptr_t here;		/* in: an address in the object */
	const char *name;	/* its DT_SONAME, found by the first walk */
	bool first;		/* out, of the second walk */
};

static int name_of(struct dl_phdr_info *info, size_t size, void *data)
{
	struct copy *c = data;

	(void)size;
	if (!in_object(info, c->here))
		return 0;
	c->name = soname(info);
	return 1;
}

static int first_of(struct dl_phdr_info *info, size_t size, void *data)
{
	struct copy *c = data;
	const char *name = soname(info);

	(void)size;
	if (!name || strcmp(name, c->name))
		return 0;
	c->first = in_object(info, c->here);
	return 1;
}

/**
 * pks_elf_first_copy() - whether the object @here is in comes first, in
 * the order the dynamic linker looks symbols up, among the loaded objects
 * of its DT_SONAME: of two copies of a library, the one the program's calls
 * reach. True when it has no DT_SONAME.
 */
bool pks_elf_first_copy(const void *here)
{
	struct copy c = { .here = (uintptr_t)here, .first = true };

	dl_iterate_phdr(name_of, &c);
	if (c.name)
		dl_iterate_phdr(first_of, &c);
	return c.first;
}

/* The kernel's 16 random bytes for this process, or NULL without AT_RANDOM. */
const void *pks_elf_at_random(void)
{
	return (const void *)getauxval(AT_RANDOM);
}
