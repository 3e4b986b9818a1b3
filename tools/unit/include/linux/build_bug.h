/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/build_bug.h>.  static_assert() takes an
 * optional message like the kernel's, BUILD_BUG_ON() breaks the build when
 * its condition is true.
 */
#ifndef _RIFT_SHIM_LINUX_BUILD_BUG_H
#define _RIFT_SHIM_LINUX_BUILD_BUG_H

#undef static_assert
#define static_assert(expr, ...)	__rift_static_assert(expr, ##__VA_ARGS__, #expr)
#define __rift_static_assert(expr, msg, ...)	_Static_assert(expr, msg)

#define BUILD_BUG_ON(cond)	((void)sizeof(char[1 - 2 * !!(cond)]))

#endif /* _RIFT_SHIM_LINUX_BUILD_BUG_H */
