/* SPDX-License-Identifier: MIT */
/*
 * Level markers: the leading run of KERN_SOH pairs and legacy "<N>" tokens
 * at the start of a formatted fragment, and the level names. Pure.
 */
#ifndef PKS_LEVEL_H
#define PKS_LEVEL_H

#include <stdbool.h>
#include <stddef.h>

#define PKS_LEVEL_NONE	(-1)
#define PKS_LEVEL_MAX	7
/*
 * A KERN_DEBUG line that dynamic debug turned off: past every level the
 * filter lets through; the record buffer keeps it at PKS_LEVEL_MAX.
 */
#define PKS_LEVEL_OFF	(PKS_LEVEL_MAX + 1)

#define PKS_M_LEVEL	0x1u	/* a digit marker was seen */
#define PKS_M_CONT	0x2u	/* KERN_CONT: SOH 'c' or "<c>" */
#define PKS_M_DEFAULT	0x4u	/* KERN_DEFAULT of 3.6-5.0 headers: SOH 'd' or "<d>" */

struct pks_mark {
	int level;		/* first digit of the run, or PKS_LEVEL_NONE */
	unsigned int flags;	/* PKS_M_* */
};

size_t pks_level_parse(const char *s, size_t n, bool legacy, struct pks_mark *m);
size_t pks_level_marked(const char *s, bool legacy);
int pks_level_from_name(const char *s);
const char *pks_level_name(int level);

#endif
