#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 300
#
# always-invalidate: the client offers it (module parameter), the server
# accepts, every request rotates its chunk's rkey (counted on both ends,
# one rotation per request), verified IO passes, and a write into a chunk
# under the rkey a rotation replaced is refused by the server's device.
# The refusal breaks that connection; the path reconnects and IO goes on.
# Then the session option turned off takes effect at the next reconnect,
# and a server that imposes it (force_always_invalidate) gets it anyway.
# With the server's remote_invalidate on (off by default), Rift clients
# kill a write's key themselves as it lands (REMOTE_INV, a SEND
# WITH_INV): every write of such a path is counted in the server's
# remote_invs; off, the server invalidates every write's key itself.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

S=ai
ktap_header
ktap_plan 20

CS=$RIFT_CLT_SYSFS/$S

sum_both()
{
	echo $(($(rift_clt_stat $S $RIFT_P0 "$1") + $(rift_clt_stat $S $RIFT_P1 "$1")))
}

srv_sum()
{
	echo $(($(rift_srv_stat $S $RIFT_P0 "$1") + $(rift_srv_stat $S $RIFT_P1 "$1")))
}

reqs()
{
	echo $(($(sum_both reqs_read) + $(sum_both reqs_write)))
}

all_connected()
{
	rift_all_connected $S
}

ktap_check "two rxe links" rift_rxe_pairs 2
RI=/sys/module/rift_server/parameters/remote_invalidate
ktap_check "modules load, client offers always-invalidate, server's remote invalidation off by default" \
	eval "rift_insmod rift/rift-core && rift_insmod rift/rift-client always_invalidate=1 &&
	      rift_srv_load && rift_insmod test/rift-test-srv store_mb=16 &&
	      rift_insmod test/rift-test && [ \$(cat $RI) = N ]"
defer rift_unload_all
defer rift_test_close $S
# The first part runs with remote invalidation, the last part without.
echo Y > $RI
ktap_check "two-path session connected" \
	eval "rift_test_open $S 198.18.0.2@198.18.0.1 198.18.1.2@198.18.1.1 &&
	      rift_wait_until 10 all_connected && echo 300 > $CS/hb_interval_ms &&
	      echo 200 > $CS/reconnect_delay_ms && echo 1000 > $CS/reconnect_delay_max_ms"
ktap_check "both paths run always-invalidate, with remote invalidation" \
	eval "[ \$(cat $CS/always_invalidate) = 1 ] &&
	      [ \$(cat $CS/paths/$RIFT_P0/always_invalidate) = 1 ] &&
	      [ \$(cat $CS/paths/$RIFT_P1/always_invalidate) = 1 ] &&
	      [ \$(cat $CS/paths/$RIFT_P0/remote_invalidate) = 1 ] &&
	      [ \$(cat $CS/paths/$RIFT_P1/remote_invalidate) = 1 ]"

e0=$(rift_test_stat $S errors)
q0=$(reqs)
ktap_check "verified write + read, 2000 random requests at depth 64" \
	eval "rift_test_io $S random 0 2000 64 61 && [ \$(rift_test_stat $S errors) = $e0 ] &&
	      [ \$(rift_test_bad_completions) = 0 ]"
q=$(($(reqs) - q0))
u=$(sum_both rkey_updates)
r=$(srv_sum rkey_rotations)
sq=$(($(srv_sum reqs_read) + $(srv_sum reqs_write)))
ktap_info "requests posted $q (failed over: $(cat $CS/failed_over)), client rkey updates $u; server instances now: requests $sq, rotations $r"
# Every completed request brought exactly one new key; a path that failed
# and reconnected meanwhile is a new server instance with fresh counters,
# whose every request was rotated.
ktap_check "one rotation per request, counted on both ends" \
	eval "[ $u = 2000 ] && [ $r = $sq ] && [ $r -gt 0 ]"
ri=$(srv_sum remote_invs)
sw=$(srv_sum reqs_write)
ktap_info "server instances now: writes $sw, remotely invalidated $ri"
ktap_check "every write's key killed by the client as it landed (remote_invs)" \
	eval "[ $ri = $sw ] && [ $sw -gt 0 ]"

rc0=$(sum_both reconnects)
ktap_check "a write under a rotated-away rkey is refused" \
	eval "echo 1 > $RIFT_TEST_DBG/$S/stale_rkey"
dmesg | grep 'stale rkey' | tail -n 1 | sed 's/^/# /'
ktap_check "the refused connection's path reconnects" \
	rift_wait_until 30 eval "all_connected && [ \$(sum_both reconnects) -gt $rc0 ]"
ktap_check "verified IO after the refusal" \
	eval "rift_test_io $S random 0 500 8 62 && [ \$(rift_test_stat $S errors) = $e0 ]"

# IO while a stale key is tried: the refused path's requests fail over.
bash -c "echo random 0 3000 16 63 > $RIFT_TEST_DBG/$S/io" 2> "$RIFT_OUT/ai.io" &
bg=$!
sleep 2
rc1=$(sum_both reconnects)
# ENOENT: no rotated chunk's permit was free at that instant (the run
# holds them, and a reconnect starts a path's keys afresh): try again.
for i in $(seq 40); do
	out=$(rift_write "$RIFT_TEST_DBG/$S/stale_rkey" 1)
	[ "$out" = "No such file or directory" ] || break
	sleep 0.25
