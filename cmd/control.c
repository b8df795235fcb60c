// SPDX-License-Identifier: MIT
/*
 * printk-shim --pid/--all: running processes read and changed through
 * their control files (printk-shim(1) RUNTIME CONTROL): the level, dynamic
 * debug queries, reopening file: outputs, the deferred ring written now,
 * the listing of a process's settings, outputs, counts and sites, and
 * (--dmesg, dmesg.c) its record buffer.
 * Which file is a process's is read from /proc/PID/maps, so the kernel's
 * rules for reading it decide who may: its user and root.
 */
#include "cmd/control.h"
#include "cmd/quote.h"
#include "config/vars.h"
#include "core/ddquery.h"
#include "core/escape.h"
#include "core/level.h"
#include "ctl/dir.h"
#include "ctl/page.h"
#include "cmd/dmesg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_USAGE = 125 };
#define PIDS_MAX	1024	/* in one --pid list; --all takes every process */
#define FLUSH_WAIT_MS	2000	/* the longest --flush waits for a printer */

/* What the command line asks. */
struct ask {
	pid_t *pids;
	int npids, room;
	bool all, reopen, flush, dmesg;
	enum pks_linefmt format;	/* --dmesg's */
	int level;		/* -1: unchanged */
	const char *dyndbg;
	int nqueries;
};

/* One process's control file, mapped. */
struct target {
	pid_t pid;
	int fd;
	struct pks_ctl_page *h;
	const struct pks_ctl_site *sites;
};

static __attribute__((format(printf, 2, 3)))
void say(const char *pre, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "printk-shim: %s", pre);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static __attribute__((noreturn)) void usage_error(const char *what)
{
	say("", "%s; nothing is done (see --help)", what);
	exit(EXIT_USAGE);
}

/**
 * pks_control_wanted() - Return: whether @argv's options, before any
 * command, name a running process (--pid, --all): printk-shim(1) RUNTIME
 * CONTROL, not a command to run.
 */
bool pks_control_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && !strncmp(argv[i], "--", 2) && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--all") || !strcmp(argv[i], "--pid") ||
		    !strncmp(argv[i], "--pid=", 6))
			return true;
	return false;
}

/* @s's bytes up to its first NUL or its @n-th, at @buf (@n + 1 bytes), ended. */
static const char *raw(char *buf, const char *s, size_t n)
{
	size_t k = strnlen(s, n);

	memcpy(buf, s, k);
	buf[k] = '\0';
	return buf;
}
#define RAW(field)	raw((char[sizeof(field) + 1]){ 0 }, (field), sizeof(field))

/*
 * The string of at most @n bytes at @s, in the target's file, which its
 * user may have written anything into: ended within them, and escaped as
 * the kernel's control file escapes (core/escape.c), so that none ends a
 * line or reaches a terminal raw. In @buf of @size bytes, returned.
 */
static const char *shown(char *buf, size_t size, const char *s, size_t n)
{
	char r[PKS_DD_POOL + 1];
	size_t k = strlen(raw(r, s, n < PKS_DD_POOL ? n : PKS_DD_POOL));

	/* cut short, here or in the escaping: said, never shown as the whole */
	if (pks_escape(buf, size - 3, r) >= size - 4 || k < strnlen(s, n))
		strcat(buf, "...");
	return buf;
}
#define SHOWN(field)	shown((char[4 * sizeof(field) + 1]){ 0 }, 4 * sizeof(field) + 1, \
			      (field), sizeof(field))

static bool listed(const struct ask *a, pid_t pid)
{
	for (int i = 0; i < a->npids; i++)
		if (a->pids[i] == pid)
			return true;
	return false;
}

/* @pid after the others; out of memory, nothing is done. */
static void push(struct ask *a, pid_t pid)
{
	pid_t *p = a->pids;

	if (a->npids == a->room) {
		if (!(p = realloc(a->pids, (size_t)(a->room ? 2 * a->room : 64) * sizeof(*p)))) {
			say("", "%s; nothing is done", strerror(ENOMEM));
			exit(EXIT_USAGE);
		}
		a->pids = p;
		a->room = a->room ? 2 * a->room : 64;
	}
	a->pids[a->npids++] = pid;
}

