/* SPDX-License-Identifier: MIT */
/*
 * A child about to start that shares this process's descriptors: the
 * deferred ring written first (spawn.c); _Fork's child told it is one.
 */
#ifndef PKS_CTX_SPAWN_H
#define PKS_CTX_SPAWN_H

void pks_spawn_setup(void);
void pks_spawn_prepare(void);
void pks_spawn_child_op(void (*child)(void));

#endif
