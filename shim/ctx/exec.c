// SPDX-License-Identifier: MIT
/*
 * exec ends every thread at once, so before the image is replaced every
 * open line of every thread is written. Each function of the exec family is
 * interposed, since glibc's execl() and friends reach execve() through an
 * internal alias that interposing execve alone would miss. If exec fails,
 * the lines stay written and the threads' next fragments start new lines.
 * A vfork child's exec writes nothing: the lines it sees are its parent's,
 * in the parent's own memory, and stay open there (posix_spawn and system
 * reach the kernel's execve without passing here at all).
 * Thread-safety: as pks_flush_all().
 */
#include "base/compiler.h"
#include "base/next.h"
#include "base/tsan.h"
#include "config/config.h"
#include "ctx/ctx.h"
#include "defer/defer.h"

#include <alloca.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

static int missing(void)
{
	errno = ENOSYS;
	return -1;
}

/*
 * Every open line out, and the deferred ring written, its consumer word
 * kept through the exec (pks_signals_drain_held()). Return: whether it is
 * kept, for after().
 */
static bool before(void)
{
	if (!pks_config_ready() || pks_cfg.set.disable || pks_ctx_foreign())
		return false;
	pks_tsan_hide();
	pks_flush_all(PKS_FLUSH_EXEC);
	pks_tsan_show();
	return pks_signals_drain_held();	/* the open lines just went into the ring */
}

/* An exec that returned @r (it failed): the word before() kept, back. Return: @r, its errno. */
static int after(bool held, int r)
{
	if (held)
		pks_signals_let_go(true);
	return r;
}

static struct pks_next next_execve, next_execv, next_execvp, next_execvpe, next_fexecve,
		       next_execveat;

/* The C library's exec function, or one that fails with ENOSYS if there is none. */
static void *next_or_enosys(const char *name, struct pks_next *cache)
{
	void *fn = pks_next(name, cache);

	return fn ? fn : (void *)missing;
}

#define NEXT(fn) ((__typeof__(fn) *)next_or_enosys(#fn, &next_##fn))

PKS_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	bool held = before();

	return after(held, NEXT(execve)(path, argv, envp));
}

PKS_EXPORT int execv(const char *path, char *const argv[])
{
	bool held = before();

	return after(held, NEXT(execv)(path, argv));
}

PKS_EXPORT int execvp(const char *file, char *const argv[])
{
	bool held = before();

	return after(held, NEXT(execvp)(file, argv));
}

PKS_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	bool held = before();

	return after(held, NEXT(execvpe)(file, argv, envp));
}

PKS_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	bool held = before();

	return after(held, NEXT(fexecve)(fd, argv, envp));
}

PKS_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			int flags)
{
	bool held = before();

	return after(held, NEXT(execveat)(dirfd, path, argv, envp, flags));
}

/* The execl family: collect the list into an argv on the stack. */
#define COLLECT(argv, arg0, ap, envp, want_env)						\
	do {									\
		size_t n_ = 1;							\
		va_start(ap, arg0);						\
		while (va_arg(ap, const char *))				\
			n_++;							\
		va_end(ap);							\
		argv = alloca((n_ + 1) * sizeof(char *));			\
		argv[0] = (char *)arg0;						\
		va_start(ap, arg0);						\
		for (size_t i_ = 1; i_ <= n_; i_++)				\
			argv[i_] = va_arg(ap, char *);				\
		envp = want_env ? va_arg(ap, char *const *) : NULL;		\
		va_end(ap);							\
	} while (0)

/* execl and execlp: the list as an argv, then execv or execvp. */
#define EXECL(fn, vfn)								\
PKS_EXPORT int fn(const char *path, const char *arg0, ...)			\
{										\
	char **argv;								\
	char *const *envp;							\
	va_list ap;								\
	bool held;								\
										\
	COLLECT(argv, arg0, ap, envp, 0);					\
	(void)envp;								\
	held = before();							\
	return after(held, NEXT(vfn)(path, argv));				\
}

EXECL(execl, execv)
EXECL(execlp, execvp)

PKS_EXPORT int execle(const char *path, const char *arg0, ...)
{
	char **argv;
	char *const *envp;
	va_list ap;
	bool held;

	COLLECT(argv, arg0, ap, envp, 1);
	held = before();
	return after(held, NEXT(execve)(path, argv, envp));
}