static void add_pids(struct ask *a, const char *list)
{
	char *end;

	for (const char *p = list;; p = end + 1) {
		long v;

		errno = 0;
		end = (char *)p;
		v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : 0;	/* no sign, no space */
		if (errno || v <= 0 || v > INT_MAX || (*end && *end != ',')) {
			say("", "--pid=%s: expected PID[,PID...] (at most %d); nothing is done",
			    shown((char[4 * PKS_DD_POOL + 1]){ 0 }, 4 * PKS_DD_POOL + 1, list, strlen(list)),
			    PIDS_MAX);
			exit(EXIT_USAGE);
		}
		if (a->npids == PIDS_MAX && !listed(a, (pid_t)v)) {
			say("", "--pid: more than %d processes: expected PID[,PID...] (at most %d); "
			    "nothing is done", PIDS_MAX, PIDS_MAX);
			exit(EXIT_USAGE);
		}
		if (!listed(a, (pid_t)v))	/* a pid named twice is one process */
			push(a, (pid_t)v);
		if (!*end)
			return;
	}
}

static void bad_query(void *arg, const char *q, size_t n, const char *why)
{
	(void)arg;
	say("", "--dyndbg: \"%s\": %s; nothing is changed", shown((char[4 * PKS_DD_POOL + 1]){ 0 },
	    4 * PKS_DD_POOL + 1, q, n), why);
	exit(EXIT_USAGE);
}

/* A query the target's file holds and does not parse: the process refuses it too. */
static void passed_over(void *arg, const char *q, size_t n, const char *why)
{
	(void)arg;
	(void)q;
	(void)n;
	(void)why;
}

/* --name=VALUE or --name VALUE: the value of option @name at argv[*i], or NULL. */
static const char *value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n])
		return NULL;
	if (*i + 1 >= argc) {
		say("", "%s: expected a value; nothing is done", name);
		exit(EXIT_USAGE);
	}
	return argv[++*i];
}

/*
 * @v of option @opt into @s, as the variable PRINTK_SHIM_@var reads it, or
 * a one-line message and EXIT_USAGE: nothing is @done.
 */
static void setting(struct pks_settings *s, const char *var, const char *opt, const char *v,
		    const char *done)
{
	const struct pks_var *d = pks_var_find(var);

	pks_settings_default(s);
	if (d->parse(s, v)) {
		say("", "%s=%s: expected %s; nothing is %s", opt, pks_quote(v), d->expect, done);
		exit(EXIT_USAGE);
	}
}

/*
 * The queries of every --dyndbg so far, @had, and @v: each option one
 * write to the kernel's control file, in order. Return: all of them.
 */
static const char *more_queries(const char *had, const char *v)
{
	static char all[PKS_DD_POOL];
	size_t n = had ? strlen(had) : 0;

	if (!had)
		return v;
	if (n + 1 + strlen(v) >= sizeof(all)) {
		say("", "--dyndbg: more than %zu bytes of queries in all; nothing is changed",
		    sizeof(all) - 1);
		exit(EXIT_USAGE);
	}
	if (had != all)
		memcpy(all, had, n + 1);
	snprintf(all + n, sizeof(all) - n, ";%s", v);
	return all;
}

static void parse(int argc, char **argv, struct ask *a)
{
	static struct pks_dd_rules rules;
	struct pks_settings s;
	const char *v;

	a->level = -1;
	for (int i = 1; i < argc; i++) {
		if ((v = value(argc, argv, &i, "--pid"))) {
			add_pids(a, v);
		} else if (!strcmp(argv[i], "--all")) {
			a->all = true;
		} else if (!strcmp(argv[i], "--reopen")) {
			a->reopen = true;
		} else if (!strcmp(argv[i], "--flush")) {
			a->flush = true;
		} else if (!strcmp(argv[i], "--dmesg")) {
			a->dmesg = true;
		} else if ((v = value(argc, argv, &i, "--format"))) {
			setting(&s, "FORMAT", "--format", v, "printed");
			a->format = s.format == PKS_LINE_AUTO ? PKS_LINE_DMESG : s.format;
		} else if ((v = value(argc, argv, &i, "--level"))) {
			setting(&s, "LEVEL", "--level", v, "changed");
			a->level = s.level;
		} else if ((v = value(argc, argv, &i, "--dyndbg"))) {
			if (!v[strspn(v, " \t\n;")])
				usage_error("--dyndbg: expected one or more queries, got none");
			a->nqueries += pks_dd_parse(&rules, v, bad_query, NULL);
			a->dyndbg = more_queries(a->dyndbg, v);
		} else if (!strncmp(argv[i], "--", 2)) {
			say("", "%s: not an option for a running process (--pid, --all: --level, --dyndbg, --reopen, --flush, --dmesg, --format); nothing is done",
			    pks_quote(argv[i]));
			exit(EXIT_USAGE);
		} else {
			say("", "--pid, --all: expected no command, got '%s'; nothing is run", pks_quote(argv[i]));
			exit(EXIT_USAGE);
		}
	}
	if (a->all && a->npids)
		usage_error("--all and --pid: expected one of them");
	if (a->dmesg && (a->all || a->level >= 0 || a->dyndbg || a->reopen || a->flush))
		usage_error("--dmesg: expected --pid and --format only");
	if (!a->dmesg && a->format)
		usage_error("--format: for a running process, only with --dmesg");
}

