#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 600
#
# The operations beyond read and write, as the backing device defines
# them: riftblk advertises exactly the backing device's discard, write
# zeroes and write cache; on a loop device over a tmpfs file (which
# discards by punching holes and zeroes by fallocate) a discarded and a
# zeroed range read back as zeros through riftblk and on the loop device
# while the data around them is intact; on a null_blk device without
# discard, blkdiscard is refused; flushes (fsync, O_SYNC) reach the
# backing device's flush counter.  Last, a control request through a
# chunk shortage (memory credits): with every chunk of a session's path
# held by writes a slow backend has not ended and io_timeout_ms 0, a map
# of another device on the session waits for a chunk and succeeds, and
# the writes read back.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

NB=riftnb3
W=/tmp/riftblk_ops
ktap_header
ktap_plan 27

q()
{
	cat "/sys/block/$(basename "$1")/queue/$2"
}

# flushes DEV: flush requests the device completed (16th stat field).
flushes()
{
	awk '{ print $16 }' "/sys/block/$(basename "$1")/stat"
}

# zeros DEV OFF_MB LEN_MB: that range of DEV reads back as zeros.
zeros()
{
	cmp -s -n $(($3 << 20)) <(dd if="$1" bs=1M skip="$2" count="$3" iflag=direct status=none) /dev/zero
}

# same DEV OFF_MB LEN_MB: that range of DEV matches the pattern file.
same()
{
	cmp -s <(dd if="$1" bs=1M skip="$2" count="$3" iflag=direct status=none) \
		<(dd if="$W/pat" bs=1M skip="$2" count="$3" status=none)
}

mkdir -p "$W"
defer rm -rf "$W"
ktap_check "one rxe link" rift_rxe_pairs 1
ktap_check "modules load" riftblk_up
modprobe loop 2>/dev/null
truncate -s 64M "$W/img"
loop=$(losetup -f --show "$W/img")
defer losetup -d "$loop"
ktap_check "loop device over tmpfs, exported: $loop" \
	eval "[ -b $loop ] && riftblk_export $loop"
dev=$(riftblk_map "sessname=ops path=198.18.0.2@198.18.0.1 device_path=$loop")
ktap_check "mapped: $dev" test -b "$dev"

for a in discard_max_hw_bytes write_zeroes_max_bytes write_cache fua logical_block_size physical_block_size rotational; do
	ktap_info "$a: riftblk $(q "$dev" $a) loop $(q "$loop" $a)"
done
ktap_check "discard and write zeroes advertised, as the loop device has them" \
	eval "[ \$(q $dev discard_max_hw_bytes) -gt 0 ] && [ \$(q $loop discard_max_hw_bytes) -gt 0 ] &&
	      [ \$(q $dev write_zeroes_max_bytes) -gt 0 ] && [ \$(q $loop write_zeroes_max_bytes) -gt 0 ]"
ktap_info "scheduler: $(q "$dev" scheduler)"
ktap_check "no I/O scheduler by default (the server's disk has its own)" \
	eval "grep -q '\\[none\\]' /sys/block/$(basename "$dev")/queue/scheduler"
