// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the format engine, pks_vsnprintf() (shim/format/).
 * The first byte picks the mode:
 *
 *   even: a format built from the input by a grammar of the C conversions
 *         (flags, width and precision, '*' too, length modifiers) with bare
 *         "%px" among them; the result must equal glibc's vsnprintf of the
 *         same format with each "%px" written "%016lx" (the kernel prints
 *         %px as 16 zero-padded hex digits), return value and bytes.
 *   odd:  the rest of the input is the format, any bytes, %p extensions and
 *         all: no crash, no read outside what the arguments point to, no
 *         write through an argument (%n), and a short buffer gets a prefix
 *         of what a long one gets, with the same return value.
 *
 * Every argument is one pointer into a 64 KiB object at a fixed address
 * (64 on the stack, enough for 15 conversions of 4 slots each),
 * so each conversion reads something valid whatever its type: as an int
 * it is 0, 0x40 or 0x100 (sane widths for '*'), as a string or a kernel
 * object it is zeroed memory, and for %pV it holds a struct va_format whose
 * format and va_list are valid. On x86-64 the first three pointers travel
 * in registers, eight doubles in SSE registers, the rest on the stack.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "format/format.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define OBJ_ADDR	((uintptr_t)0x200000000000ull)	/* outside ASan's shadow */
#define OBJ_SIZE	(64 * 1024)
#define OUT_MAX		(256 * 1024)
#define FMT_MAX		512
#define WATCHED		0x200		/* where a %n through P0..P2 would write */

static unsigned char *obj;		/* the object every argument points into */
static unsigned char *obj_copy;
static char *out1, *out2;
static double dbl[8];

/* A struct va_format (include/linux/printk.h) at @off of the object. */
struct va_format_k {
	const char *fmt;
	va_list *va;
};

