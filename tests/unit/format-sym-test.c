// SPDX-License-Identifier: MIT
/*
 * %pS and its family against dladdr1(): a function of this program (linked
 * with -rdynamic so its symbols are dynamic), a function of a shared
 * object (libformat-sym, a "module"), a return address, addresses inside
 * no object, and a static function, which only .symtab names. The expected
 * sizes are kallsyms', from each object's .symtab, found here by a plainer
 * walk of its own; what is tested is the text around them.
 * Every result is also checked with buffers from 0 bytes to one more than
 * the output.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "elf/elf.h"
#include "format/format.h"
#include "tap.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

int pks_sym_lib_fn(int x);
const void *pks_sym_lib_addr(void);
int pks_sym_main_fn(int x);
const void *pks_sym_caller(void);
const void *pks_sym_outer(void);

static int fmt_to(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = pks_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return r;
}

/* The test's one exported function with a known name. */
__attribute__((noinline)) int pks_sym_main_fn(int x)
{
	return x * 7 + 2;
}

static __attribute__((noinline)) int hidden_fn(int x)
{
	return x - 5;
}

/* Our return address: inside main's caller code, as %pB sees it. */
__attribute__((noinline)) const void *pks_sym_caller(void)
{
	return __builtin_extract_return_addr(__builtin_return_address(0));
}

/* Calls pks_sym_caller() as a real call, not a tail call. */
__attribute__((noinline)) const void *pks_sym_outer(void)
{
	const void *r = pks_sym_caller();

	__asm__ volatile("" ::: "memory");
	return r;
}

/* Is @s a defined symbol of a loaded section, that names an address? */
static bool named(const ElfW(Sym) *s)
{
	int type = ELF64_ST_TYPE(s->st_info);

	return s->st_name && s->st_shndx != SHN_UNDEF && s->st_shndx < SHN_LORESERVE &&
	       type != STT_SECTION && type != STT_FILE && type != STT_TLS;
}

/*
 * The size of the function at @fn as kallsyms counts it: up to the next
 * symbol of its object's .symtab, or its section's end. 0 when unknown.
 */
static unsigned long size_of(const void *fn)
{
	struct link_map *map = NULL;
	struct pks_elf_sect sh = { 0 };
	struct pks_elf e;
	ElfW(Addr) at, end = 0;
	Dl_info di;

	if (!dladdr1(fn, &di, (void **)&map, RTLD_DL_LINKMAP) ||
	    pks_elf_map(&e, map->l_name[0] ? map->l_name : "/proc/self/exe"))
		return 0;
	at = (uintptr_t)fn - map->l_addr;
	for (size_t i = 0; i < e.nsymtab && !end; i++)
		if (e.symtab[i].st_value == at && named(&e.symtab[i]) &&
		    pks_elf_sect_at(&e.im, e.symtab[i].st_shndx, &sh))
			end = sh.addr + sh.size;
	for (size_t i = 0; i < e.nsymtab; i++)
		if (named(&e.symtab[i]) && e.symtab[i].st_value > at && e.symtab[i].st_value < end)
			end = e.symtab[i].st_value;
	pks_elf_unmap(&e);
	return end > at ? end - at : 0;
}

/* One conversion, every buffer size: the text, the return, the NUL. */
static void check(const char *want, const char *fmt, const void *p)
{
	char buf[512], small[512];
	int len = (int)strlen(want), r = fmt_to(buf, sizeof(buf), fmt, p);
	int good = r == len && !strcmp(buf, want);

	for (int size = 0; good && size <= len + 1; size++) {
		memset(small, '$', sizeof(small));
		r = fmt_to(size ? small : NULL, size, fmt, p);
		good = r == len && (!size || (!strncmp(small, want, size - 1) &&
			small[size - 1 < len ? size - 1 : len] == '\0' &&
			small[size] == '$'));
	}
	if (!is_str(buf, want, fmt))
		return;
	ok(good, "%s: every buffer size from 0 to %d", fmt, len + 1);
}

