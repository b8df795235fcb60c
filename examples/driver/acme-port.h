/* SPDX-License-Identifier: MIT */
/*
 * The port's glue, the one file every userspace port of a driver carries:
 * kernel types and helpers the driver uses that are not about logging,
 * then the kernel headers it logs with, all from printk-shim's include/.
 * HZ is defined first, so the ratelimit states count in this port's jiffies.
 */
#ifndef ACME_PORT_H
#define ACME_PORT_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#define HZ	250

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;

#define BIT(n)		(1UL << (n))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#include <linux/kern_levels.h>
#include <linux/printk.h>
#include <linux/ratelimit.h>
#include <linux/seq_buf.h>

static inline void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

#endif /* ACME_PORT_H */