static void setup(void)
{
	obj = mmap((void *)OBJ_ADDR, OBJ_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (obj != (void *)OBJ_ADDR)
		abort();
	obj_copy = malloc(WATCHED);
	out1 = malloc(OUT_MAX);
	out2 = malloc(OUT_MAX);
}

#define P0 ((void *)(OBJ_ADDR))
#define P1 ((void *)(OBJ_ADDR + 0x40))
#define P2 ((void *)(OBJ_ADDR + 0x100))
#define P8 P0, P1, P2, P0, P1, P2, P0, P1
#define ARGS P0, P1, P2, dbl[0], dbl[1], dbl[2], dbl[3], dbl[4], dbl[5], dbl[6], dbl[7], \
	P8, P8, P8, P8, P8, P8, P8, P8

enum { ENGINE, GLIBC };

/* Format with @which, with the arguments; the object's %pV fields are set here,
 * where the va_list they point to is alive. */
static int call(int which, char *buf, size_t size, const char *fmt, ...)
{
	va_list ap, inner;
	int r;

	va_start(ap, fmt);
	va_copy(inner, ap);
	for (int off = 0; off <= 0x100; off += 0x40) {
		struct va_format_k *vf = (struct va_format_k *)(obj + off);

		vf->fmt = (const char *)obj + 0x800;
		vf->va = &inner;
	}
	memcpy(obj_copy, obj, WATCHED);
	errno = 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	r = which == ENGINE ? pks_vsnprintf(buf, size, fmt, ap) : vsnprintf(buf, size, fmt, ap);
#pragma GCC diagnostic pop
	va_end(inner);
	va_end(ap);
	if (memcmp(obj_copy, obj, WATCHED)) {
		fprintf(stderr, "fuzz-format: something was written through an argument\n");
		abort();
	}
	return r;
}

/* --- the grammar ------------------------------------------------------------ */

struct gen {
	const uint8_t *p, *end;
	char fmt[FMT_MAX], ref[FMT_MAX + 64];
	size_t nf, nr;
};

static int take(struct gen *g)
{
	return g->p < g->end ? *g->p++ : -1;
}

static void put(struct gen *g, const char *s)
{
	size_t n = strlen(s);

	if (g->nf + n < FMT_MAX - 1 && g->nr + n < sizeof(g->ref) - 17) {
		memcpy(g->fmt + g->nf, s, n);
		memcpy(g->ref + g->nr, s, n);
		g->nf += n;
		g->nr += n;
	}
}

static void conversion(struct gen *g, int a, int b)
{
	static const char convs[] = "diuoxXcsfFeEgGaA%mbB";
	static const char *const lens[] = { "", "", "hh", "h", "l", "ll", "z", "j", "t", "L" };
	char spec[64], *s = spec;
	int c = convs[a % (int)(sizeof(convs) - 1)], len = b % 10;
	const char *lm = lens[len];

	/* A bare %px, the kernel's raw pointer; not followed by a letter or a
	 * digit, which the kernel would take as more of the extension. */
	if (a % 23 == 0) {
		if (g->nf + 4 < FMT_MAX - 1 && g->nr + 7 < sizeof(g->ref) - 17) {
			memcpy(g->fmt + g->nf, "%px|", 4);
			memcpy(g->ref + g->nr, "%016lx|", 7);
			g->nf += 4;
			g->nr += 7;
		}
		return;
	}
	*s++ = '%';
	for (int i = 0; i < 5; i++)
		if (b & (0x10 << i))
			*s++ = "-+ #0"[i];
	switch ((a >> 5) & 3) {
	case 1: s += sprintf(s, "%d", b % 301); break;
	case 2: *s++ = '*'; break;
	}
	switch ((b >> 6) & 3) {
	case 1: s += sprintf(s, ".%d", a % 301); break;
	case 2: s += sprintf(s, ".*"); break;
	}
	/* L only for floats, the integer lengths only for integers, none for %, m. */
	if (strchr("fFeEgGaA", c))
		lm = len == 9 ? "L" : "";
	else if (c == '%' || c == 'm' || len == 9 || (strchr("cs", c) && len != 4))
		lm = "";
	s += sprintf(s, "%s%c", lm, c);
	if (c == '%')
		strcpy(spec, "%%");
	put(g, spec);
}

static void grammar(const uint8_t *data, size_t size)
{
	struct gen g = { .p = data, .end = data + size };
	int a, b, r1, r2, e1, e2;
	size_t n = 1 + (size ? data[0] : 0) * 16;

	/* At most 4 argument slots per conversion (two '*', a long double). */
	for (int convs = 0; (a = take(&g)) >= 0; ) {
		if (a < 0x80) {
			char lit[3] = { (char)(a < 0x20 ? 'a' + a : a), 0, 0 };

			if (lit[0] == '%')
				lit[1] = '%';
			put(&g, lit);
		} else if ((b = take(&g)) >= 0 && convs++ < 15) {
			conversion(&g, a, b);
		}
	}
	g.fmt[g.nf] = g.ref[g.nr] = '\0';
	for (int i = 0; i < 8; i++)
		dbl[i] = (double)(i * 1234567) / 7.0 - 100.0;
	r1 = call(ENGINE, out1, n, g.fmt, ARGS);
	e1 = errno;
	r2 = call(GLIBC, out2, n, g.ref, ARGS);
	e2 = errno;
	if (r1 != r2 || (r1 < 0 && e1 != e2) || (r1 >= 0 && strcmp(out1, out2))) {
		fprintf(stderr, "fuzz-format: \"%s\" (as \"%s\"), size %zu:\n engine %d \"%.200s\"\n glibc  %d \"%.200s\"\n",
			g.fmt, g.ref, n, r1, r1 >= 0 ? out1 : strerror(e1), r2, r2 >= 0 ? out2 : strerror(e2));
		abort();
	}
}

/* --- anything ---------------------------------------------------------------- */

/* Bounds the arguments can honour: not too many conversions, no positional
 * ones (they may name argument 4000), no literal widths the object is too
 * small for (a width is how many bytes %ph, %pE, %pb read). */
static int sane(const char *f)
{
	int convs = 0, digits = 0;

	for (; *f; f++) {
		convs += *f == '%';
		digits = *f >= '0' && *f <= '9' ? digits + 1 : 0;
		if (*f == '$' || digits > 4 || convs > 15)
			return 0;
	}
	return 1;
}

static void anything(const uint8_t *data, size_t size)
{
	char fmt[FMT_MAX + 1], *v;
	size_t n = size < FMT_MAX ? size : FMT_MAX, small;
	int r1, r2;

	memcpy(fmt, data, n);
	fmt[n] = '\0';
	if (!sane(fmt))
		return;
	/* The inner format of %pV: the same text, from its second half, cut
	 * before a second 'V' (each %pV in it nests the whole again: k^8). */
	snprintf((char *)obj + 0x800, 256, "%s", fmt + n / 2);
	if (!sane((char *)obj + 0x800))
		return;
	v = strchr((char *)obj + 0x800, 'V');
	if (v && (v = strchr(v + 1, 'V')))
		*v = '\0';
	for (int i = 0; i < 8; i++)
		dbl[i] = i * 3.25;
	r1 = call(ENGINE, out1, OUT_MAX, fmt, ARGS);
	small = 1 + n % 64;
	r2 = call(ENGINE, out2, small, fmt, ARGS);
	if (r1 != r2 || (r1 >= 0 && (strnlen(out2, small) >= small ||
				     strncmp(out1, out2, small - 1)))) {
		fprintf(stderr, "fuzz-format: a %zu-byte buffer does not get the start of the output\n", small);
		abort();
	}
	r1 = call(ENGINE, NULL, 0, fmt, ARGS);
	if (r1 != r2) {
		fprintf(stderr, "fuzz-format: a NULL buffer of size 0 counts %d, not %d\n", r1, r2);
		abort();
	}
}

/* ASan's own printf interceptor parses formats too, and stops the run at
 * some malformed ones that glibc prints without complaint. */
const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
	return "check_printf=0";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!obj)
		setup();
	if (size < 1)
		return 0;
	if (data[0] & 1)
		anything(data + 1, size - 1);
	else
		grammar(data + 1, size - 1);
	return 0;
}
