/* SPDX-License-Identifier: MIT */
/*
 * Whether bytes can never change: those of the read-only segments of the
 * objects loaded with the program, for compiled formats kept by address.
 */
#ifndef PKS_BASE_RODATA_H
#define PKS_BASE_RODATA_H

#include <stdbool.h>

void pks_rodata_setup(void);
bool pks_rodata_fixed(const void *p);

#endif
