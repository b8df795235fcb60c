/* SPDX-License-Identifier: MIT */
/*
 * Byte order as kernel code tests it: exactly one of __LITTLE_ENDIAN and
 * __BIG_ENDIAN is defined, with the matching __*_ENDIAN_BITFIELD, as the
 * kernel's uapi byteorder headers leave them. glibc's <endian.h>, which
 * <time.h>, <stdlib.h> and <sys/types.h> pull in, defines both as numbers,
 * so "#ifdef __BIG_ENDIAN" is true on every host. Every other header here
 * includes this one.
 *
 * <endian.h> is included first: its include guard then keeps any later libc
 * header from defining the other macro again. glibc's own tests
 * (__BYTE_ORDER == __BIG_ENDIAN) still work, the missing macro counting as 0.
 * Thread-safety: preprocessor only.
 */
#ifndef _LINUX_PKS_BYTEORDER_H
#define _LINUX_PKS_BYTEORDER_H

#if defined(__has_include)
#if __has_include(<endian.h>)
#include <endian.h>
#endif
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#undef __LITTLE_ENDIAN
#ifndef __BIG_ENDIAN
#define __BIG_ENDIAN 4321
#endif
#ifndef __BIG_ENDIAN_BITFIELD
#define __BIG_ENDIAN_BITFIELD
#endif
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#undef __BIG_ENDIAN
#ifndef __LITTLE_ENDIAN
#define __LITTLE_ENDIAN 1234
#endif
#ifndef __LITTLE_ENDIAN_BITFIELD
#define __LITTLE_ENDIAN_BITFIELD
#endif
#endif

#endif /* _LINUX_PKS_BYTEORDER_H */
