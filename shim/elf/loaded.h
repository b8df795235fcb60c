/* SPDX-License-Identifier: MIT */
/*
 * What the process is told about its image as loaded, for the format engine
 * (which calls no dynamic linker or auxiliary vector itself): an object's
 * GNU build ID, the kernel's random bytes; whether an object is the first
 * copy of itself; loaded.c.
 */
#ifndef PKS_ELF_LOADED_H
#define PKS_ELF_LOADED_H

#include <stdbool.h>

#define PKS_ELF_BUILD_ID_LEN 20	/* bytes %pSb prints, zero-padded */

bool pks_elf_build_id(const void *addr, unsigned char id[PKS_ELF_BUILD_ID_LEN]);
const void *pks_elf_at_random(void);
bool pks_elf_first_copy(const void *here);

#endif
