// SPDX-License-Identifier: MIT
/*
 * The record buffer (printk-shim(7) RECORD BUFFER): DIR/PID.rec, a ring of
 * whole lines in a MAP_SHARED file, so that what was written is in the
 * page cache the moment it is written and stays there however the process
 * ends, for printk-shim --dmesg to read, like pstore. Made under a
 * temporary name and renamed once whole; a fork child makes its own, empty;
 * exit marks it and leaves it. Dead processes' files are kept RECORDS_KEPT
 * at most, none older than RECORDS_DAYS days, swept when a recording
 * process starts.
 * Thread-safety: lock-free; writers reserve with one atomic add and stamp
 * their record last. A writer a whole lap behind another may spoil its
 * record; the reader skips what is not stamped.
 */
#include "ctl/record.h"
#include "base/clock.h"
#include "base/fdio.h"
#include "base/pid.h"
#include "base/say.h"
#include "ctl/dir.h"
#include "ctl/recbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define RECORDS_KEPT	16	/* dead processes' buffers kept, the newest */
#define RECORDS_DAYS	7	/* and none older than this */

bool pks_rec_on;
static struct pks_rec_head *rh;
static char *ring;
static uint64_t mask;
static size_t bytes;		/* of the mapping */
static char dir[PKS_PATH_MAX];
static volatile sig_atomic_t cut;	/* pks_rec_fault() took the file's pages away */

/* Make DIR/PID.rec; map it at @at (NULL: anywhere). */
static bool make(void *at, const struct pks_config *c)
{
	char path[PKS_PATH_MAX + 32], tmp[PKS_PATH_MAX + 32];
	void *p;
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "%s/%d%s", dir, (int)pks_pid(), PKS_REC_SUFFIX);
	snprintf(tmp, sizeof(tmp), "%s/.%d%s.new", dir, (int)pks_pid(), PKS_REC_SUFFIX);
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	/* every block now: a store into a hole of a full file system raises SIGBUS */
	ok = !fchmod(fd, 0600) && pks_fd_fits((off_t)bytes) &&	/* fchmod: as the control file's */
	     !(errno = posix_fallocate(fd, 0, (off_t)bytes));
	p = ok ? mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | (at ? MAP_FIXED : 0), fd, 0)
	       : MAP_FAILED;
	close(fd);
	if (p == MAP_FAILED) {
		unlink(tmp);
		return false;
	}
	rh = p;
	ring = (char *)p + PKS_REC_HEAD;
	rh->pid = pks_pid();
	rh->uid = geteuid();
	rh->start = pks_ctl_start_time(rh->pid);
	rh->pidns = pks_ctl_pidns();
	rh->size = mask + 1;
	rh->version = PKS_REC_VERSION;
	rh->magic = PKS_REC_MAGIC;
	if (c)
		snprintf(rh->program, sizeof(rh->program), "%s", program_invocation_short_name);
	/* another pid namespace's process of our number has the name */
	if (pks_ctl_taken(path, true, rh->pidns)) {
		errno = EEXIST;
		unlink(tmp);
		return false;
	}
	if (rename(tmp, path)) {
		unlink(tmp);
		return false;
	}
	return true;
}

/*
 * A fork child: its lines go to a buffer of its own, from empty. So does a
 * process whose file was cut short (pks_rec_fault()), its name its own.
 */
static void forked(void)
{
	char program[sizeof(rh->program)];

	if (!pks_rec_on || rh->pid == pks_pid())
		return;
	memcpy(program, rh->program, sizeof(program));
	if (make(rh, NULL)) {
		if (cut)
			snprintf(program, sizeof(program), "%s", program_invocation_short_name);
		memcpy(rh->program, program, sizeof(program));
		if (cut)
			pks_warn("PRINTK_SHIM_RECORD: %s/%d%s was cut short while this process "
				 "ran; made again, from empty", dir, (int)pks_pid(), PKS_REC_SUFFIX);
		cut = 0;
		return;
	}
	pks_rec_on = false;
	pks_warn("PRINTK_SHIM_RECORD: %s: cannot make this child's record buffer: %s; it records nothing",
		 dir, errno == EEXIST ? PKS_CTL_TAKEN : pks_strerror(errno));
}

/*
 * forked() in the child of a fork(): and, as a process that starts with a
 * buffer does, the dead processes' beyond the newest kept go, so that a
 * server's children, each with a buffer, leave no more than it would.
 * The C library's fork child handlers may allocate (opendir(3)); a child
 * no handler ran in (forked() from pks_rec_put()) sweeps nothing.
 */
static void child(void)
{
	forked();
	if (pks_rec_on)
		pks_rec_sweep(dir, RECORDS_KEPT - 1, RECORDS_DAYS * 86400L, pks_pid());
}

