// SPDX-License-Identifier: MIT
/*
 * printk-shim --index and --check: a binary's file read, never run
 * (elf/elf.c reads it). --index prints the .printk_index records the
 * headers leave, in the kernel's debugfs format, or for a binary built
 * without them the read-only strings that start with a level marker before
 * text that looks like a format; every string from a file is escaped;
 * --check says, per binary and the libraries it names, whether its printk
 * calls will reach the shim, by the rules the patching code applies at
 * start-up (patch/why.h, and patch/arch.h for whether a jump fits).
 * printk-shim(1) has both output formats.
 */
#include "cmd/inspect.h"
#include "cmd/quote.h"
#include "cmd/shrunk.h"
#include "base/sym.h"
#include "core/escape.h"
#include "core/level.h"
#include "elf/calls.h"
#include "elf/elf.h"
#include "patch/arch.h"
#include "patch/why.h"

#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#define LOGLEVEL_DEFAULT	(-1)	/* the kernel's: no level marker */
_Static_assert(LOGLEVEL_DEFAULT == PKS_LEVEL_NONE, "no marker, as core/level.c says");
#define SOH			'\001'	/* KERN_SOH, before a level or 'c' */

/* The names the shim exports (entry.c's table has them with their code). */
static const char *const names[PKS_NSYMS] = {
	[PKS_SYM_PRINTK] = "printk", [PKS_SYM__PRINTK] = "_printk",
	[PKS_SYM_PRINTK_DEFERRED] = "printk_deferred",
	[PKS_SYM__PRINTK_DEFERRED] = "_printk_deferred", [PKS_SYM_VPRINTK] = "vprintk",
};

/* ---- the kernel's escaping and level markers ------------------------------ */

/* @s as the kernel's printk index shows a format (core/escape.c). */
static void escape(FILE *out, const char *s)
{
	char one[PKS_ESCAPE_MAX];

	for (; *s; s++)
		fwrite(one, 1, pks_escape_byte(one, (unsigned char)*s), out);
}

/* Whether the legacy "<N>" markers are markers: the entry points' @legacy_markers. */
static bool legacy;

/*
 * The leading level markers of @s, as the module reads them (core/level.c:
 * KERN_DEFAULT's SOH 'd' too) and the kernel's printk_parse_prefix()
 * reports them: the first digit wins, 'c' marks a continuation.
 * Return: the bytes they take.
 */
static size_t parse_prefix(const char *s, int *level, bool *cont)
{
	struct pks_mark m;
	size_t n = pks_level_parse(s, strlen(s), legacy, &m);

	*level = m.level;
	*cont = m.flags & PKS_M_CONT;
	return n;
}

/* "<6>", "<c>" or "<6,c>", as the kernel's index shows the level and flags. */
static void print_level(FILE *out, int level, bool cont)
{
	if (cont && level == LOGLEVEL_DEFAULT)
		fputs("<c>", out);
	else
		fprintf(out, cont ? "<%d,c>" : "<%d>", level);
}

/* ---- --index ---------------------------------------------------------------- */

/* One record of .printk_index, its pointers followed. */
struct entry {
	const char *fmt, *func, *file, *level, *prefix;
	unsigned line;
	size_t order;	/* in the section: the last key */
};

