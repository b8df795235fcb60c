/* SPDX-License-Identifier: MIT */
/*
 * Attributes shared by every file of the module. Only entry.c and the hooks
 * in lifecycle.c use PKS_EXPORT; everything else is hidden by
 * -fvisibility=hidden and, behind that, by printk-shim.map.
 */
#ifndef PKS_COMPILER_H
#define PKS_COMPILER_H

#define PKS_EXPORT	__attribute__((visibility("default")))
#define PKS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define PKS_TLS		__thread __attribute__((tls_model("initial-exec")))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define PKS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The functions every printk call runs: the linker groups them (.text.hot),
 * so that a call touches few pages of code, which counts on a machine where
 * each system call empties the TLB.
 */
#define PKS_HOT		__attribute__((hot))

/*
 * Helgrind does not see the ordering that C11 atomics give, so the places
 * where a context or a thread's node changes hands are named to it. Only
 * the copy of the module that make check-valgrind builds has them
 * (-DPKS_HELGRIND); everywhere else they are nothing.
 */
#ifdef PKS_HELGRIND
#include <valgrind/helgrind.h>
#define PKS_HB_BEFORE(p)	ANNOTATE_HAPPENS_BEFORE(p)
#define PKS_HB_AFTER(p)		ANNOTATE_HAPPENS_AFTER(p)
#define PKS_HB_BENIGN(p)	VALGRIND_HG_DISABLE_CHECKING(p, sizeof(*(p)))
#else
#define PKS_HB_BEFORE(p)	((void)0)
#define PKS_HB_AFTER(p)		((void)0)
#define PKS_HB_BENIGN(p)	((void)0)
#endif

#endif
