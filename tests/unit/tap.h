/* SPDX-License-Identifier: MIT */
/*
 * A few lines of TAP for the C unit tests, read by automake's tap-driver.sh.
 * Each check prints "ok N - name" or "not ok N - name" with the bytes got and
 * wanted, escaped, so a failure says what differs without a debugger.
 */
#ifndef PKS_TAP_H
#define PKS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static void tap_escape(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\' || c == '"')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

static __attribute__((format(printf, 2, 3), unused))
int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	return cond;
}

/* is_mem() - compare bytes; on failure print both, escaped. */
static __attribute__((unused))
int is_mem(const char *got, size_t gn, const char *want, size_t wn, const char *name)
{
	int c = gn == wn && memcmp(got, want, gn) == 0;

	ok(c, "%s", name);
	if (!c) {
		printf("#   got:  \"");
		tap_escape(got, gn);
		printf("\" (%zu)\n#   want: \"", gn);
		tap_escape(want, wn);
		printf("\" (%zu)\n", wn);
	}
	return c;
}

static __attribute__((unused))
int is_str(const char *got, const char *want, const char *name)
{
	return is_mem(got, strlen(got), want, strlen(want), name);
}

static __attribute__((unused))
int is_int(long long got, long long want, const char *name)
{
	int c = got == want;

	ok(c, "%s", name);
	if (!c)
		printf("#   got: %lld, want: %lld\n", got, want);
	return c;
}

static __attribute__((unused)) int tap_done(void)
{
	printf("1..%d\n", tap_n);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif
