#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 900
#
# riftblk's data path: a memory-backed null_blk device exported by
# riftblk-server is mapped over a two-path session.  fio writes and
# verifies (crc32c) random reads and writes of 512 B..1 MiB at queue
# depths 1, 16 and 128 from two jobs (both CPUs) with zero errors; dd
# writes a pattern that reads back identical through riftblk and on the
# backing device itself; both paths carried IO; requests that fio
# submits 16 at a time (one blk-mq dispatch) share ib_post_send() calls,
# counted by the paths' stats/posts; the server's worker, which submits
# to this device (memory-backed null_blk may sleep), posts the answers
# of the requests it completes while it submits together (the server
# paths' stats/rsp_batched); on a device whose driver does not sleep
# (null_blk without memory) the server submits the requests in the
# transport's CQ work itself (REQ_NOWAIT), its worker (counted by a
# kprobe) never woken, the answers given there wait for the end of the
# CQ run and share its post, and a 4 KiB read or write at QD1 costs the wire
# the packets of its data plus 3 or 4 (rxe's sent_pkts: a read's answer
# rides on its data, a write's header on its payload); a
# device with one tag held 200 us refuses many of the CQ work's bios,
# which the worker submits again, every read done; a loop device, also
# submitted to in the CQ work, carries verified fio; a second device
# whose driver completes requests in hard interrupt context (as
# virtio_blk and NVMe do: null_blk's timer mode) carries verified fio
# too, its answers sent from there; a device with two tags whose driver
# may sleep (memory-backed null_blk, so the worker submits to it) makes
# the worker sleep for one in the middle of a run, and the IOs queued
# behind it go to work items of their own (counted by a kprobe) while
# verified fio runs on it; unmapping leaves no device and no session
# behind.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root
command -v fio >/dev/null || ktap_skip_all "fio not installed"

S=bio
NB=riftnb0
OUT=/tmp/riftblk_io
ktap_header
ktap_plan 41

