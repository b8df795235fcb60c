// SPDX-License-Identifier: MIT
/* Unit tests of shim/core/render.c: prefixes, suffixes and kmsg records. */
#include "core/render.h"
#include "config/vars.h"
#include "tap.h"

static void pre(struct pks_render r, const char *want, const char *name)
{
	char buf[PKS_HEAD_MAX];

	is_mem(buf, pks_render_prefix(buf, &r), want, strlen(want), name);
}

int main(void)
{
	struct pks_render r = { .format = PKS_LINE_PLAIN, .level = 6, .t_ns = 1234567890123ull, .tid = 42 };
	char buf[256];

	pre(r, "", "plain: nothing");
	r.format = PKS_LINE_PREFIX;
	pre(r, "<6>", "prefix: <6>");
	r.format = PKS_LINE_DMESG;
	pre(r, "<6>[ 1234.567890] ", "dmesg: level and time");
	r.t_ns = 1500000;
	pre(r, "<6>[    0.001500] ", "dmesg: padded seconds, zero-padded micros");
	r.t_ns = 123456789012345678ull;
	pre(r, "<6>[123456789.012345] ", "dmesg: seconds widen");
	r.format = PKS_LINE_PLAIN;
	r.time = true;
	r.t_ns = 1000000000;
	pre(r, "[    1.000000] ", "plain with time");
	r.caller = true;
	pre(r, "[    1.000000] [T42] ", "time and caller");
	r.time = false;
	pre(r, "[T42] ", "caller alone");
	r.caller = false;
	r.color = true;
	r.level = 3;
	pre(r, "\033[31m", "colour err");
	is_mem(buf, pks_render_suffix(buf, &r), "\033[0m\n", 5, "colour reset before the newline");
	r.level = 6;
	pre(r, "", "info is not coloured");
	is_mem(buf, pks_render_suffix(buf, &r), "\n", 1, "nor reset");
	r.level = 0;
	pre(r, "\033[7m\033[31m", "emerg as alert");
	r.time = true;
	r.level = 4;
	pre(r, "\033[32m[    1.000000] \033[0m\033[1m", "green time, bold warn");

	r = (struct pks_render){ .format = PKS_LINE_KMSG, .level = 6, .seq = 7, .t_ns = 2500000 };
	is_mem(buf, pks_render_kmsg(buf, &r, "a\\b\tc\x7f\xff", 7),
	       "6,7,2500,-;a\\x5cb\\x09c\\x7f\\xff\n", 31, "kmsg escapes");
	r.cont = true;
	r.caller = true;
	r.tid = 9;
	is_mem(buf, pks_render_kmsg(buf, &r, "x", 1), "6,7,2500,c,caller=T9;x\n", 23, "kmsg flag and caller");
	ok(pks_render_kmsg_max(10) >= 4 * 10 + 40, "kmsg room");
	return tap_done();
}
