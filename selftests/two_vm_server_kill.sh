#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: two-vm
# rift-server-restarts: 1
# rift-timeout: 480
#
# The server VM loses power mid-IO.  A client VM writes to a server VM
# over one path (rxe on the VMs' NICs, joined by a qemu socket netdev);
# the host kills the server VM's qemu with SIGKILL while the writes go on
# and boots a fresh server VM in its place (tools/vm/run-selftests.sh,
# rift-server-restarts).  The client must:
#  - find the path dead by heartbeat, within hb_interval_ms *
#    (hb_missed_max + 1) and some slack for polling under TCG;
#  - keep the requests waiting (io_timeout_ms covers the server VM's
#    reboot), retrying the connection with backoff;
#  - reconnect to the new server as soon as it listens, re-issue the
#    waiting requests there, and end the write run with zero errors;
#  - then move verified IO (write and read back) over the new server.
# The new server's RAM store starts empty, so only what is written after
# the reconnect is read back.  Both VMs must end with a clean kernel log.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root
role=${1:-}
[ "$role" = server ] || [ "$role" = client ] || ktap_skip_all "needs the two-VM harness"

T=two_vm_server_kill
SRV=198.18.100.1
CLT=198.18.100.2
S=vk
P=$CLT@$SRV:7674
HB=200
MISSED=3
IO_TIMEOUT=180000
STORE_MB=64
LEN=4096
DEPTH=16

# rift_srv_up: the server side of the transport with the test ULP's store.
rift_srv_up()
{
	# The client is the other VM: guest-init names it riftvm-<its name>,
	# with '-' for '_' (not valid in a host name).
	rift_insmod rift/rift-core &&
		rift_insmod rift/rift-server &&
		rift_srv_allow_host riftvm-two-vm-server-kill-client &&
		rift_insmod test/rift-test-srv store_mb=$STORE_MB || return 1
	defer rift_unload_all
}

# secs MS: MS as seconds with one decimal.
secs()
{
	echo "$(($1 / 1000)).$(($1 % 1000 / 100))"
}

srv_reqs()
{
	local w r
	w=$(rift_srv_stat $S "$P" reqs_write)
	r=$(rift_srv_stat $S "$P" reqs_read)
	echo $((${w:-0} + ${r:-0}))
}

server1()
{
	ktap_plan 5
	ktap_check "server 1: rxe on eth0" rift_rxe_eth0 $SRV
	ktap_check "server 1: rift-core, rift-server, rift-test-srv load" rift_srv_up
	rift_sync_post $T.ready1 1
	ktap_check "server 1: the client's write run is going" rift_sync_wait $T.io-going 300
	ktap_check "server 1: serving the client's writes" \
		eval "[ \"\$(rift_srv_path_state $S $P)\" = connected ] && [ \$(srv_reqs) -gt 0 ]"
	ktap_info "server 1: $(srv_reqs) requests served, $(rift_srv_stat $S "$P" inflight) in flight; power off"
	# Killed in here by the host: nothing after this runs.
	ktap_check "server 1: killed by the host" rift_server_vm_kill $T
}

server2()
{
	ktap_plan 7
	ktap_info "server 2: a fresh VM, booted in $(cut -d' ' -f1 /proc/uptime) s (guest clock)"
	ktap_check "server 2: the first incarnation was killed" \
		eval "[ \"\$(cut -d' ' -f1 \"$RIFT_OUT/sync/$T.server-killed\")\" = 1 ]"
	ktap_check "server 2: rxe on eth0" rift_rxe_eth0 $SRV
	ktap_check "server 2: rift-core, rift-server, rift-test-srv load" rift_srv_up
	rift_sync_post $T.ready2 1
	ktap_check "server 2: the client reconnects" \
		rift_wait_until 60 eval "[ \"\$(rift_srv_path_state $S $P)\" = connected ]"
	ktap_check "server 2: the client's IO is done" rift_sync_wait $T.io-done 300
	# The counters are the current path's: a path that failed and came
	# back (rxe may wedge a QP that retransmitted) starts from zero.
	ktap_info "server 2: $(srv_reqs) requests served, $(rift_srv_stat $S "$P" errors) errors"
	ktap_check "server 2: it served the client's IO without error" \
		eval "[ \$(srv_reqs) -gt 0 ] && [ \"\$(rift_srv_stat $S $P errors)\" = 0 ]"
	rift_sync_post $T.counted 1
	rift_sync_wait $T.done 60
	__rift_run_deferred
	ktap_check "server 2: modules unloaded" eval '! rift_loaded rift/rift-core'
}

