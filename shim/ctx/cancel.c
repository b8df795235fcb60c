// SPDX-License-Identifier: MIT
/*
 * Asynchronous cancellation (printk-shim(7) WHEN A LINE IS WRITTEN): a
 * thread that asks for it with pthread_setcanceltype(3), interposed, makes
 * each printk call with its cancellation deferred for the call, so that a
 * pthread_cancel() lands as the call returns, or at one of its cancellation
 * points, and never halfway through a line, a context or a record of the
 * deferred ring (whose printer would wait for that record for ever). From
 * the first such request on, every call of the process goes the usual way,
 * where the hold is made (config/drop.h's quick tests are disarmed).
 * Thread-safety: the type is the thread's own, as the C library keeps it.
 */
#include "ctx/cancel.h"
#include "base/compiler.h"
#include "base/next.h"
#include "config/drop.h"

#include <errno.h>
#include <pthread.h>

/* The C library's pthread_setcanceltype(). */
static int set(int type, int *old)
{
	static struct pks_next next;
	int (*fn)(int, int *) = (int (*)(int, int *))pks_next("pthread_setcanceltype", &next);

	return fn ? fn(type, old) : ENOSYS;
}

/*
 * The flag goes up before the type changes, and down after: a handler's
 * printk in between is held all the same, which costs it nothing.
 */
PKS_EXPORT int pthread_setcanceltype(int type, int *old)
{
	bool was = pks_thread.cancel_async;
	int ret;

	if (type == PTHREAD_CANCEL_ASYNCHRONOUS && !was) {
		pks_drop_never();
		pks_thread.cancel_async = true;
	}
	ret = set(type, old);
	pks_thread.cancel_async = ret ? was : type == PTHREAD_CANCEL_ASYNCHRONOUS;
	return ret;
}

/**
 * pks_cancel_hold() - this thread's cancellation deferred until
 * pks_cancel_give(), and not asynchronous meanwhile: a handler's call in
 * between needs no hold of its own. Its cancellation points still act on
 * a request.
 * Return: the type to give back.
 */
int pks_cancel_hold(void)
{
	int type = PTHREAD_CANCEL_DEFERRED;

	set(PTHREAD_CANCEL_DEFERRED, &type);
	pks_thread.cancel_async = false;
	return type;
}

/**
 * pks_cancel_give() - the type that pks_cancel_hold() returned, back: a
 * request that came meanwhile ends the thread here, the call done
 */
void pks_cancel_give(int type)
{
	pks_thread.cancel_async = type == PTHREAD_CANCEL_ASYNCHRONOUS;
	set(type, NULL);
}
