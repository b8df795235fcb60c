/* SPDX-License-Identifier: MIT */
/*
 * The continuation decision of printk-shim(7) CONTINUATION, as one pure function.
 */
#ifndef PKS_CONT_H
#define PKS_CONT_H

#include <stdbool.h>

enum pks_mode { PKS_CONT_LEGACY, PKS_CONT_STRICT };

enum pks_act {
	PKS_APPEND,	/* the fragment continues the open line */
	PKS_NEW,	/* close the open line (if any), then start a new one */
	PKS_DROP,	/* write nothing: legacy's pr_cont("\n") on a closed line */
};

enum pks_act pks_cont_decide(bool open, unsigned int mflags, enum pks_mode mode,
			     bool bare_newline);

#endif
