/* SPDX-License-Identifier: MIT */
/*
 * Start-up work that cannot wait for the constructor.
 */
#ifndef PKS_INIT_H
#define PKS_INIT_H

struct pks_config;

void pks_init_first_call(const struct pks_config *c);

#endif
