/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/string.h>: memcpy, memset, strnlen. */
#ifndef _RIFT_SHIM_LINUX_STRING_H
#define _RIFT_SHIM_LINUX_STRING_H

#include <string.h>

#endif /* _RIFT_SHIM_LINUX_STRING_H */
