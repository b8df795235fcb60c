/* SPDX-License-Identifier: MIT */
/*
 * What a port sees of include/: the exact bytes of KERN_*, the LOGLEVEL_*
 * values, the marker helpers, each pr_* macro's level and pr_fmt (pr_warning
 * too), pr_cont without pr_fmt, no_printk and pr_debug (with and without
 * DEBUG), dev_* and netdev_* on the minimal struct device and net_device,
 * DECLARE_SEQ_BUF at file and block scope, which of __BIG_ENDIAN and
 * __LITTLE_ENDIAN is defined, WARN's value and report, jiffies, the
 * <linux/kernel.h> helpers, BUILD_BUG_ON, and a class map with its sites. The build compiles this one file as ISO C99,
 * C11, C17 and C2x (no DEBUG), as GNU C11 with DEBUG, and as C++11 to C++20
 * (headers-cxx.cc), all with -Werror, which is the header compile check; the
 * printk below checks that a definition matching the kernel's prototype is
 * accepted.
 */
#define pr_fmt(fmt) "hc: " fmt
/* No libprintk-port here: snprintf stays the C library's (<linux/sprintf.h>). */
#define PKS_NO_KERNEL_SPRINTF
#include <linux/kern_levels.h>
#include <linux/printk.h>
#include <linux/seq_buf.h>
#include <linux/ratelimit.h>
#include <linux/hex.h>
#include <linux/device.h>
#include <linux/netdevice.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>

#include "tap.h"

static char printed[1024];
static size_t printed_len;

static __attribute__((format(printf, 1, 0)))
int record(const char *fmt, va_list ap)
{
	int n = vsnprintf(printed + printed_len, sizeof(printed) - printed_len, fmt, ap);

	printed_len += (size_t)n;
	return n;
}

/* The five entry points, with the prototypes of <linux/printk.h>. */
int vprintk(const char *fmt, va_list args)
{
	return record(fmt, args);
}

