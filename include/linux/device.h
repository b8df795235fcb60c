/* SPDX-License-Identifier: MIT */
/*
 * A minimal struct device for ports that have none: the fields the dev_*
 * printing reads (init_name, driver->name) and parent, with dev_name() and
 * dev_driver_string() as the kernel's behave for them, then
 * <linux/dev_printk.h>. No bus, class, kobject or driver core.
 *
 * A port with its own struct device, dev_name() and dev_driver_string()
 * defines PKS_PORT_DEVICE before including this header, which then only
 * includes <linux/dev_printk.h>.
 * Thread-safety: nothing is shared.
 */
#ifndef _LINUX_DEVICE_H
#define _LINUX_DEVICE_H

#include <linux/pks_byteorder.h>

#ifndef PKS_PORT_DEVICE

struct device_driver {
	const char *name;		/* what dev_driver_string() prints */
};

struct device {
	struct device *parent;
	const char *init_name;		/* what dev_name() prints; NULL: "" */
	const struct device_driver *driver;	/* NULL: not bound */
};

#ifdef __cplusplus
extern "C" {
#endif

static inline const char *dev_name(const struct device *dev)
{
	return dev->init_name ? dev->init_name : "";
}

/* The kernel falls back to the bus and class names; there are none here. */
static inline const char *dev_driver_string(const struct device *dev)
{
	return dev->driver && dev->driver->name ? dev->driver->name : "";
}

#ifdef __cplusplus
}
#endif

#endif /* PKS_PORT_DEVICE */

#include <linux/dev_printk.h>

#endif /* _LINUX_DEVICE_H */
