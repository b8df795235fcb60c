// SPDX-License-Identifier: MIT
/*
 * An object's symbol tables, read from its file (mapped read-only): .symtab
 * when it is there, which also names hidden and local functions, and .dynsym,
 * which survives strip. Every offset is checked against the file's size; a
 * malformed or foreign file has no tables rather than a crash. Used at
 * start-up by patch.c and by diagnostics, never on the output path. What the
 * symbols mean for interposition is the caller's business.
 * pks_elf_open() reads any ELF file, either class and byte order, for the
 * wrapper's inspection: a section's bytes as the loader would relocate them
 * at address 0, and the strings its pointers lead to. A hostile file gets
 * an error or NULL, never a read outside it.
 * Thread-safety: reentrant; pks_elf_exe_defines() returns a static buffer
 * that every caller fills with the same bytes.
 */
#include "patch/elfsym.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NATIVE_CLASS (__ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32)

static char exe[4096];

static bool inside(const struct pks_elf *e, size_t off, size_t n)
{
	return off <= e->size && n <= e->size - off;
}

/* Take the symbol table section @sh and its string table, if both are sound. */
static void take(struct pks_elf *e, const ElfW(Shdr) *shdrs, unsigned shnum, const ElfW(Shdr) *sh)
{
	const ElfW(Shdr) *str = sh->sh_link < shnum ? &shdrs[sh->sh_link] : NULL;
	bool dyn = sh->sh_type == SHT_DYNSYM;

	if (!str || sh->sh_entsize != sizeof(ElfW(Sym)) || !inside(e, sh->sh_offset, sh->sh_size) ||
	    !inside(e, str->sh_offset, str->sh_size) || str->sh_size == 0 ||
	    e->base[str->sh_offset + str->sh_size - 1] != '\0')
		return;
	*(dyn ? &e->dynsym : &e->symtab) = (const ElfW(Sym) *)(e->base + sh->sh_offset);
	*(dyn ? &e->ndynsym : &e->nsymtab) = sh->sh_size / sizeof(ElfW(Sym));
	*(dyn ? &e->dynstr : &e->symstr) = e->base + str->sh_offset;
	*(dyn ? &e->dynstr_size : &e->symstr_size) = str->sh_size;
}

static void find_tables(struct pks_elf *e)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)e->base;
	const ElfW(Shdr) *sh;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != NATIVE_CLASS ||
	    eh->e_shentsize != sizeof(*sh) ||
	    !inside(e, eh->e_shoff, (size_t)eh->e_shnum * sizeof(*sh)))
		return;
	sh = (const ElfW(Shdr) *)(e->base + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM)
			take(e, sh, eh->e_shnum, &sh[i]);
}

/**
 * pks_elf_map() - map the ELF file at @path and find its symbol tables
 * Return: 0, or -1 with errno set (the file cannot be read). A file that is
 * not ELF, or is of the other class, opens with no tables.
 */
int pks_elf_map(struct pks_elf *e, const char *path)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(e, 0, sizeof(*e));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(ElfW(Ehdr))) {
		close(fd);
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	e->base = p;
	e->size = (size_t)st.st_size;
	find_tables(e);
	return 0;
}

void pks_elf_unmap(struct pks_elf *e)
{
	if (e->base)
		munmap((void *)e->base, e->size);
	memset(e, 0, sizeof(*e));
}

/**
 * pks_elf_walk() - call @fn for each named symbol of .dynsym (@dynamic) or .symtab
 * Return: what @fn returned to stop the walk, or 0.
 */
int pks_elf_walk(const struct pks_elf *e, bool dynamic, pks_elf_visit *fn, void *arg)
{
	const ElfW(Sym) *tab = dynamic ? e->dynsym : e->symtab;
	const char *str = dynamic ? e->dynstr : e->symstr;
	size_t n = dynamic ? e->ndynsym : e->nsymtab;
	size_t strsize = dynamic ? e->dynstr_size : e->symstr_size;
	int r;

	for (size_t i = 0; i < n; i++) {
		const ElfW(Sym) *s = &tab[i];

		if (s->st_name == 0 || s->st_name >= strsize)
			continue;
		if ((r = fn(arg, str + s->st_name, s)))
			return r;
	}
	return 0;
}

