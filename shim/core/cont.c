// SPDX-License-Identifier: MIT
/*
 * The continuation decision: does a fragment continue this context's open
 * line or start a new one? Per context (thread or signal handler), never
 * across contexts: the caller passes only its own line's state. The level
 * a new line gets and what happens to the bytes is the caller's business.
 * Thread-safety: pure.
 */
#include "base/compiler.h"
#include "core/cont.h"
#include "core/level.h"

/**
 * pks_cont_decide() - printk-shim(7) CONTINUATION in one place
 * @open: the context has an open (unterminated) line
 * @mflags: PKS_M_* of the fragment's leading markers
 * @bare_newline: the fragment's text after its markers is exactly "\n"
 * Return: what to do with the fragment.
 */
PKS_HOT enum pks_act pks_cont_decide(bool open, unsigned int mflags, enum pks_mode mode,
			     bool bare_newline)
{
	/* KERN_CONT is explicit intent in both modes, digit or not. */
	if (mflags & PKS_M_CONT) {
		if (open)
			return PKS_APPEND;
		/* 4.9-5.9 dropped an empty orphan; 5.10+ keeps it. */
		return mode == PKS_CONT_LEGACY && bare_newline ? PKS_DROP : PKS_NEW;
	}
	if (mode == PKS_CONT_STRICT || (mflags & (PKS_M_LEVEL | PKS_M_DEFAULT)))
		return PKS_NEW;
	return open ? PKS_APPEND : PKS_NEW;
}
