// SPDX-License-Identifier: MIT
/* Unit tests of shim/config/vars.c: each parser consumes fully or not at all. */
#include "config/vars.h"
#include "tap.h"

#include <syslog.h>

static int set(struct pks_settings *s, const char *name, const char *val)
{
	const struct pks_var *v = pks_var_find(name);

	return v ? v->parse(s, val) : -2;
}

int main(void)
{
	struct pks_settings s, d;

	pks_settings_default(&d);
	s = d;
	is_int(set(&s, "OUTPUT", "stderr,syslog,file:/tmp/x,fd:7"), 0, "a full output list");
	ok(s.noutputs == 4 && s.outputs[1].kind == PKS_OUT_SYSLOG && s.outputs[3].fd == 7 &&
	   !strcmp(s.outputs[2].path, "/tmp/x"), "parsed in order");
	s = d;
	is_int(set(&s, "OUTPUT", "stderr,,syslog"), -1, "an empty item is refused");
	ok(!memcmp(&s, &d, sizeof(s)), "and nothing changed");
	is_int(set(&s, "OUTPUT", "fd:3x"), -1, "fd:3x refused");
	is_int(set(&s, "OUTPUT", "fd:"), -1, "fd: refused");
	is_int(set(&s, "OUTPUT", "file:"), -1, "file: refused");
	is_int(set(&s, "OUTPUT", "stderr,stderr,stderr,stderr,stderr,stderr,stderr,stderr,stderr"), -1,
	       "more than 8 outputs refused");
	ok(!memcmp(&s, &d, sizeof(s)), "still unchanged");
	is_int(set(&s, "LINE_MAX", "1"), 0, "LINE_MAX 1");
	is_int(set(&s, "LINE_MAX", "1048577"), -1, "LINE_MAX too big");
	is_int(set(&s, "LINE_MAX", "+5"), -1, "LINE_MAX +5");
	is_int(set(&s, "LINE_MAX", " 5"), -1, "LINE_MAX with a blank");
	is_int(set(&s, "TIME", "on"), 0, "on is true");
	ok(s.time, "time set");
	is_int(set(&s, "TIME", "2"), -1, "2 is no boolean");
	is_int(set(&s, "SYSLOG_FACILITY", "kern"), -1, "kern refused");
	is_int(set(&s, "SYSLOG_FACILITY", "local3"), 0, "local3");
	is_int(s.syslog_facility, LOG_LOCAL3, "local3 value");
	is_int(set(&s, "SYSLOG_SOCKET", "/x/y"), 0, "socket path");
	is_int(set(&s, "SYSLOG_SOCKET", "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), -1,
	       "a socket path longer than sun_path refused");
	is_int(set(&s, "CONT", "STRICT"), 0, "case-insensitive");
	ok(pks_var_find("NOPE") == NULL, "unknown variable");
	for (size_t i = 0; i < pks_nvars; i++)
		ok(pks_vars[i].expect && pks_vars[i].dflt && pks_vars[i].help, "%s documented", pks_vars[i].name);
	return tap_done();
}
