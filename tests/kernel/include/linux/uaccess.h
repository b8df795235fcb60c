/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/uaccess.h>: nothing a test here uses. */
#ifndef _LINUX_UACCESS_H
#define _LINUX_UACCESS_H
#endif
