#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 300
#
# disconnect and reconnect of a path through sysfs, idle and under IO.
# Every path comes back to connected, on both ends.  Under IO (a
# background random run, every read verified): the run terminates (no
# request lost), no request completes twice, no request fails: those in
# flight on the path that went down are posted again on the other path
# (or on the same path once reconnected), and verified IO over both
# paths works afterwards.  Last, a late close work (rift-client's
# test_connect_race hook, CONFIG_RIFT_DEBUG: skipped without it): path
# instances fail as they connect, each close work running only after the
# reconnect queued behind it connected the next instance; the path comes
# back and its last instance keeps its heartbeat tick.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

S=rc
ktap_header
ktap_plan 28

all_connected()
{
	rift_all_connected $S
}

# event PATH ACTION: write 1 to the path's ACTION file (client) or to
# the server's disconnect file (ACTION srv-disconnect).  The path went
# down and came back once its reconnect counter moved; it must then be
# connected on both ends.  (Its non-connected state can be too short to
# catch by polling.)
event()
{
	local p=$1 what=$2 t0 f r0
	t0=$(rift_now_ms)
	r0=$(rift_clt_stat $S "$p" reconnects)
	case $what in
	srv-disconnect) f=$RIFT_SRV_SYSFS/$S/paths/$p/disconnect ;;
	*) f=$RIFT_CLT_SYSFS/$S/paths/$p/$what ;;
	esac
	echo 1 > "$f" || return 1
	rift_wait_until 25 eval "[ \$(rift_clt_stat $S $p reconnects) -gt $r0 ] && all_connected" || {
		ktap_info "$what $p: not back: client $(rift_path_state $S "$p") server $(rift_srv_path_state $S "$p"), reconnects $(rift_clt_stat $S "$p" reconnects)"
		return 1
	}
	ktap_info "$what $p: back in $(($(rift_now_ms) - t0)) ms"
}

ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules and test ULP load" rift_transport_up
defer rift_test_close $S
ktap_check "two-path session connected" \
	eval "rift_test_open $S 198.18.0.2@198.18.0.1 198.18.1.2@198.18.1.1 &&
	      rift_wait_until 10 all_connected"

# Idle.
for p in $RIFT_P0 $RIFT_P1; do
	ktap_check "idle: disconnect $p, it comes back" event $p disconnect
	ktap_check "idle: reconnect $p, it comes back" event $p reconnect
done
ok=1
for p in $RIFT_P0 $RIFT_P1; do
	r=$(rift_clt_stat $S $p reconnects)
	e=$(rift_clt_stat $S $p errors)
	ktap_info "$p: $r reconnects, $e errors"
	[ "$r" = 2 ] && [ "$e" = 0 ] || ok=0
done
ktap_check "idle: two reconnects counted per path, no request failed" test $ok = 1
ktap_check "idle: verified random IO afterwards, no error" \
	eval "rift_test_io $S random 0 400 8 1 && [ \$(rift_test_stat $S errors) = 0 ]"

# Under IO.  The five events end 7 to 9 s after the run starts, set by
# reconnect timers, not by the guest's pace; the run must outlast them.
# A fixed 5000 lasted 10 to 12 s in CI (session 24): 1.3 times the
# events, so a guest a third faster would have ended it first.  It is
# sized for 25 s at the pace of the idle run above (depth 8; this one
# runs 16 deep, about 1.5 times faster: some 15 to 25 s), 5000 at least.
N=$(rift_run_size "$(rift_test_pace $S)" 25 5000)
ktap_info "pace $(rift_test_pace $S) requests/s: a run of $N"
for p in $RIFT_P0 $RIFT_P1; do
	echo 1 > "$RIFT_CLT_SYSFS/$S/paths/$p/stats/reset_all"
done
ops0=$(rift_test_stat $S ops)
err0=$(rift_test_stat $S errors)
t0=$(rift_now_ms)
bash -c "echo random 0 $N 16 2 > $RIFT_TEST_DBG/$S/io" 2> "$RIFT_OUT/reconnect.io" &
bg=$!
sleep 2
busy=1
for ev in "$RIFT_P0 disconnect" "$RIFT_P1 reconnect" "$RIFT_P1 disconnect" \
	  "$RIFT_P0 reconnect" "$RIFT_P1 srv-disconnect"; do
	# shellcheck disable=SC2086 # two words: path and action
	set -- $ev
	kill -0 $bg 2>/dev/null || busy=0
	ktap_info "in flight before $2 $1: $(rift_clt_stat $S $1 inflight)"
	ktap_check "under IO: $2 $1, it comes back" event "$1" "$2"
