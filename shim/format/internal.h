/* SPDX-License-Identifier: MIT */
/*
 * What the files of the format engine (shim/format/) share: the bounded
 * output cursor, the kernel's field spec with its number and string
 * printers, and one printer per %p extension. Nothing here leaves the
 * engine; the only entry point the rest of the shim sees is format.h.
 *
 * Thread-safety: no state; every function works on the cursor it is given.
 */
#ifndef PKS_FORMAT_PRIV_H
#define PKS_FORMAT_PRIV_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's printf_spec flags (lib/vsprintf.c), same meanings. */
enum {
	PKS_SIGN	= 1 << 0,	/* the value is signed */
	PKS_LEFT	= 1 << 1,	/* '-' */
	PKS_PLUS	= 1 << 2,	/* '+' */
	PKS_SPACE	= 1 << 3,	/* ' ' */
	PKS_ZEROPAD	= 1 << 4,	/* '0' */
	PKS_SMALL	= 1 << 5,	/* lower-case hex */
	PKS_SPECIAL	= 1 << 6,	/* '#': 0x / 0 prefix */
};

#define PKS_PAGE	4096UL		/* below this a pointer is "(efault)" */
#define PKS_MAX_ERRNO	4095UL		/* the kernel's ERR_PTR range */
#define PKS_IS_ERR(p)	((uintptr_t)(p) >= (uintptr_t)-PKS_MAX_ERRNO)

/* Where output goes: bytes past @size are counted, never stored. */
struct pks_out {
	char *buf;
	size_t size;		/* bytes of @buf that may be written */
	size_t len;		/* bytes produced so far, also beyond @size */
	int depth;		/* %pV nesting, bounded */
	int err;		/* errno at entry, for %m */
	int fail;		/* a C library conversion failed: return -1 */
};

/* A conversion's field, as the kernel keeps it. */
struct pks_spec {
	int width;		/* -1: none */
	int prec;		/* -1: none */
	unsigned int flags;	/* PKS_* above */
};

/* One %p extension: @ext points at its first letter (ext[0]). */
typedef void pks_ext_fn(struct pks_out *o, const void *ptr, const char *ext,
			struct pks_spec sp);

#pragma GCC visibility push(hidden)

/* format-out.c: the cursor and the kernel's basic printers */
void pks_put(struct pks_out *o, const char *s, size_t n);
void pks_putc(struct pks_out *o, char c);
void pks_fill(struct pks_out *o, char c, long n);
void pks_num(struct pks_out *o, unsigned long long num, int base,
	     struct pks_spec sp);
void pks_str(struct pks_out *o, const char *s, struct pks_spec sp);
void pks_errstr(struct pks_out *o, const char *msg, struct pks_spec sp);
int pks_bad_ptr(struct pks_out *o, const void *ptr, struct pks_spec sp);
void pks_hexnum(struct pks_out *o, unsigned long long v, int bytes);
char *pks_hexbyte(char *p, unsigned char c, int upper);
char *pks_terminate(struct pks_out *o);
int pks_kisprint(unsigned char c);

/* format.c: the walker, for %pV */
void pks_format(struct pks_out *o, const char *fmt, va_list *ap);

/* format-errname.c */
const char *pks_errname(int err);

/* the extensions, by file */
pks_ext_fn pks_ext_hashed, pks_ext_raw, pks_ext_addr, pks_ext_netdev,
	pks_ext_errptr;				/* format-ptr.c */
pks_ext_fn pks_ext_mac, pks_ext_ip;		/* format-net.c */
pks_ext_fn pks_ext_hex, pks_ext_escape, pks_ext_bitmap, pks_ext_uuid,
	pks_ext_fourcc;				/* format-buf.c */
pks_ext_fn pks_ext_symbol;			/* format-sym.c */
pks_ext_fn pks_ext_time, pks_ext_resource, pks_ext_kobj,
	pks_ext_kstr;				/* format-obj.c */

#pragma GCC visibility pop

#endif
