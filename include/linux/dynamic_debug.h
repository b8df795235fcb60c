/* SPDX-License-Identifier: MIT */
/*
 * Dynamic debug for ported kernel code (printk-shim(7) DYNAMIC DEBUG): each
 * pr_debug, dev_dbg, netdev_dbg and print_hex_dump_debug call site has a
 * struct _ddebug in section __dyndbg, as in the kernel, whose flags say
 * whether it prints (p) and how it is decorated. A disabled site costs one
 * load and one branch predicted not taken, and no call; then, so that a
 * query written by printk-shim --dyndbg while the program runs reaches it
 * (printk-shim(7) RUNTIME CONTROL), a second load and branch: whether the
 * command asked for something the process has not applied yet.
 *
 * The flags start as _DPRINTK_FLAGS_DEFAULT: p with DEBUG defined before
 * this header, none without. printk-shim changes them once, before the
 * object's code runs: each translation unit has a constructor that hands
 * its object's __dyndbg section (the linker's hidden __start___dyndbg and
 * __stop___dyndbg, one pair per executable or shared object, dlopen'ed
 * ones included) to pks_dynamic_register(). An enabled site calls
 * pks_dynamic_printk(), which decorates the line. Both are weak
 * references: without printk-shim, nothing is registered and an enabled
 * site calls printk(KERN_DEBUG ...), so a port still links against nothing
 * but the library that defines printk.
 *
 * The descriptor's format is the one written at the call site, before
 * pr_fmt() and the dev_* and netdev_* prefixes (dev_dbg's after dev_fmt()),
 * as the kernel records it;
 * its modname is KBUILD_MODNAME if defined, else NULL, and printk-shim then
 * names the object (its file name up to the first '.').
 * Thread-safety: the flags are read with a relaxed atomic load; they are
 * written only while the object is being loaded.
 */
#ifndef _DYNAMIC_DEBUG_H
#define _DYNAMIC_DEBUG_H

#include <linux/pks_byteorder.h>
#include <linux/kern_levels.h>

/*
 * lineno and class_id share a word, as in the kernel (6.1 and later); a
 * descriptor of headers without classes has class_id 0 there, which
 * printk-shim reads as the default class in an object without class maps.
 */
struct _ddebug {
	const char *modname;
	const char *function;
	const char *filename;
	const char *format;
	unsigned int lineno:18;
#define CLS_BITS 6
	unsigned int class_id:CLS_BITS;
#define _DPRINTK_CLASS_DFLT		((1 << CLS_BITS) - 1)
	unsigned int flags;
} __attribute__((aligned(8)));

/* How a class map's classes are set through its module parameter (kernel-doc there). */
enum class_map_type {
	DD_CLASS_TYPE_DISJOINT_BITS,
	DD_CLASS_TYPE_LEVEL_NUM,
	DD_CLASS_TYPE_DISJOINT_NAMES,
	DD_CLASS_TYPE_LEVEL_NAMES
};

/*
 * One DECLARE_DYNDBG_CLASSMAP: class @base + i is named @class_names[i].
 * The kernel's list link and module pointer are not here; the fields are
 * in this order, in section __dyndbg_classes.
 */
struct ddebug_class_map {
	const char *mod_name;
	const char **class_names;
	int length;
	int base;
	enum class_map_type map_type;
} __attribute__((aligned(8)));

/* A module parameter's view of a class map (the kernel's drm.debug). */
struct ddebug_class_param {
	__extension__ union {
		unsigned long *bits;
		unsigned int *lvl;
	};
	char flags[8];
	const struct ddebug_class_map *map;
};

#define NUM_TYPE_ARGS(eltype, ...)					\
	(sizeof((eltype[]){ __VA_ARGS__ }) / sizeof(eltype))

/*
 * The class names a module's pr_debug_cls sites use, classes @_base
 * onwards: "class NAME" in a query selects them (printk-shim(7) DYNAMIC
 * DEBUG). GNU C or C++: the names' count is taken from a compound literal
 * in C, from the array in C++.
 */
