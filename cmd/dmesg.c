// SPDX-License-Identifier: MIT
/*
 * printk-shim --dmesg --pid=PID: a process's record buffer (printk-shim(7)
 * RECORD BUFFER) printed in one of the line formats, while the process
 * runs or after it died. A running process's buffer is found through
 * /proc/PID/maps, a dead one's in the caller's control directory (root
 * looks in every user's as well). The buffer is read as it lies: a record
 * not stamped is skipped, one overwritten while it was copied is dropped.
 */
#include "cmd/dmesg.h"
#include "config/vars.h"
#include "core/render.h"
#include "core/json.h"
#include "ctl/dir.h"
#include "ctl/recbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Whether @path, a buffer in some user's directory, is that user's own: the
 * file and its directory of one owner, and the uid its head says.
 */
static bool owned(const char *path, const struct stat *st)
{
	struct pks_rec_head h;
	struct stat d;
	ssize_t n;
	int fd;

	if (pks_ctl_dir_of(path, &d) || !S_ISDIR(d.st_mode) || d.st_uid != st->st_uid)
		return false;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = pread(fd, &h, sizeof(h), 0);
	close(fd);
	return n == (ssize_t)sizeof(h) && h.uid == st->st_uid;
}

/*
 * The newest of the buffers named @pattern, each its user's own, into
 * @path; *@users, whether they are of more than one user: root cannot
 * tell then whose process the pid was.
 */
static bool newest(const char *pattern, char *path, size_t size, bool *users)
{
	struct timespec best = { 0, 0 };
	struct stat st;
	uid_t uid = 0;
	glob_t g;
	bool found = false;

	if (glob(pattern, 0, NULL, &g))
		return false;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (lstat(g.gl_pathv[i], &st) || !S_ISREG(st.st_mode) || !owned(g.gl_pathv[i], &st))
			continue;
		*users |= found && st.st_uid != uid;
		uid = st.st_uid;
		if (found && st.st_mtim.tv_sec < best.tv_sec)
			continue;
		best = st.st_mtim;
		found = snprintf(path, size, "%s", g.gl_pathv[i]) < (int)size;
	}
	globfree(&g);
	return found;
}

/* Where @pid's buffer is: its mapping, else the caller's directory, else (root) any user's. */
static bool find(pid_t pid, char *path, size_t size)
{
	char dir[PATH_MAX], pattern[128];
	const char *why;
	struct stat st;
	bool users = false;
	ino_t ino;

	if (pks_ctl_maps(pid, PKS_REC_SUFFIX, path, size, &ino))
		return true;
	if (errno == EACCES || errno == EPERM) {
		if (pks_ctl_own(pid, PKS_REC_SUFFIX, path, size))
			return true;	/* a set-ID process's, the caller its effective user */
		errno = EACCES;
		return false;
	}
	if (!pks_ctl_dir(dir, sizeof(dir), false, false, &why) &&
	    snprintf(path, size, "%s/%d%s", dir, (int)pid, PKS_REC_SUFFIX) < (int)size &&
	    !lstat(path, &st)) {
		return true;
	}
	errno = ENOENT;
	if (geteuid() != 0)
		return false;
	snprintf(pattern, sizeof(pattern), "/run/user/*/printk-shim/%d%s", (int)pid, PKS_REC_SUFFIX);
	if (!newest(pattern, path, size, &users)) {
		snprintf(pattern, sizeof(pattern), "/tmp/printk-shim-*/%d%s", (int)pid, PKS_REC_SUFFIX);
		if (!newest(pattern, path, size, &users))
			return false;
	}
	errno = users ? EEXIST : 0;
	return !users;
}

struct view {
	const struct pks_rec_head *h;
	const char *ring;
	uint64_t mask;
};

static void get(const struct view *v, uint64_t pos, void *dst, size_t n)
{
	size_t at = (size_t)(pos & v->mask), first = v->mask + 1 - at < n ? v->mask + 1 - at : n;

	memcpy(dst, v->ring + at, first);
	memcpy((char *)dst + first, v->ring, n - first);
}

/* One record as the outputs write a line of format @f. */
static void print(const struct view *v, const struct pks_rec *r, const char *text,
		  enum pks_linefmt f, char *buf)
{
	struct pks_render rd = {
		.format = f, .level = r->level, .cont = r->flags & PKS_REC_CONT,
		.t_ns = r->t_ns, .seq = r->seq, .tid = r->tid,
		.t_real_ns = r->t_real_ns, .pid = v->h->pid, .ident = v->h->program,
	};
	size_t n;

