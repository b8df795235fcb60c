/* SPDX-License-Identifier: MIT */
/*
 * Compile-time checks, as the kernel's <linux/build_bug.h> (which its
 * <linux/kernel.h> and <linux/bug.h> include): BUILD_BUG_ON refuses a true
 * constant condition, BUILD_BUG_ON_ZERO is 0 or refused, BUILD_BUG_ON_MSG
 * takes a message it cannot show (the array size error is what the
 * compiler says).
 * Thread-safety: compile time only.
 */
#ifndef _LINUX_BUILD_BUG_H
#define _LINUX_BUILD_BUG_H

#include <linux/pks_byteorder.h>

#ifdef __cplusplus	/* no type may be defined in sizeof */
#define BUILD_BUG_ON_ZERO(e)	((int)(sizeof(char[1 - 2 * !!(e)]) - 1))
#else
#define BUILD_BUG_ON_ZERO(e)	((int)(sizeof(struct { int:(-!!(e)); })))
#endif
#define BUILD_BUG_ON(condition)	((void)sizeof(char[1 - 2 * !!(condition)]))
#define BUILD_BUG_ON_MSG(condition, msg)	BUILD_BUG_ON(condition)

#endif /* _LINUX_BUILD_BUG_H */
