// SPDX-License-Identifier: MIT
/*
 * The header compile check as C++: headers-check.c built by the C++
 * compiler with -Werror as C++11, 14, 17 and 20, so a C++ port can include
 * the headers too (and DECLARE_SEQ_BUF takes its C++ form).
 */
#include "headers-check.c"