static int by_place(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = x->file == y->file ? 0 : strcmp(x->file, y->file);	/* one string, maybe megabytes */

	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static const char unknown[] = "?";	/* a field whose pointer leads nowhere */

/* The string field @i of the record at @p: NULL when it is 0, unknown when it leads nowhere. */
static const char *field_str(struct pks_elf_image *im, const unsigned char *p, int i)
{
	unsigned ps = pks_elf_ptrsize(im);
	uint64_t a = pks_elf_word(im, p + (size_t)i * ps, ps);
	const char *s = a ? pks_elf_string(im, a) : NULL;

	return a && !s ? unknown : s;
}

static void print_entry(FILE *out, const struct entry *e)
{
	int level = LOGLEVEL_DEFAULT;
	bool cont = false;
	size_t skip = 0;

	if (e->level)
		parse_prefix(e->level, &level, &cont);
	else
		skip = parse_prefix(e->fmt, &level, &cont);
	print_level(out, level, cont);
	fputc(' ', out);
	escape(out, e->file);	/* as every string from the file: none forges a line */
	fprintf(out, ":%u ", e->line);
	escape(out, e->func);
	fputs(" \"", out);
	if (e->prefix)
		escape(out, e->prefix);
	escape(out, e->fmt + skip);
	fputs("\"\n", out);
}

/*
 * The records of struct pi_entry (<linux/printk.h>): six pointer-sized
 * fields, the line an unsigned int in the fourth. Those without a format
 * (a call whose format was no literal) are left out, as the kernel does.
 */
static void print_records(FILE *out, struct pks_elf_image *im, const unsigned char *sec,
			  size_t size)
{
	size_t stride = 6 * (size_t)pks_elf_ptrsize(im), n = 0;
	struct entry *e = calloc(size / stride + 1, sizeof(*e));

	for (size_t off = 0; e && off + stride <= size; off += stride) {
		const unsigned char *p = sec + off;
		struct entry *x = &e[n];

		x->fmt = field_str(im, p, 0);
		if (!x->fmt || x->fmt == unknown)
			continue;
		x->func = field_str(im, p, 1);
		x->file = field_str(im, p, 2);
		x->line = (unsigned)pks_elf_word(im, p + 3 * pks_elf_ptrsize(im), 4);
		x->level = field_str(im, p, 4);
		x->prefix = field_str(im, p, 5);
		x->func = x->func ? x->func : unknown;
		x->file = x->file ? x->file : unknown;
		x->order = n++;
	}
	if (e)
		qsort(e, n, sizeof(*e), by_place);
	for (size_t i = 0; i < n; i++)
		print_entry(out, &e[i]);
	free(e);
}

/* A string of read-only data that starts with level markers before text that looks like a format. */
static int print_marked(void *arg, const char *s)
{
	FILE *out = arg;
	int level = LOGLEVEL_DEFAULT;
	bool cont = false;
	size_t skip;

	if (!pks_level_marked(s, legacy))
		return 0;
	if (!out)
		return 1;	/* one is enough to know */
	skip = parse_prefix(s, &level, &cont);
	print_level(out, level, cont);
	fputs(" ?:? ? \"", out);
	escape(out, s + skip);
	fputs("\"\n", out);
	return 0;
}

/*
 * Without the index: every NUL-terminated string of the allocated,
 * read-only, non-executable sections that starts where a string can (at
 * the section's start or after a NUL) with level markers before text that
 * looks like a format (core/level.c), in file order, listed on @out.
 * With @out NULL: whether there is one.
 */
static bool print_partial(FILE *out, const struct pks_elf_image *im)
{
	return pks_elf_rodata_strings(im, legacy ? "\001<" : "\001", print_marked, out) != 0;
}

/*
 * One line on stderr for a file that is not read: what it is (@why, or
 * @err's), what was expected, what is done.
 */
static int cannot(const char *opt, const char *path, int err, const char *why)
{
	fprintf(stderr, "printk-shim: %s: '%s': %s: expected an ELF program or shared object; skipped\n",
		opt, pks_quote(path), why ? why : pks_elf_strerror(err));
	return PKS_INSPECT_ERROR;
}

/*
 * @path, read for @opt, met a file cut short meanwhile (cmd/shrunk.c): the
 * zeros read in its place may have changed what was found, which @done says.
 */
static int shrank(const char *opt, const char *path, const char *done)
{
	fprintf(stderr, "printk-shim: %s: '%s': a file shrank while it was read; expected it to stay "
		"as it was; %s\n", opt, pks_quote(path), done);
	return PKS_INSPECT_ERROR;
}

/*
 * Open @path for @opt, a program or a shared object: anything else is
 * refused by cannot(), into *@rc. A file cut short while its headers were
 * read (cmd/shrunk.c) is refused too, and that is its news, not the next file's.
 */
static bool opened(struct pks_elf_image *im, const char *opt, const char *path, int err, int *rc)
{
	const char *why = NULL;

	if (!err && !(err = pks_elf_open(im, path)) && (why = pks_elf_unlinked(im)))
		pks_elf_close(im);
	if (!err && !why)
		return true;
	pks_shrunk_seen();
	*rc = cannot(opt, path, err, why);
	return false;
}

/**
 * pks_inspect_index() - the printk index of each of the @n files @paths on @out
 * @legacy_markers: whether "<N>" tokens are level markers too, as the
 *	module's PRINTK_SHIM_LEGACY_MARKERS says
 * Return: 0, or PKS_INSPECT_ERROR when a file could not be read (the
 * others are still listed).
 */
int pks_inspect_index(char *const *paths, int n, FILE *out, bool legacy_markers)
{
	int rc = 0;

	legacy = legacy_markers;
	for (int i = 0; i < n; i++) {
		struct pks_elf_image im;
		const unsigned char *sec;
		size_t size = 0;

		if (!opened(&im, "--index", paths[i], 0, &rc))
			continue;
		if (n > 1) {
			fputs("# file: ", out);
			escape(out, paths[i]);
			fputc('\n', out);
		}
		fputs("# <level/flags> filename:line function \"format\"\n", out);
		if ((sec = pks_elf_section(&im, ".printk_index", &size))) {
			print_records(out, &im, sec, size);
		} else {
			fputs("# partial: no .printk_index; the read-only strings that start with a level marker\n",
			      out);
			print_partial(out, &im);
		}
		fflush(out);
		if (pks_shrunk_seen())
			rc = shrank("--index", paths[i], "what was printed for it may be cut short or wrong");
		pks_elf_close(&im);
	}
	return rc;
}

/* ---- --check ------------------------------------------------------------------ */

/* What the file says of its printk functions. */
struct found {
	const char *defined;	/* a name it defines as a function */
	struct pks_elf_symbol sym;	/* that definition */
	bool symtab;		/* it has .symtab (else the definition came from .dynsym) */
};

/* Whether @im defines @name as a function; its definition into @f. */
static bool defines(const struct pks_elf_image *im, const char *name, struct found *f)
{
	struct pks_elf_symbol s;

	if (!pks_elf_symbol(im, !f->symtab, name, &s) || s.shndx == SHN_UNDEF ||
	    s.shndx >= SHN_LORESERVE || ELF64_ST_TYPE(s.info) != STT_FUNC)
		return false;
	f->defined = name;
	f->sym = s;
	return true;
}

/* Whether @im's .dynsym asks for @name from elsewhere. */
static bool imports(const struct pks_elf_image *im, const char *name)
{
	struct pks_elf_symbol s;

	return pks_elf_symbol(im, true, name, &s) && s.shndx == SHN_UNDEF;
}

/* The machine patching runs on in this build (patch/arch.h), as e_machine. */
#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#else
#define HOST_MACHINE EM_NONE
#endif

/*
 * The code at the definition's entry, from the executable segment that
 * holds it (as patch.c asks of the loaded object): sections need not be there.
 */
static const unsigned char *code_at(const struct pks_elf_image *im, uint64_t addr, uint64_t size)
{
	struct pks_elf_seg s;

	for (unsigned i = 0; pks_elf_seg_at(im, i, &s); i++)
		if (s.type == PT_LOAD && (s.flags & PF_X) && s.bytes && addr >= s.vaddr &&
		    addr - s.vaddr <= s.filesz && size <= s.filesz - (addr - s.vaddr))
			return s.bytes + (addr - s.vaddr);
	return NULL;
}

/*
 * Would patch.c's jump fit the definition? Its own arch_keep() and
 * arch_jump(), asked for a jump out of reach of a short one (the shim is
 * mapped far from a program). Only for this build's machine: a file of
 * another is reached by its own class's module, which says at start-up.
 */
static const char *jump_fits(const struct pks_elf_image *im, const struct found *f, char *buf,
			     size_t size)
{
	unsigned char code[32];
	const unsigned char *entry;
	size_t keep, need;

	if (im->machine != HOST_MACHINE || !ARCH_OK)
		return NULL;
	if (f->sym.size == 0)
		return "its symbol has no size, so a jump might not fit";
	if (!(entry = code_at(im, f->sym.value, f->sym.size)))
		return "its code is not in an executable segment";
	keep = arch_keep(entry, f->sym.size);
	if (!arch_jump(code, (uintptr_t)f->sym.value + keep, (uintptr_t)f->sym.value + keep +
		       ((uintptr_t)1 << 40), f->sym.size - keep, &need)) {
		snprintf(buf, size, "%zu bytes, the jump needs %zu", (size_t)f->sym.size - keep, need);
		return buf;
	}
	return NULL;
}

/* Is the machine one patch/arch.h has a jump for? */
static bool patchable(unsigned machine)
{
	return machine == EM_X86_64 || machine == EM_AARCH64;
}

/*
 * Does a shared object's own definition need the patch? patch/why.h's
 * rule, as patch.c applies it at start-up to an object the shim precedes.
 */
static bool binds_inside(const struct pks_elf_image *im, const struct found *f)
{
	uint64_t flags = 0;
	bool symbolic = pks_elf_dynamic(im, DT_SYMBOLIC, &flags) ||
			(pks_elf_dynamic(im, DT_FLAGS, &flags) && (flags & DF_SYMBOLIC));

	return pks_patch_why(false, f->sym.info, f->sym.other, symbolic,
			     pks_elf_calls(im, f->sym.value), false, true) != WHY_NONE;
}

/* How far an object's printk calls get; a binary's line says the worst of its objects'. */
enum reach { R_NONE, R_INTERPOSED, R_PATCHED, R_UNREACHED };

struct verdict {
	enum reach reach;
	char text[384];		/* the line after "PATH: " */
};

static __attribute__((format(printf, 3, 4)))
void set(struct verdict *v, enum reach reach, const char *fmt, ...)
{
	va_list ap;

	v->reach = reach;
	va_start(ap, fmt);
	vsnprintf(v->text, sizeof(v->text), fmt, ap);
	va_end(ap);
}

/* The multiarch directories of the default search, per machine. */
static const struct { unsigned machine; const char *triplet; } triplets[] = {
	{ EM_X86_64, "x86_64-linux-gnu" }, { EM_386, "i386-linux-gnu" },
	{ EM_AARCH64, "aarch64-linux-gnu" }, { EM_ARM, "arm-linux-gnueabihf" },
	{ EM_RISCV, "riscv64-linux-gnu" }, { EM_PPC64, "powerpc64le-linux-gnu" },
	{ EM_S390, "s390x-linux-gnu" },
};

/* @machine's name for a message: its triplet's first word, or its number. */
static const char *machine_name(unsigned machine, char *buf, size_t size)
{
	for (size_t i = 0; i < sizeof(triplets) / sizeof(triplets[0]); i++)
		if (triplets[i].machine == machine) {
			snprintf(buf, size, "%.*s", (int)strcspn(triplets[i].triplet, "-"),
				 triplets[i].triplet);
			return buf;
		}
	snprintf(buf, size, "e_machine %u", machine);
	return buf;
}

/* The verdict on @f, one definition of @who's; @exe: a program, whose calls bind inside. */
static void definition(const struct pks_elf_image *im, bool exe, const char *who,
		       const struct found *f, struct verdict *v)
{
	char why[96];
	const char *no_fit;

	if (!exe && !binds_inside(im, f))
		set(v, R_INTERPOSED, "interposed: %s exports %s, and the shim's comes first in the lookup order",
		    who, f->defined);
	else if (!patchable(im->machine))
		set(v, R_UNREACHED, "not reachable: %s defines %s itself, and patching is not supported "
		    "for %s code", who, f->defined, machine_name(im->machine, why, sizeof(why)));
	else if ((no_fit = jump_fits(im, f, why, sizeof(why))))
		set(v, R_UNREACHED, "not reachable: %s defines %s itself, and cannot be patched: %s",
		    who, f->defined, no_fit);
	else if (pks_elf_clone(im, f->defined, why, sizeof(why)))
		set(v, R_UNREACHED, "not reachable: %s defines %s itself, and the compiler made a "
		    "copy of it (%s) that calls go to instead, past the jump the shim writes at "
		    "its entry", who, f->defined, why);
	else
		set(v, R_PATCHED, "patched: %s defines %s itself (%s); the shim writes a jump at its entry",
		    who, f->defined, f->symtab ? ".symtab" : ".dynsym");
}

/*
 * The verdict on one object's own printk, @who ("it", "its library
 * libfoo.so") in the text; @exe: a program, whose calls bind inside. Each
 * name is judged as patch.c judges it at start-up, and the worst said: a
 * library that exports printk and hides the vprintk its own calls reach
 * is patched there. Only for the file named (@who "it") do level markers in
 * a stripped object's strings count as a printk of its own: a library's,
 * the C library's first, have them for other reasons.
 */
static void object(const struct pks_elf_image *im, bool exe, const char *who, struct verdict *v)
{
	struct found f = { .symtab = pks_elf_has_symtab(im, false) };
	const char *imported = NULL;
	bool named = !strcmp(who, "it"), any = false;
	struct verdict d;

	v->reach = R_NONE;
	for (int i = 0; i < PKS_NSYMS; i++) {
		if (!imported && imports(im, names[i]))
			imported = names[i];
		if (!defines(im, names[i], &f))
			continue;
		definition(im, exe, who, &f, &d);
		if (!any || d.reach > v->reach)
			*v = d;
		any = true;
	}
	if (imported && v->reach <= R_INTERPOSED)
		set(v, R_INTERPOSED, "interposed: %s imports %s through the PLT", who, imported);
	else if (imported || any)
		return;
	else if (f.symtab || !named || !print_partial(NULL, im))
		set(v, R_NONE, "no printk: %s neither imports nor defines printk, _printk, printk_deferred, "
		    "_printk_deferred or vprintk%s", who, f.symtab ? "" : " (stripped: its strings say the same)");
	else
		set(v, R_UNREACHED, "not reachable: %s is stripped, imports no printk, and has strings with "
		    "level markers: a printk of its own cannot be found", who);
}

/* The directories of one list tried: real ones have a few, a crafted DT_RPATH millions. */
#define SEARCH_MAX 64

/*
 * Open library @name in the colon-separated @dirs, $ORIGIN standing for
 * @origin, as the dynamic linker would for @exe: the first of its class
 * and machine, among the first SEARCH_MAX directories. Return: true with
 * @lib open.
 */
static bool open_in(const struct pks_elf_image *exe, const char *dirs, const char *origin,
		    const char *name, struct pks_elf_image *lib)
{
	char path[4096];
	int tried = 0;

	for (const char *d = dirs; d && *d && tried < SEARCH_MAX;
	     d += strcspn(d, ":"), d += *d == ':', tried++) {
		int len = (int)strcspn(d, ":");
		bool o = !strncmp(d, "$ORIGIN", 7) || !strncmp(d, "${ORIGIN}", 9);
		int skip = !o ? 0 : d[1] == '{' ? 9 : 7;

		if (len == 0 || skip > len)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s%.*s/%s", o ? origin : "", len - skip,
				     d + skip, name) >= sizeof(path) || pks_elf_open(lib, path))
			continue;
		if (lib->cls == exe->cls && lib->machine == exe->machine)
			return true;
		pks_elf_close(lib);
	}
	return false;
}

