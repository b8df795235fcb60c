/* SPDX-License-Identifier: MIT */
/*
 * The kernel test harness's <linux/init.h>: section markers are nothing,
 * and module_init()/module_exit() define the harness's entry points
 * (tests/kernel/harness.c calls them as loading and unloading would).
 */
#ifndef _LINUX_INIT_H
#define _LINUX_INIT_H

#define __init
#define __exit
#define __initdata
#define __initconst
#define __exitdata
#define __ro_after_init

#define module_init(fn)	int pks_kt_init(void); int pks_kt_init(void) { return fn(); }
#define module_exit(fn)	void pks_kt_exit(void); void pks_kt_exit(void) { fn(); }

#endif
