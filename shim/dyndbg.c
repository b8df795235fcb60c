// SPDX-License-Identifier: MIT
/*
 * Dynamic debug in the module (printk-shim(7) DYNAMIC DEBUG). Code built
 * with our headers registers its object's __dyndbg descriptors from a
 * constructor as the object is loaded, dlopen'ed ones included (through
 * entry.c's pks_dynamic_register()); the rules of PRINTK_SHIM_DYNDBG are
 * applied to each descriptor then, once. For code built without them,
 * each KERN_DEBUG call is decided here (pks_dyndbg_claim(), from emit.c),
 * once per return address and format, the answer kept in a table. Nothing
 * here prints: emit.c prints a decorated line.
 * Thread-safety: registration runs under the dynamic linker's lock; the
 * table is claimed slot by slot with compare-and-swap, never waits, takes
 * no memory and may be read from a signal handler. Naming a call site
 * uses elf/name.c, as %pS does.
 */
#include "dyndbg.h"
#include "dwline.h"
#include "base/compiler.h"
#include "base/say.h"
#include "core/ddquery.h"
#include "elf/name.h"
#include "core/level.h"
#include "ctl/ctl.h"
#include "ctl/record.h"
#include "ctx/signals.h"
#include "format/format.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>


/** pks_dyndbg_site() - a descriptor's names, as the rules see them */
struct pks_dd_site pks_dyndbg_site(const struct pks_ddebug *d)
{
	return (struct pks_dd_site){ d->modname, d->function, d->filename, d->format, d->lineno,
				     false, 0, NULL };
}

/*
 * The program's file, read once (a call of code built without the headers
 * asks at each line it decorates): /proc/self/exe, else AT_EXECFN, else
 * argv[0]. A thread that finds another reading it reads its own into @buf.
 */
static const char *program_file(char *buf, size_t size)
{
	static char file[PATH_MAX];
	static _Atomic int got;		/* 0: not yet; 1: being read; 2: in file */
	int want = 0;
	bool mine;
	ssize_t n;

	/* acquire: pairs with the release below, after the bytes */
	if (atomic_load_explicit(&got, memory_order_acquire) == 2)
		return file;
	/* no pair: the claim alone; the release below publishes the bytes */
	mine = atomic_compare_exchange_strong_explicit(&got, &want, 1, memory_order_relaxed,
						       memory_order_relaxed);
	if (mine) {
		buf = file;
		size = sizeof(file);
	}
	n = readlink("/proc/self/exe", buf, size - 1);
	if (n > 0)
		buf[n] = '\0';
	if (mine)	/* release: pairs with the acquire above; no /proc: asked again */
		atomic_store_explicit(&got, n > 0 ? 2 : 0, memory_order_release);
	if (n > 0)
		return buf;
	return getauxval(AT_EXECFN) ? (const char *)getauxval(AT_EXECFN) : program_invocation_name;
}

/*
 * The kernel's name for the object that holds @addr (pks_dd_object_name()):
 * the program's from its file, as --dyndbg-list names it, not from argv[0]
 * (which dladdr() gives for it, and exec -a or a link changes).
 */
static size_t object_name(char *dst, size_t size, const void *addr)
{
	char exe[PATH_MAX];
	struct link_map *lm = NULL;
	Dl_info di;

	if (dladdr1(addr, &di, (void **)&lm, RTLD_DL_LINKMAP) && lm && lm->l_name[0])
		return pks_dd_object_name(dst, size, lm->l_name);
	return pks_dd_object_name(dst, size, program_file(exe, sizeof(exe)));
}

#define OBJECTS	256	/* objects with sites loaded at once; past them, module "?" */
static char names[OBJECTS][64];		/* the registered objects' names */
static struct pks_ddebug *registered[OBJECTS], *ends[OBJECTS];
static void *bases[OBJECTS];		/* where each was loaded, to tell it is still */
static unsigned long long loaded[OBJECTS];	/* loads() when it was registered */
static int listed[OBJECTS];		/* index of the first site in the control file, -1 */
static int nregistered;

/* The class maps of the objects that have some, by their first site. */
static struct classes {
	const void *sites;
	const struct pks_ddebug_class_map *start, *stop;
} classes[OBJECTS];
static int nclasses;

