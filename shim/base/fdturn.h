/* SPDX-License-Identifier: MIT */
/*
 * The module's descriptors while they sit at a low number, and the
 * program's calls that close or replace descriptors, kept apart
 * (fdturn.c).
 */
#ifndef PKS_BASE_FDTURN_H
#define PKS_BASE_FDTURN_H

void pks_fd_making(void);
void pks_fd_made(void);
void pks_fd_taking(void);
void pks_fd_taken(void);
void pks_fd_turns_forked(void);

#endif
