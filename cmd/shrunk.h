/* SPDX-License-Identifier: MIT */
/*
 * A file the command reads shrinking meanwhile (shrunk.c): the read goes
 * on over zeros, and the file's result is said to be unsure.
 */
#ifndef PKS_CMD_SHRUNK_H
#define PKS_CMD_SHRUNK_H

#include <stdbool.h>

void pks_shrunk_watch(void);
bool pks_shrunk_seen(void);

#endif
