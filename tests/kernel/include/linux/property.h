/* SPDX-License-Identifier: MIT */
/*
 * The kernel test harness's <linux/property.h>: software nodes cannot be
 * registered here, so test_printf's %pfw cases say so and stop (see
 * expected-failures).
 */
#ifndef _LINUX_PROPERTY_H
#define _LINUX_PROPERTY_H

#include <errno.h>

struct fwnode_handle;

struct software_node {
	const char *name;
	const struct software_node *parent;
	const void *properties;
};

static inline int software_node_register_nodes(const struct software_node *nodes)
{
	(void)nodes;
	return -EOPNOTSUPP;
}

static inline void software_node_unregister_nodes(const struct software_node *nodes)
{
	(void)nodes;
}

static inline const struct fwnode_handle *software_node_fwnode(const struct software_node *n)
{
	(void)n;
	return 0;
}

#endif
