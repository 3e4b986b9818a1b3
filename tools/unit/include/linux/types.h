/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/types.h>, just enough for the pure Rift
 * codec.  Under sparse (__CHECKER__) the endian types are bitwise exactly
 * as in the kernel, so `make -C tools/unit sparse` catches missing
 * cpu_to_le*() conversions without a kernel tree.
 */
#ifndef _RIFT_SHIM_LINUX_TYPES_H
#define _RIFT_SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __CHECKER__
#define __bitwise	__attribute__((bitwise))
#define __force		__attribute__((force))
#else
#define __bitwise
#define __force
#endif

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;

typedef u16 __bitwise __le16;
typedef u32 __bitwise __le32;
typedef u64 __bitwise __le64;
typedef u16 __bitwise __be16;
typedef u32 __bitwise __be32;
typedef u64 __bitwise __be64;

#endif /* _RIFT_SHIM_LINUX_TYPES_H */
