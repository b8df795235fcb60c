// SPDX-License-Identifier: MIT
/* Placeholder until the kernel format engine lands: glibc's vsnprintf. */
#include "format.h"
#include <stdio.h>

int pks_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	return vsnprintf(buf, size, fmt, ap);
#pragma GCC diagnostic pop
}
