#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 240
#
# IO on a handle whose OPEN has not finished.  riftblk-server's handles
# are sequential, so a hostile client knows the one its next OPEN gets
# and can send IO on it before that OPEN is answered.  The server must
# answer such IO ESTALE, as for a handle never given out, until the
# mapping is complete; an OPEN that fails after taking its handle must
# leave nothing any IO ran on (it frees the mapping: IO counted on it
# would run on freed memory).
#
# The window between the handle's allocation and the answer is too short
# to hit by chance: the harness's rift-inject module (tools/vm/inject)
# holds the OPEN 1.5 s in the mapping's kobject_add() and, in the first
# variant, makes that fail (ENOMEM).  tools/peer/rift-peer -B's
# rb_open_race cases send READs and WRITEs on the guessed handle and the
# one after it throughout, and assert every answer (peer-blk.c).
# Meanwhile a kernel client's mapping of another device runs verified
# fio, which must see no error; afterwards nothing of the peer is left
# and the kernel log is clean.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

peer=$RIFT_TREE/tools/peer/rift-peer
ko=$RIFT_TREE/tools/vm/inject/rift-inject.ko
VNB=riftnb1
HNB=riftnbh
P="path=198.18.0.2@198.18.0.1"
OUT=$RIFT_OUT/riftblk_open_race
cases=(rb_open_race_fail rb_open_race_delay)

[ -x "$peer" ] || ktap_skip_all "tools/peer/rift-peer not built (make -C tools/peer)"
[ -f "$ko" ] || ktap_skip_all "tools/vm/inject/rift-inject.ko not built (run-selftests.sh builds it)"
rm -rf "$OUT" && mkdir -p "$OUT"

ktap_header
ktap_plan $((${#cases[@]} + 16))

ktap_check "one rxe link" rift_rxe_pairs 1
ktap_check "modules load, dev_search_path=/dev" riftblk_up dev_search_path=/dev
ktap_check "the peer's host is allow-listed" rift_srv_allow_host rift-peer
ktap_check "devices: $VNB 64 MiB; $HNB 64 MiB, 4 KiB blocks" \
	eval "riftblk_nullb $VNB 64 && riftblk_nullb $HNB 64 0 4096"

# The victim: a kernel client's rw mapping in a session of its own,
# mapped before rift-inject is armed (and not named like the peer's).
vdev=$(riftblk_map "sessname=victim $P device_path=/dev/$VNB")
vid=$(cat "$RIFTBLK_SRV_SYSFS/$VNB/sessions/victim/dev_id" 2>/dev/null)
ktap_check "a kernel client maps $VNB rw: $vdev, dev_id $vid" \
	eval "[ -b '$vdev' ] && [ -n '$vid' ]"

# rift-inject's hold busy-waits with preemption off, freezing a CPU for
# 1.5 s: the victim's IO queued behind it (rxe's tasklets, its CQ work)
# makes no progress meanwhile, which the default stall_timeout_ms (1000)
# rightly calls a wedged connection (CI stop 25 saw the victim's path
# fail and come back remapped).  The races are about the peer's handles,
# so the victim's stall detector waits longer than the freeze, and its
# path must then never fail.
ktap_check "the victim's stall_timeout_ms outlasts the 1.5 s hold: 10000" \
	eval "echo 10000 > $RIFT_CLT_SYSFS/victim/stall_timeout_ms"

ktap_check "rift-inject loads (kretprobe on kobject_add)" insmod "$ko"
defer rmmod rift_inject

# Verified fio on the victim, in runs of 10 s, for as long as the peer runs.
riftblk_fio_loop "$vdev" "$OUT" 10 &
fio_pid=$!
defer kill "$fio_pid"
sleep 2

klog0=$(dmesg | wc -l)
start=$SECONDS
timeout -k 5 120 "$peer" -B -s 198.18.0.2 -d 198.18.0.1 -D "/dev/$HNB" \
	"${cases[@]}" > "$OUT/peer.out" 2>&1
rc=$?
touch "$OUT/peer.done"
ktap_info "rift-peer -B exited $rc after $((SECONDS - start)) s"
grep -v -E '^(KTAP version|1\.\.|(not )?ok )' "$OUT/peer.out"
for c in "${cases[@]}"; do
	line=$(grep -E "^(not )?ok [0-9]+ $c( |$)" "$OUT/peer.out" | head -n 1)
	case $line in
	"ok "*) ktap_pass "peer: $c" ;;
	"") ktap_fail "peer: $c (no result)" ;;
	*) ktap_fail "peer: $c" ;;
	esac