/* Who owns @pid's /proc directory: its effective user, as the kernel checks it. */
static bool owner(pid_t pid, uid_t *uid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st))
		return false;
	*uid = st.st_uid;
	return true;
}

/* Why @pid cannot be reached, from errno after a failed look. */
/* Whether @pid maps the module, whose file's name starts "libprintk-shim". */
static bool maps_module(pid_t pid)
{
	char line[4096];
	bool found = false;
	FILE *f;

	if (!(f = pks_ctl_maps_open(pid)))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *base = strrchr(line, '/');

		found = base && !strncmp(base, "/libprintk-shim", 15);
	}
	fclose(f);
	return found;
}

/* The process of which @pid is a thread other than the first, or 0. */
static pid_t process_of(pid_t pid)
{
	char name[64], line[256];
	long tgid = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", (int)pid);
	if (!(f = fopen(name, "re")))
		return 0;
	while (fgets(line, sizeof(line), f) && sscanf(line, "Tgid: %ld", &tgid) != 1)
		;
	fclose(f);
	return tgid > 0 && tgid != pid ? (pid_t)tgid : 0;
}

static const char *why_not(pid_t pid)
{
	static char thread[96];
	pid_t p;

	if (errno == EACCES || errno == EPERM)
		return "permission denied: only its user and root may control it";
	if (errno == EIDRM)
		return "its control file was removed while it ran, so it cannot be reached; nothing is done";
	if (kill(pid, 0) && errno == ESRCH)
		return "no such process";
	if ((p = process_of(pid))) {
		snprintf(thread, sizeof(thread), "a thread of process %d, not a process: give its pid",
			 (int)p);
		return thread;
	}
	if (pks_ctl_zombie(pid))	/* its maps are gone */
		return "it has exited (its parent has not yet waited for it)";
	if (maps_module(pid))
		return "it runs the printk-shim module with runtime control off (PRINTK_SHIM_CONTROL=0)";
	return "it runs no printk-shim module (not preloaded)";
}

/*
 * Whether the control file at @path, whose owner @st says is not the
 * process's user now, was made by the process while it ran as root, and
 * the caller is root: a daemon that dropped its privileges keeps the file
 * it made in root's directory, which no other user could have put there.
 */
static bool made_as_root(const char *path, const struct stat *st)
{
	struct stat d;

	return geteuid() == 0 && st->st_uid == 0 && !pks_ctl_dir_of(path, &d) &&
	       S_ISDIR(d.st_mode) && d.st_uid == 0 && !(d.st_mode & 077);
}

