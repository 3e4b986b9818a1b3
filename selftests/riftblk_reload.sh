#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 900
#
# Server reload under IO: riftblk-server and rift-server are unloaded
# while fio writes and verifies through a riftblk device mapped over a
# two-path session, and loaded again.  The client's transport keeps the
# requests and reconnects to the new server instance, which answers them
# ESTALE (it never opened the device); riftblk opens the device again
# and requeues them.  The backing null_blk device is memory-backed and
# stays loaded, so fio's verification spans the reload: it must finish
# with zero errors (the device is exported again after the reload: exports
# do not outlive the module).  A mapping the administrator force-closes is, unlike
# a lost one, not re-opened: its IO fails (ENODEV) until remap.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root
command -v fio >/dev/null || ktap_skip_all "fio not installed"

S=brl
NB=riftnb0
OUT=$RIFT_OUT/riftblk_reload
CS=$RIFT_CLT_SYSFS/$S
# The server goes 8 s into the run; what is left of it verifies the
# data written before, across and after the reload.
RUNTIME=45
ktap_header
ktap_plan 16

mkdir -p "$OUT"
ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules load" riftblk_up
ktap_check "memory-backed null_blk, 256 MiB" riftblk_nullb $NB 256
dev=$(riftblk_map "sessname=$S path=198.18.0.2@198.18.0.1 path=198.18.1.2@198.18.1.1 device_path=/dev/$NB")
ktap_check "map over a two-path session: $dev" test -b "$dev"
state=$(riftblk_sysfs "$dev" state)
ktap_check "short reconnect backoff, long io_timeout_ms and remap_timeout_ms" \
	eval "echo 500 > $CS/hb_interval_ms && echo 200 > $CS/reconnect_delay_ms &&
	      echo 1000 > $CS/reconnect_delay_max_ms && echo 90000 > $CS/io_timeout_ms &&
	      echo 90000 > /sys/module/riftblk_client/parameters/remap_timeout_ms"
fo0=$(cat $CS/failed_over)
id0=$(cat $RIFTBLK_SRV_SYSFS/$NB/sessions/$S/dev_id)

riftblk_fio_verify "$dev" reload "$OUT" $RUNTIME &
fio_pid=$!
riftblk_sample "$dev" "$OUT/samples" &
smp=$!
defer kill $smp
sleep 8
ktap_check "fio is writing when the server goes" \
	eval "kill -0 $fio_pid && [ \$(riftblk_completed $dev) -gt 0 ]"
ktap_check "rmmod riftblk_server rift_server under IO" \
	eval "rmmod riftblk_server && rmmod rift_server"
ktap_check "the client's paths leave connected" \
	rift_wait_until 15 eval "[ \$(cat $CS/connected_paths) = 0 ]"
sleep 3
ktap_info "while the server is gone: state $(cat "$state"), waiting requests $(cat $CS/pending), null_blk still there: $(test -b /dev/$NB && echo yes)"
# Exports live in the module: the new instance has none until they are
# added again, and until then the client's re-opens are refused (EACCES)
# and retried.
ktap_check "load rift_server and riftblk_server again, export the device again" \
	eval "rift_srv_load && rift_insmod riftblk/riftblk-server &&
	      riftblk_export_add /dev/$NB"
ktap_check "both paths reconnect to the new server" rift_wait_until 60 riftblk_all_connected $S
ktap_check "the device is opened again on the new server" \
	rift_wait_until 60 eval "[ -e $RIFTBLK_SRV_SYSFS/$NB/sessions/$S/dev_id ] &&
				 [ \"\$(cat $state)\" = mapped ]"
ktap_info "dev_id before $id0, after $(cat $RIFTBLK_SRV_SYSFS/$NB/sessions/$S/dev_id 2>/dev/null)"
rift_wait_pid $((RUNTIME + 240)) $fio_pid
wait $fio_pid
rc=$?
kill $smp 2>/dev/null
res=$(riftblk_fio_report "$OUT/reload.json" $rc)
frc=$?
ktap_info "fio: $res"
[ $frc = 0 ] || tail -n 5 "$OUT/reload.out" | while read -r l; do ktap_info "fio: $l"; done
ktap_info "IO stalled at most $(riftblk_longest_stall "$OUT/samples") s; failed_over $(($(cat $CS/failed_over) - fo0)); paths $(rift_paths_snapshot $S)"
ktap_check "fio verify across the reload: zero errors" test $frc = 0
ktap_check "riftblk re-opened the lost device (kernel log)" \
	eval "dmesg | grep -q '$(basename "$dev"): the server lost /dev/$NB: opened it again'"

# A mapping the administrator closes stays closed: ENODEV, no re-open.
ktap_check "force_close on the server: IO fails, no automatic re-open" \
	eval "echo 1 > $RIFTBLK_SRV_SYSFS/$NB/sessions/$S/force_close &&
	      ! dd if=/dev/zero of=$dev bs=4k count=1 oflag=direct status=none 2>/dev/null &&
	      sleep 3 && [ \"\$(cat $state)\" = mapped ] &&
	      [ ! -e $RIFTBLK_SRV_SYSFS/$NB/sessions/$S ]"
ktap_check "remap, and IO works again" \
	eval "echo 1 > $(riftblk_sysfs "$dev" remap) &&
	      dd if=/dev/zero of=$dev bs=4k count=1 oflag=direct status=none"
ktap_check "unmap" riftblk_unmap "$dev"
ktap_finished
