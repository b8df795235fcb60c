// SPDX-License-Identifier: MIT
/*
 * Dynamic debug in the module (printk-shim(7) DYNAMIC DEBUG). Code built
 * with our headers registers its object's __dyndbg descriptors from a
 * constructor as the object is loaded, dlopen'ed ones included; the rules
 * of PRINTK_SHIM_DYNDBG are applied to each descriptor then, once, and an
 * enabled site calls pks_dynamic_printk(). For code built without them,
 * each KERN_DEBUG call is decided here (pks_dyndbg_claim(), from emit.c),
 * once per return address and format, the answer kept in a table.
 * Thread-safety: registration runs under the dynamic linker's lock; the
 * table is claimed slot by slot with compare-and-swap, never waits, takes
 * no memory and may be read from a signal handler. Naming a call site
 * uses dladdr(), as %pS does.
 */
#include "dyndbg.h"
#include "dwline.h"
#include "emit.h"
#include "base/compiler.h"
#include "base/say.h"
#include "core/dyndbg.h"
#include "core/level.h"
#include "ctx/signals.h"
#include "format/format.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

PKS_EXPORT int pks_dynamic_printk(const struct pks_ddebug *d, const char *fmt, ...);
PKS_EXPORT void pks_dynamic_register(struct pks_ddebug *start, struct pks_ddebug *stop);
PKS_EXPORT void pks_dynamic_classes(struct pks_ddebug *sites, struct pks_ddebug_class_map *start,
				    struct pks_ddebug_class_map *stop);

/* The kernel's __dynamic_pr_debug() format: the decorations, then the call's. */
static const char own[] = "\001" "7" "%s%pV";
static PKS_TLS const char *ours;	/* the format decorated() is emitting on this thread */

struct va_format_k {		/* include/linux/printk.h */
	const char *fmt;
	va_list *va;
};

/* pks_emit() with a format of ours; @caller stays the program's. */
static int emit(const void *caller, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = pks_emit(PKS_SYM_PRINTK, fmt, ap, caller);
	va_end(ap);
	return r;
}

#define FMT_ROOM	512	/* a longer format takes the %pV road */

/*
 * KERN_DEBUG, @pre with its '%' doubled, and @fmt, in @buf: one format that
 * the fast path can take, where "%s%pV" always needs the whole engine.
 * Return: false when it does not fit.
 */
static bool joined(char *buf, size_t size, const char *pre, const char *fmt)
{
	size_t n = 2, len = strlen(fmt);

	memcpy(buf, "\001" "7", 2);
	for (; *pre; pre++) {
		if (n + 2 >= size)
			return false;
		if (*pre == '%')
			buf[n++] = '%';
		buf[n++] = *pre;
	}
	if (len >= size - n)
		return false;
	memcpy(buf + n, fmt, len + 1);
	return true;
}

/*
 * A KERN_DEBUG line of @fmt with the decorations @flags ask for. With
 * PRINTK_SHIM_DISABLE=1 the text is formatted here, undecorated, for the
 * next printk, which cannot read %pV.
 */
static int decorated(const struct pks_config *c, unsigned int flags,
		     const struct pks_dd_site *s, const char *fmt, va_list ap, const void *caller)
{
	char pre[PKS_DD_PREFIX] = "", buf[2 * PKS_DD_PREFIX + FMT_ROOM];
	const char *outer = ours;
	struct va_format_k vaf;
	va_list cp;
	int r;

	va_copy(cp, ap);
	if (unlikely(c->set.disable)) {
		memcpy(buf, "\001" "7", 2);
		pks_vsnprintf(buf + 2, sizeof(buf) - 2, fmt, cp);
		r = emit(caller, "%s", buf);
	} else {
		if (flags & PKS_DD_INCL_ANY)
			pks_dd_prefix(pre, sizeof(pre), flags, s,
				      pks_sigdepth() ? -1 : (long)gettid());
		if (joined(buf, sizeof(buf), pre, fmt)) {
			ours = buf;
			r = pks_emit(PKS_SYM_PRINTK, buf, cp, caller);
			ours = outer;
		} else {
			vaf = (struct va_format_k){ fmt, &cp };
			r = emit(caller, own, pre, &vaf);
		}
	}
	va_end(cp);
	return r;
}

static struct pks_dd_site site_of(const struct pks_ddebug *d)
{
	return (struct pks_dd_site){ d->modname, d->function, d->filename, d->format, d->lineno,
				     false, 0, NULL };
}

