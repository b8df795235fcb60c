// SPDX-License-Identifier: MIT
/*
 * The format engine against the kernel: every vector of the kernel's
 * lib/tests/printf_kunit.c that userspace can express, with the kernel's
 * expected string, run the kunit way (a buffer of 256, every size from 0 to
 * the length + 1, guard bytes on both sides). Where the kernel's standard
 * conversions differ from the C library's (%.0d of 0, %.s, a negative '*'
 * precision) the C library's output is expected, as printk-shim(7) KERNEL FORMAT EXTENSIONS asks;
 * the kernel's is in a comment. Then the document examples the kunit file
 * leaves empty (%pI6, %pE, %pa, %pV) and the engine's own rules: the fast
 * path, %n, positional formats, errno, unknown extensions.
 *
 * It does not test %pS; format-sym-test.c does.
 */
#include "format/format.h"
#include "tap.h"

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <wchar.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define BUF_SIZE	256
#define PAD_SIZE	16
#define FILL_CHAR	'$'

#define PTR		((void *)0xffff0123456789abUL)
#define PTR_STR		"ffff0123456789ab"
#define PTR_INVALID	((void *)0x000000ab)
#define ERR_PTR(e)	((void *)(intptr_t)(e))

static char area[BUF_SIZE + 2 * PAD_SIZE];

static int fmt_to(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = pks_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return r;
}

static int filled(const char *p, size_t n)
{
	while (n--)
		if (*p++ != FILL_CHAR)
			return 0;
	return 1;
}

/* One call with a buffer of @size; NULL or what went wrong. */
static const char *try_size(int size, const char *want, int wlen,
			    const char *fmt, va_list ap)
{
	char *buf = area + PAD_SIZE;
	int ret, n;
	va_list aq;

	memset(area, FILL_CHAR, sizeof(area));
	va_copy(aq, ap);
	ret = pks_vsnprintf(buf, size, fmt, aq);
	va_end(aq);
	if (ret != wlen)
		return "wrong return value";
	if (!filled(area, PAD_SIZE))
		return "wrote before the buffer";
	if (!size)
		return filled(buf, BUF_SIZE + PAD_SIZE) ? NULL : "wrote with size 0";
	n = wlen < size - 1 ? wlen : size - 1;
	if (buf[n])
		return "did not NUL-terminate";
	if (!filled(buf + n + 1, size - n - 1) ||
	    !filled(buf + size, BUF_SIZE + PAD_SIZE - size))
		return "wrote past the NUL";
	return memcmp(buf, want, n) ? "wrong bytes" : NULL;
}

/* @s as a C string literal would show it, for a TAP line. */
static const char *visible(const char *s, size_t n, char *out, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 5 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[o++] = c;
		else
			o += snprintf(out + o, size - o, "\\x%02x", c);
	}
	out[o] = '\0';
	return out;
}

/* The kunit __test(): size 256, 0 and every size up to the length + 1. */
static void check(int line, const char *want, int wlen, const char *fmt, ...)
{
	char vf[2 * BUF_SIZE], vw[4 * BUF_SIZE], got[BUF_SIZE];
	const char *why = NULL;
	int size = BUF_SIZE, r;
	va_list ap, aq;

	va_start(ap, fmt);
	for (int s = -1; s <= wlen + 1 && !why; s++) {
		size = s < 0 ? BUF_SIZE : s;
		why = try_size(size, want, wlen, fmt, ap);
	}
	ok(!why, "%s -> \"%s\"", visible(fmt, strlen(fmt), vf, sizeof(vf)),
	   visible(want, wlen, vw, sizeof(vw)));
	if (why) {
		va_copy(aq, ap);
		r = pks_vsnprintf(got, sizeof(got), fmt, aq);
		va_end(aq);
		printf("#   line %d: %s with a buffer of %d\n", line, why, size);
		printf("#   got:  \"%s\" (return %d)\n",
		       visible(got, r > 0 && r < BUF_SIZE ? (size_t)r : strlen(got),
			       vw, sizeof(vw)), r);
	}
	va_end(ap);
}

