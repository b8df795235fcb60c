/* SPDX-License-Identifier: MIT */
/*
 * The module's configuration: the PRINTK_SHIM_* variables read once into one
 * immutable struct, with the outputs opened and the automatic choices made.
 */
#ifndef PKS_CONFIG_CONFIG_H
#define PKS_CONFIG_CONFIG_H

#include "base/compiler.h"
#include "base/once.h"
#include "config/open.h"
#include "config/rules.h"
#include "config/vars.h"

struct pks_out {
	enum pks_outkind kind;
	int fd;			/* -1 for syslog */
	bool color;		/* colour codes in this output's lines */
	int spec;		/* index in set.outputs */
};

/*
 * What every line reads comes first and set and dd, whose paths and tables
 * are long, last: a call then touches few lines of it.
 */
struct pks_config {
	enum pks_linefmt format;	/* set.format with auto resolved */
	int nout;
	struct pks_out out[PKS_OUTPUTS_MAX];
	struct pks_fileid out_id[PKS_OUTPUTS_MAX];	/* file: what out[i].fd was opened as */
	bool need_time;		/* some output shows the time */
	bool has_stderr;	/* stderr is one of the outputs */
	bool secure;		/* AT_SECURE: set-ID; the caller's SYMBOLS, PATCH, paths ignored */
	bool wrapped;		/* the printk-shim command ran this process */
	char ident[64];		/* syslog ident, resolved */
	struct pks_settings set;
	struct pks_rules dd;	/* set.dyndbg's queries that were understood, and those since */
};

const struct pks_config *pks_config_slow(void);
const struct pks_config *pks_config_known(void);
void pks_config_start(void);
bool pks_config_wrapped_child(void);
extern struct pks_config pks_cfg PKS_LOCAL;
extern _Atomic int pks_cfg_state PKS_LOCAL;

/**
 * pks_config() - Return: the configuration, read on the first call; before
 * the C library is ready, the defaults, and the next call reads it.
 */
static inline const struct pks_config *pks_config(void)
{
	/* acquire: pairs with pks_once_done()'s release in pks_config()'s load */
	if (__builtin_expect(atomic_load_explicit(&pks_cfg_state, memory_order_acquire) ==
			     PKS_ONCE_DONE, 1))
		return &pks_cfg;
	return pks_config_slow();
}

/** pks_config_ready() - Return: whether the configuration was read already (not the early defaults). */
static inline bool pks_config_ready(void)
{
	/* acquire: pairs with pks_once_done()'s release, as above */
	return atomic_load_explicit(&pks_cfg_state, memory_order_acquire) == PKS_ONCE_DONE;
}

#endif
