// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the one ELF reader (shim/elf/elf.c) over any bytes, as
 * --index, --check, --dyndbg-list, patching and the names read a file. The
 * input is written to a memfd and opened by its /proc path, both as an
 * image and as the native view. Checked, besides no read outside the file:
 *
 *   - every string the reader hands back lies in the file, NUL included;
 *   - a section copy has the section's size and is the same when asked again;
 *   - a decoded section's or segment's bytes lie in the file;
 *   - a native symbol table and its strings lie in the file;
 *   - pks_level_marked() says no more markers than the string has.
 */
#include "core/level.h"
#include "elf/calls.h"
#include "elf/elf.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int fd = -1;
static char path[64];
static const unsigned char *lo, *hi;	/* the mapped file being read */

static void fail(const char *why)
{
	fprintf(stderr, "fuzz-elf: %s\n", why);
	abort();
}

static void inside(const void *p, size_t n, const char *what)
{
	if (p && ((const unsigned char *)p < lo || n > (size_t)(hi - (const unsigned char *)p)))
		fail(what);
}

static void string(const char *s, const char *what)
{
	if (s) {
		inside(s, 1, what);
		if (!memchr(s, '\0', (size_t)(hi - (const unsigned char *)s)))
			fail(what);
	}
}

static int marked(void *arg, const char *s)
{
	size_t skip = pks_level_marked(s, true);

	(void)arg;
	string(s, "a read-only string outside the file");
	if (skip > strlen(s))
		fail("more markers than the string has");
	return 0;
}

static void image(void)
{
	static const char *const names[] = { ".printk_index", "__dyndbg", ".rela.dyn", ".text", "" };
	struct pks_elf_image im;
	struct pks_elf_sect sect;
	struct pks_elf_seg seg;
	struct pks_elf_symbol sym;
	uint64_t vals[8];
	size_t size = 0, again = 0;

	if (pks_elf_open(&im, path) && pks_elf_open_loadable(&im, path))
		return;
	lo = im.base;
	hi = im.base + im.size;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const unsigned char *p = pks_elf_section(&im, names[i], &size);
		unsigned ps = pks_elf_ptrsize(&im);

		if (p && pks_elf_section(&im, names[i], &again) != (const void *)p)
			fail("a section copy differs when asked again");
		if (p && again != size)
			fail("a section's size differs when asked again");
		for (size_t off = 0; p && off + ps <= size; off += ps)
			string(pks_elf_string(&im, pks_elf_word(&im, p + off, ps)),
			       "a string outside the file");
	}
	for (unsigned i = 0; pks_elf_sect_at(&im, i, &sect); i++) {
		inside(sect.bytes, sect.size, "a section outside the file");
		if (sect.name[0])	/* "" is also the name of an unsound one */
			string(sect.name, "a section name outside the file");
	}
	for (unsigned i = 0; pks_elf_seg_at(&im, i, &seg); i++)
		inside(seg.bytes, seg.filesz, "a segment outside the file");
	if (pks_elf_symbol(&im, true, "printk", &sym))
		pks_elf_calls(&im, sym.value);	/* the segments' code read to its last byte */
	pks_elf_symbol(&im, false, "main", &sym);
	pks_elf_dynamic_all(&im, DT_NEEDED, vals, 8);
	pks_elf_rodata_strings(&im, "\001<", marked, NULL);
	pks_elf_close(&im);
}

static int walked(void *arg, const char *name, const ElfW(Sym) *s)
{
	(void)arg;
	string(name, "a symbol name outside the file");
	inside(s, sizeof(*s), "a symbol outside the file");
	return 0;
}

static void native(void)
{
	struct pks_elf e;

	if (pks_elf_map(&e, path) || !e.im.base)
		return;
	lo = e.im.base;
	hi = e.im.base + e.im.size;
	pks_elf_walk(&e, false, walked, NULL);
	pks_elf_walk(&e, true, walked, NULL);
	pks_elf_find(&e, true, "printk");
	inside(pks_elf_bytes(&e, 0x1000, 16), 16, "bytes outside the file");
	pks_elf_unmap(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (fd < 0) {
		if ((fd = memfd_create("fuzz-elf", 0)) < 0)
			fail("memfd_create");
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, n, 0) != (ssize_t)n)
		fail("writing the memfd");
	image();
	native();
	return 0;
}
