// SPDX-License-Identifier: MIT
/*
 * Unit tests of shim/elf/elf.c, the one reader, and elf/calls.c: a section's
 * pointers as the loader would relocate them, and the strings they lead to,
 * in tests/fixtures/elfsym-data.c built PIE, non-PIE and shared, 64-bit
 * with $CC and 32-bit with i686-linux-gnu-gcc, and with the section's bytes
 * zeroed (objcopy), as a linker that leaves RELA addends out of place
 * writes them; files that are not ELF, cut short or scrambled get an error
 * or NULL, never a crash; a FIFO or a device is refused without blocking;
 * the native view and the loader's view (no sound section headers needed);
 * a call straight to a function of the file's own, or through the PLT;
 * .dynsym found without section headers, by either hash table.
 */
#include "elf/calls.h"
#include "elf/elf.h"
#include "tap.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/pks-elfsym-XXXXXX";

/* One way of building the fixture: the compiler and its flags. */
static const struct build {
	const char *name, *cc, *flags;
	unsigned ptrsize;
	bool zeroed;	/* only the RELA relocations hold the pointers */
} builds[] = {
	{ "pie", NULL, "-fPIE -pie", 8, false },
	{ "nopie", NULL, "-fno-pie -no-pie", 8, false },
	{ "shared", NULL, "-fPIC -shared", 8, false },
	{ "shared-bsf", NULL, "-fPIC -shared -Wl,-Bsymbolic-functions", 8, false },
	{ "shared-sysv", NULL, "-fPIC -shared -Wl,--hash-style=sysv", 8, false },
	{ "pie-zeroed", NULL, "-fPIE -pie", 8, true },
	{ "shared-zeroed", NULL, "-fPIC -shared", 8, true },
	{ "i386-pie", "i686-linux-gnu-gcc", "-fPIE -pie", 4, false },
	{ "i386-nopie", "i686-linux-gnu-gcc", "-fno-pie -no-pie", 4, false },
	{ "i386-shared", "i686-linux-gnu-gcc", "-fPIC -shared", 4, false },
	{ "i386-shared-bsf", "i686-linux-gnu-gcc", "-fPIC -shared -Wl,-Bsymbolic-functions", 4, false },
};

static int build(const struct build *b, char *out, size_t size)
{
	const char *cc = b->cc ? b->cc : getenv("CC") ? getenv("CC") : "cc";
	const char *src = getenv("abs_top_srcdir") ? getenv("abs_top_srcdir") : ".";
	char cmd[1024];
	int r;

	snprintf(out, size, "%s/%s", dir, b->name);
	snprintf(cmd, sizeof(cmd), "%s %s -O0 -o %s %s/tests/fixtures/elfsym-data.c", cc, b->flags,
		 out, src);
	if ((r = system(cmd)) || !b->zeroed)
		return r;
	snprintf(cmd, sizeof(cmd), "head -c %u /dev/zero >%s.zero && "
		 "objcopy --update-section pks_elfsym_test=%s.zero %s", 6 * b->ptrsize, out, out, out);
	return system(cmd);
}

static uint64_t ptr_at(const unsigned char *p, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)	/* both fixtures are little-endian */
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static const char *str_at(struct pks_elf_image *im, const unsigned char *p)
{
	const char *s = pks_elf_string(im, ptr_at(p, pks_elf_ptrsize(im)));

	return s ? s : "(null)";
}

/*
 * The file at @path again at @out with no section headers, as sstrip leaves
 * one: e_shoff, e_shnum and e_shstrndx zero (@ps: the class's pointer size).
 */
static int no_sections(const char *path, const char *out, unsigned ps)
{
	char cmd[2048];	/* room for both paths three times, which -Wformat-truncation counts */

	snprintf(cmd, sizeof(cmd), "cp %s %s && printf '\\0\\0\\0\\0\\0\\0\\0\\0' | "
		 "dd of=%s bs=1 seek=%u count=%u conv=notrunc status=none && printf '\\0\\0\\0\\0' | "
		 "dd of=%s bs=1 seek=%u conv=notrunc status=none", path, out, out, ps == 8 ? 40 : 32,
		 ps, out, ps == 8 ? 60 : 48);
	return system(cmd);
}

/*
 * Without section headers, .dynsym is still found where the dynamic linker
 * finds it (DT_SYMTAB, its size from DT_HASH or DT_GNU_HASH): a program's
 * import, a shared object's export.
 */
