#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 300
#
# A hostile riftblk server against the kernel riftblk client.
# tools/peer/rift-evil -B serves a 4 MiB RAM device over Rift; on paths
# that come in over its bad address (198.18.1.1) it breaks the device
# limits it sends, as one case says (see rift-evil.c):
#  - OPEN_RSP with a bad logical block size, a size that is no whole
#    number of blocks, max_hw_sectors 0, a discard granularity that is
#    not a power of two or is 2^31 (either would make blkdiscard, mkfs
#    and fstrim loop for good in 6.1's discard splitting), or a length
#    field shorter than the message: the map is refused with EBADMSG,
#    the kernel log says why, no disk and no session are left;
#  - a valid OPEN_RSP, then INFO_RSPs (size polls) with a bad discard
#    granularity and twice the size: the mapped disk keeps its limits
#    and size, blkdiscard on it returns, its data stay right.
# The same server over the good address maps, takes IO read back and
# compared, and discards (read back as zeroes where data was).
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

evil=$RIFT_TREE/tools/peer/rift-evil
[ -x "$evil" ] || ktap_skip_all "tools/peer/rift-evil not built (make -C tools/peer)"

PORT=7690
S=hbsrv
OUT=$(mktemp -d)
defer rm -rf "$OUT"
SECTORS=8192

OPEN_CASES="rb_lbs rb_sectors rb_max_hw rb_dgran rb_dgran_huge rb_short"

ktap_header
ktap_plan $((2 + 5 + 3 * 6 + 6 + 1))

evil_start()
{
	rift_evil_start "$OUT/evil.log" -B -p $PORT -t 200 "$@"
}
defer rift_evil_stop

# map ADDR: map rift-evil's device over one path from ADDR's link.
map()
{
	riftblk_map "sessname=$S path=$1 port=$PORT device_path=/dev/evil0"
}

# nothing_left: no riftblk disk, no client session.
nothing_left()
{
	[ -z "$(ls /sys/block | grep riftblk)" ] &&
		rift_wait_until 10 eval "[ -z \"\$(ls $RIFT_CLT_SYSFS)\" ]"
}

# data_ok DEV SEED: 1 MiB of a pattern written at 1 MiB, read back into a
# file that held another pattern, compared.
data_ok()
{
	riftblk_pattern "$OUT/w" 1 "$2" &&
		riftblk_pattern "$OUT/r" 1 $(($2 + 100)) &&
		dd if="$OUT/w" of="$1" bs=64k seek=16 oflag=direct status=none &&
		dd if="$1" of="$OUT/r" bs=64k skip=16 count=16 iflag=direct conv=notrunc status=none &&
		cmp -s "$OUT/w" "$OUT/r"
}

# discard_ok DEV: blkdiscard of the pattern returns within 30 s and the
# range reads back as zeroes.
discard_ok()
{
	timeout 30 blkdiscard -o $((1 << 20)) -l $((1 << 20)) "$1" &&
		head -c $((1 << 20)) /dev/zero > "$OUT/z" &&
		dd if="$1" of="$OUT/r" bs=64k skip=16 count=16 iflag=direct status=none &&
		cmp -s "$OUT/z" "$OUT/r"
}

queue_attr()
{
	cat "/sys/block/$(basename "$1")/queue/$2"
}

ktap_check "two rxe links" rift_rxe_pairs 2
# No riftblk server here: rift-evil is the server.  Size polls every
# 300 ms, so rb_info_dgran's INFO_RSPs come within the test's time.
ktap_check "client modules load" \
	eval "rift_insmod rift/rift-core && defer rift_unload_all &&
	      rift_insmod rift/rift-client && rift_insmod riftblk/riftblk-client size_poll_ms=300 &&
	      defer riftblk_unmap_all"

# A well-formed server.
evil_start -c none
dev=$(map 198.18.0.2@198.18.0.1)
ktap_check "well-formed server: the device maps: $dev" test -b "$dev"
ktap_info "size $(cat "/sys/block/$(basename "$dev")/size") sectors, discard_granularity $(queue_attr "$dev" discard_granularity), max_hw_sectors_kb $(queue_attr "$dev" max_hw_sectors_kb)"
ktap_check "... with the limits it sent: $SECTORS sectors, discard granularity 4096" \
	eval "[ \$(cat /sys/block/$(basename "$dev")/size) = $SECTORS ] &&
	      [ \$(queue_attr $dev discard_granularity) = 4096 ]"
ktap_check "... 1 MiB written, read back, compared" data_ok "$dev" 3
ktap_check "... blkdiscard returns, the range reads back as zeroes" discard_ok "$dev"
ktap_check "... unmaps, nothing left" eval "riftblk_unmap $dev && nothing_left"
rift_evil_stop

# Broken OPEN_RSPs.
for c in $OPEN_CASES; do
	evil_start -c "$c"
	n0=$(dmesg | wc -l)
	r=$(rift_write "$RIFTBLK_CTL/map_device" \
		"sessname=$S path=198.18.1.2@198.18.1.1 port=$PORT device_path=/dev/evil0")
	why=$(dmesg | tail -n +$((n0 + 1)) | grep -o "OPEN_RSP from the server refused.*" | head -n 1)
	ktap_info "$c: map: '$r'; kernel log: '$why'; rift-evil: $(grep -c "fired $c" "$OUT/evil.log") broken OPEN_RSPs sent"
	ktap_check "$c: rift-evil sent its broken OPEN_RSP" grep -q "fired $c: OPEN_RSP" "$OUT/evil.log"
	ktap_check "$c: the map is refused with EBADMSG" test "$r" = "Bad message"
	ktap_check "$c: the kernel log says why; no disk, no session left" \
		eval "[ -n \"$why\" ] && nothing_left"
	rift_evil_stop
done

# Broken INFO_RSPs to a mapped disk.
evil_start -c rb_info_dgran
n0=$(dmesg | wc -l)
dev=$(map 198.18.1.2@198.18.1.1)
ktap_check "rb_info_dgran: the valid OPEN_RSP maps: $dev" test -b "$dev"
ktap_check "rb_info_dgran: broken INFO_RSPs answer the size polls" \
	rift_wait_until 20 eval "[ \$(grep -c 'fired rb_info_dgran: INFO_RSP' $OUT/evil.log) -ge 3 ]"
ktap_info "rb_info_dgran: $(grep -c 'fired rb_info_dgran: INFO_RSP' "$OUT/evil.log") broken INFO_RSPs; size $(cat "/sys/block/$(basename "$dev")/size"), discard_granularity $(queue_attr "$dev" discard_granularity); kernel log: '$(dmesg | tail -n +$((n0 + 1)) | grep -o "INFO_RSP from the server refused.*" | head -n 1)'"
ktap_check "rb_info_dgran: the disk keeps its size and discard granularity" \
	eval "[ \$(cat /sys/block/$(basename "$dev")/size) = $SECTORS ] &&
	      [ \$(queue_attr $dev discard_granularity) = 4096 ]"
ktap_check "rb_info_dgran: the kernel log says why" \
	eval "dmesg | tail -n +$((n0 + 1)) | grep -q 'INFO_RSP from the server refused'"
ktap_check "rb_info_dgran: data written, read back, compared; blkdiscard returns" \
	eval "data_ok $dev 5 && discard_ok $dev"
ktap_check "rb_info_dgran: unmaps, nothing left" eval "riftblk_unmap $dev && nothing_left"
rift_evil_stop

ktap_check "modules unload" rift_unload_all
ktap_finished
