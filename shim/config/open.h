/* SPDX-License-Identifier: MIT */
/*
 * Opening a file: output by its path, the same way at start-up and when the
 * program has taken the descriptor from us: never blocking, placed high
 * (never on fds 0..2), and in a privileged process never through another
 * user's symbolic link in any component of the path.
 */
#ifndef PKS_CONFIG_OPEN_H
#define PKS_CONFIG_OPEN_H

#include <sys/types.h>

/* What a descriptor of ours refers to: it is ours while fstat() says this. */
struct pks_fileid {
	dev_t dev;
	ino_t ino;
};

int pks_open_file(const char *path, struct pks_fileid *id, const char *instead);

#endif
