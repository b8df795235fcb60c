// SPDX-License-Identifier: MIT
/*
 * The syslog output: not written yet (issue 4). Every line offered to it is
 * refused, so the caller writes it to stderr; the first refusal says so.
 */
#include "sink.h"
#include "config.h"
#include "diag.h"

#include <stdatomic.h>

int pks_syslog_line(const struct pks_config *c, int level, const char *text, size_t n)
{
	static _Atomic int warned;

	(void)c, (void)level, (void)text, (void)n;
	if (!atomic_exchange(&warned, 1))
		pks_warn("PRINTK_SHIM_OUTPUT=syslog: not available in this build; lines go to stderr");
	return -1;
}

void pks_syslog_atfork_child(void)
{
}
