/* SPDX-License-Identifier: MIT */
/*
 * A line as one JSON object (printk-shim(7) OUTPUTS AND FORMATS), from the
 * same facts the other formats render. Pure: bytes in, bytes out.
 */
#ifndef PKS_CORE_JSON_H
#define PKS_CORE_JSON_H

#include "core/facts.h"

size_t pks_json_line(char *out, const struct pks_render *r, const char *text, size_t n);
size_t pks_json_max(size_t n);

#endif
