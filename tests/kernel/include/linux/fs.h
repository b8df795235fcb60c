/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/fs.h>: fs/libfs.c's memory_read_from_buffer(). */
#ifndef _LINUX_FS_H
#define _LINUX_FS_H

#include <errno.h>
#include <string.h>
#include <sys/types.h>

/* Up to @count bytes of @from (@available long) from *@ppos into @to; *@ppos advances. */
static inline ssize_t memory_read_from_buffer(void *to, size_t count, loff_t *ppos,
					      const void *from, size_t available)
{
	loff_t pos = *ppos;

	if (pos < 0)
		return -EINVAL;
	if ((size_t)pos >= available)
		return 0;
	if (count > available - (size_t)pos)
		count = available - (size_t)pos;
	memcpy(to, (const char *)from + pos, count);
	*ppos = pos + (loff_t)count;
	return (ssize_t)count;
}

#endif
