/* SPDX-License-Identifier: MIT */
/*
 * What the files of the format engine (shim/format/) share: the bounded
 * output buffer, the kernel's field spec with its number and string
 * printers, and one printer per %p extension. Nothing here leaves the
 * engine; the only entry point the rest of the shim sees is format.h.
 *
 * Thread-safety: no state; every function works on the buffer it is given.
 */
#ifndef PKS_FORMAT_PRIV_H
#define PKS_FORMAT_PRIV_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's printf_spec flags (lib/vsprintf.c), same meanings. */
enum {
	PKS_FMT_SIGN	= 1 << 0,	/* the value is signed */
	PKS_FMT_LEFT	= 1 << 1,	/* '-' */
	PKS_FMT_PLUS	= 1 << 2,	/* '+' */
	PKS_FMT_SPACE	= 1 << 3,	/* ' ' */
	PKS_FMT_ZEROPAD	= 1 << 4,	/* '0' */
	PKS_FMT_SMALL	= 1 << 5,	/* lower-case hex */
	PKS_FMT_SPECIAL	= 1 << 6,	/* '#': 0x / 0 prefix */
};

#define PKS_FMT_PAGE		4096UL	/* below this a pointer is "(efault)" */
#define PKS_FMT_MAX_ERRNO	4095UL	/* the kernel's ERR_PTR range */
#define PKS_FMT_IS_ERR(p)	((uintptr_t)(p) >= (uintptr_t)-PKS_FMT_MAX_ERRNO)

/* Where the engine writes: bytes past @size are counted, never stored. */
struct pks_fmt_buf {
	char *buf;
	size_t size;		/* bytes of @buf that may be written */
	size_t len;		/* bytes produced so far, also beyond @size */
	int depth;		/* %pV nesting, bounded */
	int err;		/* errno at entry, for %m */
	int fail;		/* a C library conversion failed: return -1 */
};

/* A conversion's field, as the kernel keeps it. */
struct pks_fmt_spec {
	int width;		/* -1: none */
	int prec;		/* -1: none */
	unsigned int flags;	/* PKS_FMT_* above */
};

/* One %p extension: @ext points at its first letter (ext[0]). */
typedef void pks_fmt_ext_fn(struct pks_fmt_buf *b, const void *ptr,
			    const char *ext, struct pks_fmt_spec sp);

#pragma GCC visibility push(hidden)

/* print.c: the buffer and the kernel's basic printers */
void pks_fmt_put(struct pks_fmt_buf *b, const char *s, size_t n);
void pks_fmt_putc(struct pks_fmt_buf *b, char c);
void pks_fmt_fill(struct pks_fmt_buf *b, char c, long n);
void pks_fmt_num(struct pks_fmt_buf *b, unsigned long long num, int base,
		 struct pks_fmt_spec sp);
void pks_fmt_str(struct pks_fmt_buf *b, const char *s, struct pks_fmt_spec sp);
void pks_fmt_errstr(struct pks_fmt_buf *b, const char *msg,
		    struct pks_fmt_spec sp);
int pks_fmt_bad_ptr(struct pks_fmt_buf *b, const void *ptr,
		    struct pks_fmt_spec sp);
void pks_fmt_hexnum(struct pks_fmt_buf *b, unsigned long long v, int bytes);
char *pks_fmt_hexbyte(char *p, unsigned char c, int upper);
char *pks_fmt_terminate(struct pks_fmt_buf *b);
int pks_fmt_kisprint(unsigned char c);

/* vsnprintf.c: the walk, for %pV */
void pks_fmt_vprintf(struct pks_fmt_buf *b, const char *fmt, va_list *ap);

/* errname.c */
const char *pks_fmt_errname(int err);

/* the extensions, by file */
pks_fmt_ext_fn pks_fmt_ext_hashed, pks_fmt_ext_raw, pks_fmt_ext_addr,
	pks_fmt_ext_netdev, pks_fmt_ext_errptr;		/* ptr.c */
pks_fmt_ext_fn pks_fmt_ext_mac, pks_fmt_ext_ip;		/* net.c */
pks_fmt_ext_fn pks_fmt_ext_hex, pks_fmt_ext_escape, pks_fmt_ext_bitmap,
	pks_fmt_ext_uuid, pks_fmt_ext_fourcc;		/* mem.c */
pks_fmt_ext_fn pks_fmt_ext_symbol;			/* sym.c */
pks_fmt_ext_fn pks_fmt_ext_time, pks_fmt_ext_resource, pks_fmt_ext_kobj,
	pks_fmt_ext_kstr;				/* kobj.c */

#pragma GCC visibility pop

#endif
