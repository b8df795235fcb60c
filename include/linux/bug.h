/* SPDX-License-Identifier: MIT */
/*
 * WARN and BUG for ported kernel code (printk-shim(7) WARN AND BUG), with
 * the kernel's report and levels: "------------[ cut here ]------------",
 * the WARN's message, "WARNING: CPU: N PID: N at file:line caller+0x.../0x...",
 * a "Call Trace:" as dump_stack() prints it, "---[ end trace
 * 0000000000000000 ]---". PID is the thread's id (the kernel's task), CPU
 * the one the thread runs on. The caller and the frames print with %pB (a
 * return address, as %pS would print the call), which printk-shim's engine
 * resolves (the module or libprintk-port); link with -rdynamic to name the
 * program's own functions.
 * Not printed: the kernel's "Modules linked in:", registers and taint.
 *
 * WARN_ON and WARN have the condition's truth as their value; the _ONCE
 * forms report once per call site (and still yield the condition); BUG
 * and BUG_ON report "kernel BUG at file:line!" at KERN_CRIT and end the
 * process with abort(), as a kernel BUG kills the task. BUILD_BUG_ON is
 * <linux/build_bug.h>'s.
 * Thread-safety: the _ONCE flags are atomic; reports of threads may interleave.
 */
#ifndef _LINUX_BUG_H
#define _LINUX_BUG_H

#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#if defined(_GNU_SOURCE)
#include <sched.h>
#endif
#include <linux/pks_byteorder.h>
#include <linux/build_bug.h>
#include <linux/once_lite.h>
#include <linux/printk.h>

#define CUT_HERE	"------------[ cut here ]------------\n"


#ifdef __cplusplus
extern "C" {
#endif

/* The thread's id where the C library tells it, else the process's. */
static inline long pks_bug_tid(void)
{
#if defined(_GNU_SOURCE) && defined(__GLIBC__) && \
	(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 30))
	return (long)gettid();
#else
	return (long)getpid();
#endif
}

static inline int pks_bug_cpu(void)
{
#if defined(_GNU_SOURCE) && defined(__GLIBC__)
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : cpu;
#else
	return 0;
#endif
}

/* "Call Trace:" from the caller of the function that calls this, at @lvl. */
static inline __attribute__((always_inline))
void pks_bug_trace(const char *lvl)
{
	pks_stack_trace(lvl, 0);
}

/*
 * The kernel's __warn() for a WARN at @file:@line, after the cut line (and
 * message); noinline, so that the caller is the function holding the WARN.
 */
static __attribute__((noinline, unused))
void pks_warn_report(const char *file, int line)
{
	printk(KERN_WARNING "WARNING: CPU: %d PID: %ld at %s:%d %pB\n",
	       pks_bug_cpu(), pks_bug_tid(), file, line, __builtin_return_address(0));
	pks_bug_trace(PKS_KERN_NEWLINE);
	printk(KERN_WARNING "---[ end trace %016llx ]---\n", 0ULL);
}

/* The kernel's report_bug() and die() for a BUG at @file:@line, then abort(). */
static __attribute__((noinline, noreturn, unused))
void pks_bug_report(const char *file, int line)
{
	printk(PKS_KERN_NEWLINE CUT_HERE);
	printk(KERN_CRIT "kernel BUG at %s:%d!\n", file, line);
	pks_bug_trace(PKS_KERN_NEWLINE);
	printk(KERN_WARNING "---[ end trace %016llx ]---\n", 0ULL);
	abort();
}

#ifdef __cplusplus
}
#endif

#define __WARN()							\
	do {								\
		printk(PKS_KERN_NEWLINE CUT_HERE);			\
		pks_warn_report(__FILE__, __LINE__);			\
	} while (0)

/* The kernel's __warn_printk(): the cut line at KERN_WARNING, then the message. */
#define __WARN_printf(...)						\
	do {								\
		printk(KERN_WARNING CUT_HERE);				\
		printk(__VA_ARGS__);					\
		pks_warn_report(__FILE__, __LINE__);			\
	} while (0)

#define WARN_ON(condition)						\
	__extension__ ({						\
		int pks_ret_warn_on = !!(condition);			\
									\
		if (__builtin_expect(pks_ret_warn_on, 0))		\
			__WARN();					\
		__builtin_expect(pks_ret_warn_on, 0);			\
	})

#define WARN(condition, ...)						\
	__extension__ ({						\
		int pks_ret_warn_on = !!(condition);			\
									\
		if (__builtin_expect(pks_ret_warn_on, 0))		\
			__WARN_printf(__VA_ARGS__);			\
		__builtin_expect(pks_ret_warn_on, 0);			\
	})

#define WARN_ON_ONCE(condition)						\
	__extension__ ({						\
		int pks_ret_warn_on = !!(condition);			\
									\
		if (__builtin_expect(pks_ret_warn_on, 0) &&		\
		    __ONCE_LITE_IF(true))				\
			__WARN();					\
		__builtin_expect(pks_ret_warn_on, 0);			\
	})

#define WARN_ONCE(condition, ...)					\
	__extension__ ({						\
		int pks_ret_warn_on = !!(condition);			\
									\
		if (__builtin_expect(pks_ret_warn_on, 0) &&		\
		    __ONCE_LITE_IF(true))				\
			__WARN_printf(__VA_ARGS__);			\
		__builtin_expect(pks_ret_warn_on, 0);			\
	})

#define BUG()		pks_bug_report(__FILE__, __LINE__)
#define BUG_ON(condition)						\
	do {								\
		if (__builtin_expect(!!(condition), 0))		\
			BUG();						\
	} while (0)

#endif /* _LINUX_BUG_H */