/*
 * Find DT_NEEDED @name of @exe (at @exe_path) where the dynamic linker looks:
 * DT_RPATH (without DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, then the
 * default directories; /etc/ld.so.cache is not read. $ORIGIN is the folder
 * of a @program's own file, its links followed (the dynamic linker reads
 * /proc/self/exe), or of the path a library was found at.
 */
static bool open_needed(struct pks_elf_image *exe, const char *exe_path, bool program,
			const char *name, struct pks_elf_image *lib)
{
	char origin[4096], defaults[512] = "", *real = program ? realpath(exe_path, NULL) : NULL;
	uint64_t strtab = 0, rpath = 0, runpath = 0;
	bool has_run, has_r;
	const char *at = real ? real : exe_path, *slash = strrchr(at, '/');

	snprintf(origin, sizeof(origin), "%.*s", slash ? (int)(slash - at) : 1, slash ? at : ".");
	free(real);
	if (strchr(name, '/'))
		return !pks_elf_open(lib, name) || (memset(lib, 0, sizeof(*lib)), false);
	pks_elf_dynamic(exe, DT_STRTAB, &strtab);
	has_run = pks_elf_dynamic(exe, DT_RUNPATH, &runpath);
	has_r = pks_elf_dynamic(exe, DT_RPATH, &rpath);
	for (size_t i = 0; i < sizeof(triplets) / sizeof(triplets[0]); i++)
		if (triplets[i].machine == exe->machine)
			snprintf(defaults, sizeof(defaults), "/lib/%s:/usr/lib/%s:", triplets[i].triplet,
				 triplets[i].triplet);
	strncat(defaults, exe->cls == ELFCLASS64 ? "/lib64:/usr/lib64:/lib:/usr/lib" : "/lib32:/usr/lib32:/lib:/usr/lib",
		sizeof(defaults) - strlen(defaults) - 1);
	return (has_r && !has_run && open_in(exe, pks_elf_string(exe, strtab + rpath), origin, name, lib)) ||
	       open_in(exe, getenv("LD_LIBRARY_PATH"), origin, name, lib) ||
	       (has_run && open_in(exe, pks_elf_string(exe, strtab + runpath), origin, name, lib)) ||
	       open_in(exe, defaults, origin, name, lib);
}

