// SPDX-License-Identifier: MIT
/*
 * An address's function or data object, as kallsyms gives the kernel: the
 * object's file's .symtab (static and hidden symbols too; a program needs
 * no -rdynamic), each symbol reaching the next as kallsyms sizes it; else
 * dladdr1()'s dynamic symbol, else the .dynsym's, each by its st_size, as
 * the next one there may be far past it. The program's file is
 * /proc/self/exe, or AT_EXECFN when ld.so ran it; a file must have the
 * loaded object's program headers. Each object's file is mapped the first
 * time an address in it is asked for (elf/elf.c, which maps without
 * malloc) and kept for the process's life in a table that only grows. The
 * first reading of a file never happens where the guard says no (a signal
 * handler: the module's init.c sets it): there the dynamic symbol only,
 * and ask again next time.
 * A set-ID process reads no file its real user could not.
 * Thread-safety: readers take no lock; one writer at a time, the others
 * waiting for it a second at most.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "elf/name.h"
#include "elf/elf.h"
#include "base/compiler.h"
#include "base/show.h"
#include "base/sigmask.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define OBJS_MAX 64	/* objects whose tables are kept; more get dynamic names only */

struct obj {
	uintptr_t base;		/* dli_fbase: the key, with @file */
	uint64_t file;		/* file_id() of its name: another may open where a closed one was */
	uintptr_t bias;		/* l_addr: a symbol's value + bias is its address */
	struct pks_elf elf;	/* NULL tables when the file had none */
	_Atomic bool cut;	/* its file was cut short on disk: its tables are zeroes now */
};

_Atomic unsigned int pks_elf_closes;

/** pks_elf_closed() - dlclose() closed an object: pks_elf_era() moves on */
void pks_elf_closed(void)
{
	/* release: pairs with pks_elf_era()'s acquire */
	atomic_fetch_add_explicit(&pks_elf_closes, 1, memory_order_release);
}

static struct obj objs[OBJS_MAX];
static _Atomic unsigned nobjs;
static pthread_mutex_t writer = PTHREAD_MUTEX_INITIALIZER;
static bool (*_Atomic guard)(void);

/** pks_elf_name_guard() - @may_read says whether a file may be read for the first time now. */
void pks_elf_name_guard(bool (*may_read)(void))
{
	/* No pair: as its load in add(), set by a constructor before any thread asks. */
	atomic_store_explicit(&guard, may_read, memory_order_relaxed);
}