done
sr=1
[ "$out" = ok ] && sr=0
ktap_info "stale write under IO: '$out' after $i attempt(s)"
rift_wait_pid "$(rift_scaled 200)" $bg
rc=$?
ktap_info "stale write under IO: rc $sr; run rc $rc '$(cat "$RIFT_OUT/ai.io")', failed_over $(cat $CS/failed_over)"
ktap_check "under IO: refused, and every request of the run verified" \
	eval "[ $sr = 0 ] && [ $rc = 0 ] && [ \$(rift_test_stat $S errors) = $e0 ] &&
	      [ \$(rift_test_bad_completions) = 0 ]"
ktap_check "paths back after it" \
	rift_wait_until 30 eval "all_connected && [ \$(sum_both reconnects) -gt $rc1 ]"

ktap_check "option off: paths renegotiate without it on reconnect" \
	eval "echo 0 > $CS/always_invalidate &&
	      echo 1 > $CS/paths/$RIFT_P0/disconnect && echo 1 > $CS/paths/$RIFT_P1/disconnect &&
	      echo 1 > $CS/paths/$RIFT_P0/reconnect && echo 1 > $CS/paths/$RIFT_P1/reconnect &&
	      rift_wait_until 30 all_connected &&
	      [ \$(cat $CS/paths/$RIFT_P0/always_invalidate) = 0 ] &&
	      [ \$(cat $CS/paths/$RIFT_P1/always_invalidate) = 0 ] &&
	      [ \$(cat $CS/paths/$RIFT_P0/remote_invalidate) = 0 ] &&
	      [ \$(cat $CS/paths/$RIFT_P1/remote_invalidate) = 0 ]"
r1=$(srv_sum rkey_rotations)
ktap_check "without it: verified IO, no rotations" \
	eval "rift_test_io $S random 0 500 8 64 && [ \$(rift_test_stat $S errors) = $e0 ] &&
	      [ \$(srv_sum rkey_rotations) = 0 ]"

# The server imposes it: the client, its option still off, follows.
FAI=/sys/module/rift_server/parameters/force_always_invalidate
echo 1 > $FAI
defer eval "echo 0 > $FAI"
ktap_check "server imposes it (force_always_invalidate): paths reconnect with it, the client's option off" \
	eval "echo 1 > $CS/paths/$RIFT_P0/reconnect && echo 1 > $CS/paths/$RIFT_P1/reconnect &&
	      rift_wait_until 30 all_connected && [ \$(cat $CS/always_invalidate) = 0 ] &&
	      [ \$(cat $CS/paths/$RIFT_P0/always_invalidate) = 1 ] &&
	      [ \$(cat $CS/paths/$RIFT_P1/always_invalidate) = 1 ] &&
	      [ \$(cat $CS/paths/$RIFT_P0/remote_invalidate) = 1 ] &&
	      [ \$(cat $CS/paths/$RIFT_P1/remote_invalidate) = 1 ]"
ktap_check "imposed: verified IO, one rotation per request, every write remotely invalidated" \
	eval "rift_test_io $S random 0 500 8 65 && [ \$(rift_test_stat $S errors) = $e0 ] &&
	      [ \$(srv_sum rkey_rotations) -gt 0 ] &&
	      [ \$(srv_sum rkey_rotations) = \$((\$(srv_sum reqs_read) + \$(srv_sum reqs_write))) ] &&
	      [ \$(srv_sum remote_invs) = \$(srv_sum reqs_write) ]"

# The server's own invalidation of writes (its default, and what old
# clients get): rift-server remote_invalidate off.
echo N > $RI
ktap_check "server's remote_invalidate off: paths reconnect imposed, without it" \
	eval "echo 1 > $CS/paths/$RIFT_P0/reconnect && echo 1 > $CS/paths/$RIFT_P1/reconnect &&
	      rift_wait_until 30 all_connected &&
	      [ \$(cat $CS/paths/$RIFT_P0/always_invalidate) = 1 ] &&
	      [ \$(cat $CS/paths/$RIFT_P1/always_invalidate) = 1 ] &&
	      [ \$(cat $CS/paths/$RIFT_P0/remote_invalidate) = 0 ] &&
	      [ \$(cat $CS/paths/$RIFT_P1/remote_invalidate) = 0 ]"
ktap_check "without it: verified IO, one rotation per request, writes invalidated by the server" \
	eval "rift_test_io $S random 0 500 8 66 && [ \$(rift_test_stat $S errors) = $e0 ] &&
	      [ \$(srv_sum reqs_write) -gt 0 ] && [ \$(srv_sum remote_invs) = 0 ] &&
	      [ \$(srv_sum rkey_rotations) = \$((\$(srv_sum reqs_read) + \$(srv_sum reqs_write))) ]"
echo 0 > $FAI

ktap_check "session closes" rift_test_close $S
__rift_run_deferred
ktap_check "modules unloaded" eval '! rift_loaded rift/rift-core'
ktap_finished
