#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 900
#
# A connection flood does not lock out a legitimate client
# (Documentation/security.rst): tools/peer/rift-peer sends 1000
# CONNECT_REQUESTs (and more, for at least 60 s, 150 s with RIFT_LONG=1:
# make check-long) from link 0's address,
# each a new session with a random UUID, and leaves every accepted one
# half-open (no INFO_REQ).  Meanwhile a riftblk client maps a device over
# link 1 and runs verified fio.  The server must answer every request
# (accept, or NO_RESOURCES once its caps bite), pin no memory for the
# flood (nothing is admitted), keep its session count within
# max_sessions, lose no more MemAvailable (besides what the flooding
# process itself holds) than the legitimate session's chunks (at their
# most: with memory credits they grow under fio and go back when it is
# idle) plus 128 MiB, and be rid of every half-open path once
# setup_timeout_ms has passed.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

S=fl1
N=1000
# At least N requests, and for at least FLOOD_S seconds, so that the flood
# outlasts the legitimate client's mapping and fio run however fast it
# goes (the flood starts ~10 s before the mapping, fio runs 20 s; about
# 37 requests/s under TCG, so N takes ~30 s).
if [ "${RIFT_LONG:-0}" = 1 ]; then FLOOD_S=150; else FLOOD_S=$(rift_scaled 60); fi
SP=/sys/module/rift_server/parameters
PB=/sys/kernel/rift_server/pinned_bytes
NS=/sys/kernel/rift_server/nr_sessions
peer=$RIFT_TREE/tools/peer/rift-peer
[ -x "$peer" ] || ktap_skip_all "tools/peer/rift-peer not built (make -C tools/peer)"

ktap_header
ktap_plan 13

ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules load" riftblk_up
ktap_check "memory-backed null_blk, 128 MiB" riftblk_nullb rbfl0 128
out=$(mktemp -d)
defer rm -rf "$out"

# A memory-backed null_blk allocates its pages as they are first written:
# fill it now, so that fio's writes during the flood do not count against
# the server.
ktap_check "null_blk filled before the baseline" \
	dd if=/dev/zero of=/dev/rbfl0 bs=1M count=128 oflag=direct status=none
mem0=$(awk '/^MemAvailable/ { print $2 }' /proc/meminfo)
max_sess=$(cat $SP/max_sessions)
timeout -k 5 800 "$peer" -s 198.18.0.2 -d 198.18.0.1 -p $RIFTBLK_PORT -F $N -L $FLOOD_S flood \
	> "$out/peer" 2>&1 &
ppid=$!
# Sample what the server holds while the flood runs: the pinned total
# between two reads of the legitimate session's own pinned_bytes.  With
# memory credits (rift_server's default) the session's grant grows under
# fio and shrinks once it is idle, so the flood's share of the total is
# the total less the session's, read around it (a grant moves one way
# within a sample: it grows while fio runs, is revoked only after
# credit_idle_ms without a request); before the map there is none.
LP=$RIFT_SRV_SYSFS/$S/pinned_bytes
legit_now()
{
	local v=0
	{ read -r v < "$LP"; } 2>/dev/null
	echo "${v:-0}"
}
(
	while kill -0 $ppid 2>/dev/null; do
		# The flooding process runs in this VM: its own memory is not
		# the server's.
		rss=$(awk '/^VmRSS/ { print $2 }' /proc/$(pgrep -x rift-peer | head -n 1)/status 2>/dev/null)
		l1=$(legit_now)
		read -r tot < $PB
		l2=$(legit_now)
		echo "$tot $(cat $NS) $(awk '/^MemAvailable/ { print $2 }' /proc/meminfo) ${rss:-0} $l1 $l2"
		rift_nap 0.5
	done
) > "$out/samples" &
spid=$!
sleep 5
ktap_check "the flood is under way" kill -0 $ppid

dev=$(riftblk_map "sessname=$S path=198.18.1.2@198.18.1.1 device_path=/dev/rbfl0")
ktap_check "during the flood a legitimate client maps over link 1 ($dev)" \
	eval "[ -b '$dev' ] && rift_wait_until 30 rift_both_connected $S $RIFTBLK_P1"
riftblk_fio_verify "$dev" flood "$out" 20
rc=$?
ktap_info "$(riftblk_fio_report "$out/flood.json" "$rc")"
ktap_check "... and runs verified IO: zero errors" \
	riftblk_fio_report "$out/flood.json" "$rc"
ktap_check "the flood was still running" kill -0 $ppid

wait $ppid
prc=$?
wait $spid
sed 's/^/# peer: /' "$out/peer"
ktap_check "every CONNECT_REQUEST answered: accepted or NO_RESOURCES, and the caps bit" \
	eval "[ $prc = 0 ] && grep -q '^ok 1 flood$' '$out/peer'"
legit=$(legit_now)
# At the worst sample: the pinned total, the legitimate session's pinned
# bytes, what the rest (the flood) pinned, and MemAvailable lost less the
# flooding process's resident memory.
read -r pmax lmax fmax smax mmin rmax lost < <(awk -v m0=$mem0 '
	{ l = $5 > $6 ? $5 : $6; f = $1 - l }
	NR == 1 || $1 > p { p = $1 } NR == 1 || l > lm { lm = l } NR == 1 || f > fm { fm = f }
	NR == 1 || $2 > s { s = $2 }
	NR == 1 || $3 < m { m = $3 } NR == 1 || $4 > r { r = $4 }
	NR == 1 || m0 - $3 - $4 > lo { lo = m0 - $3 - $4 }
	END { print p, lm, fm, s, m, r, lo }' "$out/samples")
ktap_info "during the flood: pinned at most $pmax bytes (the legitimate session at most $lmax, $legit at the end; the rest at most $fmax), at most $smax sessions (max_sessions $max_sess), MemAvailable at least $mmin kB (before: $mem0 kB), the flooding process at most $rmax kB resident, at most $lost kB lost besides it"
ktap_check "nothing pinned for the flood, sessions within max_sessions" \
	eval "[ $fmax -le 0 ] && [ $smax -le $max_sess ]"
# The flood's own QPs (the peer runs in this VM), the legitimate session's
# chunks (at their most: fio grew its grant) and fio count too; a server
# that allocated a path's chunks per CONNECT_REQUEST (16.5 MiB each, 16
# half-open at once) would exceed this by far.
ktap_check "MemAvailable fell (besides the flooding process) by less than the legitimate session's chunks + 128 MiB" \
	eval "[ $lost -lt $((lmax / 1024 + (128 << 10))) ]"
tmo=$(cat $SP/setup_timeout_ms)
ktap_check "within setup_timeout_ms ($tmo) the half-open paths are gone: one session left" \
	rift_wait_until $((tmo / 1000 + 15)) eval "[ \$(cat $NS) = 1 ]"
ktap_check "unmap" riftblk_unmap "$dev"
ktap_finished
