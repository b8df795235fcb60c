/* SPDX-License-Identifier: MIT */
/*
 * Writing bytes to a descriptor the way every output and every message of
 * the shim needs it: all of them, or an errno.
 */
#ifndef PKS_BASE_FDIO_H
#define PKS_BASE_FDIO_H

#include <stddef.h>

int pks_fd_write(int fd, const char *p, size_t n);
int pks_fd_above_stdio(int fd);

#endif
