/* SPDX-License-Identifier: MIT */
/*
 * Whether the calling code runs in a vfork child: in its parent's memory,
 * on its parent's stack and thread-local storage, the parent stopped.
 */
#ifndef PKS_CTX_VFORK_H
#define PKS_CTX_VFORK_H

#include "base/compiler.h"
#include "ctx/thread.h"

#include <stdbool.h>
#include <sys/types.h>

bool pks_vfork_child_slow(void);
bool pks_vfork_shared(void);

/**
 * pks_vfork_child() - Return: whether this is a vfork child. Outside the
 * moments after a vfork of this thread, a load is all it costs.
 */
static inline bool pks_vfork_child(void)
{
	return unlikely(pks_thread.vfork_tid != 0) && pks_vfork_child_slow();
}

#endif