/* Map @pid's control file into @t. Return: NULL, or why not. */
static const char *attach(pid_t pid, struct target *t)
{
	char path[PATH_MAX];
	struct stat st;
	ino_t ino = 0;
	uid_t uid;
	void *p;
	bool own = false;	/* found in the caller's directory, not through the maps */
	bool bad;

	t->pid = pid;
	t->fd = -1;
	if (!pks_ctl_maps(pid, PKS_CTL_SUFFIX, path, sizeof(path), &ino)) {
		if (errno != EACCES && errno != EPERM)
			return why_not(pid);
		if (!pks_ctl_own(pid, PKS_CTL_SUFFIX, path, sizeof(path))) {
			errno = EACCES;
			return why_not(pid);
		}
		own = true;
	}
	t->fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (t->fd < 0)
		return why_not(pid);
	if (own && !fstat(t->fd, &st))
		ino = st.st_ino;
	uid = own ? geteuid() : (uid_t)-1;
	bad = fstat(t->fd, &st) || !S_ISREG(st.st_mode) || st.st_ino != ino ||
	      (!own && !owner(pid, &uid)) || st.st_size < (off_t)PKS_CTL_SIZE;
	if (!bad && st.st_uid != uid) {
		bad = own || !made_as_root(path, &st);
		own = true;	/* its start time checked below, as for a set-ID process's */
	}
	if (bad) {
		close(t->fd);
		return "its control file is not one (wrong owner, kind or size); nothing is done";
	}
	p = mmap(NULL, PKS_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (p == MAP_FAILED) {
		close(t->fd);
		return strerror(errno);
	}
	t->h = p;
	t->sites = (const struct pks_ctl_site *)((char *)p + PKS_CTL_HEAD);
	if (own && t->h->start != pks_ctl_start_time(pid)) {
		munmap(p, PKS_CTL_SIZE);
		close(t->fd);
		return "permission denied: only its user and root may control it";
	}
	if (t->h->magic != PKS_CTL_MAGIC || t->h->version != PKS_CTL_VERSION || t->h->pid != pid) {
		munmap(p, PKS_CTL_SIZE);
		close(t->fd);
		return "its control file is of another version of the module; nothing is done";
	}
	return NULL;
}

static void detach(struct target *t)
{
	munmap(t->h, PKS_CTL_SIZE);
	close(t->fd);
}

/*
 * Whether the queries of @a fit the process whose file has @h, after those
 * asked before and not yet taken: PKS_DD_QUERIES queries and PKS_DD_POOL
 * bytes of their words, as the module takes them in one go. The rules in
 * force are not counted: the module makes them anew with these, merged
 * (printk-shim(7) RUNTIME CONTROL), and says so itself when even that
 * passes their room.
 */
static bool fits(const struct pks_ctl_page *h, const struct ask *a)
{
	static struct pks_dd_rules r;
	char text[PKS_DD_POOL + 1];
	int waiting;

	pks_ctl_queries(&h->req, h->st.dd_done, h->req.dd_len, text);
	waiting = pks_dd_parse(&r, text, passed_over, NULL);
	return pks_dd_parse_more(&r, a->dyndbg, passed_over, NULL) - waiting == a->nqueries;
}

/* The request, written whole before the process can see it. Return: NULL or why not. */
static const char *request(struct target *t, const struct ask *a)
{
	struct pks_ctl_req *q = &t->h->req;
	size_t n = a->dyndbg ? strlen(a->dyndbg) : 0;
	static char full[192];
	const char *why = NULL;

	if (flock(t->fd, LOCK_EX))
		return strerror(errno);
	/* the queries not yet taken and these within dd, not over those */
	if (a->dyndbg && (q->dd_len - t->h->st.dd_done + n + 1 > sizeof(q->dd) || !fits(t->h, a))) {
		snprintf(full, sizeof(full), "these queries and those it has not taken yet pass what it takes at once (at most %d queries, %zu bytes of their words); nothing is changed",
			 PKS_DD_QUERIES, sizeof(q->dd));
		why = full;
	} else {
		if (a->level >= 0)
			q->level = a->level;
		for (size_t k = 0; a->dyndbg && k <= n; k++)
			q->dd[(q->dd_len + k) % sizeof(q->dd)] = k < n ? a->dyndbg[k] : '\n';
		if (a->dyndbg)
			q->dd_len += (uint32_t)n + 1;
		q->reopen += a->reopen;
		/* release: pairs with the acquire in the module's pks_control_apply() */
		atomic_fetch_add(&t->h->ask, 1);
	}
	flock(t->fd, LOCK_UN);
	return why;
}

static void futex_wake(_Atomic int32_t *word)
{
	syscall(SYS_futex, (void *)word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/*
 * --flush: wake the deferred printer until it finished two drains, the
 * second begun after the wake. Return: NULL, or why not.
 */
static const char *flush(struct target *t)
{
	struct pks_ctl_page *h = t->h;
	uint32_t seen = atomic_load(&h->flushed);
	struct timespec ms = { 0, 1000000 };

	if (!h->st.defer || !seen)
		return NULL;	/* no ring, or no printer ever started: no line went into it */
	for (int i = 0; i < FLUSH_WAIT_MS; i++) {
		if (atomic_load(&h->flushed) - seen >= 2)
			return NULL;
		/*
		 * Idle, or ended after a second of it: its ring stayed empty,
		 * and a line put in since would have woken it. Pairs with the
		 * module's store of IDLE after the ring was found empty.
		 */
		if (atomic_load(&h->sleep) == PKS_CTL_IDLE)
			return NULL;
		atomic_store(&h->sleep, PKS_CTL_AWAKE);
		futex_wake(&h->sleep);
		nanosleep(&ms, NULL);
		if (kill(t->pid, 0) && errno == ESRCH)
			return "it exited while its deferred lines were written";
	}
	return "its deferred printer did not answer within 2 seconds";
}

static const char *format_name(int f)
{
	static const char *const names[] = { "auto", "plain", "prefix", "dmesg", "kmsg", "json" };

	return f >= 0 && f < (int)(sizeof(names) / sizeof(names[0])) ? names[f] : "?";
}

static void show_output(const struct pks_ctl_page *h, int i)
{
	const __typeof__(h->st.out[0]) *o = &h->st.out[i];
	uint64_t lost = __atomic_load_n(&o->lost, __ATOMIC_RELAXED);

	printf("output %d: ", i + 1);
	switch (o->kind) {
	case PKS_OUT_STDERR:
		printf("stderr");
		break;
	case PKS_OUT_SYSLOG:
		printf("syslog");
		break;
	case PKS_OUT_JOURNAL:
		printf("journal");
		break;
	case PKS_OUT_FILE:
		printf("file:%s", SHOWN(o->path));
		break;
	default:
		printf("fd:%d", o->fd);
	}
	printf(", %llu lines lost", (unsigned long long)lost);
	if (lost)
		printf(" (%s)", strerror(o->lost_errno));
	putchar('\n');
}

/* How many sites are listed now: those of unloaded objects are not. */
static uint32_t live_sites(const struct target *t)
{
	uint32_t n = atomic_load(&t->h->nsites), k = 0;

	n = n < PKS_CTL_SITES ? n : PKS_CTL_SITES;
	for (uint32_t i = 0; i < n; i++)
		/* pairs with the module's release store of ready */
		k += __atomic_load_n(&t->sites[i].ready, __ATOMIC_ACQUIRE) == PKS_CTL_SITE_LISTED;
	return k;
}

/* Each listed site, with the queries the process has still to take applied. */
static void show_sites(const struct target *t)
{
	static struct pks_dd_rules pending;
	const struct pks_ctl_page *h = t->h;
	uint32_t n = atomic_load(&h->nsites);
	char text[PKS_DD_POOL + 1], line[4 * sizeof(struct pks_ctl_site) + 128];	/* each name escaped */

	pks_ctl_queries(&h->req, h->st.dd_done, h->req.dd_len, text);
	pks_dd_parse(&pending, text, passed_over, NULL);
	n = n < PKS_CTL_SITES ? n : PKS_CTL_SITES;
	puts("# filename:lineno [module]function flags format");
	for (uint32_t i = 0; i < n; i++) {
		const struct pks_ctl_site *l = &t->sites[i];
		/* the names as the rules match them, then as the listing shows them */
		struct pks_dd_site r = { RAW(l->module), RAW(l->function), RAW(l->file),
					 RAW(l->format), l->lineno, l->classed, l->class_id,
					 RAW(l->class_name) };
		struct pks_dd_site s = { SHOWN(l->module), SHOWN(l->function), SHOWN(l->file),
					 SHOWN(l->format), l->lineno, l->classed, l->class_id,
					 SHOWN(l->class_name) };

		/* pairs with the module's release store of ready, after the names */
		if (__atomic_load_n(&l->ready, __ATOMIC_ACQUIRE) != PKS_CTL_SITE_LISTED)
			continue;	/* not yet, or its object was unloaded */
		r.function = r.function[0] ? r.function : NULL;
		r.filename = r.filename[0] ? r.filename : NULL;
		r.class_name = r.class_name[0] ? r.class_name : NULL;
		s.function = r.function ? s.function : NULL;
		s.filename = r.filename ? s.filename : NULL;
		s.class_name = r.class_name ? s.class_name : NULL;
		pks_dd_site_text(line, sizeof(line), &s,
				 pks_dd_apply(&pending, &r, __atomic_load_n(&l->flags, __ATOMIC_RELAXED)));
		fputs(line, stdout);
	}
	if (h->sites_lost)
		printf("# %u more sites not listed\n", h->sites_lost);
}

/* printk-shim(1) RUNTIME CONTROL, "show": the process as it is now. */
static void show(const struct target *t)
{
	const struct pks_ctl_page *h = t->h;
	int level = h->req.level >= 0 ? h->req.level : h->st.level;
	char text[PKS_DD_POOL + 1];
	uint32_t dd = pks_ctl_queries(&h->req, 0, h->req.dd_len, text);

	printf("pid: %d\nprogram: %s\n", (int)t->pid, SHOWN(h->st.program));
	printf("level: %d (%s)\n", level, pks_level_name(level));
	printf("default level: %d (%s)\n", h->st.default_level, pks_level_name(h->st.default_level));
	printf("format: %s\n", format_name(h->st.format));
	printf("deferred: %s\n", h->st.defer ? "yes" : "no");
	printf("dyndbg: %s\n", h->st.dyndbg[0] ? SHOWN(h->st.dyndbg) : "none");
	for (const char *q = text, *e; q < text + dd; q = e + 1) {
		e = memchr(q, '\n', (size_t)(text + dd - q));
		if (!e)
			break;
		printf("dyndbg since: %s\n", shown((char[4 * PKS_DD_POOL + 1]){ 0 }, 4 * PKS_DD_POOL + 1,
						   q, (size_t)(e - q)));
	}
	for (int i = 0; i < h->st.nout && i < PKS_OUTPUTS_MAX; i++)
		show_output(h, i);
	printf("reopens: %u\n", h->req.reopen);
	printf("dynamic debug sites: %u\n", live_sites(t));
	show_sites(t);
}

static bool changes(const struct ask *a)
{
	return a->level >= 0 || a->dyndbg || a->reopen;
}

/* One process: the changes, the flush, or the listing. Return: whether it took them. */
static bool one(pid_t pid, const struct ask *a, bool *shown)
{
	struct target t;
	const char *why = attach(pid, &t);

	if (why) {
		say("", "pid %d: %s", (int)pid, why);
		return false;
	}
	if (changes(a))
		why = request(&t, a);
	if (!why && a->flush)
		why = flush(&t);
	if (!why && !changes(a) && !a->flush) {
		if (*shown)
			putchar('\n');
		show(&t);
		*shown = true;
	}
	if (!why && kill(pid, 0) && errno == ESRCH)
		why = "it exited";
	detach(&t);
	if (why)
		say("", "pid %d: %s", (int)pid, why);
	return !why;
}

/* The pids of the control files in the caller's directory; leftovers removed. */
static int every(struct ask *a)
{
	char dir[PATH_MAX];
	const char *why;
	struct dirent *e;
	uint64_t mine = pks_ctl_pidns();
	DIR *d;

	if (pks_ctl_dir(dir, sizeof(dir), false, false, &why)) {
		if (errno != ENOENT)
			say("", "--all: %s: %s; nothing is done", dir, why);
		return errno == ENOENT ? 0 : -1;
	}
	if (!(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		pid_t pid = pks_ctl_name_pid(e->d_name, PKS_CTL_SUFFIX);
		char path[PATH_MAX];
		ino_t ino;

		if (!pid)
			continue;
		if (pks_ctl_maps(pid, PKS_CTL_SUFFIX, path, sizeof(path), &ino) ||
		    errno == EACCES || errno == EPERM)
			push(a, pid);	/* not dumpable: attach() checks the file is its own */
		else if (pks_ctl_dead(dirfd(d), e->d_name, pid, mine))
			unlinkat(dirfd(d), e->d_name, 0);	/* a dead process's */
	}
	closedir(d);
	return 0;
}

/**
 * pks_control() - printk-shim --pid=PID[,PID...] | --all [--level=L]
 * [--dyndbg=Q] [--reopen] [--flush]; with none of them, the listing
 * Return: the exit status: 0 when every process took it, 1 when one did
 * not (each named on stderr), 125 for a bad command line.
 */
int pks_control(int argc, char **argv)
{
	static struct ask a;
	bool ok = true, shown = false;

	parse(argc, argv, &a);
	if (a.dmesg) {
		for (int i = 0; i < a.npids; i++) {
			const char *why = pks_dmesg(a.pids[i], a.format ? a.format : PKS_LINE_DMESG);

			if (why)
				say("", "pid %d: %s", (int)a.pids[i], why);
			ok &= !why;
		}
		return fflush(stdout) || !ok ? 1 : 0;
	}
	if (access("/proc/self/maps", R_OK)) {
		say("", "%s: no /proc is mounted here, where processes are looked at; nothing is done",
		    a.all ? "--all" : "--pid");
		return 1;
	}
	if (a.all && every(&a))
		return 1;
	if (a.all && !a.npids)
		say("", "--all: no process of yours runs the printk-shim module with runtime control");
	for (int i = 0; i < a.npids; i++)
		ok &= one(a.pids[i], &a, &shown);
	if (fflush(stdout) || ferror(stdout)) {
		say("", "writing the listing: %s", strerror(errno));
		return 1;
	}
	return ok ? 0 : 1;
}