/**
 * pks_dynamic_printk() - an enabled call site of code built with our headers
 * @d: its descriptor; @fmt: the format after pr_fmt() and any device prefix
 * Return: as printk().
 */
int pks_dynamic_printk(const struct pks_ddebug *d, const char *fmt, ...)
{
	int saved = errno, r;
	struct pks_dd_site s = site_of(d);
	va_list ap;

	va_start(ap, fmt);
	r = decorated(pks_config(), __atomic_load_n(&d->flags, __ATOMIC_RELAXED), &s, fmt, ap,
		      __builtin_return_address(0));
	va_end(ap);
	errno = saved;
	return r;
}

/* The kernel's name for the object that holds @addr (pks_dd_object_name()). */
static size_t object_name(char *dst, size_t size, const void *addr)
{
	Dl_info di;
	const char *path = dladdr(addr, &di) && di.dli_fname && *di.dli_fname ?
			   di.dli_fname : program_invocation_name;

	return pks_dd_object_name(dst, size, path);
}

#define OBJECTS	64
static char names[OBJECTS][64];		/* the registered objects' names */
static const void *registered[OBJECTS];
static int nregistered;

/* The class maps of the objects that have some, by their first site. */
static struct classes {
	const void *sites;
	const struct pks_ddebug_class_map *start, *stop;
} classes[OBJECTS];
static int nclasses;

/**
 * pks_dynamic_classes() - an object's class maps, [@start, @stop), before
 * its sites from @sites on are registered (the same constructors call it).
 * Each call replaces what an object loaded earlier at the same address left.
 */
void pks_dynamic_classes(struct pks_ddebug *sites, struct pks_ddebug_class_map *start,
			 struct pks_ddebug_class_map *stop)
{
	int i = 0;

	while (i < nclasses && classes[i].sites != sites)
		i++;
	if (i == OBJECTS)
		return;
	classes[i] = (struct classes){ sites, start, stop };
	nclasses += i == nclasses;
}

/* @s's class, from its descriptor and the maps of the object from @start. */
static void class_of(struct pks_dd_site *s, const struct pks_ddebug *d, const void *start)
{
	const struct classes *c = NULL;

	for (int i = 0; i < nclasses && !c; i++)
		if (classes[i].sites == start)
			c = &classes[i];
	/* Without maps, class_id 0 is a descriptor of headers before classes. */
	if (!c || c->start == c->stop || d->class_id == PKS_DD_CLASS_DFLT)
		return;
	s->classed = true;
	s->class_id = d->class_id;
	for (const struct pks_ddebug_class_map *m = c->start; m < c->stop; m++)
		if ((int)d->class_id >= m->base && (int)d->class_id < m->base + m->length)
			s->class_name = m->class_names[d->class_id - (unsigned)m->base];
}

/**
 * pks_dynamic_register() - an object's descriptors, [@start, @stop), from
 * each of its translation units' constructors: name the module where the
 * descriptor does not, and apply the rules. Only the first call for an
 * object does anything; past OBJECTS objects, every call does it again,
 * to the same result.
 */
void pks_dynamic_register(struct pks_ddebug *start, struct pks_ddebug *stop)
{
	const struct pks_config *c = pks_config();
	const char *name = NULL;
	int saved = errno;

	for (int i = 0; i < nregistered; i++)
		if (registered[i] == start)
			return;
	if (nregistered < OBJECTS) {
		registered[nregistered] = start;
		object_name(names[nregistered], sizeof(names[0]), start);
		name = names[nregistered++];
	}
	for (struct pks_ddebug *d = start; d < stop; d++) {
		struct pks_dd_site s;

		if (!d->modname)
			d->modname = name ? name : "?";
		if (!c->dd.n)
			continue;
		s = site_of(d);
		class_of(&s, d, start);
		__atomic_store_n(&d->flags, pks_dd_apply(&c->dd, &s, d->flags), __ATOMIC_RELAXED);
	}
	errno = saved;
}

/* The function a return address is in, if a dynamic symbol spans it. */
static const char *function_of(const void *caller)
{
	const ElfW(Sym) *sym = NULL;
	uintptr_t at = (uintptr_t)caller - 1;
	Dl_info di;

	if (!dladdr1((void *)at, &di, (void **)&sym, RTLD_DL_SYMENT) || !di.dli_sname || !sym ||
	    at - (uintptr_t)di.dli_saddr >= sym->st_size)
		return NULL;
	return di.dli_sname;
}

