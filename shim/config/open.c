// SPDX-License-Identifier: MIT
/*
 * Opening a file: output. Two rules:
 * - The open never blocks: O_NONBLOCK, so a FIFO with no reader fails with
 *   ENXIO instead of holding the process in its constructor. Once open,
 *   the descriptor blocks again, so a line waits for a slow reader as it
 *   waits for a full pipe on stderr.
 * - A privileged process (root, or AT_SECURE) does not follow a symbolic
 *   link that another user owns, since that user would choose the file we
 *   append to.
 * A failure is said once, naming the path and why, then what is done instead.
 * Thread-safety: async-signal-safe but for the warning (say.c); no state.
 */
#include "config/open.h"
#include "base/say.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#define OPEN_FLAGS	(O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

static void warn_failed(const char *path, int err, const char *instead)
{
	struct stat st;

	if (err == ENXIO && !stat(path, &st) && S_ISFIFO(st.st_mode))
		pks_warn("PRINTK_SHIM_OUTPUT: file:%s: a FIFO with no reader; %s", path, instead);
	else
		pks_warn("PRINTK_SHIM_OUTPUT: file:%s: %s; %s", path, pks_strerror(err), instead);
}

/* Open @path unless it is a link that another user than @me owns (EPERM, @owner set). */
static int open_privileged(const char *path, uid_t me, long *owner)
{
	struct stat st;
	int fd = open(path, OPEN_FLAGS | O_NOFOLLOW, 0644);

	if (fd >= 0 || errno != ELOOP || lstat(path, &st) < 0)
		return fd;
	if (S_ISLNK(st.st_mode) && st.st_uid != me) {
		*owner = (long)st.st_uid;
		errno = EPERM;
		return -1;
	}
	return open(path, OPEN_FLAGS, 0644);
}

/* The descriptor open at last: blocking again. */
static int settle(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * pks_open_file() - open the file: output @path for appending
 * @instead: what happens without it, the end of the warning ("skipping it")
 * Return: the descriptor, or -1 after one warning.
 */
int pks_open_file(const char *path, const char *instead)
{
	bool privileged = geteuid() == 0 || getauxval(AT_SECURE);
	long owner = -1;
	int fd;

	fd = privileged ? open_privileged(path, geteuid(), &owner) : open(path, OPEN_FLAGS, 0644);
	if (fd >= 0)
		fd = settle(fd);
	if (fd >= 0)
		return fd;
	if (owner >= 0)
		pks_warn("PRINTK_SHIM_OUTPUT: file:%s: a symbolic link owned by uid %ld, not followed by a privileged process; %s",
			 path, owner, instead);
	else
		warn_failed(path, errno, instead);
	return -1;
}