/* FNV-1a of the object's name, as the dynamic linker names it ("" the program's). */
static uint64_t file_id(const struct link_map *map)
{
	uint64_t h = 14695981039346656037u;

	for (const char *s = map->l_name ? map->l_name : ""; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static const struct obj *find(uintptr_t base, uint64_t file)
{
	/* acquire: pairs with the release in add(): the objects counted are filled */
	unsigned n = atomic_load_explicit(&nobjs, memory_order_acquire);

	for (unsigned i = 0; i < n; i++)
		if (objs[i].base == base && objs[i].file == file)
			return &objs[i];
	return NULL;
}

struct same {
	const struct link_map *map;
	bool main, found, same;
	const struct pks_elf *elf;
};

/* Is @info the object sought, and its file's program headers the loaded ones? */
static int compare(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct same *c = arg;

	(void)size;
	if (info->dlpi_addr != c->map->l_addr ||
	    (!c->main && strcmp(info->dlpi_name ? info->dlpi_name : "", c->map->l_name)))
		return c->main;	/* the program is the first entry */
	c->found = true;
	c->same = pks_elf_loaded_as(c->elf, info->dlpi_phdr, info->dlpi_phnum);
	return 1;
}

/*
 * Is @e the file of the object @map? Not when the program was started by
 * running ld.so (/proc/self/exe is ld.so), nor a library replaced on disk.
 */
static bool same_file(const struct link_map *map, bool main, const struct pks_elf *e)
{
	struct same c = { map, main, false, false, e };

	dl_iterate_phdr(compare, &c);
	return c.found && c.same;
}

/*
 * The writer's lock, where the guard lets a file be read: another thread
 * reading one holds it for milliseconds, and its object may be the one
 * wanted. A second at most: a handler the guard cannot tell (the library
 * has none) may have interrupted the holder on its own thread.
 */
static bool claim(bool (*may)(void))
{
	struct timespec t;

	if (may && !may())
		return false;
	if (!pthread_mutex_trylock(&writer))
		return true;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec++;
	return !pthread_mutex_timedlock(&writer, &t);
}

/**
 * pks_elf_fault() - a SIGBUS at @addr (BUS_ADRERR): if in a file mapped for
 * names, the file was cut short on disk since (a library installed again
 * over itself). The mapping becomes zeroes, so that the access is made
 * again and finds no symbol there, and the object is named by its dynamic
 * symbols from then on. The object being added is looked at too: the
 * fault may be its writer's, on this thread. Async-signal-safe.
 * Return: whether @addr was such a file's.
 */
bool pks_elf_fault(const void *addr)
{
	/* acquire: pairs with the release in add(): the objects counted are filled */
	unsigned n = atomic_load_explicit(&nobjs, memory_order_acquire);
	uintptr_t a = (uintptr_t)addr;
	unsigned long page = getauxval(AT_PAGESZ);
	size_t pg = page ? (size_t)page : 4096;

	for (unsigned i = 0; i <= n && i < OBJS_MAX; i++) {
		const struct pks_elf_image *im = &objs[i].elf.im;
		uintptr_t b = (uintptr_t)im->base;
		size_t len = (im->size + pg - 1) & ~(pg - 1);

		if (!im->base || a - b >= len)
			continue;
		/* no pair: the readers' hint; the zeroes alone keep them safe */
		atomic_store_explicit(&objs[i].cut, true, memory_order_relaxed);
		return mmap((void *)b, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
		       MAP_FAILED;
	}
	return false;
}

/* Map the file of the object at @base (the program's as /proc/self/exe) into the table. */
static const struct obj *add(uintptr_t base, uint64_t file, const struct link_map *map,
			     bool main)
{
	/* no pair: stored by a constructor (pks_elf_name_guard()) */
	bool (*may)(void) = atomic_load_explicit(&guard, memory_order_relaxed);
	const struct obj *o = NULL;
	unsigned n;

	if (!claim(may))
		return NULL;
	/* No pair: only the writer, who holds the lock, stores it. */
	n = atomic_load_explicit(&nobjs, memory_order_relaxed);
	if (!(o = find(base, file)) && n < OBJS_MAX) {
		/* The program by AT_EXECFN when ld.so ran it; a file that cannot be read
		 * or is not the object's is kept without tables: not read again. */
		const char *tries[2] = { main ? "/proc/self/exe" : map->l_name,
					 main ? (const char *)getauxval(AT_EXECFN) : NULL };

		bool kept = false;

		for (int i = 0; i < 2 && !kept; i++)
			if (tries[i] && *tries[i] && pks_may_show(tries[i]) &&
			    pks_elf_map(&objs[n].elf, tries[i]) == 0 &&
			    !(kept = same_file(map, main, &objs[n].elf)))
				pks_elf_unmap(&objs[n].elf);
		objs[n].base = base;
		objs[n].file = file;
		objs[n].bias = map->l_addr;
		/* release: pairs with the acquire in find(): the object is filled first */
		atomic_store_explicit(&nobjs, n + 1, memory_order_release);
		o = &objs[n];
	}
	pthread_mutex_unlock(&writer);
	return o;
}

/*
 * The symbol types that name an address, those dladdr() takes too: data
 * objects as well as functions; not a section, file or thread-local
 * symbol, whose values are no addresses in the process.
 */
static const bool naming[16] = {
	[STT_NOTYPE] = true, [STT_OBJECT] = true, [STT_FUNC] = true,
	[STT_COMMON] = true, [STT_GNU_IFUNC] = true,
};

/*
 * Names kallsyms leaves out: the mapping symbols that tell code from data
 * on ARM, AArch64 and RISC-V ("$x", "$d"), and assemblers' local labels.
 */
static const char *const unnamed[] = { "$", ".L", "L0" };

/* Is @s a symbol kallsyms lists: defined in a section, of a naming type, not a marker? */
static bool listed(const char *name, const ElfW(Sym) *s)
{
	if (!naming[ELF64_ST_TYPE(s->st_info)] || s->st_shndx == SHN_UNDEF ||
	    s->st_shndx >= SHN_LORESERVE)
		return false;
	for (size_t i = 0; i < PKS_ARRAY_SIZE(unnamed); i++)
		if (!strncmp(name, unnamed[i], strlen(unnamed[i])))
			return false;
	return true;
}

/* Where @s's section ends; 0 when it is not loaded (kallsyms lists none there). */
static ElfW(Addr) section_end(const struct pks_elf *e, const ElfW(Sym) *s)
{
	struct pks_elf_sect sh;

	if (!pks_elf_sect_at(&e->im, s->st_shndx, &sh) || !(sh.flags & SHF_ALLOC))
		return 0;
	return sh.addr + sh.size;
}

/* One walk of a .symtab, for the symbol kallsyms names at @value. */
struct near {
	const struct pks_elf *e;
	ElfW(Addr) value;
	const ElfW(Sym) *sym;	/* the last listed at or before @value; NULL while none */
	const char *name;	/* its name */
	ElfW(Addr) end;		/* where its section ends */
	ElfW(Addr) next;	/* where the first listed after @value starts */
};

/*
 * Of two symbols at one address, the one kallsyms sorts first: not weak,
 * then with fewer leading underscores ("gvar" before "__bss_start"); where
 * kallsyms goes by the order nm(1) met them, a global symbol, the name the
 * object exports, before a local alias ("printk" before "printk_here").
 */
static bool first(const char *a, const ElfW(Sym) *sa, const char *b, const ElfW(Sym) *sb)
{
	bool wa = ELF64_ST_BIND(sa->st_info) == STB_WEAK, wb = ELF64_ST_BIND(sb->st_info) == STB_WEAK;
	size_t ua = strspn(a, "_"), ub = strspn(b, "_");

	if (wa != wb)
		return wb;
	if (ua != ub)
		return ua < ub;
	return ELF64_ST_BIND(sa->st_info) == STB_GLOBAL && ELF64_ST_BIND(sb->st_info) == STB_LOCAL;
}

/* Would kallsyms name @value after @s rather than after the walk's symbol so far? */
static bool closer(const struct near *n, const char *name, const ElfW(Sym) *s)
{
	return !n->sym || s->st_value > n->sym->st_value ||
	       (s->st_value == n->sym->st_value && first(name, s, n->name, n->sym));
}

/*
 * pks_elf_visit: @s, if listed, as the symbol named at n->value or as the
 * next one; its address compared first, the cheaper test.
 */
static int nearer(void *arg, const char *name, const ElfW(Sym) *s)
{
	struct near *n = arg;
	ElfW(Addr) end;

	if (s->st_value > n->value) {
		if (s->st_value < n->next && listed(name, s) && section_end(n->e, s))
			n->next = s->st_value;
	} else if (closer(n, name, s) && listed(name, s) &&
		   (end = section_end(n->e, s)) > s->st_value) {
		n->sym = s;
		n->name = name;
		n->end = end;
	}
	return 0;
}

/*
 * The symbol of @e's .symtab that kallsyms names at @value: the last it
 * lists that starts at or before @value. Its size, in *@size, is counted
 * as kallsyms counts it: up to the next listed symbol, or to the end of
 * its section when it is the last there; so padding after a function, the
 * return address of a call that ends it, is the function's too. One walk
 * of the table (read once, never sorted: that would take memory per
 * object), as the kernel walks a module's.
 */
static const ElfW(Sym) *nearest(const struct pks_elf *e, ElfW(Addr) value, const char **name,
				size_t *size)
{
	struct near n = { .e = e, .value = value, .next = (ElfW(Addr))-1 };
	ElfW(Addr) end;

	pks_elf_walk(e, false, nearer, &n);
	if (!n.sym)
		return NULL;
	end = n.next < n.end ? n.next : n.end;
	if (value >= end)
		return NULL;
	*name = n.name;
	*size = end - n.sym->st_value;
	return n.sym;
}

/*
 * The symbol of @e's .dynsym that spans @value by its st_size: the table
 * lacks the local symbols, so the next one it lists may be far past it.
 */
static const ElfW(Sym) *spanning(const struct pks_elf *e, ElfW(Addr) value, const char **name)
{
	const ElfW(Sym) *best = NULL;

	for (size_t i = 0; i < e->ndynsym; i++) {
		const ElfW(Sym) *s = &e->dynsym[i];
		const char *n = e->dynstr + s->st_name;

		if (s->st_name == 0 || s->st_name >= e->dynstr_size || !listed(n, s) ||
		    value < s->st_value || value - s->st_value >= s->st_size)
			continue;
		/* the nearest start, and of aliases there the one kallsyms sorts first */
		if (!best || s->st_value > best->st_value ||
		    (s->st_value == best->st_value && first(n, s, *name, best))) {
			best = s;
			*name = n;
		}
	}
	return best;
}

/*
 * Of the aliases of @s (dladdr1()'s choice, @name) in @e's .dynsym, the one
 * kallsyms sorts first: "printf" rather than the C library's "_IO_printf".
 */
static const char *preferred(const struct pks_elf *e, const ElfW(Sym) *s, const char *name)
{
	for (size_t i = 0; i < e->ndynsym; i++) {
		const ElfW(Sym) *a = &e->dynsym[i];
		const char *n = e->dynstr + a->st_name;

		if (a->st_value == s->st_value && a->st_name != 0 && a->st_name < e->dynstr_size &&
		    listed(n, a) && first(n, a, name, s)) {
			name = n;
			s = a;
		}
	}
	return name;
}

/* pks_elf_name()'s work, with every signal blocked. */
static bool named(const void *addr, struct pks_elf_name *out)
{
	const ElfW(Sym) *s = NULL;
	struct link_map *map = NULL;
	const struct obj *o;
	uint64_t file;
	Dl_info di;

	memset(out, 0, sizeof(*out));
	if (!dladdr1(addr, &di, (void **)&map, RTLD_DL_LINKMAP) || !map)
		return false;
	out->obj = di.dli_fname;
	out->obj_base = (uintptr_t)di.dli_fbase;
	out->main = !map->l_name || !map->l_name[0];
	file = file_id(map);
	if (!(o = find(out->obj_base, file)))
		o = add(out->obj_base, file, map, out->main);
	/* no pair: a hint (pks_elf_fault()); a table made zeroes meanwhile names nothing */
	if (o && atomic_load_explicit(&o->cut, memory_order_relaxed))
		o = NULL;
	if (o && (s = nearest(&o->elf, (uintptr_t)addr - o->bias, &out->name, &out->size))) {
		out->start = o->bias + s->st_value;
		return true;
	}
	if (dladdr1(addr, &di, (void **)&s, RTLD_DL_SYMENT) && di.dli_sname && s) {
		out->name = o ? preferred(&o->elf, s, di.dli_sname) : di.dli_sname;
		out->start = (uintptr_t)di.dli_saddr;
		out->size = s->st_size;
	} else if (o && (s = spanning(&o->elf, (uintptr_t)addr - o->bias, &out->name))) {
		out->start = o->bias + s->st_value;
		out->size = s->st_size;
	}
	return true;
}

/**
 * pks_elf_name() - what is known of the address @addr
 * @out: the function or data object (name, start, size) when a symbol
 *	spans it, and the object it is in
 * Every signal is blocked meanwhile: dladdr1() holds the dynamic linker's
 * lock, and add() the writer's, which a handler's jump out would leave
 * held for good, stalling every later dladdr(), dlopen() and look-up.
 * Return: false when it is in no loaded object. Not async-signal-safe.
 */
bool pks_elf_name(const void *addr, struct pks_elf_name *out)
{
	sigset_t old, all;
	bool r;

	/* SIGBUS left alone: met blocked, a file cut short would end the process (pks_elf_fault()) */
	sigfillset(&all);
	sigdelset(&all, SIGBUS);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = named(addr, out);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}
