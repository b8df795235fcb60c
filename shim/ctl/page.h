/* SPDX-License-Identifier: MIT */
/*
 * The control file's layout, shared by the module, which keeps it current,
 * and the printk-shim command, which reads it and writes requests into it
 * (printk-shim(7) RUNTIME CONTROL). Plain data, and the one reader both
 * take the queries of a request with.
 */
#ifndef PKS_CTL_PAGE_H
#define PKS_CTL_PAGE_H

#include "config/vars.h"
#include "core/ddquery.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define PKS_CTL_MAGIC	0x6b74636bu	/* "kctk" */
#define PKS_CTL_VERSION	3
#define PKS_CTL_HEAD	65536		/* the header's bytes: the largest page size */
#define PKS_CTL_SITES	4096		/* dynamic debug sites listed */
#define PKS_CTL_SIZE	(PKS_CTL_HEAD + PKS_CTL_SITES * sizeof(struct pks_ctl_site))

/* pks_ctl_site.ready: not listed yet; listed; its object unloaded, as the kernel drops a module's. */
enum { PKS_CTL_SITE_NEW, PKS_CTL_SITE_LISTED, PKS_CTL_SITE_GONE };

/* One dynamic debug call site, as the kernel's control file lists it. */
struct pks_ctl_site {
	uint32_t flags;			/* the site's flags now (PKS_DD_*) */
	uint32_t lineno;		/* 0: unknown */
	uint32_t built;			/* 1: code built with our headers; 0: plain KERN_DEBUG */
	uint32_t ready;			/* PKS_CTL_SITE_*: 1 once the names below are written */
	char module[48], function[64], file[128], format[248];
	uint32_t classed, class_id;	/* of a class, not the default one, and which */
	char class_name[32];		/* its name in the object's class maps, or "" */
};

/* What the command asks for; written under flock(LOCK_EX) on the file. */
struct pks_ctl_req {
	int32_t level;			/* the level to show up to; -1: none asked */
	uint32_t reopen;		/* reopens asked for, a count */
	uint32_t dd_len;		/* bytes of queries written to dd, each ended by
					 * '\n': a count that only grows, byte k at
					 * dd[k % PKS_DD_POOL] (pks_ctl_queries()) */
	char dd[PKS_DD_POOL];
};
_Static_assert((PKS_DD_POOL & (PKS_DD_POOL - 1)) == 0, "a request's queries wrap at a power of two");

/* What the process says of itself; written by the process only. */
struct pks_ctl_state {
	uint32_t reopen_done;		/* req.reopen as last applied */
	uint32_t dd_done;		/* req.dd_len as last applied */
	uint32_t dd_used;		/* bytes of the words of the rules in force */
	int32_t level, default_level, format, defer, nrules;
	int32_t nout;
	struct {
		int32_t kind, fd;
		uint64_t lost;		/* lines lost on this output */
		int32_t lost_errno;
		char path[PKS_PATH_MAX];
	} out[PKS_OUTPUTS_MAX];
	char dyndbg[PKS_DD_POOL];	/* PRINTK_SHIM_DYNDBG as started with */
	char program[64];
};

/*
 * The file's head, mapped over the module's own pks_ctl_area, so that the
 * per-call check is one load of ask at a link-time address.
 */
enum { PKS_CTL_AWAKE = 0, PKS_CTL_IDLE = 2 };	/* pks_ctl_page.sleep, as defer/internal.h's */

struct pks_ctl_page {
	/*
	 * Requests not yet applied: the command adds 1 after writing its
	 * request (release; pairs with the acquire load in the module's
	 * pks_control_apply()); the process takes back what it applied.
	 * Not 0: something is asked.
	 */
	_Atomic uint64_t ask;
	_Atomic int32_t sleep;		/* the deferred printer's futex word, shared:
					 * PKS_CTL_AWAKE, or asleep; PKS_CTL_IDLE once
					 * its ring stayed empty (idle or ended) */
	_Atomic uint32_t flushed;	/* drains the printer finished after a wake */
	uint32_t magic, version;
	int32_t pid;
	uint32_t uid;
	uint64_t start;			/* the process's start time, /proc/PID/stat field 22 */
	_Atomic uint32_t nsites;	/* sites[] claimed; a site is listed once ready */
	uint32_t sites_lost;		/* sites past PKS_CTL_SITES, not listed */
	struct pks_ctl_req req;
	struct pks_ctl_state st;
	uint64_t pidns;			/* the process's pid namespace (pks_ctl_pidns()); 0: unknown */
};

/* The head's pages whole: nothing else of the module's lies in them. */
union pks_ctl_area {
	struct pks_ctl_page p;
	char room[PKS_CTL_HEAD];
};

/*
 * The queries written to @q from count @from to @to into @text, with its
 * NUL; when some were written over, the last ones dd holds, from the first
 * that begins in it. Return: their bytes.
 */
static inline uint32_t pks_ctl_queries(const struct pks_ctl_req *q, uint32_t from, uint32_t to,
				       char *text)
{
	bool cut = to - from > sizeof(q->dd);
	uint32_t n = 0;
	const char *nl;

	for (uint32_t k = cut ? to - (uint32_t)sizeof(q->dd) : from; k != to; k++)
		text[n++] = q->dd[k % sizeof(q->dd)];
	text[n] = '\0';
	if (cut && (nl = memchr(text, '\n', n))) {
		n -= (uint32_t)(nl + 1 - text);
		memmove(text, nl + 1, n + 1);
	}
	return n;
}

#endif