/* The names of a call site of code built without our headers, for struct pks_dd_site. */
struct plain {
	char module[64], file[256];
};

/*
 * A KERN_DEBUG call site of code built without our headers, into @s: the
 * module and function from the dynamic symbols; the file and line from
 * DWARF when @want asks and they can be had. Return: false when they were
 * wanted but cannot be looked up now, so the answer must not be kept.
 */
static bool unbuilt(struct pks_dd_site *s, struct plain *p, const void *caller, const char *fmt,
		    bool want)
{
	object_name(p->module, sizeof(p->module), caller);
	*s = (struct pks_dd_site){ p->module, function_of(caller), NULL, fmt, 0, false, 0, NULL };
	if (!want)
		return true;
	switch (pks_dwline(caller, p->file, sizeof(p->file), &s->lineno)) {
	case PKS_DW_FOUND:
		s->filename = p->file;
		return true;
	case PKS_DW_NONE:
		return true;
	default:
		return false;
	}
}

/* The decision for one (return address, format): the flags, with KNOWN. */
#define SLOTS	1024		/* a power of two */
#define PROBES	16
#define KNOWN	(1u << 31)
static struct slot {
	_Atomic uintptr_t caller;	/* 0: free; claimed once, never freed */
	_Atomic(const char *) fmt;
	_Atomic unsigned int flags;	/* KNOWN once the answer is in */
} table[SLOTS];

/*
 * Looked up, else decided and kept in the first free slot. Two threads
 * deciding one site at once both keep it; the first copy is the one found.
 */
static unsigned int decision(const struct pks_config *c, const char *fmt, const void *caller)
{
	uintptr_t key = (uintptr_t)caller, seen;
	size_t h = (size_t)((key ^ (uintptr_t)fmt) * 0x9e3779b97f4a7c15ull >> 32);
	unsigned int f;
	struct pks_dd_site s;
	struct plain p;
	int i;

	for (i = 0; i < PROBES; i++) {
		struct slot *t = &table[(h + (size_t)i) & (SLOTS - 1)];

		seen = atomic_load_explicit(&t->caller, memory_order_acquire);
		if (!seen)
			break;
		f = atomic_load_explicit(&t->flags, memory_order_acquire);
		if (seen == key && (f & KNOWN) &&
		    atomic_load_explicit(&t->fmt, memory_order_relaxed) == fmt)
			return f & ~KNOWN;
	}
	if (!unbuilt(&s, &p, caller, fmt, c->dd.uses & (PKS_DD_USES_FILE | PKS_DD_USES_LINE)))
		return pks_dd_apply(&c->dd, &s, PKS_DD_PRINT);	/* not kept: decided again */
	f = pks_dd_apply(&c->dd, &s, PKS_DD_PRINT);
	for (; i < PROBES; i++) {
		struct slot *t = &table[(h + (size_t)i) & (SLOTS - 1)];

		seen = 0;
		if (atomic_compare_exchange_strong(&t->caller, &seen, key)) {
			atomic_store_explicit(&t->fmt, fmt, memory_order_relaxed);
			atomic_store_explicit(&t->flags, f | KNOWN, memory_order_release);
			break;
		}
	}
	return f;	/* past PROBES, a full neighbourhood: decided each time */
}

/**
 * pks_dyndbg_claim() - decide a call of code built without our headers
 * whose format starts with a literal KERN_DEBUG; PRINTK_SHIM_DYNDBG is set
 * Return: whether the call was done here (dropped, or printed decorated),
 * printk's return value in *@ret; false leaves it to the usual path.
 */
bool pks_dyndbg_claim(const struct pks_config *c, const char *fmt, va_list ap,
		      const void *caller, int *ret)
{
	struct pks_dd_site s;
	struct pks_mark m;
	struct plain p;
	unsigned int f;
	size_t skip;

	if (fmt == own || fmt == ours)
		return false;	/* decided already, by decorated() */
	skip = pks_level_parse(fmt, 16, c->set.legacy_markers, &m);	/* stops at the NUL */
	if (m.level != 7 || (m.flags & PKS_M_CONT))
		return false;
	f = decision(c, fmt + skip, caller);
	if (!(f & PKS_DD_PRINT)) {
		*ret = 0;
		return true;
	}
	if (!(f & PKS_DD_INCL_ANY))
		return false;
	unbuilt(&s, &p, caller, fmt + skip, f & (PKS_DD_SRCNAME | PKS_DD_LINENO));
	*ret = decorated(c, f, &s, fmt + skip, ap, caller);
	return true;
}
