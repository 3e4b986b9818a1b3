#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 1200
#
# riftblk poll queues: a device mapped with nr_poll_queues=2 over a
# two-path session has two HCTX_TYPE_POLL queues (io_poll 1) and the
# session two poll connections per path.  fio with io_uring IOPOLL
# (--hipri) writes and verifies (crc32c) random reads and writes of
# 4..64 KiB at queue depths 1 and 32 with zero errors, and the paths'
# poll_completions counters prove the completions were reaped by
# rift_clt_poll().  One link goes down and comes back under polled,
# verified IO: zero errors, and the path polls again once it is back.
# A second device on the session may use fewer poll queues, not more:
# more is EINVAL and leaves nothing behind.  Unmapping and unloading are
# clean.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root
command -v fio >/dev/null || ktap_skip_all "fio not installed"
fio --enghelp 2>/dev/null | grep -qw io_uring || ktap_skip_all "fio has no io_uring engine"

S=bpoll
NB=riftnb0
NB2=riftnb1
OUT=$RIFT_OUT/riftblk_poll
CS=$RIFT_CLT_SYSFS/$S
P2="path=198.18.0.2@198.18.0.1 path=198.18.1.2@198.18.1.1"
# Long enough for the link to go down (at 8 s) and come back, and for
# path 1 to poll again before fio ends: that took 20 s in CI (session
# 17); the sanitizer kernel's is slower in proportion.
RUNTIME=$(rift_scaled 30)
ktap_header
ktap_plan 24

# polled SESSPATH: completions rift_clt_poll() reaped on a client path.
polled()
{
	echo $(($(rift_clt_stat $S "$1" poll_completions)))
}

# reqs SESSPATH: requests a client path carried.
reqs()
{
	echo $(($(rift_clt_stat $S "$1" reqs_read) + $(rift_clt_stat $S "$1" reqs_write)))
}

# hctx_types DEV: the type of each hardware queue (debugfs), sorted.
hctx_types()
{
	cat /sys/kernel/debug/block/"$(basename "$1")"/hctx*/type 2>/dev/null | sort | uniq -c |
		awk '{ printf "%s%s=%s", (NR > 1 ? " " : ""), $2, $1 }'
}

# fio_poll NAME DEPTH SIZE: randrw through io_uring with IOPOLL, verified.
fio_poll()
{
	local name=$1 depth=$2 size=$3 rc res
	(cd "$OUT" && fio --name="$name" --filename="$dev" --direct=1 \
		--ioengine=io_uring --hipri=1 --rw=randrw --bsrange=4k-64k \
		--iodepth="$depth" --size="$size" --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --output-format=json --output="$OUT/$name.json" \
		> "$OUT/$name.out" 2>&1)
	rc=$?
	[ $rc = 0 ] || tail -n 5 "$OUT/$name.out" | while read -r l; do ktap_info "fio: $l"; done
	res=$(riftblk_fio_rw_report "$OUT/$name.json" "$rc")
	local prc=$?
	ktap_info "$res"
	[ $rc = 0 ] && [ $prc = 0 ]
}

mkdir -p "$OUT"
ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules load" riftblk_up
ktap_check "null_blk backing devices, 256 and 16 MiB" \
	eval "riftblk_nullb $NB 256 && riftblk_nullb $NB2 16"
