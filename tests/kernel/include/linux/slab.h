/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/slab.h>: malloc(3) and free(3). */
#ifndef _LINUX_SLAB_H
#define _LINUX_SLAB_H

#include <stdlib.h>
#include <linux/gfp.h>

#define kmalloc(size, gfp)		((void)(gfp), malloc(size))
#define kzalloc(size, gfp)		((void)(gfp), calloc(1, size))
#define kcalloc(n, size, gfp)		((void)(gfp), calloc(n, size))
#define kmalloc_array(n, size, gfp)	((void)(gfp), calloc(n, size))
#define kfree(p)			free((void *)(p))

#endif