/*
 * The verdict on a binary: its own printk, then that of each library it
 * names (DT_NEEDED, not theirs in turn), the worst kept; then what keeps
 * LD_PRELOAD away from all of them.
 * Return: whether its printk calls reach the shim.
 */
static void verdict(struct pks_elf_image *im, const char *path, const struct stat *st,
		    struct verdict *out)
{
	uint64_t flags1 = 0, strtab = 0, needed[64];
	bool exe = im->type == ET_EXEC || pks_elf_has_segment(im, PT_INTERP) ||
		   (pks_elf_dynamic(im, DT_FLAGS_1, &flags1) && (flags1 & DF_1_PIE));
	unsigned n = pks_elf_dynamic_all(im, DT_NEEDED, needed, 64);
	struct verdict v = { 0 }, lv;
	unsigned libs = 0;

	object(im, exe, "it", &v);
	pks_elf_dynamic(im, DT_STRTAB, &strtab);
	for (unsigned i = 0; i < n; i++) {
		const char *name = pks_elf_string(im, strtab + needed[i]), *kind;
		struct pks_elf_image lib;
		char who[160] = "its library ";

		if (!name || !open_needed(im, path, exe, name, &lib))
			continue;
		/* a name from the file, escaped as --index escapes, so no newline forges a line */
		pks_escape(who + strlen(who), sizeof(who) - strlen(who), name);
		if ((kind = pks_elf_unlinked(&lib)))	/* found first, so the loader stops there */
			set(&lv, R_UNREACHED, "not reachable: %s is %s, which the dynamic linker "
			    "refuses to load: the program does not start", who, kind);
		else
			object(&lib, false, who, &lv);
		if (lv.reach > v.reach)
			v = lv;
		pks_elf_close(&lib);
		libs++;
	}
	if (v.reach == R_NONE && libs)
		strncat(v.text, "; nor do the libraries it names", sizeof(v.text) - strlen(v.text) - 1);
	if (v.reach != R_NONE && exe && !pks_elf_has_segment(im, PT_INTERP))
		set(&v, R_UNREACHED, "not reachable: statically linked, so LD_PRELOAD does not apply");
	else if (v.reach != R_NONE && exe &&
		 ((st->st_mode & S_ISUID) || (st->st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP)))
		set(&v, R_UNREACHED, "not reachable: set-%s-ID, so the dynamic linker ignores LD_PRELOAD "
		    "for any user it changes IDs for", st->st_mode & S_ISUID ? "user" : "group");
	else if (v.reach != R_NONE && exe && pks_inspect_caps(path))
		set(&v, R_UNREACHED, "not reachable: it has file capabilities, so the dynamic linker "
		    "ignores LD_PRELOAD for any user but root");
	*out = v;
}

