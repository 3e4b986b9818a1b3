/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/stddef.h>: NULL, offsetof, true/false. */
#ifndef _RIFT_SHIM_LINUX_STDDEF_H
#define _RIFT_SHIM_LINUX_STDDEF_H

#include <stdbool.h>
#include <stddef.h>

#endif /* _RIFT_SHIM_LINUX_STDDEF_H */