#define test(want, fmt, ...) \
	check(__LINE__, want, (int)strlen(want), fmt, ##__VA_ARGS__)
#define test_len(want, len, fmt, ...) \
	check(__LINE__, want, len, fmt, ##__VA_ARGS__)

/* printf_kunit: test_basic */
static void test_basic(void)
{
	test("", "");
	test("100%", "100%%");
	test("xxx%yyy", "xxx%cyyy", '%');
	test_len("xxx\0yyy", 7, "xxx%cyyy", '\0');
}

/* printf_kunit: test_number */
static void test_number(void)
{
	test("0x1234abcd  ", "%#-12x", 0x1234abcd);
	test("  0x1234abcd", "%#12x", 0x1234abcd);
	test("0|001| 12|+123| 1234|-123|-1234", "%d|%03d|%3d|%+d|% d|%+d|% d",
	     0, 1, 12, 123, 1234, -123, -1234);
	test("0|1|1|128|255", "%hhu|%hhu|%hhu|%hhu|%hhu", 0, 1, 257, 128, -1);
	test("0|1|1|-128|-1", "%hhd|%hhd|%hhd|%hhd|%hhd", 0, 1, 257, 128, -1);
	test("2015122420151225", "%ho%ho%#ho", 1037, 5282, -11627);
	/* kernel: "00|0|0|0|0"; C: zero with precision 0 is no digits */
	test("00|0||| ", "%.2d|%.1d|%.0d|%.*d|%1.0d", 0, 0, 0, 0, 0, 0);
}

/* printf_kunit: test_string */
static void test_string(void)
{
	test("", "%s%.0s", "", "123");
	test("ABCD|abc|123", "%s|%.3s|%.*s", "ABCD", "abcdef", 3, "123456");
	test("1  |  2|3  |  4|5  ", "%-3s|%3s|%-*s|%*s|%*s",
	     "1", "2", 3, "3", 3, "4", -3, "5");
	test("1234      ", "%-10.4s", "123456");
	test("      1234", "%10.4s", "123456");
	/* kernel: "    " (a negative precision is 0); C: no precision */
	test("123456", "%4.*s", -5, "123456");
	/* kernel: "123456" (%.s has no precision); C: precision 0 */
	test("", "%.s", "123456");
	/* kernel: "a||" */
	test("||", "%.s|%.0s|%.*s", "a", "b", 0, "c");
	/* kernel: "a  |   |   " */
	test("   |   |   ", "%-3.s|%-3.0s|%-3.*s", "a", "b", 0, "c");
}

static void plain_hash(const void *p, char *buf)
{
	is_int(fmt_to(buf, 64, "%p", p), 16, "%p of a pointer is 16 characters");
}

/* printf_kunit: hash_pointer, null_pointer, error_pointer, invalid_pointer */
static void test_pointers(void)
{
	char buf[64], again[64];

	plain_hash(PTR, buf);
	ok(!memcmp(buf, "00000000", 8), "%%p: the high 32 bits are zero (%s)", buf);
	ok(memcmp(buf, PTR_STR, 16) != 0, "%%p: the raw value is not printed");
	fmt_to(again, sizeof(again), "%p", PTR);
	is_str(again, buf, "%p: a pointer always hashes the same");
	fmt_to(again, sizeof(again), "%p", (char *)PTR + 1);
	ok(strcmp(again, buf) != 0, "%%p: another pointer, another hash");

	test("0000000000000000", "%p", NULL);
	test("0000000000000000", "%px", NULL);
	test("(null)", "%pE", NULL);
	test("fffffffffffffff5", "%p", ERR_PTR(-11));
	test("fffffffffffffff5", "%px", ERR_PTR(-11));
	test("(efault)", "%pE", ERR_PTR(-11));

	plain_hash(PTR_INVALID, buf);
	test(buf, "%p", PTR_INVALID);
	test("00000000000000ab", "%px", PTR_INVALID);
	test("(efault)", "%pE", PTR_INVALID);

	/* %pK is %p (kptr_restrict=0); %px is the raw value */
	plain_hash(PTR, buf);
	test(buf, "%pK", PTR);
	test(PTR_STR, "%px", PTR);
	test("    ffff0123456789ab|ffff0123456789ab    ", "%20px|%-20px", PTR, PTR);
	test("0x00ffff0123456789ab", "%#020px", PTR);
}

struct resource_k {
	uintptr_t start, end;
	const char *name;
	unsigned long flags;
	unsigned long desc;
	void *parent, *sibling, *child;
};

struct range_k {
	uint64_t start, end;
};

/* printf_kunit: struct_resource, struct_range */
static void test_resource(void)
{
	struct resource_k r = { .start = 0xc0ffee00, .end = 0xc0ffee00, .flags = 0x200 };
	struct range_k g = { 0xc0ffee00ba5eba11, 0xc0ffee00ba5eba11 };

	test("[mem 0xc0ffee00 flags 0x200]", "%pr", &r);
	r = (struct resource_k){ .start = 0xc0ffee, .end = 0xba5eba11, .flags = 0x200 };
	test("[mem 0x00c0ffee-0xba5eba11 flags 0x200]", "%pr", &r);
	r = (struct resource_k){ .start = 0xba5eba11, .end = 0xc0ffee, .flags = 0x200 };
	test("[mem 0xba5eba11-0x00c0ffee flags 0x200]", "%pr", &r);
	r = (struct resource_k){ .start = 0xba5eba11, .end = 0xba5eca11, .flags = 0x200 };
	test("[mem 0xba5eba11-0xba5eca11 flags 0x200]", "%pr", &r);
	/* IORESOURCE_IO | IORESOURCE_DISABLED | IORESOURCE_UNSET */
	r = (struct resource_k){ .start = 0xba11, .end = 0xca10,
				 .flags = 0x100 | 0x10000000 | 0x20000000 };
	test("[io  size 0x1000 disabled]", "%pR", &r);

	test("[range 0xc0ffee00ba5eba11]", "%pra", &g);
	g = (struct range_k){ 0xc0ffee, 0xba5eba11 };
	test("[range 0x0000000000c0ffee-0x00000000ba5eba11]", "%pra", &g);
	g = (struct range_k){ 0xba5eba11, 0xc0ffee };
	test("[range 0x00000000ba5eba11-0x0000000000c0ffee]", "%pra", &g);
}

/* printf_kunit: hex_string, mac, ip4, uuid */
static void test_bytes(void)
{
	const char buf[3] = { (char)0xc0, (char)0xff, (char)0xee };
	const unsigned char addr[6] = { 0x2d, 0x48, 0xd6, 0xfc, 0x7a, 0x05 };
	const char uuid[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(12345),
				  .sin_addr.s_addr = htonl(0x7f000001) };

	test("c0 ff ee|c0:ff:ee|c0-ff-ee|c0ffee", "%3ph|%3phC|%3phD|%3phN",
	     buf, buf, buf, buf);
	test("c0 ff ee|c0:ff:ee|c0-ff-ee|c0ffee", "%*ph|%*phC|%*phD|%*phN",
	     3, buf, 3, buf, 3, buf, 3, buf);

	test("2d:48:d6:fc:7a:05", "%pM", addr);
	test("05:7a:fc:d6:48:2d", "%pMR", addr);
	test("2d-48-d6-fc-7a-05", "%pMF", addr);
	test("2d48d6fc7a05", "%pm", addr);
	test("057afcd6482d", "%pmR", addr);

	test("127.000.000.001|127.0.0.1", "%pi4|%pI4", &sa.sin_addr, &sa.sin_addr);
	test("127.000.000.001|127.0.0.1", "%piS|%pIS", &sa, &sa);
	sa.sin_addr.s_addr = htonl(0x01020304);
	test("001.002.003.004:12345|1.2.3.4:12345", "%piSp|%pISp", &sa, &sa);

	test("00010203-0405-0607-0809-0a0b0c0d0e0f", "%pUb", uuid);
	test("00010203-0405-0607-0809-0A0B0C0D0E0F", "%pUB", uuid);
	test("03020100-0504-0706-0809-0a0b0c0d0e0f", "%pUl", uuid);
	test("03020100-0504-0706-0809-0A0B0C0D0E0F", "%pUL", uuid);
}

/* printf_kunit: dentry, the parts userspace has (no dentries) */
static void test_dentry(void)
{
	test("(null)", "%pd", NULL);
	test("(efault)", "%pd", PTR_INVALID);
	test("(null)", "%pD", NULL);
	test("(efault)", "%pD", PTR_INVALID);
}

struct rtc_time_k {
	int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year;
	int tm_wday, tm_yday, tm_isdst;
};

/* printf_kunit: time_and_date */
static void test_time(void)
{
	const struct rtc_time_k tm = {
		.tm_sec = 43, .tm_min = 35, .tm_hour = 5,
		.tm_mday = 26, .tm_mon = 10, .tm_year = 118,
	};
	int64_t t = 1546615943;

	test("(%pt?)", "%pt", &tm);
	test("2018-11-26T05:35:43", "%ptR", &tm);
	test("0118-10-26T05:35:43", "%ptRr", &tm);
	test("05:35:43|2018-11-26", "%ptRt|%ptRd", &tm, &tm);
	test("05:35:43|0118-10-26", "%ptRtr|%ptRdr", &tm, &tm);
	test("05:35:43|2018-11-26", "%ptRttr|%ptRdtr", &tm, &tm);
	test("05:35:43 tr|2018-11-26 tr", "%ptRt tr|%ptRd tr", &tm, &tm);

	test("2019-01-04T15:32:23", "%ptT", &t);
	test("0119-00-04T15:32:23", "%ptTr", &t);
	test("15:32:23|2019-01-04", "%ptTt|%ptTd", &t, &t);
	test("15:32:23|0119-00-04", "%ptTtr|%ptTdr", &t, &t);

	test("2019-01-04 15:32:23", "%ptTs", &t);
	test("0119-00-04 15:32:23", "%ptTsr", &t);
	test("15:32:23|2019-01-04", "%ptTts|%ptTds", &t, &t);
	test("15:32:23|0119-00-04", "%ptTtrs|%ptTdrs", &t, &t);

	t = -1;
	test("1969-12-31T23:59:59", "%ptT", &t);
	t = 951782400;	/* a leap day */
	test("2000-02-29T00:00:00", "%ptT", &t);
	test("(null)", "%ptT", NULL);
}

#define LONG_BITS	(8 * sizeof(unsigned long))

static void set_bits(unsigned long *bm, int from, int n)
{
	for (int i = from; i < from + n; i++)
		bm[i / LONG_BITS] |= 1UL << (i % LONG_BITS);
}

/* printf_kunit: bitmap, large_bitmap */
static void test_bitmap(void)
{
	static const int primes[] = { 2, 3, 5, 7, 11, 13, 17, 19 };
	unsigned long bits[1] = { 0 };
	unsigned long *big = calloc((1 << 16) / LONG_BITS, sizeof(unsigned long));

	test("00000|00000", "%20pb|%*pb", bits, 20, bits);
	test("|", "%20pbl|%*pbl", bits, 20, bits);
	for (size_t i = 0; i < sizeof(primes) / sizeof(primes[0]); i++)
		set_bits(bits, primes[i], 1);
	test("a28ac|a28ac", "%20pb|%*pb", bits, 20, bits);
	test("2-3,5,7,11,13,17,19|2-3,5,7,11,13,17,19", "%20pbl|%*pbl",
	     bits, 20, bits);
	bits[0] = 0;
	set_bits(bits, 0, 20);
	test("fffff|fffff", "%20pb|%*pb", bits, 20, bits);
	test("0-19|0-19", "%20pbl|%*pbl", bits, 20, bits);

	if (!big)
		return;
	set_bits(big, 1, 20);
	set_bits(big, 60000, 15);
	test("1-20,60000-60014", "%*pbl", 1 << 16, big);
	/* beyond the kunit file: several 32-bit chunks, the first one short */
	memset(big, 0, 16);
	set_bits(big, 0, 1);
	set_bits(big, 40, 1);
	set_bits(big, 99, 1);
	test("8,00000000,00000100,00000001", "%100pb", big);
	test("|", "%0pb|%pb", big, big);
	free(big);
}

/* printf_kunit: fourcc_pointer (with the 2025 generic forms) */
static void test_fourcc(void)
{
	uint32_t cc[] = { 0x3231564e, 0xb231564e, 0x10111213, 0x20303159 };
	uint32_t v = 0x41424344, le = htole32(0x41424344), be = htobe32(0x41424344);

	test("NV12 little-endian (0x3231564e)", "%p4cc", &cc[0]);
	test("NV12 big-endian (0xb231564e)", "%p4cc", &cc[1]);
	test(".... little-endian (0x10111213)", "%p4cc", &cc[2]);
	test("Y10  little-endian (0x20303159)", "%p4cc", &cc[3]);
	test("ABCD (0x41424344)", "%p4ch", &v);
	test("DCBA (0x44434241)", "%p4chR", &v);
	test("ABCD (0x41424344)", "%p4cl", &le);
	test("ABCD (0x41424344)", "%p4cb", &be);
	test("(%p4?)", "%p4", &v);
	test("(%p4?)", "%p4cx", &v);
}

/* printf_kunit: errptr (with CONFIG_SYMBOLIC_ERRNAME) */
static void test_errptr(void)
{
	char buf[64];

	test("-1234", "%pe", ERR_PTR(-1234));
	plain_hash(PTR, buf);
	test(buf, "%pe", PTR);
	test("(-ENOTSOCK)", "(%pe)", ERR_PTR(-ENOTSOCK));
	test("(-EAGAIN)", "(%pe)", ERR_PTR(-EAGAIN));
	test("(-EAGAIN)", "(%pe)", ERR_PTR(-EWOULDBLOCK));
	test("[-EIO    ]", "[%-8pe]", ERR_PTR(-EIO));
	test("[    -EIO]", "[%8pe]", ERR_PTR(-EIO));
	test("-EPROBE_DEFER", "%pe", ERR_PTR(-517));
	/* beyond the kunit file */
	test("-EINVAL|-EOPNOTSUPP|-EDEADLK", "%pe|%pe|%pe",
	     ERR_PTR(-EINVAL), ERR_PTR(-ENOTSUP), ERR_PTR(-EDEADLOCK));
	test("[   -1234]|-ENOTSUPP", "[%8pe]|%pe", ERR_PTR(-1234), ERR_PTR(-524));
	test("0000000000000000", "%pe", NULL);
}

/* printk-formats.rst examples, as lib/vsprintf.c prints them */
static void test_ip6(void)
{
	static const struct { unsigned char a[16]; const char *want; } v[] = {
		{ { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 }, "2001:db8::1" },
		{ { [15] = 1 }, "::1" },
		{ { 0 }, "::" },
		{ { 0, 1 }, "1::" },
		{ { 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 0, 4 }, "1:0:2::3:0:4" },
		{ { 0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4 }, "1::2:0:0:3:4" },
		{ { [10] = 0xff, 0xff, 1, 2, 3, 4 }, "::ffff:1.2.3.4" },
		{ { 0xfe, 0x80, [10] = 0x5e, 0xfe, 10, 0, 0, 1 }, "fe80::5efe:10.0.0.1" },
		{ { 0, 1, 0, 0, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7 }, "1:0:2:3:4:5:6:7" },
		{ { 0xab, 0xcd, 0x0e, 0xf0, 0x00, 0x12, [15] = 0 }, "abcd:ef0:12::" },
	};
	unsigned char a[16] = { 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8 };
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(12345),
				   .sin6_flowinfo = htonl(0xf0012345), .sin6_scope_id = 7 };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		test(v[i].want, "%pI6c", v[i].a);
	test("0001:0002:0003:0004:0005:0006:0007:0008", "%pI6", a);
	test("00010002000300040005000600070008", "%pi6", a);
	test("(%pI?)|(%pi?)", "%pI|%pi7", a, a);

	memcpy(&sa.sin6_addr, v[0].a, 16);
	test("2001:0db8:0000:0000:0000:0000:0000:0001", "%pIS", &sa);
	test("2001:db8::1", "%pISc", &sa);
	test("[2001:db8::1]:12345", "%pISpc", &sa);
	test("[2001:db8::1]:12345/74565%7", "%pISpcfs", &sa);
	test("[20010db8000000000000000000000001]:12345", "%piSp", &sa);
	sa.sin6_family = AF_UNIX;
	test("(einval)", "%pISpc", &sa);
}

static void test_ip4_order(void)
{
	const unsigned char a[4] = { 10, 1, 2, 250 };
	const char *host = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
			   "250.2.1.10" : "10.1.2.250";
	char want[64];

	test("10.1.2.250|10.1.2.250|250.2.1.10", "%pI4n|%pI4b|%pI4l", a, a, a);
	snprintf(want, sizeof(want), "%s", host);
	test(want, "%pI4h", a);
	test("    10.1.2.250|10.1.|010.001.002.250", "%14pI4|%.5pI4|%pi4", a, a, a);
}

/* printk-formats.rst: the %pE example, with '"' in ESCAPE_SPECIAL (2021) */
static void test_escape(void)
{
	const char in[] = "\x1b\x62\x20\x5c\x43\x07\x22\x90\x0d\x5d";
	const char hi[] = "a\xa0\xff\n\t\0z";

	test("\\eb \\C\\a\"\\220\\r]", "%*pE", 10, in);
	test("\\x1bb \\C\\x07\"\\x90\\x0d]", "%*pEhp", 10, in);
	test("\\e\\142\\040\\\\\\103\\a\\\"\\220\\r\\135", "%*pEa", 10, in);
	test("\\e", "%pE", in);
	test("\\e|", "%0pE|%*pE", in, 0, in);
	test("a\xa0\xff\\n\\t\\0z", "%*pE", 7, hi);
	test("\\141\\240\\377\\n\\t\\000\\172", "%*pEsco", 7, hi);
	test("a\xa0\xff\\012\\011\\0z", "%*pEnpo", 7, hi);
	test("a\xa0\xff\n\t\\0z", "%*pEn", 7, hi);
	test("\\x61\\xa0\\xff\\x0a\\x09\\x00\\x7a", "%*pEh", 7, hi);
}

static void test_addr(void)
{
	uintptr_t pa = 0x1234abcd;
	uint64_t nf = 0x8000000000000011ULL;

	test("0x000000001234abcd|0x000000001234abcd|0x000000001234abcd",
	     "%pa|%pap|%pad", &pa, &pa, &pa);
	test("0x8000000000000011", "%pNF", &nf);
	test("(%pN?)", "%pNx", &nf);
	test("(null)|(efault)", "%pa|%pNF", NULL, ERR_PTR(-1));
	test("    (null)|(null)    ", "%10pM|%-10pU", NULL, NULL);
}

struct va_format_k {
	const char *fmt;
	va_list *va;
};

static int vf_inner(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	struct va_format_k vf = { fmt, &ap };
	int r;

	va_start(ap, fmt);
	r = fmt_to(buf, size, "<%pV|%pV>", &vf, &vf);
	va_end(ap);
	return r;
}

static int vf_outer(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	struct va_format_k vf = { fmt, &ap };
	int r;

	va_start(ap, fmt);
	r = fmt_to(buf, size, "[%pV]", &vf);
	va_end(ap);
	return r;
}

static int vf_nested(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	struct va_format_k inner = { fmt, &ap };
	int r;

	va_start(ap, fmt);
	r = vf_outer(buf, size, "%s<%pV>%d", "out", &inner, 9);
	va_end(ap);
	return r;
}

static int vf_self(char *buf, size_t size, struct va_format_k *vf, ...)
{
	va_list ap;
	int r;

	va_start(ap, vf);
	vf->va = &ap;
	r = fmt_to(buf, size, "%pV", vf);
	va_end(ap);
	return r;
}

/* %pV: struct va_format, formatted in place, recursively */
static void test_va_format(void)
{
	const unsigned char mac[6] = { 0, 1, 2, 3, 4, 5 };
	char buf[BUF_SIZE], small[8];
	struct va_format_k self = { "x%pV", NULL };
	int r;

	r = vf_inner(buf, sizeof(buf), "%d-%s-%pM", 42, "z", mac);
	is_str(buf, "<42-z-00:01:02:03:04:05|42-z-00:01:02:03:04:05>", "%pV twice with one va_list");
	is_int(r, (int)strlen(buf), "%pV: the return value counts the inner text");
	r = vf_nested(buf, sizeof(buf), "%5.2f/%pm", 2.25, mac);
	is_str(buf, "[out< 2.25/000102030405>9]", "%pV inside %pV");
	is_int(r, (int)strlen(buf), "%pV inside %pV: the length");
	r = vf_inner(small, sizeof(small), "%s", "abcdef");
	is_str(small, "<abcdef", "%pV cut at the buffer's end");
	is_int(r, 15, "%pV cut: the return value is the whole length");
	r = vf_self(buf, sizeof(buf), &self, &self);
	is_str(buf, "xxxxxxxx(%pV?)", "%pV nested too deep stops, no recursion");
	is_int(r, 14, "%pV too deep: its length");
	test("(null)", "%pV", NULL);
}

static int dummy_int = 77;

/* The engine's own rules */
static void test_engine(void)
{
	char buf[BUF_SIZE];
	unsigned char mac[6] = { 1, 2, 3, 4, 5, 6 };
	int n = 5, r;

	test("a|b|7", "a|%n%s|%d", &n, "b", 7);
	is_int(n, 5, "%n writes nothing");
	test("5", "%hhn%lln%zn%d", &n, &n, &n, 5);
	test("1 2", "%2$d %1$d", 2, 1);
	test("x ", "x %1$d %2$n", 1, &dummy_int);
	is_int(dummy_int, 77, "a positional %n writes nothing either");

	plain_hash((void *)16, buf);
	strcat(buf, " bar");
	test(buf, "%pfoo bar", (void *)16);
	test("(%pI?)-", "%pIzz9-", mac);
	test("01:02:03:04:05:06:", "%pM:", mac);
	test("[        01:02:03:04:05:06]|[01:02:03:04:05:06        ]|01:02",
	     "[%25pM]|[%-25pM]|%.5pM", mac, mac, mac);
	test("[   01:02]", "[%*.*pM]", 8, 5, mac);
	test("01:02:03:04:05:06|x", "%.pM|%s", mac, "x");
	test("|x", "%.*pM|%s", -1, mac, "x");

	/* unknown conversions and whatever follows them: the C library's */
	test("%y 5 %Q", "%y %d %Q", 5);
	test("%5y|6", "%*y|%d", 5, 6);
	/* ... but never with a %n among them: the output stops at the unknown one */
	test("A|", "A|%y %n %d|", &dummy_int, 5);
	is_int(dummy_int, 77, "a %n after an unknown conversion writes nothing");

	errno = ENOENT;
	r = fmt_to(buf, sizeof(buf), "%m|%pM|%d", mac, errno);
	is_str(buf, "No such file or directory|01:02:03:04:05:06|2", "%m prints the caller's errno");
	is_int(errno, ENOENT, "errno is unchanged");
	is_int(r, (int)strlen(buf), "%m: the length");

	r = fmt_to(NULL, 0, "%pM and %s", mac, "more");
	is_int(r, 26, "a NULL buffer of size 0 only counts");
	r = fmt_to(buf, 1, "%pM", mac);
	ok(r == 17 && buf[0] == '\0', "a buffer of 1 gets only the NUL");
	r = fmt_to(buf, sizeof(buf), "%ls|%pM", L"\xe9", mac);
	is_int(r, -1, "a conversion the C library refuses makes the call fail");
	r = fmt_to(buf, sizeof(buf), "%lc|%5.3ls|%-4C|", (wint_t)L'w', L"wide", (wint_t)L'c');
	is_str(buf, "w|  wid|c   |", "wide characters go through the C library");
	r = fmt_to(buf, sizeof(buf), NULL);
	is_str(buf, "(null)", "a NULL format prints (null)");
}

int main(void)
{
	test_basic();
	test_number();
	test_string();
	test_pointers();
	test_resource();
	test_bytes();
	test_dentry();
	test_time();
	test_bitmap();
	test_fourcc();
	test_errptr();
	test_ip6();
	test_ip4_order();
	test_escape();
	test_addr();
	test_va_format();
	test_engine();
	return tap_done();
}
