// SPDX-License-Identifier: MIT
/*
 * The control directory (printk-shim(7) RUNTIME CONTROL): the user's
 * runtime directory's printk-shim, else /tmp/printk-shim-UID; made 0700 and
 * accepted only as a directory, not a link, of the effective user, that no
 * other user can read. A set-ID process ignores XDG_RUNTIME_DIR.
 * Which process maps which control file is read from /proc/PID/maps.
 */
#include "ctl/dir.h"
#include "ctl/page.h"
#include "ctl/recbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* @path is a directory of ours, a link to none, that only we can read; its mode in *@mode. */
static const char *ours(const char *path, mode_t *mode)
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
	*mode = st.st_mode & 07777;
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
	mode_t mode = 0700;
	int n;

	if (p)
		n = snprintf(buf, size, "%s/printk-shim", p);
	else
		n = snprintf(buf, size, "/tmp/printk-shim-%u", (unsigned)geteuid());
	if (n < 0 || (size_t)n >= size) {
		*why = "its path is too long";
		return -1;
	}
	if (strchr(buf, '\n')) {	/* /proc/PID/maps, where the command looks, shows it as \012 */
		*why = "its path holds a newline, which the command could not find it by";
		return -1;
	}
	if (make && mkdir(buf, 0700) && errno != EEXIST) {
		*why = strerror(errno);
		return -1;
	}
	*why = ours(buf, &mode);
	/* a umask took bits we need from it, as made now or by an earlier process */
	if (!*why && make && mode != 0700 && chmod(buf, 0700)) {
		*why = strerror(errno);
		return -1;
	}
	return *why ? -1 : 0;
}

/*
 * /proc/@pid/stat into @buf, @size bytes. Return: its text past the
 * name's ")" (field 2's end: the name may hold anything), or NULL.
 */
static const char *stat_fields(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strrchr(buf, ')');
}

/** pks_ctl_start_time() - Return: when @pid started (clock ticks after boot), 0 if gone. */
uint64_t pks_ctl_start_time(pid_t pid)
{
	char buf[1024];
	const char *p = stat_fields(pid, buf, sizeof(buf));

	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

/*
 * A thread of @pid other than its first, into @tid: one that still runs
 * when the first ended with pthread_exit(), which leaves it a zombie whose
 * maps read empty. Return: whether there is one.
 */
static bool other_thread(pid_t pid, pid_t *tid)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	long t;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	*tid = 0;
	while (d && !*tid && (e = readdir(d))) {
		t = strtol(e->d_name, NULL, 10);
		if (t > 0 && t != pid)
			*tid = (pid_t)t;
	}
	if (d)
		closedir(d);
	return *tid != 0;
}

/* Whether @pid's first thread has ended: a zombie, or the rest of it running. */
static bool first_ended(pid_t pid)
{
	char buf[1024];
	const char *p = stat_fields(pid, buf, sizeof(buf));

	return p && p[1] == ' ' && p[2] == 'Z';
}

/**
 * pks_ctl_zombie() - Return: whether @pid has exited, its parent not yet
 * told: its first thread has, and no other runs
 */
bool pks_ctl_zombie(pid_t pid)
{
	pid_t tid;

	return first_ended(pid) && !other_thread(pid, &tid);
}

/**
 * pks_ctl_maps_open() - @pid's memory map, open for reading: /proc/PID/maps,
 * or a running thread's when the first thread has ended (pthread_exit())
 */
FILE *pks_ctl_maps_open(pid_t pid)
{
	char name[64];
	pid_t tid;

	if (first_ended(pid) && other_thread(pid, &tid))
		snprintf(name, sizeof(name), "/proc/%d/task/%d/maps", (int)pid, (int)tid);
	else
		snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	return fopen(name, "re");
}

/**
 * pks_ctl_dir_of() - the directory a file @path is in, into @d (lstat)
 * Return: 0, or -1 when @path names none or it cannot be looked at.
 */
int pks_ctl_dir_of(const char *path, struct stat *d)
{
	char dir[PATH_MAX];

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir) || !strrchr(dir, '/'))
		return -1;
	*strrchr(dir, '/') = '\0';
	return lstat(dir, d);
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

