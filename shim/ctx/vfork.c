// SPDX-License-Identifier: MIT
/*
 * Whether code runs in a vfork child (printk-shim(7) DEFERRED PRINTING):
 * the child runs in its parent's memory, so it must never take a lock, a
 * ring or a thread of the parent's; its lines are written at once. The
 * vfork hook (spawn.c) notes the calling thread's id in its thread-local
 * storage, which the child shares: a later look that finds another thread
 * id is the child; the same one is the parent back, which forgets the
 * note. Where there is no hook, a vfork child is known only when it would
 * start the printer (getpid() against the cached pid).
 * Thread-safety: per thread; async-signal-safe.
 */
#include "ctx/vfork.h"
#include "base/compiler.h"
#include "base/pid.h"

#include <unistd.h>


/** pks_vfork_child_slow() - pks_vfork_child(), once this thread called vfork */
bool pks_vfork_child_slow(void)
{
	if (gettid() != pks_thread.vfork_tid)
		return true;
	pks_thread.vfork_tid = 0;	/* the parent, back */
	return false;
}

/**
 * pks_vfork_shared() - whether this process runs in its parent's memory: a
 * vfork child, noted by the hook or not (the pid cache is the parent's,
 * where a fork's child finds its page wiped). A system call: for the ends.
 */
bool pks_vfork_shared(void)
{
	return pks_vfork_child() || pks_pid_differs(pks_pid());
}
