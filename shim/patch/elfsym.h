/* SPDX-License-Identifier: MIT */
/*
 * Reading ELF files: an object's symbol tables, the executable's (does it
 * define a function itself?) and any loaded object's (patch.c); and any
 * file's sections as the loader would relocate them, for inspection.
 */
#ifndef PKS_ELFSYM_H
#define PKS_ELFSYM_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ELF64_ST_TYPE, _BIND and _VISIBILITY are the ELF32_ ones too; both classes use them. */

/* An ELF file mapped read-only, its symbol tables found and bounds-checked. */
struct pks_elf {
	const char *base;
	size_t size;
	const ElfW(Sym) *symtab, *dynsym;	/* NULL when absent (stripped, static) */
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

const char *pks_elf_exe_defines(const char *const *names, int n, int *which);

/*
 * An ELF file of either class and byte order, mapped read-only for
 * inspection: its sections, and the strings its data points at. Every
 * field is checked against the file; the members are elfsym.c's.
 */
struct pks_elf_image {
	const unsigned char *base;	/* the file */
	size_t size;
	unsigned char cls;		/* ELFCLASS32 or ELFCLASS64 */
	bool msb;			/* the file is big-endian */
	unsigned type, machine;		/* e_type, e_machine */
	const unsigned char *shdrs;	/* the section headers, shnum of them */
	unsigned shnum;
	const char *shstr;		/* the section names */
	size_t shstr_size;
	void **copy;			/* per section: its relocated bytes, once asked for */
};

int pks_elf_open(struct pks_elf_image *im, const char *path);
void pks_elf_close(struct pks_elf_image *im);
unsigned pks_elf_ptrsize(const struct pks_elf_image *im);
const void *pks_elf_section(struct pks_elf_image *im, const char *name, size_t *size);
const char *pks_elf_string(const struct pks_elf_image *im, uint64_t addr);
uint64_t pks_elf_word(const struct pks_elf_image *im, const void *p, unsigned n);

/* One section of an image, decoded. */
struct pks_elf_sect {
	const char *name;		/* "" when its name is unsound */
	uint32_t type;
	uint64_t flags, addr, size;
	const unsigned char *bytes;	/* in the file; NULL for SHT_NOBITS or out of bounds */
};

/* One symbol of an image, decoded. */
struct pks_elf_symbol {
	uint64_t value, size;
	unsigned shndx;
	unsigned char info, other;
};

bool pks_elf_sect_at(const struct pks_elf_image *im, unsigned i, struct pks_elf_sect *out);
bool pks_elf_has_symtab(const struct pks_elf_image *im, bool dynamic);
bool pks_elf_symbol(const struct pks_elf_image *im, bool dynamic, const char *name,
		    struct pks_elf_symbol *out);
bool pks_elf_has_segment(const struct pks_elf_image *im, uint32_t type);
bool pks_elf_dynamic(const struct pks_elf_image *im, int64_t tag, uint64_t *val);
unsigned pks_elf_dynamic_all(const struct pks_elf_image *im, int64_t tag, uint64_t *vals,
			     unsigned max);

#endif
