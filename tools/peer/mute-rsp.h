/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MUTE_RSP_H
#define MUTE_RSP_H

#include <stddef.h>

/*
 * mute_con_rsp() - a CON_RSP accepting the CON_REQ at @req_buf
 * @first: the path's first connection (the CON_RSP says: new session)
 *
 * Return: bytes written to @buf, or a negative value for a CON_REQ that
 * does not decode.
 */
int mute_con_rsp(const void *req_buf, size_t req_len, int first,
		 void *buf, size_t cap);

#endif
