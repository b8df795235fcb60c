/* SPDX-License-Identifier: MIT */
/*
 * The interposed calls that close, replace or reopen the program's
 * descriptors and streams (fds.c).
 */
#ifndef PKS_CTX_FDS_H
#define PKS_CTX_FDS_H

void pks_fds_setup(void);

#endif
