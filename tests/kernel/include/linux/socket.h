/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/socket.h>: the C library's. */
#ifndef _LINUX_SOCKET_H
#define _LINUX_SOCKET_H

#include <sys/socket.h>

#endif
