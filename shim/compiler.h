/* SPDX-License-Identifier: MIT */
/*
 * Attributes shared by every file of the module. Only entry.c and the hooks
 * in lifecycle.c use PKS_EXPORT; everything else is hidden by
 * -fvisibility=hidden and, behind that, by printk-shim.map.
 */
#ifndef PKS_COMPILER_H
#define PKS_COMPILER_H

#define PKS_EXPORT	__attribute__((visibility("default")))
#define PKS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define PKS_TLS		__thread __attribute__((tls_model("initial-exec")))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define PKS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