/**
 * pks_dyndbg_classes() - an object's class maps, [@start, @stop), before
 * its sites from @sites on are registered (the same constructors call it).
 * Each call replaces what an object loaded earlier at the same address left.
 */
void pks_dyndbg_classes(struct pks_ddebug *sites, struct pks_ddebug_class_map *start,
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
	if (d->class_id == PKS_DD_CLASS_DFLT || ((!c || c->start == c->stop) && d->class_id == 0))
		return;
	s->classed = true;
	s->class_id = d->class_id;
	/* the first map that holds it, as the kernel names it (and --dyndbg-list) */
	for (const struct pks_ddebug_class_map *m = c ? c->start : NULL;
	     c && m < c->stop && !s->class_name; m++)
		if ((int)d->class_id >= m->base && (int)d->class_id < m->base + m->length)
			s->class_name = m->class_names[d->class_id - (unsigned)m->base];
}

static int adds(struct dl_phdr_info *info, size_t size, void *n)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof(info->dlpi_adds))
		*(unsigned long long *)n = info->dlpi_adds;
	return 1;	/* the count is the process's: the first object has it */
}

/*
 * How many objects the process has loaded so far: the translation units
 * of one object register during its one load, so a new count at the same
 * address is the object loaded again after a dlclose.
 */
static unsigned long long loads(void)
{
	unsigned long long n = 0;

	dl_iterate_phdr(adds, &n);
	return n;
}

/* Whether object @o is still the one registered there: not dlclose'd since. */
static bool present(int o)
{
	Dl_info di;

	return dladdr(registered[o], &di) && di.dli_fbase == bases[o];
}

/*
 * Object @o was unloaded (or is loaded again): its sites leave the control
 * file's listing, as the kernel drops a module's at its unload. Its slot
 * stays its address's: readers walk the slots without a lock.
 */
static void unlist(int o)
{
	for (long k = 0; listed[o] >= 0 && k < ends[o] - registered[o]; k++)
		pks_ctl_site_gone(listed[o] + (int)k);
	listed[o] = -1;
}

/*
 * The slot of the object whose sites are @start to @stop, for this load;
 * the sites of objects unloaded since leave the listing first.
 * Return: its index, or -1 when this load registered it already (*@again)
 * or there is no room.
 */
static int slot(struct pks_ddebug *start, struct pks_ddebug *stop, bool *again)
{
	unsigned long long now = loads();
	Dl_info di;
	int i = 0;

	*again = false;
	while (i < nregistered && registered[i] != start)
		i++;
	if (i < nregistered && loaded[i] == now) {
		*again = true;
		return -1;
	}
	for (int o = 0; o < nregistered; o++)
		if (o == i || !present(o))
			unlist(o);
	if (i == OBJECTS)
		return -1;
	nregistered += i == nregistered;
	listed[i] = -1;		/* list() says, with control on */
	registered[i] = start;
	ends[i] = stop;
	bases[i] = dladdr(start, &di) ? di.dli_fbase : NULL;
	loaded[i] = now;
	object_name(names[i], sizeof(names[0]), start);
	return i;
}

/* Object @o's sites into the control file (printk-shim(7) RUNTIME CONTROL). */
static void list(int o)
{
	listed[o] = -1;
	for (struct pks_ddebug *d = registered[o]; d < ends[o]; d++) {
		struct pks_dd_site s = pks_dyndbg_site(d);
		int i;

		class_of(&s, d, registered[o]);
		/* no pair: a word of flags, whole in itself */
		i = pks_ctl_site_add(&s, __atomic_load_n(&d->flags, __ATOMIC_RELAXED), true);
		if (d == registered[o])
			listed[o] = i;
	}
}

/* @flags of site @s after the rules in force, held while they are read. */
static unsigned int decide(const struct pks_config *c, const struct pks_dd_site *s,
			   unsigned int flags)
{
	unsigned int i;
	const struct pks_dd_rules *r = pks_rules_hold(&c->dd, &i);

	flags = pks_dd_apply(r, s, flags);
	pks_rules_let_go(i);
	return flags;
}

