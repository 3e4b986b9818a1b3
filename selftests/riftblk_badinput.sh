#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 600
#
# riftblk refuses what it must, and leaves nothing behind when it does:
# malformed map_device lines (EINVAL), more poll queues than the
# transport gives a session (EINVAL; riftblk_poll.sh tests the rest), devices
# that do not exist or lie outside the server's dev_search_path (EACCES, as
# everything not exported: riftblk_exports.sh tests exports); a
# read-only mapping refuses writes; a device has one rw mapping at most
# (and one migration mapping); an open device is not unmapped without
# "force"; a mapping force-closed on the server fails IO until remap.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

NB=riftnb1
P="path=198.18.0.2@198.18.0.1"
MAP=$RIFTBLK_CTL/map_device
ktap_header
ktap_plan 28

# nothing_left: no riftblk device, no session on either end.
nothing_left()
{
	[ -z "$(ls /sys/block | grep riftblk)" ] &&
		[ -z "$(ls $RIFT_CLT_SYSFS)" ] &&
		rift_wait_until 10 eval "[ -z \"\$(rift_srv_sessions)\" ]" &&
		[ -z "$(ls $RIFTBLK_SRV_SYSFS)" ]
}

# refused LINE ERRTEXT: the map fails with ERRTEXT and leaves nothing.
refused()
{
	local r
	r=$(rift_write "$MAP" "$1")
	[ "$r" = "$2" ] || { ktap_info "'$1': got '$r', expected '$2'"; return 1; }
	nothing_left || { ktap_info "'$1' left something behind"; return 1; }
}

ktap_check "one rxe link" rift_rxe_pairs 1
ktap_check "modules load, dev_search_path=/dev" riftblk_up dev_search_path=/dev
ktap_check "null_blk backing device, 64 MiB" riftblk_nullb $NB 64

bad=0
for l in "sessname=b $P device_path=/dev/$NB bogus=1" \
	 "sessname=b sessname=c $P device_path=/dev/$NB" \
	 "sessname=b $P device_path=/dev/$NB device_path=/dev/$NB" \
	 "sessname=b $P" \
	 "sessname=b device_path=/dev/$NB" \
	 "$P device_path=/dev/$NB" \
	 "sessname=b $P device_path=/dev/$NB access_mode=rwx" \
	 "sessname=b $P device_path=/dev/$NB access_mode" \
	 "sessname=b $P device_path=" \
	 "sessname=b $P device_path=/dev/$NB nr_poll_queues=two" \
	 "sessname=b $P device_path=/dev/$NB port=0" \
	 "sessname=b/c $P device_path=/dev/$NB" \
	 "sessname=b path=198.18.0 device_path=/dev/$NB" \
	 "sessname=b path=198.18.0.2@198.18.0.1:1 device_path=/dev/$NB"; do
	refused "$l" "Invalid argument" || bad=1
done
ktap_check "malformed map_device lines: EINVAL, nothing left" test $bad = 0
ktap_check "the kernel log says why (unknown key)" \
	eval "dmesg | grep -q \"map_device: unknown key: 'bogus'\""
ktap_check "nr_poll_queues=33 (the transport gives 32 at most): EINVAL, nothing left" \
	refused "sessname=b $P device_path=/dev/$NB nr_poll_queues=33" "Invalid argument"
ktap_check "nonexistent device: EACCES (nothing is said of unexported files), nothing left" \
	refused "sessname=b $P device_path=/dev/nonexistent" "Permission denied"
ktap_check "device outside dev_search_path: EACCES, nothing left" \
	refused "sessname=b $P device_path=/devx/$NB" "Permission denied"
ktap_check "'..' out of dev_search_path: EACCES, nothing left" \
	refused "sessname=b $P device_path=/dev/../$NB" "Permission denied"
ktap_check "relative '..': EACCES, nothing left" \
	refused "sessname=b $P device_path=../$NB" "Permission denied"

