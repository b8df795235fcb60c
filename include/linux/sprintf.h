/* SPDX-License-Identifier: MIT */
/*
 * The kernel's string formatting for ported code (printk-shim(7) THE
 * LIBRARY): scnprintf, vscnprintf, kasprintf, kvasprintf and
 * kvasprintf_const, and the kernel's snprintf, vsnprintf, sprintf and
 * vsprintf, all from libprintk-port (pkg-config --libs printk-shim), whose
 * engine is printk-shim's: a string holds byte for byte what printk()
 * would print, %p extensions and %pV included.
 *
 * The four names the C library also has are macros here, over
 * pks_kernel_snprintf() and its kin, so they mean the kernel's only in a
 * file that includes this header (or <linux/kernel.h>), and only after it;
 * a port that wants the C library's there defines PKS_NO_KERNEL_SPRINTF
 * first. They are function-like: &snprintf is still the C library's.
 * kasprintf's memory comes from malloc(): free() it (a port's kfree()).
 * Thread-safety: as the C library's functions.
 */
#ifndef _LINUX_SPRINTF_H
#define _LINUX_SPRINTF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/pks_byteorder.h>

#ifndef PKS_GFP_T_DEFINED
#define PKS_GFP_T_DEFINED
/* The allocation flags kasprintf() takes and ignores here. */
typedef unsigned int gfp_t;
#endif
#ifndef GFP_KERNEL
#define GFP_KERNEL	0u
#define GFP_ATOMIC	0u
#define GFP_NOWAIT	0u
#endif

#ifdef __cplusplus
extern "C" {
#endif

int pks_kernel_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pks_kernel_vsnprintf(char *buf, size_t size, const char *fmt, va_list args)
	__attribute__((format(printf, 3, 0)));
int pks_kernel_sprintf(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int pks_kernel_vsprintf(char *buf, const char *fmt, va_list args)
	__attribute__((format(printf, 2, 0)));

/* Return: the bytes written to @buf, without the NUL; 0 when @size is 0. */
int scnprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int vscnprintf(char *buf, size_t size, const char *fmt, va_list args)
	__attribute__((format(printf, 3, 0)));
char *kasprintf(gfp_t gfp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), malloc));
char *kvasprintf(gfp_t gfp, const char *fmt, va_list args)
	__attribute__((format(printf, 2, 0), malloc));
/* Always a copy here: free it as kasprintf()'s. */
const char *kvasprintf_const(gfp_t gfp, const char *fmt, va_list args)
	__attribute__((format(printf, 2, 0)));

#ifdef __cplusplus
}
#endif

#ifndef PKS_NO_KERNEL_SPRINTF
#ifdef __cplusplus
/*
 * libstdc++'s <cstdio>, which <string> and <iostream> include, #undefs
 * these four names: included first, it leaves the macros below standing.
 * Its std:: names then lead to the kernel's too, as the unqualified ones.
 */
#include <cstdio>
namespace std {
using ::pks_kernel_snprintf;
using ::pks_kernel_vsnprintf;
using ::pks_kernel_sprintf;
using ::pks_kernel_vsprintf;
}
#endif
#define snprintf(...)	pks_kernel_snprintf(__VA_ARGS__)
#define vsnprintf(...)	pks_kernel_vsnprintf(__VA_ARGS__)
#define sprintf(...)	pks_kernel_sprintf(__VA_ARGS__)
#define vsprintf(...)	pks_kernel_vsprintf(__VA_ARGS__)
#endif

#endif /* _LINUX_SPRINTF_H */
