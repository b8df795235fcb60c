// SPDX-License-Identifier: MIT
/* Unit tests of shim/core/ddquery.c: queries, matching, decorations, the control file's line. */
#include "core/ddquery.h"
#include "tap.h"

static char said[512];
static int nsaid;

static void bad(void *arg, const char *q, size_t n, const char *why)
{
	size_t len = strlen(said);

	(void)arg;
	snprintf(said + len, sizeof(said) - len, "\"%.*s\": %s|", (int)n, q, why);
	nsaid++;
}

static struct pks_dd_rules r;

static int parse(const char *text)
{
	said[0] = '\0';
	nsaid = 0;
	return pks_dd_parse(&r, text, bad, NULL);
}

static const struct pks_dd_site site = { "drv", "probe_one", "drivers/net/foo.c",
					 "probe %d ok\n", 120, false, 0, NULL };


/* The flags of @s, from @from, after @text; -1 when a query was ignored. */
static int after(const char *text, const struct pks_dd_site *s, unsigned int from)
{
	parse(text);
	return nsaid ? -1 : (int)pks_dd_apply(&r, s, from);
}

static void flags_are(const char *text, unsigned int from, unsigned int want)
{
	int got = after(text, &site, from);
	char name[128];

	snprintf(name, sizeof(name), "%s", text);
	for (char *c = name; *c; c++)
		*c = *c == '\n' ? '|' : *c;	/* a TAP line is one line */
	ok(got == (int)want, "'%s' from %#x: %#x (got %#x)", name, from, want, got);
}

static void refused(const char *text, const char *want)
{
	parse(text);
	is_mem(said, strlen(said), want, strlen(want), text);
}

static void prefix(unsigned int flags, long tid, const char *want)
{
	char buf[PKS_DD_PREFIX];
	size_t n = pks_dd_prefix(buf, sizeof(buf), flags, &site, tid);

	is_mem(buf, n, want, strlen(want), want);
}

/* Class maps: a classed site changes only by a query naming its class. */
static void classes(void)
{
	const struct pks_dd_site core = { "drv", "f", "a.c", "x\n", 1, true, 2, "D2_CORE" };
	const struct pks_dd_site unknown = { "drv", "f", "a.c", "x\n", 1, true, 5, NULL };
	char buf[128];
	size_t n;

	ok(after("class D2_CORE +p", &core, 0) == PKS_DD_PRINT, "class NAME selects its sites");
	ok(after("class D2_CORE module drv +pf", &core, 0) == (PKS_DD_PRINT | PKS_DD_FUNCNAME),
	   "class with other keywords");
	ok(after("class D2_CORE module other +p", &core, 0) == 0, "class and a module that differs");
	ok(after("class D2_DRIVER +p", &core, 0) == 0, "another class leaves it");
	ok(after("module drv +p", &core, 0) == 0, "a query without class leaves a classed site");
	ok(after("+p", &core, 0) == 0, "even \"+p\" leaves a classed site");
	ok(after("class D2_CORE +p", &site, 0) == 0, "class leaves a site of the default class");
	ok(after("class D2_CORE +p", &unknown, 0) == 0, "class leaves a site no map names");
	n = pks_dd_site_text(buf, sizeof(buf), &core, PKS_DD_PRINT);
	is_mem(buf, n, "a.c:1 [drv]f =p \"x\\n\" class:D2_CORE\n",
	       strlen("a.c:1 [drv]f =p \"x\\n\" class:D2_CORE\n"), "control line: class:NAME");
	n = pks_dd_site_text(buf, sizeof(buf), &unknown, 0);
	is_mem(buf, n, "a.c:1 [drv]f =_ \"x\\n\" class unknown, _id:5\n",
	       strlen("a.c:1 [drv]f =_ \"x\\n\" class unknown, _id:5\n"),
	       "control line: a class no map names");
}

/* @text's rules, compacted: @n of them, and every site's flags as before from any flags. */
static void compacts(const char *text, int n, const struct pks_dd_site *const *sites)
{
	static struct pks_dd_rules c;
	unsigned int want[4][64];
	bool same = true;
	int got;

	parse(text);
	got = pks_dd_compact(&c, &r, NULL);
	ok(got == n && c.n == n && c.used <= r.used && c.uses == r.uses,
	   "compacted to %d rules: %s (got %d)", n, text, got);
	for (int i = 0; sites[i]; i++)
		for (unsigned int from = 0; from < 64; from++)
			want[i][from] = pks_dd_apply(&r, sites[i], from);
	memset(&r, 0, sizeof(r));	/* the compacted words are their own */
	for (int i = 0; sites[i]; i++)
		for (unsigned int from = 0; from < 64; from++)
			same &= pks_dd_apply(&c, sites[i], from) == want[i][from];
	ok(same, "the same flags after the compacted rules: %s", text);
}