dev=$(riftblk_map "sessname=$S $P2 device_path=/dev/$NB nr_poll_queues=2")
ktap_check "map with nr_poll_queues=2 over a two-path session: $dev" test -b "$dev"
QS=/sys/block/$(basename "$dev")/queue
ktap_info "session: nr_cons $(cat $CS/nr_cons) nr_poll_cons $(cat $CS/nr_poll_cons); device nr_poll_queues $(cat "$(riftblk_sysfs "$dev" nr_poll_queues)"); io_poll $(cat "$QS/io_poll"); hctx types: $(hctx_types "$dev")"
ktap_check "sysfs: device nr_poll_queues 2, session nr_poll_cons 2" \
	eval "[ \"\$(cat $(riftblk_sysfs "$dev" nr_poll_queues))\" = 2 ] &&
	      [ \"\$(cat $CS/nr_poll_cons)\" = 2 ]"
ktap_check "queue/io_poll is 1" \
	test "$(cat "$QS/io_poll")" = 1
ktap_check "two HCTX_TYPE_POLL hardware queues" \
	eval "hctx_types $dev | grep -qw 'poll=2'"
srvcons=$(cat $RIFT_SRV_SYSFS/$S/paths/*/con_states 2>/dev/null | head -n 1 | wc -w)
ktap_info "server: $srvcons connections on a path"
ktap_check "the server accepted nr_cons + 2 connections per path" \
	test "$srvcons" = $(($(cat $CS/nr_cons) + 2))
ktap_check "both paths connected; short reconnect backoff" \
	eval "rift_wait_until 20 riftblk_all_connected $S &&
	      echo 500 > $CS/hb_interval_ms && echo 200 > $CS/reconnect_delay_ms &&
	      echo 1000 > $CS/reconnect_delay_max_ms && echo 60000 > $CS/io_timeout_ms"
rc0=$(rift_clt_stat $S "$RIFTBLK_P0" reconnects)
log0=$(dmesg | wc -l)

a0=$(polled "$RIFTBLK_P0")
b0=$(polled "$RIFTBLK_P1")
ktap_check "fio io_uring hipri randrw 4..64k, iodepth 1, crc32c verified" fio_poll qd1 1 8M
ktap_check "fio io_uring hipri randrw 4..64k, iodepth 32, crc32c verified" fio_poll qd32 32 32M
a1=$(polled "$RIFTBLK_P0")
b1=$(polled "$RIFTBLK_P1")
ktap_info "completions reaped by rift_clt_poll per path: $((a1 - a0)) / $((b1 - b0)); by the heartbeat tick: $(rift_clt_stat $S "$RIFTBLK_P0" poll_tick_completions) / $(rift_clt_stat $S "$RIFTBLK_P1" poll_tick_completions)"
ktap_check "polled completions on both paths" test $((a1 - a0)) -gt 0 -a $((b1 - b0)) -gt 0

# A link fails under polled IO; the path comes back and polls again.
fo0=$(cat $CS/failed_over)
riftblk_fio_verify "$dev" failover "$OUT" $RUNTIME --ioengine=io_uring --hipri=1 &
fio_pid=$!
riftblk_sample "$dev" "$OUT/samples" &
smp=$!
defer kill $smp
sleep 8
logd=$(dmesg | wc -l)
ip link set dev riftb1 down
ktap_check "link 1 down under polled IO: path 1 leaves connected" \
	rift_wait_until 20 eval "[ \"\$(rift_path_state $S $RIFTBLK_P1)\" != connected ]"
sleep 5
a2=$(polled "$RIFTBLK_P0")
ktap_check "polled IO goes on over path 0 alone" \
	rift_wait_until 20 eval "[ \$(polled $RIFTBLK_P0) -gt $a2 ]"
b2=$(polled "$RIFTBLK_P1")
rift_link_up riftb1
ktap_check "link 1 up: path 1 reconnects" rift_wait_until 60 riftblk_all_connected $S
logu=$(dmesg | wc -l)
ktap_check "path 1 reaps polled completions again" \
	rift_wait_until 30 eval "! kill -0 $fio_pid 2>/dev/null || [ \$(polled $RIFTBLK_P1) -gt $b2 ]"
rift_wait_pid $((RUNTIME + 240)) $fio_pid
wait $fio_pid
rc=$?
kill $smp 2>/dev/null
res=$(riftblk_fio_report "$OUT/failover.json" $rc)
frc=$?
ktap_info "fio: $res"
[ $frc = 0 ] || tail -n 5 "$OUT/failover.out" | while read -r l; do ktap_info "fio: $l"; done
ktap_info "polled completions per path over the run: $(($(polled $RIFTBLK_P0) - a1)) / $(($(polled $RIFTBLK_P1) - b1)) (path 1 after link up: $(($(polled $RIFTBLK_P1) - b2))); failed_over $(($(cat $CS/failed_over) - fo0)); requests $(reqs $RIFTBLK_P0) / $(reqs $RIFTBLK_P1); IO stalled at most $(riftblk_longest_stall "$OUT/samples") s"
ktap_check "fio io_uring hipri verify across the link failure: zero errors" test $frc = 0
# The surviving path never failed, nor did path 1 before its link went
# down or after it came back (a QP wedged by rxe's REG_MR defect, say,
# would show here): no excuse is taken.
others=$(rift_paths_failed_but $S "$RIFTBLK_P1" "$log0" "$logd" "$logu")
ktap_info "path 0 reconnects: $(($(rift_clt_stat $S "$RIFTBLK_P0" reconnects) - rc0)); paths failed but path 1 while its link was down: ${others:-none}; path 1 then: $(rift_paths_failed $S "$logd" "$logu" | head -n 1)"
ktap_check "path 0 never failed; path 1 only while link 1 was down" \
	eval "[ -z \"\$others\" ] && [ \$(rift_clt_stat $S $RIFTBLK_P0 reconnects) = $rc0 ]"

# Sessions are shared: a second device may use fewer poll queues, not more.
MAP=$RIFTBLK_CTL/map_device
ndev=$(ls -d /sys/block/riftblk* | wc -l)
r=$(rift_write "$MAP" "sessname=$S $P2 device_path=/dev/$NB2 nr_poll_queues=3")
ktap_check "second device asking 3 poll queues of a session with 2: EINVAL" \
	test "$r" = "Invalid argument"
ktap_check "the kernel log says why, nothing left behind" \
	eval "dmesg | grep -q 'nr_poll_queues=3: session $S has 2 poll connections' &&
	      [ \$(ls -d /sys/block/riftblk* | wc -l) = $ndev ] &&
	      [ ! -e $RIFTBLK_SRV_SYSFS/$NB2 ] && [ \"\$(cat $CS/nr_poll_cons)\" = 2 ]"
dev2=$(riftblk_map "sessname=$S $P2 device_path=/dev/$NB2 nr_poll_queues=1")
ktap_check "second device with 1 poll queue on the same session: $dev2" \
	eval "[ -b \"$dev2\" ] && [ \"\$(cat /sys/block/$(basename "$dev2")/queue/io_poll)\" = 1 ] &&
	      fio --name=second --filename=$dev2 --direct=1 --ioengine=io_uring --hipri=1 \
		  --rw=randrw --bsrange=4k-64k --iodepth=8 --size=8M --verify=crc32c \
		  --verify_fatal=1 --output=$OUT/second.out > /dev/null 2>&1"

ktap_check "unmap both" eval "riftblk_unmap $dev2 && riftblk_unmap $dev"
ktap_check "nothing left: no device, no session on either end" \
	rift_wait_until 10 eval "[ ! -e $dev ] && [ ! -e $dev2 ] && [ ! -e $CS ] &&
				 [ ! -e $RIFT_SRV_SYSFS/$S ] && [ ! -e $RIFTBLK_SRV_SYSFS/$NB ]"
ktap_check "modules unload" rift_unload_all
ktap_finished