/**
 * pks_inspect_caps() - whether the file at @path has capabilities of its
 * own (security.capability, setcap(8)): the kernel starts it in secure mode
 * for a user they raise, any but root, as it does a set-ID program
 */
bool pks_inspect_caps(const char *path)
{
	return getxattr(path, "security.capability", NULL, 0) > 0;
}

/**
 * pks_inspect_may_printk() - whether the file at @path may call a printk
 * of its own: it imports or defines one, or, stripped, has strings with
 * level markers (--check's "no printk" otherwise). True when it cannot be read.
 */
bool pks_inspect_may_printk(const char *path)
{
	struct pks_elf_image im;
	struct verdict v = { 0 };

	if (pks_elf_open(&im, path))
		return true;
	object(&im, true, "it", &v);
	pks_elf_close(&im);
	return v.reach != R_NONE;
}

/**
 * pks_inspect_check() - one line on @out per file of @paths: will its
 * printk calls reach the shim, and how
 * @legacy_markers: as pks_inspect_index()'s, for a stripped file's strings
 * @misfit: whether the module the wrapper would preload is one the
 *	dynamic linker loads for a program (its class and machine), or NULL
 * Return: 0 when every one will, PKS_INSPECT_UNREACHED when one will not,
 * PKS_INSPECT_ERROR when a file could not be read (the others still checked).
 */
