/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/moduleparam.h>: the types, and parameters that are never set. */
#ifndef _LINUX_MODULEPARAM_H
#define _LINUX_MODULEPARAM_H

struct kernel_param;

struct kernel_param_ops {
	unsigned int flags;
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buffer, const struct kernel_param *kp);
	void (*free)(void *arg);
};

struct kernel_param {
	const char *name;
	const struct kernel_param_ops *ops;
	void *arg;
};

/* What the kernel's lib/dynamic_debug.c gives DD_SYS_WRAP: never called here. */
static const struct kernel_param_ops param_ops_dyndbg_classes __attribute__((unused)) = {
	0, 0, 0, 0
};

#define module_param(name, type, perm)
#define module_param_named(name, value, type, perm)
#define module_param_cb(name, ops, arg, perm)				\
	static const struct kernel_param pks_kt_param_##name		\
	__attribute__((used)) = { #name, ops, arg }

#endif
