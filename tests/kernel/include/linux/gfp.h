/* SPDX-License-Identifier: MIT */
/*
 * The kernel test harness's <linux/gfp.h>: the 6.1 flag bits that
 * test_printf's %pGg cases name (include/linux/gfp_types.h), whose names
 * printk-shim's engine does not print (see expected-failures).
 */
#ifndef _LINUX_GFP_H
#define _LINUX_GFP_H

#include <linux/sprintf.h>

#define __GFP_DMA		0x01u
#define __GFP_HIGHMEM		0x02u
#define __GFP_DMA32		0x04u
#define __GFP_MOVABLE		0x08u
#define __GFP_RECLAIMABLE	0x10u
#define __GFP_HIGH		0x20u
#define __GFP_IO		0x40u
#define __GFP_FS		0x80u
#define __GFP_ZERO		0x100u
#define __GFP_ATOMIC		0x200u
#define __GFP_DIRECT_RECLAIM	0x400u
#define __GFP_KSWAPD_RECLAIM	0x800u
#define __GFP_WRITE		0x1000u
#define __GFP_NOWARN		0x2000u
#define __GFP_RETRY_MAYFAIL	0x4000u
#define __GFP_NOFAIL		0x8000u
#define __GFP_NORETRY		0x10000u
#define __GFP_MEMALLOC		0x20000u
#define __GFP_COMP		0x40000u
#define __GFP_NOMEMALLOC	0x80000u
#define __GFP_HARDWALL		0x100000u
#define __GFP_THISNODE		0x200000u
#define __GFP_ACCOUNT		0x400000u
#define __GFP_ZEROTAGS		0x800000u
#define __GFP_BITS_SHIFT	27
#define __GFP_BITS_MASK		((1u << __GFP_BITS_SHIFT) - 1)
#define __GFP_RECLAIM		(__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM)
#define GFP_TRANSHUGE_LIGHT	((__GFP_IO | __GFP_FS | __GFP_HARDWALL | __GFP_MOVABLE | \
				  __GFP_COMP | __GFP_NOMEMALLOC | __GFP_NOWARN) & ~__GFP_RECLAIM)
#define GFP_TRANSHUGE		(GFP_TRANSHUGE_LIGHT | __GFP_DIRECT_RECLAIM)

#endif
