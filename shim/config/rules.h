/* SPDX-License-Identifier: MIT */
/*
 * The dynamic debug rules in force (printk-shim(7) DYNAMIC DEBUG), kept
 * twice: calls hold the copy in force while they read it, and a change is
 * built whole in the other copy, once nobody holds it, then put in force.
 */
#ifndef PKS_CONFIG_RULES_H
#define PKS_CONFIG_RULES_H

#include "core/ddquery.h"

#include <stdatomic.h>
#include <stdbool.h>

struct pks_rules {
	_Atomic unsigned int live;	/* the copy in force */
	_Atomic int n;			/* its rules: a call's one look (pks_rules_any()) */
	struct pks_dd_rules set[2];
};

/** pks_rules_any() - Return: whether any rule is in force: one load, no hold. */
static inline bool pks_rules_any(const struct pks_rules *r)
{
	/* no pair: a gate; the rules themselves are read under a hold */
	return atomic_load_explicit(&r->n, memory_order_relaxed) != 0;
}

/**
 * pks_rules_now() - the copy in force, for a look at its count or words;
 * one that reads its rules holds it (pks_rules_hold()). Its count never
 * goes back to 0 once a rule was kept.
 */
static inline const struct pks_dd_rules *pks_rules_now(const struct pks_rules *r)
{
	/* acquire: pairs with pks_rules_swap()'s store: the copy is whole */
	return &r->set[atomic_load_explicit(&r->live, memory_order_acquire) & 1];
}

const struct pks_dd_rules *pks_rules_hold(const struct pks_rules *r, unsigned int *i);
void pks_rules_let_go(unsigned int i);
struct pks_dd_rules *pks_rules_aside(struct pks_rules *r);
void pks_rules_swap(struct pks_rules *r);
void pks_rules_counted(struct pks_rules *r);
void pks_rules_forked(void);

#endif
