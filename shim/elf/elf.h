/* SPDX-License-Identifier: MIT */
/*
 * The one ELF reader: any ELF file, either class and byte order, mapped
 * read-only without blocking; its headers, sections, segments, symbols and
 * dynamic entries, each checked against the file; and the native view of
 * an object's symbol tables that patching walks.
 */
#ifndef PKS_ELF_ELF_H
#define PKS_ELF_ELF_H

#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Errors besides -errno of open(2), fstat(2) and mmap(2). */
#define PKS_ELF_NOT_REGULAR	(-ENODEV)	/* a FIFO, a device, a socket */
#define PKS_ELF_NO_MAP		(-ENOTSUP)	/* regular, but mmap(2) refuses it (/proc, /sys) */
#define PKS_ELF_CORRUPT		(-EBADMSG)	/* ELF, its headers cut short or out of it */

/*
 * An ELF file of either class and byte order, mapped read-only. Every
 * field is checked against the file; the members are elf.c's.
 */
struct pks_elf_image {
	const unsigned char *base;	/* the file */
	size_t size;
	unsigned char cls;		/* ELFCLASS32 or ELFCLASS64 */
	bool msb;			/* the file is big-endian */
	unsigned type, machine;		/* e_type, e_machine */
	const unsigned char *shdrs;	/* the section headers, shnum of them; NULL when unsound */
	unsigned shnum;
	const char *shstr;		/* the section names */
	size_t shstr_size;
	const unsigned char *phdrs;	/* the program headers, phnum of them; NULL when unsound */
	unsigned phnum;
	void **copy;			/* per section: its relocated bytes, once asked for */
	struct pks_elf_span *spans;	/* the loaded sections by address, once a string is asked for */
	unsigned nspans;
};

int pks_elf_open(struct pks_elf_image *im, const char *path);
int pks_elf_open_loadable(struct pks_elf_image *im, const char *path);
void pks_elf_close(struct pks_elf_image *im);
const char *pks_elf_strerror(int err);
const char *pks_elf_unlinked(const struct pks_elf_image *im);
unsigned pks_elf_ptrsize(const struct pks_elf_image *im);
const void *pks_elf_section(struct pks_elf_image *im, const char *name, size_t *size);
const char *pks_elf_string(struct pks_elf_image *im, uint64_t addr);
uint64_t pks_elf_word(const struct pks_elf_image *im, const void *p, unsigned n);

/* One section of an image, decoded. */
struct pks_elf_sect {
	const char *name;		/* "" when its name is unsound */
	uint32_t type, link, info;
	uint64_t flags, addr, size, entsize;
	const unsigned char *bytes;	/* in the file; NULL for SHT_NOBITS or out of bounds */
};

/* One program header of an image, decoded. */
struct pks_elf_seg {
	uint32_t type, flags;
	uint64_t vaddr, filesz, memsz;
	const unsigned char *bytes;	/* its filesz bytes in the file; NULL when out of bounds */
};

/* One symbol of an image, decoded. */
struct pks_elf_symbol {
	uint64_t value, size;
	unsigned shndx;
	unsigned char info, other;
};

bool pks_elf_sect_at(const struct pks_elf_image *im, unsigned i, struct pks_elf_sect *out);
bool pks_elf_seg_at(const struct pks_elf_image *im, unsigned i, struct pks_elf_seg *out);
bool pks_elf_has_symtab(const struct pks_elf_image *im, bool dynamic);
bool pks_elf_symbol(const struct pks_elf_image *im, bool dynamic, const char *name,
		    struct pks_elf_symbol *out);
bool pks_elf_clone(const struct pks_elf_image *im, const char *name, char *buf, size_t size);
bool pks_elf_has_segment(const struct pks_elf_image *im, uint32_t type);
bool pks_elf_dynamic(const struct pks_elf_image *im, int64_t tag, uint64_t *val);
unsigned pks_elf_dynamic_all(const struct pks_elf_image *im, int64_t tag, uint64_t *vals,
			     unsigned max);

/* A NUL-terminated string of read-only data; return nonzero to stop the walk. */
typedef int pks_elf_string_visit(void *arg, const char *s);

int pks_elf_rodata_strings(const struct pks_elf_image *im, const char *first,
			   pks_elf_string_visit *fn, void *arg);

/*
 * The native view: an object of this process's class and byte order, its
 * symbol tables as <link.h> types pointing into the mapped file. NULL
 * tables when absent (stripped, static) or of another class.
 */
struct pks_elf {
	struct pks_elf_image im;
	const ElfW(Sym) *symtab, *dynsym;
	size_t nsymtab, ndynsym;		/* entries */
	const char *symstr, *dynstr;		/* their string tables */
	size_t symstr_size, dynstr_size;	/* bytes */
};

/* One symbol while walking a table; return nonzero to stop the walk. */
typedef int pks_elf_visit(void *arg, const char *name, const ElfW(Sym) *s);

int pks_elf_map(struct pks_elf *e, const char *path);
void pks_elf_unmap(struct pks_elf *e);
int pks_elf_walk(const struct pks_elf *e, bool dynamic, pks_elf_visit *fn, void *arg);
const ElfW(Sym) *pks_elf_find(const struct pks_elf *e, bool dynamic, const char *name);
const void *pks_elf_bytes(const struct pks_elf *e, ElfW(Addr) vaddr, size_t n);
bool pks_elf_loaded_as(const struct pks_elf *e, const ElfW(Phdr) *ph, size_t phnum);

const char *pks_elf_exe_defines(const char *const *names, int n, int *which);

#endif