/** pks_ctl_tmp_pid() - Return: the pid a half-made ".PID.ctl.new" or ".PID.rec.new" is named for, or 0. */
pid_t pks_ctl_tmp_pid(const char *name)
{
	char base[32];
	size_t n = strlen(name);

	if (name[0] != '.' || n < 5 || n - 1 >= sizeof(base) || strcmp(name + n - 4, ".new"))
		return 0;
	memcpy(base, name + 1, n - 5);
	base[n - 5] = '\0';
	return pks_ctl_name_pid(base, PKS_CTL_SUFFIX) ?: pks_ctl_name_pid(base, PKS_REC_SUFFIX);
}

/*
 * pks_ctl_maps() - the path and inode of the file ending "/PID@suffix" that
 * @pid maps, from /proc/PID/maps (which only its user and root may read).
 * Return: whether it maps one; errno says why not: EIDRM when what it
 * maps was removed ("(deleted)"), ESRCH when it maps none.
 */
bool pks_ctl_maps(pid_t pid, const char *suffix, char *path, size_t size, ino_t *ino)
{
	char want[32], line[4096];
	unsigned long long inode;
	FILE *f;
	int off;
	bool found = false, removed = false;

	snprintf(want, sizeof(want), "/%d%s", (int)pid, suffix);
	f = pks_ctl_maps_open(pid);
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n"), w = strlen(want), d = sizeof(" (deleted)") - 1;

		line[n] = '\0';
		off = 0;
		if (sscanf(line, "%*s %*s %*s %*s %llu %n", &inode, &off) < 1 || !off ||
		    line[off] != '/')
			continue;
		if (n - (size_t)off >= w + d && !strcmp(line + n - d, " (deleted)") &&
		    !strncmp(line + n - d - w, want, w))
			removed = true;
		if (n - (size_t)off < w || strcmp(line + n - w, want))
			continue;
		found = snprintf(path, size, "%s", line + off) < (int)size;
		*ino = (ino_t)inode;
	}
	fclose(f);
	if (!found)
		errno = removed ? EIDRM : ESRCH;
	return found;
}

/**
 * pks_ctl_own() - the file "PID@suffix" in the caller's own control
 * directory, for a process whose maps the caller may not read: a set-ID
 * process is not dumpable, yet its effective user may control it. The
 * file must be the caller's; the caller checks it is @pid's.
 * Return: whether it is there, its path in @path.
 */
bool pks_ctl_own(pid_t pid, const char *suffix, char *path, size_t size)
{
	char dir[1024];
	const char *why;
	struct stat st;
	int n;

	if (pks_ctl_dir(dir, sizeof(dir), false, false, &why))
		return false;
	n = snprintf(path, size, "%s/%d%s", dir, (int)pid, suffix);
	return n > 0 && (size_t)n < size && !lstat(path, &st) && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid();
}

/**
 * pks_ctl_pidns() - Return: this process's pid namespace, the inode of
 * /proc/self/ns/pid, or 0: no /proc of its own says (none mounted, or
 * another namespace's), and no pid of a file can be judged.
 */
uint64_t pks_ctl_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) ? 0 : (uint64_t)st.st_ino;
}

/*
 * Whether the file of @pid, stamped @start and @theirs (its pid
 * namespace, 0: not stamped), is of a process that ended, as one in pid
 * namespace @mine tells: its pid free, or another process's now. A file
 * of another namespace, or any when @mine is 0, is not this one's to
 * judge: its pids mean other processes here. Nor is a whole file stamped
 * with no namespace: its process had no /proc to say which, nor its start.
 */
static bool ended(pid_t pid, bool whole, uint64_t start, uint64_t theirs, uint64_t mine)
{
	if (!mine || (whole && theirs != mine))
		return false;
	if (kill(pid, 0) && errno == ESRCH)
		return true;
	return whole && start != pks_ctl_start_time(pid);
}

/* The first @n bytes of file @name in @dfd into @h. Return: whether there were as many. */
static bool head(int dfd, const char *name, void *h, size_t n)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	bool whole = fd >= 0 && pread(fd, h, n, 0) == (ssize_t)n;

	if (fd >= 0)
		close(fd);
	return whole;
}

/** pks_ctl_dead() - Return: whether control file @name in @dfd is of a process that ended. */
bool pks_ctl_dead(int dfd, const char *name, pid_t pid, uint64_t pidns)
{
	struct pks_ctl_page h = { 0 };
	bool whole = head(dfd, name, &h, sizeof(h)) && h.magic == PKS_CTL_MAGIC;

	return ended(pid, whole, h.start, h.pidns, pidns);
}

