// SPDX-License-Identifier: MIT
/*
 * The exported printk entry points, with the kernel's prototypes, and
 * dynamic debug's for code built with our headers. Each is one call down
 * (pks_emit() for the printk family); all policy lives behind it. Each also has a
 * hidden alias, NAME_here, whose address is always this object's own (the
 * GOT's may be the executable's, see patch.c). The other exported
 * names are hooks, in ctx/ and dlclose() here, listed in printk-shim.map
 * with the reason each is there.
 */
#include "entry.h"
#include "control.h"
#include "dyndbg.h"
#include "emit.h"
#include "base/compiler.h"
#include "base/next.h"
#include "base/tsan.h"
#include "elf/name.h"
#include "ctl/ctl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>

#define RET_ADDR __builtin_return_address(0)

PKS_EXPORT int printk(const char *fmt, ...);
PKS_EXPORT int _printk(const char *fmt, ...);
PKS_EXPORT int printk_deferred(const char *fmt, ...);
PKS_EXPORT int _printk_deferred(const char *fmt, ...);
PKS_EXPORT int vprintk(const char *fmt, va_list ap);
PKS_EXPORT int pks_dynamic_printk(const struct pks_ddebug *d, const char *fmt, ...);
PKS_EXPORT void pks_dynamic_register(struct pks_ddebug *start, struct pks_ddebug *stop);
PKS_EXPORT void pks_dynamic_classes(struct pks_ddebug *sites, struct pks_ddebug_class_map *start,
				    struct pks_ddebug_class_map *stop);
PKS_EXPORT const volatile unsigned long long *pks_dynamic_control(void);
PKS_EXPORT void pks_dynamic_apply(void);

#define VARIADIC(fn, sym)						\
PKS_EXPORT PKS_HOT int fn(const char *fmt, ...)					\
{									\
	va_list ap;							\
	int r;								\
									\
	va_start(ap, fmt);						\
	r = pks_emit(&pks_syms[sym], fmt, ap, RET_ADDR);				\
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
	return pks_emit(&pks_syms[PKS_SYM_VPRINTK], fmt, ap, RET_ADDR);
}
__typeof__(vprintk) vprintk_here __attribute__((alias("vprintk"), visibility("hidden")));

#define SYM(id, fn, va)	[id] = { id, #fn, (void *)fn, (void *)fn##_here, va }

const struct pks_sym pks_syms[PKS_NSYMS] = {
	SYM(PKS_SYM_PRINTK, printk, false),
	SYM(PKS_SYM__PRINTK, _printk, false),
	SYM(PKS_SYM_PRINTK_DEFERRED, printk_deferred, false),
	SYM(PKS_SYM__PRINTK_DEFERRED, _printk_deferred, false),
	SYM(PKS_SYM_VPRINTK, vprintk, true),
};

/*
 * Dynamic debug's entry points, which code built with our headers reaches
 * through weak references (include/linux/dynamic_debug.h); dyndbg.c keeps
 * the sites and decides, control.c applies what printk-shim --pid asked.
 */

/**
 * pks_dynamic_printk() - an enabled call site of code built with our headers
 * @d: its descriptor; @fmt: the format after pr_fmt() and any device prefix
 * Return: as printk().
 */
int pks_dynamic_printk(const struct pks_ddebug *d, const char *fmt, ...)
{
	int saved = errno, r = 0;
	bool asked = pks_ctl_asked();
	struct pks_dd_site s;
	va_list ap;

	pks_tsan_hide();
	s = pks_dyndbg_site(d);
	if (unlikely(asked))
		pks_control_apply();	/* a query may have turned the site off */
	/* no pair: a site's flags are a word of their own, read relaxed as
	 * <linux/dynamic_debug.h> reads them (and below) */
	if (likely(!asked) || (__atomic_load_n(&d->flags, __ATOMIC_RELAXED) & PKS_DD_PRINT)) {
		va_start(ap, fmt);
		/* no pair: the flags, read relaxed as above */
		r = pks_emit_decorated(&pks_syms[PKS_SYM_PRINTK],
				       __atomic_load_n(&d->flags, __ATOMIC_RELAXED), &s, fmt, ap,
				       RET_ADDR);
		va_end(ap);
	}
	pks_tsan_show();
	errno = saved;
	return r;
}

/**
 * pks_dynamic_register() - an object's descriptors, [@start, @stop), from
 * each of its translation units' constructors (pks_dyndbg_register()),
 * under the rules as the command left them
 */
void pks_dynamic_register(struct pks_ddebug *start, struct pks_ddebug *stop)
{
	int saved = errno;

	pks_tsan_hide();
	if (unlikely(pks_ctl_asked()))
		pks_control_apply();
	errno = saved;
	pks_dyndbg_register(start, stop);
	pks_tsan_show();
}

/** pks_dynamic_classes() - an object's class maps, before its sites (pks_dyndbg_classes()) */
void pks_dynamic_classes(struct pks_ddebug *sites, struct pks_ddebug_class_map *start,
			 struct pks_ddebug_class_map *stop)
{
	pks_tsan_hide();
	pks_dyndbg_classes(sites, start, stop);
	pks_tsan_show();
}

/**
 * pks_dynamic_control() - Return: the word a disabled site of code built
 * with our headers reads for a pending request (pks_ctl_asked()); its
 * address is fixed, the control file mapped over it or not.
 */
const volatile unsigned long long *pks_dynamic_control(void)
{
	_Static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "the ask word");
	return (const volatile unsigned long long *)&pks_ctl_area.p.ask;
}

/** pks_dynamic_apply() - a disabled site saw a request pending: apply it */
void pks_dynamic_apply(void)
{
	int saved = errno;

	if (pks_ctl_asked()) {
		pks_tsan_hide();
		pks_control_apply();
		pks_tsan_show();
	}
	errno = saved;
}

/*
 * An object closed may be unmapped and another loaded at its address: the
 * decisions dynamic debug keeps by return address (dyndbg.c) and the names
 * the outputs keep by address (sink.c) are made again after it
 * (pks_elf_era()).
 */
PKS_EXPORT int dlclose(void *handle)
{
	static struct pks_next next;
	int (*fn)(void *) = (int (*)(void *))pks_next("dlclose", &next);
	int r;

	if (!fn)
		return -1;	/* never: the C library has one */
	r = fn(handle);
	if (r == 0)
		pks_elf_closed();
	return r;
}