struct find { const char *name; const ElfW(Sym) *found; };

static int match(void *arg, const char *name, const ElfW(Sym) *s)
{
	struct find *f = arg;

	if (strcmp(name, f->name))
		return 0;
	f->found = s;
	return 1;
}

/** pks_elf_find() - Return: the first symbol called @name, defined or not, or NULL. */
const ElfW(Sym) *pks_elf_find(const struct pks_elf *e, bool dynamic, const char *name)
{
	struct find f = { name, NULL };

	pks_elf_walk(e, dynamic, match, &f);
	return f.found;
}

/**
 * pks_elf_bytes() - the file's bytes that a load puts at link-time address @vaddr
 * Return: a pointer into the mapped file, or NULL when [@vaddr, @vaddr + @n)
 * is not all file-backed content of one PT_LOAD segment.
 */
const void *pks_elf_bytes(const struct pks_elf *e, ElfW(Addr) vaddr, size_t n)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)e->base;
	const ElfW(Phdr) *ph;

	if (!e->base || eh->e_phentsize != sizeof(*ph) ||
	    !inside(e, eh->e_phoff, (size_t)eh->e_phnum * sizeof(*ph)))
		return NULL;
	ph = (const ElfW(Phdr) *)(e->base + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || vaddr < ph[i].p_vaddr ||
		    vaddr - ph[i].p_vaddr > ph[i].p_filesz || n > ph[i].p_filesz - (vaddr - ph[i].p_vaddr))
			continue;
		if (!inside(e, ph[i].p_offset + (vaddr - ph[i].p_vaddr), n))
			return NULL;
		return e->base + ph[i].p_offset + (vaddr - ph[i].p_vaddr);
	}
	return NULL;
}

struct wanted {
	const char *const *names;	/* NULL entries are skipped */
	int n;
	unsigned int found;		/* bit i: names[i] is defined */
};

static int defined_func(void *arg, const char *name, const ElfW(Sym) *s)
{
	struct wanted *w = arg;

	if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC)
		return 0;
	for (int i = 0; i < w->n; i++)
		if (w->names[i] && !strcmp(name, w->names[i]))
			w->found |= 1u << i;
	return 0;
}

/**
 * pks_elf_exe_defines() - which of @n functions @names (at most 32; NULL
 * entries skipped) the executable defines, in one reading of its file
 * @which: out; the index of the first one defined
 * Return: the executable's path if it defines one, else NULL.
 */
const char *pks_elf_exe_defines(const char *const *names, int n, int *which)
{
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct wanted w = { names, n, 0 };
	struct pks_elf e;

	if (len <= 0 || pks_elf_map(&e, "/proc/self/exe"))
		return NULL;
	exe[len] = '\0';
	pks_elf_walk(&e, e.symtab == NULL, defined_func, &w);
	pks_elf_unmap(&e);
	if (!w.found)
		return NULL;
	*which = __builtin_ctz(w.found);
	return exe;
}

/* ---- any ELF file, for inspection --------------------------------------- */

/* A section header of either class, decoded. */
struct shdr {
	uint32_t name, type;
	uint64_t flags, addr, offset, size, link, entsize;
};

