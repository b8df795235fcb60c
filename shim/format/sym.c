// SPDX-License-Identifier: MIT
/*
 * Addresses as symbols: %pS and %pSR ("name+0xoff/0xsize"), %ps (the
 * name), %pB (a return address: looked up one byte back, so a call that
 * never returns still names its caller), and the old %pF/%pf aliases of
 * %pS/%ps that pre-4.x ports still use. The symbol comes from
 * elf/name.c, as kallsyms gives it to the kernel: the dynamic symbol, else
 * the object's .symtab, so static functions and data objects, and those of
 * a program linked without -rdynamic, are named too. A symbol in a shared
 * object other than the main program is a module to the kernel:
 * " [libfoo]", the object's file name with ".so" and any version after it
 * removed. %pSb, %pSRb and %pBb add the object's GNU build ID inside the
 * bracket ("[libfoo <40 hex>]").
 * An address in no object, or with no symbol, prints "0x<hex>" as the
 * kernel does when kallsyms finds nothing. Offsets use the kernel's %#lx,
 * which prints 0 as "0x0". A name longer than the buffer is cut.
 *
 * Thread-safety: elf/name.c and elf/loaded.c ask the dynamic linker,
 * whose lock makes these conversions not async-signal-safe; an
 * object's .symtab is read the first time outside a signal handler only.
 */
#include "elf/loaded.h"
#include "elf/name.h"
#include "format/internal.h"

#include <stdio.h>
#include <string.h>

#define SYM_MAX		640	/* the kernel's KSYM_SYMBOL_LEN is about this */

/* The object's name as a kernel module name: basename, no ".so*". */
static void module_name(char *dst, size_t n, const char *path)
{
	const char *base = strrchr(path, '/');
	const char *so;
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	for (so = strstr(base, ".so"); so; so = strstr(so + 1, ".so")) {
		if (so[3] == '\0' || so[3] == '.') {
			len = so - base;
			break;
		}
	}
	snprintf(dst, n, "%.*s", (int)len, base);
}

/* " [module]" or " [module build-id]" when the object of @n is not the program. */
static void put_module(struct pks_fmt_buf *l, uintptr_t addr, const struct pks_elf_name *n,
		       int with_id)
{
	unsigned char id[PKS_ELF_BUILD_ID_LEN] = { 0 };
	char name[256], hex[2 * PKS_ELF_BUILD_ID_LEN];

	if (n->main || !n->obj || !n->obj[0])
		return;
	module_name(name, sizeof(name), n->obj);
	pks_fmt_put(l, " [", 2);
	pks_fmt_put(l, name, strlen(name));
	if (with_id && pks_elf_build_id((const void *)addr, id)) {
		for (int i = 0; i < PKS_ELF_BUILD_ID_LEN; i++)
			pks_fmt_hexbyte(hex + 2 * i, id[i], 0);
		pks_fmt_putc(l, ' ');
		pks_fmt_put(l, hex, sizeof(hex));
	}
	pks_fmt_putc(l, ']');
}

/*
 * The kernel's __sprint_symbol(): @back is 1 for a return address, looked
 * up at addr - 1 and shown at its own offset.
 */
static void sprint_symbol(struct pks_fmt_buf *l, uintptr_t addr, int back,
			  int offset, int with_id)
{
	struct pks_fmt_spec hex = { .width = -1, .prec = -1,
				    .flags = PKS_FMT_SPECIAL | PKS_FMT_SMALL };
	uintptr_t at = addr - back;
	struct pks_elf_name n;

	if (!pks_elf_name((void *)at, &n) || !n.name) {
		pks_fmt_num(l, addr, 16, hex);
		return;
	}
	pks_fmt_put(l, n.name, strlen(n.name));
	if (offset) {
		pks_fmt_putc(l, '+');
		pks_fmt_num(l, at - n.start + back, 16, hex);
		pks_fmt_putc(l, '/');
		pks_fmt_num(l, n.size, 16, hex);
	}
	put_module(l, at, &n, with_id);
}

void pks_fmt_ext_symbol(struct pks_fmt_buf *b, const void *ptr, const char *ext,
			struct pks_fmt_spec sp)
{
	char s[SYM_MAX];
	struct pks_fmt_buf l = { .buf = s, .size = sizeof(s) };
	int back = ext[0] == 'B';
	int offset = ext[0] != 's' && ext[0] != 'f';
	int with_id = (back && ext[1] == 'b') ||
		      (ext[0] == 'S' && (ext[1] == 'b' ||
					 (ext[1] == 'R' && ext[2] == 'b')));

	if (ext[1] == 'R')
		ptr = __builtin_extract_return_addr((void *)ptr);
	sprint_symbol(&l, (uintptr_t)ptr, back, offset, with_id);
	pks_fmt_str(b, pks_fmt_terminate(&l), sp);
}
