/* SPDX-License-Identifier: MIT */
/*
 * Applying what the printk-shim command asked of this process
 * (printk-shim(7) RUNTIME CONTROL).
 */
#ifndef PKS_CONTROL_H
#define PKS_CONTROL_H

void pks_control_apply(void);
void pks_control_forked(void);
void pks_control_prepare(void);

#endif