/*
 * Rules in force that are full, and more after them: compacted together,
 * a query that undoes one of them fits; a new one, or words past the
 * pool, do not, and say so.
 */
static void full(void)
{
	static const struct pks_dd_site f5 = { "drv", "f5", "a.c", "x\n", 1, false, 0, NULL };
	static struct pks_dd_rules now, more, c;
	char text[PKS_DD_POOL + 64];
	size_t len = 0;

	for (int i = 0; i < PKS_DD_QUERIES; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "func f%d +p;", i);
	ok(pks_dd_parse(&now, text, bad, NULL) == PKS_DD_QUERIES, "32 rules in force");
	pks_dd_parse(&more, "func f5 -p", bad, NULL);
	ok(pks_dd_compact(&c, &now, &more) == PKS_DD_QUERIES && pks_dd_apply(&c, &f5, 0) == 0,
	   "full, and one undone: still 32, the site off");
	pks_dd_parse(&more, "func f31 -p; func f30 -p; func f5 +pf", bad, NULL);
	ok(pks_dd_compact(&c, &now, &more) == PKS_DD_QUERIES &&
	   pks_dd_apply(&c, &f5, 0) == (PKS_DD_PRINT | PKS_DD_FUNCNAME),
	   "full, two undone and f5 changed: 32, each undone rule in place of what it undid");
	pks_dd_parse(&more, "func new +p", bad, NULL);
	ok(pks_dd_compact(&c, &now, &more) == -1, "full, and a new one: -1");
	memset(text, 'a', 2100);
	memcpy(text, "func ", 5);
	strcpy(text + 2100, " +p");
	pks_dd_parse(&now, text, bad, NULL);
	strcpy(text + 2100, " -p");
	pks_dd_parse(&more, text, bad, NULL);
	ok(now.used + more.used > PKS_DD_POOL && pks_dd_compact(&c, &now, &more) == 1 &&
	   c.used == more.used, "2100 bytes of words, then undone: one rule, its words once");
	strcpy(text + 2100, " +f");
	pks_dd_parse(&more, text, bad, NULL);
	ok(pks_dd_compact(&c, &now, &more) == 1, "then changed: merged, one rule");
	text[10] = 'b';
	pks_dd_parse(&more, text, bad, NULL);
	ok(pks_dd_compact(&c, &now, &more) == -1, "other sites, 4200 bytes of words: -1");
}

/*
 * Rules turned on and off again never fill the rules once compacted, and
 * compaction changes no site's flags: fixed cases, then random ones.
 */
static void compaction(void)
{
	static const struct pks_dd_site a = { "drv", "probe_one", "drivers/net/foo.c", "probe %d ok\n",
					      120, false, 0, NULL };
	static const struct pks_dd_site b = { "drv", "remove", "drivers/net/bar.c", "gone\n", 7,
					      false, 0, NULL };
	static const struct pks_dd_site k = { "drv", "probe_one", "drivers/net/foo.c", "c\n", 9,
					      true, 2, "LOW" };
	static const struct pks_dd_site *const sites[] = { &a, &b, &k, NULL };
	static const char *const sel[] = { "", "func probe_one ", "module drv ", "file bar.c ",
					   "func remove line 1-8 ", "class LOW ", "format ok " };
	static const char *const op[] = { "+p", "-p", "=p", "+mf", "-f", "=", "+pl", "-pmflst" };
	static struct pks_dd_rules c;
	unsigned int seed = 12345;
	char text[512];
	bool same = true;
	int fewer = 0;

	compacts("func probe_one +p; func probe_one -p; func probe_one +p", 1, sites);
	compacts("func probe_one +p; module drv +f; func probe_one -p", 2, sites);
	compacts("func probe_one +p; func probe_one +f", 1, sites);
	compacts("func probe_one +pf; module drv -f; func probe_one -p", 3, sites);
	compacts("func probe_one +mf; func probe_one =p", 1, sites);
	compacts("func probe_one +p; func probe_one line 1-200 -p", 2, sites);
	compacts("class LOW +p; +p; class LOW -p", 2, sites);
	for (int t = 0; t < 3000; t++) {
		size_t len = 0;

		for (int q = 0; q < 8; q++) {
			seed = seed * 1103515245u + 12345u;
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s;",
						sel[(seed >> 8) % 7], op[(seed >> 16) % 8]);
		}
		parse(text);
		fewer += pks_dd_compact(&c, &r, NULL) < r.n;
		for (const struct pks_dd_site *const *s = sites; *s; s++)
			for (unsigned int from = 0; from < 64; from += 7)
				same &= pks_dd_apply(&c, *s, from) == pks_dd_apply(&r, *s, from);
	}
	ok(same && fewer > 2000, "3000 random runs of 8 queries: the same flags, %d runs compacted", fewer);
	full();
}

