/* SPDX-License-Identifier: MIT */
/*
 * The part of the kernel's <linux/kernel.h> that printing code reaches
 * for: <linux/printk.h>, <linux/build_bug.h>, the string functions of <linux/sprintf.h> (with
 * its PKS_NO_KERNEL_SPRINTF opt-out), and ARRAY_SIZE, min, max, min_t,
 * max_t, clamp, DIV_ROUND_UP, roundup and rounddown, each left alone if
 * the port has its own.
 * min and max compare like the kernel's only where the kernel accepts the
 * types: they do not refuse mixed types; each argument is evaluated once.
 * Thread-safety: declarations and macros only.
 */
#ifndef _LINUX_KERNEL_H
#define _LINUX_KERNEL_H

#include <linux/build_bug.h>
#include <linux/printk.h>
#include <linux/sprintf.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(arr)	(sizeof(arr) / sizeof((arr)[0]))
#endif

#ifndef DIV_ROUND_UP
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#endif

/* Locals of a name of their own at each expansion, so that min(max()) shadows none. */
#define PKS_CAT_(a, b)		a##b
#define PKS_CAT(a, b)		PKS_CAT_(a, b)
#define PKS_PICK(type_x, type_y, x, y, op, ux, uy)			\
	__extension__ ({ type_x ux = (x); type_y uy = (y); ux op uy ? ux : uy; })
#define PKS_PICK_U(tx, ty, x, y, op)					\
	PKS_PICK(tx, ty, x, y, op, PKS_CAT(pks_x, __COUNTER__), PKS_CAT(pks_y, __COUNTER__))

#ifndef roundup
#define roundup(x, y)	((((x) + ((y) - 1)) / (y)) * (y))
#endif
#ifndef rounddown
#define rounddown(x, y)	((x) - ((x) % (y)))
#endif

#ifndef min
#define min(x, y)		PKS_PICK_U(__typeof__(x), __typeof__(y), x, y, <)
#endif
#ifndef max
#define max(x, y)		PKS_PICK_U(__typeof__(x), __typeof__(y), x, y, >)
#endif
#ifndef min_t
#define min_t(type, x, y)	PKS_PICK_U(type, type, x, y, <)
#endif
#ifndef max_t
#define max_t(type, x, y)	PKS_PICK_U(type, type, x, y, >)
#endif
#ifndef clamp
#define clamp(val, lo, hi)	min(max(val, lo), hi)
#endif

#endif /* _LINUX_KERNEL_H */
