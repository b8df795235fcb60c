/* SPDX-License-Identifier: MIT */
/*
 * The directory of the control and record files: where it is, made and
 * checked to be the user's alone; which of its files a dead process left.
 * Shared by the module and the printk-shim command.
 */
#ifndef PKS_CTL_DIR_H
#define PKS_CTL_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#define PKS_CTL_SUFFIX	".ctl"
#define PKS_REC_SUFFIX	".rec"

/* Why a file could not be made: pks_ctl_taken(), told as EEXIST */
#define PKS_CTL_TAKEN	"a process of another pid namespace has its name"

int pks_ctl_dir(char *buf, size_t size, bool secure, bool make, const char **why);
uint64_t pks_ctl_start_time(pid_t pid);
bool pks_ctl_zombie(pid_t pid);
FILE *pks_ctl_maps_open(pid_t pid);
int pks_ctl_dir_of(const char *path, struct stat *d);
bool pks_ctl_maps(pid_t pid, const char *suffix, char *path, size_t size, ino_t *ino);
bool pks_ctl_own(pid_t pid, const char *suffix, char *path, size_t size);
pid_t pks_ctl_name_pid(const char *name, const char *suffix);
pid_t pks_ctl_tmp_pid(const char *name);
uint64_t pks_ctl_pidns(void);
bool pks_ctl_dead(int dfd, const char *name, pid_t pid, uint64_t pidns);
bool pks_ctl_taken(const char *path, bool rec, uint64_t mine);
bool pks_rec_dead(int dfd, const char *name, pid_t pid, uint64_t pidns, bool *empty);
void pks_rec_sweep(const char *dir, int keep, long age, pid_t self);

#endif
