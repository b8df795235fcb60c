/* SPDX-License-Identifier: MIT */
/*
 * ThreadSanitizer's runtime, in a program built with it: it cannot see the
 * module's own ordering (atomics, futexes, memory handed between threads),
 * so every call the module makes of a function it intercepts is hidden from
 * it (printk-shim(7) SANITIZERS). A module built with it shows all.
 */
#ifndef PKS_BASE_TSAN_H
#define PKS_BASE_TSAN_H

#include "base/compiler.h"

#include <stdbool.h>

#if defined(__clang__) && defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PKS_TSAN_BUILD	1
#endif
#endif

#if defined(__SANITIZE_THREAD__) || defined(PKS_TSAN_BUILD)
static inline bool pks_tsan_present(void)
{
	return false;
}

static inline void pks_tsan_hide(void) {}
static inline void pks_tsan_show(void) {}
static inline int pks_tsan_swap(int n)
{
	return n;
}
#else
/*
 * The runtime's calls that every build exports: clang's, linked into the
 * program, keeps __tsan_ignore_thread_begin() to itself. The annotation
 * for writes hides reads too; __tsan_acquire() tells that it is the
 * runtime's, not a program's empty stand-ins for the annotations.
 */
extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void AnnotateIgnoreWritesBegin(const char *file, int line) __attribute__((weak));
extern void AnnotateIgnoreWritesEnd(const char *file, int line) __attribute__((weak));
extern PKS_TLS int pks_tsan_hidden;

/** pks_tsan_present() - Return: whether the program runs ThreadSanitizer. */
static inline bool pks_tsan_present(void)
{
	return __tsan_acquire != 0;
}

/** pks_tsan_hide() - this thread hidden from ThreadSanitizer until pks_tsan_show() */
static inline void pks_tsan_hide(void)
{
	if (unlikely(pks_tsan_present()) && AnnotateIgnoreWritesBegin) {
		AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
		pks_tsan_hidden++;
	}
}

/*
 * pks_tsan_show() - the last pks_tsan_hide() undone (they nest); never one
 * too many, which the runtime would stop the process for
 */
static inline void pks_tsan_show(void)
{
	if (unlikely(pks_tsan_present()) && pks_tsan_hidden > 0) {
		pks_tsan_hidden--;
		AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
	}
}

/*
 * pks_tsan_swap() - the count of pks_tsan_hide() calls in force set to @n,
 * as the runtime sets its own around a signal handler, without a call:
 * it runs each handler with nothing hidden, and puts back what was when
 * the handler returns; a handler left by siglongjmp leaves it at none.
 * Return: the count before.
 */
static inline int pks_tsan_swap(int n)
{
	int old = pks_tsan_hidden;

	pks_tsan_hidden = n;
	return old;
}
#endif

#endif
