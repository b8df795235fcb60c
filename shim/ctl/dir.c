// SPDX-License-Identifier: MIT
/*
 * The control directory (printk-shim(7) RUNTIME CONTROL): the user's
 * runtime directory's printk-shim, else /tmp/printk-shim-UID; made 0700 and
 * accepted only as a directory, not a link, of the effective user, that no
 * other user can read. A set-ID process ignores XDG_RUNTIME_DIR.
 * Which process maps which control file is read from /proc/PID/maps.
 */
#include "ctl/dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* @path is a directory of ours, a link to none, that only we can read. */
static const char *ours(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return strerror(errno);
	if (!S_ISDIR(st.st_mode))
		return "not a directory (or a link)";
	if (st.st_uid != geteuid())
		return "owned by another user";
	if (st.st_mode & 077)
		return "open to other users (expected mode 0700)";
	return NULL;
}

/* The parent of the directory: the runtime directory, if there is one of ours. */
static const char *parent(char *buf, size_t size, bool secure)
{
	const char *x = secure ? NULL : getenv("XDG_RUNTIME_DIR");
	struct stat st;

	if (x && x[0] == '/')
		return x;
	snprintf(buf, size, "/run/user/%u", (unsigned)geteuid());
	if (!lstat(buf, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 077))
		return buf;
	return NULL;
}

/**
 * pks_ctl_dir() - the control directory into @buf, made first with @make
 * Return: 0, or -1 with *@why saying what is wrong with it.
 */
int pks_ctl_dir(char *buf, size_t size, bool secure, bool make, const char **why)
{
	char run[64];
	const char *p = parent(run, sizeof(run), secure);
	int n;

	if (p)
		n = snprintf(buf, size, "%s/printk-shim", p);
	else
		n = snprintf(buf, size, "/tmp/printk-shim-%u", (unsigned)geteuid());
	if (n < 0 || (size_t)n >= size) {
		*why = "its path is too long";
		return -1;
	}
	if (make && mkdir(buf, 0700) && errno != EEXIST) {
		*why = strerror(errno);
		return -1;
	}
	*why = ours(buf);
	return *why ? -1 : 0;
}

/** pks_ctl_start_time() - Return: when @pid started (clock ticks after boot), 0 if gone. */
uint64_t pks_ctl_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the name may hold anything */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		t = strtoull(p + 1, NULL, 10);
	return t;
}

/** pks_ctl_name_pid() - Return: the pid a file "PID@suffix" is named for, or 0. */
pid_t pks_ctl_name_pid(const char *name, const char *suffix)
{
	size_t n = strspn(name, "0123456789");
	long pid;

	if (n == 0 || n > 9 || strcmp(name + n, suffix))
		return 0;
	pid = strtol(name, NULL, 10);
	return pid > 0 ? (pid_t)pid : 0;
}

/*
 * pks_ctl_maps() - the path and inode of the file ending "/PID@suffix" that
 * @pid maps, from /proc/PID/maps (which only its user and root may read).
 * Return: whether it maps one; errno says why not.
 */
bool pks_ctl_maps(pid_t pid, const char *suffix, char *path, size_t size, ino_t *ino)
{
	char name[64], want[32], line[4096];
	unsigned long long inode;
	FILE *f;
	int off;
	bool found = false;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	snprintf(want, sizeof(want), "/%d%s", (int)pid, suffix);
	f = fopen(name, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n"), w = strlen(want);

		line[n] = '\0';
		off = 0;
		if (sscanf(line, "%*s %*s %*s %*s %llu %n", &inode, &off) < 1 || !off)
			continue;
		if (n - (size_t)off < w || strcmp(line + n - w, want) || line[off] != '/')
			continue;
		found = snprintf(path, size, "%s", line + off) < (int)size;
		*ino = (ino_t)inode;
	}
	fclose(f);
	if (!found)
		errno = ESRCH;
	return found;
}
