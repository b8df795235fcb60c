/* SPDX-License-Identifier: MIT */
/*
 * Reading an object's symbol tables from its file: the executable's (does it
 * define a function itself?) and any loaded object's (patch.c).
 */
#ifndef PKS_ELFSYM_H
#define PKS_ELFSYM_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>

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

int pks_elf_open(struct pks_elf *e, const char *path);
void pks_elf_close(struct pks_elf *e);
int pks_elf_walk(const struct pks_elf *e, bool dynamic, pks_elf_visit *fn, void *arg);
const ElfW(Sym) *pks_elf_find(const struct pks_elf *e, bool dynamic, const char *name);
const void *pks_elf_bytes(const struct pks_elf *e, ElfW(Addr) vaddr, size_t n);

const char *pks_elf_exe_defines(const char *const *names, int n, int *which);

#endif
