// SPDX-License-Identifier: GPL-2.0
/*
 * rift-mute's answer to a CON_REQ when it accepts a connection (-i): a
 * valid CON_RSP granting what was asked, built with Rift's own codec.
 * Its own file because the codec is built with the shim headers of
 * tools/unit, which cannot share a file with the verbs headers.
 */
#include <linux/types.h>
#include "rift-proto.h"

#include "mute-rsp.h"

int mute_con_rsp(const void *req_buf, size_t req_len, int first,
		 void *buf, size_t cap)
{
	struct rift_con_req req;
	struct rift_con_rsp rsp = {
		.status		= RIFT_REJ_NONE,
		.chunk_size	= 135168,
		.max_io_size	= 134144,
	};

	if (rift_proto_con_req_decode(req_buf, req_len, &req))
		return -1;
	rsp.version = req.max_version < RIFT_PROTO_VERSION_MAX ?
		      req.max_version : RIFT_PROTO_VERSION_MAX;
	rsp.queue_depth = req.queue_depth;
	rsp.flags = first ? RIFT_CON_RSP_F_NEW_SESSION : 0;
	return rift_proto_con_rsp_encode(&rsp, buf, cap);
}