ktap_check "write cache, FUA, block sizes and rotational as the loop device's" \
	eval "for a in write_cache fua logical_block_size physical_block_size rotational; do
		[ \"\$(q $dev \$a)\" = \"\$(q $loop \$a)\" ] || exit 1; done"

riftblk_pattern "$W/pat" 16 ops
ktap_check "write a 16 MiB pattern" \
	dd if="$W/pat" of="$dev" bs=1M oflag=direct status=none
ktap_check "blkdiscard 2 MiB at 4 MiB" blkdiscard -o $((4 << 20)) -l $((2 << 20)) "$dev"
ktap_check "blkdiscard -z 3 MiB at 9 MiB" blkdiscard -z -o $((9 << 20)) -l $((3 << 20)) "$dev"
ktap_check "discarded and zeroed ranges read zeros through riftblk" \
	eval "zeros $dev 4 2 && zeros $dev 9 3"
ktap_check "... and on the loop device" eval "zeros $loop 4 2 && zeros $loop 9 3"
ktap_check "the data around them is intact" \
	eval "same $dev 0 4 && same $dev 6 3 && same $dev 12 4"

f0=$(flushes "$loop")
ktap_check "dd oflag=direct,sync and fio with fsync" \
	eval "dd if=$W/pat of=$dev bs=64k count=64 oflag=direct,sync status=none &&
	      (cd $W && fio --name=fsync --filename=$dev --direct=1 --rw=randwrite --bs=4k \
		--size=4M --fsync=4 --verify=crc32c --do_verify=1 --output=$W/fio.out)"
f1=$(flushes "$loop")
ktap_info "loop flushes: $f0 -> $f1"
ktap_check "the flushes reached the backing device" test "$f1" -gt "$f0"
ktap_check "unmap the loop device" riftblk_unmap "$dev"

ktap_check "null_blk without discard" riftblk_nullb $NB 64
nd=$(riftblk_map "sessname=ops2 path=198.18.0.2@198.18.0.1 device_path=/dev/$NB")
ktap_check "mapped, no discard advertised, blkdiscard refused" \
	eval "[ \$(q $nd discard_max_hw_bytes) = 0 ] && ! blkdiscard $nd 2>/dev/null"
ktap_check "unmap" riftblk_unmap "$nd"

# A control request (map, unmap, size poll: riftblk_clt_sync_req()) in a
# chunk shortage.  With memory credits a path can have every chunk it is
# granted in use while permits are free; with io_timeout_ms 0 the
# transport then refuses a request at once (EAGAIN) rather than wait for
# a chunk.  Block IO is requeued; a control request retries every 10 ms
# for up to 10 s (it failed with EAGAIN before).  The budget is 1 MiB
# (pool_mb 1: 7 chunks of the default chunk_size for all paths) and
# credit_floor as many chunks as it holds, so the session's one path is
# granted all of them at admission: no answer can grant more (nothing is
# left in the budget) and no revoke takes any (the path is at its floor).
# A null_blk device whose requests end HOLD s after they arrived holds
# one O_DIRECT write per chunk; a map of $NB on the same session must
# then wait for one of them and succeed, and their data read back.  The
# slow device costs a partition scan when null_blk adds it and another
# when riftblk maps it, each a few reads of HOLD s (three on Debian's
# kernel, one on the sanitizer one).
# riftblk's size poll is off meanwhile: its request, holding a chunk for a
# moment as the writes start, would have one of them requeued and could
# hand its chunk to the map.
SNB=riftnb3s
S=opsc
CS=$RIFT_CLT_SYSFS/$S
SP=/sys/module/rift_server/parameters
PB=/sys/kernel/rift_server/pinned_bytes
POLL=/sys/module/riftblk_client/parameters/size_poll_ms
# Long enough to start the writes in on a slow kernel, well under the
# 10 s a control request retries for.
HOLD=$((1 + $(rift_scaled 2)))
[ $HOLD -le 7 ] || HOLD=7
cs=$(cat $SP/chunk_size)
nfl=$(((1 << 20) / cs))
pm0=$(cat $SP/pool_mb)
cf0=$(cat $SP/credit_floor)
sp0=$(cat $POLL)
defer sh -c "echo $pm0 > $SP/pool_mb; echo $cf0 > $SP/credit_floor; echo $sp0 > $POLL"
ktap_check "nothing pinned; pool_mb 1, credit_floor $nfl (1 MiB of $cs-byte chunks), size_poll_ms 0" \
	eval "rift_wait_until $(rift_scaled 20) eval '[ \$(cat $PB) = 0 ]' &&
	      echo 1 > $SP/pool_mb && echo $nfl > $SP/credit_floor && echo 0 > $POLL"
# null_blk's tag set times a request out after 5 s (its own
# BLK_STS_TIMEOUT, seen on the sanitizer kernel where HOLD is 7 s: the
# held writes failed with ETIMEDOUT): its timeout goes well past HOLD.
ktap_check "null_blk $SNB ending each request $HOLD s after it came (timeout $((HOLD * 4)) s), exported" \
	eval "riftblk_nullb $SNB 16 0 512 2 $((HOLD * 1000000000)) &&
	      echo $((HOLD * 4000)) > /sys/block/$SNB/queue/io_timeout"
adev=$(riftblk_map "sessname=$S path=198.18.0.2@198.18.0.1 device_path=/dev/$SNB")
defer riftblk_unmap_all
g=$(cat "$CS"/paths/*/granted 2>/dev/null)
g=${g:-0}
sg=$(cat "$RIFT_SRV_SYSFS/$S"/paths/*/granted 2>/dev/null)
ktap_info "session $S: ${adev:-not mapped}; granted $g (server ${sg:-none}), pinned $(cat $PB) bytes"
ktap_check "mapped on session $S: $adev; its path holds $nfl chunks on both sides, the budget no more" \
	eval "[ -b '$adev' ] && [ $g = $nfl ] && [ '$sg' = $nfl ] &&
	      [ \$((\$(cat $PB) + $cs)) -gt $((1 << 20)) ]"

# all_busy: every granted chunk holds a write, on the client and at the
# server's backend.
all_busy()
{
	[ "$(cat "$CS"/paths/*/stats/inflight)" = "$g" ] &&
	[ "$(cat "$RIFT_SRV_SYSFS/$S"/paths/*/stats/inflight)" = "$g" ]
}
io0=$(cat "$CS/io_timeout_ms" 2>/dev/null)
defer eval "echo $io0 > $CS/io_timeout_ms"
riftblk_pattern "$W/spat" 1 shortage
pids=()
t_io=${EPOCHREALTIME/./}
if [ -b "$adev" ] && echo 0 > "$CS/io_timeout_ms"; then
	# 4 KiB each from 1 MiB on, 4 KiB apart: nothing merges them.
	for ((i = 0; i < g; i++)); do
		dd if="$W/spat" of="$adev" bs=4k count=1 skip=$i seek=$((256 + 2 * i)) \
			oflag=direct status=none &
		pids+=($!)
	done
fi
ktap_check "io_timeout_ms 0; $g O_DIRECT writes take every chunk: $g in flight on the client and at the server" \
	eval "[ \"\$(cat $CS/io_timeout_ms)\" = 0 ] && [ $g -gt 0 ] && rift_wait_until $HOLD all_busy"
# The writes reached null_blk between t_io and now.
t_busy=${EPOCHREALTIME/./}

t_map=${EPOCHREALTIME/./}
bdev=$(riftblk_map "sessname=$S path=198.18.0.2@198.18.0.1 device_path=/dev/$NB")
t_end=${EPOCHREALTIME/./}
map_ms=$(((t_end - t_map) / 1000))
# No write can end before HOLD s after t_io: the map cannot have a chunk
# sooner.  Each has ended by HOLD s after t_busy: the map, waiting for
# the first, must have one soon after, not wait for something else; and
# within the 10 s a control request retries for, or the kernel fails it.
# (A fixed 10 s left the sanitizer kernel, whose HOLD alone is 7 s,
# 2.5 s: its maps took 7.4 and 7.5 s, sessions 22 and 23.)
left_ms=$(((t_io + HOLD * 1000000 - t_map) / 1000))
most_ms=$(((t_busy + HOLD * 1000000 - t_map) / 1000 + $(rift_scaled 2000)))
[ $most_ms -le 10000 ] || most_ms=10000
ktap_info "map of /dev/$NB: ${bdev:-failed} after $map_ms ms; $left_ms ms of the writes' hold were left at least, $((most_ms - $(rift_scaled 2000))) at most"
ktap_check "a map on the same session meanwhile succeeds: $bdev" test -b "$bdev"
ktap_check "... after waiting for a write's chunk: $map_ms ms, at least the $left_ms ms left (over 500), under $most_ms ms" \
	eval "[ $left_ms -gt 500 ] && [ $map_ms -ge $((left_ms - 100)) ] && [ $map_ms -lt $most_ms ]"

# held_done: the writes ended well, and read back (one read of 8 KiB per
# write, a single request).
held_done()
{
	local p i rc=0

	for p in "${pids[@]}"; do
		rift_wait_pid "$(rift_scaled 30)" "$p" || rc=1
	done
	[ $rc = 0 ] && [ "$g" -gt 0 ] && [ ${#pids[@]} = "$g" ] || return 1
	dd if="$adev" of="$W/sback" bs=$((8 * g))k count=1 skip=$((1 << 20)) \
		iflag=direct,skip_bytes status=none || return 1
	for ((i = 0; i < g; i++)); do
		cmp -s -n 4096 -i $((2 * i * 4096)):$((i * 4096)) "$W/sback" "$W/spat" || return 1
	done
}
ktap_check "the $g held writes end well and read back" held_done

# unmap_opsc: both devices unmapped, io_timeout_ms back; the session
# closes on the server and gives its chunks back.
unmap_opsc()
{
	echo "$io0" > "$CS/io_timeout_ms" || return 1
	{ [ ! -b "$bdev" ] || riftblk_unmap "$bdev"; } && riftblk_unmap "$adev" &&
	rift_wait_until "$(rift_scaled 20)" eval "[ ! -e $RIFT_SRV_SYSFS/$S ] && [ \$(cat $PB) = 0 ]"
}
ktap_check "both unmapped, io_timeout_ms back to $io0: the server closed the session, nothing pinned" \
	unmap_opsc
echo "$pm0" > $SP/pool_mb
echo "$cf0" > $SP/credit_floor
echo "$sp0" > $POLL
ktap_finished