mkdir -p "$OUT"
ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules load" riftblk_up
ktap_check "null_blk backing device, 256 MiB" riftblk_nullb $NB 256
dev=$(riftblk_map "sessname=$S path=198.18.0.2@198.18.0.1 path=198.18.1.2@198.18.1.1 device_path=/dev/$NB")
ktap_check "map over a two-path session: $dev" test -b "$dev"
ktap_info "state $(cat "$(riftblk_sysfs "$dev" state)") session $(cat "$(riftblk_sysfs "$dev" session)") path $(cat "$(riftblk_sysfs "$dev" mapping_path)") mode $(cat "$(riftblk_sysfs "$dev" access_mode)")"
ktap_check "client sysfs: mapped, session, mapping_path, access_mode" \
	eval "[ \"\$(cat $(riftblk_sysfs "$dev" state))\" = mapped ] &&
	      [ \"\$(cat $(riftblk_sysfs "$dev" session))\" = $S ] &&
	      [ \"\$(cat $(riftblk_sysfs "$dev" mapping_path))\" = /dev/$NB ] &&
	      [ \"\$(cat $(riftblk_sysfs "$dev" access_mode))\" = rw ]"
ktap_check "size is the backing device's" \
	test "$(blockdev --getsize64 "$dev")" = "$(blockdev --getsize64 /dev/$NB)"
ktap_check "server lists the mapping: $NB/sessions/$S rw" \
	test "$(cat $RIFTBLK_SRV_SYSFS/$NB/sessions/$S/access_mode 2>/dev/null)" = rw

# fio_run NAME DEPTH SIZE: randrw, verified, two jobs on disjoint halves.
fio_run()
{
	local name=$1 depth=$2 size=$3 rc
	fio --name="$name" --filename="$dev" --direct=1 --ioengine=libaio \
		--rw=randrw --bssplit=512/10:4k/30:64k/20:128k/20:1m/20 \
		--iodepth="$depth" --numjobs=2 --size="$size" --offset_increment=128M \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --group_reporting \
		--output-format=json --output="$OUT/$name.json" > "$OUT/$name.out" 2>&1
	rc=$?
	[ $rc = 0 ] || tail -n 5 "$OUT/$name.out" | while read -r l; do ktap_info "fio: $l"; done
	riftblk_fio_rw_report "$OUT/$name.json" "$rc" > "$OUT/$name.res"
	local prc=$?
	ktap_info "$(cat "$OUT/$name.res")"
	[ $rc = 0 ] && [ $prc = 0 ]
}

ktap_check "fio randrw 512B..1MiB, iodepth 1, 2 jobs, crc32c verified" fio_run qd1 1 8M
ktap_check "fio randrw 512B..1MiB, iodepth 16, 2 jobs, crc32c verified" fio_run qd16 16 32M
ktap_check "fio randrw 512B..1MiB, iodepth 128, 2 jobs, crc32c verified" fio_run qd128 128 32M

riftblk_pattern "$OUT/pat" 16 rift
ok=0
if dd if="$OUT/pat" of="$dev" bs=1M oflag=direct status=none &&
   dd if="$dev" of="$OUT/back" bs=1M count=16 iflag=direct status=none &&
   dd if=/dev/$NB of="$OUT/nb" bs=1M count=16 iflag=direct status=none; then
	cmp "$OUT/pat" "$OUT/back" && cmp "$OUT/pat" "$OUT/nb" && ok=1
fi
ktap_check "dd pattern reads back identical through riftblk and on $NB" test $ok = 1

# posts_reqs: "POSTS REQUESTS BATCHED" of the session: the client's
# ib_post_send calls and requests, both paths summed, and the answers
# the server posted behind another in one post, all its paths summed.
posts_reqs()
{
	local p posts=0 reqs=0 batched=0
	for p in "$RIFTBLK_P0" "$RIFTBLK_P1"; do
		posts=$((posts + $(rift_clt_stat $S "$p" posts)))
		reqs=$((reqs + $(rift_clt_stat $S "$p" reqs_read) + $(rift_clt_stat $S "$p" reqs_write)))
	done
	for p in "$RIFT_SRV_SYSFS/$S"/paths/*/stats/rsp_batched; do
		batched=$((batched + $(cat "$p")))
	done
	echo "$posts $reqs $batched"
}

# fio_batch NAME BATCH DEV: 4 KiB random reads at QD32, fio handing the
# kernel BATCH requests per io_submit (one plug, so one blk-mq dispatch)
# and reaping as many before it submits again; prints "POSTS REQUESTS
# BATCHED" the run added.
fio_batch()
{
	local a b
	read -r -a a <<<"$(posts_reqs)"
	fio --name="$1" --filename="$3" --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=32 --iodepth_batch_submit="$2" \
		--iodepth_batch_complete_min="$2" --numjobs=1 --io_size=8M \
		--size=64M --output="$OUT/$1.out" > /dev/null 2>&1 || return 1
	read -r -a b <<<"$(posts_reqs)"
	echo "$((b[0] - a[0])) $((b[1] - a[1])) $((b[2] - a[2]))"
}

# nullb_cfg NAME TAGS MEMORY IRQMODE NSEC: a null_blk of 64 MiB made
# through configfs with TAGS tags, memory-backed or not (a memory-backed
# one is a BLK_MQ_F_BLOCKING driver in Linux 6.1: it allocates pages in
# queue_rq, so the server submits to it from its worker only), ending
# requests inline (IRQMODE 0) or from a timer NSEC ns later (2); exported.
nullb_cfg()
{
	local d=/sys/kernel/config/nullb/$1
	mkdir "$d" || return 1
	defer riftblk_nullb_del "$1"
	echo 64 > "$d/size" && echo "$3" > "$d/memory_backed" &&
		echo 1 > "$d/submit_queues" && echo "$2" > "$d/hw_queue_depth" &&
		echo "$4" > "$d/irqmode" && echo "$5" > "$d/completion_nsec" &&
		echo 1 > "$d/power" &&
		rift_wait_until 5 test -b "/dev/$1" && riftblk_export "/dev/$1"
}

TR=/sys/kernel/tracing
# worker_probe: count the runs of riftblk-server's per-CPU worker, which
# takes only what cannot be submitted in the transport's CQ work.
worker_probe()
{
	[ -e "$TR/kprobe_events" ] || mount -t tracefs nodev "$TR" 2>/dev/null
	echo 'p:riftblk_worker riftblk_server:riftblk_srv_io_work' >> "$TR/kprobe_events" || return 1
	defer eval "echo 0 > $TR/events/kprobes/riftblk_worker/enable; echo -:riftblk_worker >> $TR/kprobe_events"
}
# worker_count_start, worker_count_stop: the worker's runs in between
# (printed by the stop).
worker_count_start()
{
	echo > "$TR/trace" && echo 1 > "$TR/events/kprobes/riftblk_worker/enable"
}
worker_count_stop()
{
	echo 0 > "$TR/events/kprobes/riftblk_worker/enable"
	grep -c 'riftblk_worker:' "$TR/trace"
}
ktap_check "a kprobe on the server's worker" worker_probe

# The memory-backed null_blk is a driver that may sleep (Linux 6.1 makes
# it BLK_MQ_F_BLOCKING), so the server's worker submits to it, under a
# plug, and answers what completes meanwhile together.
batch_ok=0
if one=$(fio_batch qd32-b1 1 "$dev") && many=$(fio_batch qd32-b16 16 "$dev"); then
	batch_ok=1
fi
read -r one_p one_r one_b <<<"$one"
read -r many_p many_r many_b <<<"$many"
ktap_info "QD32 4k randread, ib_post_send calls / requests: 1 per io_submit $one_p / $one_r, 16 per io_submit $many_p / $many_r"
ktap_info "QD32 4k randread, answers the server posted behind another: 1 per io_submit $one_b / $one_r, 16 per io_submit $many_b / $many_r"
ktap_check "fio 4k randread QD32, 1 and 16 requests per io_submit" test $batch_ok = 1
# One post per dispatch and connection: 16 requests over two paths are
# two posts; at least half the posts saved leaves room for migrations.
ktap_check "16 requests per io_submit: at most one ib_post_send per 2 requests" \
	test "${many_r:-0}" -gt 0 -a $((2 * ${many_p:-0})) -le "${many_r:-0}"
# The server's side: a dispatch's requests arrive together on a
# connection and null_blk completes them as the worker submits them, so
# most answers share a post (measured: 1813 of 2050); half leaves room
# for the way requests spread over connections and CPUs.
ktap_check "16 requests per io_submit: the server posts at least 1 answer in 2 behind another" \
	test "${many_r:-0}" -gt 0 -a $((2 * ${many_b:-0})) -ge "${many_r:-0}"

# A driver that cannot sleep (null_blk without memory: data not kept, so
# not verified here; the loop device below is): the server submits in
# the transport's CQ work, REQ_NOWAIT, and never wakes its worker.
NBI=${NB}i
ktap_check "null_blk without memory, 64 tags, ending requests as submitted" \
	nullb_cfg "$NBI" 64 0 0 0
devi=$(riftblk_map "sessname=$S path=198.18.0.2@198.18.0.1 path=198.18.1.2@198.18.1.1 device_path=/dev/$NBI")
ktap_check "map it on the same session: $devi" test -b "$devi"
worker_count_start
inl=$(fio_batch qd32-inline 16 "$devi")
wruns=$(worker_count_stop)
read -r _ inl_r inl_b <<<"$inl"
# It never refuses a REQ_NOWAIT bio at QD32 (64 tags, each given back as
# its request ends, inline), so the worker is not woken.  Through the
# worker (the memory-backed device) it ran about once per 10 requests
# (session 31: 350 and 445 runs for 4100); one in 50 leaves room for
# the odd one.
ktap_info "QD32 4k randread: the server's worker ran ${wruns:-?} times for ${inl_r:-?} requests"
ktap_check "the server submitted the reads in its CQ work: worker runs under 1 in 50 requests" \
	test "${inl_r:-0}" -gt 0 -a $((50 * ${wruns:-999999})) -lt "${inl_r:-0}"
# Their answers, given in the CQ work while other requests are in
# progress, wait for the end of the CQ run and share its post
# (rift_srv_resp_hold()); posted one by one, none did.
ktap_info "QD32 4k randread, CQ-work answers posted behind another: ${inl_b:-?} of ${inl_r:-?}"
ktap_check "answers given in the CQ work: at least 1 in 2 posted behind another" \
	test "${inl_r:-0}" -gt 0 -a $((2 * ${inl_b:-0})) -ge "${inl_r:-0}"

# wire_pkts: the packets every rxe device of the VM sent, ACKs included.
wire_pkts()
{
	local f n=0
	for f in /sys/class/infiniband/rxe_*/ports/1/hw_counters/sent_pkts; do
		n=$((n + $(cat "$f")))
	done
	echo $n
}
# pkts_per_io RW: 2000 4 KiB requests of RW at QD1 on $devi; prints the
# packets both links carried per request, in tenths.
pkts_per_io()
{
	local a b
	a=$(wire_pkts)
	fio --name="pk-$1" --filename="$devi" --direct=1 --ioengine=psync \
		--rw="$1" --bs=4k --number_ios=2000 --size=64M \
		--output="$OUT/pk-$1.out" > /dev/null 2>&1 || return 1
	b=$(wire_pkts)
	echo $(((b - a) * 10 / 2000))
}
# Packets per 4 KiB request, with P the packets of 4 KiB at the links'
# MTU: a read is its request (WRITE WITH IMM of the header) and its ACK,
# then the data, which carries the answer's immediate, and its ACK: P+3
# (the answer as a SEND of its own made it P+5).  A write is one WRITE
# WITH IMM of payload and header (P+1 packets, the header spilling into
# one more) and its ACK, then the answer's SEND and its ACK: P+4 (the
# header as a WRITE of its own made it P+5).  Half a packet of room for
# heartbeats and the odd retransmission.
mtu=$(ibv_devinfo -d rxe_riftb0 2>/dev/null | awk '/active_mtu/ { print $2 }')
P=$(((4096 + ${mtu:-4096} - 1) / ${mtu:-4096}))
rdp=$(pkts_per_io randread)
wrp=$(pkts_per_io randwrite)
ktap_info "4 KiB at QD1, MTU ${mtu:-?} ($P packets of data):" \
	"wire packets per read ${rdp:-?}/10, per write ${wrp:-?}/10"
ktap_check "a read's answer rides on its data: at most P+3 packets per 4 KiB read" \
	test -n "$mtu" -a "${rdp:-999}" -le $(((P + 3) * 10 + 5))
ktap_check "a write's header rides with its payload: at most P+4 packets per 4 KiB write" \
	test -n "$mtu" -a "${wrp:-999}" -le $(((P + 4) * 10 + 5))
ktap_check "unmap it" riftblk_unmap "$devi"

p0=$(rift_clt_stat $S "$RIFTBLK_P0" reqs_write)
p1=$(rift_clt_stat $S "$RIFTBLK_P1" reqs_write)
ktap_info "writes per path: $p0 / $p1"
ktap_check "both paths carried writes" test "${p0:-0}" -gt 0 -a "${p1:-0}" -gt 0

# The server answers from the bio's end_io, here in hard interrupt
# context (an hrtimer ends each request): the transport must take the
# answer from there to where it may post it (once, a WARNING in
# __local_bh_enable_ip and a wedged NIC transmit queue on a virtio disk).
NBT=${NB}t
ktap_check "null_blk completing in hard interrupt context (irqmode=2), 64 MiB" \
	riftblk_nullb $NBT 64 0 512 2
devt=$(riftblk_map "sessname=$S path=198.18.0.2@198.18.0.1 path=198.18.1.2@198.18.1.1 device_path=/dev/$NBT")
ktap_check "map it on the same session: $devt" test -b "$devt"
# fio_on NAME DEV BSSPLIT DEPTH: verified randrw, two jobs on disjoint
# 16 MiB ranges of DEV; sets rc (fio's) and prc (the report's).
fio_on()
{
	fio --name="$1" --filename="$2" --direct=1 --ioengine=libaio \
		--rw=randrw --bssplit="$3" --iodepth="$4" --numjobs=2 \
		--size=16M --offset_increment=32M --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --group_reporting --output-format=json \
		--output="$OUT/$1.json" > "$OUT/$1.out" 2>&1
	rc=$?
	riftblk_fio_rw_report "$OUT/$1.json" "$rc" > "$OUT/$1.res"
	prc=$?
}
fio_on hardirq "$devt" 4k/40:64k/30:1m/30 16
ktap_info "$(cat "$OUT/hardirq.res")"
ktap_check "fio randrw 4KiB..1MiB, iodepth 16, 2 jobs, crc32c verified, on it" \
	eval "[ $rc = 0 ] && [ $prc = 0 ]"
ktap_check "unmap it" riftblk_unmap "$devt"

# A device with one tag whose driver does not sleep, each request held
# 200 us (null_blk's timer): the CQ work's REQ_NOWAIT bios find the tag
# taken and are refused, and the worker, woken for each, submits them
# again and waits.  Nothing may be lost, failed or answered twice.
NBR=${NB}r
ktap_check "null_blk without memory, 1 tag, ending requests 200 us later" \
	nullb_cfg "$NBR" 1 0 2 200000
devr=$(riftblk_map "sessname=$S path=198.18.0.2@198.18.0.1 path=198.18.1.2@198.18.1.1 device_path=/dev/$NBR")
ktap_check "map it on the same session: $devr" test -b "$devr"
worker_count_start
rc=0
fio --name=refused --filename="$devr" --direct=1 --ioengine=libaio --rw=randread \
	--bs=4k --iodepth=32 --numjobs=2 --io_size=4M --size=64M --group_reporting \
	--output-format=json --output="$OUT/refused.json" > "$OUT/refused.out" 2>&1 || rc=$?
rruns=$(worker_count_stop)
rios=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; print(j["read"]["total_ios"], j["error"])' "$OUT/refused.json" 2>/dev/null)
ktap_info "refused: fio rc $rc, reads and error: ${rios:-?}; worker runs (refused bios): $rruns"
# 2 jobs x 4 MiB of 4 KiB reads: 2048 IOs, each done, none failed.
ktap_check "fio 4k randread QD32, 2 jobs, on it: all 2048 reads done, none failed, some refused" \
	eval "[ $rc = 0 ] && [ \"$rios\" = '2048 0' ] && [ \"\${rruns:-0}\" -gt 0 ]"
ktap_check "unmap it" riftblk_unmap "$devr"

# The CQ work's submission with data kept: a loop device (blk-mq, its
# driver does not sleep in queue_rq) over a file, verified.
LOOPF=$OUT/loop.img
loop_export()
{
	modprobe loop 2>/dev/null
	truncate -s 64M "$LOOPF" && loop=$(losetup -f --show "$LOOPF") &&
		defer losetup -d "$loop" && riftblk_export "$loop"
}
ktap_check "a loop device over a file, 64 MiB" loop_export
devl=$(riftblk_map "sessname=$S path=198.18.0.2@198.18.0.1 path=198.18.1.2@198.18.1.1 device_path=$loop")
ktap_check "map it on the same session: $devl" test -b "$devl"
worker_count_start
fio_on loop "$devl" 4k/50:64k/30:128k/20 32
ktap_info "$(cat "$OUT/loop.res"); worker runs: $(worker_count_stop)"
ktap_check "fio randrw 4KiB..128KiB, iodepth 32, 2 jobs, crc32c verified, on it" \
	eval "[ $rc = 0 ] && [ $prc = 0 ]"
ktap_check "unmap it" riftblk_unmap "$devl"

# A device with two tags whose driver may sleep, so that the server's
# worker submits to it: the worker takes a run of requests and needs a
# third tag while two are held, so it sleeps in submit_bio.
# Before it does, it posts the answers it holds and hands the requests
# still queued behind it to work items of their own (riftblk_srv_io_one),
# so that a slow device holds up neither its answers nor other IO.
NBS=${NB}s
handoffs()
{
	grep -c 'riftblk_handoff:' "$TR/trace" 2>/dev/null
}
handoff_probe()
{
	[ -e "$TR/kprobe_events" ] || mount -t tracefs nodev "$TR" 2>/dev/null
	echo 'p:riftblk_handoff riftblk_server:riftblk_srv_io_one' >> "$TR/kprobe_events" || return 1
	defer eval "echo 0 > $TR/events/kprobes/riftblk_handoff/enable; echo -:riftblk_handoff >> $TR/kprobe_events"
	echo > "$TR/trace" && echo 1 > "$TR/events/kprobes/riftblk_handoff/enable"
}
ktap_check "null_blk with 2 tags, 64 MiB, and a kprobe on the worker's hand-off" \
	eval "nullb_cfg $NBS 2 1 0 0 && handoff_probe"
devs=$(riftblk_map "sessname=$S path=198.18.0.2@198.18.0.1 path=198.18.1.2@198.18.1.1 device_path=/dev/$NBS")
ktap_check "map it on the same session: $devs" test -b "$devs"
fio_on twotags "$devs" 4k/50:64k/50 32
ho=$(handoffs)
ktap_info "$(cat "$OUT/twotags.res"); requests handed off by a sleeping worker: ${ho:-none}"
ktap_check "fio randrw 4KiB/64KiB, iodepth 32, 2 jobs, crc32c verified, with requests handed off" \
	eval "[ $rc = 0 ] && [ $prc = 0 ] && [ \"\${ho:-0}\" -gt 0 ]"
ktap_check "unmap it" riftblk_unmap "$devs"

ktap_check "unmap" riftblk_unmap "$dev"
ktap_check "nothing left: no device, no session on either end" \
	rift_wait_until 10 eval "[ ! -e $dev ] && [ ! -e $RIFT_CLT_SYSFS/$S ] &&
				 [ ! -e $RIFT_SRV_SYSFS/$S ] && [ ! -e $RIFTBLK_SRV_SYSFS/$NB ]"
rm -f "$OUT/pat" "$OUT/back" "$OUT/nb"
ktap_finished
