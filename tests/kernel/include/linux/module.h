/* SPDX-License-Identifier: MIT */
/*
 * The kernel test harness's <linux/module.h>: module metadata is nothing;
 * module parameters are plain variables, whose callbacks the harness does
 * not call (a test sets them through the program's arguments instead).
 */
#ifndef _LINUX_MODULE_H
#define _LINUX_MODULE_H

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>

struct module;
#define THIS_MODULE	((struct module *)0)

#define MODULE_LICENSE(x)
#define MODULE_AUTHOR(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_INFO(tag, info)
#define MODULE_PARM_DESC(var, desc)

#endif
