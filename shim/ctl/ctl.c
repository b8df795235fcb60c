// SPDX-License-Identifier: MIT
/*
 * The control file of this process (printk-shim(7) RUNTIME CONTROL):
 * DIR/PID.ctl, made under a temporary name and renamed once whole, so the
 * command never finds it half-made; its head mapped over pks_ctl_area,
 * the rest (the dynamic debug sites) anywhere. A fork child gets a file
 * of its own, a copy, before it runs (pthread_atfork) or, for a child no
 * atfork handler ran in, at its first request; exit removes it; files of
 * dead processes are removed when a process starts.
 * Thread-safety: made before other threads run, or in a fork child; the
 * state is written by one thread at a time (the request's applier) but
 * for the lost counts, which are atomic; sites are claimed atomically.
 */
#include "ctl/ctl.h"
#include "base/fdio.h"
#include "base/pid.h"
#include "base/say.h"
#include "ctl/dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Zeroes (nothing asked) until the file is mapped over it. */
union pks_ctl_area pks_ctl_area __attribute__((aligned(PKS_CTL_HEAD)));
#define HEAD	(pks_ctl_area.p)
static struct pks_ctl_site *sites;	/* PKS_CTL_SITES of them, after the head */
static char dir[PKS_PATH_MAX];
static bool on;
static volatile sig_atomic_t cut;	/* pks_ctl_fault() took the file's pages away */
static dev_t dev;		/* the file's, to know it again */
static ino_t ino;
static _Atomic uint32_t held;	/* sites whose bytes have the file's blocks */

static void names(char *path, char *tmp, pid_t pid)
{
	snprintf(path, PKS_PATH_MAX + 32, "%s/%d%s", dir, (int)pid, PKS_CTL_SUFFIX);
	snprintf(tmp, PKS_PATH_MAX + 32, "%s/.%d%s.new", dir, (int)pid, PKS_CTL_SUFFIX);
}

/* Remove what dead processes left: their control files and half-made ones. */
static void sweep(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t mine = pks_ctl_pidns();
	int budget = 4096;

	if (!d)
		return;
	while ((e = readdir(d)) && budget--) {
		pid_t pid = pks_ctl_name_pid(e->d_name, PKS_CTL_SUFFIX);

		/*
		 * A pid that runs is left at once, as every start sweeps: a
		 * thousand processes would cost each start a thousand files
		 * read. A file whose pid a new process took waits for that one
		 * to end, or for the command, which checks start times (printk-shim(1)).
		 */
		if (pid && (!kill(pid, 0) || errno == EPERM))
			continue;
		if (pid && pid != pks_pid() && pks_ctl_dead(dirfd(d), e->d_name, pid, mine))
			unlinkat(dirfd(d), e->d_name, 0);
		else if (!pid && mine && (pid = pks_ctl_tmp_pid(e->d_name)) && kill(pid, 0) &&
			 errno == ESRCH)
			unlinkat(dirfd(d), e->d_name, 0);	/* half-made by a process now gone */
	}
	closedir(d);
}

/*
 * Zeroes of this process's own, read and write, over @n bytes at @at: a
 * mapping given up, or of a file that was cut short. Async-signal-safe.
 */
