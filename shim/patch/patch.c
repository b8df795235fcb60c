// SPDX-License-Identifier: MIT
/*
 * Taking over the printk functions the dynamic linker cannot interpose:
 * those defined inside the executable, whose own calls bind there, and those
 * a shared object binds its own calls to (-Bsymbolic, local, hidden or
 * protected definitions), and exported ones ahead of the shim in the lookup
 * order (a shim loaded by dlopen); also every definition of a
 * PRINTK_SHIM_SYMBOLS name, which the shim does not export (with
 * PRINTK_SHIM_PATCH=always, every definition found). Once, before main, each
 * loaded object's file is read (.symtab, else .dynsym: elf/elf.c) for
 * definitions of the wanted names, and the entry of each that needs it is
 * overwritten with a jump to the shim's entry of the same prototype (printk
 * or vprintk), after a landing pad (endbr64, bti) which stays. Every call
 * then arrives, direct or through any function pointer, with its arguments
 * and return address untouched. Only code whose file matches memory, in an
 * executable segment, long enough for the jump, is written, with its page
 * writable only meanwhile. Nothing is patched while other threads run, in
 * the C library or the dynamic linker, in the shim, or in objects loaded
 * later. What was found and done is kept for the PRINTK_SHIM_DEBUG report
 * and the exit-time warning (report.c).
 * Thread-safety: runs once, before other threads exist (it refuses to
 * patch otherwise); the results are read-only afterwards.
 */
#include "patch/patch.h"
#include "base/compiler.h"
#include "config/config.h"
#include "base/pid.h"
#include "base/say.h"
#include "base/show.h"
#include "base/sym.h"
#include "core/level.h"
#include "elf/calls.h"
#include "elf/elf.h"
#include "patch/arch.h"
#include "patch/why.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#endif
#include <unistd.h>

#define WANTS_MAX	(PKS_NSYMS + PKS_SYMBOLS_MAX)
#define SITES_MAX	64
#define CODE_MAX	16	/* the longest jump, and the bytes compared with the file */

static _Atomic bool scanned;	/* every object was looked at, no site left out */

/* What became of one definition. */
enum how {
	HOW_PENDING, HOW_PATCHED, HOW_ALIAS, HOW_INTERPOSED, HOW_NEVER, HOW_DISABLED,
	HOW_SHORT, HOW_NOSIZE, HOW_ARCH, HOW_THREADS, HOW_STALE, HOW_NOTEXT, HOW_LIBC,
	HOW_PROT, HOW_SELF,
};

struct want {
	const char *name;
	int to;			/* PKS_SYM_*: the shim's entry with the same prototype */
	bool imported;		/* the executable's .dynsym asks for it from elsewhere */
};

struct site {
	const char *obj;	/* the object's path (the dynamic linker's string, or exe_path) */
	uintptr_t entry;	/* run-time address */
	size_t size;		/* st_size in bytes; 0: unknown */
	unsigned char want, how, why;
	unsigned char keep;	/* bytes of landing pad left in front of the jump */
	unsigned char jump;	/* bytes written, or needed (HOW_SHORT) */
	bool dynsym;		/* found in .dynsym: the file has no .symtab */
	int err;		/* errno of mprotect; negative: the jump is in, the page stayed writable */
	char clone[48];		/* a copy of it the compiler made, which calls go to instead; or "" */
};

static const struct pks_sym *syms;	/* the shim's entry points, handed in */
static struct want wants[WANTS_MAX];
static int nwants;
static struct site sites[SITES_MAX];
static int nsites;
static bool exe_read;		/* the executable's file was read: what follows holds */
static bool exe_stripped;	/* the executable has no .symtab */
static bool exe_proc;		/* it was read as /proc/self/exe */
static int exe_formats;		/* its strings hold a marked format: 0 not known yet, 1, -1 */
static char exe_path[4096];

/* An object whose .dynsym asks for standard names (PRINTK_SHIM_DEBUG only). */
struct importer {
	const char *obj;	/* as struct site's */
	unsigned names;		/* bit PKS_SYM_*: imports that name */
};
static struct importer importers[SITES_MAX];
static int nimporters;

