/* SPDX-License-Identifier: MIT */
/*
 * The module's control file (printk-shim(7) RUNTIME CONTROL): made at
 * start, made anew in a fork child, removed at exit; the state the command
 * reads kept current; the per-call check for a request.
 */
#ifndef PKS_CTL_CTL_H
#define PKS_CTL_CTL_H

#include "base/compiler.h"
#include "config/config.h"
#include "ctl/page.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

extern union pks_ctl_area pks_ctl_area PKS_LOCAL;

/*
 * pks_ctl_asked() - Return: whether the command asked for something not yet
 * applied. One relaxed load at a link-time address and a compare: the page
 * is the control file's own while control is on, zeroes otherwise.
 */
static inline bool pks_ctl_asked(void)
{
	/* no pair: a hint; pks_control_apply() loads it again with acquire */
	return atomic_load_explicit(&pks_ctl_area.p.ask, memory_order_relaxed) != 0;
}

bool pks_ctl_setup(const struct pks_config *c);
bool pks_ctl_on(void);
bool pks_ctl_mine(void);
void pks_ctl_close(void);
bool pks_ctl_fault(const void *addr);
void pks_ctl_publish(const struct pks_config *c);
void pks_ctl_lost(int i, unsigned long k, int err);
int pks_ctl_site_add(const struct pks_dd_site *s, unsigned int flags, bool built);
void pks_ctl_site_gone(int i);
struct pks_ctl_site *pks_ctl_site(int i);

#endif
