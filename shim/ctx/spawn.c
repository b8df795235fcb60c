// SPDX-License-Identifier: MIT
/*
 * A child about to start that shares this process's descriptors: the lines
 * in the deferred ring are written first, so that they come before anything
 * the child writes there, and it inherits none (printk-shim(7) DEFERRED
 * PRINTING). Before a fork (ctx.c's prepare handler); in the vfork hook;
 * in _Fork, which runs no fork handler; and in posix_spawn, posix_spawnp,
 * system and popen, which start their child inside the C library, where
 * no fork handler runs either. _Fork's child, which goes on in the
 * program, runs the contexts' fork child handler itself (ctx.c hands it
 * over): it forgets its parent's thread and open lines as a fork's does.
 * The vfork hook also notes the calling thread (vfork.c), and jumps to the
 * C library's vfork with the caller's frame untouched: no C function may
 * return twice. Only where the jump is written below (x86-64, AArch64).
 * Thread-safety: as pks_signals_drain(); never in a child that shares the
 * parent's memory, whose ring is the parent's.
 */
#include "ctx/spawn.h"
#include "base/compiler.h"
#include "base/next.h"
#include "ctx/signals.h"
#include "ctx/vfork.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/** pks_spawn_prepare() - the deferred ring written before a child starts */
void pks_spawn_prepare(void)
{
	if (!pks_vfork_shared())
		pks_signals_drain();
}

typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

/* The C library's @name through @cache, or NULL (each caller says ENOSYS its way). */
static void *next(const char *name, struct pks_next *cache)
{
	pks_spawn_prepare();
	return pks_next(name, cache);
}

PKS_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *acts,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	static struct pks_next cache;
	spawn_fn *fn = (spawn_fn *)next("posix_spawn", &cache);

	return fn ? fn(pid, path, acts, attr, argv, envp) : ENOSYS;
}

PKS_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *acts,
			    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	static struct pks_next cache;
	spawn_fn *fn = (spawn_fn *)next("posix_spawnp", &cache);

	return fn ? fn(pid, file, acts, attr, argv, envp) : ENOSYS;
}

/*
 * _Fork is async-signal-safe: its function is looked up at start
 * (pks_spawn_setup()), never in a handler.
 */
static struct pks_next next_fork;

/** pks_spawn_setup() - at start: the C library's _Fork */
void pks_spawn_setup(void)
{
	pks_next("_Fork", &next_fork);
}

/* What a fork child's handler does to the contexts (pks_spawn_child_op()), or NULL. */
static void (*child_op)(void);

/**
 * pks_spawn_child_op() - from ctx.c, once: its fork child handler, which
 * _Fork's child runs too, as no fork handler runs there
 */
void pks_spawn_child_op(void (*child)(void))
{
	__atomic_store_n(&child_op, child, __ATOMIC_RELEASE);	/* pairs with _Fork()'s acquire */
}

PKS_EXPORT pid_t _Fork(void)
{
	pid_t (*fn)(void) = (pid_t (*)(void))next("_Fork", &next_fork);
	void (*child)(void);
	pid_t pid;
	int saved;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	pid = fn();
	/* acquire: pairs with pks_spawn_child_op()'s release */
	if (pid == 0 && (child = __atomic_load_n(&child_op, __ATOMIC_ACQUIRE))) {
		saved = errno;
		child();
		errno = saved;
	}
	return pid;
}

PKS_EXPORT int system(const char *command)
{
	static struct pks_next cache;
	int (*fn)(const char *) = (int (*)(const char *))next("system", &cache);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(command);
}

PKS_EXPORT FILE *popen(const char *command, const char *type)
{
	static struct pks_next cache;
	FILE *(*fn)(const char *, const char *) =
		(FILE *(*)(const char *, const char *))next("popen", &cache);

	if (!fn) {
		errno = ENOSYS;
		return NULL;
	}
	return fn(command, type);
}

/* The C library's vfork, for the jump; fork where there is none. */
void *pks_spawn_next __attribute__((visibility("hidden")));
void pks_spawn_note(void) __attribute__((visibility("hidden"), used));

/**
 * pks_spawn_note() - called by the vfork hook, before the C library's
 * vfork: the deferred ring written first, as before a fork, and the
 * calling thread noted (vfork.c)
 */
void pks_spawn_note(void)
{
	static struct pks_next next;
	void *fn = pks_next("vfork", &next);

	pks_spawn_prepare();
	pks_spawn_next = fn ? fn : (void *)fork;
	pks_thread.vfork_tid = gettid();
}

#if defined(__x86_64__)
__asm__(".text\n"
	".globl vfork\n"
	".type vfork, @function\n"
	"vfork:\n"
	"	.cfi_startproc\n"
	"	subq $8, %rsp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	call pks_spawn_note\n"
	"	addq $8, %rsp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	jmp *pks_spawn_next(%rip)\n"
	"	.cfi_endproc\n"
	".size vfork, .-vfork\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl vfork\n"
	".type vfork, %function\n"
	"vfork:\n"
	"	.cfi_startproc\n"
	"	stp x29, x30, [sp, -16]!\n"
	"	.cfi_adjust_cfa_offset 16\n"
	"	.cfi_rel_offset x29, 0\n"
	"	.cfi_rel_offset x30, 8\n"
	"	bl pks_spawn_note\n"
	"	ldp x29, x30, [sp], 16\n"
	"	.cfi_adjust_cfa_offset -16\n"
	"	.cfi_restore x29\n"
	"	.cfi_restore x30\n"
	"	adrp x16, pks_spawn_next\n"
	"	ldr x16, [x16, :lo12:pks_spawn_next]\n"
	"	br x16\n"
	"	.cfi_endproc\n"
	".size vfork, .-vfork\n");
#endif
