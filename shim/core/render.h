/* SPDX-License-Identifier: MIT */
/*
 * The bytes around a line's text for the plain, prefix, dmesg and kmsg
 * formats, with optional time, caller and colour. Pure.
 */
#ifndef PKS_CORE_RENDER_H
#define PKS_CORE_RENDER_H

#include <stddef.h>

#include "core/facts.h"

size_t pks_render_prefix(char *out, const struct pks_render *r);
size_t pks_render_suffix(char *out, const struct pks_render *r);
size_t pks_render_kmsg(char *out, const struct pks_render *r, const char *text, size_t n);
size_t pks_render_kmsg_max(size_t n);
size_t pks_render_room(enum pks_linefmt format, size_t n);

#endif