/* ---- finding the definitions -------------------------------------------- */

/*
 * The shim's own entry, by its hidden alias. Not syms[].ours: that is
 * bound through the GOT, where an executable that exports printk
 * (-rdynamic) wins, and patching it to jump "to the shim" would make it
 * jump to itself.
 */
static const void *own_entry(int sym)
{
	return syms[sym].here;
}

/* Called for every symbol of every object: the first byte rules most out. */
static int want_of(const char *name)
{
	for (int w = 0; w < nwants; w++)
		if (wants[w].name[0] == name[0] && !strcmp(wants[w].name, name))
			return w;
	return -1;
}

/*
 * The standard names first (index = PKS_SYM_*), then PRINTK_SHIM_SYMBOLS,
 * which a privileged (AT_SECURE) process never takes from its caller: they
 * would name any of its functions to be overwritten.
 */
static void collect(const struct pks_config *c)
{
	for (int i = 0; i < PKS_NSYMS; i++)
		wants[nwants++] = (struct want){ syms[i].name, i, false };
	for (int i = 0; !c->secure && i < c->set.nsymbols; i++) {
		const struct pks_symspec *sp = &c->set.symbols[i];

		if (want_of(sp->name) < 0)
			wants[nwants++] = (struct want){
				sp->name, sp->va ? PKS_SYM_VPRINTK : PKS_SYM_PRINTK, false };
	}
}

struct scan {
	const struct dl_phdr_info *info;
	const struct pks_elf *elf;
	const char *path;
	bool exe, symbolic, libc;
	bool after_shim;	/* the shim is ahead of this object in the lookup order */
};

/* Where dl_iterate_phdr() is: objects come in load order, the lookup order. */
struct walk {
	int index;
	bool shim_seen;
};

/* Is [@p, @p + @n) inside one of the object's loaded segments (executable ones: @x)? */
static bool in_segment(const struct dl_phdr_info *info, uintptr_t p, size_t n, bool x)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (!x || (ph->p_flags & PF_X)) && p >= lo &&
		    p - lo < ph->p_memsz && n <= ph->p_memsz - (p - lo))
			return true;
	}
	return false;
}

/* DT_SYMBOLIC or DF_SYMBOLIC: the object's own references bind inside it. */
static bool binds_locally(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Dyn) *d;

		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		d = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		for (; d->d_tag != DT_NULL; d++)
			if (d->d_tag == DT_SYMBOLIC ||
			    (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_SYMBOLIC)))
				return true;
	}
	return false;
}

/*
 * The code is read for calls bound inside (patch/why.h) only where the
 * dynamic linker's view alone would leave the definition alone: a few
 * definitions a process, each a linear pass over its object's code.
 */
static unsigned char why_of(const struct scan *sc, int w, const ElfW(Sym) *s)
{
	unsigned char why = pks_patch_why(sc->exe, s->st_info, s->st_other, sc->symbolic, false,
					   w >= PKS_NSYMS, sc->after_shim);

	/* the reasons the rule weighs after WHY_BOUND (why.h) */
	if (why >= WHY_RENAMED && pks_elf_calls(&sc->elf->im, s->st_value))
		why = WHY_BOUND;
	return why;
}

/* The code in memory is not what the file says (replaced on disk, patched already). */
static bool stale(const struct scan *sc, const ElfW(Sym) *s)
{
	size_t n = s->st_size < CODE_MAX ? s->st_size : CODE_MAX;
	const void *file = pks_elf_bytes(sc->elf, s->st_value, n);

	return !file || memcmp(file, (const void *)(sc->info->dlpi_addr + s->st_value), n);
}

