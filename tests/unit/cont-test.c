// SPDX-License-Identifier: MIT
/* Unit tests of shim/core/cont.c: the whole decision table of printk-shim(7) CONTINUATION. */
#include "core/cont.h"
#include "core/level.h"
#include "tap.h"

#define L PKS_M_LEVEL
#define C PKS_M_CONT
#define D PKS_M_DEFAULT

static const struct {
	bool open;
	unsigned int flags;
	bool bare;
	enum pks_act legacy, strict;
} cases[] = {
	/* open, markers, text "\n", legacy, strict */
	{ false, 0, false, PKS_NEW, PKS_NEW },
	{ true, 0, false, PKS_APPEND, PKS_NEW },
	{ true, 0, true, PKS_APPEND, PKS_NEW },
	{ false, 0, true, PKS_NEW, PKS_NEW },
	{ false, L, false, PKS_NEW, PKS_NEW },
	{ true, L, false, PKS_NEW, PKS_NEW },
	{ true, D, false, PKS_NEW, PKS_NEW },
	{ false, D, false, PKS_NEW, PKS_NEW },
	{ true, C, false, PKS_APPEND, PKS_APPEND },
	{ true, C | L, false, PKS_APPEND, PKS_APPEND },
	{ true, C | D, false, PKS_APPEND, PKS_APPEND },
	{ true, C, true, PKS_APPEND, PKS_APPEND },
	{ false, C, false, PKS_NEW, PKS_NEW },
	{ false, C | L, false, PKS_NEW, PKS_NEW },
	{ false, C, true, PKS_DROP, PKS_NEW },
	{ false, C | L, true, PKS_DROP, PKS_NEW },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum pks_act l = pks_cont_decide(cases[i].open, cases[i].flags, PKS_CONT_LEGACY, cases[i].bare);
		enum pks_act s = pks_cont_decide(cases[i].open, cases[i].flags, PKS_CONT_STRICT, cases[i].bare);

		ok(l == cases[i].legacy, "legacy case %zu: open %d flags %u bare %d -> %d",
		   i, cases[i].open, cases[i].flags, cases[i].bare, l);
		ok(s == cases[i].strict, "strict case %zu: open %d flags %u bare %d -> %d",
		   i, cases[i].open, cases[i].flags, cases[i].bare, s);
	}
	return tap_done();
}
