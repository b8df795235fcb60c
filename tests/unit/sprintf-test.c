// SPDX-License-Identifier: MIT
/*
 * libprintk-port's string functions through <linux/kernel.h>: the kernel's
 * return values at the edges, %p extensions and %pV (struct va_format) in
 * each function, kasprintf's copies, seq_buf_printf() on the same engine,
 * the PKS_NO_KERNEL_SPRINTF opt-out (sprintf-libc.c), and the helpers of
 * <linux/kernel.h> and <linux/jiffies.h>.
 */
#include "tap.h"

#include <linux/kernel.h>
#include <linux/jiffies.h>
#include <limits.h>
#include <linux/seq_buf.h>
#include <stdlib.h>

int libc_snprintf(char *buf, size_t size, const void *ip);
int libc_scnprintf(char *buf, size_t size, const void *ip);

static const unsigned char ip[4] = { 192, 168, 0, 1 };
static const unsigned char mac[6] = { 0, 0x1b, 0x21, 0xaa, 0xbb, 0xcc };

static __attribute__((format(printf, 3, 4)))
int with_va_format(char *buf, size_t size, const char *fmt, ...)
{
	struct va_format vaf;
	va_list ap;
	int n;

	va_start(ap, fmt);
	vaf.fmt = fmt;
	vaf.va = &ap;
	n = scnprintf(buf, size, "<%pV>", &vaf);
	va_end(ap);
	return n;
}

static __attribute__((format(printf, 3, 4)))
int v(int (*f)(char *, size_t, const char *, va_list), char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = f(buf, 8, fmt, ap);
	va_end(ap);
	return n;
}

static int vsn(char *buf, size_t size, const char *fmt, va_list ap)
{
	return vsnprintf(buf, size, fmt, ap);
}

static int vsc(char *buf, size_t size, const char *fmt, va_list ap)
{
	return vscnprintf(buf, size, fmt, ap);
}

/* The kernel's vsprintf(): no size, the whole output. */
static int vs(char *buf, size_t size, const char *fmt, va_list ap)
{
	(void)size;
	return vsprintf(buf, fmt, ap);
}

static void returns(void)
{
	char b[8] = "xxxxxxx";

	is_int(scnprintf(b, sizeof(b), "%s", "0123456789"), 7, "scnprintf returns what it wrote");
	is_str(b, "0123456", "scnprintf cuts at size - 1");
	is_int(snprintf(b, sizeof(b), "%s", "0123456789"), 10, "snprintf returns what it would write");
	is_int(scnprintf(b, 0, "%s", "abc"), 0, "scnprintf with size 0 returns 0");
	is_int(snprintf(NULL, 0, "%pI4", ip), 11, "snprintf(NULL, 0) measures a %p extension");
	is_int(scnprintf(b, sizeof(b), "%s", ""), 0, "scnprintf of nothing returns 0");
	is_int(v(vsn, b, "%d", 123456789), 9, "vsnprintf returns what it would write");
	is_int(v(vsc, b, "%d", 123456789), 7, "vscnprintf returns what it wrote");
	is_str(b, "1234567", "vscnprintf's text");
	is_int(v(vs, b, "%s", "abc"), 3, "vsprintf returns its length");
	is_str(b, "abc", "vsprintf's text");
	is_int(snprintf(b, (size_t)1 << 31, "x"), 0, "snprintf refuses a size above INT_MAX");
}

