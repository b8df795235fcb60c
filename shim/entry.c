// SPDX-License-Identifier: MIT
/*
 * The exported printk entry points, with the kernel's prototypes. Each is
 * one call into pks_emit(); all policy lives behind it. The other exported
 * names are hooks, in signals.c and exec.c, listed in printk-shim.map with
 * the reason each is there.
 */
#include "compiler.h"
#include "emit.h"

#define RET_ADDR __builtin_return_address(0)

PKS_EXPORT int printk(const char *fmt, ...);
PKS_EXPORT int _printk(const char *fmt, ...);
PKS_EXPORT int printk_deferred(const char *fmt, ...);
PKS_EXPORT int _printk_deferred(const char *fmt, ...);
PKS_EXPORT int vprintk(const char *fmt, va_list ap);

#define VARIADIC(fn, sym)						\
PKS_EXPORT int fn(const char *fmt, ...)					\
{									\
	va_list ap;							\
	int r;								\
									\
	va_start(ap, fmt);						\
	r = pks_emit(sym, fmt, ap, RET_ADDR);				\
	va_end(ap);							\
	return r;							\
}

VARIADIC(printk, PKS_SYM_PRINTK)
VARIADIC(_printk, PKS_SYM__PRINTK)
VARIADIC(printk_deferred, PKS_SYM_PRINTK_DEFERRED)
VARIADIC(_printk_deferred, PKS_SYM__PRINTK_DEFERRED)

PKS_EXPORT int vprintk(const char *fmt, va_list ap)
{
	return pks_emit(PKS_SYM_VPRINTK, fmt, ap, RET_ADDR);
}

const struct pks_sym pks_syms[PKS_NSYMS] = {
	[PKS_SYM_PRINTK] = { "printk", (void *)printk, false },
	[PKS_SYM__PRINTK] = { "_printk", (void *)_printk, false },
	[PKS_SYM_PRINTK_DEFERRED] = { "printk_deferred", (void *)printk_deferred, false },
	[PKS_SYM__PRINTK_DEFERRED] = { "_printk_deferred", (void *)_printk_deferred, false },
	[PKS_SYM_VPRINTK] = { "vprintk", (void *)vprintk, true },
};