/**
 * pks_dyndbg_register() - an object's descriptors, [@start, @stop), from
 * each of its translation units' constructors: name the module where the
 * descriptor does not, and apply the rules. Only the first call of each
 * load of an object does anything (an object dlclose'd and opened again at
 * the same address is a new load); past OBJECTS objects, every call does
 * it again, to the same result.
 */
void pks_dyndbg_register(struct pks_ddebug *start, struct pks_ddebug *stop)
{
	const struct pks_config *c = pks_config();
	int saved = errno;
	const char *name = NULL;
	bool again;
	int o;

	o = slot(start, stop, &again);
	if (again) {
		errno = saved;
		return;
	}
	if (o >= 0)
		name = names[o];
	for (struct pks_ddebug *d = start; d < stop; d++) {
		struct pks_dd_site s;

		if (!d->modname)
			d->modname = name ? name : "?";
		if (!pks_rules_any(&c->dd))
			continue;
		s = pks_dyndbg_site(d);
		class_of(&s, d, start);
		/* no pair: whole in itself, read relaxed by <linux/dynamic_debug.h> */
		__atomic_store_n(&d->flags, decide(c, &s, d->flags), __ATOMIC_RELAXED);
	}
	if (o >= 0 && pks_ctl_on())
		list(o);
	errno = saved;
}

/* The function a return address is in: its dynamic symbol, else .symtab (elf/name.c). */
static const char *function_of(const void *caller)
{
	struct pks_elf_name n;

	return pks_elf_name((const char *)caller - 1, &n) ? n.name : NULL;
}

/*
 * A KERN_DEBUG call site of code built without our headers, into @s: the
 * module and function from the dynamic symbols; the file and line from
 * DWARF when @want asks and they can be had, and why not said when a query
 * or flag @asked for them (runtime control's listing alone wants them too).
 * Return: false when they were wanted but cannot be looked up now, so the
 * answer must not be kept.
 */
static bool unbuilt(struct pks_dd_site *s, struct pks_dd_names *p, const void *caller, const char *fmt,
		    bool want, bool asked)
{
	object_name(p->module, sizeof(p->module), caller);
	*s = (struct pks_dd_site){ p->module, function_of(caller), NULL, fmt, 0, false, 0, NULL };
	if (!want)
		return true;
	switch (pks_dwline(caller, p->file, sizeof(p->file), &s->lineno, asked)) {
	case PKS_DW_FOUND:
		s->filename = p->file;
		return true;
	case PKS_DW_NONE:
		return true;
	default:
		return false;
	}
}

/*
 * The decision for one (return address, format): the flags, with KNOWN
 * and the epoch of the rules it was made under; queries added at run time
 * start a new epoch, and the sites are decided again.
 */
#define SLOTS	1024		/* a power of two */
#define PROBES	16
#define KNOWN	(1u << 31)
#define EPOCH(e)	(((e) & 0x7fffu) << 16)
#define DD_FLAGS	0xffffu
static struct slot {
	_Atomic uintptr_t caller;	/* 0: free; claimed once, never freed */
	_Atomic(const char *) fmt;
	_Atomic unsigned int flags;	/* KNOWN | EPOCH once the answer is in */
	_Atomic int listed;		/* 1 + its index in the control file; 0: not listed */
} table[SLOTS];
static _Atomic unsigned int epoch;

/* Keep @f for slot @t, and in its listing; list it first when @fresh. */
static void keep(struct slot *t, unsigned int f, unsigned int e, const struct pks_dd_site *s,
		 bool fresh)
{
	struct pks_ctl_site *l;

	/* release: pairs with decision()'s acquire of flags: fmt is stored first */
	atomic_store_explicit(&t->flags, f | KNOWN | EPOCH(e), memory_order_release);
	/* no pair: an index; read as 0 before it is here, the listing keeps its flags */
	if (fresh)
		atomic_store_explicit(&t->listed, pks_ctl_site_add(s, f, false) + 1,
				      memory_order_relaxed);
	/* no pair: as above; the flags are a word the command reads relaxed */
	else if ((l = pks_ctl_site(atomic_load_explicit(&t->listed, memory_order_relaxed) - 1)))
		__atomic_store_n(&l->flags, f, __ATOMIC_RELAXED);
}

