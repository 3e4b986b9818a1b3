#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 300
#
# always_invalidate.sh with memory credits off (rift_server credit_floor=0, the
# documented opt-out): every path is granted its whole queue depth at
# connect, so the client's all-granted path (no CREDIT_REQ, no revoke,
# a chunk per permit) runs under the same faults as with credits on.
# rift_insmod checks that the server took the parameter.
RIFT_SRV_PARAMS=credit_floor=0 exec "$(dirname "$0")/always_invalidate.sh" "$@"