done
ktap_check "the IO run was still going after all five events" \
	eval "[ $busy = 1 ] && kill -0 $bg 2>/dev/null"
rift_wait_pid "$(rift_scaled 150)" $bg
rc=$?
ktap_info "run: rc $rc after $(($(rift_now_ms) - t0)) ms: $(cat "$RIFT_OUT/reconnect.io")"
ktap_check "the run terminated: no request lost" test $rc != 124
if [ $rc = 124 ]; then
	ktap_info "the run is stuck in the kernel: see 'still in flight' in dmesg"
	ktap_finished
fi
ops=$(($(rift_test_stat $S ops) - ops0))
errs=$(($(rift_test_stat $S errors) - err0))
errnos=$(rift_test_errnos $S)
ktap_info "run: $ops requests, $errs failed ($errnos)"
ktap_check "all $N requests accounted for" test $ops = $N
ktap_check "no request completed twice or out of turn" \
	eval "[ $(rift_test_stat $S bad_completions) = 0 ] && [ $(rift_test_bad_completions) = 0 ]"
ktap_check "no request failed, no data mismatch" test "$errs" = 0
ktap_check "the run succeeded" test $rc = 0
tot=0
fo=0
for p in $RIFT_P0 $RIFT_P1; do
	e=$(rift_clt_stat $S $p errors)
	f=$(rift_clt_stat $S $p failovers)
	ktap_info "$p: $e errors, $f failed over, $(rift_clt_stat $S $p reconnects) reconnects, $(rift_clt_stat $S $p reqs_read) reads, $(rift_clt_stat $S $p reqs_write) writes"
	tot=$((tot + e))
	fo=$((fo + f))
done
ktap_info "session: failed_over $(cat $RIFT_CLT_SYSFS/$S/failed_over), failover_errors $(cat $RIFT_CLT_SYSFS/$S/failover_errors)"
ktap_check "no path counted an error; requests moved off the failed paths ($fo)" \
	eval "[ $tot = 0 ] && [ $fo -gt 0 ] &&
	      [ \$(cat $RIFT_CLT_SYSFS/$S/failed_over) -ge $fo ] &&
	      [ \$(cat $RIFT_CLT_SYSFS/$S/failover_errors) = 0 ]"

ktap_check "both paths connected on both ends, nothing in flight" \
	eval "all_connected &&
	      [ \$(rift_clt_stat $S $RIFT_P0 inflight) = 0 ] &&
	      [ \$(rift_clt_stat $S $RIFT_P1 inflight) = 0 ]"
for p in $RIFT_P0 $RIFT_P1; do
	echo 1 > "$RIFT_CLT_SYSFS/$S/paths/$p/stats/reset_all"
done
err0=$(rift_test_stat $S errors)
ktap_check "afterwards: verified random IO, no error" \
	eval "rift_test_io $S random 0 600 8 3 && [ \$(rift_test_stat $S errors) = $err0 ]"
ktap_check "afterwards: both paths carried it" \
	test "$(($(rift_clt_stat $S $RIFT_P0 reqs_read) + $(rift_clt_stat $S $RIFT_P0 reqs_write)))" -gt 100 -a \
	     "$(($(rift_clt_stat $S $RIFT_P1 reqs_read) + $(rift_clt_stat $S $RIFT_P1 reqs_write)))" -gt 100

