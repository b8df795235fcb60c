/* SPDX-License-Identifier: MIT */
/*
 * The function or data object an address is in, as kallsyms names it for
 * the kernel: the object's own .symtab, static symbols included, read once
 * per object, else the dynamic symbols through dladdr(); name.c.
 */
#ifndef PKS_ELF_NAME_H
#define PKS_ELF_NAME_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pks_elf_name {
	const char *name;	/* the function or object; NULL when no symbol spans the address */
	uintptr_t start;	/* its address in the process */
	size_t size;		/* to the next symbol, as kallsyms counts; dynamic: st_size */
	const char *obj;	/* the object's file as the dynamic linker names it; NULL in none */
	uintptr_t obj_base;	/* where the object is mapped */
	bool main;		/* the object is the program */
};

bool pks_elf_name(const void *addr, struct pks_elf_name *out);
bool pks_elf_fault(const void *addr);
void pks_elf_name_guard(bool (*may_read)(void));
void pks_elf_closed(void);

extern _Atomic unsigned int pks_elf_closes __attribute__((visibility("hidden")));

/*
 * pks_elf_era() - Return: a count that changes whenever an object was
 * closed, after which an address may be another object's: a name or a
 * decision kept by address is good while it stays the same.
 */
static inline unsigned int pks_elf_era(void)
{
	/* acquire: pairs with pks_elf_closed()'s release, after the object went */
	return atomic_load_explicit(&pks_elf_closes, memory_order_acquire);
}

#endif
