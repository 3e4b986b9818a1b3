#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 120
#
# The test bed itself: two Soft-RoCE links over veth pairs come up ACTIVE,
# rdma_cm connects across each and the traffic really crosses the veth
# (so a later test can cut one link and not the other), and the links go
# away cleanly.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root
command -v rping >/dev/null || ktap_skip_all "rping (rdmacm-utils) not installed"

LINKS=2
ktap_header
ktap_plan $((2 + LINKS * 3 + 1))

ktap_check "rxe and veth modules load" rift_rxe_prepare
ktap_check "create $LINKS rxe links" rift_rxe_pairs $LINKS

rx_bytes()
{
	cat "/sys/class/net/$1/statistics/rx_bytes"
}

for ((i = 0; i < LINKS; i++)); do
	a=rifta$i
	b=riftb$i
	ktap_check "link $i: both rxe ports ACTIVE" \
		rift_wait_until 10 eval "rift_rdma_link_active rxe_$a && rift_rdma_link_active rxe_$b"
	before=$(rx_bytes "$a")
	timeout 30 rping -s -a "198.18.$i.1" -C 3 > "/tmp/rping-s$i.log" 2>&1 &
	spid=$!
	# The client connects once the server listens: rdma_cm lists its
	# cm_id as LISTEN then.  (A fixed second was a guess at how long the
	# server takes to start.)
	rift_wait_until "$(rift_scaled 10)" eval "rdma res show cm_id 2>/dev/null |
		grep -q 'LISTEN.*comm rping.*src-addr 198.18.$i.1:'" ||
		ktap_info "no listening rping cm_id: $(rdma res show cm_id 2>&1 | head -n 3)"
	ok=0
	timeout 30 rping -c -a "198.18.$i.1" -I "198.18.$i.2" -C 3 -v \
		> "/tmp/rping-c$i.log" 2>&1 && ok=1
	wait $spid || ok=0
	[ "$(grep -c 'ping data' "/tmp/rping-c$i.log")" -eq 3 ] || ok=0
	[ $ok -eq 1 ] || sed 's/^/# /' "/tmp/rping-c$i.log" "/tmp/rping-s$i.log"
	ktap_check "link $i: rping over rdma_cm, 3 round trips verified" test $ok -eq 1
	after=$(rx_bytes "$a")
	ktap_check "link $i: traffic crossed the veth ($before -> $after bytes)" \
		test "$after" -gt "$before"
done

__rift_run_deferred
ktap_check "links removed cleanly" eval '! rdma link show | grep -q rxe_rift'
ktap_finished
