// SPDX-License-Identifier: MIT
/*
 * Differential test of the format engine's fast path (shim/format/fast.c):
 * 400 000 generated formats of text and %d %i %u %x %X %c %s %% with every
 * flag, width, precision and length, at several buffer sizes, through
 * pks_vsnprintf() and glibc's vsnprintf(): bytes and return values must be
 * the same. Those the fast path refuses go the engine's usual way; the
 * test counts how many it took itself. pks_format_count(), which measures
 * without storing, must give glibc's length and last byte where it answers.
 */
#include "tap.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pks_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int pks_format_fast(char *buf, size_t size, const char *fmt, va_list ap);
int pks_format_count(const char *fmt, va_list ap, char *last);

#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

static long fails, fastn, total, cfails, countn;
static void check(const char *fmt, size_t size, ...)
{
	char a[512], b[512], c[512], full[8192], last = 'X'; va_list ap, ap2, ap3, ap4, ap5; int ra, rb, rf, rc, rl;
	memset(a, 'X', sizeof a); memset(b, 'X', sizeof b);
	va_start(ap, size); va_copy(ap2, ap); va_copy(ap3, ap); va_copy(ap4, ap); va_copy(ap5, ap);
	ra = pks_vsnprintf(a, size, fmt, ap);
	rb = vsnprintf(b, size, fmt, ap2);
	rf = pks_format_fast(c, sizeof c, fmt, ap3); if (rf != -2) fastn++;
	rc = pks_format_count(fmt, ap4, &last);
	rl = vsnprintf(full, sizeof full, fmt, ap5);
	va_end(ap); va_end(ap2); va_end(ap3); va_end(ap4); va_end(ap5);
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
	ok(fails == 0, "%ld generated calls, %ld on the fast path: output and return value as glibc's", total, fastn);
	ok(fastn > total / 10, "the fast path took its share (%ld of %ld)", fastn, total);
	ok(cfails == 0 && countn == fastn, "pks_format_count() gave glibc's length and last byte in all %ld calls it measured", countn);
	return tap_done();
}
