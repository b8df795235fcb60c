/* SPDX-License-Identifier: MIT */
/*
 * hex_dump_to_buffer() and print_hex_dump() from include/linux/printk.h
 * against rows written out by hand in the kernel's lib/hexdump.c format:
 * every group size at row sizes 16 and 32, with and without ASCII, short
 * last rows, the fallbacks for bad row and group sizes, the overflow rule
 * for every buffer length (as the kernel's test_hexdump_overflow does), and
 * the three prefix types through a printk that records its output.
 * DUMP_PREFIX_ADDRESS is checked against "%p" of the row's address: the
 * kernel hashes it, this printk (like glibc's) prints it raw.
 * Group expectations are for a little-endian host; on big-endian they are
 * skipped (the byte rows are the same everywhere).
 */
#include <linux/printk.h>

#include <stdlib.h>

#include "tap.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LITTLE_ENDIAN_HOST 1
#else
#define LITTLE_ENDIAN_HOST 0
#endif

static char printed[4096];
static size_t printed_len;

int (printk)(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(printed + printed_len, sizeof(printed) - printed_len, fmt, ap);
	va_end(ap);
	printed_len += (size_t)n;
	return n;
}

/* 20 bytes: letters, controls, DEL, high bytes, space, tilde, newline. */
static const unsigned char data[20] = {
	0x41, 0x42, 0x43, 0x44, 0x00, 0x01, 0x7f, 0x80,
	0x20, 0x7e, 0xff, 0x0a, 0x61, 0x62, 0x63, 0x64,
	0xde, 0xad, 0xbe, 0xef,
};

#define ASCII16 "ABCD.... ~..abcd"

/* @hex, then spaces up to column @col, then @ascii. */
static const char *row(const char *hex, size_t col, const char *ascii)
{
	static char out[256];
	size_t n = strlen(hex);

	memcpy(out, hex, n);
	while (n < col)
		out[n++] = ' ';
	strcpy(out + n, ascii);
	return out;
}

static void check_row(const void *buf, size_t len, int rs, int gs, bool ascii,
		      const char *want, const char *name)
{
	char line[200];
	int ret;

	memset(line, 'Z', sizeof(line));
	ret = hex_dump_to_buffer(buf, len, rs, gs, line, sizeof(line), ascii);
	is_str(line, want, name);
	is_int(ret, (long long)strlen(want), "  ...and returns its length");
}

static void groups_16(void)
{
	check_row(data, 16, 16, 1, true,
		  row("41 42 43 44 00 01 7f 80 20 7e ff 0a 61 62 63 64", 49, ASCII16),
		  "rs16 gs1 ascii");
	check_row(data, 16, 16, 1, false,
		  "41 42 43 44 00 01 7f 80 20 7e ff 0a 61 62 63 64",
		  "rs16 gs1 no ascii: no trailing space");
#if LITTLE_ENDIAN_HOST
	check_row(data, 16, 16, 2, true,
		  row("4241 4443 0100 807f 7e20 0aff 6261 6463", 41, ASCII16),
		  "rs16 gs2 ascii (host order)");
	check_row(data, 16, 16, 4, true,
		  row("44434241 807f0100 0aff7e20 64636261", 37, ASCII16),
		  "rs16 gs4 ascii (host order)");
	check_row(data, 16, 16, 8, true,
		  row("807f010044434241 646362610aff7e20", 35, ASCII16),
		  "rs16 gs8 ascii (host order)");
	check_row(data, 16, 16, 8, false, "807f010044434241 646362610aff7e20",
		  "rs16 gs8 no ascii");
#endif
}

static void short_rows(void)
{
	check_row(data + 16, 4, 16, 1, true, row("de ad be ef", 49, "...."),
		  "short row gs1: ASCII stays in its column");
#if LITTLE_ENDIAN_HOST
	check_row(data + 16, 4, 16, 4, true, row("efbeadde", 37, "...."),
		  "short row gs4: column of 4 groups per row");
	check_row(data + 16, 4, 16, 2, false, "adde efbe", "short row gs2");
#endif
	check_row(data + 16, 4, 16, 8, true, row("de ad be ef", 49, "...."),
		  "gs8 not dividing len falls back to gs1");
	check_row(data, 3, 16, 2, false, "41 42 43",
		  "gs2 not dividing len falls back to gs1");
	check_row(data, 0, 16, 1, true, "", "len 0: empty, no ASCII padding");
}

static void sizes(void)
{
	check_row(data, 20, 32, 1, true,
		  row("41 42 43 44 00 01 7f 80 20 7e ff 0a 61 62 63 64 de ad be ef",
		      97, ASCII16 "...."),
		  "rs32 gs1 ascii");
#if LITTLE_ENDIAN_HOST
	check_row(data, 20, 32, 4, true,
		  row("44434241 807f0100 0aff7e20 64636261 efbeadde", 73,
		      ASCII16 "...."),
		  "rs32 gs4 ascii");
#endif
	check_row(data, 20, 8, 1, false,
		  "41 42 43 44 00 01 7f 80 20 7e ff 0a 61 62 63 64",
		  "rowsize 8 means 16 (and len is cut to one row)");
	check_row(data, 16, 16, 3, false,
		  "41 42 43 44 00 01 7f 80 20 7e ff 0a 61 62 63 64",
		  "groupsize 3 means 1");
	check_row(data, 16, 16, 16, false,
		  "41 42 43 44 00 01 7f 80 20 7e ff 0a 61 62 63 64",
		  "groupsize 16 means 1");
}

