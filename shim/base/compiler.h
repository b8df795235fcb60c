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
/*
 * On each extern declaration of the module's own data: -fvisibility=hidden
 * hides definitions only, and code built for a shared object reads a
 * default declaration's address from the GOT, one load more an access
 * (the linker turns it into a lea, but keeps the instruction).
 */
#define PKS_LOCAL	__attribute__((visibility("hidden")))
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

/*
 * States that must not happen. PKS_WARN_ON_ONCE(cond) is cond; in a build
 * configured with --enable-checked (-DPKS_CHECKED), a true cond also writes
 * "printk-shim: file:line: WARN_ON_ONCE(cond)" to stderr, once per site,
 * with write(2) alone, so it is safe in a signal handler; errno is kept.
 * It never stops the program: the module lives in someone else's process.
 * Elsewhere it is 0: nothing, yet cond still type-checks.
 */
#ifdef PKS_CHECKED
#include <errno.h>
#include <unistd.h>
static inline void pks_warn_once(const char *msg, unsigned long len,
				 unsigned char *once)
{
	int saved = errno;

	/*
	 * Two threads may both see 0; exchange lets one of them write.
	 * No pair: the flag guards no other data.
	 */
	if (!__atomic_exchange_n(once, 1, __ATOMIC_RELAXED)) {
		ssize_t r = write(2, msg, len);
		(void)r;
	}
	errno = saved;
}
#define PKS_STR2(x)	#x
#define PKS_STR(x)	PKS_STR2(x)
#define PKS_WARN_ON_ONCE(cond) ({					\
	static unsigned char pks_once_;					\
	static const char pks_msg_[] = "printk-shim: " __FILE__ ":"	\
		PKS_STR(__LINE__) ": WARN_ON_ONCE(" #cond ")\n";	\
	int pks_c_ = !!(cond);						\
	if (unlikely(pks_c_))						\
		pks_warn_once(pks_msg_, sizeof(pks_msg_) - 1, &pks_once_); \
	pks_c_;								\
})
#else
/* sizeof: cond type-checks but is never run; ({ }): unused, no warning */
#define PKS_WARN_ON_ONCE(cond)	({ (void)sizeof(!!(cond)); 0; })
#endif

#endif
