/* SPDX-License-Identifier: MIT */
/*
 * netdev_printk() and the netdev_<level> family for ported network drivers,
 * with the kernel's prefix: "<driver> <parent device> <interface>: " for an
 * interface with a parent device, "<interface>: " for one without, and
 * "(NULL net_device): " for NULL. Also netdev_*_once, netdev_dbg (a dynamic
 * debug site, <linux/dynamic_debug.h>) and netdev_vdbg (VERBOSE_DEBUG).
 *
 * This header does not define struct net_device. At each call site the
 * port's netdev_name() is used, and PKS_NETDEV_PARENT(ndev), by default the
 * kernel's (ndev)->dev.parent: a port whose net_device has no such member
 * defines it, before this header, to its parent struct device or NULL. The
 * parent is named through dev_name() and dev_driver_string(), as for dev_*.
 * <linux/netdevice.h> has a minimal struct net_device. The kernel's
 * registration-state suffix (" (unregistered)" and so on) is not printed.
 *
 * As with dev_*, these macros paste the prefix onto @fmt, which must be a
 * string literal, and print through printk() alone.
 * Thread-safety: as printk(); the _once state is shared safely by threads.
 */
#ifndef _LINUX_NET_DEBUG_H
#define _LINUX_NET_DEBUG_H

#include <stddef.h>
#include <linux/pks_byteorder.h>
#include <linux/kern_levels.h>
#include <linux/once_lite.h>
#include <linux/printk.h>

struct device;
struct net_device;

#ifndef PKS_NETDEV_PARENT
#define PKS_NETDEV_PARENT(ndev)	((ndev)->dev.parent)
#endif

/* @level is a string such as KERN_ERR, as the kernel's function takes. */
#define netdev_printk(level, ndev, fmt, ...)				\
	__extension__ ({						\
		printk_index_subsys_emit("%s %s %s: ", level, fmt);	\
		pks_netdev_printk(level, ndev, fmt, ##__VA_ARGS__);	\
	})

/* netdev_printk() without its printk index record. */
#define pks_netdev_printk(level, ndev, fmt, ...)			\
	__extension__ ({						\
		const struct net_device *pks_nd = (ndev);		\
		const struct device *pks_np =				\
			pks_nd ? PKS_NETDEV_PARENT(pks_nd) : NULL;	\
									\
		(void)(printk)("%s%s%s%s%s%s: " fmt, (level),		\
			     pks_np ? dev_driver_string(pks_np) : "",	\
			     pks_np ? " " : "",				\
			     pks_np ? dev_name(pks_np) : "",		\
			     pks_np ? " " : "",				\
			     pks_nd ? netdev_name(pks_nd) : "(NULL net_device)", \
			     ##__VA_ARGS__);				\
	})

#define netdev_emerg(ndev, fmt, ...)					\
	netdev_printk(KERN_EMERG, ndev, fmt, ##__VA_ARGS__)
#define netdev_alert(ndev, fmt, ...)					\
	netdev_printk(KERN_ALERT, ndev, fmt, ##__VA_ARGS__)
#define netdev_crit(ndev, fmt, ...)					\
	netdev_printk(KERN_CRIT, ndev, fmt, ##__VA_ARGS__)
#define netdev_err(ndev, fmt, ...)					\
	netdev_printk(KERN_ERR, ndev, fmt, ##__VA_ARGS__)
#define netdev_warn(ndev, fmt, ...)					\
	netdev_printk(KERN_WARNING, ndev, fmt, ##__VA_ARGS__)
#define netdev_notice(ndev, fmt, ...)					\
	netdev_printk(KERN_NOTICE, ndev, fmt, ##__VA_ARGS__)
#define netdev_info(ndev, fmt, ...)					\
	netdev_printk(KERN_INFO, ndev, fmt, ##__VA_ARGS__)

/* Type-checks, evaluates nothing, prints nothing. */
#define pks_netdev_no_printk(ndev, fmt, ...)				\
	__extension__ ({						\
		if (0)							\
			pks_netdev_printk(KERN_DEBUG, ndev, fmt, ##__VA_ARGS__); \
	})

/*
 * The kernel's __dynamic_netdev_dbg(): the decorations, then the prefix,
 * for a device with a parent; any other line is plain, as the kernel's.
 */
#define pks_dynamic_netdev_dbg(descriptor, ndev, fmt, ...)		\
	__extension__ ({						\
		const struct net_device *pks_nd = (ndev);		\
		const struct device *pks_np =				\
			pks_nd ? PKS_NETDEV_PARENT(pks_nd) : NULL;	\
									\
		if (pks_np)						\
			__dynamic_pr_debug(descriptor, "%s %s %s: " fmt, \
					   dev_driver_string(pks_np),	\
					   dev_name(pks_np), netdev_name(pks_nd), \
					   ##__VA_ARGS__);		\
		else							\
			pks_dynamic_plain(descriptor, "%s: " fmt,	\
					  pks_nd ? netdev_name(pks_nd) : \
						   "(NULL net_device)",	\
					  ##__VA_ARGS__);		\
	})

#define dynamic_netdev_dbg(ndev, fmt, ...)				\
	_dynamic_func_call(fmt, pks_dynamic_netdev_dbg, ndev, fmt,	\
			   ##__VA_ARGS__)

/* A dynamic debug site: DEBUG, defined before this header, gives its default. */
#define netdev_dbg(ndev, fmt, ...)					\
	dynamic_netdev_dbg(ndev, fmt, ##__VA_ARGS__)

#ifdef VERBOSE_DEBUG
#define netdev_vdbg	netdev_dbg
#else
#define netdev_vdbg(ndev, fmt, ...)					\
	pks_netdev_no_printk(ndev, fmt, ##__VA_ARGS__)
#endif

/* Once per call site, even when threads reach it together. */
#define netdev_level_once(level, ndev, fmt, ...)			\
	do {								\
		if (__ONCE_LITE_IF(true))				\
			netdev_printk(level, ndev, fmt, ##__VA_ARGS__);	\
	} while (0)

#define netdev_emerg_once(ndev, fmt, ...)				\
	netdev_level_once(KERN_EMERG, ndev, fmt, ##__VA_ARGS__)
#define netdev_alert_once(ndev, fmt, ...)				\
	netdev_level_once(KERN_ALERT, ndev, fmt, ##__VA_ARGS__)
#define netdev_crit_once(ndev, fmt, ...)				\
	netdev_level_once(KERN_CRIT, ndev, fmt, ##__VA_ARGS__)
#define netdev_err_once(ndev, fmt, ...)					\
	netdev_level_once(KERN_ERR, ndev, fmt, ##__VA_ARGS__)
#define netdev_warn_once(ndev, fmt, ...)				\
	netdev_level_once(KERN_WARNING, ndev, fmt, ##__VA_ARGS__)
#define netdev_notice_once(ndev, fmt, ...)				\
	netdev_level_once(KERN_NOTICE, ndev, fmt, ##__VA_ARGS__)
#define netdev_info_once(ndev, fmt, ...)				\
	netdev_level_once(KERN_INFO, ndev, fmt, ##__VA_ARGS__)

#endif /* _LINUX_NET_DEBUG_H */
