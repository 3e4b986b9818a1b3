#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 600
#
# A request's memory stays mapped until its own last WR has completed.
# The server's answer can arrive before the ACK of the request's WRITEs:
# when that ACK is lost, the client's QP sends the request again from its
# pages after its ACK timeout, although the answer has come already.  A
# request handed back at its answer would then be read by the device
# after it was unmapped (an IOMMU fault on real hardware) or after the
# ULP reused its pages.
#
# netem drops 2 % of what the server sends (ACKs and answers alike) while
# fio writes and verifies 4 KiB blocks through riftblk; the ACK timeouts
# are short (ack_timeout 14, about 67 ms) so a lost packet costs little.
# 4 KiB reads are bounced (no fast registration per read: rxe 6.1
# re-executes a queued REG_MR on a retransmission and can wedge the QP).
# Checked: answers did come before their request's send had completed
# (stats/sends_awaited counts them: the window is real on this link);
# fio verifies every block; and no request was handed back with its last
# WR outstanding: rift_clt_req_release() WARNs if one is, which fails the
# test here and in the harness's kernel log check.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root
command -v fio >/dev/null || ktap_skip_all "fio not installed"

S=sendc
NB=riftnb0
OUT=$RIFT_OUT/send_completion
RUNTIME=20
ROUNDS=4
LOSS=2%
ktap_header
ktap_plan 10

mkdir -p "$OUT"
ktap_check "one rxe link" rift_rxe_pairs 1
ktap_check "modules load" riftblk_up
ktap_check "short ACK timeouts (14: about 67 ms) on both ends" \
	eval "echo 14 > /sys/module/rift_client/parameters/ack_timeout &&
	      echo 14 > /sys/module/rift_server/parameters/ack_timeout"
ktap_check "memory-backed null_blk, 64 MiB" riftblk_nullb $NB 64
dev=$(riftblk_map "sessname=$S path=198.18.0.2@198.18.0.1 device_path=/dev/$NB")
ktap_check "map over one path: $dev" \
	eval "test -b '$dev' && rift_wait_until 20 rift_both_connected $S $RIFTBLK_P0"
# Memory credits: the path's chunks are granted (a REG_MR each on the
# server) before the loss begins.
aw=$(rift_clt_stat $S "$RIFTBLK_P0" sends_awaited)
riftblk_fio_verify "$dev" warmup "$OUT" 5 --bsrange=4k-4k --iodepth=8
wrc=$?
log0=$(dmesg | wc -l)
rc0=$(rift_clt_stat $S "$RIFTBLK_P0" reconnects)
a0=$(rift_clt_stat $S "$RIFTBLK_P0" sends_awaited)
frc=0
res=$(riftblk_fio_report "$OUT/warmup.json" $wrc) || frc=1
ktap_info "without loss: $res"
ktap_info "answers before their send's completion without loss: $((a0 - aw))"
w0=$(rift_clt_stat $S "$RIFTBLK_P0" reqs_write)

modprobe sch_netem
tc qdisc add dev rifta0 root netem loss $LOSS
defer tc qdisc del dev rifta0 root
# About 1 write in 300 sees its answer first at this loss (a later ACK
# covers a lost one): a slow guest (the sanitizer kernel) gets more
# rounds to see one, up to ROUNDS; each round's fio is verified.
for ((round = 1; round <= ROUNDS; round++)); do
	riftblk_fio_verify "$dev" lossy$round "$OUT" $RUNTIME --bsrange=4k-4k --iodepth=8
	rc=$?
	res=$(riftblk_fio_report "$OUT/lossy$round.json" $rc) || frc=1
	ktap_info "fio round $round with $LOSS of the server's packets dropped: $res"
	if [ $frc != 0 ]; then
		tail -n 5 "$OUT/lossy$round.out" | while read -r l; do ktap_info "fio: $l"; done
		break
	fi
	[ "$(rift_clt_stat $S "$RIFTBLK_P0" sends_awaited)" -gt "$a0" ] && break
done
tc qdisc del dev rifta0 root
a1=$(rift_clt_stat $S "$RIFTBLK_P0" sends_awaited)
w1=$(rift_clt_stat $S "$RIFTBLK_P0" reqs_write)
rc1=$(rift_clt_stat $S "$RIFTBLK_P0" reconnects)
ktap_info "writes $((w1 - w0)); answers that came before their request's send had completed:" \
	"$((a1 - a0)); path reconnects $((rc1 - rc0))"
n=$((round > ROUNDS ? ROUNDS : round))
ktap_check "fio verify, no loss then $LOSS: zero errors ($n rounds)" \
	test $frc = 0
ktap_check "answers came before their request's send had completed (sends_awaited $((a1 - a0)))" \
	test $((a1 - a0)) -gt 0
ktap_check "no request handed back with its last WR outstanding (rift_clt_req_release)" \
	eval "! dmesg | tail -n +$((log0 + 1)) | grep -q 'rift_clt_req_release'"
ktap_check "device mapped, path connected" \
	eval "[ \"\$(cat $(riftblk_sysfs "$dev" state))\" = mapped ] &&
	      rift_both_connected $S $RIFTBLK_P0"
ktap_check "unmap" riftblk_unmap "$dev"
ktap_finished
