// SPDX-License-Identifier: MIT
/*
 * The loaded image's facts the format engine asks for: the GNU build ID of
 * the object an address is in (its PT_NOTE segments, as mapped), and the
 * 16 random bytes the kernel hands every process (AT_RANDOM, getauxval(3)).
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

/* The kernel's 16 random bytes for this process, or NULL without AT_RANDOM. */
const void *pks_elf_at_random(void)
{
	return (const void *)getauxval(AT_RANDOM);
}
