/* SPDX-License-Identifier: MIT */
/*
 * The quick tests, derived from the configuration: which markers a line
 * is dropped by before any context is touched (emit.c filter()), and which
 * go into the deferred ring at once (emit.c ringed()); armed by the first
 * line either takes, and again after each change.
 */
#ifndef PKS_CONFIG_DROP_H
#define PKS_CONFIG_DROP_H

#include "base/compiler.h"
#include "config/config.h"

#include <stdatomic.h>
#include <stdbool.h>

/*
 * pks_drop_from: a KERN_<N> marker whose digit is this or more is dropped,
 * and no marker when pks_drop_bare; PKS_DROP_RING below that digit, the
 * same, and every other line goes into the deferred ring at once when its
 * shape lets it (PRINTK_SHIM_DEFER). UNREACHED before the first call;
 * HIDDEN from it on in a program that runs ThreadSanitizer, whose calls
 * all go the usual way hidden from its runtime (base/tsan.h); otherwise
 * UNARMED until a line either test takes arms it, NEVER when every call
 * must go the usual way (PRINTK_SHIM_DISABLE, dynamic debug,
 * PRINTK_SHIM_LINT, a thread's asynchronous cancellation). Every armed
 * value is below '8' but NONE, which drops nothing and defers nothing: a
 * synchronous line costs two compares, the
 * second for the two states above the others. Racy on purpose: each is a
 * value of the configuration, and a thread that sees an older one goes the
 * usual way, or drops or defers a line of the old level.
 */
enum { PKS_DROP_NONE = '8', PKS_DROP_RING = 0x20, PKS_DROP_NEVER = 0xfc, PKS_DROP_UNARMED = 0xfd,
       PKS_DROP_UNREACHED = 0xfe, PKS_DROP_HIDDEN = 0xff };
extern _Atomic unsigned char pks_drop_from PKS_LOCAL;
extern _Atomic bool pks_drop_bare PKS_LOCAL;

void pks_drop_setup(void);
void pks_drop_reached(void);
void pks_drop_arm(const struct pks_config *c);
void pks_drop_changed(void);
void pks_drop_never(void);

/** pks_drop_ready() - a line a quick test would take came the usual way: arm them, if not armed */
static inline void pks_drop_ready(const struct pks_config *c)
{
	/* no pair: the quick tests' state, no data behind it */
	if (unlikely(atomic_load_explicit(&pks_drop_from, memory_order_relaxed) == PKS_DROP_UNARMED))
		pks_drop_arm(c);
}

#endif