static int visit(void *arg, const char *name, const ElfW(Sym) *s)
{
	const struct scan *sc = arg;
	struct site *st;
	int w;

	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE ||
	    ELF64_ST_TYPE(s->st_info) != STT_FUNC || (w = want_of(name)) < 0)
		return 0;
	if (nsites == SITES_MAX)
		return 1;
	st = &sites[nsites++];
	*st = (struct site){ .obj = sc->path, .entry = sc->info->dlpi_addr + s->st_value,
			     .size = s->st_size, .want = (unsigned char)w,
			     .why = why_of(sc, w, s), .dynsym = !sc->elf->symtab };
	pks_elf_clone(&sc->elf->im, name, st->clone, sizeof(st->clone));
	if (sc->libc)
		st->how = HOW_LIBC;
	else if (!in_segment(sc->info, st->entry, st->size, true))
		st->how = HOW_NOTEXT;
	else if (stale(sc, s))
		st->how = HOW_STALE;
	return 0;
}

/* The executable, opened as @path: its name for messages, stripped or not, what it imports. */
static void note_exe(const struct pks_elf *e, const char *path)
{
	ssize_t n = -1;

	if (!strcmp(path, "/proc/self/exe"))
		n = readlink(path, exe_path, sizeof(exe_path) - 1);
	if (n <= 0) {
		n = snprintf(exe_path, sizeof(exe_path), "%s", path);
		n = n < (ssize_t)sizeof(exe_path) ? n : (ssize_t)sizeof(exe_path) - 1;
	}
	exe_path[n] = '\0';
	exe_read = true;
	exe_proc = !strcmp(path, "/proc/self/exe");
	exe_stripped = !e->symtab;
	for (int w = 0; w < nwants; w++) {
		const ElfW(Sym) *s = pks_elf_find(e, true, wants[w].name);

		wants[w].imported = s && s->st_shndx == SHN_UNDEF;
	}
}

/* For the report: which standard names the object at @path imports. */
static void note_imports(const struct pks_elf *e, const char *path)
{
	unsigned names = 0;

	for (int w = 0; w < PKS_NSYMS; w++) {
		const ElfW(Sym) *s = pks_elf_find(e, true, wants[w].name);

		if (s && s->st_shndx == SHN_UNDEF)
			names |= 1u << w;
	}
	if (names && nimporters < SITES_MAX)
		importers[nimporters++] = (struct importer){ path, names };
}

static int defined(void *arg, const char *name, const ElfW(Sym) *s)
{
	return s->st_shndx != SHN_UNDEF && !strcmp(name, arg);
}

/* Open the object's file: the program's is /proc/self/exe, or AT_EXECFN when ld.so ran it. */
static const char *open_object(struct pks_elf *e, const struct dl_phdr_info *info, bool exe)
{
	const char *tries[2] = { exe ? "/proc/self/exe" : info->dlpi_name,
				 exe ? (const char *)getauxval(AT_EXECFN) : NULL };

	for (int i = 0; i < 2; i++) {
		if (!tries[i] || !*tries[i] || pks_elf_map(e, tries[i]))
			continue;
		if (pks_elf_loaded_as(e, info->dlpi_phdr, info->dlpi_phnum))
			return tries[i];
		pks_elf_unmap(e);
	}
	return NULL;
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct walk *wk = arg;
	struct scan sc = { .info = info, .exe = wk->index++ == 0, .after_shim = wk->shim_seen };
	struct pks_elf elf;

	(void)size;
	if (in_segment(info, (uintptr_t)pks_patch_apply, 1, false)) {
		wk->shim_seen = true;
		return 0;
	}
	/* No file to read: the vDSO ("linux-vdso.so.1"), or a name relative to who knows where. */
	if (!sc.exe && !strchr(info->dlpi_name, '/'))
		return 0;
	/* The C library and the dynamic linker, known by address: never patched. */
	sc.libc = !sc.exe && ((getauxval(AT_BASE) && info->dlpi_addr == getauxval(AT_BASE)) ||
			      in_segment(info, (uintptr_t)write, 1, true));
	if (sc.libc && !pks_config()->set.debug)
		return 0;	/* only PRINTK_SHIM_DEBUG's report lists what they define */
	if (!(sc.path = open_object(&elf, info, sc.exe)))
		return 0;
	sc.elf = &elf;
	if (sc.exe) {
		note_exe(&elf, sc.path);
		sc.path = exe_path;
	}
	if (pks_config()->set.debug)
		note_imports(&elf, sc.path);
	sc.symbolic = binds_locally(info);
	sc.libc = sc.libc || (!sc.exe && pks_elf_walk(&elf, true, defined, (void *)"__libc_start_main"));
	pks_elf_walk(&elf, elf.symtab == NULL, visit, &sc);
	pks_elf_unmap(&elf);
	return 0;
}

