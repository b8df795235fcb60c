/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous cancellation held off for the length of a printk call:
 * whether this thread asked for it, and the hold around the call.
 */
#ifndef PKS_CTX_CANCEL_H
#define PKS_CTX_CANCEL_H

#include "ctx/thread.h"

#include <stdbool.h>

int pks_cancel_hold(void);
void pks_cancel_give(int type);

/** pks_cancel_async() - Return: whether this thread's cancellation is asynchronous */
static inline bool pks_cancel_async(void)
{
	return pks_thread.cancel_async;
}

#endif
