// SPDX-License-Identifier: MIT
/* Unit tests of shim/core/render.c and json.c: prefixes, suffixes, kmsg and JSON records. */
#include "core/render.h"
#include "core/json.h"
#include "config/vars.h"
#include "tap.h"

static void pre(struct pks_render r, const char *want, const char *name)
{
	char buf[PKS_HEAD_MAX];

	is_mem(buf, pks_render_prefix(buf, &r), want, strlen(want), name);
}

/* The message of a JSON record of @in, the text between "msg":" and "}. */
static void json_msg(const char *in, size_t n, const char *want, const char *what)
{
	static char buf[4096];
	struct pks_render r = { .format = PKS_LINE_JSON, .level = 6, .pid = 1, .tid = 2,
				.ident = "t" };
	size_t len = pks_json_line(buf, &r, in, n);
	const char *m = strstr(buf, "\"msg\":\"");

	ok(len <= pks_json_max(n) && m && len >= 3 && !memcmp(buf + len - 3, "\"}\n", 3),
	   "json frame: %s", what);
	if (m)
		is_mem(m + 7, (size_t)(buf + len - 3 - (m + 7)), want, strlen(want), what);
}

/*
 * The worst a record may be: every byte of ident, caller and message a
 * control byte (\u00NN), the numbers at their widest. It must fit the room
 * pks_json_max() says, as the context's buffer is sized by it.
 */
static void json_worst(void)
{
	static char buf[1 << 16], ident[PKS_IDENT_MAX], func[PKS_FUNC_MAX], msg[300];
	struct pks_render r = { .format = PKS_LINE_JSON, .level = 7, .pid = -1, .tid = -1,
				.ident = ident, .func = func, .t_real_ns = ~0ull };
	size_t len;

	memset(ident, 1, sizeof(ident) - 1);
	memset(func, 1, sizeof(func) - 1);
	memset(msg, 1, sizeof(msg));
	len = pks_json_line(buf, &r, msg, sizeof(msg));
	ok(len <= pks_json_max(sizeof(msg)), "json: the worst record fits pks_json_max() (%zu <= %zu)",
	   len, pks_json_max(sizeof(msg)));
}

static void json_cases(void)
{
	static char buf[512];
	struct pks_render r = { .format = PKS_LINE_JSON, .level = 4, .pid = 10, .tid = 11,
				.ident = "id\"x", .func = "f", .t_real_ns = 86400ull * 1000000000u * 20426 +
				3723000456000ull };
	const char *want = "{\"time\":\"2025-12-04T01:02:03.000456Z\",\"level\":4,"
		"\"level_name\":\"warn\",\"pid\":10,\"tid\":11,\"ident\":\"id\\\"x\","
		"\"caller\":\"f\",\"msg\":\"m\"}\n";

	is_mem(buf, pks_json_line(buf, &r, "m", 1), want, strlen(want), "json record");
	/* the time text kept per second: the same bytes, and a new second is seen */
	struct pks_utc cache = { 0 };
	r.utc = &cache;
	is_mem(buf, pks_json_line(buf, &r, "m", 1), want, strlen(want), "json record, time kept");
	is_mem(buf, pks_json_line(buf, &r, "m", 1), want, strlen(want), "json record, time reused");
	r.t_real_ns += 2000000000u;
	ok(pks_json_line(buf, &r, "m", 1) && !memcmp(buf, "{\"time\":\"2025-12-04T01:02:05.000456Z\"", 37),
	   "json record, a later second");
	r.utc = NULL;
	json_msg("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		 "json keeps valid UTF-8");
	json_msg("\xc0\xaf", 2, "\\\\xc0\\\\xaf", "json: an overlong sequence is escaped");
	json_msg("\xed\xa0\x80", 3, "\\\\xed\\\\xa0\\\\x80", "json: a surrogate is escaped");
	json_msg("\xf4\x8f\xbf\xbf", 4, "\xf4\x8f\xbf\xbf", "json keeps U+10FFFF");
	json_msg("\xf4\x90\x80\x80", 4, "\\\\xf4\\\\x90\\\\x80\\\\x80", "json: past U+10FFFF is escaped");
	json_msg("a\xe2\x82", 3, "a\\\\xe2\\\\x82", "json: a sequence cut short is escaped");
	json_msg("\"\\\b\f\n\r\t\x01\x1f\x7f", 10, "\\\"\\\\x5c\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f",
		 "json escapes");
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
	json_cases();
	json_worst();
	return tap_done();
}