static void test_main_program(void)
{
	const char *fn = (const char *)pks_sym_main_fn;
	unsigned long size = size_of(fn);
	char want[256];

	ok(size > 0, "the test program's function has a size (%lu)", size);
	snprintf(want, sizeof(want), "pks_sym_main_fn+0x0/0x%lx", size);
	check(want, "%pS", fn);
	check(want, "%pSR", fn);
	check(want, "%pF", fn);
	check("pks_sym_main_fn", "%ps", fn);
	check("pks_sym_main_fn", "%pf", fn);
	snprintf(want, sizeof(want), "pks_sym_main_fn+0x3/0x%lx", size);
	check(want, "%pS", fn + 3);
	snprintf(want, sizeof(want), "pks_sym_main_fn+0x%lx/0x%lx", size, size);
	check(want, "%pB", fn + size);
	snprintf(want, sizeof(want), "[%-40s]", "pks_sym_main_fn");
	check(want, "[%-40ps]", fn);
	check("[             pks_sym]", "[%20.7ps]", fn);
}

static void test_return_address(void)
{
	const char *ret = pks_sym_outer();
	char buf[256];

	fmt_to(buf, sizeof(buf), "%pB", ret);
	ok(!strncmp(buf, "pks_sym_outer+0x", 16) && !strchr(buf, '['),
	   "%%pB of a return address names its caller: %s", buf);
	fmt_to(buf, sizeof(buf), "%pS", ret);
	ok(!strncmp(buf, "pks_sym_outer+0x", 16),
	   "%%pS of the same address: %s", buf);
}

static void test_module(void)
{
	const char *fn = pks_sym_lib_addr();
	unsigned long size = size_of(fn);
	char want[256], buf[256];
	size_t n;

	ok(fn == (const char *)pks_sym_lib_fn || fn != NULL,
	   "the shared object's function is at %p", (const void *)fn);
	snprintf(want, sizeof(want), "pks_sym_lib_fn+0x0/0x%lx [libformat-sym]", size);
	check(want, "%pS", fn);
	check("pks_sym_lib_fn [libformat-sym]", "%ps", fn);
	snprintf(want, sizeof(want), "pks_sym_lib_fn+0x1/0x%lx [libformat-sym]", size);
	check(want, "%pB", fn + 1);

	fmt_to(buf, sizeof(buf), "%pSb", fn);
	snprintf(want, sizeof(want), "pks_sym_lib_fn+0x0/0x%lx [libformat-sym", size);
	n = strlen(want);
	ok(!strncmp(buf, want, n) &&
	   (!strcmp(buf + n, "]") ||
	    (buf[n] == ' ' && strspn(buf + n + 1, "0123456789abcdef") == 40 &&
	     !strcmp(buf + n + 41, "]"))),
	   "%%pSb adds the build ID in the bracket: %s", buf);
	fmt_to(buf, sizeof(buf), "%pSRb|%pBb", fn, fn + 1);
	ok(strstr(buf, " [libformat-sym") && strchr(buf, '|'),
	   "%%pSRb and %%pBb: %s", buf);
	fmt_to(buf, sizeof(buf), "%pSb", (const void *)pks_sym_main_fn);
	ok(!strchr(buf, '['), "%%pSb in the program itself has no bracket: %s", buf);
}

static void test_no_object(void)
{
	char want[64];
	void *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	check("0x0", "%pS", NULL);
	check("0x0", "%pB", NULL);
	check("0x1000", "%ps", (void *)0x1000);
	if (page != MAP_FAILED) {
		snprintf(want, sizeof(want), "0x%lx", (unsigned long)(uintptr_t)page);
		check(want, "%pS", page);
		munmap(page, 4096);
	}
}

/* A static function, in no dynamic table: named from the program's .symtab. */
static void test_static(void)
{
	char buf[256];

	fmt_to(buf, sizeof(buf), "%pS|%ps", (const void *)hidden_fn, (const void *)hidden_fn);
	ok(!strncmp(buf, "hidden_fn+0x0/0x", 16) && strstr(buf, "|hidden_fn") && !strchr(buf, '['),
	   "%%pS and %%ps of a static function: %s", buf);
	fmt_to(buf, sizeof(buf), "%pB", (const char *)hidden_fn + 1);
	ok(!strncmp(buf, "hidden_fn+0x1/0x", 16), "%%pB inside it: %s", buf);
}

int main(void)
{
	if (pks_sym_lib_fn(1) != 4 || pks_sym_main_fn(1) != 9 || hidden_fn(6) != 1)
		return 99;
	test_main_program();
	test_return_address();
	test_module();
	test_no_object();
	test_static();
	return tap_done();
}
