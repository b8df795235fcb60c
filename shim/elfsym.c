// SPDX-License-Identifier: MIT
/*
 * Does the executable define a function itself? The dynamic linker cannot
 * route the executable's own calls to a preloaded definition, so printk
 * defined there is out of the shim's reach. The answer comes from the file
 * (/proc/self/exe, mapped read-only): .symtab when it is there, .dynsym
 * otherwise. Used by diagnostics only, never on the output path.
 * Thread-safety: reentrant; the returned path is in a static buffer that is
 * written with the same bytes by every caller.
 */
#include "elfsym.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static char exe[4096];

/* Is @name a defined function in the symbol table section @sh? */
static int defined_in(const char *base, size_t size, const ElfW(Ehdr) *eh, const ElfW(Shdr) *sh,
		      const char *name)
{
	const ElfW(Shdr) *strs = (const ElfW(Shdr) *)(base + eh->e_shoff) + sh->sh_link;
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	if (sh->sh_link >= eh->e_shnum || sh->sh_offset + sh->sh_size > size ||
	    strs->sh_offset + strs->sh_size > size)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const ElfW(Sym) *s = (const ElfW(Sym) *)(base + sh->sh_offset) + i;

		if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
		    s->st_name >= strs->sh_size)
			continue;
		if (!strcmp(base + strs->sh_offset + s->st_name, name))
			return 1;
	}
	return 0;
}

static int search(const char *base, size_t size, const char *name)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	const ElfW(Shdr) *sh;
	int found = 0, have_symtab = 0;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(*sh) ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(*sh) > size)
		return 0;
	sh = (const ElfW(Shdr) *)(base + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++)
		have_symtab |= sh[i].sh_type == SHT_SYMTAB;
	for (int i = 0; i < eh->e_shnum && !found; i++)
		if (sh[i].sh_type == (have_symtab ? SHT_SYMTAB : SHT_DYNSYM))
			found = defined_in(base, size, eh, &sh[i], name);
	return found;
}

/**
 * pks_elf_exe_defines() - look for a function @name in the executable
 * Return: the executable's path if it defines @name, else NULL.
 */
const char *pks_elf_exe_defines(const char *name)
{
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct stat st;
	void *p;
	int fd, found;

	if (len <= 0)
		return NULL;
	exe[len] = '\0';
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(ElfW(Ehdr))) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	found = search(p, (size_t)st.st_size, name);
	munmap(p, (size_t)st.st_size);
	return found ? exe : NULL;
}
