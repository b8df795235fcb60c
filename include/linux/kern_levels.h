/* SPDX-License-Identifier: MIT */
/*
 * Level markers for ported kernel code, with the byte values of current
 * kernels (v5.1+): a level is SOH followed by '0'..'7', KERN_CONT is SOH 'c',
 * and KERN_DEFAULT is the empty string. Older spellings ("<d>", "<c>") are
 * not produced here, and SOH 'd' only by the headers' own reports
 * (PKS_KERN_NEWLINE); printk-shim parses them all at run time.
 * Thread-safety: constants only.
 */
#ifndef _LINUX_KERN_LEVELS_H
#define _LINUX_KERN_LEVELS_H

#include <linux/pks_byteorder.h>

#define KERN_SOH	"\001"		/* ASCII Start Of Header */
#define KERN_SOH_ASCII	'\001'

#define KERN_EMERG	KERN_SOH "0"	/* system is unusable */
#define KERN_ALERT	KERN_SOH "1"	/* action must be taken immediately */
#define KERN_CRIT	KERN_SOH "2"	/* critical conditions */
#define KERN_ERR	KERN_SOH "3"	/* error conditions */
#define KERN_WARNING	KERN_SOH "4"	/* warning conditions */
#define KERN_NOTICE	KERN_SOH "5"	/* normal but significant condition */
#define KERN_INFO	KERN_SOH "6"	/* informational */
#define KERN_DEBUG	KERN_SOH "7"	/* debug-level messages */

#define KERN_DEFAULT	""		/* the default level (since v5.1) */

/*
 * KERN_DEFAULT as the kernel's own reports (a WARN's cut line, a stack
 * dump) come out since v4.9: a new line at the default level, whatever
 * continuation rule printk-shim follows; SOH 'd', v3.6 to v5.0's spelling.
 */
#define PKS_KERN_NEWLINE	KERN_SOH "d"

/* Continues the line this thread has open, if it has one. */
#define KERN_CONT	KERN_SOH "c"

/* Integer forms, for code that passes levels around as numbers. */
#define LOGLEVEL_SCHED		-2	/* printk_deferred() in the kernel */
#define LOGLEVEL_DEFAULT	-1	/* no level given */
#define LOGLEVEL_EMERG		0
#define LOGLEVEL_ALERT		1
#define LOGLEVEL_CRIT		2
#define LOGLEVEL_ERR		3
#define LOGLEVEL_WARNING	4
#define LOGLEVEL_NOTICE		5
#define LOGLEVEL_INFO		6
#define LOGLEVEL_DEBUG		7

#endif /* _LINUX_KERN_LEVELS_H */
