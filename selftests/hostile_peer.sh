#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 420
#
# A hostile client against the kernel server.  tools/peer/rift-peer speaks
# the wire protocol from user space (librdmacm) and breaks it on purpose:
# malformed and conflicting CON_REQs, bad INFO_REQs, name clashes, bad
# immediates and descriptors, wrong rkeys, memory credits (the credit_*
# cases set rift_server's credit_floor for their own paths and put back
# what they found, the default 2: a grant that grows on request, every
# credit rule a client can break, each of which must close the path, and
# credit_srv_off, the offer declined under credit_floor 0; the other
# cases do not offer the feature, so the server grants them their whole
# queue depth whatever credit_floor says).  Each of its cases asserts the
# server's exact answer (reject reason, INFO_RSP status, IO errno, HB_ACK
# sequence, or the server closing the connection in time) and becomes one
# test point here.  Then session_churn connects CHURN sessions that are
# refused and closed, one after the other: the server may log a bounded
# number of lines only (its lines for such cycles are rate-limited:
# refusals and session lifecycle lines have a budget each, at most ~11
# lines per 5 s each).  Afterwards the server must still be intact: a normal
# session through the test ULP works, none of the peer's sessions is left
# in sysfs, and the modules unload.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

peer=$RIFT_TREE/tools/peer/rift-peer
S=hp1
SRV=/sys/class/rift-server

[ -x "$peer" ] || ktap_skip_all "tools/peer/rift-peer not built (make -C tools/peer)"
mapfile -t cases < <("$peer" -l 2>/dev/null)
[ ${#cases[@]} -gt 0 ] || ktap_skip_all "tools/peer/rift-peer does not run here"

ktap_header
ktap_plan $((${#cases[@]} + 13))

ktap_check "rxe link" rift_rxe_pairs 1
ktap_check "modules and test ULP load" rift_transport_up
# The peer's host names (tools/peer/peer-lib.h): two allow-listed without a
# secret, one with a secret the peer does not know; rift-peer-unknown is
# not listed.
ktap_check "the peer's hosts are allow-listed" \
	eval "rift_srv_allow_host rift-peer && rift_srv_allow_host rift-peer-other &&
	      rift_srv_allow_host rift-peer-auth &&
	      echo 000102030405060708090a0b0c0d0e0f > $RIFT_SRV_KOBJ/hosts/rift-peer-auth/secret"
defer sh -c "echo $S > $RIFT_TEST_DBG/close"

# The cases set these rift_server parameters for a path and put them
# back; a peer killed in between (its own alarm, the timeout below) would
# leave them for the rest of the boot, so they are put back here too.
for prm in force_always_invalidate credit_floor credit_idle_ms remote_invalidate; do
	v=$(cat "/sys/module/rift_server/parameters/$prm")
	defer sh -c "echo $v > /sys/module/rift_server/parameters/$prm"
done
# The rinv_* cases need a server that accepts remote invalidation (off by
# default: Documentation/admin-guide.rst, always-invalidate).
echo Y > /sys/module/rift_server/parameters/remote_invalidate

out=$(mktemp)
defer rm -f "$out"
start=$SECONDS
# Every wait of the peer is bounded; this bounds the whole run as well.
timeout -k 5 170 "$peer" -s 198.18.0.2 -d 198.18.0.1 > "$out" 2>&1
rc=$?
ktap_info "rift-peer exited $rc after $((SECONDS - start)) s"
grep -v -E '^(KTAP version|1\.\.|(not )?ok )' "$out"

for c in "${cases[@]}"; do
	line=$(grep -E "^(not )?ok [0-9]+ $c( |$)" "$out" | head -n 1)
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

no_peer_session()
{
	! rift_srv_sessions | grep -q '^rift-peer-'
}
ktap_check "no session of the peer left in the server's sysfs" \
	rift_wait_until 20 no_peer_session
rift_srv_sessions | sed 's/^/# server session: /'

# Log flood: CHURN connect/refuse/close cycles.  Unlimited, each cycle
# logs 3 lines (refusing, path closed, session closed); the server's
# shared budget allows 10 lines per 5 s plus a "suppressed" note.
CHURN=300
# Sequence number of the newest kernel log record: immune to the ring
# buffer wrapping, which would make a line count shrink.
log_lines()
{
	timeout 2 cat /dev/kmsg 2>/dev/null | grep -E '^[0-9]+,' | tail -n 1 | cut -d, -f2
}
# srv_lines SEQ: "LINES SECONDS" of the server's records after SEQ (its
# own and the ratelimit's "N callbacks suppressed" notes of its
# functions), SECONDS from the first to the last of them on the kernel's
# clock, rounded up.  Two budgets of 10 lines and a "suppressed" note
# per 5 s window, over at most SECONDS / 5 + 1 windows each: 2 x 11 x
# (SECONDS / 5 + 2) leaves one spare window each.  The bound counted
# every source's lines over the shell's whole seconds before, plus 10 for
# the others: on the sanitizer kernel the server's own 175 lines used all
# but 33 of it (session 22), with nothing left for a line of rxe's.
srv_lines()
{
	timeout 2 cat /dev/kmsg 2>/dev/null | awk -F';' -v s="$1" '
		{ split($1, h, ",") }
		h[2] <= s { next }
		$2 ~ /^rift_server: / || $2 ~ /^rift_srv[a-z_]*: [0-9]+ callbacks suppressed/ {
			n++
			if (f == "") f = h[3]
			l = h[3]
		}
		END { printf "%d %d\n", n, n ? int((l - f + 999999) / 1000000) : 0 }'
}
before=$(log_lines)
start=$SECONDS
timeout -k 5 150 "$peer" -s 198.18.0.2 -d 198.18.0.1 -C $CHURN session_churn > "$out" 2>&1
rc=$?
rift_wait_until 30 no_peer_session
took=$((SECONDS - start))
read -r grown span < <(srv_lines "$before")
bound=$((2 * 11 * (span / 5 + 2)))
# The peer's own "ok 1 session_churn" is a diagnostic here: the point
# is the one below (a second top-level point would break the plan).
grep -v -E '^(KTAP version|1\.\.)' "$out" | sed -E 's/^((not )?ok )/# peer: \1/'
ktap_info "session_churn: $CHURN cycles in $took s, the server logged $grown lines over $span s (bound $bound), the kernel log grew by $(($(log_lines) - before))"
ktap_check "peer: session_churn" test "$rc" -eq 0
# Some lines at least: the refusals always log (22 and more in every run
# recorded), so none counted means the count is broken, not the server
# quiet.
ktap_check "the server logged at most $bound lines over $CHURN churn cycles" \
	eval "[ $grown -gt 0 ] && [ $grown -le $bound ]"

ktap_check "a normal session opens" \
	sh -c "echo 'sessname=$S path=198.18.0.2@198.18.0.1' > $RIFT_TEST_DBG/open"
ktap_check "its path connects" rift_wait_until 10 rift_all_paths_in $S connected
ktap_check "write + verified read, 4 KiB..64 KiB, depth 8" \
	eval "rift_test_io $S write 0 4096 21 64 8 && rift_test_io $S verify 0 4096 21 64 8 &&
	      rift_test_io $S write 0 65536 22 16 8 && rift_test_io $S verify 0 65536 22 16 8"
ktap_check "session closes" sh -c "echo $S > $RIFT_TEST_DBG/close"
ktap_check "no session left on the server" \
	rift_wait_until 20 eval "[ -z \"\$(rift_srv_sessions)\" ]"
__rift_run_deferred
ktap_check "modules unloaded" eval '! rift_loaded rift/rift-core'
ktap_finished
