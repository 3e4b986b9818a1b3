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
# backing device's flush counter.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

NB=riftnb3
W=/tmp/riftblk_ops
ktap_header
ktap_plan 19

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
ktap_finished