/**
 * pks_ctl_taken() - Return: whether @path is a whole control file, or
 * record buffer (@rec), of a process of another pid namespace than @mine:
 * that namespace's processes sweep it, and it is not ours to replace
 */
bool pks_ctl_taken(const char *path, bool rec, uint64_t mine)
{
	struct pks_ctl_page c = { 0 };
	struct pks_rec_head r = { 0 };
	bool whole = rec ? head(AT_FDCWD, path, &r, sizeof(r)) && r.magic == PKS_REC_MAGIC
			 : head(AT_FDCWD, path, &c, sizeof(c)) && c.magic == PKS_CTL_MAGIC;
	uint64_t theirs = rec ? r.pidns : c.pidns;

	return whole && mine && theirs && theirs != mine;
}

/**
 * pks_rec_dead() - Return: whether record buffer @name in @dfd is of a
 * process that ended; *@empty, if not NULL: whether it holds no line
 */
bool pks_rec_dead(int dfd, const char *name, pid_t pid, uint64_t pidns, bool *empty)
{
	struct pks_rec_head h = { 0 };
	bool whole = head(dfd, name, &h, sizeof(h)) && h.magic == PKS_REC_MAGIC;

	if (empty)	/* no pair: h is pread(2)'s copy of the file, as below */
		*empty = whole && !atomic_load(&h.seq);
	/* or ours ran exec and did not record again */
	return ended(pid, whole, h.start, h.pidns, pidns) ||
	       /* no pair: as above */
	       (whole && pidns && (!h.pidns || h.pidns == pidns) && atomic_load(&h.exited));
}

struct dead {
	time_t mtime;
	char name[256];
};

static int newest_first(const void *a, const void *b)
{
	const struct dead *x = a, *y = b;

	return (x->mtime < y->mtime) - (x->mtime > y->mtime);
}

/* The index of the oldest of @n buffers. */
static int oldest(const struct dead *dead, int n)
{
	int o = 0;

	for (int i = 1; i < n; i++)
		if (dead[i].mtime < dead[o].mtime)
			o = i;
	return o;
}

/**
 * pks_rec_sweep() - of the record buffers in @dir that dead processes left,
 * keep the newest @keep that hold a line and are not older than @age
 * seconds; remove the others (printk-shim(7) RECORD BUFFER). @self's is
 * never touched.
 */
void pks_rec_sweep(const char *dir, int keep, long age, pid_t self)
{
	static struct dead dead[64];
	DIR *d = opendir(dir);
	time_t now = time(NULL);
	struct dirent *e;
	struct stat st;
	uint64_t mine = pks_ctl_pidns();
	int n = 0, i;
	bool empty;

	if (!d)
		return;
	while ((e = readdir(d))) {
		pid_t pid = pks_ctl_name_pid(e->d_name, PKS_REC_SUFFIX);

		if (!pid) {
			pid = pks_ctl_tmp_pid(e->d_name);
			if (pid && pid != self && mine && kill(pid, 0) && errno == ESRCH)
				unlinkat(dirfd(d), e->d_name, 0);	/* half-made by a process now gone */
			continue;
		}
		if (pid == self || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !pks_rec_dead(dirfd(d), e->d_name, pid, mine, &empty))
			continue;
		if (empty || now - st.st_mtime > age) {	/* nothing to tell, or too old to */
			unlinkat(dirfd(d), e->d_name, 0);
			continue;
		}
		if (n < (int)(sizeof(dead) / sizeof(dead[0]))) {
			i = n++;
		} else {	/* the table full: the older of this one and its oldest goes now */
			i = oldest(dead, n);
			if (dead[i].mtime >= st.st_mtime) {
				unlinkat(dirfd(d), e->d_name, 0);
				continue;
			}
			unlinkat(dirfd(d), dead[i].name, 0);
		}
		dead[i].mtime = st.st_mtime;
		snprintf(dead[i].name, sizeof(dead[0].name), "%s", e->d_name);
	}
	qsort(dead, (size_t)n, sizeof(dead[0]), newest_first);
	for (i = keep; i < n; i++)
		unlinkat(dirfd(d), dead[i].name, 0);
	closedir(d);
}
