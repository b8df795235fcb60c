/* SPDX-License-Identifier: MIT */
/*
 * The process ends: every pending and open line written first, by exit()
 * (init.c's destructor), _exit(), _Exit() and quick_exit().
 */
#ifndef PKS_CTX_EXIT_H
#define PKS_CTX_EXIT_H

void pks_exit_flush(void);
void pks_exit_setup(void);

#endif
