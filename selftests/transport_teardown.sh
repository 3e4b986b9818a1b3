#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 240
#
# Tearing down with work outstanding.  Closing a session while runs on
# both CPUs have requests in flight: close returns without waiting for
# the runs, the runs return ECONNRESET, no request completes twice, the
# session is gone on both ends and every RDMA resource is given back.
# Unloading with sessions open: the transport modules refuse to go while
# the ULP uses them (the kernel answers EWOULDBLOCK (EAGAIN) for a module
# others depend on; kmod's rmmod refuses before asking), rift_test refuses
# while one of its files is in use, and once idle `rmmod rift_test` tears
# its open sessions down cleanly; then every module unloads.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

S=td
ktap_header
ktap_plan 26

# rdma resources of the rxe devices: what a leak of QPs, MRs, PDs or
# cm_ids would change.  Not CQs: Rift takes them from the device's CQ
# pool, which keeps them until the device goes (transport_cycles checks
# that the pool does not grow).
rdma_res()
{
	rdma resource show | sed 's/^[0-9]*: //; s/ cq [0-9]*//' | tr '\n' ' '
}

# delete_module(2) without kmod's checks; prints the errno, 0 on success.
delete_module()
{
	perl -e '$n = $ARGV[0]; print syscall(176, $n, 0x800) == -1 ? $! + 0 : 0' "$1"
}

ktap_check "two rxe links" rift_rxe_pairs 2
res_pre=$(rdma_res)
ktap_check "modules and test ULP load" rift_transport_up store_mb=64
res0=$(rdma_res)
ktap_info "rdma resources: $res0"

ktap_check "two-path session connected" \
	eval "rift_test_open $S 198.18.0.2@198.18.0.1 198.18.1.2@198.18.1.1 &&
	      rift_wait_until 10 rift_all_paths_in $S connected"
# The server holds run 0's first request (store offset 0; rift-test-srv's
# delay_next_ms) for HOLD_S: whatever pace the runs keep, requests are in
# flight when the session closes.  Without it, on the sanitizer kernel
# (about one request a second per run), the paths' inflight counters
# read 0 at every sample of a 90 s wait in session 16, although 40 of the
# runs' requests then failed with ECONNRESET at the close: why the
# samples missed them is not established, and this point is about the
# close, not about sampling.
HOLD=/sys/module/rift_test_srv/parameters
HOLD_S=$(rift_scaled 15)
# Nor may the held write time out (io_timeout_ms, default 30 s): failed
# with ETIMEDOUT, it still lands in the store when the server answers it,
# over whatever the run wrote to that range since, and the run's next
# read of it fails to verify.  The sanitizer kernel's 45 s hold did so
# ("verify: offset 0: expected 63, got 5a", EILSEQ in place of
# ECONNRESET); a timed-out write's late landing is allowed
# (Documentation/rift-protocol.rst, "Timeouts and memory reuse").
echo $(((HOLD_S + 30) * 1000)) > "$RIFT_CLT_SYSFS/$S/io_timeout_ms"
late_answers()
{
	dmesg | grep -c 'rift_test_srv: answering a request .* late, as asked'
}
late0=$(late_answers)
echo 0 > $HOLD/delay_offset
echo $((HOLD_S * 1000)) > $HOLD/delay_next_ms
# Each run alone would take ~8 minutes under TCG.  On the sanitizer
# kernel two runs of depth 32 and requests up to max_io_size left the
# test's own shell almost no CPU (its 90 s wait for requests in flight
# took 507 s in session 19): the runs verify every byte under KASAN.
# There they keep 8 requests of up to 16 KiB each in flight, which is
# still requests in flight from both CPUs, the point of the close below.
depth=32 maxlen=
[ "${RIFT_TIMEOUT_SCALE:-1}" -le 1 ] || { depth=8; maxlen=16384; }
taskset -c 0 bash -c "echo random 0 100000 $depth 1 $maxlen > $RIFT_TEST_DBG/$S/io" \
	2> "$RIFT_OUT/teardown.cpu0" &
p0=$!
taskset -c 1 bash -c "echo random $((32 << 20)) 100000 $depth 2 $maxlen > $RIFT_TEST_DBG/$S/io" \
	2> "$RIFT_OUT/teardown.cpu1" &
p1=$!
# Until the runs have requests in flight (the held one at least), rather
# than a fixed pause that a slower kernel may not fill.
inflight_now()
{
	echo $(($(rift_clt_stat $S $RIFT_P0 inflight) + $(rift_clt_stat $S $RIFT_P1 inflight)))
}
# delay_next_ms reads 0 once the server holds the request.
rift_wait_until "$(rift_scaled 30)" \
	eval '[ "$(cat $HOLD/delay_next_ms)" = 0 ] && [ "$(inflight_now)" -gt 0 ]'
sleep 1
inflight=$(inflight_now)
ktap_info "requests in flight before close: $inflight"
ktap_check "runs on both CPUs with requests in flight" \
	eval "kill -0 $p0 && kill -0 $p1 && [ $inflight -gt 0 ]"
t0=$(rift_now_ms)
ktap_check "close with requests in flight" rift_test_close $S
ms=$(($(rift_now_ms) - t0))
ktap_info "close took $ms ms"
ktap_check "close did not wait for the runs to finish" \
	eval "[ $ms -lt 30000 ]"