# A relative name is taken from dev_search_path; ro refuses writes.
ro=$(riftblk_map "sessname=r $P device_path=$NB access_mode=ro")
ktap_check "relative device_path maps read-only: $ro" test -b "$ro"
ktap_check "ro: blockdev reports read-only, mode ro on both ends" \
	eval "[ \$(blockdev --getro $ro) = 1 ] &&
	      [ \"\$(cat $(riftblk_sysfs "$ro" access_mode))\" = ro ] &&
	      [ \"\$(cat $RIFTBLK_SRV_SYSFS/$NB/sessions/r/access_mode)\" = ro ]"
ktap_check "ro: reads work" dd if="$ro" of=/dev/null bs=64k count=16 iflag=direct status=none
ktap_check "ro: a write fails" eval "! dd if=/dev/zero of=$ro bs=4k count=1 oflag=direct status=none 2>/dev/null"

rw=$(riftblk_map "sessname=w $P device_path=/dev/$NB")
ktap_check "first rw mapping: $rw" test -b "$rw"
ktap_check "a second rw mapping (another session) is refused: EBUSY" \
	test "$(rift_write "$MAP" "sessname=w2 $P device_path=/dev/$NB")" = "Device or resource busy"
ktap_check "the same session mapping the device again: EEXIST" \
	test "$(rift_write "$MAP" "sessname=w $P device_path=/dev/$NB access_mode=ro")" = "File exists"
mig=$(riftblk_map "sessname=m $P device_path=/dev/$NB access_mode=migration")
ktap_check "one migration mapping besides the rw one: $mig" test -b "$mig"
ktap_check "a second migration mapping: EBUSY" \
	test "$(rift_write "$MAP" "sessname=m2 $P device_path=/dev/$NB access_mode=migration")" = "Device or resource busy"
ktap_info "server: $NB nr_sessions $(cat $RIFTBLK_SRV_SYSFS/$NB/nr_sessions): $(ls $RIFTBLK_SRV_SYSFS/$NB/sessions | tr '\n' ' ')"
ktap_check "server lists the three mappings" \
	test "$(ls $RIFTBLK_SRV_SYSFS/$NB/sessions | tr '\n' ' ')" = "m r w "

# Unmapping an open device needs force.
exec 3< "$rw"
ktap_check "unmap of an open device: EBUSY, still mapped" \
	eval "[ \"\$(rift_write $(riftblk_sysfs "$rw" unmap_device) 1)\" = 'Device or resource busy' ] &&
	      [ \"\$(cat $(riftblk_sysfs "$rw" state))\" = mapped ]"
ktap_check "unmap force of the open device" riftblk_unmap "$rw" force
exec 3<&-
ktap_check "it is gone, and so is its session" \
	rift_wait_until 10 eval "[ ! -e $rw ] && [ ! -e $RIFT_CLT_SYSFS/w ] && [ ! -e $RIFTBLK_SRV_SYSFS/$NB/sessions/w ]"

# The server closes a mapping: IO fails until the client remaps.
ktap_check "server force_close of the migration mapping" \
	eval "echo 1 > $RIFTBLK_SRV_SYSFS/$NB/sessions/m/force_close &&
	      [ ! -e $RIFTBLK_SRV_SYSFS/$NB/sessions/m ]"
ktap_check "IO on it fails" eval "! dd if=$mig of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null"
ktap_check "remap, and IO works again" \
	eval "echo 1 > $(riftblk_sysfs "$mig" remap) &&
	      dd if=$mig of=/dev/null bs=4k count=1 iflag=direct status=none &&
	      [ \"\$(cat $RIFTBLK_SRV_SYSFS/$NB/sessions/m/access_mode)\" = migration ]"

ktap_check "unmap both" eval "riftblk_unmap $ro && riftblk_unmap $mig"
ktap_check "nothing left" nothing_left
ktap_finished
