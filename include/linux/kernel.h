/* SPDX-License-Identifier: MIT */
/*
 * The part of the kernel's <linux/kernel.h> that printing code reaches
 * for: <linux/printk.h>, <linux/build_bug.h>, the string functions of <linux/sprintf.h> (with
 * its PKS_NO_KERNEL_SPRINTF opt-out), and ARRAY_SIZE, min, max, min_t,
 * max_t, clamp, DIV_ROUND_UP, roundup and rounddown, each left alone if
 * the port has its own.
 * min and max compare like the kernel's only where the kernel accepts the
 * types: they do not refuse mixed types, and compare in the type the two
 * add up to; each argument is evaluated once. In C++ they are functions.
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
/* compared and picked in the type they add up to: mixed signs warn of nothing */
#define PKS_PICK(type_x, type_y, x, y, op, ux, uy)			\
	__extension__ ({ type_x ux = (x); type_y uy = (y);		\
		(__typeof__(ux + uy))ux op (__typeof__(ux + uy))uy ?	\
		(__typeof__(ux + uy))ux : (__typeof__(ux + uy))uy; })
#define PKS_PICK_U(tx, ty, x, y, op)					\
	PKS_PICK(tx, ty, x, y, op, PKS_CAT(pks_x, __COUNTER__), PKS_CAT(pks_y, __COUNTER__))

#ifndef roundup
#define roundup(x, y)	((((x) + ((y) - 1)) / (y)) * (y))
#endif
#ifndef rounddown
#define rounddown(x, y)	((x) - ((x) % (y)))
#endif

#if defined(__cplusplus) && __cplusplus >= 201103L && !defined(min) && !defined(max)
/*
 * C++: functions, not macros. The C++ library undefines a macro min and
 * max (any of its headers, after this one), and its own std::min,
 * std::clamp and numeric_limits<T>::max() would not survive one (before it).
 */
template <typename X, typename Y>
static inline auto min(X x, Y y) -> decltype(x + y)
{
	return (decltype(x + y))x < (decltype(x + y))y ? (decltype(x + y))x : (decltype(x + y))y;
}
template <typename X, typename Y>
static inline auto max(X x, Y y) -> decltype(x + y)
{
	return (decltype(x + y))x > (decltype(x + y))y ? (decltype(x + y))x : (decltype(x + y))y;
}
#ifndef clamp
template <typename V, typename L, typename H>
static inline auto clamp(V val, L lo, H hi) -> decltype(min(max(val, lo), hi))
{
	return min(max(val, lo), hi);
}
#endif
#elif !defined(__cplusplus)
#ifndef min
#define min(x, y)		PKS_PICK_U(__typeof__(x), __typeof__(y), x, y, <)
#endif
#ifndef max
#define max(x, y)		PKS_PICK_U(__typeof__(x), __typeof__(y), x, y, >)
#endif
#endif
#ifndef min_t
#define min_t(type, x, y)	PKS_PICK_U(type, type, x, y, <)
#endif
#ifndef max_t
#define max_t(type, x, y)	PKS_PICK_U(type, type, x, y, >)
#endif
#if !defined(clamp) && !defined(__cplusplus)
#define clamp(val, lo, hi)	min(max(val, lo), hi)
#endif

#endif /* _LINUX_KERNEL_H */
