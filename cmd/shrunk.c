// SPDX-License-Identifier: MIT
/*
 * A mapped file cut short while the command reads it (--index, --check,
 * --dyndbg-list): the pages past its new end fault with SIGBUS. Each is
 * replaced by a page of zeros and the read goes on where it was, in the
 * middle of whatever call made it; the caller asks afterwards whether
 * that happened and says so beside the file's result.
 */
#include "cmd/shrunk.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile sig_atomic_t seen;
static uintptr_t page;

/*
 * BUS_ADRERR: past the end of a file mapping, the only kind the command
 * makes. Anything else, or no page to put there, ends the process as
 * SIGBUS would have: the default action, met again as the handler returns.
 */
static void fault(int sig, siginfo_t *si, void *uc)
{
	int err = errno;
	void *at = (void *)((uintptr_t)si->si_addr & ~(page - 1));

	(void)uc;
	if (si->si_code == BUS_ADRERR &&
	    mmap(at, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
		seen = 1;
	else
		signal(sig, SIG_DFL);
	errno = err;
}

/** pks_shrunk_watch() - from now on, a file cut short while read faults into zeros */
void pks_shrunk_watch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	page = (uintptr_t)sysconf(_SC_PAGESIZE);
	sa.sa_sigaction = fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

/** pks_shrunk_seen() - Return: whether a file was cut short since the last call. */
bool pks_shrunk_seen(void)
{
	bool was = seen;

	seen = 0;
	return was;
}
