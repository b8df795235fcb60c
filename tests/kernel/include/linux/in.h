/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/in.h>: the C library's, and cpu_to_be*(). */
#ifndef _LINUX_IN_H
#define _LINUX_IN_H

#include <arpa/inet.h>
#include <netinet/in.h>

#define cpu_to_be16(x)	htons(x)
#define cpu_to_be32(x)	htonl(x)

#endif