/* Where the fields are, per class: 32-bit, 64-bit. */
enum {
	EH_TYPE, EH_MACHINE, EH_PHOFF, EH_SHOFF, EH_PHENTSIZE, EH_PHNUM, EH_SHENTSIZE, EH_SHNUM,
	EH_SHSTRNDX, PH_TYPE, PH_BYTES,
	ST_NAME, ST_VALUE, ST_SIZE, ST_INFO, ST_OTHER, ST_SHNDX, ST_BYTES,
	SH_NAME, SH_TYPE, SH_FLAGS, SH_ADDR, SH_OFFSET, SH_SIZE, SH_LINK, SH_ENTSIZE, SH_BYTES,
	R_OFFSET, R_INFO, R_ADDEND, REL_BYTES, RELA_BYTES, NFIELDS,
};
static const unsigned char at[NFIELDS][2] = {
	[EH_TYPE] = { 16, 16 }, [EH_MACHINE] = { 18, 18 }, [EH_PHOFF] = { 28, 32 },
	[EH_SHOFF] = { 32, 40 }, [EH_PHENTSIZE] = { 42, 54 }, [EH_PHNUM] = { 44, 56 },
	[PH_TYPE] = { 0, 0 }, [PH_BYTES] = { 32, 56 },
	[ST_NAME] = { 0, 0 }, [ST_VALUE] = { 4, 8 }, [ST_SIZE] = { 8, 16 }, [ST_INFO] = { 12, 4 },
	[ST_OTHER] = { 13, 5 }, [ST_SHNDX] = { 14, 6 }, [ST_BYTES] = { 16, 24 },
	[EH_SHENTSIZE] = { 46, 58 }, [EH_SHNUM] = { 48, 60 }, [EH_SHSTRNDX] = { 50, 62 },
	[SH_NAME] = { 0, 0 }, [SH_TYPE] = { 4, 4 }, [SH_FLAGS] = { 8, 8 }, [SH_ADDR] = { 12, 16 },
	[SH_OFFSET] = { 16, 24 }, [SH_SIZE] = { 20, 32 }, [SH_LINK] = { 24, 40 },
	[SH_ENTSIZE] = { 36, 56 }, [SH_BYTES] = { 40, 64 },
	[R_OFFSET] = { 0, 0 }, [R_INFO] = { 4, 8 }, [R_ADDEND] = { 8, 16 },
	[REL_BYTES] = { 8, 16 }, [RELA_BYTES] = { 12, 24 },
};

/* The relocation that adds the load address, per machine (<elf.h>). */
static const struct { uint16_t machine; uint32_t type; } relative[] = {
	{ EM_X86_64, R_X86_64_RELATIVE }, { EM_386, R_386_RELATIVE },
	{ EM_AARCH64, R_AARCH64_RELATIVE }, { EM_ARM, R_ARM_RELATIVE },
	{ EM_RISCV, R_RISCV_RELATIVE }, { EM_PPC64, R_PPC64_RELATIVE },
	{ EM_PPC, R_PPC_RELATIVE }, { EM_S390, R_390_RELATIVE },
};

static bool wide(const struct pks_elf_image *im)
{
	return im->cls == ELFCLASS64;
}

/* @n bytes (1, 2, 4 or 8) at @p in the file's byte order, as a number. */
static uint64_t get(const struct pks_elf_image *im, const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[im->msb ? i : n - 1 - i] << (8 * (n - 1 - i));
	return v;
}