int pks_inspect_check(char *const *paths, int n, FILE *out, bool legacy_markers,
		      pks_inspect_misfit *misfit)
{
	char mod[4160];	/* "'path' (why)": PATH_MAX and the words */
	const char *what;
	int rc = 0;

	legacy = legacy_markers;
	for (int i = 0; i < n; i++) {
		struct pks_elf_image im;
		struct verdict v;
		struct stat st;
		int err = stat(paths[i], &st) ? -errno : S_ISDIR(st.st_mode) ? -EISDIR : 0;

		if (!opened(&im, "--check", paths[i], err, &rc))
			continue;
		verdict(&im, paths[i], &st, &v);
		pks_elf_close(&im);
		if ((v.reach == R_INTERPOSED || v.reach == R_PATCHED) && misfit &&
		    (what = misfit(paths[i], mod, sizeof(mod))))
			set(&v, R_UNREACHED, "not reachable: the module is %s, which the dynamic "
			    "linker does not preload for it", what);
		if (pks_shrunk_seen()) {
			rc = shrank("--check", paths[i], "no verdict");
			continue;
		}
		escape(out, paths[i]);
		fprintf(out, ": %s\n", v.text);
		if (v.reach != R_INTERPOSED && v.reach != R_PATCHED && rc == 0)
			rc = PKS_INSPECT_UNREACHED;
	}
	return rc;
}
