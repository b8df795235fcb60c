// SPDX-License-Identifier: MIT
/*
 * An object's symbol tables, read from its file (mapped read-only): .symtab
 * when it is there, which also names hidden and local functions, and .dynsym,
 * which survives strip. Every offset is checked against the file's size; a
 * malformed or foreign file has no tables rather than a crash. Used at
 * start-up by patch.c and by diagnostics, never on the output path. What the
 * symbols mean for interposition is the caller's business.
 * Thread-safety: reentrant; pks_elf_exe_defines() returns a static buffer
 * that every caller fills with the same bytes.
 */
#include "patch/elfsym.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NATIVE_CLASS (__ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32)

static char exe[4096];

static bool inside(const struct pks_elf *e, size_t off, size_t n)
{
	return off <= e->size && n <= e->size - off;
}

/* Take the symbol table section @sh and its string table, if both are sound. */
static void take(struct pks_elf *e, const ElfW(Shdr) *shdrs, unsigned shnum, const ElfW(Shdr) *sh)
{
	const ElfW(Shdr) *str = sh->sh_link < shnum ? &shdrs[sh->sh_link] : NULL;
	bool dyn = sh->sh_type == SHT_DYNSYM;

	if (!str || sh->sh_entsize != sizeof(ElfW(Sym)) || !inside(e, sh->sh_offset, sh->sh_size) ||
	    !inside(e, str->sh_offset, str->sh_size) || str->sh_size == 0 ||
	    e->base[str->sh_offset + str->sh_size - 1] != '\0')
		return;
	*(dyn ? &e->dynsym : &e->symtab) = (const ElfW(Sym) *)(e->base + sh->sh_offset);
	*(dyn ? &e->ndynsym : &e->nsymtab) = sh->sh_size / sizeof(ElfW(Sym));
	*(dyn ? &e->dynstr : &e->symstr) = e->base + str->sh_offset;
	*(dyn ? &e->dynstr_size : &e->symstr_size) = str->sh_size;
}

static void find_tables(struct pks_elf *e)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)e->base;
	const ElfW(Shdr) *sh;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != NATIVE_CLASS ||
	    eh->e_shentsize != sizeof(*sh) ||
	    !inside(e, eh->e_shoff, (size_t)eh->e_shnum * sizeof(*sh)))
		return;
	sh = (const ElfW(Shdr) *)(e->base + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM)
			take(e, sh, eh->e_shnum, &sh[i]);
}

/**
 * pks_elf_open() - map the ELF file at @path and find its symbol tables
 * Return: 0, or -1 with errno set (the file cannot be read). A file that is
 * not ELF, or is of the other class, opens with no tables.
 */
int pks_elf_open(struct pks_elf *e, const char *path)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(e, 0, sizeof(*e));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(ElfW(Ehdr))) {
		close(fd);
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	e->base = p;
	e->size = (size_t)st.st_size;
	find_tables(e);
	return 0;
}

void pks_elf_close(struct pks_elf *e)
{
	if (e->base)
		munmap((void *)e->base, e->size);
	memset(e, 0, sizeof(*e));
}

/**
 * pks_elf_walk() - call @fn for each named symbol of .dynsym (@dynamic) or .symtab
 * Return: what @fn returned to stop the walk, or 0.
 */
int pks_elf_walk(const struct pks_elf *e, bool dynamic, pks_elf_visit *fn, void *arg)
{
	const ElfW(Sym) *tab = dynamic ? e->dynsym : e->symtab;
	const char *str = dynamic ? e->dynstr : e->symstr;
	size_t n = dynamic ? e->ndynsym : e->nsymtab;
	size_t strsize = dynamic ? e->dynstr_size : e->symstr_size;
	int r;

	for (size_t i = 0; i < n; i++) {
		const ElfW(Sym) *s = &tab[i];

		if (s->st_name == 0 || s->st_name >= strsize)
			continue;
		if ((r = fn(arg, str + s->st_name, s)))
			return r;
	}
	return 0;
}

struct find { const char *name; const ElfW(Sym) *found; };

static int match(void *arg, const char *name, const ElfW(Sym) *s)
{
	struct find *f = arg;

	if (strcmp(name, f->name))
		return 0;
	f->found = s;
	return 1;
}

/** pks_elf_find() - Return: the first symbol called @name, defined or not, or NULL. */
const ElfW(Sym) *pks_elf_find(const struct pks_elf *e, bool dynamic, const char *name)
{
	struct find f = { name, NULL };

	pks_elf_walk(e, dynamic, match, &f);
	return f.found;
}

/**
 * pks_elf_bytes() - the file's bytes that a load puts at link-time address @vaddr
 * Return: a pointer into the mapped file, or NULL when [@vaddr, @vaddr + @n)
 * is not all file-backed content of one PT_LOAD segment.
 */
const void *pks_elf_bytes(const struct pks_elf *e, ElfW(Addr) vaddr, size_t n)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)e->base;
	const ElfW(Phdr) *ph;

	if (!e->base || eh->e_phentsize != sizeof(*ph) ||
	    !inside(e, eh->e_phoff, (size_t)eh->e_phnum * sizeof(*ph)))
		return NULL;
	ph = (const ElfW(Phdr) *)(e->base + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || vaddr < ph[i].p_vaddr ||
		    vaddr - ph[i].p_vaddr > ph[i].p_filesz || n > ph[i].p_filesz - (vaddr - ph[i].p_vaddr))
			continue;
		if (!inside(e, ph[i].p_offset + (vaddr - ph[i].p_vaddr), n))
			return NULL;
		return e->base + ph[i].p_offset + (vaddr - ph[i].p_vaddr);
	}
	return NULL;
}

struct wanted {
	const char *const *names;	/* NULL entries are skipped */
	int n;
	unsigned int found;		/* bit i: names[i] is defined */
};

static int defined_func(void *arg, const char *name, const ElfW(Sym) *s)
{
	struct wanted *w = arg;

	if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC)
		return 0;
	for (int i = 0; i < w->n; i++)
		if (w->names[i] && !strcmp(name, w->names[i]))
			w->found |= 1u << i;
	return 0;
}

/**
 * pks_elf_exe_defines() - which of @n functions @names (at most 32; NULL
 * entries skipped) the executable defines, in one reading of its file
 * @which: out; the index of the first one defined
 * Return: the executable's path if it defines one, else NULL.
 */
const char *pks_elf_exe_defines(const char *const *names, int n, int *which)
{
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct wanted w = { names, n, 0 };
	struct pks_elf e;

	if (len <= 0 || pks_elf_open(&e, "/proc/self/exe"))
		return NULL;
	exe[len] = '\0';
	pks_elf_walk(&e, e.symtab == NULL, defined_func, &w);
	pks_elf_close(&e);
	if (!w.found)
		return NULL;
	*which = __builtin_ctz(w.found);
	return exe;
}