static void loader_view(const struct build *b, const char *path)
{
	const char *name = strstr(b->name, "shared") ? "pks_elfsym_callee" : "__libc_start_main";
	struct pks_elf_image im;
	struct pks_elf_symbol sym;
	char out[300];

	snprintf(out, sizeof(out), "%s.noshdr", path);
	if (!ok(no_sections(path, out, b->ptrsize) == 0, "%s: a copy without section headers", b->name))
		return;
	if (!is_int(pks_elf_open(&im, out), 0, "it opens"))
		return;
	ok(im.shnum == 0 && pks_elf_has_symtab(&im, true) && !pks_elf_has_symtab(&im, false),
	   "no sections; the loader's .dynsym, no .symtab");
	ok(pks_elf_symbol(&im, true, name, &sym) &&
	   (sym.shndx == SHN_UNDEF) == !strstr(b->name, "shared"),
	   "%s: %s found in it, %s", b->name, name, strstr(b->name, "shared") ? "defined" : "imported");
	ok(!pks_elf_symbol(&im, true, "no_such_symbol", &sym), "a missing symbol: false");
	pks_elf_close(&im);
}

static void read_back(const struct build *b)
{
	static const char *const want[2][2] = { { "alpha", "first record" }, { "beta", "second record" } };
	struct pks_elf_image im;
	struct pks_elf_symbol sym;
	const unsigned char *recs;
	char path[256];
	size_t size = 0;
	unsigned ps = b->ptrsize;

	if (!ok(build(b, path, sizeof(path)) == 0, "%s: the fixture builds", b->name))
		return;
	if (!is_int(pks_elf_open(&im, path), 0, b->name))
		return;
	is_int(pks_elf_ptrsize(&im), ps, "the pointer size");
	recs = pks_elf_section(&im, "pks_elfsym_test", &size);
	ok(recs != NULL, "%s: the section is there", b->name);
	is_int((long long)size, 2 * 3 * ps, "its size: two records");
	for (int r = 0; recs && r < 2; r++) {
		is_str(str_at(&im, recs + r * 3 * ps), want[r][0], "a name pointer");
		is_str(str_at(&im, recs + r * 3 * ps + ps), want[r][1], "a text pointer");
		is_int((long long)ptr_at(recs + r * 3 * ps + 2 * ps, ps), b->zeroed ? 0 : r + 1,
		       "a number, untouched");
	}
	ok(pks_elf_section(&im, "pks_elfsym_test", &size) == recs, "asked again: the same copy");
	ok(pks_elf_has_segment(&im, PT_INTERP) == !strstr(b->name, "shared"),
	   "a dynamic linker for the programs only");
	ok(pks_elf_has_segment(&im, PT_DYNAMIC), "a dynamic section");
	ok(pks_elf_symbol(&im, false, "main", &sym) && sym.shndx != SHN_UNDEF &&
	   ELF64_ST_TYPE(sym.info) == STT_FUNC && sym.size > 0, "main in .symtab, a sized function");
	ok(pks_elf_symbol(&im, false, "pks_elfsym_callee", &sym) &&
	   pks_elf_calls(&im, sym.value) == (!strstr(b->name, "shared") || !!strstr(b->name, "bsf")),
	   "%s: a call straight to a function of its own, unless through the PLT", b->name);
	ok(!pks_elf_calls(&im, sym.value + 1) && !pks_elf_calls(&im, 0),
	   "no call to the byte after it, nor to 0");
	ok(!pks_elf_symbol(&im, false, "no_such_symbol", &sym), "a missing symbol: false");
	ok(pks_elf_section(&im, "no_such_section", &size) == NULL, "a missing section: NULL");
	ok(pks_elf_string(&im, 0) == NULL, "address 0: NULL");
	ok(pks_elf_string(&im, UINT64_MAX) == NULL, "an address past everything: NULL");
	pks_elf_close(&im);
	if (!b->zeroed)
		loader_view(b, path);
}

static int write_file(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int r = fd >= 0 && write(fd, p, n) == (ssize_t)n ? 0 : -1;

	if (fd >= 0)
		close(fd);
	return r;
}

/* Read everything a caller could ask of the file at @path; the test is that it returns. */
static void poke_all(const char *path)
{
	struct pks_elf_image im;
	struct pks_elf_symbol sym;
	struct pks_elf_sect sect;
	uint64_t val;
	size_t size;
	const unsigned char *recs;

	if (pks_elf_open(&im, path))
		return;
	recs = pks_elf_section(&im, "pks_elfsym_test", &size);
	for (size_t off = 0; recs && off + 8 <= size; off += 8)
		pks_elf_string(&im, ptr_at(recs + off, 8));
	pks_elf_section(&im, ".rela.dyn", &size);
	pks_elf_symbol(&im, true, "printf", &sym);
	pks_elf_symbol(&im, false, "main", &sym);
	pks_elf_has_segment(&im, PT_INTERP);
	pks_elf_dynamic(&im, DT_FLAGS_1, &val);
	for (unsigned i = 0; pks_elf_sect_at(&im, i, &sect); i++)
		if (sect.bytes && sect.size)
			(void)sect.bytes[sect.size - 1];
	pks_elf_close(&im);
}

