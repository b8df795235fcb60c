// SPDX-License-Identifier: MIT
/*
 * The counting walk of format/tally.h against glibc's snprintf(): digits of
 * numbers at every power of two and of ten, and whole shapes measured both
 * ways, with va_arg from a copy and in place where va_start saved the
 * registers (pks_va_regs()), which must say where they are not; %s's
 * strings at every alignment, against a page they must not touch, and
 * past INT32_MAX.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memfd_create() */
#endif
#include "format/tally.h"
#include "tap.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static bool always(const void *p)
{
	(void)p;
	return true;
}

/* Numbers around every power of two and of ten, the widths' ends among them. */
static int digits(void)
{
	uint64_t edges[64 * 3 + 20 * 3], p = 1;
	size_t n = 0;
	int bad = 0;

	for (int b = 0; b < 64; b++) {
		edges[n++] = (1ULL << b) - 1;
		edges[n++] = 1ULL << b;
		edges[n++] = (1ULL << b) + 1;
	}
	for (int k = 0; k < 20; k++, p *= 10) {
		edges[n++] = p - 1;
		edges[n++] = p;
		edges[n++] = p + 1;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t v = edges[i];
		uint32_t w = (uint32_t)v;
		char buf[32];

		bad += pks_ndecimal(v) != (size_t)snprintf(buf, sizeof(buf), "%" PRIu64, v);
		bad += pks_ndecimal32(w) != (size_t)snprintf(buf, sizeof(buf), "%" PRIu32, w);
		bad += pks_nhex(v) != (size_t)snprintf(buf, sizeof(buf), "%" PRIx64, v);
		if (bad && bad < 5)
			printf("# %" PRIu64 ": %zu %zu %zu\n", v, pks_ndecimal(v), pks_ndecimal32(w),
			       pks_nhex(v));
	}
	return bad;
}

/*
 * @fmt measured by pks_tally() from a copy and by pks_tally_walk() in place
 * when its arguments are there, against snprintf(): *@in_place says which.
 */
static bool measures(bool *in_place, const char *fmt, ...)
{
	struct pks_shape cache[4] = { 0 };
	const struct pks_shape *s = pks_shape_find(cache, 4, always, fmt);
	const uint64_t *r;
	va_list ap, cp;
	int want, copy, at = -1;

	va_start(ap, fmt);
	va_copy(cp, ap);
	want = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (!s || !s->plain) {
		va_end(ap);
		printf("# [%s] has no plain shape\n", fmt);
		return false;
	}
	*in_place = pks_va_regs(ap, s->nconv, &r);
	if (*in_place)
		at = s->strings ? pks_tally_walk(pks_tally_ops(s), s->lit, NULL, r, true, true) :
				  pks_tally_walk(pks_tally_ops(s), s->lit, NULL, r, true, false);
	va_copy(cp, ap);
	copy = pks_tally(s, &cp);
	va_end(cp);
	va_end(ap);
	if (copy == want && (!*in_place || at == want))
		return true;
	printf("# [%s]: snprintf %d, copy %d, in place %d\n", fmt, want, copy, at);
	return false;
}

/* "%s%s\n" of @p twice, both ways: -2 past INT32_MAX. */
static bool two(const struct pks_shape *s, ...)
{
	const uint64_t *r;
	va_list ap, cp;
	int copy, at = -2;

	va_start(ap, s);
	if (pks_va_regs(ap, s->nconv, &r))
		at = pks_tally_walk(pks_tally_ops(s), s->lit, NULL, r, true, true);
	va_copy(cp, ap);
	copy = pks_tally(s, &cp);
	va_end(cp);
	va_end(ap);
	if (copy == -2 && at == -2)
		return true;
	printf("# past INT32_MAX: copy %d, in place %d\n", copy, at);
	return false;
}

/*
 * pks_strline() of the @n bytes at @p: their length, and no newline; then
 * with a newline at each place in turn, seen.
 */
static bool lines(char *p, size_t n)
{
	bool nl = true, good = pks_strline(p, &nl) == n && !nl;

	for (size_t i = 0; i < n; i++) {
		char c = p[i];

		p[i] = '\n';
		good = good && pks_strline(p, &nl) == n && nl;
		p[i] = c;
	}
	return good;
}

/*
 * Strings of 0 to 40 bytes at each of 32 alignments, the bytes of their
 * first block before them NUL (to be shifted out) or newlines, and after
 * their own NUL newlines or NUL: pks_strlen(), pks_strline(), and
 * "<%s>\n" measured both ways.
 */
static int aligned(void)
{
	_Alignas(64) char buf[160];
	bool regs;
	int bad = 0;

	for (int before = 0; before < 2; before++)
		for (size_t at = 0; at < 32; at++)
			for (size_t n = 0; n <= 40; n++) {
				char *p = buf + 32 + at;

				memset(buf, before ? '\n' : 0, sizeof(buf));
				memset(p, 's', n);
				p[n] = '\0';
				if (pks_strlen(p) != n || !lines(p, n) || !measures(&regs, "<%s>\n", p)) {
					if (bad++ < 4)
						printf("# %zu bytes at %zu: %zu\n", n, at, pks_strlen(p));
				}
			}
	return bad;
}

