// SPDX-License-Identifier: MIT
/*
 * The counting walk of format/tally.h against glibc's snprintf(): digits of
 * numbers at every power of two and of ten, and whole shapes measured both
 * ways, with va_arg from a copy and in place where va_start saved the
 * registers (pks_va_regs()), which must say where they are not.
 */
#include "format/tally.h"
#include "tap.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

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
 * @fmt measured by pks_tally() from a copy and by pks_tally_at() in place
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
		at = s->strings ? pks_tally_at(s, r, true) : pks_tally_at(s, r, false);
	va_copy(cp, ap);
	copy = pks_tally(s, &cp);
	va_end(cp);
	va_end(ap);
	if (copy == want && (!*in_place || at == want))
		return true;
	printf("# [%s]: snprintf %d, copy %d, in place %d\n", fmt, want, copy, at);
	return false;
}

int main(void)
{
	bool regs, all = true, x86 = false;

#if defined(__x86_64__) && defined(__LP64__)
	x86 = true;
#endif
	printf("1..8\n");
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
	return tap_failed != 0;
}
