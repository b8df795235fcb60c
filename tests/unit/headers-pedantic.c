/* SPDX-License-Identifier: MIT */
/*
 * The headers themselves are ISO C99: this file includes them all under
 * -std=c99 -pedantic -Werror and calls their inline functions. The pr_*
 * macros are left out on purpose: like the kernel's, they take (fmt, ...)
 * with GNU comma elision, which -pedantic reports at each call with no
 * arguments after the format.
 */
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/dev_printk.h>
#include <linux/device.h>
#include <linux/hex.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kern_levels.h>
#include <linux/netdevice.h>
#include <linux/once_lite.h>
#include <linux/pks_byteorder.h>
#include <linux/printk.h>
#include <linux/ratelimit.h>
#include <linux/ratelimit_types.h>
#include <linux/seq_buf.h>
#include <linux/sprintf.h>
#include <net/net_debug.h>

#include "tap.h"

/* A port defines printk; printk_deferred is called where it is defined. */
int (printk)(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}

int (printk_deferred)(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}

int main(void)
{
	char buf[64];
	struct seq_buf s;
	struct ratelimit_state rs;

	seq_buf_init(&s, buf, sizeof(buf));
	seq_buf_printf(&s, "%d", 42);
	ratelimit_default_init(&rs);
	is_str(seq_buf_str(&s), "42", "headers build as ISO C99 with -pedantic");
	is_int(__ratelimit(&rs), 1, "ratelimit on the time() fallback clock");
	is_int((long long)msecs_to_jiffies(10), 10, "msecs_to_jiffies under -pedantic");
	return tap_done();
}
