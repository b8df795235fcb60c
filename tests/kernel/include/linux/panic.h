/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/panic.h>: taint is nothing. */
#ifndef _LINUX_PANIC_H
#define _LINUX_PANIC_H

#define TAINT_TEST		18
#define LOCKDEP_STILL_OK	1
#define add_taint(flag, lockdep)	((void)(flag), (void)(lockdep))

#endif
