/* SPDX-License-Identifier: MIT */
/*
 * Whether an object's code calls an address straight, not through the PLT
 * (calls.c): how a definition its own calls were bound to at link time,
 * without DT_SYMBOLIC, is told from one the dynamic linker can interpose.
 */
#ifndef PKS_ELF_CALLS_H
#define PKS_ELF_CALLS_H

#include "elf/elf.h"

#include <stdbool.h>
#include <stdint.h>

bool pks_elf_calls(const struct pks_elf_image *im, uint64_t addr);

#endif
