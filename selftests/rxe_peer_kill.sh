#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: two-vm
# rift-server-restarts: 2
# rift-timeout: 1200
# rift-vm-nic: virtio
#
# The harness's own link under a peer VM's power loss, without Rift: a
# client VM runs user-space RDMA traffic over rxe (rping, a send/RDMA
# READ/RDMA WRITE ping-pong, and ib_write_bw, a stream of 64 KiB RDMA
# WRITEs) to a server VM the host then kills (SIGKILL) and replaces, twice.
# After each kill: the client's RDMA programs must end (their QPs fail
# and are destroyed) within rxe's retry budget, its NIC must keep
# transmitting (a ping to the replacement answers) and new RDMA
# connections to the replacement must work.  soak_kill does the same
# with riftblk on top; this test tells what belongs to the link, qemu and
# rxe from what belongs to Rift.  Not part of make check.
#
# ib_write_bw runs bidirectional (-b): soak_kill's server VM transmits as
# much as it receives (read data), and a VM's virtio-net transmit queue
# was seen to stop under that; the stream runs RIFT_SOAK_PK_STREAM_S
# seconds (default 120) before each kill, and the server must still
# answer pings at its end.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root
role=${1:-}
[ "$role" = server ] || [ "$role" = client ] || ktap_skip_all "needs the two-VM harness"

T=rxe_peer_kill
SRV=198.18.100.1
CLT=198.18.100.2
INC=$RIFT_INCARNATION
KILLS=2

server()
{
	ktap_plan 3
	ktap_check "server $INC: rxe on eth0" rift_rxe_eth0 $SRV
	rping -s -a 0.0.0.0 -P > /dev/null 2>&1 &
	defer kill $!
	ib_write_bw -b -R -s 65536 --run_infinitely -d rxe_eth0 -p 18515 > /dev/null 2>&1 &
	defer kill $!
	ktap_check "server $INC: rping and ib_write_bw listen" \
		rift_wait_until 20 pgrep -x rping
	rift_sync_post $T.ready$INC 1
	rift_wait_until 1300 eval "[ -e '$RIFT_OUT/sync/$T.kill$INC' ] ||
				  [ -e '$RIFT_OUT/sync/$T.done' ]"
	if [ -e "$RIFT_OUT/sync/$T.kill$INC" ]; then
		ktap_info "server $INC: power off"
		rift_server_vm_kill $T
		ktap_check "server $INC: killed by the host" false
	fi
	ktap_check "server $INC: the client is done" test -e "$RIFT_OUT/sync/$T.done"
	__rift_run_deferred
}

killed()
{
	[ "$(cut -d' ' -f1 "$RIFT_OUT/sync/$T.server-killed" 2>/dev/null)" = "$1" ]
}

txq()
{
	echo "tx_packets $(cat /sys/class/net/eth0/statistics/tx_packets) tx_timeout $(cat /sys/class/net/eth0/queues/tx-0/tx_timeout 2>/dev/null) rxe_warn $(dmesg | grep -c 'rxe_pool.c')"
}

client()
{
	local inc k t0 rp bw ms ok

	ktap_plan $((2 + KILLS * 5))
	ktap_check "client: rxe on eth0" rift_rxe_eth0 $CLT
	defer rift_sync_post $T.done 1
	ktap_check "client: server 1 is up" \
		eval "rift_sync_wait $T.ready1 300 && rift_wait_until 20 ping -c 1 -W 1 $SRV >/dev/null"
	for k in $(seq 1 $KILLS); do
		inc=$k
		rping -c -a $SRV -C 100000000 -S 4096 > /dev/null 2>&1 &
		rp=$!
		ib_write_bw -b -R -s 65536 --run_infinitely -d rxe_eth0 -p 18515 $SRV > "$RIFT_OUT/$T.bw$k" 2>&1 &
		bw=$!
		sleep "${RIFT_SOAK_PK_STREAM_S:-120}"
		# perftest's bidirectional stream can stall on rxe by itself
		# (0.00 MB/s lines, no rxe message): reported, not judged.
		ktap_info "client: kill $k: before it, rping $(kill -0 $rp 2>/dev/null && echo running || echo ended)," \
			"ib_write_bw $(kill -0 $bw 2>/dev/null && echo running || echo ended)," \
			"last bandwidth $(awk '$1 == 65536 { b = $4 } END { print b }' "$RIFT_OUT/$T.bw$k") MB/s"
		ktap_check "client: kill $k: the server answers ping after the stream" \
			ping -c 3 -W 2 $SRV
		ktap_info "client: before kill $k: $(txq)"
		t0=$(rift_now_ms)
		rift_sync_post $T.kill$inc 1
		rift_wait_until 120 killed $inc || { ktap_info "not killed"; break; }
		rift_wait_pid 240 $rp
		ms=$(($(rift_now_ms) - t0))
		ktap_info "client: kill $k: rping ended $((ms / 1000)) s after the kill ($(ps -o stat= -p $rp 2>/dev/null))"
		rift_wait_pid 60 $bw
		ms=$(($(rift_now_ms) - t0))
		ktap_check "client: kill $k: rping ended within 240 s ($((ms / 1000)) s)" \
			eval "! kill -0 $rp 2>/dev/null"
		ktap_info "client: kill $k: ib_write_bw $(kill -0 $bw 2>/dev/null && echo "still running (killed now)" || echo ended)"
		ktap_info "client: after kill $k: $(txq)"
		kill -9 $rp $bw 2>/dev/null
		ktap_check "client: kill $k: server $((inc + 1)) up" rift_sync_wait $T.ready$((inc + 1)) 400
		ktap_check "client: kill $k: server $((inc + 1)) answers ping" \
			rift_wait_until 30 ping -c 1 -W 1 $SRV
		ok=0
		timeout 120 rping -c -a $SRV -C 2000 -S 4096 -V > /dev/null 2>&1 || ok=$?
		ktap_check "client: kill $k: rping to server $((inc + 1)): 2000 pings (rc $ok)" \
			test $ok = 0
		ktap_info "client: after kill $k, new traffic: $(txq)"
		# A wedged link fails every later point the same way.
		[ $ok = 0 ] || break
	done
	rift_sync_post $T.done 1
	__rift_run_deferred
}

ktap_header
if [ "$role" = client ]; then
	client
else
	server
fi
ktap_finished
