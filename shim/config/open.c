// SPDX-License-Identifier: MIT
/*
 * Opening a file: output, at start-up and again when the program has taken
 * our descriptor (sink/file.c). Three rules, whoever asks:
 * - The open never blocks: O_NONBLOCK, so a FIFO with no reader fails with
 *   ENXIO instead of holding the process in its constructor. Once open,
 *   the descriptor blocks again, so a line waits for a slow reader as it
 *   waits for a full pipe on stderr.
 * - The descriptor sits as high as it can (pks_fd_high()), out of the way of
 *   the numbers the program is given and of the ones it closes.
 * - A privileged process (root, or AT_SECURE) walks the path one component
 *   at a time with O_NOFOLLOW and follows a symbolic link only when root or
 *   the effective user owns it: another user who can place a link anywhere
 *   on the path would choose the file we append to. The kernel follows a
 *   link of /proc, whose target may be no path.
 * A failure is said once, naming the path and why, then what is done instead.
 * Thread-safety: async-signal-safe but for the warning (say.c); no state.
 */
#include "config/open.h"
#include "base/fdio.h"
#include "base/fdturn.h"
#include "base/say.h"
#include "config/vars.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/auxv.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define OPEN_FLAGS	(O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
#define WALK_MAX	(2 * PKS_PATH_MAX)	/* the path with its links spliced in */
#define LINKS_MAX	40			/* the kernel's MAXSYMLINKS */

/* Why the walk refused a path: the link, p[0..len) of the walked path, and its owner. */
struct refusal {
	size_t len;
	long owner;
};

static void warn_refused(const char *path, const char *p, const struct refusal *r,
			 const char *instead)
{
	if (!strcmp(p, path) && r->len == strlen(path))
		pks_warn("PRINTK_SHIM_OUTPUT: file:%s: a symbolic link owned by uid %ld, not followed by a privileged process; %s",
			 path, r->owner, instead);
	else
		pks_warn("PRINTK_SHIM_OUTPUT: file:%s: %.*s: a symbolic link owned by uid %ld, not followed by a privileged process; %s",
			 path, (int)r->len, p, r->owner, instead);
}

static void warn_failed(const char *path, int err, const char *instead)
{
	struct stat st;

	if (err == ENXIO && !stat(path, &st) && S_ISFIFO(st.st_mode))
		pks_warn("PRINTK_SHIM_OUTPUT: file:%s: a FIFO with no reader; %s", path, instead);
	else
		pks_warn("PRINTK_SHIM_OUTPUT: file:%s: %s; %s", path, pks_strerror(err), instead);
}

/*
 * Replace the link p[s..e) by its target @t (@n bytes): a relative target
 * is read from the link's directory, an absolute one from "/" (@dir is
 * moved there). Return: 0, or an errno.
 */
static int splice_link(char *p, size_t s, size_t e, const char *t, size_t n, int *dir)
{
	size_t rest = strlen(p + e), base = t[0] == '/' ? 0 : s;

	if (base + n + rest >= WALK_MAX)
		return ENAMETOOLONG;
	if (base == 0) {
		int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (root < 0)
			return errno;
		close(*dir);
		*dir = root;
	}
	memmove(p + base + n, p + e, rest + 1);
	memcpy(p + base, t, n);
	return 0;
}

/*
 * A link of /proc (/proc/self/fd/2, which /dev/stderr names): its target
 * may be no path ("pipe:[N]"), so the kernel follows it, from @dir, as it
 * would for anyone: into *@fd when it is the last component (@end is
 * '\0'), else into *@dir. The kernel makes these links, and only for
 * what the process may reach. Return: 0, or an errno.
 */
static int magic(int *dir, const char *name, char end, int *fd)
{
	int to = openat(*dir, name, end ? O_PATH | O_DIRECTORY | O_CLOEXEC : OPEN_FLAGS, 0644);

	if (to < 0)
		return errno;
	if (end) {
		close(*dir);
		*dir = to;
	} else {
		*fd = to;
	}
	return 0;
}

/*
 * The component p[*s..e) is not what O_NOFOLLOW could open: if it is a
 * link that root or @me owns, splice its target in and move *s to where
 * the walk goes on; a link of /proc is magic()'s. Return: 0, EPERM with
 * @r filled for another user's link, or an errno.
 */