/*
 * Looked up, else decided and kept in the first free slot. Two threads
 * deciding one site at once both keep it; the first copy is the one found.
 */
static unsigned int decision(const struct pks_config *c, const char *fmt, const void *caller)
{
	uintptr_t key = (uintptr_t)caller, seen;
	size_t h = (size_t)((key ^ (uintptr_t)fmt) * 0x9e3779b97f4a7c15ull >> 32);
	/*
	 * An object closed since makes a new epoch too: the address may be
	 * another object's now (entry.c's dlclose()). The epoch's acquire
	 * pairs with the release in pks_dyndbg_more(): its rules are in c->dd.
	 */
	unsigned int f, e = atomic_load_explicit(&epoch, memory_order_acquire) + pks_elf_era();
	struct slot *again = NULL;
	struct pks_dd_site s;
	struct pks_dd_names p;
	bool asked;
	int i;

	for (i = 0; i < PROBES; i++) {
		struct slot *t = &table[(h + (size_t)i) & (SLOTS - 1)];

		/* acquire: pairs with the seq_cst compare-exchange that claims a slot below */
		seen = atomic_load_explicit(&t->caller, memory_order_acquire);
		if (!seen)
			break;
		/* acquire: pairs with keep()'s release: the fmt stored before it is seen */
		f = atomic_load_explicit(&t->flags, memory_order_acquire);
		if (seen != key || !(f & KNOWN) ||
		    atomic_load_explicit(&t->fmt, memory_order_relaxed) != fmt)
			continue;
		if ((f & ~(KNOWN | DD_FLAGS)) == EPOCH(e))
			return f & DD_FLAGS;
		again = t;	/* decided under rules since added to */
		break;
	}
	/* the copy in force now, or a newer one (the epoch's acquire) */
	asked = pks_rules_now(&c->dd)->uses & (PKS_DD_USES_FILE | PKS_DD_USES_LINE);
	if (!unbuilt(&s, &p, caller, fmt, asked || pks_ctl_on(), asked))
		return decide(c, &s, PKS_DD_PRINT);	/* not kept: decided again */
	f = decide(c, &s, PKS_DD_PRINT);
	if (again) {
		keep(again, f, e, &s, false);
		return f;
	}
	for (; i < PROBES; i++) {
		struct slot *t = &table[(h + (size_t)i) & (SLOTS - 1)];

		seen = 0;
		/* pairs with the acquire of caller above; fmt, with keep()'s release */
		if (atomic_compare_exchange_strong(&t->caller, &seen, key)) {
			atomic_store_explicit(&t->fmt, fmt, memory_order_relaxed);
			keep(t, f, e, &s, true);
			break;
		}
	}
	return f;	/* past PROBES, a full neighbourhood: decided each time */
}

/**
 * pks_dyndbg_claim() - decide a call of code built without our headers
 * whose format starts with a literal KERN_DEBUG; PRINTK_SHIM_DYNDBG is set
 * @call: filled for PKS_DD_DECORATE: the flags, the site, the format past
 *	its marker, for emit.c to print
 * Return: PKS_DD_DECORATE when the call is to be printed decorated;
 * PKS_DD_OFF when the site is off, and the caller drops the line it starts
 * (its KERN_CONT fragments too); PKS_DD_LEFT leaves it to the usual path.
 */
enum pks_dd_claim pks_dyndbg_claim(const struct pks_config *c, const char *fmt,
				   const void *caller, struct pks_dd_call *call)
{
	struct pks_mark m;
	unsigned int f;
	size_t skip;

	skip = pks_level_parse(fmt, 16, c->set.legacy_markers, &m);	/* stops at the NUL */
	if (m.level != 7 || (m.flags & PKS_M_CONT))
		return PKS_DD_LEFT;
	f = decision(c, fmt + skip, caller);
	if (!(f & PKS_DD_PRINT))
		return PKS_DD_OFF;	/* emit.c measures it, and records it whole */
	if (!(f & PKS_DD_INCL_ANY))
		return PKS_DD_LEFT;
	unbuilt(&call->site, &call->names, caller, fmt + skip, f & (PKS_DD_SRCNAME | PKS_DD_LINENO),
		f & (PKS_DD_SRCNAME | PKS_DD_LINENO));
	call->flags = f;
	call->fmt = fmt + skip;
	return PKS_DD_DECORATE;
}

