// SPDX-License-Identifier: MIT
/*
 * The one ELF reader. Any ELF file, either class and byte order, is opened
 * without blocking, rejected unless regular, and mapped read-only; every
 * offset is checked against its size, so a hostile file gets an error or
 * NULL, never a read outside it. On top: a section's bytes as the loader
 * would relocate them at address 0, the strings its pointers lead to, the
 * read-only strings, symbols, segments and dynamic entries; and the native
 * view (struct pks_elf) whose <link.h> symbol tables patch.c walks. Work is
 * linear in the file's size: sections that overlap in the file are read
 * once, and strings are found by address through a sorted table.
 * Used by the wrapper's inspection, patching at start-up, the reports and
 * symbol names (name.c); never on the output path but through name.c,
 * which maps without malloc.
 * Thread-safety: reentrant; pks_elf_exe_defines() returns a static buffer
 * that every caller fills with the same bytes.
 */
#include "elf/elf.h"
#include "base/fdturn.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NATIVE_CLASS (__ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32)
#define NATIVE_MSB (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/* A section decoded, with where its bytes are in the file. */
struct shdr {
	uint32_t name, type, link, info;
	uint64_t flags, addr, offset, size, entsize;
};

/* A loaded section's place, for strings by address: sorted by addr. */
struct pks_elf_span {
	uint64_t addr, size, offset;
	uint64_t term;		/* bytes up to and including its last NUL: a string before it ends */
};

/* A range of the file: sections that overlap one already taken are dropped. */
struct range {
	uint64_t off, end;
	unsigned i;
};

/* Where the fields are, per class: 32-bit, 64-bit. */
enum {
	EH_TYPE, EH_MACHINE, EH_PHOFF, EH_SHOFF, EH_PHENTSIZE, EH_PHNUM, EH_SHENTSIZE, EH_SHNUM,
	EH_SHSTRNDX, PH_TYPE, PH_FLAGS, PH_OFFSET, PH_VADDR, PH_FILESZ, PH_MEMSZ, PH_BYTES,
	ST_NAME, ST_VALUE, ST_SIZE, ST_INFO, ST_OTHER, ST_SHNDX, ST_BYTES,
	SH_NAME, SH_TYPE, SH_FLAGS, SH_ADDR, SH_OFFSET, SH_SIZE, SH_LINK, SH_INFO, SH_ENTSIZE,
	SH_BYTES, R_OFFSET, R_INFO, R_ADDEND, REL_BYTES, RELA_BYTES, NFIELDS,
};
static const unsigned char at[NFIELDS][2] = {
	[EH_TYPE] = { 16, 16 }, [EH_MACHINE] = { 18, 18 }, [EH_PHOFF] = { 28, 32 },
	[EH_SHOFF] = { 32, 40 }, [EH_PHENTSIZE] = { 42, 54 }, [EH_PHNUM] = { 44, 56 },
	[PH_TYPE] = { 0, 0 }, [PH_FLAGS] = { 24, 4 }, [PH_OFFSET] = { 4, 8 }, [PH_VADDR] = { 8, 16 },
	[PH_FILESZ] = { 16, 32 }, [PH_MEMSZ] = { 20, 40 }, [PH_BYTES] = { 32, 56 },
	[ST_NAME] = { 0, 0 }, [ST_VALUE] = { 4, 8 }, [ST_SIZE] = { 8, 16 }, [ST_INFO] = { 12, 4 },
	[ST_OTHER] = { 13, 5 }, [ST_SHNDX] = { 14, 6 }, [ST_BYTES] = { 16, 24 },
	[EH_SHENTSIZE] = { 46, 58 }, [EH_SHNUM] = { 48, 60 }, [EH_SHSTRNDX] = { 50, 62 },
	[SH_NAME] = { 0, 0 }, [SH_TYPE] = { 4, 4 }, [SH_FLAGS] = { 8, 8 }, [SH_ADDR] = { 12, 16 },
	[SH_OFFSET] = { 16, 24 }, [SH_SIZE] = { 20, 32 }, [SH_LINK] = { 24, 40 },
	[SH_INFO] = { 28, 44 }, [SH_ENTSIZE] = { 36, 56 }, [SH_BYTES] = { 40, 64 },
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
		.link = (uint32_t)field(im, p, SH_LINK, 4), .info = (uint32_t)field(im, p, SH_INFO, 4),
		.entsize = field(im, p, SH_ENTSIZE, w),
	};
}

