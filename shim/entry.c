// SPDX-License-Identifier: MIT
/*
 * The exported printk entry points, with the kernel's prototypes. Each is
 * one call into pks_emit(); all policy lives behind it. Each also has a
 * hidden alias, NAME_here, whose address is always this object's own (the
 * GOT's may be the executable's, see patch.c). The other exported
 * names are hooks, in signals.c and exec.c, listed in printk-shim.map with
 * the reason each is there.
 */
#include "base/compiler.h"
#include "emit.h"
#include "entry.h"

#define RET_ADDR __builtin_return_address(0)

PKS_EXPORT int printk(const char *fmt, ...);
PKS_EXPORT int _printk(const char *fmt, ...);
PKS_EXPORT int printk_deferred(const char *fmt, ...);
PKS_EXPORT int _printk_deferred(const char *fmt, ...);
PKS_EXPORT int vprintk(const char *fmt, va_list ap);

#define VARIADIC(fn, sym)						\
PKS_EXPORT PKS_HOT int fn(const char *fmt, ...)					\
{									\
	va_list ap;							\
	int r;								\
									\
	va_start(ap, fmt);						\
	r = pks_emit(sym, fmt, ap, RET_ADDR);				\
	va_end(ap);							\
	return r;							\
}									\
__typeof__(fn) fn##_here PKS_HOT __attribute__((alias(#fn), visibility("hidden")));

VARIADIC(printk, PKS_SYM_PRINTK)
VARIADIC(_printk, PKS_SYM__PRINTK)
VARIADIC(printk_deferred, PKS_SYM_PRINTK_DEFERRED)
VARIADIC(_printk_deferred, PKS_SYM__PRINTK_DEFERRED)

PKS_EXPORT int vprintk(const char *fmt, va_list ap)
{
	return pks_emit(PKS_SYM_VPRINTK, fmt, ap, RET_ADDR);
}
__typeof__(vprintk) vprintk_here __attribute__((alias("vprintk"), visibility("hidden")));

#define SYM(fn, va)	{ #fn, (void *)fn, (void *)fn##_here, va }

const struct pks_sym pks_syms[PKS_NSYMS] = {
	[PKS_SYM_PRINTK] = SYM(printk, false),
	[PKS_SYM__PRINTK] = SYM(_printk, false),
	[PKS_SYM_PRINTK_DEFERRED] = SYM(printk_deferred, false),
	[PKS_SYM__PRINTK_DEFERRED] = SYM(_printk_deferred, false),
	[PKS_SYM_VPRINTK] = SYM(vprintk, true),
};