/*
 * Strings of 0 to 40 bytes whose NUL is the last byte of a page, the next
 * one PROT_NONE: nothing past it is read (a read would be SIGSEGV).
 */
static int page_end(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	bool regs;
	int bad = 0;

	if (m == MAP_FAILED || mprotect(m + page, (size_t)page, PROT_NONE)) {
		printf("# mmap: %m\n");
		return 1;
	}
	memset(m, 'p', (size_t)page);
	for (size_t n = 0; n <= 40; n++) {
		char *p = m + page - 1 - n;

		p[n] = '\0';
		bad += pks_strlen(p) != n || !lines(p, n) || !measures(&regs, "%s\n", p);
		p[n] = 'p';
	}
	munmap(m, 2 * (size_t)page);
	return bad;
}

/*
 * A string of 1.125 GiB (one 4 MiB file mapped over and over, then a page
 * of zeros), twice in a line: the walk says -2 past INT32_MAX, both ways,
 * for its callers to take their slow path.
 * Return: 1 as it should, 0 not, -1 when the string cannot be mapped.
 */
static int past_int_max(void)
{
	const size_t chunk = 4 << 20, n = 288, len = chunk * n;
	long page = sysconf(_SC_PAGESIZE);
	struct pks_shape cache[4] = { 0 };
	const struct pks_shape *s = pks_shape_find(cache, 4, always, "%s%s\n");
	int fd = memfd_create("tally-test", 0);
	char *m = mmap(NULL, len + (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool good = fd >= 0 && m != MAP_FAILED && !ftruncate(fd, (off_t)chunk) && s;
	int ret = -1;
	char *fill = good ? mmap(NULL, chunk, PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;

	good = fill != MAP_FAILED;
	if (good) {
		memset(fill, 'a', chunk);
		munmap(fill, chunk);
	}
	for (size_t i = 0; good && i < n; i++)
		good = mmap(m + i * chunk, chunk, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED;
	good = good && mmap(m + len, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			    -1, 0) != MAP_FAILED;
	if (!good) {
		printf("# a string of %zu bytes: %m\n", len);
	} else {
		bool nl = true;

		ret = pks_strlen(m) == len && pks_strline(m, &nl) == len && !nl &&
		      two(s, m, m) && m[len - 1] == 'a';
		if (!ret)
			printf("# %zu bytes: %zu\n", len, pks_strlen(m));
	}
	if (fd >= 0)
		close(fd);
	if (m != MAP_FAILED)
		munmap(m, len + (size_t)page);
	return ret;
}

int main(void)
{
	bool regs, all = true, x86 = false;
	int big;

#if defined(__x86_64__) && defined(__LP64__)
	x86 = true;
#endif
	printf("1..11\n");
	ok(digits() == 0, "digits of numbers at every power of two and ten, as glibc prints them");
	/* measures() has two named parameters: four more arguments fill the registers */
	ok(measures(&regs, "int %d %d %d %d\n", INT_MIN, INT_MAX, -1, 0) && regs == x86,
	   "%%d at its ends, in place on x86-64, to the last register");
	ok(measures(&regs, "u %u %x %X %hd %hhd %hhu\n", UINT_MAX, 0u, 0xabcdefu,
		    (short)-32768, (signed char)-128, (unsigned char)255) && !regs,
	   "six arguments: two on the stack, measured from a copy");
	ok(measures(&regs, "l %ld %lld %llu %lx\n", LONG_MIN, LLONG_MAX, ULLONG_MAX,
		    (unsigned long)-1) && regs == x86, "64-bit lengths at their ends");
	ok(measures(&regs, "s <%s> <%s> <%s>\n", "", "eth0", (char *)NULL) && regs == x86,
	   "strings, empty and NULL");
	ok(measures(&regs, "c %c%c %% %d\n", 'a', 'b', 1) && regs == x86,
	   "%%c and %%%%, which takes no argument");
	ok(measures(&regs, "five %d %d %d %d %hu\n", 1, 2, 3, 4, (unsigned short)65535) && !regs,
	   "five arguments: the fifth on the stack, measured from a copy");
	for (int i = 0; i < 1000 && all; i++)
		all = measures(&regs, "r %d %u %x %lld\n", i * 2654435761u, (unsigned)i * 40503u,
			       (unsigned)i << 20, (long long)i * -3037000499LL);
	ok(all, "1000 generated numbers");
	ok(aligned() == 0, "strings of 0 to 40 bytes at every alignment, among NULs and newlines, and a newline in each place");
	ok(page_end() == 0, "strings ending at a page whose next one is PROT_NONE");
	big = sizeof(size_t) < 8 ? 1 : past_int_max();
	if (big < 0)
		printf("ok %d - a line past INT32_MAX # SKIP the string cannot be mapped\n", ++tap_n);
	else
		ok(big, "a line past INT32_MAX: -2");
	return tap_failed != 0;
}