/*
 * The ELF header: class, byte order, type, machine, program headers.
 * -ENOEXEC when not ELF; PKS_ELF_CORRUPT when cut short, or when its
 * program headers do not lie whole in the file.
 */
static int elf_header(struct pks_elf_image *im)
{
	const unsigned char *eh = im->base;
	uint64_t phoff;
	unsigned phentsize;

	if (memcmp(eh, ELFMAG, SELFMAG))
		return -ENOEXEC;
	if (im->size < EI_NIDENT)
		return PKS_ELF_CORRUPT;	/* ELF, cut short in its identification */
	if ((eh[EI_CLASS] != ELFCLASS32 && eh[EI_CLASS] != ELFCLASS64) ||
	    (eh[EI_DATA] != ELFDATA2LSB && eh[EI_DATA] != ELFDATA2MSB))
		return -ENOEXEC;
	im->cls = eh[EI_CLASS];
	im->msb = eh[EI_DATA] == ELFDATA2MSB;
	if (im->size < (wide(im) ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
		return PKS_ELF_CORRUPT;
	im->type = (unsigned)field(im, eh, EH_TYPE, 2);
	im->machine = (unsigned)field(im, eh, EH_MACHINE, 2);
	phoff = field(im, eh, EH_PHOFF, word(im));
	phentsize = (unsigned)field(im, eh, EH_PHENTSIZE, 2);
	im->phnum = (unsigned)field(im, eh, EH_PHNUM, 2);
	if (!im->phnum)
		return 0;	/* an object file's, say */
	if (!phoff || phentsize != at[PH_BYTES][wide(im)] || im->phnum == PN_XNUM ||
	    !within(im, phoff, (uint64_t)im->phnum * phentsize))
		return PKS_ELF_CORRUPT;
	im->phdrs = im->base + phoff;
	return 0;
}

/*
 * The file's section headers and their names, checked, and each section
 * with bytes in the file lying whole in it, a symbol table's entries of
 * their size: PKS_ELF_CORRUPT when not, rather than a section missing.
 */
static int section_headers(struct pks_elf_image *im)
{
	const unsigned char *eh = im->base;
	unsigned shentsize, strndx;
	uint64_t shoff;
	struct shdr sh;

	shoff = field(im, eh, EH_SHOFF, word(im));
	shentsize = (unsigned)field(im, eh, EH_SHENTSIZE, 2);
	im->shnum = (unsigned)field(im, eh, EH_SHNUM, 2);
	strndx = (unsigned)field(im, eh, EH_SHSTRNDX, 2);
	if (shoff == 0) {
		im->shnum = 0;
		return 0;	/* no section headers: nothing to find, not an error */
	}
	if (shentsize != at[SH_BYTES][wide(im)] || !within(im, shoff, shentsize))
		return PKS_ELF_CORRUPT;
	im->shdrs = im->base + shoff;
	section(im, 0, &sh);	/* extended numbering: header 0 holds the counts */
	if (im->shnum == 0)
		im->shnum = sh.size < UINT32_MAX ? (unsigned)sh.size : 0;
	if (strndx == SHN_XINDEX)
		strndx = (unsigned)sh.link;
	if (!within(im, shoff, (uint64_t)im->shnum * shentsize) || strndx >= im->shnum)
		return PKS_ELF_CORRUPT;
	if (strndx != SHN_UNDEF) {	/* SHN_UNDEF: the sections have no names (elf(5)) */
		section(im, strndx, &sh);
		if (sh.type != SHT_STRTAB || sh.size == 0 || !within(im, sh.offset, sh.size) ||
		    im->base[sh.offset + sh.size - 1] != '\0')
			return PKS_ELF_CORRUPT;
		im->shstr = (const char *)im->base + sh.offset;
		im->shstr_size = sh.size;
	}
	for (unsigned i = 1; i < im->shnum; i++) {
		section(im, i, &sh);
		if ((sh.type != SHT_NOBITS && sh.type != SHT_NULL && !within(im, sh.offset, sh.size)) ||
		    ((sh.type == SHT_SYMTAB || sh.type == SHT_DYNSYM) &&
		     (sh.entsize != at[ST_BYTES][wide(im)] || sh.link >= im->shnum)))
			return PKS_ELF_CORRUPT;
	}
	return 0;
}

/*
 * Map the file at @path: opened with O_NONBLOCK, as a FIFO would hold
 * open(2) until a writer came, and refused unless fstat(2) says regular.
 */
static int mapped(struct pks_elf_image *im, const char *path)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), err = 0;

	memset(im, 0, sizeof(*im));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (S_ISDIR(st.st_mode))
		err = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		err = PKS_ELF_NOT_REGULAR;
	else if (st.st_size < SELFMAG)
		err = -ENOEXEC;
	if (err) {
		close(fd);
		return err;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	/* ENODEV from mmap(2): a file system that maps nothing, not a device */
	err = p != MAP_FAILED ? 0 : errno == ENODEV ? PKS_ELF_NO_MAP : -errno;
	close(fd);
	if (err)
		return err;
	im->base = p;
	im->size = (size_t)st.st_size;
	return 0;
}

/* mapped(), its descriptor kept apart from the program's closes (base/fdturn.h). */
static int map(struct pks_elf_image *im, const char *path)
{
	int err;

	pks_fd_making();
	err = mapped(im, path);
	pks_fd_made();
	return err;
}

/* Open @path; section headers that do not fit are an error when @strict, else absent. */
static int open_image(struct pks_elf_image *im, const char *path, bool strict)
{
	int err = map(im, path);

	if (!err && !(err = elf_header(im)) && (err = section_headers(im)) && !strict) {
		im->shdrs = NULL;
		im->shnum = 0;
		im->shstr = NULL;
		err = 0;
	}
	if (err)
		pks_elf_close(im);
	return err;
}

/**
 * pks_elf_open() - map the ELF file at @path (either class, either byte order)
 * Return: 0, or -errno: the file cannot be read, -EISDIR for a directory,
 * PKS_ELF_NOT_REGULAR for another file that is not regular, PKS_ELF_NO_MAP
 * for a regular one its file system cannot map, -ENOEXEC when it is not
 * ELF, PKS_ELF_CORRUPT when its headers do not fit inside it. A file
 * without section headers opens, with no sections.
 */
int pks_elf_open(struct pks_elf_image *im, const char *path)
{
	return open_image(im, path, true);
}

/**
 * pks_elf_open_loadable() - pks_elf_open(), for what the dynamic linker
 * reads: the ELF and program headers. Unsound section headers, which it
 * never looks at, leave the image without sections rather than refused.
 */
int pks_elf_open_loadable(struct pks_elf_image *im, const char *path)
{
	return open_image(im, path, false);
}

void pks_elf_close(struct pks_elf_image *im)
{
	for (unsigned i = 0; im->copy && i < im->shnum; i++)
		free(im->copy[i]);
	free(im->copy);
	free(im->spans);
	if (im->base)
		munmap((void *)im->base, im->size);
	memset(im, 0, sizeof(*im));
}

/** pks_elf_strerror() - Return: what an error of pks_elf_open() says, for a message. */
const char *pks_elf_strerror(int err)
{
	if (err == -ENOEXEC)
		return "not an ELF file";
	if (err == PKS_ELF_CORRUPT)
		return "an ELF file cut short or corrupt (its headers do not fit it)";
	if (err == PKS_ELF_NOT_REGULAR)
		return "not a regular file";
	if (err == PKS_ELF_NO_MAP)
		return "a file its file system cannot map (as in /proc or /sys)";
	return strerror(-err);
}

/**
 * pks_elf_unlinked() - what @im is when it is neither a program nor a
 * shared object: in anything else, the addresses its sections hold are not
 * yet where the file says (an object file's, a kernel module's: relocations
 * place them at the link or the load) or are a dead process's
 * Return: its kind, for a message, or NULL for a program or shared object.
 */
const char *pks_elf_unlinked(const struct pks_elf_image *im)
{
	switch (im->type) {
	case ET_EXEC:
	case ET_DYN:
		return NULL;
	case ET_REL:
		return "a relocatable object (an object file or a kernel module)";
	case ET_CORE:
		return "a core dump";
	}
	return "an ELF file of another type";
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

static int by_offset(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off ? 1 : (x->i > y->i) - (x->i < y->i);
}

/*
 * The @n ranges @r in file order, without any that overlaps one before it:
 * a crafted file can point a thousand headers at one block, and each byte
 * is then still read once. Return: how many are left.
 */
static size_t apart(struct range *r, size_t n)
{
	size_t k = 0;

	if (n)
		qsort(r, n, sizeof(*r), by_offset);
	for (size_t j = 0; j < n; j++)
		if (k == 0 || r[j].off >= r[k - 1].end)
			r[k++] = r[j];
	return k;
}

/* The sections @keep takes, apart(). Return: how many, in *@out (malloc'ed). */
static size_t disjoint(const struct pks_elf_image *im, bool (*keep)(const struct shdr *, void *),
		       void *arg, struct range **out)
{
	struct range *r = malloc(((size_t)im->shnum + 1) * sizeof(*r));
	size_t n = 0;
	struct shdr sh;

	*out = r;
	for (unsigned i = 1; r && im->shdrs && i < im->shnum; i++) {
		section(im, i, &sh);
		if (sh.type != SHT_NOBITS && sh.size && within(im, sh.offset, sh.size) && keep(&sh, arg))
			r[n++] = (struct range){ sh.offset, sh.offset + sh.size, i };
	}
	return apart(r, n);
}

static uint32_t relative_type(const struct pks_elf_image *im)
{
	for (size_t i = 0; i < sizeof(relative) / sizeof(relative[0]); i++)
		if (relative[i].machine == im->machine)
			return relative[i].type;
	return 0;	/* R_*_NONE: no relocation is taken for it */
}

/* A RELA section that may cover section @arg: one for all (sh_info 0) or for it. */
static bool covers(const struct shdr *sh, void *arg)
{
	return sh->type == SHT_RELA && (sh->info == 0 || !(sh->flags & SHF_INFO_LINK) ||
					sh->info == *(unsigned *)arg);
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

	if (rs->entsize != n || !type)
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
	unsigned target = (unsigned)i;
	struct range *r;
	unsigned char *copy;
	size_t n;

	if (i < 0 || (!im->copy && !(im->copy = calloc(im->shnum, sizeof(void *)))))
		return NULL;
	*size = (size_t)sh.size;
	if (im->copy[i])
		return im->copy[i];
	if (!(copy = malloc(sh.size ? sh.size : 1)))
		return NULL;
	memcpy(copy, im->base + sh.offset, sh.size);
	n = disjoint(im, covers, &target, &r);
	for (size_t k = 0; k < n; k++) {
		section(im, r[k].i, &rs);
		apply(im, &rs, &sh, copy);
	}
	free(r);
	return im->copy[i] = copy;
}

static bool loaded(const struct shdr *sh, void *arg)
{
	(void)arg;
	return sh->flags & SHF_ALLOC;
}

static int by_addr(const void *a, const void *b)
{
	const struct pks_elf_span *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The loaded sections by address, each with where its last string ends. */
static bool spans(struct pks_elf_image *im)
{
	struct range *r;
	size_t n = disjoint(im, loaded, NULL, &r);
	struct shdr sh;

	if (!r || !(im->spans = malloc((n + 1) * sizeof(*im->spans)))) {
		free(r);
		return false;
	}
	for (size_t k = 0; k < n; k++) {
		const unsigned char *p = im->base + r[k].off, *nul;

		section(im, r[k].i, &sh);
		nul = memrchr(p, '\0', sh.size);
		im->spans[k] = (struct pks_elf_span){ sh.addr, sh.size, sh.offset,
						      nul ? (uint64_t)(nul - p) + 1 : 0 };
	}
	free(r);
	im->nspans = (unsigned)n;
	qsort(im->spans, n, sizeof(*im->spans), by_addr);
	return true;
}

/**
 * pks_elf_string() - the string a loaded pointer @addr (a link-time address) leads to
 * Return: it, inside the mapped file, or NULL when @addr is in no section
 * with bytes in the file or the string runs off that section's end.
 */
const char *pks_elf_string(struct pks_elf_image *im, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!im->spans && !spans(im))
		return NULL;
	for (hi = im->nspans; lo < hi;) {	/* the first span that starts after @addr */
		size_t mid = lo + (hi - lo) / 2;

		if (im->spans[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo-- == 0 || addr - im->spans[lo].addr >= im->spans[lo].size)
		return NULL;	/* loaded sections do not overlap; in a file where they do, one is asked */
	addr -= im->spans[lo].addr;
	return addr < im->spans[lo].term ? (const char *)im->base + im->spans[lo].offset + addr : NULL;
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
		.type = sh.type, .link = sh.link, .info = sh.info, .flags = sh.flags,
		.addr = sh.addr, .size = sh.size, .entsize = sh.entsize,
		.bytes = sh.type != SHT_NOBITS && within(im, sh.offset, sh.size) ?
			 im->base + sh.offset : NULL,
	};
	return true;
}

/**
 * pks_elf_seg_at() - program header @i of the image, decoded into @out
 * Return: false when there is no program header @i.
 */
bool pks_elf_seg_at(const struct pks_elf_image *im, unsigned i, struct pks_elf_seg *out)
{
	const unsigned char *p;
	unsigned w = word(im);
	uint64_t off;

	if (!im->phdrs || i >= im->phnum)
		return false;
	p = im->phdrs + (size_t)i * at[PH_BYTES][wide(im)];
	off = field(im, p, PH_OFFSET, w);
	*out = (struct pks_elf_seg){
		.type = (uint32_t)field(im, p, PH_TYPE, 4), .flags = (uint32_t)field(im, p, PH_FLAGS, 4),
		.vaddr = field(im, p, PH_VADDR, w),
		.filesz = field(im, p, PH_FILESZ, w), .memsz = field(im, p, PH_MEMSZ, w),
	};
	out->bytes = within(im, off, out->filesz) ? im->base + off : NULL;
	return true;
}

/* The file's bytes at @vaddr as loaded (PT_LOAD), and in *@n how many of its segment's follow. */
static const unsigned char *loaded_at(const struct pks_elf_image *im, uint64_t vaddr, uint64_t *n)
{
	struct pks_elf_seg s;

	for (unsigned i = 0; pks_elf_seg_at(im, i, &s); i++)
		if (s.type == PT_LOAD && s.bytes && vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz) {
			*n = s.filesz - (vaddr - s.vaddr);
			return s.bytes + (vaddr - s.vaddr);
		}
	return NULL;
}

/*
 * How many entries the dynamic symbol table has, as its hash table tells:
 * DT_HASH's nchain, else past the end of DT_GNU_HASH's last chain (the
 * highest bucket's chain ends at a value with its low bit set). 0: unknown,
 * as for a program that exports nothing.
 */
static uint64_t nsyms(const struct pks_elf_image *im)
{
	uint64_t a, n, nbuckets, first, buckets, last = 0;
	const unsigned char *h;

	if (pks_elf_dynamic(im, DT_HASH, &a) && (h = loaded_at(im, a, &n)) && n >= 8)
		return get(im, h + 4, 4);
	if (!pks_elf_dynamic(im, DT_GNU_HASH, &a) || !(h = loaded_at(im, a, &n)) || n < 16)
		return 0;
	nbuckets = get(im, h, 4);
	first = get(im, h + 4, 4);
	buckets = 16 + get(im, h + 8, 4) * word(im);	/* past the Bloom filter */
	if (buckets > n || nbuckets > (n - buckets) / 4)
		return 0;
	for (uint64_t b = 0; b < nbuckets; b++)
		if (get(im, h + buckets + 4 * b, 4) > last)
			last = get(im, h + buckets + 4 * b, 4);
	if (last < first)
		return 0;	/* nothing hashed, and GNU ld's first index is then 1, whatever precedes */
	for (uint64_t c = buckets + 4 * nbuckets + 4 * (last - first); c <= n - 4; c += 4, last++)
		if (get(im, h + c, 4) & 1)
			return last + 1;
	return 0;
}

/*
 * The dynamic symbol table where the dynamic linker finds it (DT_SYMTAB,
 * DT_STRTAB, DT_STRSZ, its size from the hash table, else from where the
 * strings start), for a file that has no section for it: without section
 * headers (sstrip), say.
 */
static bool loaded_dynsym(const struct pks_elf_image *im, struct pks_elf_sect *tab,
			  struct pks_elf_sect *str)
{
	uint64_t sym, strtab, strsz, ent = at[ST_BYTES][wide(im)], count, n, m;
	const unsigned char *t, *s;

	if (!pks_elf_dynamic(im, DT_SYMTAB, &sym) || !pks_elf_dynamic(im, DT_STRTAB, &strtab) ||
	    !pks_elf_dynamic(im, DT_STRSZ, &strsz))
		return false;
	/* unknown: up to the strings, which linkers lay out right after the table */
	if (!(count = nsyms(im)) && strtab > sym)
		count = (strtab - sym) / ent;
	if (!count || !(t = loaded_at(im, sym, &n)) || !(s = loaded_at(im, strtab, &m)) ||
	    count > n / ent || strsz == 0 || strsz > m || s[strsz - 1] != '\0')
		return false;
	*tab = (struct pks_elf_sect){ .name = "", .type = SHT_DYNSYM, .addr = sym,
				      .size = count * ent, .entsize = ent, .bytes = t };
	*str = (struct pks_elf_sect){ .name = "", .type = SHT_STRTAB, .addr = strtab, .size = strsz,
				      .bytes = s };
	return true;
}

/*
 * The symbol table of type SHT_DYNSYM (@dynamic) or SHT_SYMTAB and its
 * strings, if sound; with no SHT_DYNSYM section, the loader's (above).
 */
static bool symtab(const struct pks_elf_image *im, bool dynamic, struct pks_elf_sect *tab,
		   struct pks_elf_sect *str)
{
	uint32_t want = dynamic ? SHT_DYNSYM : SHT_SYMTAB;

	for (unsigned i = 1; pks_elf_sect_at(im, i, tab); i++) {
		if (tab->type != want)
			continue;
		return tab->bytes && tab->entsize == at[ST_BYTES][wide(im)] && tab->link < im->shnum &&
		       pks_elf_sect_at(im, tab->link, str) && str->bytes && str->size &&
		       str->bytes[str->size - 1] == '\0';
	}
	return dynamic && loaded_dynsym(im, tab, str);
}

/** pks_elf_has_symtab() - Return: the image has a sound .dynsym (@dynamic) or .symtab. */
bool pks_elf_has_symtab(const struct pks_elf_image *im, bool dynamic)
{
	struct pks_elf_sect tab, str;

	return symtab(im, dynamic, &tab, &str);
}

/*
 * The first symbol of .dynsym (@dynamic) or .symtab that @match takes,
 * given its name, the symbol and @arg: into *@out, its name into *@name.
 * Return: false when there is none (or no such table).
 */
static bool first_symbol(const struct pks_elf_image *im, bool dynamic,
			 bool (*match)(const char *name, const struct pks_elf_symbol *s, const char *arg),
			 const char *arg, struct pks_elf_symbol *out, const char **name)
{
	struct pks_elf_sect tab, str;
	unsigned n = at[ST_BYTES][wide(im)], w = word(im);

	if (!symtab(im, dynamic, &tab, &str))
		return false;
	for (uint64_t off = 0; off + n <= tab.size; off += n) {
		const unsigned char *p = tab.bytes + off;
		uint64_t nm = field(im, p, ST_NAME, 4);

		if (nm == 0 || nm >= str.size)
			continue;
		*out = (struct pks_elf_symbol){
			.value = field(im, p, ST_VALUE, w), .size = field(im, p, ST_SIZE, w),
			.shndx = (unsigned)field(im, p, ST_SHNDX, 2),
			.info = (unsigned char)field(im, p, ST_INFO, 1),
			.other = (unsigned char)field(im, p, ST_OTHER, 1),
		};
		*name = (const char *)str.bytes + nm;
		if (match(*name, out, arg))
			return true;
	}
	return false;
}

static bool called(const char *name, const struct pks_elf_symbol *s, const char *want)
{
	(void)s;
	return !strcmp(name, want);
}

/**
 * pks_elf_symbol() - the first symbol called @name in .dynsym (@dynamic) or
 * .symtab, defined or not
 * Return: false when there is none (or no such table).
 */
bool pks_elf_symbol(const struct pks_elf_image *im, bool dynamic, const char *name,
		    struct pks_elf_symbol *out)
{
	const char *found;

	return first_symbol(im, dynamic, called, name, out, &found);
}

/* The kinds of copies gcc makes of a function that its callers call instead of it. */
static const char *const clone_kinds[] = { "constprop.", "isra.", "part." };

/* Whether @s, called @sym, is a function defined here that is such a copy of @name: "printk.constprop.0". */
static bool clone_of(const char *sym, const struct pks_elf_symbol *s, const char *name)
{
	size_t n = strlen(name);

	if (s->shndx == SHN_UNDEF || s->shndx >= SHN_LORESERVE || ELF64_ST_TYPE(s->info) != STT_FUNC ||
	    strncmp(sym, name, n) || sym[n] != '.')
		return false;
	for (size_t i = 0; i < sizeof(clone_kinds) / sizeof(clone_kinds[0]); i++)
		if (!strncmp(sym + n + 1, clone_kinds[i], strlen(clone_kinds[i])))
			return true;
	return false;
}

/**
 * pks_elf_clone() - a copy the compiler made of the function @name, in
 * .symtab, that callers call instead of it (gcc's IPA clones and partial
 * inlining: @name.constprop.N, .isra.N, .part.N), so that a jump written
 * at @name's entry never sees those calls
 * @buf: the first one's name, @size bytes at most
 * Return: whether there is one.
 */
bool pks_elf_clone(const struct pks_elf_image *im, const char *name, char *buf, size_t size)
{
	struct pks_elf_symbol s;
	const char *found;
	size_t k;

	if (!first_symbol(im, false, clone_of, name, &s, &found))
		return false;
	if (size) {
		k = strnlen(found, size - 1);
		memcpy(buf, found, k);
		buf[k] = '\0';
	}
	return true;
}

/** pks_elf_has_segment() - Return: a program header of @type is there (PT_INTERP, PT_DYNAMIC). */
bool pks_elf_has_segment(const struct pks_elf_image *im, uint32_t type)
{
	struct pks_elf_seg s;

	for (unsigned i = 0; pks_elf_seg_at(im, i, &s); i++)
		if (s.type == type)
			return true;
	return false;
}

/* The dynamic entries as the dynamic linker finds them (PT_DYNAMIC), else .dynamic. */
static const unsigned char *dynamic(const struct pks_elf_image *im, uint64_t *size)
{
	struct pks_elf_seg s;
	struct pks_elf_sect d;

	for (unsigned i = 0; pks_elf_seg_at(im, i, &s); i++)
		if (s.type == PT_DYNAMIC) {
			*size = s.filesz;
			return s.bytes;
		}
	for (unsigned i = 1; pks_elf_sect_at(im, i, &d); i++)
		if (d.type == SHT_DYNAMIC) {
			*size = d.size;
			return d.bytes;
		}
	return NULL;
}

/**
 * pks_elf_dynamic_all() - the values of the dynamic section's @tag entries, in order
 * @vals: out; room for @max
 * Return: how many were found (at most @max).
 */
unsigned pks_elf_dynamic_all(const struct pks_elf_image *im, int64_t tag, uint64_t *vals,
			     unsigned max)
{
	uint64_t size = 0;
	const unsigned char *d = dynamic(im, &size);
	unsigned w = word(im), n = 0;

	for (uint64_t off = 0; d && n < max && off + 2 * w <= size; off += 2 * w) {
		uint64_t t = get(im, d + off, w);

		if (t == DT_NULL)
			break;
		if (t == (uint64_t)tag)
			vals[n++] = get(im, d + off + w, w);
	}
	return n;
}

/** pks_elf_dynamic() - Return: the first @tag entry of the dynamic section is there; its value in *@val. */
bool pks_elf_dynamic(const struct pks_elf_image *im, int64_t tag, uint64_t *val)
{
	return pks_elf_dynamic_all(im, tag, val, 1) == 1;
}

/* Read-only data: allocated, neither writable nor code, with bytes. */
static bool rodata(const struct shdr *sh, void *arg)
{
	(void)arg;
	return sh->type == SHT_PROGBITS && (sh->flags & SHF_ALLOC) &&
	       !(sh->flags & (SHF_WRITE | SHF_EXECINSTR));
}

/*
 * Without sections (sstrip's output, an embedded toolchain's): the
 * read-only data as the loader maps it, the PT_LOAD segments neither
 * writable nor code, apart(). Return: how many, in *@out (malloc'ed).
 */
static size_t ro_segments(const struct pks_elf_image *im, struct range **out)
{
	struct range *r = malloc(((size_t)im->phnum + 1) * sizeof(*r));
	struct pks_elf_seg s;
	size_t n = 0;

	*out = r;
	for (unsigned i = 0; r && pks_elf_seg_at(im, i, &s); i++)
		if (s.type == PT_LOAD && s.bytes && s.filesz && !(s.flags & (PF_W | PF_X)))
			r[n++] = (struct range){ (uint64_t)(s.bytes - im->base),
						 (uint64_t)(s.bytes - im->base) + s.filesz, i };
	return apart(r, n);
}

/**
 * pks_elf_rodata_strings() - call @fn for every NUL-terminated string of the
 * read-only data that starts where a string can (at a section's start or
 * after a NUL) with one of the bytes of @first, in file order, each byte
 * looked at once;
 * in a file without sections, that of its read-only segments
 * Return: what @fn returned to stop the walk, or 0 (also when memory runs out).
 */
int pks_elf_rodata_strings(const struct pks_elf_image *im, const char *first,
			   pks_elf_string_visit *fn, void *arg)
{
	struct range *r;
	size_t n = im->shnum > 1 ? disjoint(im, rodata, NULL, &r) : ro_segments(im, &r);
	int ret = 0;

	for (size_t k = 0; k < n && !ret; k++) {
		const char *s = (const char *)im->base + r[k].off, *end = s + (r[k].end - r[k].off);
		const char *last = memrchr(s, '\0', (size_t)(end - s));

		for (const char *p = s; last && p < last && !ret; p++) {
			if (*p && strchr(first, *p))
				ret = fn(arg, p);
			p = memchr(p, '\0', (size_t)(last - p) + 1);	/* found: *last is one */
		}
	}
	free(r);
	return ret;
}

/* ---- the native view ---------------------------------------------------- */

/* Is @p aligned to @align, as a <link.h> table must be to be read in place? */
static bool aligned(const unsigned char *p, size_t align)
{
	return (uintptr_t)p % align == 0;
}

/* The native symbol table (.dynsym when @dynamic, else .symtab) of @e's image, if sound. */
static void take(struct pks_elf *e, bool dynamic)
{
	struct pks_elf_sect tab, str;

	if (!symtab(&e->im, dynamic, &tab, &str) || !aligned(tab.bytes, _Alignof(ElfW(Sym))))
		return;
	*(dynamic ? &e->dynsym : &e->symtab) = (const ElfW(Sym) *)(const void *)tab.bytes;
	*(dynamic ? &e->ndynsym : &e->nsymtab) = tab.size / sizeof(ElfW(Sym));
	*(dynamic ? &e->dynstr : &e->symstr) = (const char *)str.bytes;
	*(dynamic ? &e->dynstr_size : &e->symstr_size) = str.size;
}

/**
 * pks_elf_map() - map the ELF file at @path and find its symbol tables
 * Return: 0, or -1 with errno set (the file cannot be read, or is not a
 * regular file). A file that is not ELF, or is of another class or byte
 * order, opens with no tables. It allocates nothing.
 */
int pks_elf_map(struct pks_elf *e, const char *path)
{
	struct pks_elf_image im;
	int err = pks_elf_open(&im, path);

	*e = (struct pks_elf){ .im = im };
	if (err && err != -ENOEXEC && err != PKS_ELF_CORRUPT) {
		errno = err == PKS_ELF_NOT_REGULAR ? ENODEV : -err;
		return -1;
	}
	if (!err && e->im.cls == NATIVE_CLASS && e->im.msb == NATIVE_MSB) {
		take(e, false);
		take(e, true);
	}
	return 0;
}

void pks_elf_unmap(struct pks_elf *e)
{
	pks_elf_close(&e->im);
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
	struct pks_elf_seg s;

	for (unsigned i = 0; pks_elf_seg_at(&e->im, i, &s); i++) {
		if (s.type != PT_LOAD || vaddr < s.vaddr || vaddr - s.vaddr > s.filesz ||
		    n > s.filesz - (vaddr - s.vaddr))
			continue;
		return s.bytes ? s.bytes + (vaddr - s.vaddr) : NULL;
	}
	return NULL;
}

/**
 * pks_elf_loaded_as() - are @e's program headers the @phnum ones @ph of a
 * loaded object (type, address and size each)? Then the file is that
 * object: not ld.so run as a program, not a library replaced on disk.
 */
bool pks_elf_loaded_as(const struct pks_elf *e, const ElfW(Phdr) *ph, size_t phnum)
{
	struct pks_elf_seg s;

	if (e->im.phnum != phnum)
		return false;
	for (unsigned i = 0; pks_elf_seg_at(&e->im, i, &s); i++)
		if (s.type != ph[i].p_type || s.vaddr != ph[i].p_vaddr || s.memsz != ph[i].p_memsz)
			return false;
	return true;
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
	static char exe[4096];
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
