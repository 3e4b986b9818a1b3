#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: two-vm
# rift-timeout: 120
#
# The two-VM topology: a server VM and a client VM, each with rxe on its
# NIC, joined by a qemu socket netdev; rdma_cm connects across.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root
role=${1:-}
[ "$role" = server ] || [ "$role" = client ] || ktap_skip_all "needs the two-VM harness"
command -v rping >/dev/null || ktap_skip_all "rping (rdmacm-utils) not installed"

SRV=198.18.100.1
CLT=198.18.100.2
ktap_header
ktap_plan 3

if [ "$role" = server ]; then
	ktap_check "server: rxe on eth0" rift_rxe_eth0 $SRV
	timeout 90 rping -s -a $SRV -C 3 > /tmp/rping-s.log 2>&1 &
	spid=$!
	sleep 1
	rift_sync_post two_vm_rping.ready 1
	ktap_check "server: rping server served the client" wait $spid
	rift_sync_wait two_vm_rping.done 60
	ktap_check "server: client reported done" test -e "$RIFT_OUT/sync/two_vm_rping.done"
else
	ktap_check "client: rxe on eth0" rift_rxe_eth0 $CLT
	ok=0
	rift_sync_wait two_vm_rping.ready 90 &&
		rift_wait_until 20 ping -c 1 -W 1 $SRV >/dev/null &&
		timeout 30 rping -c -a $SRV -I $CLT -C 3 -v > /tmp/rping-c.log 2>&1 &&
		[ "$(grep -c 'ping data' /tmp/rping-c.log)" -eq 3 ] && ok=1
	[ $ok -eq 1 ] || sed 's/^/# /' /tmp/rping-c.log 2>/dev/null
	ktap_check "client: rping across VMs, 3 round trips verified" test $ok -eq 1
	rift_sync_post two_vm_rping.done 1
	ktap_pass "client: done posted"
fi
ktap_finished
