#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 240
#
# Reconnect backoff: with the server unreachable, a failed path's
# attempts are spaced exponentially from reconnect_delay_ms up to
# reconnect_delay_max_ms, each delay drawn from [d/2, d] milliseconds (the
# rift_clt_path_backoff tracepoint shows every delay drawn, the state
# tracepoint when each attempt starts); after max_reconnect_attempts the
# path rests in gave-up, and writing reconnect starts over.  With
# max_reconnect_attempts 0 a failed path never retries on its own.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

S=bo
BASE=100
CAP=800
MAX=5
T=/sys/kernel/tracing
ktap_header
ktap_plan 15

CS=$RIFT_CLT_SYSFS/$S

ktap_check "one rxe link" rift_rxe_pairs 1
ktap_check "modules and test ULP load" rift_transport_up
defer rift_test_close $S
ktap_check "session connected, tunables set" \
	eval "rift_test_open $S 198.18.0.2@198.18.0.1 &&
	      rift_wait_until 10 eval '[ \"\$(rift_path_state $S $RIFT_P0)\" = connected ]' &&
	      echo 200 > $CS/hb_interval_ms && echo 2 > $CS/hb_missed_max &&
	      echo $BASE > $CS/reconnect_delay_ms && echo $CAP > $CS/reconnect_delay_max_ms &&
	      echo $MAX > $CS/max_reconnect_attempts"

[ -d $T/events ] || mount -t tracefs nodev $T
echo > $T/trace
echo 1 > $T/events/rift_clt/rift_clt_path_backoff/enable
echo 1 > $T/events/rift/rift_state/enable
defer eval "echo 0 > $T/events/rift_clt/enable; echo 0 > $T/events/rift/enable"

ip link set dev riftb0 down
ktap_check "link down: the path fails and, after $MAX attempts, gives up" \
	rift_wait_until 120 eval "[ \"\$(rift_path_state $S $RIFT_P0)\" = gave-up ]"
ktap_info "last_error: $(cat $CS/paths/$RIFT_P0/last_error)"
sleep 3
cp $T/trace "$RIFT_OUT/backoff.trace"
# "TIME attempt DELAY" per delay drawn, "TIME start" per attempt begun.
awk 'function ts() { match($0, /[0-9]+\.[0-9]+: rift_/); return substr($0, RSTART, RLENGTH - 7) }
     /rift_clt_path_backoff:/ { print ts(), "attempt", $(NF - 3), $(NF - 1) }
     /rift_state: client path .*error -> reconnecting/ { print ts(), "start" }' \
	"$RIFT_OUT/backoff.trace" > "$RIFT_OUT/backoff.events"
while read -r line; do ktap_info "$line"; done < "$RIFT_OUT/backoff.events"
n=$(grep -c attempt "$RIFT_OUT/backoff.events")
ktap_check "exactly $MAX delays drawn (max_reconnect_attempts honoured)" test "$n" = $MAX
ktap_check "no attempt after giving up" \
	eval "[ \$(grep -c start $RIFT_OUT/backoff.events) = $MAX ]"

# Delay k is in [d/2, d] with d = min(BASE * 2^(k-1), CAP), in ms.
ok=1
jitter=0
k=0
while read -r t what a d; do
	[ "$what" = attempt ] || continue
	k=$((k + 1))
	hi=$((BASE << (k - 1)))
	[ $hi -le $CAP ] || hi=$CAP
	lo=$((hi / 2))
	[ "$a" = $k ] && [ "$d" -ge $lo ] && [ "$d" -le $hi ] || {
		ktap_info "attempt $a: delay $d ms outside [$lo, $hi]"
		ok=0
	}
	[ "$d" -lt $hi ] && jitter=1
done < "$RIFT_OUT/backoff.events"
ktap_check "each delay within [d/2, d], d doubling from $BASE ms up to $CAP ms" test $ok = 1
ktap_check "the delays are jittered, not all the upper bound" test $jitter = 1

# Each attempt starts no earlier than the delay drawn before it.
ok=$(awk '$2 == "attempt" { due = $1 + $4 / 1000; have = 1; next }
	  $2 == "start" && have { if ($1 + 0.005 < due) bad = 1; have = 0 }
	  END { print bad ? 0 : 1 }' "$RIFT_OUT/backoff.events")
ktap_check "attempts are spaced by the delays drawn (milliseconds, not jiffies or seconds)" \
	test "$ok" = 1
# One tracepoint for every state machine of both roles: the server saw
# the path and its connections close when the link went down.
ktap_check "rift:rift_state traced the server's path and connections closing too" \
	eval "grep -q 'rift_state: server path $S/.*: connected -> closing' $RIFT_OUT/backoff.trace &&
	      grep -q 'rift_state: server connection $S/.* con [0-9]*: connected -> closing' $RIFT_OUT/backoff.trace"

rift_link_up riftb0
sleep 1
ktap_check "gave-up stays put until reconnect is written" \
	test "$(rift_path_state $S $RIFT_P0)" = gave-up
echo 1 > $CS/paths/$RIFT_P0/reconnect
ktap_check "reconnect after gave-up: connected again" \
	rift_wait_until 20 eval "[ \"\$(rift_path_state $S $RIFT_P0)\" = connected ]"

echo 0 > $CS/max_reconnect_attempts
echo 1 > $CS/paths/$RIFT_P0/disconnect
ktap_check "max_reconnect_attempts 0: a failed path gives up at once" \
	rift_wait_until 10 eval "[ \"\$(rift_path_state $S $RIFT_P0)\" = gave-up ]"
ktap_check "max_reconnect_attempts refuses values below -1" \
	eval "[ \"\$(rift_write $CS/max_reconnect_attempts -2)\" = 'Invalid argument' ] &&
	      [ \$(cat $CS/max_reconnect_attempts) = 0 ]"

ktap_check "session closes" rift_test_close $S
__rift_run_deferred
ktap_finished
