/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <asm/byteorder.h>.  Works on either host byte
 * order; the __force casts mirror the kernel so sparse sees the same thing.
 */
#ifndef _RIFT_SHIM_ASM_BYTEORDER_H
#define _RIFT_SHIM_ASM_BYTEORDER_H

#include <linux/types.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define __rift_le16(x)	((u16)(x))
#define __rift_le32(x)	((u32)(x))
#define __rift_le64(x)	((u64)(x))
#define __rift_be16(x)	__builtin_bswap16((u16)(x))
#define __rift_be32(x)	__builtin_bswap32((u32)(x))
#define __rift_be64(x)	__builtin_bswap64((u64)(x))
#elif __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define __rift_le16(x)	__builtin_bswap16((u16)(x))
#define __rift_le32(x)	__builtin_bswap32((u32)(x))
#define __rift_le64(x)	__builtin_bswap64((u64)(x))
#define __rift_be16(x)	((u16)(x))
#define __rift_be32(x)	((u32)(x))
#define __rift_be64(x)	((u64)(x))
#else
#error "unknown byte order"
#endif

#define cpu_to_le16(x)	((__force __le16)__rift_le16(x))
#define cpu_to_le32(x)	((__force __le32)__rift_le32(x))
#define cpu_to_le64(x)	((__force __le64)__rift_le64(x))
#define le16_to_cpu(x)	__rift_le16((__force u16)(__le16)(x))
#define le32_to_cpu(x)	__rift_le32((__force u32)(__le32)(x))
#define le64_to_cpu(x)	__rift_le64((__force u64)(__le64)(x))
#define cpu_to_be16(x)	((__force __be16)__rift_be16(x))
#define cpu_to_be32(x)	((__force __be32)__rift_be32(x))
#define cpu_to_be64(x)	((__force __be64)__rift_be64(x))
#define be16_to_cpu(x)	__rift_be16((__force u16)(__be16)(x))
#define be32_to_cpu(x)	__rift_be32((__force u32)(__be32)(x))
#define be64_to_cpu(x)	__rift_be64((__force u64)(__be64)(x))

#endif /* _RIFT_SHIM_ASM_BYTEORDER_H */