rift_wait_pid "$(rift_scaled 30)" $p0
rc0=$?
rift_wait_pid "$(rift_scaled 30)" $p1
rc1=$?
ktap_info "runs: rc $rc0 '$(cat "$RIFT_OUT/teardown.cpu0")', rc $rc1 '$(cat "$RIFT_OUT/teardown.cpu1")'"
ktap_check "both runs returned ECONNRESET" \
	eval "[ $rc0 = 1 ] && [ $rc1 = 1 ] &&
	      grep -q 'Connection reset by peer' $RIFT_OUT/teardown.cpu0 &&
	      grep -q 'Connection reset by peer' $RIFT_OUT/teardown.cpu1"
# The session's stats went with it: the runs' failures are in the log.
# A run whose requests were all answered before the close took the
# connections down fails at its next permit and logs no failed request
# (seen in CI: 47 in flight, both runs ended so), so there may be no line;
# what is logged must be ECONNRESET.
sums=$(dmesg | grep "rift_test: $S: .* requests failed" | sed 's/.*rift_test: //')
ktap_info "${sums//$'\n'/; }"
ktap_check "their failed requests failed with ECONNRESET only" \
	eval "! grep -o -- '-E[A-Z]*' <<<'$sums' | grep -vqx -- -ECONNRESET"
ktap_check "no request completed twice or out of turn" \
	test "$(rift_test_bad_completions)" = 0
ktap_check "the session is gone from debugfs and the client" \
	eval "[ ! -e $RIFT_TEST_DBG/$S ] && [ ! -e $RIFT_CLT_SYSFS/$S ]"
# The server's session leaves sysfs at once (its name may be reused)
# and ends once the ULP answered what it holds.
ktap_check "and from the server" \
	rift_wait_until 10 eval "[ ! -e $RIFT_SRV_SYSFS/$S ]"
# rift-test-srv's store is shared by every session: the held write lands
# in it when answered, after the close.  The points below write and
# verify that range, so they wait for it (CI stop 26 failed point 17's
# verify when they came first: the late write landed over u1's data).
ktap_check "the held request was answered after the close" \
	rift_wait_until $((HOLD_S + 10)) eval '[ "$(late_answers)" -gt "$late0" ]'
ktap_check "every RDMA resource given back" \
	rift_wait_until 10 eval "[ \"\$(rdma_res)\" = '$res0' ]"
ktap_info "rdma resources: $(rdma_res)"
ktap_check "the name can be used again" \
	eval "rift_test_open $S 198.18.0.2@198.18.0.1 &&
	      rift_test_io $S random 0 200 8 3 && rift_test_close $S"

# Unloading with sessions open.
ktap_check "open two sessions and leave them open" \
	eval "rift_test_open u1 198.18.0.2@198.18.0.1 198.18.1.2@198.18.1.1 &&
	      rift_test_open u2 198.18.1.2@198.18.1.1 &&
	      rift_test_io u1 write 0 65536 1 16 4 &&
	      rift_test_io u2 write $((8 << 20)) 65536 2 16 4"
for m in rift_client rift_server rift_core; do
	ktap_info "$m: refcnt $(cat /sys/module/$m/refcnt), holders: $(ls /sys/module/$m/holders | tr '\n' ' ')"
done
e=$(delete_module rift_client)
ktap_check "delete_module(rift_client) refused with EWOULDBLOCK (errno $e)" test "$e" = 11
ktap_check "rmmod rift_client and rift_server refused" \
	eval "! rmmod rift_client 2>/dev/null && ! rmmod rift_server 2>/dev/null"
ktap_check "the modules and the sessions are still there and work" \
	eval "rift_loaded rift/rift-client && rift_loaded rift/rift-server &&
	      rift_test_io u1 verify 0 65536 1 16 4 &&
	      rift_test_io u2 verify $((8 << 20)) 65536 2 16 4"

# The store is shared by all sessions: u1 and u2 use different parts.
# The server holds the run's first request for 5 s (scaled), so the run
# is still going when rmmod is tried, however fast or slow the kernel.
e0=$(rift_test_stat u1 errors)
echo $((16 << 20)) > $HOLD/delay_offset
echo $(($(rift_scaled 5) * 1000)) > $HOLD/delay_next_ms
rift_test_io u1 random $((16 << 20)) 300 8 4 &
bg=$!
sleep 2
ktap_check "rmmod rift_test refused while a run uses its files" \
	eval "kill -0 $bg && ! rmmod rift_test 2>/dev/null && rift_loaded test/rift-test"
ktap_check "the run completes fine" \
	eval "rift_wait_pid $(rift_scaled 60) $bg && [ \$(rift_test_stat u1 errors) = $e0 ]"
ktap_check "no request completed twice or out of turn" \
	test "$(rift_test_bad_completions)" = 0

ktap_check "rmmod rift_test with two sessions open" rmmod rift_test
ktap_check "its sessions are gone on the client and the server" \
	eval "[ -z \"\$(ls $RIFT_CLT_SYSFS)\" ] &&
	      rift_wait_until 10 eval '[ -z \"\$(rift_srv_sessions)\" ]'"
ktap_check "then rift_test_srv, rift_server, rift_client and rift_core unload" \
	eval "rmmod rift_test_srv && rmmod rift_server && rmmod rift_client && rmmod rift_core"
ktap_check "no module left" \
	eval "! rift_loaded rift/rift-core && ! rift_loaded rift/rift-client &&
	      ! rift_loaded rift/rift-server && ! rift_loaded test/rift-test &&
	      ! rift_loaded test/rift-test-srv"
ktap_info "rdma resources: $(rdma_res)"
ktap_check "the rxe devices hold what they held before Rift loaded" \
	test "$(rdma_res)" = "$res_pre"
__rift_run_deferred
ktap_finished
