#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 150
#
# No "zombie" paths: a path whose peer takes the connection request and
# never answers it (a listener that hung, a server gone in the middle of
# the handshake) must not stay connecting forever.  The server modules
# are unloaded under a connected session and tools/peer/rift-mute takes
# over their address and port, leaving every request pending; rdma_cm's
# own retries would take about a minute, so only
# rift_client.connect_timeout_ms (2000 here) ends each attempt:
#  - the listener gets the requests (so the attempts really hang on it);
#  - every attempt ends after connect_timeout_ms, on the kernel's clock
#    (rift:rift_state tracepoint), and the path goes on retrying,
#    with the reason in last_error;
#  - once the real server is back, the same path reconnects and carries
#    verified IO;
#  - out-of-range values of the parameter are refused.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

mute=$RIFT_TREE/tools/peer/rift-mute
[ -x "$mute" ] || ktap_skip_all "tools/peer/rift-mute not built (make -C tools/peer)"

S=zomb
TMO=2000
# Scheduling slack on top of the timeout, for TCG with a second VM running.
SLACK=1500
T=/sys/kernel/tracing
CS=$RIFT_CLT_SYSFS/$S
P=/sys/module/rift_client/parameters
ktap_header
ktap_plan 12

ktap_check "one rxe link" rift_rxe_pairs 1
ktap_check "modules and test ULP load" rift_transport_up
defer rift_test_close $S
ktap_check "connect_timeout_ms refuses 0, 99 and 3600001" \
	eval "[ \"\$(rift_write $P/connect_timeout_ms 0)\" = 'Invalid argument' ] &&
	      [ \"\$(rift_write $P/connect_timeout_ms 99)\" = 'Invalid argument' ] &&
	      [ \"\$(rift_write $P/connect_timeout_ms 3600001)\" = 'Invalid argument' ] &&
	      [ \"\$(cat $P/connect_timeout_ms)\" = 10000 ]"
# The path connects under the default: a first connect (server QPs,
# chunk registration) can take longer than $TMO ms under TCG.
ktap_check "a connected session; connect_timeout_ms $TMO" \
	eval "rift_test_open $S 198.18.0.2@198.18.0.1 &&
	      rift_wait_until 10 eval '[ \"\$(rift_path_state $S $RIFT_P0)\" = connected ]' &&
	      echo 200 > $CS/reconnect_delay_ms && echo 400 > $CS/reconnect_delay_max_ms &&
	      echo $TMO > $P/connect_timeout_ms"
ktap_check "server modules unloaded: the path leaves connected" \
	eval "rmmod rift_test_srv && rmmod rift_server &&
	      rift_wait_until 10 eval '[ \"\$(rift_path_state $S $RIFT_P0)\" != connected ]'"

out=$RIFT_OUT/connect_timeout.mute
"$mute" -a 198.18.0.1 -p 7674 -t 60 > "$out" 2>&1 &
mpid=$!
defer kill $mpid
ktap_check "the mute listener is up on the server's address and port" \
	rift_wait_until 10 grep -q listening "$out"

# Attempts that began before the listener was up were refused at once:
# only those from here on count.
[ -d $T/events ] || mount -t tracefs nodev $T
echo > $T/trace
echo 1 > $T/events/rift/rift_state/enable
defer eval "echo 0 > $T/events/rift/enable"
# attempts: parse the trace so far into "DURATION_MS FROM TO" per attempt
# that ended (entering connecting or reconnecting starts one, leaving it
# ends it); prints how many.
attempts()
{
	cp $T/trace "$RIFT_OUT/connect_timeout.trace"
	awk -v p="$S/$RIFT_P0:" '
		function ts() { match($0, /[0-9]+\.[0-9]+: rift_/); return substr($0, RSTART, RLENGTH - 7) }
		index($0, "rift_state: client path " p " ") {
			from = $(NF - 2); to = $NF
			if (start != "" && (from == "connecting" || from == "reconnecting")) {
				printf "%d %s %s\n", (ts() - start) * 1000, from, to
				start = ""
			}
			if (to == "connecting" || to == "reconnecting")
				start = ts()
		}' "$RIFT_OUT/connect_timeout.trace" > "$RIFT_OUT/connect_timeout.attempts"
	wc -l < "$RIFT_OUT/connect_timeout.attempts"
}
rift_wait_until 40 eval '[ $(attempts) -ge 3 ]'
ktap_info "state $(rift_path_state $S $RIFT_P0), last_error: $(cat $CS/paths/$RIFT_P0/last_error)"
while read -r line; do ktap_info "attempt: $line ms"; done < "$RIFT_OUT/connect_timeout.attempts"
n=$(wc -l < "$RIFT_OUT/connect_timeout.attempts")
reqs=$(grep -c "^connect request" "$out")
ktap_info "$n attempts ended; the listener got $reqs connection requests"
ktap_check "at least 3 attempts, each a request left pending by the listener" \
	eval "[ $n -ge 3 ] && [ $reqs -ge $n ]"
ktap_check "every attempt ended after ${TMO} ms (+ at most $SLACK ms), in state error" \
	awk -v lo=$TMO -v hi=$((TMO + SLACK)) '
		$1 < lo || $1 > hi || $3 != "error" { bad = 1 } END { exit bad }' \
		"$RIFT_OUT/connect_timeout.attempts"
ktap_check "last_error says the connect timed out" \
	grep -q "connect timed out after $TMO ms" "$CS/paths/$RIFT_P0/last_error"

kill $mpid 2>/dev/null
wait $mpid 2>/dev/null
ktap_check "the real server is back: the same path reconnects, verified IO passes" \
	eval "rift_srv_load && rift_insmod test/rift-test-srv &&
	      rift_wait_until 30 eval '[ \"\$(rift_path_state $S $RIFT_P0)\" = connected ]' &&
	      rift_test_io $S random 0 200 4 5"

ktap_check "session closes" rift_test_close $S
__rift_run_deferred
ktap_check "modules unloaded" eval '! rift_loaded rift/rift-core'
ktap_finished