static void put(const struct pks_elf_image *im, unsigned char *p, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++)
		p[im->msb ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* Field @f of the record at @p; @n its width when it is a word (addresses, sizes). */
static uint64_t field(const struct pks_elf_image *im, const unsigned char *p, int f, unsigned n)
{
	return get(im, p + at[f][wide(im)], n);
}

static unsigned word(const struct pks_elf_image *im)
{
	return wide(im) ? 8 : 4;
}

static bool within(const struct pks_elf_image *im, uint64_t off, uint64_t n)
{
	return off <= im->size && n <= im->size - off;
}

static void section(const struct pks_elf_image *im, unsigned i, struct shdr *sh)
{
	const unsigned char *p = im->shdrs + (size_t)i * at[SH_BYTES][wide(im)];
	unsigned w = word(im);

	*sh = (struct shdr){
		.name = (uint32_t)field(im, p, SH_NAME, 4), .type = (uint32_t)field(im, p, SH_TYPE, 4),
		.flags = field(im, p, SH_FLAGS, w), .addr = field(im, p, SH_ADDR, w),
		.offset = field(im, p, SH_OFFSET, w), .size = field(im, p, SH_SIZE, w),
		.link = field(im, p, SH_LINK, 4), .entsize = field(im, p, SH_ENTSIZE, w),
	};
}

/* The file's section headers and their names, checked; -ENOEXEC when unsound. */
static int headers(struct pks_elf_image *im)
{
	const unsigned char *eh = im->base;
	unsigned w, shentsize, strndx;
	uint64_t shoff;
	struct shdr sh;

	if (memcmp(eh, ELFMAG, SELFMAG) || (eh[EI_CLASS] != ELFCLASS32 && eh[EI_CLASS] != ELFCLASS64) ||
	    (eh[EI_DATA] != ELFDATA2LSB && eh[EI_DATA] != ELFDATA2MSB))
		return -ENOEXEC;
	im->cls = eh[EI_CLASS];
	im->msb = eh[EI_DATA] == ELFDATA2MSB;
	w = word(im);
	if (im->size < (wide(im) ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
		return -ENOEXEC;
	im->type = (unsigned)field(im, eh, EH_TYPE, 2);
	im->machine = (unsigned)field(im, eh, EH_MACHINE, 2);
	shoff = field(im, eh, EH_SHOFF, w);
	shentsize = (unsigned)field(im, eh, EH_SHENTSIZE, 2);
	im->shnum = (unsigned)field(im, eh, EH_SHNUM, 2);
	strndx = (unsigned)field(im, eh, EH_SHSTRNDX, 2);
	if (shoff == 0)
		return 0;	/* no section headers: nothing to find, not an error */
	if (shentsize != at[SH_BYTES][wide(im)] || !within(im, shoff, shentsize))
		return -ENOEXEC;
	im->shdrs = im->base + shoff;
	section(im, 0, &sh);	/* extended numbering: header 0 holds the counts */
	if (im->shnum == 0)
		im->shnum = sh.size < UINT32_MAX ? (unsigned)sh.size : 0;
	if (strndx == SHN_XINDEX)
		strndx = (unsigned)sh.link;
	if (!within(im, shoff, (uint64_t)im->shnum * shentsize) || strndx >= im->shnum)
		return -ENOEXEC;
	section(im, strndx, &sh);
	if (sh.type != SHT_STRTAB || sh.size == 0 || !within(im, sh.offset, sh.size) ||
	    im->base[sh.offset + sh.size - 1] != '\0')
		return -ENOEXEC;
	im->shstr = (const char *)im->base + sh.offset;
	im->shstr_size = sh.size;
	return 0;
}

/**
 * pks_elf_open() - map the ELF file at @path (either class, either byte order)
 * Return: 0, or -errno: the file cannot be read, -EISDIR for a directory,
 * -ENOEXEC when it is not ELF or its headers do not fit inside it. A file
 * without section headers opens, with no sections.
 */
int pks_elf_open(struct pks_elf_image *im, const char *path)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	memset(im, 0, sizeof(*im));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (S_ISDIR(st.st_mode) || !S_ISREG(st.st_mode) || st.st_size < EI_NIDENT) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -ENOEXEC;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = p == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;
	im->base = p;
	im->size = (size_t)st.st_size;
	if ((err = headers(im)) || (im->shnum && !(im->copy = calloc(im->shnum, sizeof(void *))))) {
		pks_elf_close(im);
		return err ? err : -ENOMEM;
	}
	return 0;
}

void pks_elf_close(struct pks_elf_image *im)
{
	for (unsigned i = 0; im->copy && i < im->shnum; i++)
		free(im->copy[i]);
	free(im->copy);
	if (im->base)
		munmap((void *)im->base, im->size);
	memset(im, 0, sizeof(*im));
}

/** pks_elf_ptrsize() - Return: the bytes of a pointer in the file, 4 or 8. */
unsigned pks_elf_ptrsize(const struct pks_elf_image *im)
{
	return word(im);
}

/* The index of the section called @name that has bytes in the file, or -1. */
static int find_section(const struct pks_elf_image *im, const char *name, struct shdr *sh)
{
	for (unsigned i = 1; im->shstr && i < im->shnum; i++) {
		section(im, i, sh);
		if (sh->name < im->shstr_size && !strcmp(im->shstr + sh->name, name))
			return sh->type == SHT_NOBITS || !within(im, sh->offset, sh->size) ? -1 : (int)i;
	}
	return -1;
}

static uint32_t relative_type(const struct pks_elf_image *im)
{
	for (size_t i = 0; i < sizeof(relative) / sizeof(relative[0]); i++)
		if (relative[i].machine == im->machine)
			return relative[i].type;
	return 0;	/* R_*_NONE: no relocation is taken for it */
}

/*
 * Apply the RELA section @rs's relative relocations that land in @to (a
 * copy of @sh). With a load address of 0 each sets a word to its addend.
 * REL and RELR ones keep their addend in place, which at 0 is the value:
 * the copy is right as it is.
 */
static void apply(const struct pks_elf_image *im, const struct shdr *rs, const struct shdr *sh,
		  unsigned char *to)
{
	unsigned w = word(im), n = at[RELA_BYTES][wide(im)];
	uint32_t type = relative_type(im);

	if (rs->entsize != n || !within(im, rs->offset, rs->size) || !type)
		return;
	for (uint64_t off = 0; off + n <= rs->size; off += n) {
		const unsigned char *r = im->base + rs->offset + off;
		uint64_t where = field(im, r, R_OFFSET, w), info = field(im, r, R_INFO, w);

		if ((wide(im) ? (uint32_t)info : (uint8_t)info) != type || where < sh->addr ||
		    where - sh->addr > sh->size || w > sh->size - (where - sh->addr))
			continue;
		put(im, to + (where - sh->addr), w, field(im, r, R_ADDEND, w));
	}
}

/**
 * pks_elf_section() - section @name's bytes as loaded at address 0, relative
 * relocations applied: its pointers hold link-time addresses, in the file's
 * byte order. The copy lives until pks_elf_close().
 * @size: out; its bytes
 * Return: the bytes (aligned for any field), or NULL when the file has no
 * such section with bytes of its own, or memory runs out.
 */
const void *pks_elf_section(struct pks_elf_image *im, const char *name, size_t *size)
{
	struct shdr sh, rs;
	int i = find_section(im, name, &sh);
	unsigned char *copy;

	if (i < 0)
		return NULL;
	*size = (size_t)sh.size;
	if (im->copy[i])
		return im->copy[i];
	if (!(copy = malloc(sh.size ? sh.size : 1)))
		return NULL;
	memcpy(copy, im->base + sh.offset, sh.size);
	for (unsigned r = 1; r < im->shnum; r++) {
		section(im, r, &rs);
		if (rs.type == SHT_RELA)
			apply(im, &rs, &sh, copy);
	}
	return im->copy[i] = copy;
}

/**
 * pks_elf_string() - the string a loaded pointer @addr (a link-time address) leads to
 * Return: it, inside the mapped file, or NULL when @addr is in no section
 * with bytes in the file or the string runs off that section's end.
 */
const char *pks_elf_string(const struct pks_elf_image *im, uint64_t addr)
{
	struct shdr sh;

	for (unsigned i = 1; im->shdrs && i < im->shnum; i++) {
		const char *s;

		section(im, i, &sh);
		if (!(sh.flags & SHF_ALLOC) || sh.type == SHT_NOBITS || addr < sh.addr ||
		    addr - sh.addr >= sh.size || !within(im, sh.offset, sh.size))
			continue;
		s = (const char *)im->base + sh.offset + (addr - sh.addr);
		return memchr(s, '\0', sh.size - (addr - sh.addr)) ? s : NULL;
	}
	return NULL;
}

/** pks_elf_word() - Return: the @n-byte number (1, 2, 4 or 8) at @p, in the file's byte order. */
uint64_t pks_elf_word(const struct pks_elf_image *im, const void *p, unsigned n)
{
	return get(im, p, n);
}

/**
 * pks_elf_sect_at() - section @i of the image, decoded into @out
 * Return: false when there is no section @i.
 */
bool pks_elf_sect_at(const struct pks_elf_image *im, unsigned i, struct pks_elf_sect *out)
{
	struct shdr sh;

	if (!im->shdrs || i >= im->shnum)
		return false;
	section(im, i, &sh);
	*out = (struct pks_elf_sect){
		.name = im->shstr && sh.name < im->shstr_size ? im->shstr + sh.name : "",
		.type = sh.type, .flags = sh.flags, .addr = sh.addr, .size = sh.size,
		.bytes = sh.type != SHT_NOBITS && within(im, sh.offset, sh.size) ?
			 im->base + sh.offset : NULL,
	};
	return true;
}

/* The symbol table of type SHT_DYNSYM (@dynamic) or SHT_SYMTAB and its strings, if sound. */
static bool symtab(const struct pks_elf_image *im, bool dynamic, struct pks_elf_sect *tab,
		   struct pks_elf_sect *str)
{
	uint32_t want = dynamic ? SHT_DYNSYM : SHT_SYMTAB;
	struct shdr sh;

	for (unsigned i = 1; pks_elf_sect_at(im, i, tab); i++) {
		if (tab->type != want)
			continue;
		section(im, i, &sh);
		return tab->bytes && sh.entsize == at[ST_BYTES][wide(im)] && sh.link < im->shnum &&
		       pks_elf_sect_at(im, (unsigned)sh.link, str) && str->bytes && str->size &&
		       str->bytes[str->size - 1] == '\0';
	}
	return false;
}

/** pks_elf_has_symtab() - Return: the image has a sound .dynsym (@dynamic) or .symtab. */
bool pks_elf_has_symtab(const struct pks_elf_image *im, bool dynamic)
{
	struct pks_elf_sect tab, str;

	return symtab(im, dynamic, &tab, &str);
}

/**
 * pks_elf_symbol() - the first symbol called @name in .dynsym (@dynamic) or
 * .symtab, defined or not
 * Return: false when there is none (or no such table).
 */
bool pks_elf_symbol(const struct pks_elf_image *im, bool dynamic, const char *name,
		    struct pks_elf_symbol *out)
{
	struct pks_elf_sect tab, str;
	unsigned n = at[ST_BYTES][wide(im)], w = word(im);

	if (!symtab(im, dynamic, &tab, &str))
		return false;
	for (uint64_t off = 0; off + n <= tab.size; off += n) {
		const unsigned char *p = tab.bytes + off;
		uint64_t nm = field(im, p, ST_NAME, 4);

		if (nm == 0 || nm >= str.size || strcmp((const char *)str.bytes + nm, name))
			continue;
		*out = (struct pks_elf_symbol){
			.value = field(im, p, ST_VALUE, w), .size = field(im, p, ST_SIZE, w),
			.shndx = (unsigned)field(im, p, ST_SHNDX, 2),
			.info = (unsigned char)field(im, p, ST_INFO, 1),
			.other = (unsigned char)field(im, p, ST_OTHER, 1),
		};
		return true;
	}
	return false;
}

/** pks_elf_has_segment() - Return: a program header of @type is there (PT_INTERP, PT_DYNAMIC). */
bool pks_elf_has_segment(const struct pks_elf_image *im, uint32_t type)
{
	uint64_t off = field(im, im->base, EH_PHOFF, word(im));
	unsigned size = (unsigned)field(im, im->base, EH_PHENTSIZE, 2);
	unsigned n = (unsigned)field(im, im->base, EH_PHNUM, 2);

	if (size != at[PH_BYTES][wide(im)] || !within(im, off, (uint64_t)n * size))
		return false;
	for (unsigned i = 0; i < n; i++)
		if (field(im, im->base + off + (uint64_t)i * size, PH_TYPE, 4) == type)
			return true;
	return false;
}

/**
 * pks_elf_dynamic_all() - the values of the .dynamic section's @tag entries, in order
 * @vals: out; room for @max
 * Return: how many were found (at most @max).
 */
unsigned pks_elf_dynamic_all(const struct pks_elf_image *im, int64_t tag, uint64_t *vals,
			     unsigned max)
{
	struct pks_elf_sect d;
	unsigned w = word(im), n = 0;

	for (unsigned i = 1; pks_elf_sect_at(im, i, &d); i++) {
		if (d.type != SHT_DYNAMIC || !d.bytes)
			continue;
		for (uint64_t off = 0; n < max && off + 2 * w <= d.size; off += 2 * w) {
			uint64_t t = get(im, d.bytes + off, w);

			if (t == DT_NULL)
				break;
			if (t == (uint64_t)tag)
				vals[n++] = get(im, d.bytes + off + w, w);
		}
		break;
	}
	return n;
}

/** pks_elf_dynamic() - Return: the first @tag entry of .dynamic is there; its value in *@val. */
bool pks_elf_dynamic(const struct pks_elf_image *im, int64_t tag, uint64_t *val)
{
	return pks_elf_dynamic_all(im, tag, val, 1) == 1;
}
