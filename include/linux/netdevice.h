/* SPDX-License-Identifier: MIT */
/*
 * A minimal struct net_device for ports that have none: the interface name
 * and the embedded struct device whose parent netdev_printk() names, with
 * the kernel's netdev_name(), then <net/net_debug.h>. Includes
 * <linux/device.h>, so PKS_PORT_DEVICE applies to the struct device here.
 *
 * A port with its own struct net_device and netdev_name() defines
 * PKS_PORT_NET_DEVICE before including this header, which then only
 * includes <linux/device.h> and <net/net_debug.h>.
 * Thread-safety: nothing is shared.
 */
#ifndef _LINUX_NETDEVICE_H
#define _LINUX_NETDEVICE_H

#include <string.h>
#include <linux/pks_byteorder.h>
#include <linux/device.h>

#ifndef PKS_PORT_NET_DEVICE

#ifndef IFNAMSIZ
#define IFNAMSIZ	16
#endif

struct net_device {
	char name[IFNAMSIZ];	/* NUL-terminated; a "%d" template is unnamed */
	struct device dev;	/* dev.parent: the device the interface is on */
};

#ifdef __cplusplus
extern "C" {
#endif

static inline const char *netdev_name(const struct net_device *dev)
{
	if (!dev->name[0] || strchr(dev->name, '%'))
		return "(unnamed net_device)";
	return dev->name;
}

#ifdef __cplusplus
}
#endif

#endif /* PKS_PORT_NET_DEVICE */

#include <net/net_debug.h>

#endif /* _LINUX_NETDEVICE_H */
