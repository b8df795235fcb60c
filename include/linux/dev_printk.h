/* SPDX-License-Identifier: MIT */
/*
 * dev_printk() and the dev_<level> family for ported driver code, with the
 * kernel's prefix: "<driver> <device>: " from dev_driver_string() and
 * dev_name(), or "(NULL device *): " for a NULL device. Also the _once and
 * _ratelimited variants, dev_dbg (a dynamic debug site, <linux/dynamic_debug.h>),
 * dev_vdbg (VERBOSE_DEBUG), dev_fmt, dev_err_probe()/dev_warn_probe(), and
 * dev_WARN/dev_WARN_ONCE (<linux/bug.h>'s WARN with "<driver> <device>: ").
 *
 * This header does not define struct device. At each call site the port's
 * own struct device, dev_name() and dev_driver_string() are used, as
 * functions or macros taking a const struct device *; <linux/device.h> has
 * minimal ones for ports without their own.
 *
 * Unlike the kernel's, these are macros that paste the prefix onto the
 * format, so @fmt must be a string literal (as for the pr_* macros), and
 * a dev_* call prints through printk() with nothing else to link. %pe in
 * dev_err_probe() and any %p extension need printk-shim's format engine.
 * Thread-safety: as printk(); the _once and _ratelimited state is shared
 * safely by threads.
 */
#ifndef _LINUX_DEV_PRINTK_H
#define _LINUX_DEV_PRINTK_H

#include <errno.h>
#include <stdint.h>
#include <linux/pks_byteorder.h>
#include <linux/kern_levels.h>
#include <linux/bug.h>
#include <linux/once_lite.h>
#include <linux/printk.h>
#include <linux/ratelimit_types.h>

#ifndef dev_fmt
#define dev_fmt(fmt) fmt
#endif

/* Kernel-internal errno values that dev_err_probe() tells apart. */
#ifndef EPROBE_DEFER
#define EPROBE_DEFER	517	/* driver requests probe retry */
#endif

struct device;

/*
 * "%s%s%s: " with these three strings is "<driver> <device>: " or
 * "(NULL device *): "; @d is evaluated more than once.
 */
#define PKS_DEV_PREFIX_FMT	"%s%s%s: "
#define PKS_DEV_PREFIX_ARGS(d)						\
	(d) ? dev_driver_string(d) : "", (d) ? " " : "",		\
	(d) ? dev_name(d) : "(NULL device *)"

