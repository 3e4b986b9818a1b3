#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 420
#
# The server side (rift-test-srv and rift-server) is unloaded and loaded
# again while a two-path session writes: the client sees its paths fail,
# keeps the requests waiting (io_timeout_ms), reconnects with backoff to
# the new server instance, takes its new chunk tables and rkeys, and
# every write completes without error.  The reloaded RAM store starts
# empty (zeros): it must hold every write the new server received, the
# run's last ones, each as the client wrote it; then fresh verified IO.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

S=rl
ktap_header
ktap_plan 14

CS=$RIFT_CLT_SYSFS/$S

all_connected()
{
	rift_all_connected $S
}

ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules and test ULP load (64 MiB store)" rift_transport_up store_mb=64
defer rift_test_close $S
ktap_check "two-path session connected, tunables set" \
	eval "rift_test_open $S 198.18.0.2@198.18.0.1 198.18.1.2@198.18.1.1 &&
	      rift_wait_until 10 all_connected &&
	      echo 500 > $CS/hb_interval_ms && echo 200 > $CS/reconnect_delay_ms &&
	      echo 1000 > $CS/reconnect_delay_max_ms && echo 60000 > $CS/io_timeout_ms"
r0=$(($(rift_clt_stat $S $RIFT_P0 reconnects) + $(rift_clt_stat $S $RIFT_P1 reconnects)))
e0=$(rift_test_stat $S errors)

writes()
{
	echo $(($(rift_clt_stat $S $RIFT_P0 reqs_write) + $(rift_clt_stat $S $RIFT_P1 reqs_write)))
}
w0=$(writes)
# Long enough to span the reload on a fast host (3000 writes once ended
# within the 3 s the test used to wait before the reload); a write run
# goes through the store in order, so 16000 x 4 KiB fill 62.5 of its 64 MiB.
bash -c "echo write 0 4096 21 16000 16 > $RIFT_TEST_DBG/$S/io" 2> "$RIFT_OUT/reload.io" &
bg=$!
rift_wait_until 10 eval '[ $(writes) -gt $((w0 + 200)) ]'
ktap_info "in flight: $(rift_clt_stat $S $RIFT_P0 inflight) + $(rift_clt_stat $S $RIFT_P1 inflight)"
ktap_check "the write run is going when the server goes" kill -0 $bg
ktap_check "rmmod rift_test_srv and rift_server under IO" \
	eval "rmmod rift_test_srv && rmmod rift_server"
ktap_check "the client's paths leave connected" \
	rift_wait_until 10 eval "[ \$(cat $CS/connected_paths) = 0 ]"
sleep 2
ktap_info "waiting requests: $(cat $CS/pending); paths: $(rift_paths_snapshot $S)"
ktap_check "reload rift_server and rift_test_srv" \
	eval "rift_srv_load && rift_insmod test/rift-test-srv store_mb=64"
ktap_check "both paths reconnect to the new server" rift_wait_until 40 all_connected
rift_wait_pid "$(rift_scaled 240)" $bg
rc=$?
ktap_info "write run: rc $rc '$(cat "$RIFT_OUT/reload.io")', errors $(($(rift_test_stat $S errors) - e0)) ($(rift_test_errnos $S)), failed_over $(cat $CS/failed_over)"
ktap_check "every write of the run completed without error" \
	eval "[ $rc = 0 ] && [ \$(rift_test_stat $S errors) = $e0 ] &&
	      [ \$(rift_test_bad_completions) = 0 ]"
# A write run goes through the store in order, 16 in flight: the new
# server received the writes not yet done when the old one went, and
# every later one.  Its counters are its paths' (a path that failed again
# starts from zero), so this can only count too few: the run's writes
# from index 16000 - NW + 16 on are in its store, whatever the client
# re-issued to it included.  A write lost on the way reads back as zeros.
nw=$(($(rift_srv_stat $S $RIFT_P0 reqs_write) + $(rift_srv_stat $S $RIFT_P1 reqs_write)))
from=$((16000 - nw + 16))
ktap_info "the new server received $nw writes: reading back the run's writes $from..15999"
ktap_check "the writes the new server received read back as written" \
	eval "[ $nw -ge 1000 ] && rift_test_io $S verify $((from * 4096)) 4096 21 $((16000 - from)) 16 &&
	      [ \$(rift_test_stat $S errors) = $e0 ]"
r1=$(($(rift_clt_stat $S $RIFT_P0 reconnects) + $(rift_clt_stat $S $RIFT_P1 reconnects)))
ktap_check "reconnects counted ($((r1 - r0)))" test $((r1 - r0)) -ge 2
ktap_check "afterwards: verified random IO over the new server" \
	eval "rift_test_io $S random 0 1000 8 22 && [ \$(rift_test_stat $S errors) = $e0 ]"

ktap_check "session closes" rift_test_close $S
__rift_run_deferred
ktap_check "modules unloaded" eval '! rift_loaded rift/rift-core'
ktap_finished
