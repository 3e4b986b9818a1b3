/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/errno.h>.  libc's <errno.h> itself pulls
 * in <linux/errno.h>, so this shim must not shadow it: hand over to the
 * installed UAPI header, which has the kernel's own numbering (that matters
 * because errno values travel in immediates).
 */
#ifndef _RIFT_SHIM_LINUX_ERRNO_H
#define _RIFT_SHIM_LINUX_ERRNO_H

#include_next <linux/errno.h>

#endif /* _RIFT_SHIM_LINUX_ERRNO_H */
