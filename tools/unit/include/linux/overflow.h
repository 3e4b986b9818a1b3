/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/overflow.h>.  Same contract as the
 * kernel: true if the result wrapped, *d holds the wrapped result.
 */
#ifndef _RIFT_SHIM_LINUX_OVERFLOW_H
#define _RIFT_SHIM_LINUX_OVERFLOW_H

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_sub_overflow(a, b, d)	__builtin_sub_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

#endif /* _RIFT_SHIM_LINUX_OVERFLOW_H */
