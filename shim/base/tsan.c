// SPDX-License-Identifier: MIT
/*
 * The thread's count of pks_tsan_hide() calls not yet shown (base/tsan.h),
 * the runtime's own count as it changes it around a signal handler (ctx/
 * signals.c's trampoline): none may be shown twice.
 */
#include "base/tsan.h"

#if !defined(__SANITIZE_THREAD__) && !defined(PKS_TSAN_BUILD)
PKS_TLS int pks_tsan_hidden;
#endif