#ifdef __cplusplus
#define PKS_CLASS_COUNT(_var, ...)					\
	((int)(sizeof(_var##_classnames) / sizeof(_var##_classnames[0])))
#else
#define PKS_CLASS_COUNT(_var, ...)	((int)NUM_TYPE_ARGS(const char *, __VA_ARGS__))
#endif
#define DECLARE_DYNDBG_CLASSMAP(_var, _maptype, _base, ...)		\
	static const char *_var##_classnames[] = { __VA_ARGS__ };	\
	static struct ddebug_class_map _var				\
	__attribute__((used, section("__dyndbg_classes"), aligned(8))) = { \
		PKS_DDEBUG_MODNAME, _var##_classnames,			\
		PKS_CLASS_COUNT(_var, __VA_ARGS__), (_base), (_maptype) }

#define _DPRINTK_FLAGS_NONE		0
#define _DPRINTK_FLAGS_PRINT		(1 << 0)
#define _DPRINTK_FLAGS_INCL_MODNAME	(1 << 1)
#define _DPRINTK_FLAGS_INCL_FUNCNAME	(1 << 2)
#define _DPRINTK_FLAGS_INCL_LINENO	(1 << 3)
#define _DPRINTK_FLAGS_INCL_TID		(1 << 4)
#define _DPRINTK_FLAGS_INCL_SOURCENAME	(1 << 5)
#define _DPRINTK_FLAGS_INCL_ANY						\
	(_DPRINTK_FLAGS_INCL_MODNAME | _DPRINTK_FLAGS_INCL_FUNCNAME |	\
	 _DPRINTK_FLAGS_INCL_LINENO | _DPRINTK_FLAGS_INCL_TID |		\
	 _DPRINTK_FLAGS_INCL_SOURCENAME)

#ifdef DEBUG
#define _DPRINTK_FLAGS_DEFAULT	_DPRINTK_FLAGS_PRINT
#else
#define _DPRINTK_FLAGS_DEFAULT	0
#endif

#ifdef KBUILD_MODNAME
#define PKS_DDEBUG_MODNAME	KBUILD_MODNAME
#else
#define PKS_DDEBUG_MODNAME	NULL
#endif

#ifdef __cplusplus
extern "C" {
#endif

int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int pks_dynamic_printk(const struct _ddebug *descriptor, const char *fmt, ...)
	__attribute__((weak, format(printf, 2, 3)));
void pks_dynamic_register(struct _ddebug *start, struct _ddebug *stop) __attribute__((weak));
const volatile unsigned long long *pks_dynamic_control(void) __attribute__((weak));
void pks_dynamic_apply(void) __attribute__((weak));
void pks_dynamic_classes(struct _ddebug *sites, struct ddebug_class_map *start,
			 struct ddebug_class_map *stop) __attribute__((weak));

/*
 * The word that is not 0 while printk-shim --pid has asked this process
 * for a change it has not applied: the module's, from the constructor on;
 * before it, and without printk-shim, a word that never asks.
 */
static const unsigned long long pks_dd_calm = 0;
static const volatile unsigned long long *pks_dd_ask __attribute__((unused)) = &pks_dd_calm;


/* The linker's bounds of this object's __dyndbg; absent (0) in one without sites. */
extern struct _ddebug __start___dyndbg[] __attribute__((weak, visibility("hidden")));
extern struct _ddebug __stop___dyndbg[] __attribute__((weak, visibility("hidden")));
extern struct ddebug_class_map __start___dyndbg_classes[]
	__attribute__((weak, visibility("hidden")));
extern struct ddebug_class_map __stop___dyndbg_classes[]
	__attribute__((weak, visibility("hidden")));

static void pks_dynamic_debug_here(void) __attribute__((constructor, used));
static void pks_dynamic_debug_here(void)
{
	struct _ddebug *start = __start___dyndbg, *stop = __stop___dyndbg;
	struct ddebug_class_map *cstart = __start___dyndbg_classes;

	if (pks_dynamic_control)
		pks_dd_ask = pks_dynamic_control();
	/* The classes first, none too: registering the sites applies the queries. */
	if (pks_dynamic_classes && start != stop)
		pks_dynamic_classes(start, cstart, __stop___dyndbg_classes);
	if (pks_dynamic_register && start != stop)
		pks_dynamic_register(start, stop);
}

/* Whether a site prints: its flags, after any change asked is applied. */
static inline __attribute__((always_inline, unused)) int pks_dd_on(const struct _ddebug *d)
{
	unsigned long long w;

	if (__builtin_expect(__atomic_load_n(&d->flags, __ATOMIC_RELAXED) & _DPRINTK_FLAGS_PRINT, 0))
		return 1;
	w = __atomic_load_n(pks_dd_ask, __ATOMIC_RELAXED);
	if (__builtin_expect(w == 0, 1) || !pks_dynamic_apply)
		return 0;
	pks_dynamic_apply();
	return __atomic_load_n(&d->flags, __ATOMIC_RELAXED) & _DPRINTK_FLAGS_PRINT;
}

#ifdef __cplusplus
}
#endif

/* One descriptor in __dyndbg, of class @cls, for the call site this expands at. */
#define DEFINE_DYNAMIC_DEBUG_METADATA_CLS(name, cls, fmt)		\
	static struct _ddebug name					\
	__attribute__((used, section("__dyndbg"), aligned(8))) = {	\
		PKS_DDEBUG_MODNAME, __func__, __FILE__, (fmt), __LINE__, \
		(cls), _DPRINTK_FLAGS_DEFAULT }

#define DEFINE_DYNAMIC_DEBUG_METADATA(name, fmt)			\
	DEFINE_DYNAMIC_DEBUG_METADATA_CLS(name, _DPRINTK_CLASS_DFLT, fmt)

#define DYNAMIC_DEBUG_BRANCH(descriptor)				\
	__builtin_expect(pks_dd_on(&(descriptor)), 0)

/*
 * Without printk-shim: printk, the function (a printk macro would record
 * the site for the printk index, which the kernel's dynamic debug sites
 * are not in), with the level as an argument, so that the binary holds no
 * level-marked copy of the format. @fmt must be a string literal, or what
 * a pr_fmt() like the kernel's "%s: " fmt, __func__ makes of one: the
 * format's own arguments are taken apart from it again (pks_dd_printk_)
 * so that they come after the level's.
 */
#define pks_dd_printk(...)	pks_dd_printk_(__VA_ARGS__)
#define pks_dd_printk_(fmt, ...)	(printk)("%s" fmt, KERN_DEBUG, ##__VA_ARGS__)

#define __dynamic_pr_debug(descriptor, fmt, ...)			\
	((void)(pks_dynamic_printk ?					\
		pks_dynamic_printk(descriptor, fmt, ##__VA_ARGS__) :	\
		pks_dd_printk(fmt, ##__VA_ARGS__)))

/* An enabled site's line without its decorations, as the kernel prints a NULL device's. */
#define pks_dynamic_plain(descriptor, fmt, ...)				\
	((void)(descriptor), (void)pks_dd_printk(fmt, ##__VA_ARGS__))

/* The kernel's __dynamic_func_call_cls(): @func gets descriptor @id first. */
#define __dynamic_func_call_cls(id, cls, fmt, func, ...)		\
	do {								\
		DEFINE_DYNAMIC_DEBUG_METADATA_CLS(id, cls, fmt);	\
		if (DYNAMIC_DEBUG_BRANCH(id))				\
			func(&id, ##__VA_ARGS__);			\
	} while (0)
#define __dynamic_func_call(id, fmt, func, ...)				\
	__dynamic_func_call_cls(id, _DPRINTK_CLASS_DFLT, fmt, func, ##__VA_ARGS__)
#define _dynamic_func_call_cls(cls, fmt, func, ...)			\
	__dynamic_func_call_cls(pks_ddebug, cls, fmt, func, ##__VA_ARGS__)
#define _dynamic_func_call(fmt, func, ...)				\
	_dynamic_func_call_cls(_DPRINTK_CLASS_DFLT, fmt, func, ##__VA_ARGS__)

/* _no_desc: @func is called without it, so prints undecorated. */
#define _dynamic_func_call_cls_no_desc(cls, fmt, func, ...)		\
	do {								\
		DEFINE_DYNAMIC_DEBUG_METADATA_CLS(pks_ddebug, cls, fmt); \
		if (DYNAMIC_DEBUG_BRANCH(pks_ddebug))			\
			func(__VA_ARGS__);				\
	} while (0)
#define _dynamic_func_call_no_desc(fmt, func, ...)			\
	_dynamic_func_call_cls_no_desc(_DPRINTK_CLASS_DFLT, fmt, func, ##__VA_ARGS__)

#define dynamic_pr_debug_cls(cls, fmt, ...)				\
	_dynamic_func_call_cls(cls, fmt, __dynamic_pr_debug, pr_fmt(fmt), ##__VA_ARGS__)
#define dynamic_pr_debug(fmt, ...)					\
	_dynamic_func_call(fmt, __dynamic_pr_debug, pr_fmt(fmt), ##__VA_ARGS__)

/* A pr_debug of class @cls (an integer constant below _DPRINTK_CLASS_DFLT). */
#define __pr_debug_cls(cls, fmt, ...)	dynamic_pr_debug_cls(cls, fmt, ##__VA_ARGS__)
#define pr_debug_cls(cls, fmt, ...)	dynamic_pr_debug_cls(cls, fmt, ##__VA_ARGS__)

#endif /* _DYNAMIC_DEBUG_H */