CS=$RIFT_CLT_SYSFS/$S

path_state()
{
	rift_path_state $S "$P"
}

# run_done SECONDS: the background run ended in time (SECONDS on a normal
# kernel, rift_scaled), with no error and nothing completed twice.
run_done()
{
	local rc
	rift_wait_pid "$(rift_scaled "$1")" $bg
	rc=$?
	ktap_info "write run: rc $rc '$(cat "$RIFT_OUT/$T.io" 2>/dev/null)', last '$(cat $RIFT_TEST_DBG/$S/last)', errors $(($(rift_test_stat $S errors) - e0)) ($(rift_test_errnos $S)), failed_over $(cat $CS/failed_over), failover_errors $(cat $CS/failover_errors)"
	[ $rc = 0 ] && [ "$(rift_test_stat $S errors)" = "$e0" ] &&
		[ "$(rift_test_bad_completions)" = 0 ]
}

client()
{
	local rate n us ms lim why t0= t1 t2= t3 r0 ok=0

	ktap_plan 16
	ktap_check "client: rxe on eth0" rift_rxe_eth0 $CLT
	ktap_check "client: rift-core, rift-client, rift-test load" \
		eval "rift_insmod rift/rift-core && rift_insmod rift/rift-client &&
		      rift_insmod test/rift-test store_mb=$STORE_MB"
	defer rift_sync_post $T.done 1
	defer rift_sync_post $T.io-done 1
	defer rift_unload_all
	defer rift_test_close $S
	ktap_check "client: server 1 is up" \
		eval "rift_sync_wait $T.ready1 300 && rift_wait_until 20 ping -c 1 -W 1 $SRV >/dev/null"
	ktap_check "client: session over one path connected, tunables set" \
		eval "rift_test_open $S $CLT@$SRV && rift_wait_until 20 eval '[ \"\$(path_state)\" = connected ]' &&
		      echo $HB > $CS/hb_interval_ms && echo $MISSED > $CS/hb_missed_max &&
		      echo 200 > $CS/reconnect_delay_ms && echo 2000 > $CS/reconnect_delay_max_ms &&
		      echo $IO_TIMEOUT > $CS/io_timeout_ms"
	e0=$(rift_test_stat $S errors)
	ktap_check "client: verified random IO over server 1" \
		eval "rift_test_io $S random 0 300 8 1 && [ \$(rift_test_stat $S errors) = $e0 ]"

	# Enough writes to go on for some 15 s at the link's pace (times the
	# scale), within the store; they are stuck while no server listens in
	# any case.  The 15 s are the host's: from the run's start to the kill
	# the sanitizer kernel took 15.7 s, and a run of 15 s at its pace had
	# ended first (session 25), so there they are 45.
	rift_test_io $S write 0 $LEN 2 400 $DEPTH
	rate=$(rift_test_pace $S)
	n=$(rift_run_size "$rate" $((15 * ${RIFT_TIMEOUT_SCALE:-1})) 2000)
	[ $n -le $((STORE_MB * 1048576 / LEN)) ] || n=$((STORE_MB * 1048576 / LEN))
	ktap_info "client: $rate writes/s of $LEN bytes; a run of $n writes, $DEPTH in flight"

	e0=$(rift_test_stat $S errors)
	bash -c "echo write 0 $LEN 3 $n $DEPTH > $RIFT_TEST_DBG/$S/io" 2> "$RIFT_OUT/$T.io" &
	bg=$!
	r0=$(rift_clt_stat $S "$P" reqs_write)
	rift_wait_until 10 eval "[ \$(rift_clt_stat $S $P reqs_write) -gt $((r0 + 50)) ]"
	ktap_check "client: the write run is going" kill -0 $bg
	rift_sync_post $T.io-going 1

	# The host kills server 1 now; time the detection from when the
	# client learns of it (a little after the kill itself).
	if rift_sync_wait $T.server-killed 60; then
		t0=$(rift_now_ms)
		rift_wait_until 20 eval "[ \"\$(path_state)\" != connected ]" && ok=1
		t1=$(rift_now_ms)
		why=$(cat $CS/paths/$P/last_error)
	fi
	ktap_check "client: server 1 killed by the host mid-IO" \
		eval "[ -n \"$t0\" ] && kill -0 $bg"
	ms=$((t1 - t0))
	lim=$((HB * (MISSED + 1)))
	ktap_info "client: path $(path_state) $ms ms after the kill notice (hb_interval_ms $HB x (hb_missed_max $MISSED + 1) = $lim ms, +1000 ms for polling under TCG): $why"
	ktap_check "client: path declared dead by heartbeat within $lim ms + slack" \
		eval "[ $ok = 1 ] && [ $ms -le $((lim + 1000)) ] && [[ \"$why\" == *heartbeat* ]]"
	sleep 2
	ktap_info "client: waiting requests $(cat $CS/pending), in flight $(rift_clt_stat $S "$P" inflight), paths: $(rift_paths_snapshot $S)"
	ktap_check "client: the requests wait for a server" \
		eval "[ \$(cat $CS/pending) -gt 0 ] && kill -0 $bg"

	ok=0
	if rift_sync_wait $T.ready2 $((IO_TIMEOUT / 1000 - 30)); then
		t2=$(rift_now_ms)
		rift_wait_until 30 eval "[ \"\$(path_state)\" = connected ]" && ok=1
		t3=$(rift_now_ms)
	fi
	ktap_info "client: server 2 listening $(secs $((${t2:-$t0} - t0))) s after the kill notice; path connected $(secs $((${t3:-$t0} - ${t2:-$t0}))) s later, $(secs $((${t3:-$t0} - t0))) s without a server in all; reconnects $(rift_clt_stat $S "$P" reconnects)"
	ktap_check "client: server 2 comes up within io_timeout_ms" test -n "$t2"
	# An attempt under way when server 2 starts to listen may still have
	# to time out (connect_timeout_ms, 10 s) before the next one.
	ktap_check "client: the path reconnects to server 2 within 15 s" \
		eval "[ $ok = 1 ] && [ $((${t3:-0} - ${t2:-0})) -le 15000 ]"
	ktap_check "client: the write run completes with zero errors" run_done 240
	ktap_check "client: requests of the dead path re-issued" \
		eval "[ \$(cat $CS/failed_over) -gt 0 ] && [ \$(cat $CS/failover_errors) = 0 ] &&
		      [ \$(cat $CS/pending) = 0 ]"

	e0=$(rift_test_stat $S errors)
	ktap_check "client: verified writes and read-back over server 2" \
		eval "rift_test_io $S write 0 $LEN 4 2000 $DEPTH && rift_test_io $S verify 0 $LEN 4 2000 $DEPTH &&
		      rift_test_io $S random 0 1000 8 5 && [ \$(rift_test_stat $S errors) = $e0 ] &&
		      [ \$(rift_test_bad_completions) = 0 ]"
	# Server 2 counts what it served before the session goes.
	ktap_info "client: after the verified IO: reconnects $(rift_clt_stat $S "$P" reconnects), failed_over $(cat $CS/failed_over), failover_errors $(cat $CS/failover_errors)"
	rift_sync_post $T.io-done 1
	rift_sync_wait $T.counted 30
	ktap_check "client: session closes" rift_test_close $S
	rift_sync_post $T.done 1
	__rift_run_deferred
	ktap_check "client: modules unloaded" eval '! rift_loaded rift/rift-core'
}

ktap_header
if [ "$role" = client ]; then
	client
elif [ "$RIFT_INCARNATION" = 1 ]; then
	server1
else
	server2
fi
ktap_finished