int main(void)
{
	const unsigned int P = PKS_DD_PRINT;
	struct pks_dd_site other = site;
	char buf[256];
	size_t n;

	classes();
	compaction();

	/* Keywords, each alone. */
	flags_are("+p", 0, P);
	flags_are("module drv +p", 0, P);
	flags_are("module dr? +p", 0, P);
	flags_are("module d* +p", 0, P);
	flags_are("module other +p", 0, 0);
	flags_are("func probe_one +p", 0, P);
	flags_are("func probe* +p", 0, P);
	flags_are("func *_one +p", 0, P);
	flags_are("func probe +p", 0, 0);
	flags_are("file foo.c +p", 0, P);
	flags_are("file drivers/net/foo.c +p", 0, P);
	flags_are("file drivers/*/foo.c +p", 0, P);
	flags_are("file net/foo.c +p", 0, 0);
	flags_are("file f*.c +p", 0, P);
	flags_are("file foo.c:probe_one +p", 0, P);
	flags_are("file foo.c:other +p", 0, 0);
	flags_are("file foo.c:120 +p", 0, P);
	flags_are("file foo.c:121 +p", 0, 0);
	flags_are("format probe +p", 0, P);
	flags_are("format \"%d ok\" +p", 0, P);
	flags_are("format 'ok\\n' +p", 0, P);
	flags_are("format ok\\012 +p", 0, P);
	flags_are("format ^probe +p", 0, P);
	flags_are("format ^ok +p", 0, 0);
	flags_are("format nothing +p", 0, 0);
	/* unescape_octal(): "\\400" is " 0" (a digit more only below 32), not a NUL matching all */
	flags_are("format \\400 +p", 0, 0);
	flags_are("format \\0400 +p", 0, 0);

	/* Lines and ranges as parse_linerange() takes them. */
	flags_are("line 120 +p", 0, P);
	flags_are("line 119 +p", 0, 0);
	flags_are("line 100-200 +p", 0, P);
	flags_are("line 120-120 +p", 0, P);
	flags_are("line 121-200 +p", 0, 0);
	flags_are("line 100- +p", 0, P);
	flags_are("line 121- +p", 0, 0);
	flags_are("line -120 +p", 0, P);
	flags_are("line -119 +p", 0, 0);
	flags_are("line +120 +p", 0, P);	/* kstrtouint() takes a '+' */
	flags_are("file foo.c: +p", 0, P);	/* an empty line: any, as parse_lineno() */
	other.lineno = 0;
	ok(after("line -200 +p", &other, 0) == 0, "an unknown line matches no line bound");
	ok(after("file foo.c +p", &(struct pks_dd_site){ "drv", "f", NULL, "x", 1, false, 0, NULL }, 0) == 0,
	   "an unknown file matches no file");

	/* Flags and ops. */
	flags_are("+pmfslt", 0, 0x3f);
	flags_are("-p", 0x3f, 0x3e);
	flags_are("-mf", 0x3f, 0x39);
	flags_are("=", 0x3f, 0);
	flags_are("=_", 0x3f, 0);
	flags_are("=pl", 0x3f, P | PKS_DD_LINENO);
	flags_are("+_", 0x4, 0x4);
	flags_are("-_", 0x4, 0x4);

	/* Several queries, in order; separators, blanks and comments. */
	flags_are("+pf; func probe_one -f", 0, P);
	flags_are("-p\nmodule drv +p", P, P);
	flags_are("  module drv   +p  ;  ; # a comment\n", 0, P);
	flags_are("func other +p; func probe_one +m; line 1-5 -m", 0, PKS_DD_MODNAME);
	flags_are("module drv func probe_one file foo.c line 120 +t", 0, PKS_DD_TID);
	ok(parse("+p;+f;# x;\n;-t") == 3 && nsaid == 0, "three queries, the rest blank or comments");

	/* Bad queries: each is ignored, the others kept. */
	refused("modul drv +p", "\"modul drv +p\": unknown keyword, expected file, func, line, module, format or class|");
	refused("+x", "\"+x\": unknown flag 'x', expected p, m, f, s, l, t or _|");
	refused("module drv p", "\"module drv p\": the flags must start with +, - or =|");
	refused("module drv", "\"module drv\": expected keyword-value pairs, then the flags|");
	refused("line 5-3 +p", "\"line 5-3 +p\": the range's last line is before its first|");
	refused("line x +p", "\"line x +p\": expected a line N, a range N-M, N- or -M|");
	refused("line 4 line 5 +p", "\"line 4 line 5 +p\": line given twice|");
	refused("func a func b +p", "\"func a func b +p\": func given twice|");
	refused("format \"abc +p", "\"format \"abc +p\": unclosed quote|");
	refused("func a func b func c func d func e +p",
		"\"func a func b func c func d func e +p\": too many words, expected at most 4 keyword-value pairs and the flags|");
	ok(parse("+x; module drv +p; modul y +p") == 1 && nsaid == 2 &&
	   pks_dd_apply(&r, &site, 0) == P, "a bad query leaves the good ones");

	/* Wildcards as match_wildcard(). */
	ok(pks_dd_wild("*", "") && pks_dd_wild("a*b*c", "aXbYbc") && !pks_dd_wild("a*b", "ac") &&
	   pks_dd_wild("??", "ab") && !pks_dd_wild("?", "") && pks_dd_wild("*a", "aaa"),
	   "wildcards: * and ?");

	/* Decorations: dynamic_emit_prefix(), byte for byte. */
	prefix(P, 7, "");
	prefix(P | PKS_DD_TID, 42, "[42] ");
	prefix(P | PKS_DD_TID, -1, "<intr> ");
	prefix(PKS_DD_MODNAME, 0, "drv: ");
	prefix(PKS_DD_FUNCNAME, 0, "probe_one: ");
	prefix(PKS_DD_SRCNAME, 0, "drivers/net/foo.c: ");
	prefix(PKS_DD_LINENO, 0, "120: ");
	prefix(0x3f, 42, "[42] drv:probe_one:drivers/net/foo.c:120: ");
	prefix(PKS_DD_FUNCNAME | PKS_DD_LINENO, 0, "probe_one:120: ");

	/* The control file's line. */
	n = pks_dd_site_text(buf, sizeof(buf), &site, P | PKS_DD_FUNCNAME | PKS_DD_TID);
	is_mem(buf, n, "drivers/net/foo.c:120 [drv]probe_one =pft \"probe %d ok\\n\"\n",
	       strlen("drivers/net/foo.c:120 [drv]probe_one =pft \"probe %d ok\\n\"\n"), "control line");
	n = pks_dd_site_text(buf, sizeof(buf),
			     &(struct pks_dd_site){ "m", "f", "a.c", "\t\"q\"\r", 3, false, 0, NULL }, 0);
	is_mem(buf, n, "a.c:3 [m]f =_ \"\\t\"q\"\\r\"\n", strlen("a.c:3 [m]f =_ \"\\t\"q\"\\r\"\n"),
	       "control line: flags _, escapes");
	n = pks_dd_flags_text(buf, 0x3f);
	is_mem(buf, n, "pmfslt", 6, "flags in the control file's order");

	/* An object's name, as the kernel's module names read. */
	n = pks_dd_object_name(buf, sizeof(buf), "/usr/lib/libfoo.so.1");
	is_mem(buf, n + 1, "libfoo", 7, "object name: base name to the first '.'");
	n = pks_dd_object_name(buf, 4, "drv");
	is_mem(buf, n + 1, "drv", 4, "object name without a directory or a '.'");
	n = pks_dd_object_name(buf, 3, "/a/driver.ko");
	is_mem(buf, n + 1, "dr", 3, "object name cut to the room, NUL-ended");

	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
