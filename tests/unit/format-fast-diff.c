// SPDX-License-Identifier: MIT
/*
 * Differential test of the format engine's fast path (shim/format/fast.c):
 * 400 000 generated formats of text and %d %i %u %x %X %c %s %% with every
 * flag, width, precision and length, at several buffer sizes, through
 * pks_vsnprintf() and glibc's vsnprintf(): bytes and return values must be
 * the same. Those the fast path refuses go the engine's usual way; the
 * test counts how many it took itself. pks_format_count(), which measures
 * without storing, must give glibc's length and last byte where it answers;
 * pks_format_count_cached() must answer as it, twice for each format (the
 * second time from the compiled shape), though the formats are generated
 * in place, at one address; pks_format_shaped() must print as
 * pks_format_fast(), and say truly when its output has no inner newline.
 */
#include "format/format.h"
#include "tap.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

static long fails, fastn, total, cfails, countn, kfails, compiled, sfails;
static struct pks_shape cache[4], wcache[4];

/*
 * pks_format_shaped() of @fmt into @size bytes, when it fits less than the
 * whole output: the same value, @want's first @size - 1 bytes and a NUL.
 */
static void check_short(const char *fmt, size_t size, int rf, const char *want, va_list ap)
{
	char got[512];
	bool inner;
	va_list cp;
	int r;

	memset(got, 'X', sizeof got);
	va_copy(cp, ap);
	r = pks_format_shaped(wcache, 4, NULL, got, size, fmt, cp, &inner);
	va_end(cp);
	if (r != rf || memcmp(got, want, size - 1) || got[size - 1] || got[size] != 'X') {
		sfails++;
		if (sfails < 20)
			printf("# SHAPED FAIL fmt=[%s] size %zu: %d, fast %d\n", fmt, size, r, rf);
	}
}

/*
 * pks_format_shaped() against pks_format_fast()'s @rf and @want, twice (the
 * second time from the shape): the same bytes and value, and no newline
 * before the last byte when it says there is none; then into room that is
 * exactly enough, one byte short, and short by far.
 */
static void check_shaped(const char *fmt, int rf, const char *want, va_list ap)
{
	for (int i = 0; i < 2; i++) {
		char got[512];
		bool inner = false;
		size_t n;
		va_list cp;
		int r;

		memset(got, 'X', sizeof got);
		va_copy(cp, ap);
		r = pks_format_shaped(wcache, 4, NULL, got, sizeof got, fmt, cp, &inner);
		va_end(cp);
		n = r >= 0 && (size_t)r < sizeof got ? (size_t)r : sizeof got - 1;
		if (r != rf || (r >= 0 && (memcmp(got, want, n + 1) ||
					   (!inner && n > 1 && memchr(got, '\n', n - 1))))) {
			sfails++;
			if (sfails < 20)
				printf("# SHAPED FAIL fmt=[%s] call %d: %d inner=%d, fast %d\n", fmt, i + 1,
				       r, inner, rf);
		}
	}
	if (rf < 0 || rf > 500)
		return;
	check_short(fmt, (size_t)rf + 1, rf, want, ap);
	if (rf >= 1)
		check_short(fmt, (size_t)rf, rf, want, ap);
	if (rf >= 4)
		check_short(fmt, 4, rf, want, ap);
}

/* Return: what the cached count of @fmt returns (the %p extensions are refused). */
static int cached(const char *fmt, ...)
{
	va_list ap;
	char l;
	int r;

	va_start(ap, fmt);
	r = pks_format_count_cached(cache, 4, NULL, fmt, ap, &l);
	va_end(ap);
	return r;
}

/* The cached count of @fmt, twice, against pks_format_count()'s @rc and @last. */
static void check_cached(const char *fmt, int rc, char last, va_list ap)
{
	for (int i = 0; i < 2; i++) {
		char l = 'X';
		va_list cp;
		int r;

		va_copy(cp, ap);
		r = pks_format_count_cached(cache, 4, NULL, fmt, cp, &l);
		va_end(cp);
		if (r != rc || (r >= 0 && l != last)) {
			kfails++;
			if (kfails < 20)
				printf("# CACHED FAIL fmt=[%s] call %d: %d last=%#x, uncached %d last=%#x\n",
				       fmt, i + 1, r, (unsigned char)l, rc, (unsigned char)last);
		}
	}
	for (int i = 0; i < 4; i++)
		compiled += cache[i].fmt == fmt;
}