static void zeroes(void *at, size_t n)
{
	mmap(at, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

/* Map @fd's head over pks_ctl_area and its sites at @at (NULL: anywhere). */
static bool map(int fd, void *at)
{
	void *p;

	p = mmap(&pks_ctl_area, PKS_CTL_HEAD, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		return false;
	/*
	 * The file is sparse: without MADV_RANDOM, the first store into it
	 * reads ahead a window of its holes, every page zeroed and charged,
	 * which took 0.5 ms of each process's start on ext4. Only the head's
	 * first page is touched then, and the sites' pages as sites come.
	 */
	madvise(p, PKS_CTL_HEAD, MADV_RANDOM);
	p = mmap(at, PKS_CTL_SIZE - PKS_CTL_HEAD, PROT_READ | PROT_WRITE,
		 MAP_SHARED | (at ? MAP_FIXED : 0), fd, PKS_CTL_HEAD);
	if (p == MAP_FAILED) {
		/* the head alone would answer with no sites: take zeroes back */
		zeroes(&pks_ctl_area, PKS_CTL_HEAD);
		return false;
	}
	madvise(p, PKS_CTL_SIZE - PKS_CTL_HEAD, MADV_RANDOM);
	sites = p;
	return true;
}

/* This process's identity in the head, and no request pending. */
static void stamp(void)
{
	struct pks_ctl_page *h = &HEAD;

	h->pid = pks_pid();
	h->uid = geteuid();
	h->start = pks_ctl_start_time(h->pid);
	h->pidns = pks_ctl_pidns();
	h->version = PKS_CTL_VERSION;
	/* last: another process's sweep takes a file with the magic for whole */
	/* release: pairs with pks_ctl_dead()'s pread(2) of the magic, another process's: fields first */
	__atomic_store_n(&h->magic, PKS_CTL_MAGIC, __ATOMIC_RELEASE);
	memset(&h->req, 0, sizeof(h->req));
	h->req.level = -1;
	h->st.reopen_done = 0;
	h->st.dd_done = 0;
	/* no pair: no other process sees the file before make()'s rename(2) */
	atomic_store(&h->sleep, 0);	/* the printer's AWAKE; this process has none yet */
	atomic_store(&h->flushed, 0);
	atomic_store_explicit(&h->ask, 0, memory_order_relaxed);
}

/*
 * Write the file under a temporary name: the head (and with @copy, the
 * sites the parent listed, as this process's own now), map it, rename it.
 */
static bool make(bool copy)
{
	char path[PKS_PATH_MAX + 32], tmp[PKS_PATH_MAX + 32];
	/* no pair: a fork's child copies the count its parent left */
	uint32_t n = copy ? atomic_load(&HEAD.nsites) : 0;
	struct stat st;
	int fd;
	bool ok;

	names(path, tmp, pks_pid());
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	/* the head's blocks now: a store into a hole of a full file system raises SIGBUS */
	/* fchmod: the command, the owner, writes into it whatever the umask */
	ok = !fchmod(fd, 0600) && pks_fd_fits(PKS_CTL_SIZE) && !ftruncate(fd, PKS_CTL_SIZE) && !fstat(fd, &st) && !(errno = posix_fallocate(fd, 0, PKS_CTL_HEAD));
	if (ok && copy) {
		n = n < PKS_CTL_SITES ? n : PKS_CTL_SITES;
		ok = pwrite(fd, &HEAD, sizeof(HEAD), 0) == (ssize_t)sizeof(HEAD) &&
		     pwrite(fd, sites, n * sizeof(*sites), PKS_CTL_HEAD) == (ssize_t)(n * sizeof(*sites));
	}
	ok = ok && map(fd, copy ? sites : NULL);
	close(fd);
	if (ok) {
		dev = st.st_dev;
		ino = st.st_ino;
		/* no pair: this thread's alone yet (start, or a fork's child); the pwrite gave them blocks */
		atomic_store_explicit(&held, copy ? n : 0, memory_order_relaxed);
		stamp();
		/* another pid namespace's process of our number has the name */
		if (pks_ctl_taken(path, false, HEAD.pidns)) {
			errno = EEXIST;
			ok = false;
		} else {
			ok = !rename(tmp, path);
		}
	}
	if (!ok)
		unlink(tmp);
	return ok;
}

/* A fork child: the parent's file is the parent's; make our own. */
static void forked(void)
{
	if (!on)
		return;
	if (!make(true)) {
		on = false;
		zeroes(&pks_ctl_area, PKS_CTL_HEAD);
		pks_warn("PRINTK_SHIM_CONTROL: %s: cannot make this child's control file: %s; runtime control is off in it",
			 dir, errno == EEXIST ? PKS_CTL_TAKEN : pks_strerror(errno));
	}
}

/**
 * pks_ctl_setup() - at start, PRINTK_SHIM_CONTROL on: sweep what dead
 * processes left, make our file. Return: whether control is on.
 */
bool pks_ctl_setup(const struct pks_config *c)
{
	long page = sysconf(_SC_PAGESIZE);
	const char *why;

	if (!c->set.control)
		return false;
	if (page <= 0 || (uintptr_t)&pks_ctl_area % (uintptr_t)page) {
		pks_warn("PRINTK_SHIM_CONTROL: the dynamic linker did not align the module's control page; runtime control is off");
		return false;
	}
	if (pks_ctl_dir(dir, sizeof(dir), c->secure, true, &why)) {
		pks_warn("PRINTK_SHIM_CONTROL: %s: %s; runtime control is off", dir, why);
		return false;
	}
	sweep();
	if (!make(false)) {
		pks_warn("PRINTK_SHIM_CONTROL: %s: cannot make the control file: %s; runtime control is off",
			 dir, errno == EEXIST ? PKS_CTL_TAKEN : pks_strerror(errno));
		return false;
	}
	snprintf(HEAD.st.program, sizeof(HEAD.st.program), "%s",
		 program_invocation_short_name);
	on = true;
	pks_ctl_publish(c);
	pthread_atfork(NULL, NULL, forked);
	return true;
}

/** pks_ctl_on() - Return: whether this process has a control file. */
bool pks_ctl_on(void)
{
	return on;
}

/**
 * pks_ctl_mine() - Return: whether the file mapped is this process's; a
 * child no atfork handler ran in makes its own first. A vfork child shares
 * its parent's memory and pid cache, and is its parent here.
 */
bool pks_ctl_mine(void)
{
	if (on && HEAD.pid != pks_pid()) {
		forked();
		if (cut && on)
			pks_warn("PRINTK_SHIM_CONTROL: %s/%d%s was cut short while this process ran; "
				 "made again, its dynamic debug listing empty", dir, (int)pks_pid(),
				 PKS_CTL_SUFFIX);
		cut = 0;
	}
	return on;
}

/**
 * pks_ctl_fault() - a SIGBUS at @addr (BUS_ADRERR): if in the control file's
 * mapping, the file was cut short (truncate(1), an O_TRUNC open). Its
 * pages become zeroes and the access is made again; the page asks for a
 * request, so that the next call makes the file again as a fork child
 * does (pks_ctl_mine()). Async-signal-safe.
 * Return: whether @addr was the control file's.
 */
bool pks_ctl_fault(const void *addr)
{
	uintptr_t a = (uintptr_t)addr, head = (uintptr_t)&pks_ctl_area, s = (uintptr_t)sites;

	if (!on || (a - head >= PKS_CTL_HEAD && (!sites || a - s >= PKS_CTL_SIZE - PKS_CTL_HEAD)))
		return false;
	zeroes(&pks_ctl_area, PKS_CTL_HEAD);
	if (sites)
		zeroes(sites, PKS_CTL_SIZE - PKS_CTL_HEAD);
	cut = 1;
	/* no pair: the next call's hint, as the command's store of a request */
	atomic_store_explicit(&pks_ctl_area.p.ask, 1, memory_order_relaxed);
	return true;
}

/** pks_ctl_close() - at exit: the file goes, as the process does. */
void pks_ctl_close(void)
{
	char path[PKS_PATH_MAX + 32], tmp[PKS_PATH_MAX + 32];

	struct stat st;

	if (!on || HEAD.pid != pks_pid())
		return;
	names(path, tmp, pks_pid());
	if (!stat(path, &st) && st.st_dev == dev && st.st_ino == ino)
		unlink(path);	/* ours still, not another's of our number */
}

/** pks_ctl_publish() - the settings and outputs of @c, for the command to show */
void pks_ctl_publish(const struct pks_config *c)
{
	struct pks_ctl_state *st = &HEAD.st;
	const struct pks_dd_rules *rules;

	if (!on)
		return;
	st->level = c->set.level;
	st->default_level = c->set.default_level;
	st->format = c->format;
	st->defer = c->set.defer;
	rules = pks_rules_now(&c->dd);
	st->nrules = rules->n;
	st->dd_used = (uint32_t)rules->used;
	snprintf(st->dyndbg, sizeof(st->dyndbg), "%s", c->set.dyndbg);
	st->nout = c->nout;
	for (int i = 0; i < c->nout; i++) {
		st->out[i].kind = c->out[i].kind;
		st->out[i].fd = c->out[i].fd;
		snprintf(st->out[i].path, sizeof(st->out[i].path), "%s",
			 c->out[i].kind == PKS_OUT_FILE ? c->set.outputs[c->out[i].spec].path : "");
	}
}

/** pks_ctl_lost() - @k more lines lost on output @i, to @err */
void pks_ctl_lost(int i, unsigned long k, int err)
{
	if (!on || i < 0 || i >= PKS_OUTPUTS_MAX)
		return;
	/* no pair: counts the command (cmd/control.c) prints, no data behind them */
	__atomic_fetch_add(&HEAD.st.out[i].lost, k, __ATOMIC_RELAXED);
	__atomic_store_n(&HEAD.st.out[i].lost_errno, err, __ATOMIC_RELAXED);
}

static void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/* Sites given the file's blocks at a time: a few pages. */
#define HELD_STEP	64

/*
 * Blocks for the file's site @i before anything is stored there, as for
 * the head (make()). The file is opened again by its name, and used only
 * when it is still the one mapped.
 * Return: whether site @i may be written.
 */
static bool room(uint32_t i)
{
	char path[PKS_PATH_MAX + 32], tmp[PKS_PATH_MAX + 32];
	/* no pair: a hint; a thread that misses a raise allocates the same blocks again */
	uint32_t h = atomic_load_explicit(&held, memory_order_relaxed);
	uint32_t want = (i / HELD_STEP + 1) * HELD_STEP;
	struct stat st;
	int fd, err;

	if (i < h)
		return true;
	want = want < PKS_CTL_SITES ? want : PKS_CTL_SITES;
	names(path, tmp, pks_pid());
	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	err = fstat(fd, &st) || st.st_dev != dev || st.st_ino != ino ||
	      posix_fallocate(fd, PKS_CTL_HEAD, (off_t)(want * sizeof(*sites)));
	close(fd);
	if (err)
		return false;
	/* no pair: a count of what is done, as above; it only grows */
	while (h < want && !atomic_compare_exchange_weak_explicit(&held, &h, want,
			memory_order_relaxed, memory_order_relaxed))
		;
	return true;
}

/**
 * pks_ctl_site_add() - list a dynamic debug call site
 * Return: its index for pks_ctl_site(), or -1: not listed.
 */
int pks_ctl_site_add(const struct pks_dd_site *s, unsigned int flags, bool built)
{
	struct pks_ctl_site *t;
	uint32_t i;

	if (!on || !pks_ctl_mine())
		return -1;
	/* no pair: it claims a slot; the release of ready below shows the site */
	i = atomic_fetch_add_explicit(&HEAD.nsites, 1, memory_order_relaxed);
	if (i >= PKS_CTL_SITES || !room(i)) {
		/* no pair: a count the command prints */
		__atomic_fetch_add(&HEAD.sites_lost, 1, __ATOMIC_RELAXED);
		return -1;
	}
	t = &sites[i];
	t->flags = flags;
	t->lineno = s->lineno;
	t->built = built;
	copy(t->module, sizeof(t->module), s->module);
	copy(t->function, sizeof(t->function), s->function);
	copy(t->file, sizeof(t->file), s->filename);
	copy(t->format, sizeof(t->format), s->format);
	t->classed = s->classed;
	t->class_id = s->class_id;
	copy(t->class_name, sizeof(t->class_name), s->classed ? s->class_name : NULL);
	/* pairs with the command's acquire load of ready before it reads the names */
	__atomic_store_n(&t->ready, PKS_CTL_SITE_LISTED, __ATOMIC_RELEASE);
	return (int)i;
}

/** pks_ctl_site_gone() - listed site @i's object was unloaded: no longer listed */
void pks_ctl_site_gone(int i)
{
	if (on && i >= 0 && i < PKS_CTL_SITES && pks_ctl_mine())
		/* no pair: the command skips it from its next look on; its names stay */
		__atomic_store_n(&sites[i].ready, PKS_CTL_SITE_GONE, __ATOMIC_RELAXED);
}

/** pks_ctl_site() - Return: listed site @i, or NULL. */
struct pks_ctl_site *pks_ctl_site(int i)
{
	return on && i >= 0 && i < PKS_CTL_SITES ? &sites[i] : NULL;
}
