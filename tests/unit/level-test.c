// SPDX-License-Identifier: MIT
/* Unit tests of shim/core/level.c: marker runs, legacy tokens, level names. */
#include "core/level.h"
#include "tap.h"

#include <sys/mman.h>
#include <unistd.h>

static void parse(const char *s, bool legacy, size_t skip, int level, unsigned int flags,
		  const char *name)
{
	struct pks_mark m;
	size_t got = pks_level_parse(s, strlen(s), legacy, &m);

	ok(got == skip && m.level == level && m.flags == flags,
	   "%s (skip %zu level %d flags %u)", name, got, m.level, m.flags);
}

/*
 * emit.c parses a format's markers with a length past its NUL: nothing
 * beyond the NUL may be read. Each string sits at the very end of a
 * readable page, so a read past it faults (and ASan would see it too).
 */
static void parse_at_page_end(const char *s, size_t skip, const char *name)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t n = strlen(s) + 1;
	char *at = map + page - n;
	struct pks_mark m;

	mprotect(map + page, (size_t)page, PROT_NONE);
	memcpy(at, s, n);
	ok(pks_level_parse(at, 16, true, &m) == skip, "%s: stops at the NUL", name);
	munmap(map, (size_t)page * 2);
}

int main(void)
{
	parse("x", true, 0, -1, 0, "no marker");
	parse("", true, 0, -1, 0, "empty");
	parse("\001", true, 0, -1, 0, "SOH alone is not a marker");
	parse("\0016x", true, 2, 6, PKS_M_LEVEL, "KERN_INFO");
	parse("\0010", true, 2, 0, PKS_M_LEVEL, "KERN_EMERG with nothing after");
	parse("\0013\0016x", true, 4, 3, PKS_M_LEVEL, "first digit wins");
	parse("\001c\0016x", true, 4, 6, PKS_M_LEVEL | PKS_M_CONT, "cont then digit");
	parse("\0016\001cx", true, 4, 6, PKS_M_LEVEL | PKS_M_CONT, "digit then cont");
	parse("\001dx", true, 2, -1, PKS_M_DEFAULT, "KERN_DEFAULT of 3.6-5.0");
	parse("\0018x", true, 0, -1, 0, "SOH 8 is text");
	parse("\001x", true, 0, -1, 0, "SOH x is text");
	parse("x\0013y", true, 0, -1, 0, "marker after text");
	parse("\0013\001", true, 2, 3, PKS_M_LEVEL, "a trailing lone SOH stays");
	parse("<3>x", true, 3, 3, PKS_M_LEVEL, "legacy <3>");
	parse("<3>x", false, 0, -1, 0, "legacy off");
	parse("<c><6>x", true, 6, 6, PKS_M_LEVEL | PKS_M_CONT, "legacy <c><6>");
	parse("<d>x", true, 3, -1, PKS_M_DEFAULT, "legacy <d>");
	parse("<8>x", true, 0, -1, 0, "<8> is text");
	parse("<3", true, 0, -1, 0, "unterminated <3");
	parse("\0014<5>\001cx", true, 7, 4, PKS_M_LEVEL | PKS_M_CONT, "mixed run");
	parse("\001c\001c\001c\001c\0012x", true, 10, 2, PKS_M_LEVEL | PKS_M_CONT, "long run");

	is_int(pks_level_from_name("err"), 3, "name err");
	is_int(pks_level_from_name("ERROR"), 3, "name ERROR");
	is_int(pks_level_from_name("warning"), 4, "name warning");
	is_int(pks_level_from_name("debug"), 7, "name debug");
	is_int(pks_level_from_name("7"), 7, "digit 7");
	is_int(pks_level_from_name("8"), -1, "digit 8");
	is_int(pks_level_from_name("07"), -1, "07 is not a level");
	is_int(pks_level_from_name(""), -1, "empty");
	is_str(pks_level_name(0), "emerg", "name of 0");
	is_str(pks_level_name(9), "?", "name of 9");
	parse_at_page_end("<", 0, "a lone '<'");
	parse_at_page_end("<3", 0, "'<3' without '>'");
	parse_at_page_end("\001", 0, "a lone SOH");
	parse_at_page_end("\0016", 2, "SOH 6 and the end");
	parse_at_page_end("<3>", 3, "'<3>' and the end");
	return tap_done();
}
