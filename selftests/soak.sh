#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: (RIFT_SOAK_MIN ? RIFT_SOAK_MIN : 30) * 60 + 900
#
# Soak (make soak; not part of make check): a riftblk device mapped over
# two paths runs fio with verification for RIFT_SOAK_MIN minutes (default
# 30) while, one after another, a link goes down and comes back, a link
# goes silent (netem loss 100 %) and comes back, and every few minutes
# the server's modules are unloaded and loaded again.  Four fio jobs on
# their own regions of the device: random writes of 4 KiB..1 MiB at
# queue depths 1, 8, 32 and 64, every batch of written blocks read back
# and checked (crc32c) while writing, so reads and writes mix
# (riftblk_soak_fio in lib-riftblk.sh).  soak_kill.sh is its two-VM half: the
# server VM loses power and is replaced.
#
# Prints verified IOs, link flaps, silent-loss episodes, reloads,
# failovers and the longest stall of the device's completions; fails on
# a verify error, an IO error, a path that never comes back or (the
# harness) any report in the kernel log.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root
command -v fio >/dev/null || ktap_skip_all "fio not installed"

MIN=${RIFT_SOAK_MIN:-30}
SECS=$((MIN * 60))
# Between two events, and how often the server is reloaded.
GAP=${RIFT_SOAK_GAP:-6}
RELOAD_EVERY=${RIFT_SOAK_RELOAD_S:-150}
S=soak
NB=riftsoak0
OUT=$RIFT_OUT/soak
CS=$RIFT_CLT_SYSFS/$S
ktap_header
ktap_plan 12

mkdir -p "$OUT"
modprobe sch_netem
ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules load" riftblk_up
ktap_check "memory-backed null_blk, 512 MiB" riftblk_nullb $NB 512
dev=$(riftblk_map "sessname=$S path=198.18.0.2@198.18.0.1 path=198.18.1.2@198.18.1.1 device_path=/dev/$NB")
ktap_check "map over a two-path session: $dev" test -b "$dev"
state=$(riftblk_sysfs "$dev" state)
# Heartbeats as an administrator would set them for a fast fabric; IO
# waits out a reload (the client keeps it while the server is gone).
ktap_check "hb 500 ms x 3, reconnect 200..1000 ms, io_timeout and remap_timeout 120 s" \
	eval "echo 500 > $CS/hb_interval_ms && echo 3 > $CS/hb_missed_max &&
	      echo 200 > $CS/reconnect_delay_ms && echo 1000 > $CS/reconnect_delay_max_ms &&
	      echo 120000 > $CS/io_timeout_ms &&
	      echo 120000 > /sys/module/riftblk_client/parameters/remap_timeout_ms"

riftblk_soak_fio "$dev" $SECS "$OUT"
riftblk_sample "$dev" "$OUT/samples" &
smp=$!
defer kill $smp

flaps=0
silent=0
reloads=0
why=
fo0=$(cat $CS/failed_over)
end=$((SECONDS + SECS - 30))
next_reload=$((SECONDS + RELOAD_EVERY))
i=0
# One event at a time, each begun only once both paths are back: the
# device always has a path that can carry its IO, except during reloads.
while [ $SECONDS -lt $end ] && kill -0 $fio_pid 2>/dev/null; do
	sleep "$GAP"
	if ! rift_wait_until 120 riftblk_all_connected $S; then
		why="paths not back within 120 s: $(rift_paths_snapshot $S)"
		break
	fi
	if [ $SECONDS -ge $next_reload ]; then
		rmmod riftblk_server && rmmod rift_server ||
			{ why="server modules did not unload"; break; }
		sleep 2
		rift_srv_load && rift_insmod riftblk/riftblk-server &&
			riftblk_export_add /dev/$NB ||
			{ why="server modules did not load again"; break; }
		reloads=$((reloads + 1))
		next_reload=$((SECONDS + RELOAD_EVERY))
		continue
	fi
	l=riftb$((i % 2))
	if [ $((i % 4)) = 3 ]; then
		tc qdisc add dev $l root netem loss 100%
		sleep 4
		tc qdisc del dev $l root
		silent=$((silent + 1))
	else
		ip link set dev $l down
		sleep 2
		rift_link_up $l || { why="$l did not come back up"; break; }
		flaps=$((flaps + 1))
	fi
	i=$((i + 1))
done
[ -z "$why" ] || ktap_info "events stopped: $why"
ktap_check "every event done, the paths back after each" test -z "$why"
ktap_check "fio still running when the events stopped" kill -0 $fio_pid
rift_wait_pid 600 $fio_pid
wait $fio_pid
rc=$?
kill $smp 2>/dev/null

read -r verified written errs < <(riftblk_soak_totals "$OUT")
stall=$(riftblk_longest_stall "$OUT/samples")
ktap_info "soak: $MIN min, fio rc $rc, errors ${errs:-?}; $written writes, ${verified:-?} verified reads; $flaps link flaps, $silent silent-loss episodes, $reloads server reloads; failed_over $(($(cat $CS/failed_over) - fo0)); longest stall ${stall} s"
[ "$rc" = 0 ] || tail -n 5 "$OUT/soak.out" | while read -r l; do ktap_info "fio: $l"; done
ktap_check "fio: exit 0, zero errors, every job verified what it wrote" \
	eval "[ $rc = 0 ] && [ '${errs:-1}' = 0 ] && [ ${verified:-0} -gt 0 ]"
ktap_check "the device is mapped at the end" test "$(cat "$state")" = mapped
ktap_check "both paths connected at the end" rift_wait_until 60 riftblk_all_connected $S
ktap_check "at least one of each event ran" \
	eval "[ $flaps -gt 0 ] && [ $silent -gt 0 ] && [ $reloads -gt 0 ]"
ktap_check "unmap" riftblk_unmap "$dev"
ktap_finished