done
# One OPEN per case, and one more per attempt a case made again because
# too few IOs were answered while the OPEN was held (rift-peer says so).
again=$(grep -c 'while the OPEN was held: again' "$OUT/peer.out")
ktap_check "rift-inject held one OPEN per attempt: hits $(cat /sys/module/rift_inject/parameters/hits), attempts $((2 + again))" \
	test "$(cat /sys/module/rift_inject/parameters/hits)" -eq $((2 + again))

rift_wait_pid 60 "$fio_pid"
fio_bad=0
fio_runs=0
while read -r n frc; do
	fio_runs=$((fio_runs + 1))
	ktap_info "victim fio run $n: $(riftblk_fio_report "$OUT/v$n.json" "$frc" || echo FAILED)"
	riftblk_fio_report "$OUT/v$n.json" "$frc" > /dev/null || fio_bad=$((fio_bad + 1))
done < "$OUT/fio.rcs"
ktap_check "verified fio on the victim throughout: $fio_runs runs, $fio_bad with errors" \
	eval "[ $fio_runs -gt 0 ] && [ $fio_bad -eq 0 ]"
vid1=$(cat "$RIFTBLK_SRV_SYSFS/$VNB/sessions/victim/dev_id" 2>/dev/null)
vst=$(cat "$(riftblk_sysfs "$vdev" state)" 2>/dev/null)
ktap_check "the victim's mapping is untouched: dev_id $vid (now ${vid1:-none}), mapped (now ${vst:-none})" \
	eval "[ '$vid1' = '$vid' ] && [ '$vst' = mapped ]"
vfail=$(dmesg | tail -n +"$((klog0 + 1))" | grep -c 'rift_client: victim/.*path failed')
dmesg | tail -n +"$((klog0 + 1))" | grep 'rift_client: victim/.*path failed' | head -n 3 |
	while read -r l; do ktap_info "victim: $l"; done
ktap_check "the victim's path never failed during the races: $vfail failures" test "$vfail" -eq 0

ktap_check "no mapping of the peer left: $HNB unexported, $VNB has the victim's only" \
	rift_wait_until 20 eval "[ ! -e $RIFTBLK_SRV_SYSFS/$HNB ] &&
				 [ \"\$(ls $RIFTBLK_SRV_SYSFS/$VNB/sessions)\" = victim ]"
ktap_check "nothing holds $HNB open: an exclusive open succeeds" \
	python3 -c "import os; os.close(os.open('/dev/$HNB', os.O_RDONLY | os.O_EXCL))"
# The harness checks the whole log after the test too; this names the step.
klog_clean()
{
	dmesg | tail -n +"$((klog0 + 1))" > "$OUT/klog"
	grep -E 'rift-inject|riftblk_server' "$OUT/klog" | head -n 8 |
		while read -r l; do ktap_info "log: $l"; done
	"$RIFT_TREE/tools/vm/dmesg-check.sh" < "$OUT/klog" > "$OUT/klog.bad" && return 0
	head -n 5 "$OUT/klog.bad" | while read -r l; do ktap_info "bad: $l"; done
	return 1
}
ktap_check "kernel log during the races: no WARNING, BUG, KASAN or the like" klog_clean
ktap_check "rift-inject unloads" rmmod rift_inject

__rift_run_deferred
ktap_check "modules unloaded" eval '! rift_loaded rift/rift-core'
ktap_finished
