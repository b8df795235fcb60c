// SPDX-License-Identifier: MIT
/*
 * vfork(2), interposed to know its child (printk-shim(7) DEFERRED
 * PRINTING): the child runs in its parent's memory, so it must never take
 * a lock, a ring or a thread of the parent's; its lines are written at
 * once. The hook notes the calling thread's id in its thread-local storage,
 * which the child shares, and jumps to the C library's vfork with the
 * caller's frame untouched: no C function may return twice. A later look
 * that finds another thread id is the child; the same one is the parent
 * back, which forgets the note. Only where the jump is written below
 * (x86-64, AArch64); elsewhere a vfork child is known only when it would
 * start the printer (getpid() against the cached pid).
 * Thread-safety: per thread; async-signal-safe.
 */
#include "ctx/vfork.h"
#include "base/compiler.h"
#include "base/next.h"
#include "base/pid.h"

#include <unistd.h>

PKS_TLS pid_t pks_vfork_tid;

/* The C library's vfork, for the jump; fork where there is none. */
void *pks_vfork_next __attribute__((visibility("hidden")));
void pks_vfork_note(void) __attribute__((visibility("hidden"), used));

/** pks_vfork_note() - called by the vfork hook, before the C library's vfork */
void pks_vfork_note(void)
{
	static struct pks_next next;
	void *fn = pks_next("vfork", &next);

	pks_vfork_next = fn ? fn : (void *)fork;
	pks_vfork_tid = gettid();
}

/** pks_vfork_child_slow() - pks_vfork_child(), once this thread called vfork */
bool pks_vfork_child_slow(void)
{
	if (gettid() != pks_vfork_tid)
		return true;
	pks_vfork_tid = 0;	/* the parent, back */
	return false;
}

/**
 * pks_vfork_shared() - whether this process runs in its parent's memory: a
 * vfork child, noted by the hook or not (the pid cache is the parent's,
 * where a fork's child finds its page wiped). A system call: for the ends.
 */
bool pks_vfork_shared(void)
{
	return pks_vfork_child() || pks_pid() != getpid();
}

#if defined(__x86_64__)
__asm__(".text\n"
	".globl vfork\n"
	".type vfork, @function\n"
	"vfork:\n"
	"	.cfi_startproc\n"
	"	subq $8, %rsp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	call pks_vfork_note\n"
	"	addq $8, %rsp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	jmp *pks_vfork_next(%rip)\n"
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
	"	bl pks_vfork_note\n"
	"	ldp x29, x30, [sp], 16\n"
	"	.cfi_adjust_cfa_offset -16\n"
	"	.cfi_restore x29\n"
	"	.cfi_restore x30\n"
	"	adrp x16, pks_vfork_next\n"
	"	ldr x16, [x16, :lo12:pks_vfork_next]\n"
	"	br x16\n"
	"	.cfi_endproc\n"
	".size vfork, .-vfork\n");
#endif
