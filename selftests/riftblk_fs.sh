#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 600
#
# A file system on riftblk: mkfs.ext4 on a mapped null_blk device, mount,
# copy a tree (the Rift sources and a few MiB of random data) in, umount,
# fsck -n finds it clean, mount again and every file's checksum matches
# the original.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root
command -v mkfs.ext4 >/dev/null || ktap_skip_all "mkfs.ext4 not installed"

NB=riftnb2
W=/tmp/riftblk_fs
ktap_header
ktap_plan 10

# sums DIR: "checksum relative-path" of every file under DIR, sorted.
sums()
{
	(cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
}

mkdir -p "$W/src" "$W/mnt"
defer rm -rf "$W"
ktap_check "one rxe link" rift_rxe_pairs 1
ktap_check "modules load" riftblk_up
ktap_check "null_blk backing device, 256 MiB" riftblk_nullb $NB 256
dev=$(riftblk_map "sessname=fs path=198.18.0.2@198.18.0.1 device_path=/dev/$NB")
ktap_check "mapped: $dev" test -b "$dev"

cp -a "$RIFT_TREE/rift" "$RIFT_TREE/include" "$RIFT_TREE/Documentation" "$W/src/"
for i in 1 2 3; do
	riftblk_pattern "$W/src/blob$i" $((i * 3)) "fs$i"
done
sums "$W/src" > "$W/src.sums"
ktap_info "tree: $(wc -l < "$W/src.sums") files, $(du -sh "$W/src" | cut -f1)"

ktap_check "mkfs.ext4" mkfs.ext4 -q -F "$dev"
ktap_check "mount, copy the tree in, umount" \
	eval "mount $dev $W/mnt && cp -a $W/src/. $W/mnt/ && umount $W/mnt"
ktap_check "fsck.ext4 -n -f: clean" fsck.ext4 -n -f "$dev"
ktap_check "mount again: every checksum matches" \
	eval "mount -o ro $dev $W/mnt && sums $W/mnt | grep -v lost+found > $W/dst.sums &&
	      umount $W/mnt && cmp $W/src.sums $W/dst.sums"
ktap_check "unmap" riftblk_unmap "$dev"
ktap_check "the backing device holds the file system too" \
	fsck.ext4 -n -f /dev/$NB
ktap_finished