/* For each buffer length: a prefix of the full row, and the full length. */
static void overflow_one(int rs, int gs, size_t len, bool ascii)
{
	char full[200], buf[200];
	int want = hex_dump_to_buffer(data, len, rs, gs, full, sizeof(full), ascii);
	size_t n, bad = 0;

	for (n = 0; n <= (size_t)want + 1; n++) {
		size_t keep = n ? (n - 1 < (size_t)want ? n - 1 : (size_t)want) : 0;
		int ret;

		memset(buf, 'Z', sizeof(buf));
		ret = hex_dump_to_buffer(data, len, rs, gs, buf, n, ascii);
		if (ret != want || (n && (memcmp(buf, full, keep) || buf[keep])) ||
		    (!n && buf[0] != 'Z'))
			bad++;
	}
	ok(bad == 0, "overflow rs%d gs%d len%zu ascii%d: %zu bad lengths",
	   rs, gs, len, ascii, bad);
}

static void overflow(void)
{
	static const int gss[] = { 1, 2, 4, 8 };
	size_t i;

	for (i = 0; i < 4; i++) {
		overflow_one(16, gss[i], 16, true);
		overflow_one(16, gss[i], 16, false);
		overflow_one(32, gss[i], 16, true);
	}
	overflow_one(16, 1, 5, true);
	is_int(hex_dump_to_buffer(data, 16, 16, 1, NULL, 0, false), 47,
	       "linebuflen 0: length only, buffer untouched");
}

static void printed_reset(void)
{
	printed[0] = '\0';
	printed_len = 0;
}

static void prefix_types(void)
{
	char want[512];
	const char *r1 = "41 42 43 44 00 01 7f 80 20 7e ff 0a 61 62 63 64  " ASCII16;
	const char *r2 = row("de ad be ef", 49, "....");
	char r2c[128];

	strcpy(r2c, r2);
	printed_reset();
	print_hex_dump(KERN_INFO, "pfx: ", DUMP_PREFIX_NONE, 16, 1, data, 20, true);
	snprintf(want, sizeof(want), "%spfx: %s\n%spfx: %s\n",
		 KERN_INFO, r1, KERN_INFO, r2c);
	is_str(printed, want, "print_hex_dump NONE: one printk per row, level first");

	printed_reset();
	print_hex_dump(KERN_ERR, "pfx: ", DUMP_PREFIX_OFFSET, 16, 1, data, 20, true);
	snprintf(want, sizeof(want), "%spfx: 00000000: %s\n%spfx: 00000010: %s\n",
		 KERN_ERR, r1, KERN_ERR, r2c);
	is_str(printed, want, "print_hex_dump OFFSET: %.8x of the offset");

	printed_reset();
	print_hex_dump(KERN_DEBUG, "", DUMP_PREFIX_ADDRESS, 16, 1, data, 20, true);
	snprintf(want, sizeof(want), "%s%p: %s\n%s%p: %s\n",
		 KERN_DEBUG, (const void *)data, r1,
		 KERN_DEBUG, (const void *)(data + 16), r2c);
	is_str(printed, want, "print_hex_dump ADDRESS: printk's %p of each row");

	printed_reset();
	print_hex_dump(KERN_INFO, "x", 42, 16, 1, data, 4, false);
	is_str(printed, KERN_INFO "x41 42 43 44\n", "unknown prefix type means NONE");

	printed_reset();
	print_hex_dump(KERN_INFO, "x", DUMP_PREFIX_OFFSET, 32, 1, data, 0, true);
	is_int((long long)printed_len, 0, "len 0: no rows");
}

static void rowsize_32_offsets(void)
{
	unsigned char big[70];
	size_t i;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)('a' + i % 26);
	printed_reset();
	print_hex_dump(KERN_INFO, "", DUMP_PREFIX_OFFSET, 32, 8, big, sizeof(big), false);
	ok(strstr(printed, KERN_INFO "00000000: ") == printed, "rs32: first row at 0");
	ok(strstr(printed, "\n" KERN_INFO "00000020: ") != NULL, "rs32: second row at 0x20");
	ok(strstr(printed, "\n" KERN_INFO "00000040: 6d 6e 6f 70 71 72\n") != NULL,
	   "rs32: 6-byte last row falls back to gs1");
}

static void bytes_without_debug(void)
{
	printed_reset();
	print_hex_dump_bytes("b: ", DUMP_PREFIX_NONE, data, 20);
	is_int((long long)printed_len, 0, "print_hex_dump_bytes without DEBUG prints nothing");
}

int main(void)
{
	groups_16();
	short_rows();
	sizes();
	overflow();
	prefix_types();
	rowsize_32_offsets();
	bytes_without_debug();
	return tap_done();
}
