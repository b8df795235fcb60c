// SPDX-License-Identifier: MIT
/*
 * sprintf-test's other file: <linux/kernel.h> with PKS_NO_KERNEL_SPRINTF,
 * where snprintf stays the C library's; scnprintf is the kernel's still.
 */
#define PKS_NO_KERNEL_SPRINTF
#include <linux/kernel.h>

int libc_snprintf(char *buf, size_t size, const void *ip);
int libc_scnprintf(char *buf, size_t size, const void *ip);

int libc_snprintf(char *buf, size_t size, const void *ip)
{
	return snprintf(buf, size, "%p", ip) > 0 ? snprintf(buf, size, "%s", "libc") : -1;
}

int libc_scnprintf(char *buf, size_t size, const void *ip)
{
	return scnprintf(buf, size, "%pI4", ip);
}
