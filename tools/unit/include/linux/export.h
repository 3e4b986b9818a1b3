/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/export.h>.  The expansion still names the
 * symbol, so a typo in an EXPORT_SYMBOL_GPL() line fails the unit build too.
 */
#ifndef _RIFT_SHIM_LINUX_EXPORT_H
#define _RIFT_SHIM_LINUX_EXPORT_H

#define EXPORT_SYMBOL_GPL(sym)	_Static_assert(sizeof(&(sym)) != 0, #sym)
#define EXPORT_SYMBOL(sym)	_Static_assert(sizeof(&(sym)) != 0, #sym)

#endif /* _RIFT_SHIM_LINUX_EXPORT_H */
