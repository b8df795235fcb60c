/* SPDX-License-Identifier: MIT */
/*
 * Taking over printk functions the dynamic linker cannot interpose.
 */
#ifndef PKS_PATCH_H
#define PKS_PATCH_H

void pks_patch_apply(void);

#endif