/* ---- writing the jumps ---------------------------------------------------- */

/* The protection of one line of /proc/self/maps if it maps @addr, else -1. */
static int line_prot(const char *l, uintptr_t addr)
{
	char *e;
	uintptr_t lo = strtoul(l, &e, 16), hi;

	if (*e != '-')
		return -1;
	hi = strtoul(e + 1, &e, 16);
	if (*e != ' ' || strnlen(e, 4) < 4 || addr < lo || addr >= hi)
		return -1;
	return (e[1] == 'r' ? PROT_READ : 0) | (e[2] == 'w' ? PROT_WRITE : 0) |
	       (e[3] == 'x' ? PROT_EXEC : 0);
}

/* The protection of the page at @addr; r-x when /proc/self/maps cannot say. */
static int prot_at(uintptr_t addr)
{
	char buf[8192], *nl;
	size_t have = 0;
	ssize_t got;
	int prot = -1, fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	while (fd >= 0 && prot < 0 && (got = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		char *l = buf;

		have += (size_t)got;
		buf[have] = '\0';
		for (; prot < 0 && (nl = strchr(l, '\n')); l = nl + 1)
			prot = line_prot(l, addr);
		have -= (size_t)(l - buf);
		memmove(buf, l, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* longer than any maps line can be */
	}
	if (fd >= 0)
		close(fd);
	return prot < 0 ? PROT_READ | PROT_EXEC : prot;
}

/*
 * Write @n bytes of code at @at, each page writable only meanwhile (and still
 * executable: it may hold code that runs while we write).
 * Return: 0; an errno before anything was written; minus an errno when the
 * code is in but a page could not get its protection back.
 */
static int poke(uintptr_t at, const void *code, size_t n)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t first = at & ~(pg - 1), last = (at + n - 1) & ~(pg - 1);
	int prot[2] = { prot_at(first), prot_at(last) }, err = 0;

	if (mprotect((void *)first, last + pg - first, prot[0] | prot[1] | PROT_WRITE))
		return errno;
	memcpy((void *)at, code, n);
	arch_sync((char *)at, n);
	for (int i = 0; i < (last == first ? 1 : 2); i++)
		if (mprotect((void *)(i ? last : first), pg, prot[i]))
			err = -errno;
	return err;
}

static unsigned char patch(struct site *s)
{
	unsigned char code[CODE_MAX];
	size_t n, need;

	if (s->entry == (uintptr_t)own_entry(wants[s->want].to))
		return HOW_SELF;
	if (!ARCH_OK)
		return HOW_ARCH;
	if (s->size == 0)
		return HOW_NOSIZE;
	s->keep = (unsigned char)arch_keep((const unsigned char *)s->entry, s->size);
	n = arch_jump(code, s->entry + s->keep, (uintptr_t)own_entry(wants[s->want].to),
		      s->size - s->keep, &need);
	s->jump = (unsigned char)need;
	if (!n)
		return HOW_SHORT;
	s->err = poke(s->entry + s->keep, code, n);
	return s->err > 0 ? HOW_PROT : HOW_PATCHED;
}

static bool patched_at(uintptr_t entry)
{
	for (int i = 0; i < nsites; i++)
		if (sites[i].entry == entry && sites[i].how == HOW_PATCHED)
			return true;
	return false;
}

/* Threads in this process per /proc/self/status; 1 when it cannot say. */
static int threads(void)
{
	int n = pks_pid_threads();

	return n ? n : 1;
}

/*
 * Only this thread runs? glibc's flag knows the program's own threads (under
 * qemu-user, /proc also counts the emulator's); /proc is asked when it says
 * no, as a thread may have come and gone.
 */
static bool alone(void)
{
#if __has_include(<sys/single_threaded.h>)
	if (__libc_single_threaded)
		return true;
#endif
	return threads() == 1;
}

static unsigned char decide(const struct pks_config *c, const struct site *s)
{
	enum pks_patch patch = c->secure ? PKS_PATCH_AUTO : c->set.patch;	/* as collect() */

	if (c->set.disable)
		return HOW_DISABLED;
	if (patch == PKS_PATCH_NEVER)
		return HOW_NEVER;
	if (patch == PKS_PATCH_AUTO && s->why == WHY_NONE)
		return HOW_INTERPOSED;
	return patched_at(s->entry) ? HOW_ALIAS : HOW_PENDING;
}

/*
 * A definition patched, or one the program's own calls bind to, that the
 * compiler copied (pks_elf_clone()): the calls that go to the copy are
 * never the shim's, which is said, not left silent (printk-shim(7)
 * LIMITATIONS).
 */
static void cloned(const struct site *s)
{
	if (s->clone[0] && (s->how == HOW_PATCHED || s->how == HOW_ALIAS) && pks_may_show(s->obj))
		pks_warn("%s: %s is patched, but the compiler made a copy of it (%s) that calls go to "
			 "instead: their lines are not the shim's (build it with -fno-ipa-cp-clone "
			 "-fno-ipa-sra -fno-partial-inlining)", s->obj, wants[s->want].name, s->clone);
}

static void take_over(const struct pks_config *c)
{
	int single = -1;

	for (int i = 0; i < nsites; i++) {
		struct site *s = &sites[i];

		if (s->how != HOW_PENDING || (s->how = decide(c, s)) != HOW_PENDING)
			continue;
		if (single < 0)
			single = alone();
		s->how = single ? patch(s) : HOW_THREADS;
		cloned(s);
	}
}

/**
 * pks_patch_apply() - find the wanted definitions and patch those that need it
 * @table: the shim's entry points, PKS_NSYMS of them, indexed by PKS_SYM_*
 * Once; later calls return at once. With PRINTK_SHIM_DISABLE=1 or
 * PRINTK_SHIM_PATCH=never nothing is written; the definitions are still
 * looked up when PRINTK_SHIM_DEBUG=1 asks for the report.
 */
void pks_patch_apply(const struct pks_sym *table)
{
	static _Atomic int once;
	const struct pks_config *c = pks_config();
	struct walk wk = { 0, false };
	int saved = errno;

	if (atomic_exchange(&once, 1))	/* no pair: it only elects the one that patches */
		return;
	syms = table;
	if ((c->set.disable || c->set.patch == PKS_PATCH_NEVER) && !c->set.debug)
		return;
	collect(c);
	dl_iterate_phdr(scan_object, &wk);
	/* release: pairs with the acquire of scanned below: the sites first */
	atomic_store_explicit(&scanned, nsites < SITES_MAX, memory_order_release);
	take_over(c);
	errno = saved;
}

/* ---- what the diagnostics ask ----------------------------------------------- */

/**
 * pks_patch_exe_unpatched() - what the start-up scan found in the executable,
 * so that the exit-time check need not read the file again
 * @which: out; the PKS_SYM_* of an entry point defined there and not patched
 * Return: the executable's path (and *@which), NULL if there is none, or
 * PKS_PATCH_UNKNOWN when no complete scan ran.
 */
const char *pks_patch_exe_unpatched(int *which)
{
	/* acquire: pairs with the release of scanned above */
	if (!atomic_load_explicit(&scanned, memory_order_acquire))
		return PKS_PATCH_UNKNOWN;
	for (int i = 0; i < nsites; i++)
		if (sites[i].why == WHY_EXE && sites[i].want < PKS_NSYMS &&
		    !pks_patch_taken(wants[sites[i].want].name)) {
			*which = sites[i].want;
			return exe_path;
		}
	return NULL;
}

/** pks_patch_covers() - Return: whether @entry is a function patched to jump to the shim. */
bool pks_patch_covers(const void *entry)
{
	for (int i = 0; i < nsites; i++)
		if (sites[i].entry == (uintptr_t)entry &&
		    (sites[i].how == HOW_PATCHED || sites[i].how == HOW_ALIAS))
			return true;
	return false;
}

/** pks_patch_taken() - Return: whether a definition of @name inside the executable was patched. */
bool pks_patch_taken(const char *name)
{
	for (int i = 0; i < nsites; i++)
		if (sites[i].why == WHY_EXE && !strcmp(wants[sites[i].want].name, name) &&
		    (sites[i].how == HOW_PATCHED || sites[i].how == HOW_ALIAS))
			return true;
	return false;
}

static const char *const why_text[] = {
	[WHY_EXE] = ": its own calls bind there and cannot be interposed",
	[WHY_SYMBOLIC] = ", which binds its own calls (-Bsymbolic): they cannot be interposed",
	[WHY_BOUND] = ", whose own code calls it directly, bound at link time (-Bsymbolic-functions): "
		      "those calls cannot be interposed",
	[WHY_LOCAL] = " as a local (static or hidden) symbol: its calls cannot be interposed",
	[WHY_HIDDEN] = " with hidden visibility: its calls cannot be interposed",
	[WHY_PROTECTED] = " with protected visibility: calls from inside cannot be interposed",
	[WHY_RENAMED] = ": the shim exports no such name; only a patch can reach it",
	[WHY_FIRST] = ", exported, but ahead of the shim in the lookup order: nothing interposes it",
	[WHY_NONE] = ", exported: the dynamic linker can interpose it",
};

static const char *const how_text[] = {
	[HOW_PENDING] = "not looked at",
	[HOW_PATCHED] = "patched",
	[HOW_ALIAS] = "patched: the same function as another name",
	[HOW_INTERPOSED] = "interposed: the dynamic linker routes its calls to the shim; not patched",
	[HOW_NEVER] = "not reachable: PRINTK_SHIM_PATCH=never",
	[HOW_DISABLED] = "left alone: PRINTK_SHIM_DISABLE=1",
	[HOW_SHORT] = "not reachable: too short",
	[HOW_NOSIZE] = "not reachable: its symbol has no size, so a jump might not fit",
	[HOW_ARCH] = "not reachable: patching is not supported on this architecture",
	[HOW_THREADS] = "not reachable: other threads were running when the shim loaded",
	[HOW_STALE] = "not reachable: the file on disk does not match the loaded code",
	[HOW_NOTEXT] = "not reachable: not in an executable segment",
	[HOW_LIBC] = "left alone: the shim never patches the C library or the dynamic linker",
	[HOW_PROT] = "not reachable: mprotect failed",
	[HOW_SELF] = "left alone: it is the shim's own entry",
};

/* The detail after how_text: sizes, the jump, the error, the machine. */
static void detail(const struct site *s, char *buf, size_t size)
{
	struct utsname u;

	buf[0] = '\0';
	if (s->how == HOW_PATCHED)
		snprintf(buf, size, ": a %u-byte jump to the shim's %s%s%s%s%s%s", s->jump,
			 syms[wants[s->want].to].name, s->keep ? " after the landing pad" : "",
			 s->err ? "; its page stayed writable: " : "",
			 s->err ? pks_strerror(-s->err) : "",
			 s->clone[0] ? "; not the calls to its copy " : "", s->clone);
	else if (s->how == HOW_SHORT)
		snprintf(buf, size, " (%zu bytes, the jump needs %u)", s->size - s->keep, s->jump);
	else if (s->how == HOW_PROT)
		snprintf(buf, size, ": %s", pks_strerror(s->err));
	else if (s->how == HOW_ARCH && uname(&u) == 0)
		snprintf(buf, size, " (%s)", u.machine);
}

/**
 * pks_patch_report() - PRINTK_SHIM_DEBUG lines on where @name is defined and
 * what became of each definition
 * Return: how many definitions were found.
 */
int pks_patch_report(const char *name)
{
	int w = want_of(name), n = 0;
	bool secure = pks_config()->secure;
	char more[160];

	for (int i = 0; w >= 0 && i < nsites; i++) {
		const struct site *s = &sites[i];

		if (s->want != w || !pks_may_show(s->obj))
			continue;
		detail(s, more, sizeof(more));
		pks_debug("%s: defined %s %s%s", name,
			  s->why == WHY_EXE ? "inside the executable" : "in", s->obj, why_text[s->why]);
		if (secure)	/* no address for the caller: it would undo ASLR */
			pks_debug("%s: %zu bytes (%s): %s%s", name, s->size,
				  s->dynsym ? ".dynsym" : ".symtab", how_text[s->how], more);
		else
			pks_debug("%s: at %#lx, %zu bytes (%s): %s%s", name, (unsigned long)s->entry,
				  s->size, s->dynsym ? ".dynsym" : ".symtab", how_text[s->how], more);
		n++;
	}
	if (!n && w >= PKS_NSYMS)
		pks_debug("%s: not defined in any loaded object's symbol tables", name);
	return n;
}

/**
 * pks_patch_importers() - the objects whose .dynsym imports the standard
 * name @name, as seen by the start-up scan of a PRINTK_SHIM_DEBUG run
 * @list: out; their paths, ", " between them (cut short if it must be)
 * Return: how many.
 */
int pks_patch_importers(const char *name, char *list, size_t size)
{
	int w = want_of(name), n = 0;
	size_t len = 0;

	list[0] = '\0';
	for (int i = 0; w >= 0 && w < PKS_NSYMS && i < nimporters; i++) {
		if (!(importers[i].names & (1u << w)) || !pks_may_show(importers[i].obj))
			continue;
		if (len < size)
			len += (size_t)snprintf(list + len, size - len, "%s%s", n ? ", " : "",
						importers[i].obj);
		n++;
	}
	return n;
}

static int marked(void *arg, const char *s)
{
	return pks_level_marked(s, *(const bool *)arg) != 0;
}

/* Does the executable's read-only data hold a format with level markers (core/level.c)? */
static bool exe_has_formats(void)
{
	struct pks_elf_image im;

	if (!exe_formats && !pks_elf_open(&im, exe_proc ? "/proc/self/exe" : exe_path)) {
		bool legacy = pks_config()->set.legacy_markers;

		exe_formats = pks_elf_rodata_strings(&im, legacy ? "\001<" : "\001", marked,
						     &legacy) ? 1 : -1;
		pks_elf_close(&im);
	}
	return exe_formats > 0;
}

/**
 * pks_patch_exe_opaque() - Return: the executable's path when the start-up
 * scan read it and what it says of its printk cannot be checked: stripped
 * (no .symtab), neither importing nor exporting any standard name, and
 * with a format after level markers among its strings. A printk of its
 * own, if it has one, can then be neither seen nor patched. NULL otherwise,
 * as for a shell, whose strings have no format.
 * Context: start-up or exit; it reads the file the first time.
 */
const char *pks_patch_exe_opaque(void)
{
	if (!exe_read || !exe_stripped || !pks_may_show(exe_path))
		return NULL;
	for (int w = 0; w < PKS_NSYMS; w++)
		if (wants[w].imported)
			return NULL;
	for (int i = 0; i < nsites; i++)
		if (sites[i].why == WHY_EXE && sites[i].want < PKS_NSYMS)
			return NULL;
	return exe_has_formats() ? exe_path : NULL;
}

/** pks_patch_exe() - Return: the executable's path, if the start-up scan read it, else NULL. */
const char *pks_patch_exe(void)
{
	return exe_read ? exe_path : NULL;
}
