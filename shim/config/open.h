/* SPDX-License-Identifier: MIT */
/*
 * Opening a file: output by its path: never blocking, and in a privileged
 * process never through another user's symbolic link in any component of
 * the path.
 */
#ifndef PKS_CONFIG_OPEN_H
#define PKS_CONFIG_OPEN_H

int pks_open_file(const char *path, const char *instead);

#endif