# Late close work.  NRACE instances of path 0 fail as soon as they
# connect, each with a connect queued behind the failure and its close
# work held back until that connect has connected the next instance
# (test_connect_race).  The close work must then leave the newer
# instance alone: the path comes back, and the heartbeat tick of its
# last instance runs.  A close work that cancelled the ticks before it
# looked at the state stopped them for good on a connected path.  The
# ticks are counted with rift:rift_hb_tick over 2 s at hb_interval_ms
# 200, set before the race so that no rearm (a shorter interval
# written later) can queue a cancelled tick again; hb_missed_max 10
# keeps a slow host from failing the path meanwhile.
RACE=/sys/module/rift_client/parameters/test_connect_race
NRACE=3
CS=$RIFT_CLT_SYSFS/$S
T=/sys/kernel/tracing
if [ ! -w $RACE ]; then
	why="rift-client built without CONFIG_RIFT_DEBUG (RIFT_DEBUG=)"
	ktap_skip "late close work: $NRACE instances failed at once with a connect queued behind; the path comes back" "$why"
	ktap_skip "late close work: the last instance's heartbeat tick runs (not cancelled)" "$why"
else
	hb0=$(cat $CS/hb_interval_ms)
	hm0=$(cat $CS/hb_missed_max)
	defer eval "echo 0 > $RACE; echo $hm0 > $CS/hb_missed_max; echo $hb0 > $CS/hb_interval_ms"
	echo 10 > $CS/hb_missed_max
	echo 200 > $CS/hb_interval_ms
	r0=$(rift_clt_stat $S $RIFT_P0 reconnects)
	k0=$(dmesg | wc -l)
	# The hook's kernel log lines for path 0 since k0.
	race_log()
	{
		dmesg | awk -v a="$k0" 'NR > a' | grep -o "$S/$RIFT_P0: test_connect_race: .*"
	}
	# The close work of the last instance failed has run, late: after
	# the instance behind it connected (it logs that before it takes
	# conn_mutex and looks at the state).
	late_close_ran()
	{
		local last
		last=$(race_log | sed -n 's/.*failing instance \([0-9]*\),.*/\1/p' | tail -n 1)
		[ -n "$last" ] &&
			race_log | grep -q "close work of instance $last runs, instance $((last + 1)) connected last"
	}
	echo $NRACE > $RACE
	echo 1 > $CS/paths/$RIFT_P0/reconnect
	ktap_check "late close work: $NRACE instances failed at once with a connect queued behind; the path comes back" \
		rift_wait_until "$(rift_scaled 60)" eval "[ \$(cat $RACE) = 0 ] && late_close_ran && all_connected &&
					 [ \$(rift_clt_stat $S $RIFT_P0 reconnects) -ge $((r0 + NRACE + 1)) ]"
	race_log | while read -r l; do ktap_info "$l"; done
	ktap_info "$RIFT_P0: $(rift_clt_stat $S $RIFT_P0 reconnects) reconnects (was $r0), client $(rift_path_state $S $RIFT_P0), server $(rift_srv_path_state $S $RIFT_P0), test_connect_race $(cat $RACE)"
	# The late close work cancels (if it does) right after its log line:
	# give it a moment, so the count below sees only what it left.
	rift_nap 1
	[ -d $T/events ] || mount -t tracefs nodev $T
	echo > $T/trace
	echo 1 > $T/events/rift/rift_hb_tick/enable
	defer eval "echo 0 > $T/events/rift/rift_hb_tick/enable"
	rift_nap 2
	echo 0 > $T/events/rift/rift_hb_tick/enable
	cp $T/trace "$RIFT_OUT/reconnect-race.trace"
	ticks=$(grep -cF "rift_hb_tick: client $S/$RIFT_P0: " "$RIFT_OUT/reconnect-race.trace")
	ticks1=$(grep -cF "rift_hb_tick: client $S/$RIFT_P1: " "$RIFT_OUT/reconnect-race.trace")
	ktap_info "heartbeat ticks in 2 s at 200 ms: $RIFT_P0 $ticks, $RIFT_P1 $ticks1; $RIFT_P0 $(rift_path_state $S $RIFT_P0)"
	ktap_check "late close work: the last instance's heartbeat tick runs (not cancelled)" \
		eval "[ $ticks -ge 5 ] && [ \"\$(rift_path_state $S $RIFT_P0)\" = connected ]"
	echo "$hm0" > $CS/hb_missed_max
	echo "$hb0" > $CS/hb_interval_ms
fi

ktap_check "session closes" rift_test_close $S
__rift_run_deferred
ktap_check "modules unloaded" eval '! rift_loaded rift/rift-core'
ktap_finished