static void check(const char *fmt, size_t size, ...)
{
	char a[512], b[512], c[512], full[8192], last = 'X'; va_list ap, ap2, ap3, ap4, ap5, ap6, ap7; int ra, rb, rf, rc, rl;
	memset(a, 'X', sizeof a); memset(b, 'X', sizeof b);
	va_start(ap, size); va_copy(ap2, ap); va_copy(ap3, ap); va_copy(ap4, ap); va_copy(ap5, ap); va_copy(ap6, ap); va_copy(ap7, ap);
	ra = pks_vsnprintf(a, size, fmt, ap);
	rb = vsnprintf(b, size, fmt, ap2);
	rf = pks_format_fast(c, sizeof c, fmt, ap3); if (rf != -2) fastn++;
	rc = pks_format_count(fmt, ap4, &last);
	rl = vsnprintf(full, sizeof full, fmt, ap5);
	check_cached(fmt, rc, last, ap6);
	check_shaped(fmt, rf, c, ap7);
	va_end(ap); va_end(ap2); va_end(ap3); va_end(ap4); va_end(ap5); va_end(ap6); va_end(ap7);
	total++;
	if (ra != rb || memcmp(a, b, sizeof a)) { fails++; if (fails < 20) printf("# FAIL fmt=[%s] size=%zu pks=%d [%.*s] libc=%d [%.*s]\n", fmt, size, ra, (int)size, a, rb, (int)size, b); }
	if (rc != rf || (rc >= 0 && (rc != rl || last != (rl ? full[rl - 1] : '\0')))) { cfails++; if (cfails < 20) printf("# COUNT FAIL fmt=[%s] count=%d last=%#x libc=%d [%s]\n", fmt, rc, (unsigned char)last, rl, full); }
	countn += rc >= 0;
}
static const char *flags[] = {"", "", "-", "0", "-0", "0-", "+", " ", "#", "00", "--", "+ ", " +", "#0", "-#", "+0", " -"};
static const char *widths[] = {"", "", "1", "5", "12", "*", "*", "30"};
static const char *precs[] = {"", "", "", "", ".3", ".0", ".", ".*", ".*", ".10"};
static const char *lens[] = {"", "", "hh", "h", "l", "ll", "z", "j", "t"};
static const char convs[] = "diuxXcs%o";
static const char *strs[] = {"", "a", "hello", "e1000e", NULL, "a much longer string of text"};
#define NF (sizeof flags / sizeof *flags)
#define NW (sizeof widths / sizeof *widths)
#define NP (sizeof precs / sizeof *precs)
#define NL (sizeof lens / sizeof *lens)
int main(void)
{
	srand(4242);
	long long ints[] = {0, 1, -1, 7, -42, 255, 256, 65535, 65536, INT_MAX, INT_MIN, LLONG_MAX, LLONG_MIN, 123456789012LL, -987654321098LL, 0x7f, 0x80, -129};
	int stars[] = {-12, -5, -1, 0, 1, 3, 7, 12, -4096, 5000};
	for (int r = 0; r < 400000; r++) {
		char fmt[128]; char cv = convs[rand() % (sizeof convs - 1)];
		const char *len = lens[rand() % NL], *w = widths[rand() % NW], *pr = precs[rand() % NP];
		snprintf(fmt, sizeof fmt, "%sab%%%s%s%s%s%c%s", rand()%2 ? "\001" "6" : "", flags[rand() % NF], w, pr, len, cv, rand()%2 ? " end\n" : "");
		size_t sizes[] = {0, 1, 3, 8, 511};
		size_t size = sizes[rand() % 5];
		long long v = ints[rand() % (sizeof ints / sizeof ints[0])];
		int sw = stars[rand() % 10], sp = stars[rand() % 10];
		int hw = !strcmp(w, "*"), hp = !strcmp(pr, ".*");
		if (hw && abs(sw) > 100) sw = sw > 0 ? 40 : -40;
		if (hp && sp > 100) sp = 50;
		if (hp && sp < -100) sp = -5;
#define CALL(val) do { if (hw && hp) check(fmt, size, sw, sp, val); else if (hw) check(fmt, size, sw, val); else if (hp) check(fmt, size, sp, val); else check(fmt, size, val); } while (0)
		if (cv == 's') { if (strcmp(len, "") && strcmp(len,"h") && strcmp(len,"hh")) continue; CALL(strs[rand() % 6]); continue; }
		if (cv == 'c') { if (strcmp(len, "") && strcmp(len,"h") && strcmp(len,"hh")) continue; CALL((int)v); continue; }
		if (cv == '%') { if (hw || hp) continue; check(fmt, size, 0); continue; }
		if (!strcmp(len, "") || !strcmp(len, "h") || !strcmp(len, "hh")) CALL((int)v);
		else if (!strcmp(len, "l") || !strcmp(len, "z") || !strcmp(len, "t")) CALL((long)v);
		else CALL(v);
	}
	check("bench t%d l%ld: value=%d end\n", 511, 3, 123456789L, -5);
	check("%s: dev %04x:%02x irq %u flags %#lx state %c %-8s|\n", 511, "e1000e", 0x10d3u, 7u, 17u, 0x1234UL, 'R', "up");
	check("%.*s|%-*s|%*d|%#X|%#x|%+d|% d", 511, 3, "abcdef", 6, "ab", -5, 42, 0xabcu, 0u, 5, 5);
	check("%.*s|%.s|%.0s|%.2s", 511, -1, "abcdef", "xy", "xy", (char *)NULL);
	/* The edges of the compiled shape: the text around conversions, '*', limits. */
	check("", 511, 0);
	check("no conversion\n", 511, 0);
	check("abc%s", 511, "");
	check("abc%s%s", 511, "", "");
	check("%s", 511, "");
	check("%d%%%s", 511, 5, "");
	check("%d%%", 511, 5);
	check("%%%d", 511, 5);
	check("100%%", 511, 0);
	check("%5%", 511, 0);
	check("%-*d|%*s|%.*s\n", 511, -7, 42, 3, "ab", 2, "xyz");
	check("%*d", 511, 5000, 1);
	check("%.*s", 511, 2, (char *)NULL);
	check("%c%c", 511, 'a', '\n');
	check("a%sb\n", 511, "x\ny");
	check("%s", 511, "end\n");
	check("%.3s|", 511, "a\nbcd");
	check("x\n%d\n", 511, 1);
	check("%c", 511, '\n');
	check("%d %d %d %d %d %d", 511, 1, 2, 3, 4, 5, 6);
	check("%d %d %d %d %d %d %d\n", 511, 1, 2, 3, 4, 5, 6, 7);
	check("a format longer than a compiled one may be, sixty-four bytes: %d\n", 511, 64);
	check("%lc", 511, 'a');
	check("%ls", 511, L"wide");
	check("%o", 511, 8);
	check("%", 511, 0);
	check("ab%", 511, 0);
	ok(fails == 0, "%ld generated calls, %ld on the fast path: output and return value as glibc's", total, fastn);
	ok(fastn > total / 10, "the fast path took its share (%ld of %ld)", fastn, total);
	ok(cfails == 0 && countn == fastn, "pks_format_count() gave glibc's length and last byte in all %ld calls it measured", countn);
	ok(cached("%p %d", (void *)cache, 1) == -2 && cached("%pV %d", (void *)cache, 1) == -2 &&
	   cached("%pK", (void *)cache) == -2 && cached("x=%n", (int *)NULL) == -2,
	   "the cached count refuses %%p, %%pV, %%pK and %%n as pks_format_count() does");
	ok(kfails == 0, "pks_format_count_cached() answered as pks_format_count() in all %ld calls, twice", total);
	ok(sfails == 0, "pks_format_shaped() printed as pks_format_fast() in all %ld calls, twice, and said where no newline was inside", total);
	ok(compiled > total / 10, "formats were compiled and kept (%ld of %ld)", compiled, total);
	return tap_done();
}