int (printk)(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

int _printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

int (printk_deferred)(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

int _printk_deferred(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

static void reset(void)
{
	printed[0] = '\0';
	printed_len = 0;
}

#define IS_BYTES(lit, want) is_mem(lit, sizeof(lit) - 1, want, sizeof(want) - 1, #lit)

static void levels(void)
{
	IS_BYTES(KERN_SOH, "\x01");
	IS_BYTES(KERN_EMERG, "\x01" "0");
	IS_BYTES(KERN_ALERT, "\x01" "1");
	IS_BYTES(KERN_CRIT, "\x01" "2");
	IS_BYTES(KERN_ERR, "\x01" "3");
	IS_BYTES(KERN_WARNING, "\x01" "4");
	IS_BYTES(KERN_NOTICE, "\x01" "5");
	IS_BYTES(KERN_INFO, "\x01" "6");
	IS_BYTES(KERN_DEBUG, "\x01" "7");
	IS_BYTES(KERN_DEFAULT, "");
	IS_BYTES(KERN_CONT, "\x01" "c");
	is_int(KERN_SOH_ASCII, 1, "KERN_SOH_ASCII");
	is_int(LOGLEVEL_SCHED, -2, "LOGLEVEL_SCHED");
	is_int(LOGLEVEL_DEFAULT, -1, "LOGLEVEL_DEFAULT");
	is_int(LOGLEVEL_EMERG, 0, "LOGLEVEL_EMERG");
	is_int(LOGLEVEL_WARNING, 4, "LOGLEVEL_WARNING");
	is_int(LOGLEVEL_DEBUG, 7, "LOGLEVEL_DEBUG");
}

static void helpers(void)
{
	is_int(printk_get_level(KERN_INFO "x"), '6', "printk_get_level: digit");
	is_int(printk_get_level(KERN_CONT "x"), 'c', "printk_get_level: c");
	is_int(printk_get_level("\001" "dx"), 0, "printk_get_level: d is not a marker (5.1+)");
	is_int(printk_get_level("\001"), 0, "printk_get_level: SOH NUL");
	is_int(printk_get_level("x"), 0, "printk_get_level: none");
	is_str(printk_skip_level(KERN_ERR KERN_CONT "x"), KERN_CONT "x", "printk_skip_level: one");
	is_str(printk_skip_headers(KERN_ERR KERN_CONT "x"), "x", "printk_skip_headers: all");
}

static void pr_macros(void)
{
	reset();
	is_int(pr_emerg("%d\n", 0), 8, "pr_emerg yields what printk returns");
	pr_alert("a\n");
	pr_crit("c\n");
	pr_err("e\n");
	pr_warn("w\n");
	pr_notice("n\n");
	pr_info("i %s\n", "x");
	pr_cont("more\n");
	is_str(printed, KERN_EMERG "hc: 0\n" KERN_ALERT "hc: a\n" KERN_CRIT "hc: c\n"
	       KERN_ERR "hc: e\n" KERN_WARNING "hc: w\n" KERN_NOTICE "hc: n\n"
	       KERN_INFO "hc: i x\n" KERN_CONT "more\n",
	       "pr_*: level, pr_fmt; pr_cont without pr_fmt");
	reset();
	pr_warning("old %s\n", "name");
	pr_warning("no arguments\n");
	is_str(printed, KERN_WARNING "hc: old name\n" KERN_WARNING "hc: no arguments\n",
	       "pr_warning is pr_warn");
}

static void debug_and_no_printk(void)
{
	int n = 0;

	reset();
	is_int(no_printk("%d", n++), 0, "no_printk yields 0");
	is_int(n, 0, "no_printk evaluates no argument");
	is_int((long long)printed_len, 0, "no_printk prints nothing");
	pr_debug("d %d\n", 1);
	pr_devel("v\n");
	print_hex_dump_bytes("b: ", DUMP_PREFIX_NONE, "AB", 2);
#ifdef DEBUG
	is_str(printed, KERN_DEBUG "hc: d 1\n" KERN_DEBUG "hc: v\n"
	       KERN_DEBUG "b: 41 42                                            AB\n",
	       "DEBUG: pr_debug, pr_devel, print_hex_dump_bytes print at KERN_DEBUG");
#else
	is_int((long long)printed_len, 0,
	       "no DEBUG: pr_debug, pr_devel, print_hex_dump_bytes print nothing");
#endif
}

static const struct device_driver hc_drv = { "hc-drv" };
static struct device hc_dev = { NULL, "hc0", &hc_drv };

static void dev_macros(void)
{
	char want[128];

	reset();
	dev_err(&hc_dev, "e %d\n", 1);
	dev_dbg(&hc_dev, "d\n");
	dev_printk(KERN_INFO, NULL, "n\n");
#ifdef DEBUG
	is_str(printed, KERN_ERR "hc-drv hc0: e 1\n" KERN_DEBUG "hc-drv hc0: d\n"
	       KERN_INFO "(NULL device *): n\n", "DEBUG: dev_*: prefix, level, no pr_fmt");
#else
	is_str(printed, KERN_ERR "hc-drv hc0: e 1\n" KERN_INFO "(NULL device *): n\n",
	       "no DEBUG: dev_*: prefix, level, no pr_fmt, no dev_dbg");
#endif
	reset();
	is_int(dev_err_probe(&hc_dev, -EPROBE_DEFER, "later\n"), -EPROBE_DEFER,
	       "dev_err_probe yields err");
#ifdef DEBUG
	snprintf(want, sizeof(want), KERN_DEBUG "hc-drv hc0: error %pe: later\n",
		 (void *)(intptr_t)-EPROBE_DEFER);
#else
	want[0] = '\0';
#endif
	is_str(printed, want, "dev_err_probe: -EPROBE_DEFER is dev_dbg");
}

static void netdev_macros(void)
{
	struct net_device nd;

	memset(&nd, 0, sizeof(nd));
	strcpy(nd.name, "hc%d");
	nd.dev.parent = &hc_dev;
	reset();
	netdev_err(&nd, "e %d\n", 1);
	strcpy(nd.name, "hceth0");
	nd.dev.parent = NULL;
	netdev_dbg(&nd, "d\n");
	netdev_printk(KERN_INFO, NULL, "n\n");
#ifdef DEBUG
	is_str(printed, KERN_ERR "hc-drv hc0 (unnamed net_device): e 1\n"
	       KERN_DEBUG "hceth0: d\n" KERN_INFO "(NULL net_device): n\n",
	       "DEBUG: netdev_*: prefix, level, no pr_fmt");
#else
	is_str(printed, KERN_ERR "hc-drv hc0 (unnamed net_device): e 1\n"
	       KERN_INFO "(NULL net_device): n\n",
	       "no DEBUG: netdev_*: prefix, level, no pr_fmt, no netdev_dbg");
#endif
}

static DECLARE_SEQ_BUF(file_sb, 12);

static void seq_buf_decl(void)
{
	DECLARE_SEQ_BUF(local_sb, 6);

	is_int((long long)file_sb.size, 12, "static DECLARE_SEQ_BUF at file scope");
	seq_buf_puts(&file_sb, "file");
	is_str(seq_buf_str(&file_sb), "file", "file-scope seq_buf works");
	seq_buf_printf(&local_sb, "%s", "local!");
	ok(seq_buf_has_overflowed(&local_sb), "block-scope seq_buf overflows at its size");
	reset();
	seq_buf_do_printk(&local_sb, KERN_NOTICE);
	is_str(printed, KERN_NOTICE "local\n", "seq_buf_do_printk through the port's printk");
}

/* The test kernel code makes, as lib/seq_buf.c's seq_buf_putmem_hex() does. */
static void byte_order(void)
{
	const unsigned int one = 1;
	unsigned char first;

	memcpy(&first, &one, 1);
#ifdef __BIG_ENDIAN
	is_int(first, 0, "__BIG_ENDIAN is defined on a big-endian host only");
#else
	is_int(first, 1, "__BIG_ENDIAN is not defined on a little-endian host");
#endif
}

static void hex(void)
{
	char out[8] = "";
	unsigned char bin[2];

	is_int(hex_to_bin('F'), 15, "hex_to_bin");
	is_int(hex_to_bin('g'), -1, "hex_to_bin: not a digit");
	is_int(hex2bin(bin, "a0Ff", 2), 0, "hex2bin");
	is_int(bin[0] << 8 | bin[1], 0xa0ff, "hex2bin: value");
	is_int(hex2bin(bin, "zz", 1), -EINVAL, "hex2bin: -EINVAL");
	*bin2hex(out, "\x12\xab", 2) = '\0';
	is_str(out, "12ab", "bin2hex");
}

enum { HC_CORE = 3, HC_KMS };
DECLARE_DYNDBG_CLASSMAP(hc_classes, DD_CLASS_TYPE_DISJOINT_BITS, 3, "HC_CORE", "HC_KMS");

static void newer(void)
{
	unsigned long j = jiffies;
	int a[3] = { 0, 0, 0 }, n = 0;

	BUILD_BUG_ON(sizeof(a) != 3 * sizeof(int));
	is_int(BUILD_BUG_ON_ZERO(0), 0, "BUILD_BUG_ON_ZERO(0) is 0");
	is_int((long long)ARRAY_SIZE(a), 3, "ARRAY_SIZE");
	is_int(min(max(1, 2), 3), 2, "min, max");
	ok(time_before_eq(j, jiffies) && HZ == 1000, "jiffies, HZ");
	reset();
	is_int(WARN_ON(n++), 0, "WARN_ON(0) is 0, and evaluates its condition once");
	is_int(n, 1, "WARN_ON's condition once");
	is_int((long long)printed_len, 0, "WARN_ON(0) prints nothing");
	ok(WARN_ON_ONCE(1) && WARN_ONCE(2, "w %d\n", 2), "the _ONCE forms yield the condition");
	ok(strstr(printed, PKS_KERN_NEWLINE CUT_HERE) == printed && strstr(printed, "w 2\n") &&
	   strstr(printed, "---[ end trace 0000000000000000 ]---\n"),
	   "a WARN prints the cut line, its message and the end marker");
	is_int(hc_classes.length, 2, "DECLARE_DYNDBG_CLASSMAP counts its names");
	is_str(hc_classes.class_names[1], "HC_KMS", "... and keeps them");
	reset();
	pr_debug_cls(HC_CORE, "core\n");
	__pr_debug_cls(HC_KMS, "kms\n");
#ifdef DEBUG
	is_str(printed, KERN_DEBUG "hc: core\n" KERN_DEBUG "hc: kms\n",
	       "DEBUG: pr_debug_cls prints, without the module");
#else
	is_int((long long)printed_len, 0, "no DEBUG: pr_debug_cls prints nothing");
#endif
}

int main(void)
{
	newer();
	levels();
	helpers();
	pr_macros();
	debug_and_no_printk();
	dev_macros();
	netdev_macros();
	seq_buf_decl();
	byte_order();
	hex();
	return tap_done();
}