static void extensions(void)
{
	char b[64], *k;

	scnprintf(b, sizeof(b), "%pI4 %pM", ip, mac);
	is_str(b, "192.168.0.1 00:1b:21:aa:bb:cc", "scnprintf: %pI4 %pM");
	sprintf(b, "%pI4:%d", ip, 80);
	is_str(b, "192.168.0.1:80", "sprintf: %pI4");
	snprintf(b, sizeof(b), "%*ph", 3, mac + 3);
	is_str(b, "aa bb cc", "snprintf: %*ph");
	with_va_format(b, sizeof(b), "%s=%pI4", "ip", ip);
	is_str(b, "<ip=192.168.0.1>", "struct va_format through %pV");
	k = kasprintf(GFP_KERNEL, "%pM/%d", mac, 7);
	is_str(k ? k : "(null)", "00:1b:21:aa:bb:cc/7", "kasprintf: a malloc'ed string");
	free(k);
	libc_scnprintf(b, sizeof(b), ip);
	is_str(b, "192.168.0.1", "PKS_NO_KERNEL_SPRINTF keeps scnprintf the kernel's");
	libc_snprintf(b, sizeof(b), ip);
	is_str(b, "libc", "PKS_NO_KERNEL_SPRINTF: snprintf is the C library's");
}

static const char *kv(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *kv(const char *fmt, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, fmt);
	s = kvasprintf_const(GFP_KERNEL, fmt, ap);
	va_end(ap);
	return s;
}

static void copies(void)
{
	const char *s = kv("%s", "const");

	is_str(s, "const", "kvasprintf_const");
	free((void *)s);
}

static void seq_buf_engine(void)
{
	DECLARE_SEQ_BUF(s, 16);

	seq_buf_printf(&s, "%pI4", ip);
	is_str(seq_buf_str(&s), "192.168.0.1", "seq_buf_printf: the kernel's engine when linked");
	seq_buf_printf(&s, "%pI4", ip);
	ok(seq_buf_has_overflowed(&s), "seq_buf_printf: overflow is sticky");
}

static void kernel_helpers(void)
{
	int a[5], big = 300;
	unsigned long j = jiffies, later;

	is_int(ARRAY_SIZE(a), 5, "ARRAY_SIZE");
	is_int(min(3, 4), 3, "min");
	is_int(max(3, 4), 4, "max");
	is_int(min_t(unsigned char, big, 45), 44, "min_t converts first");
	is_int(max_t(int, -1, 2), 2, "max_t");
	is_int(clamp(9, 1, 5), 5, "clamp");
	is_int(min(max(1, 2), max(3, 0)), 2, "min of max: no shadowing");
	is_int(DIV_ROUND_UP(7, 2), 4, "DIV_ROUND_UP");
	is_int(roundup(7, 4), 8, "roundup");
	is_int(rounddown(7, 4), 4, "rounddown");
	is_int(HZ, 1000, "HZ defaults to 1000");
	is_int((long long)msecs_to_jiffies(1500), 1500, "msecs_to_jiffies");
	is_int((long long)msecs_to_jiffies((unsigned int)-1), (long long)(LONG_MAX >> 1) - 1,
	       "msecs_to_jiffies(-1): MAX_JIFFY_OFFSET, the kernel's infinite timeout");
	is_int(MAX_JIFFY_OFFSET, (long long)(LONG_MAX >> 1) - 1, "MAX_JIFFY_OFFSET is the kernel's");
	is_int(jiffies_to_msecs(250), 250, "jiffies_to_msecs");
	is_int((long long)usecs_to_jiffies(1001), 2, "usecs_to_jiffies rounds up");
	is_int(jiffies_to_usecs(3), 3000, "jiffies_to_usecs");
	ok(time_after(j + 1, j) && time_before(j, j + 1), "time_after, time_before");
	ok(time_after(5UL, ~0UL - 5) && !time_after(~0UL - 5, 5UL), "time_after across the wrap");
	ok(time_after_eq(j, j) && time_before_eq(j, j), "time_after_eq, time_before_eq");
	ok(time_in_range(j, j - 1, j + 1), "time_in_range");
	later = j + msecs_to_jiffies(2);
	while (time_before(jiffies, later))
		;
	ok(time_is_before_eq_jiffies(later), "jiffies follows the monotonic clock");
}

int main(void)
{
	returns();
	extensions();
	copies();
	seq_buf_engine();
	kernel_helpers();
	return tap_done();
}