	if (f == PKS_LINE_KMSG) {
		n = pks_render_kmsg(buf, &rd, text, r->len);
	} else if (f == PKS_LINE_JSON) {
		n = pks_json_line(buf, &rd, text, r->len);
	} else {
		n = pks_render_prefix(buf, &rd);
		memcpy(buf + n, text, r->len);
		n += r->len;
		n += pks_render_suffix(buf + n, &rd);
	}
	fwrite(buf, 1, n, stdout);
}

/*
 * Every whole record from the oldest the ring still holds. A stamp that
 * is not its position's is a record not written whole, or the middle of
 * one: the walk steps on 8 bytes at a time to the next stamped one.
 */
static void walk(const struct view *v, enum pks_linefmt f, char *text, char *buf)
{
	uint64_t size = v->mask + 1, end = atomic_load(&v->h->head);
	uint64_t p = end > size ? end - size : 0;
	struct pks_rec r;

	/* distances, not sums: a head near 2^64 (a damaged file) must not wrap */
	while (p <= end && end - p >= sizeof(r)) {
		uint64_t stamp = atomic_load_explicit((_Atomic uint64_t *)(void *)(v->ring + (p & v->mask)),
						      memory_order_acquire);

		if (stamp != (p ^ PKS_REC_STAMP)) {
			p += 8;
			continue;
		}
		get(v, p, &r, sizeof(r));
		if (r.len > size / 4 || pks_rec_span(r.len) > end - p)
			break;
		get(v, p + sizeof(r), text, r.len);
		/*
		 * The copy before the head that says whether it was overwritten:
		 * pairs with the release fence in the module's pks_rec_put().
		 */
		pks_rec_fence(memory_order_acquire);
		if (atomic_load(&v->h->head) - p > size) {	/* overwritten while copied */
			end = atomic_load(&v->h->head);
			p = end - size;
			continue;
		}
		print(v, &r, text, f, buf);
		p += pks_rec_span(r.len);
	}
}

#define NONE	"no record buffer (it did not run with PRINTK_SHIM_RECORD, or it was removed)"

/*
 * Whether @h, found by its name, is of an earlier process than the one
 * running under its pid now (which then does not record), or of another
 * pid namespace's, whose pids are other processes here.
 */
static bool earlier(const struct pks_rec_head *h)
{
	uint64_t now = pks_ctl_start_time(h->pid), ns = pks_ctl_pidns();

	return (now && now != h->start) || (h->pidns && ns && h->pidns != ns);
}

/**
 * pks_dmesg() - print @pid's record buffer in format @f
 * Return: NULL, or why it cannot be read.
 */
const char *pks_dmesg(pid_t pid, enum pks_linefmt f)
{
	char path[PATH_MAX], *text, *buf;
	struct stat st;
	struct view v;
	void *p;
	int fd;

	if (!find(pid, path, sizeof(path)))
		return errno == EACCES || errno == EPERM ?
		       "permission denied: only its user and root may read its record buffer" :
		       errno == EEXIST ?
		       "record buffers of more than one user have this pid; nothing is printed" :
		       NONE;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == EACCES ? "permission denied: only its user and root may read its record buffer"
				       : strerror(errno);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < PKS_REC_HEAD) {
		close(fd);
		return "its record buffer is not one";
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return strerror(errno);
	v.h = p;
	v.ring = (const char *)p + PKS_REC_HEAD;
	v.mask = v.h->size - 1;
	if (v.h->magic != PKS_REC_MAGIC || v.h->version != PKS_REC_VERSION || v.h->pid != pid ||
	    v.h->size < PKS_RECORD_MIN || v.h->size > PKS_RECORD_MAX || (v.h->size & v.mask) ||
	    v.h->size + PKS_REC_HEAD != (uint64_t)st.st_size) {
		munmap(p, (size_t)st.st_size);
		return "its record buffer is of another version of the module";
	}
	if (earlier(v.h)) {
		munmap(p, (size_t)st.st_size);
		return NONE;
	}
	text = malloc(v.h->size / 4 + 1);
	buf = malloc(pks_render_room(f, v.h->size / 4) + pks_json_max(v.h->size / 4) + PKS_HEAD_MAX + PKS_TAIL_MAX);
	if (text && buf)
		walk(&v, f, text, buf);
	free(text);
	free(buf);
	munmap(p, (size_t)st.st_size);
	return text && buf ? NULL : strerror(ENOMEM);
}
