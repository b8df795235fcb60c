/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/dcache.h>: the fields test_printf fills in. */
#ifndef _LINUX_DCACHE_H
#define _LINUX_DCACHE_H

struct qstr {
	unsigned int hash, len;
	const unsigned char *name;
};

#define QSTR_INIT(n, l)	{ 0, (l), (const unsigned char *)(n) }
#define DNAME_INLINE_LEN	32

struct dentry {
	struct dentry *d_parent;
	struct qstr d_name;
	unsigned char d_iname[DNAME_INLINE_LEN];
};

#endif