/* The PIE fixture cut short at each length, then with bytes scrambled. */
static void hostile(void)
{
	struct pks_elf_image im;
	char path[256], bad[300];
	unsigned char *file;
	size_t n;
	FILE *f;

	build(&builds[0], path, sizeof(path));
	f = fopen(path, "rb");
	file = malloc(1 << 20);
	n = f ? fread(file, 1, 1 << 20, f) : 0;
	if (f)
		fclose(f);
	snprintf(bad, sizeof(bad), "%s/bad", dir);
	for (size_t len = 0; len < n; len += len < 128 ? 1 : 97) {
		write_file(bad, file, len);
		poke_all(bad);
	}
	ok(1, "cut short at every length up to 128 bytes, then every 97th: no crash");
	srand(16);
	for (int i = 0; i < 400; i++) {
		unsigned char *copy = malloc(n);

		memcpy(copy, file, n);
		for (int k = 0; k < 8; k++)
			copy[(size_t)rand() % (i % 2 ? n : 128 + 64 * 4)] = (unsigned char)rand();
		write_file(bad, copy, n);
		poke_all(bad);
		free(copy);
	}
	ok(1, "400 copies with 8 bytes scrambled (half of them in the headers): no crash");
	write_file(bad, "#!/bin/sh\necho not ELF\n", 23);
	is_int(pks_elf_open(&im, bad), -ENOEXEC, "a shell script: -ENOEXEC");
	write_file(bad, file, 40);
	is_int(pks_elf_open(&im, bad), PKS_ELF_CORRUPT, "an ELF header cut short: corrupt");
	write_file(bad, file, 6);
	is_int(pks_elf_open(&im, bad), PKS_ELF_CORRUPT, "its identification cut short: corrupt");
	write_file(bad, file, 3);
	is_int(pks_elf_open(&im, bad), -ENOEXEC, "three bytes: not ELF");
	is_int(pks_elf_open(&im, dir), -EISDIR, "a directory: -EISDIR");
	snprintf(bad, sizeof(bad), "%s/missing", dir);
	is_int(pks_elf_open(&im, bad), -ENOENT, "a missing file: -ENOENT");
	free(file);
}

static int count_marked(void *arg, const char *s)
{
	(void)s;
	++*(int *)arg;
	return 0;
}

/* Files that are not regular, section headers the loader never reads, the native view. */
static void kinds(void)
{
	struct pks_elf_image im;
	struct pks_elf e;
	struct pks_elf_seg seg;
	char path[256], fifo[300], cut[300];
	unsigned char *file;
	size_t n;
	int strings = 0;
	FILE *f;

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	mkfifo(fifo, 0600);
	is_int(pks_elf_open(&im, fifo), PKS_ELF_NOT_REGULAR, "a FIFO: refused at once, not regular");
	is_str(pks_elf_strerror(PKS_ELF_NOT_REGULAR), "not a regular file", "its message");
	is_int(pks_elf_open(&im, "/dev/null"), PKS_ELF_NOT_REGULAR, "a device: not regular");
	ok(pks_elf_map(&e, fifo) == -1 && errno == ENODEV, "the native view of a FIFO: -1, ENODEV");

	build(&builds[0], path, sizeof(path));
	ok(pks_elf_map(&e, path) == 0 && e.symtab && e.dynsym && e.nsymtab > e.ndynsym,
	   "the native view of the PIE fixture: both tables");
	ok(pks_elf_find(&e, false, "main") != NULL, "main found in .symtab");
	pks_elf_unmap(&e);
	ok(pks_elf_map(&e, "/etc/passwd") == 0 && !e.symtab && !e.dynsym,
	   "the native view of a text file: opens, no tables");

	is_int(pks_elf_open(&im, path), 0, "the PIE fixture opens");
	ok(pks_elf_seg_at(&im, 0, &seg) && seg.type == PT_PHDR, "its first segment is PT_PHDR");
	pks_elf_rodata_strings(&im, "f", count_marked, &strings);
	ok(strings >= 1, "a read-only string starting with 'f' (\"first record\"): %d", strings);
	pks_elf_close(&im);

	f = fopen(path, "rb");
	file = malloc(1 << 20);
	n = f ? fread(file, 1, 1 << 20, f) : 0;
	if (f)
		fclose(f);
	((Elf64_Ehdr *)file)->e_shoff = n + 4096;	/* section headers past the end */
	snprintf(cut, sizeof(cut), "%s/noshdrs", dir);
	write_file(cut, file, n);
	is_int(pks_elf_open(&im, cut), PKS_ELF_CORRUPT, "section headers past the end: corrupt");
	is_int(pks_elf_open_loadable(&im, cut), 0, "for the loader's view: opens");
	ok(im.shnum == 0 && pks_elf_has_segment(&im, PT_INTERP), "without sections, with its segments");
	pks_elf_close(&im);
	free(file);
}

int main(void)
{
	char cmd[64];

	if (!mkdtemp(dir))
		return 1;
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++)
		read_back(&builds[i]);
	hostile();
	kinds();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	system(cmd);
	return tap_done();
}
