/* SPDX-License-Identifier: MIT */
/*
 * DO_ONCE_LITE for ported kernel code: run a call the first time a call site
 * is reached with a true condition. The per-site flag is a static int set
 * with an atomic exchange, so exactly one thread runs the call even when
 * several reach the site at once (the kernel's plain flag may run it twice).
 * The macros use GNU statement expressions, as the kernel's do.
 * Thread-safety: yes (see above).
 */
#ifndef _LINUX_ONCE_LITE_H
#define _LINUX_ONCE_LITE_H

#include <stdbool.h>
#include <linux/pks_byteorder.h>

/* True for the first caller only, per expansion site. */
#define __ONCE_LITE_IF(condition)					\
	__extension__ ({						\
		static int pks_once_done;				\
		bool pks_once_first = false;				\
									\
		if ((condition) &&					\
		    !__atomic_exchange_n(&pks_once_done, 1,		\
					 __ATOMIC_RELAXED))		\
			pks_once_first = true;				\
		pks_once_first;						\
	})

/* Evaluates to the condition (not to "ran this time"), as in v5.13+. */
#define DO_ONCE_LITE_IF(condition, func, ...)				\
	__extension__ ({						\
		bool pks_once_cond = !!(condition);			\
									\
		if (__ONCE_LITE_IF(pks_once_cond))			\
			func(__VA_ARGS__);				\
		pks_once_cond;						\
	})

#define DO_ONCE_LITE(func, ...)						\
	DO_ONCE_LITE_IF(true, func, ##__VA_ARGS__)

#endif /* _LINUX_ONCE_LITE_H */
