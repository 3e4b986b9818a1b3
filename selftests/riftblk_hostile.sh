#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 420
#
# A hostile riftblk client against the kernel's riftblk-server.
# tools/peer/rift-peer -B speaks riftblk from user space and breaks it on
# purpose: handles it never had or another session has (and 1000 random
# ones), cache flags on reads and discards, unknown flags, ops and message
# types, IO beyond the device, wrapping the sector space or not in whole
# blocks, discards at the 4 GiB boundary, odd and oversized OPEN paths,
# OPEN/CLOSE loops, a session that goes without CLOSE, CLOSE racing IO.
# Each of its cases asserts the server's exact errno and becomes one test
# point here.  Meanwhile a kernel client's mapping of another device runs
# verified fio, which must see no error; afterwards nothing of the peer is
# left (sessions, mappings, exclusive opens, slab objects), its refusals
# did not flood the kernel log, and the modules unload.
#
# The devices come from lib-riftblk.sh (riftblk_nullb, which exports them to every
# host); dev_search_path=/dev restricts the server further.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

peer=$RIFT_TREE/tools/peer/rift-peer
VNB=riftnb1
HNB=riftnbh
FILE=/dev/rift-peer-file
P="path=198.18.0.2@198.18.0.1"
OUT=$RIFT_OUT/riftblk_hostile

[ -x "$peer" ] || ktap_skip_all "tools/peer/rift-peer not built (make -C tools/peer)"
mapfile -t cases < <("$peer" -B -l 2>/dev/null)
[ ${#cases[@]} -gt 0 ] || ktap_skip_all "tools/peer/rift-peer does not run here"
rm -rf "$OUT" && mkdir -p "$OUT"

ktap_header
ktap_plan $((${#cases[@]} + 13))

ktap_check "one rxe link" rift_rxe_pairs 1
ktap_check "modules load, dev_search_path=/dev" riftblk_up dev_search_path=/dev
ktap_check "the peer's host is allow-listed" rift_srv_allow_host rift-peer
ktap_check "devices: $VNB 64 MiB; $HNB 4352 MiB (sparse), 4 KiB blocks, discard" \
	eval "riftblk_nullb $VNB 64 && riftblk_nullb $HNB 4352 1 4096"
: > "$FILE"
defer rm -f "$FILE"

# The victim: a kernel client's rw mapping in a session of its own.
vdev=$(riftblk_map "sessname=victim $P device_path=/dev/$VNB")
vid=$(cat "$RIFTBLK_SRV_SYSFS/$VNB/sessions/victim/dev_id" 2>/dev/null)
ktap_check "a kernel client maps $VNB rw: $vdev, dev_id $vid" \
	eval "[ -b '$vdev' ] && [ -n '$vid' ]"

# The victim's server path back at its floor (memory credits, the
# default) before each count: a grant fio grew and the server has not
# yet revoked holds a segment array per chunk, which is no leak.
victim_floor()
{
	rift_wait_until "$(rift_scaled 15)" rift_srv_at_floor victim ||
		ktap_info "victim's server path still above its floor: $(rift_srv_grants victim)"
}

victim_floor
sleep 2
own0=$(rift_slab_owned "$OUT/own0")
logpat='riftblk_server: .*(refusing|cannot open)'
log0=$(dmesg | grep -cE "$logpat")
ktap_info "before: Rift's slab objects $own0, refusals logged $log0"

# Verified fio on the victim, in runs of 15 s, for as long as the peer runs.
riftblk_fio_loop "$vdev" "$OUT" 15 &
fio_pid=$!
defer kill "$fio_pid"
sleep 3

start=$SECONDS
# Every wait of the peer is bounded; this bounds the whole run as well.
timeout -k 5 300 "$peer" -B -s 198.18.0.2 -d 198.18.0.1 -D "/dev/$HNB" \
	-X "/dev/$VNB:$vid" -R "$FILE" -N 500 > "$OUT/peer.out" 2>&1
rc=$?
touch "$OUT/peer.done"
ktap_info "rift-peer -B exited $rc after $((SECONDS - start)) s"
grep -v -E '^(KTAP version|1\.\.|(not )?ok )' "$OUT/peer.out"

for c in "${cases[@]}"; do
	line=$(grep -E "^(not )?ok [0-9]+ $c( |$)" "$OUT/peer.out" | head -n 1)
	case $line in
	"ok "*)
		ktap_pass "peer: $c"
		;;
	"")
		ktap_fail "peer: $c (no result)"
		;;
	*)
		ktap_fail "peer: $c"
		;;
	esac
done
ktap_check "rift-peer exited 0" test "$rc" -eq 0

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
# victim_untouched: the victim kept its mapping, its handle and its one
# path: no excuse (reads land in staging slots, so no REG_MR is in a send
# queue for rxe 6.1 to run again; see the admin guide).
victim_untouched()
{
	local now
	now=$(cat $RIFTBLK_SRV_SYSFS/$VNB/sessions/victim/dev_id 2>/dev/null)
	ktap_info "victim: dev_id $vid -> $now; $(dmesg | grep -o 'victim/[^ ]*: path failed: .*' | tail -n 1)"
	[ "$(cat "$(riftblk_sysfs "$vdev" state)")" = mapped ] &&
		! dmesg | grep -q "$(basename "$vdev"): .* failed" &&
		! dmesg | grep -q 'victim/[^ ]*: path failed' &&
		[ "$now" = "$vid" ]
}
ktap_check "the victim's mapping is untouched: dev_id $vid, mapped, its path never failed, no IO error logged" \
	victim_untouched

no_peer_session()
{
	! rift_srv_sessions | grep -q '^rift-peer-'
}
# The transport's own cleanup (hostile_peer.sh asserts it): wait for it.
rift_wait_until 20 no_peer_session || ktap_info "sessions of the peer still on the server"
ktap_check "no mapping of the peer left: $HNB unexported, $VNB has the victim's only" \
	rift_wait_until 10 eval "[ ! -e $RIFTBLK_SRV_SYSFS/$HNB ] &&
				 [ \"\$(ls $RIFTBLK_SRV_SYSFS/$VNB/sessions)\" = victim ]"
ktap_check "nothing holds $HNB open: an exclusive open succeeds" \
	python3 -c "import os; os.close(os.open('/dev/$HNB', os.O_RDONLY | os.O_EXCL))"

victim_floor
sleep 2
own1=$(rift_slab_owned "$OUT/own1")
log1=$(dmesg | grep -cE "$logpat")
ktap_info "after: Rift's slab objects $own1 (delta $((own1 - own0))), refusals logged $log1"
diff <(sort "$OUT/own0") <(sort "$OUT/own1") | grep '^[<>]' | head -n 10 |
	while read -r l; do ktap_info "slab: $l"; done
# 500 OPEN/CLOSE rounds and every refused OPEN allocate a mapping each: a
# leak of one would show hundreds of times over.
ktap_check "Rift's slab objects did not grow (a leaked mapping per OPEN would add 500)" \
	test $((own1 - own0)) -lt 20
# The peer had over 300 OPENs refused, and more errors besides.
ktap_check "refused OPENs are rate limited in the log: $((log1 - log0)) lines" \
	test $((log1 - log0)) -lt 60

__rift_run_deferred
ktap_check "modules unloaded" eval '! rift_loaded rift/rift-core'
ktap_finished