/** pks_dyndbg_list() - control came on: list the sites registered before */
void pks_dyndbg_list(void)
{
	for (int o = 0; o < nregistered; o++)
		list(o);
}

static void quiet(void *arg, const char *q, size_t n, const char *why)
{
	(void)arg, (void)q, (void)n, (void)why;	/* the command said it already */
}

/* A listed site's names, as the rules see them. */
static struct pks_dd_site listed_site(const struct pks_ctl_site *l)
{
	return (struct pks_dd_site){ l->module, l->function[0] ? l->function : NULL,
				     l->file[0] ? l->file : NULL, l->format, l->lineno,
				     l->classed, l->class_id, l->class_name[0] ? l->class_name : NULL };
}

/*
 * @text's queries, @more as parsed, after the rules in force, for the
 * sites still to come. The rules are made anew aside without those that no
 * longer decide anything, so that queries turned on and off again never
 * fill them; if even so the new ones pass the room, as many as fit are
 * kept, in order. A copy held for good leaves the queries to be added in
 * place. Return: how many of them were kept.
 */
static int added(const char *text, const struct pks_dd_rules *more)
{
	static struct pks_dd_rules all;
	struct pks_rules *rules = &pks_cfg.dd;
	/* the writer's own: it alone changes the rules */
	struct pks_dd_rules *now = (struct pks_dd_rules *)pks_rules_now(rules);
	struct pks_dd_rules *next = pks_rules_aside(rules);
	int had, kept = more->n;

	if (!next) {
		had = now->n;
		kept = pks_dd_parse_more(now, text, quiet, NULL) - had;
		pks_rules_counted(rules);
		return kept;
	}
	if (pks_dd_compact(next, now, more) < 0) {
		had = pks_dd_compact(&all, now, NULL);
		kept = pks_dd_parse_more(&all, text, quiet, NULL) - had;
		pks_dd_compact(next, &all, NULL);
	}
	pks_rules_swap(rules);
	return kept;
}

/**
 * pks_dyndbg_more() - queries written at run time (printk-shim(1)
 * --dyndbg): applied on top of every site's flags now, and kept after the
 * rules for the sites still to come. One caller at a time.
 * Return: whether they all could be kept (the rules hold PKS_DD_QUERIES).
 */
bool pks_dyndbg_more(const char *text)
{
	static struct pks_dd_rules more;
	struct pks_ctl_site *l;
	int kept;

	pks_dd_parse(&more, text, quiet, NULL);
	kept = added(text, &more);
	for (int o = 0; o < nregistered; o++) {
		if (!present(o))
			continue;	/* dlclose'd: its descriptors are gone */
		for (struct pks_ddebug *d = registered[o]; d < ends[o]; d++) {
			struct pks_dd_site s = pks_dyndbg_site(d);
			unsigned int f;

			class_of(&s, d, registered[o]);
			/* no pair: words of flags, whole in themselves, as in keep() */
			f = pks_dd_apply(&more, &s, __atomic_load_n(&d->flags, __ATOMIC_RELAXED));
			__atomic_store_n(&d->flags, f, __ATOMIC_RELAXED);
			/* no pair: as d->flags */
			if (listed[o] >= 0 && (l = pks_ctl_site(listed[o] + (int)(d - registered[o]))))
				__atomic_store_n(&l->flags, f, __ATOMIC_RELAXED);
		}
	}
	/* acquire: pairs with ctl.c's release of ready: the site is filled */
	for (int i = 0; (l = pks_ctl_site(i)) && __atomic_load_n(&l->ready, __ATOMIC_ACQUIRE); i++) {
		struct pks_dd_site s = listed_site(l);

		if (!l->built)	/* no pair: as above */
			__atomic_store_n(&l->flags, pks_dd_apply(&more, &s, l->flags), __ATOMIC_RELAXED);
	}
	/* pairs with decision()'s acquire: a site decided in the new epoch sees the rules */
	atomic_fetch_add_explicit(&epoch, 1, memory_order_release);
	return kept == more.n;
}
