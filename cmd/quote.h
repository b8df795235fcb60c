/* SPDX-License-Identifier: MIT */
/*
 * A value as the command's messages quote it (printk-shim(1) DIAGNOSTICS):
 * no byte of it ends the line or reaches a terminal as a control sequence.
 */
#ifndef PKS_CMD_QUOTE_H
#define PKS_CMD_QUOTE_H

const char *pks_quote(const char *s);

#endif
