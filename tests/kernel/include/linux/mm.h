/* SPDX-License-Identifier: MIT */
/*
 * The kernel test harness's <linux/mm.h>: the page and VMA flag layout of
 * an x86_64 6.1 build (page-flags-layout.h, page-flags.h, mm.h) that
 * test_printf's %pGp and %pGv cases name; printk-shim's engine prints no
 * flag names (see expected-failures).
 */
#ifndef _LINUX_MM_H
#define _LINUX_MM_H

enum pageflags {
	PG_locked, PG_referenced, PG_uptodate, PG_dirty, PG_lru, PG_active,
	PG_workingset, PG_waiters, PG_error, PG_slab, PG_owner_priv_1, PG_arch_1,
	PG_reserved, PG_private, PG_private_2, PG_writeback, PG_head, PG_mappedtodisk,
	PG_reclaim, PG_swapbacked, PG_unevictable, PG_mlocked, PG_uncached, PG_hwpoison,
	NR_PAGEFLAGS
};

#define SECTIONS_WIDTH		0
#define SECTIONS_PGSHIFT	0
#define SECTIONS_MASK		0
#define ZONES_WIDTH		3
#define NODES_WIDTH		10
#define LAST_CPUPID_WIDTH	0
#define KASAN_TAG_WIDTH		0
#define NODES_PGSHIFT		(64 - NODES_WIDTH)
#define ZONES_PGSHIFT		(NODES_PGSHIFT - ZONES_WIDTH)
#define LAST_CPUPID_PGSHIFT	0
#define KASAN_TAG_PGSHIFT	0
#define NODES_MASK		((1 << NODES_WIDTH) - 1)
#define ZONES_MASK		((1 << ZONES_WIDTH) - 1)
#define LAST_CPUPID_MASK	0
#define KASAN_TAG_MASK		0
#define PAGEFLAGS_MASK		((1UL << NR_PAGEFLAGS) - 1)

#define VM_READ		0x00000001UL
#define VM_WRITE	0x00000002UL
#define VM_EXEC		0x00000004UL
#define VM_SHARED	0x00000008UL
#define VM_MAYREAD	0x00000010UL
#define VM_MAYWRITE	0x00000020UL
#define VM_MAYEXEC	0x00000040UL

#endif
