// SPDX-License-Identifier: MIT
/*
 * systemd's JOURNAL_STREAM ("device:inode") against a descriptor: true
 * when the descriptor is the stream journald gave the service, so that
 * "<N>" level prefixes there are read as the line's priority.
 */
#include "base/journal.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/**
 * pks_fd_is_journal() - Return: @fd is the stream JOURNAL_STREAM names;
 * systemd's rule: the variable names it only while @fd still is it.
 */
bool pks_fd_is_journal(int fd)
{
	const char *e = getenv("JOURNAL_STREAM");
	uintmax_t dev, ino;
	struct stat st;
	char tail;

	if (!e || sscanf(e, "%ju:%ju%c", &dev, &ino, &tail) != 2 || fstat(fd, &st))
		return false;
	return (uintmax_t)st.st_dev == dev && (uintmax_t)st.st_ino == ino;
}
