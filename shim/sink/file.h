/* SPDX-License-Identifier: MIT */
/*
 * The descriptor of a file: output, as long as it is still ours: the
 * program may close it and get the number back for a file of its own; and
 * the path, which a rotation renames or removes.
 */
#ifndef PKS_SINK_FILE_H
#define PKS_SINK_FILE_H

#include "config/config.h"

int pks_file_fd(const struct pks_config *c, int i, bool ring, bool borrowed);
bool pks_file_moved(const struct pks_config *c);
void pks_file_follow(const struct pks_config *c);
int pks_file_gone(const struct pks_config *c, int i, int fd);
int pks_file_reopen(const struct pks_config *c, int i);
bool pks_file_on(int fd);
bool pks_file_taking(int fd);
void pks_file_released(int lo, int hi);

#endif
