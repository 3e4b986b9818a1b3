/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/bits.h>; types match the kernel's. */
#ifndef _RIFT_SHIM_LINUX_BITS_H
#define _RIFT_SHIM_LINUX_BITS_H

#define BITS_PER_LONG		(8 * (int)sizeof(long))
#define BITS_PER_LONG_LONG	64

#define BIT(nr)			(1UL << (nr))
#define BIT_ULL(nr)		(1ULL << (nr))
#define GENMASK(h, l) \
	(((~0UL) - (1UL << (l)) + 1) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define GENMASK_ULL(h, l) \
	(((~0ULL) - (1ULL << (l)) + 1) & (~0ULL >> (BITS_PER_LONG_LONG - 1 - (h))))

#endif /* _RIFT_SHIM_LINUX_BITS_H */