/** pks_rec_setup() - PRINTK_SHIM_RECORD set: sweep old buffers, make ours. Return: whether on. */
bool pks_rec_setup(const struct pks_config *c)
{
	const char *why;

	if (!c->set.record || c->set.disable)
		return false;
	if (pks_ctl_dir(dir, sizeof(dir), c->secure, true, &why)) {
		pks_warn("PRINTK_SHIM_RECORD: %s: %s; recording nothing", dir, why);
		return false;
	}
	/* its own buffer is kept too once it ends: room for it among them */
	pks_rec_sweep(dir, RECORDS_KEPT - 1, RECORDS_DAYS * 86400L, pks_pid());
	mask = c->set.record - 1;
	bytes = PKS_REC_HEAD + c->set.record;
	if (!make(NULL, c)) {
		pks_warn("PRINTK_SHIM_RECORD: %s: cannot make the record buffer: %s; recording nothing",
			 dir, errno == EEXIST ? PKS_CTL_TAKEN : pks_strerror(errno));
		return false;
	}
	pks_rec_on = true;
	pthread_atfork(NULL, NULL, child);
	return true;
}

/* @n bytes of @src into the ring at @pos, across its end. */
static void put(uint64_t pos, const void *src, size_t n)
{
	size_t at = (size_t)(pos & mask), first = mask + 1 - at < n ? mask + 1 - at : n;

	memcpy(ring + at, src, first);
	memcpy(ring, (const char *)src + first, n - first);
}

/**
 * pks_rec_put() - a line of @level (its text @n bytes at @text, no newline)
 * into the buffer; @flags: PKS_REC_*; @t_ns: when it began, or 0
 */
void pks_rec_put(int level, const char *text, size_t n, long tid, uint64_t t_ns, unsigned int flags)
{
	struct pks_rec r;
	struct timespec ts;
	uint64_t pos;

	if (rh->pid != pks_pid())
		forked();	/* a child no atfork handler ran in */
	if (!pks_rec_on)
		return;
	if (n > (mask + 1) / 4)
		n = (mask + 1) / 4;
	clock_gettime(CLOCK_REALTIME, &ts);
	/* no pair: these claim room and a number; the stamp's release shows them */
	pos = atomic_fetch_add_explicit(&rh->head, pks_rec_span(n), memory_order_relaxed);
	r = (struct pks_rec){
		.seq = atomic_fetch_add_explicit(&rh->seq, 1, memory_order_relaxed),
		.t_ns = t_ns ? t_ns : pks_now_ns(),
		.t_real_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
		.tid = (int32_t)tid, .len = (uint32_t)n, .level = (uint16_t)level,
		.flags = (uint16_t)flags,
	};
	/*
	 * The room is claimed before a byte of it is overwritten: a reader that
	 * copied one sees the head that claimed it, and drops its copy.
	 * Pairs with the acquire fence in the reader's walk() (cmd/dmesg.c).
	 */
	pks_rec_fence(memory_order_release);
	put(pos + sizeof(r.stamp), (const char *)&r + sizeof(r.stamp), sizeof(r) - sizeof(r.stamp));
	put(pos + sizeof(r), text, n);
	/* pairs with the reader's acquire load of the stamp: the record is whole */
	atomic_store_explicit((_Atomic uint64_t *)(void *)(ring + (pos & mask)), pos ^ PKS_REC_STAMP,
			      memory_order_release);
}

/**
 * pks_rec_close() - at exit: the buffer stays, marked as ended by exit; one
 * that holds no line goes, so that the programs a command starts that
 * never print leave none behind to push out the buffers that tell something
 */
void pks_rec_close(void)
{
	char path[PKS_PATH_MAX + 32];

	if (!pks_rec_on || rh->pid != pks_pid())
		return;
	/* no pair: this process's own count, read as it ends */
	if (!atomic_load_explicit(&rh->seq, memory_order_relaxed)) {
		snprintf(path, sizeof(path), "%s/%d%s", dir, (int)pks_pid(), PKS_REC_SUFFIX);
		unlink(path);
		return;
	}
	atomic_store(&rh->exited, 1);	/* no pair: pks_rec_dead() reads the file */
}

/**
 * pks_rec_fault() - a SIGBUS at @addr (BUS_ADRERR): if in the record
 * buffer's mapping, its file was cut short; its pages become zeroes of
 * this process's own, and the access is made again; the next line makes
 * the file again, as a fork child's does (forked()). Async-signal-safe.
 * Return: whether @addr was the record buffer's.
 */
bool pks_rec_fault(const void *addr)
{
	if (!pks_rec_on || (uintptr_t)addr - (uintptr_t)rh >= bytes)
		return false;
	mmap(rh, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	rh->size = mask + 1;	/* what the writers read back */
	cut = 1;
	return true;
}