/* @level is a string such as KERN_ERR, as the kernel's function takes. */
#define dev_printk(level, dev, fmt, ...)				\
	__extension__ ({						\
		printk_index_subsys_emit("%s %s: ", level, fmt);	\
		pks_dev_printk(level, dev, fmt, ##__VA_ARGS__);		\
	})

/* dev_printk() without its printk index record. */
#define pks_dev_printk(level, dev, fmt, ...)				\
	__extension__ ({						\
		const struct device *pks_dev = (dev);			\
									\
		(void)(printk)("%s" PKS_DEV_PREFIX_FMT fmt, (level),	\
			     PKS_DEV_PREFIX_ARGS(pks_dev),		\
			     ##__VA_ARGS__);				\
	})

#define dev_emerg(dev, fmt, ...)					\
	dev_printk(KERN_EMERG, dev, dev_fmt(fmt), ##__VA_ARGS__)
#define dev_alert(dev, fmt, ...)					\
	dev_printk(KERN_ALERT, dev, dev_fmt(fmt), ##__VA_ARGS__)
#define dev_crit(dev, fmt, ...)						\
	dev_printk(KERN_CRIT, dev, dev_fmt(fmt), ##__VA_ARGS__)
#define dev_err(dev, fmt, ...)						\
	dev_printk(KERN_ERR, dev, dev_fmt(fmt), ##__VA_ARGS__)
#define dev_warn(dev, fmt, ...)						\
	dev_printk(KERN_WARNING, dev, dev_fmt(fmt), ##__VA_ARGS__)
#define dev_notice(dev, fmt, ...)					\
	dev_printk(KERN_NOTICE, dev, dev_fmt(fmt), ##__VA_ARGS__)
#define dev_info(dev, fmt, ...)						\
	dev_printk(KERN_INFO, dev, dev_fmt(fmt), ##__VA_ARGS__)

/* Type-checks, evaluates nothing, prints nothing. */
#define pks_dev_no_printk(dev, fmt, ...)				\
	__extension__ ({						\
		if (0)							\
			pks_dev_printk(KERN_DEBUG, dev, fmt, ##__VA_ARGS__); \
	})

/*
 * The kernel's __dynamic_dev_dbg(): the decorations, then the device's
 * prefix; a NULL device's line is plain, as the kernel's.
 */
#define pks_dynamic_dev_dbg(descriptor, dev, fmt, ...)			\
	__extension__ ({						\
		const struct device *pks_dev = (dev);			\
									\
		if (pks_dev)						\
			__dynamic_pr_debug(descriptor, PKS_DEV_PREFIX_FMT fmt, \
					   PKS_DEV_PREFIX_ARGS(pks_dev), \
					   ##__VA_ARGS__);		\
		else							\
			pks_dynamic_plain(descriptor, "(NULL device *): " fmt, \
					  ##__VA_ARGS__);		\
	})

/* The kernel's name, for _dynamic_func_call_cls(cls, fmt, __dynamic_dev_dbg, dev, fmt, ...). */
#define __dynamic_dev_dbg	pks_dynamic_dev_dbg

#define dynamic_dev_dbg(dev, fmt, ...)					\
	_dynamic_func_call(fmt, pks_dynamic_dev_dbg, dev, fmt, ##__VA_ARGS__)

/*
 * A dynamic debug site: DEBUG, defined before this header, gives its
 * default. Its descriptor's format has dev_fmt applied, as the kernel's.
 */
#define dev_dbg(dev, fmt, ...)						\
	dynamic_dev_dbg(dev, dev_fmt(fmt), ##__VA_ARGS__)

#ifdef VERBOSE_DEBUG
#define dev_vdbg	dev_dbg
#else
#define dev_vdbg(dev, fmt, ...)						\
	pks_dev_no_printk(dev, dev_fmt(fmt), ##__VA_ARGS__)
#endif

/* Once per call site, even when threads reach it together. */
#define dev_level_once(dev_level, dev, fmt, ...)			\
	do {								\
		if (__ONCE_LITE_IF(true))				\
			dev_level(dev, fmt, ##__VA_ARGS__);		\
	} while (0)

#define dev_emerg_once(dev, fmt, ...)					\
	dev_level_once(dev_emerg, dev, fmt, ##__VA_ARGS__)
#define dev_alert_once(dev, fmt, ...)					\
	dev_level_once(dev_alert, dev, fmt, ##__VA_ARGS__)
#define dev_crit_once(dev, fmt, ...)					\
	dev_level_once(dev_crit, dev, fmt, ##__VA_ARGS__)
#define dev_err_once(dev, fmt, ...)					\
	dev_level_once(dev_err, dev, fmt, ##__VA_ARGS__)
#define dev_warn_once(dev, fmt, ...)					\
	dev_level_once(dev_warn, dev, fmt, ##__VA_ARGS__)
#define dev_notice_once(dev, fmt, ...)					\
	dev_level_once(dev_notice, dev, fmt, ##__VA_ARGS__)
#define dev_info_once(dev, fmt, ...)					\
	dev_level_once(dev_info, dev, fmt, ##__VA_ARGS__)
#define dev_dbg_once(dev, fmt, ...)					\
	dev_level_once(dev_dbg, dev, fmt, ##__VA_ARGS__)

/* One ratelimit state per call site: 10 lines per 5 s, as printk_ratelimited. */
#define dev_level_ratelimited(dev_level, dev, fmt, ...)			\
	do {								\
		static DEFINE_RATELIMIT_STATE(pks_rs,			\
					      DEFAULT_RATELIMIT_INTERVAL, \
					      DEFAULT_RATELIMIT_BURST);	\
									\
		if (__ratelimit(&pks_rs))				\
			dev_level(dev, fmt, ##__VA_ARGS__);		\
	} while (0)

#define dev_emerg_ratelimited(dev, fmt, ...)				\
	dev_level_ratelimited(dev_emerg, dev, fmt, ##__VA_ARGS__)
#define dev_alert_ratelimited(dev, fmt, ...)				\
	dev_level_ratelimited(dev_alert, dev, fmt, ##__VA_ARGS__)
#define dev_crit_ratelimited(dev, fmt, ...)				\
	dev_level_ratelimited(dev_crit, dev, fmt, ##__VA_ARGS__)
#define dev_err_ratelimited(dev, fmt, ...)				\
	dev_level_ratelimited(dev_err, dev, fmt, ##__VA_ARGS__)
#define dev_warn_ratelimited(dev, fmt, ...)				\
	dev_level_ratelimited(dev_warn, dev, fmt, ##__VA_ARGS__)
#define dev_notice_ratelimited(dev, fmt, ...)				\
	dev_level_ratelimited(dev_notice, dev, fmt, ##__VA_ARGS__)
#define dev_info_ratelimited(dev, fmt, ...)				\
	dev_level_ratelimited(dev_info, dev, fmt, ##__VA_ARGS__)
/* The kernel's: the limit counts only the calls of an enabled site. */
#define dev_dbg_ratelimited(dev, fmt, ...)				\
	pks_dynamic_call_ratelimited(fmt, pks_dynamic_dev_dbg, dev, dev_fmt(fmt), ##__VA_ARGS__)

/*
 * The kernel's "error %pe: <message>" for a failed probe: nothing for
 * -ENOMEM (the allocator has said enough), debug level for -EPROBE_DEFER
 * (so only with DEBUG), else @level. No dev_fmt, as in the kernel, where
 * these are functions. Evaluates to @err.
 */
#define pks_dev_probe_failed(level, dev, err, fmt, ...)		\
	__extension__ ({						\
		const struct device *pks_pdev = (dev);			\
		int pks_perr = (err);					\
									\
		if (pks_perr == -EPROBE_DEFER)				\
			dynamic_dev_dbg(pks_pdev, "error %pe: " fmt,	\
					(void *)(intptr_t)pks_perr,	\
					##__VA_ARGS__);			\
		else if (pks_perr != -ENOMEM)				\
			dev_printk(level, pks_pdev, "error %pe: " fmt,	\
				   (void *)(intptr_t)pks_perr,		\
				   ##__VA_ARGS__);			\
		pks_perr;						\
	})

/* Return: @err, so that a probe can end with "return dev_err_probe(...)". */
#define dev_err_probe(dev, err, fmt, ...)				\
	pks_dev_probe_failed(KERN_ERR, dev, err, fmt, ##__VA_ARGS__)
#define dev_warn_probe(dev, err, fmt, ...)				\
	pks_dev_probe_failed(KERN_WARNING, dev, err, fmt, ##__VA_ARGS__)

/* The kernel's: WARN with the driver and device before @fmt (no NULL check). */
#define dev_WARN(dev, fmt, ...)						\
	WARN(1, "%s %s: " fmt, dev_driver_string(dev), dev_name(dev), ##__VA_ARGS__)
#define dev_WARN_ONCE(dev, condition, fmt, ...)				\
	WARN_ONCE(condition, "%s %s: " fmt, dev_driver_string(dev),	\
		  dev_name(dev), ##__VA_ARGS__)

#endif /* _LINUX_DEV_PRINTK_H */
