/* SPDX-License-Identifier: MIT */
/*
 * The PRINTK_SHIM_* variables: one table that names each variable, what it
 * accepts, its default and its parser. The module reads the environment
 * through it (config.c); the wrapper turns options into variables through it
 * (cmd/printk-shim.c), so both accept exactly the same values. Pure: no environment,
 * no I/O; opening files and checking descriptors is config.c's job.
 */
#ifndef PKS_CONFIG_VARS_H
#define PKS_CONFIG_VARS_H

#include "base/compiler.h"
#include "core/cont.h"
#include "core/ddquery.h"
#include "core/render.h"

#include <stdbool.h>
#include <stddef.h>

#define PKS_OUTPUTS_MAX	8
#define PKS_PATH_MAX	1024
#define PKS_SYMBOLS_MAX	16

enum pks_color { PKS_COLOR_AUTO, PKS_COLOR_ALWAYS, PKS_COLOR_NEVER };
enum pks_outkind { PKS_OUT_STDERR, PKS_OUT_SYSLOG, PKS_OUT_FILE, PKS_OUT_FD, PKS_OUT_JOURNAL };
enum pks_sysfmt { PKS_SYSLOG_RFC3164, PKS_SYSLOG_RFC5424 };
enum pks_patch { PKS_PATCH_AUTO, PKS_PATCH_ALWAYS, PKS_PATCH_NEVER };
enum pks_full { PKS_FULL_BLOCK, PKS_FULL_DROP };	/* a full deferred ring */

struct pks_outspec {
	enum pks_outkind kind;
	int fd;				/* PKS_OUT_FD */
	char path[PKS_PATH_MAX];	/* PKS_OUT_FILE */
};

/* A printk-like function of the program's, to take over (PRINTK_SHIM_SYMBOLS). */
struct pks_symspec {
	char name[64];
	bool va;			/* vprintk's prototype: "name:v" */
};

#define PKS_RECORD_MIN	(4UL << 10)	/* PRINTK_SHIM_RECORD's bounds: a buffer of */
#define PKS_RECORD_MAX	(256UL << 20)	/* another size is none the module made */

/* What the variables say, validated, before anything is opened. */
struct pks_settings {
	bool disable, legacy_markers, crash_flush, time, caller, debug, lint;
	bool defer;			/* printk-shim(7) DEFERRED PRINTING */
	bool control;			/* printk-shim(7) RUNTIME CONTROL */
	int default_level;		/* 0..7 */
	int level;			/* show lines with level <= this */
	enum pks_mode cont;
	enum pks_linefmt format;
	enum pks_color color;
	unsigned long line_max;		/* bytes of text per written piece */
	int noutputs;
	struct pks_outspec outputs[PKS_OUTPUTS_MAX];
	char syslog_socket[PKS_PATH_MAX];
	char journal_socket[PKS_PATH_MAX];
	int syslog_facility;		/* LOG_USER etc. (already shifted) */
	enum pks_sysfmt syslog_format;
	char syslog_ident[64];		/* empty: the program's short name */
	enum pks_patch patch;
	int nsymbols;
	struct pks_symspec symbols[PKS_SYMBOLS_MAX];
	char dyndbg[PKS_DD_POOL];	/* the queries as written; config.c reads them */
	unsigned long defer_size;	/* bytes of the ring, a power of two */
	unsigned long record;		/* bytes of the record buffer, a power of two; 0: off */
	enum pks_full defer_full;
	unsigned long defer_latency;	/* milliseconds */
};

struct pks_var {
	const char *name;	/* without the PRINTK_SHIM_ prefix */
	const char *expect;	/* what a valid value looks like */
	const char *dflt;	/* the default, as a user would write it */
	const char *help;	/* one line for --help and the docs */
	bool boolean;		/* --name / --no-name in the wrapper */
	int (*parse)(struct pks_settings *s, const char *val);	/* 0 or -1 */
};

extern const struct pks_var pks_vars[] PKS_LOCAL;
extern const size_t pks_nvars PKS_LOCAL;

void pks_settings_default(struct pks_settings *s);
const struct pks_var *pks_var_find(const char *name);
bool pks_outspec_same(const struct pks_outspec *a, const struct pks_outspec *b);

#endif
