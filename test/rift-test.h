/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rift test ULP: what its client (rift-test.ko) and server
 * (rift-test-srv.ko) agree on.  Testing only.
 */
#ifndef _RIFT_TEST_H
#define _RIFT_TEST_H

#include <linux/types.h>

#define RIFT_TEST_MAGIC		0x54534552U	/* "REST" */

/**
 * struct rift_test_hdr - ULP header of every request
 * @magic: %RIFT_TEST_MAGIC
 * @len: data bytes, as the request carries them
 * @offset: where in the server's store
 */
struct rift_test_hdr {
	__le32	magic;
	__le32	len;
	__le64	offset;
};

#endif /* _RIFT_TEST_H */
