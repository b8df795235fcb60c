// SPDX-License-Identifier: MIT
/*
 * vars-dump: the PRINTK_SHIM_* table, pks_vars[], in a form other tools
 * read, so that the man pages are checked against the table rather than
 * copied from it (tests/docs.bats). It only prints; it never decides what
 * the documentation says.
 *
 *   vars-dump             one line per variable, tab-separated:
 *                         NAME OPTION KIND DEFAULT EXPECT HELP
 *                         (KIND is "bool" or "value"; OPTION is the
 *                         wrapper's, derived as the wrapper derives it)
 *   vars-dump --roff      a printk-shim(7) ENVIRONMENT entry per variable,
 *                         to start the text of a new one from
 *
 * Thread-safety: single-threaded program.
 */
#include "config/vars.h"

#include <stdio.h>
#include <string.h>

/* "LINE_MAX" -> "line-max": the wrapper's rule for its option names. */
static const char *option(const char *name, char *buf, size_t size)
{
	size_t i;

	for (i = 0; name[i] && i < size - 1; i++)
		buf[i] = name[i] == '_' ? '-' : (char)(name[i] | 0x20);
	buf[i] = '\0';
	return buf;
}

static void tsv(const struct pks_var *v, const char *opt)
{
	printf("PRINTK_SHIM_%s\t--%s\t%s\t%s\t%s\t%s\n", v->name, opt,
	       v->boolean ? "bool" : "value", v->dflt, v->expect, v->help);
}

/* @s as roff text: '-' as a minus (a hyphen would not paste), a backslash as \e. */
static void roff_text(const char *s)
{
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", stdout);
		else if (*s == '\\')
			fputs("\\e", stdout);
		else
			putchar(*s);
	}
}

static void roff(const struct pks_var *v, const char *opt)
{
	(void)opt;
	printf(".TP\n.B PRINTK_SHIM_%s\n", v->name);
	roff_text(v->help);
	printf(".\nAccepted: ");
	roff_text(v->expect);
	printf(".\nDefault: ");
	roff_text(v->dflt);
	printf(".\n");
}

int main(int argc, char **argv)
{
	void (*show)(const struct pks_var *, const char *) = tsv;
	char opt[64];

	if (argc == 2 && !strcmp(argv[1], "--roff")) {
		show = roff;
	} else if (argc != 1) {
		fputs("usage: vars-dump [--roff]\n", stderr);
		return 2;
	}
	for (size_t i = 0; i < pks_nvars; i++)
		show(&pks_vars[i], option(pks_vars[i].name, opt, sizeof(opt)));
	return 0;
}