static int follow(char *p, size_t *s, size_t e, int *dir, uid_t me, struct refusal *r, int *fd)
{
	char t[WALK_MAX];
	char end = p[e];
	struct statfs fs;
	struct stat st;
	ssize_t n = -1;
	int lfd, err = 0;

	p[e] = '\0';
	lfd = openat(*dir, p + *s, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (lfd < 0 || fstat(lfd, &st))
		err = errno;
	else if (!S_ISLNK(st.st_mode))
		err = end ? ENOTDIR : 0;	/* the last one changed under us: again */
	else if (st.st_uid != 0 && st.st_uid != me) {
		r->len = e;
		r->owner = (long)st.st_uid;
		err = EPERM;
	} else if (!fstatfs(lfd, &fs) && fs.f_type == PROC_SUPER_MAGIC) {
		err = magic(dir, p + *s, end, fd);
		*s = e;
	} else {
		n = readlinkat(lfd, "", t, sizeof(t));
		err = n < 0 ? errno : n == 0 || (size_t)n >= sizeof(t) ? ENAMETOOLONG : 0;
	}
	p[e] = end;
	if (lfd >= 0)
		close(lfd);
	if (err || n < 0)
		return err;
	err = splice_link(p, *s, e, t, (size_t)n, dir);
	if (!err && t[0] == '/')
		*s = 0;
	return err;
}

/*
 * Open @path one component at a time from "/", never following a link
 * that neither root nor @me owns; @p (WALK_MAX bytes) is the path as the
 * walk goes, links spliced in. Return: the descriptor, or -1 with errno
 * (EPERM and @r filled for a refused link).
 */
static int resolve(const char *path, char *p, uid_t me, struct refusal *r)
{
	size_t s = 0, e, len = strlen(path);
	int dir, fd = -1, links = 0, err;
	struct stat st;

	if (len >= WALK_MAX)
		return errno = ENAMETOOLONG, -1;
	memcpy(p, path, len + 1);
	dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -1;
	for (;;) {
		char end;

		while (p[s] == '/')
			s++;
		if (!p[s]) {
			err = EISDIR;
			break;
		}
		for (e = s; p[e] && p[e] != '/'; e++)
			;
		end = p[e];
		p[e] = '\0';
		fd = end ? openat(dir, p + s, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			 : openat(dir, p + s, OPEN_FLAGS | O_NOFOLLOW, 0644);
		err = errno;
		p[e] = end;
		if (fd >= 0 && !end)
			break;
		/*
		 * O_CREAT on another user's link in a sticky directory fails
		 * before O_NOFOLLOW can (the kernel's protected_regular rule
		 * covers links): a link still, to judge as one.
		 */
		if (fd < 0 && !end && err == EACCES && !fstatat(dir, p + s, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISLNK(st.st_mode))
			err = ELOOP;
		if (fd >= 0) {
			close(dir);
			dir = fd;
			s = e;
			continue;
		}
		if (err != (end ? ENOTDIR : ELOOP))
			break;
		if (++links > LINKS_MAX) {
			err = ELOOP;
			break;
		}
		err = follow(p, &s, e, &dir, me, r, &fd);
		if (err || fd >= 0)
			break;
	}
	close(dir);
	if (fd < 0)
		errno = err;
	return fd;
}

/* The descriptor open at last: blocking again, placed high, and its identity. */
static int settle(int fd, struct pks_fileid *id)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 || fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	return pks_fd_high(fd);
}

/**
 * pks_open_file() - open the file: output @path for appending
 * @id: set to what the descriptor refers to
 * @instead: what happens without it, the end of the warning ("skipping it");
 *	NULL: no warning
 * Return: the descriptor, or -1 with errno (and the warning said).
 */
int pks_open_file(const char *path, struct pks_fileid *id, const char *instead)
{
	bool privileged = geteuid() == 0 || getauxval(AT_SECURE);
	struct refusal r = { 0, -1 };
	char p[WALK_MAX];
	int fd, err;

	pks_fd_look_cap();	/* its writes may meet a file-size limit set since */
	pks_fd_making();
	fd = privileged ? resolve(path, p, geteuid(), &r) : open(path, OPEN_FLAGS, 0644);
	if (fd >= 0)
		fd = settle(fd, id);
	err = errno;
	pks_fd_made();
	if (fd >= 0)
		return fd;
	if (instead && err == EPERM && r.owner >= 0)
		warn_refused(path, p, &r, instead);
	else if (instead)
		warn_failed(path, err, instead);
	errno = err;
	return -1;
}
