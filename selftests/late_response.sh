#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 300
#
# A timed-out request must not let a late answer land in reused memory
# (the bug class where a timed-out RDMA read's buffer was reused and then
# overwritten by the late transfer).  rift-test-srv's delay_next_ms holds
# one answer back past the client's io_timeout_ms (only a request at
# store offset delay_offset, 0 here, so other IO runs meanwhile):
#  - the request fails with -ETIMEDOUT near io_timeout_ms, its pages are
#    refilled with a new pattern at once, and that pattern is intact after
#    the late answer;
#  - with CANCEL (default) the server answers without the data: the path
#    stays up, the late answer is counted and its permit comes back;
#  - with the server's cancel parameter off, the late RDMA WRITE hits the
#    read's invalidated MR and the client's device refuses it (counted on
#    the server); that breaks the connection, the path reconnects, and
#    verified IO goes on;
#  - a timed-out write completes only behind a fence WR, and its late
#    answer is absorbed the same way.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

S=late
ktap_header
ktap_plan 21

CS=$RIFT_CLT_SYSFS/$S
SS=$RIFT_SRV_SYSFS/$S
DELAY=/sys/module/rift_test_srv/parameters/delay_next_ms
TMO=2000

sum_both()
{
	echo $(($(rift_clt_stat $S $RIFT_P0 "$1") + $(rift_clt_stat $S $RIFT_P1 "$1")))
}

srv_sum()
{
	echo $(($(rift_srv_stat $S $RIFT_P0 "$1") + $(rift_srv_stat $S $RIFT_P1 "$1")))
}

all_connected()
{
	rift_all_connected $S
}

# counters() prints what the checks below compare, so that a failure
# says which count moved.
counters()
{
	ktap_info "reconnects $(sum_both reconnects) timeouts $(sum_both timeouts)" \
		"late_responses $(sum_both late_responses) cancelled $(srv_sum cancelled)" \
		"writes_refused $(cat $SS/writes_refused) bounced_reads $(sum_both bounced_reads)" \
		"states $(cat $CS/paths/$RIFT_P0/state) $(cat $CS/paths/$RIFT_P1/state)"
}

last()
{
	cat "$RIFT_TEST_DBG/$S/last"
}

# took_ok: the request failed between io_timeout_ms and one tick later
# (hb_interval_ms 500) plus slack.
took_ok()
{
	local ms
	ms=$(last | sed -n 's/.*-ETIMEDOUT after \([0-9]*\) ms.*/\1/p')
	[ -n "$ms" ] && [ "$ms" -ge $TMO ] && [ "$ms" -le $((TMO + 500 + 1500)) ]
}

ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules and test ULP load (64 MiB store)" rift_transport_up store_mb=64
# Staging slots of one page, as the client's smallest setting: reads
# above it register their own MR, whose invalidation the cancel-off case
# needs; the one-page reads check the staging slots (by default every
# read takes one, and a timed-out read's slot waits as a page does here).
echo 4 > /sys/module/rift_client/parameters/read_bounce_kb
# The paths must be ones that nothing but a late answer can break, and
# rxe 6.1 wedges a QP that retransmits across a REG_MR it already ran
# (Documentation/admin-guide.rst, "Stalled connections"): memory credits
# granted on demand post REG_MRs on connection 0, whose wedge silences
# the path's heartbeats both ways (repeating the write case 45 times, 3
# paths failed so: each after "rxe_reg_fast_mr: ... not free", with
# connection 0's PSNs frozen on both ends; 0 of 40 once nothing was
# registered after connect).  A floor of the whole queue grants every
# chunk at connect, with credits still on; late_response_credits_off
# runs without them.  The verified runs whose paths the late answers'
# checks then count reconnects on keep their reads in the staging pages,
# which need no registration either (the 1 B..8 KiB run at the end takes
# reads of their own MR).
CF=/sys/module/rift_server/parameters/credit_floor
[ "$(cat $CF)" = 0 ] || echo 4096 > $CF
defer rift_test_close $S
ktap_check "two-path session, io_timeout_ms $TMO" \
	eval "rift_test_open $S 198.18.0.2@198.18.0.1 198.18.1.2@198.18.1.1 &&
	      rift_wait_until 10 all_connected && echo 500 > $CS/hb_interval_ms &&
	      echo $TMO > $CS/io_timeout_ms && echo 200 > $CS/reconnect_delay_ms &&
	      echo 1000 > $CS/reconnect_delay_max_ms"
ktap_check "data to read back" rift_test_io $S write 0 65536 5 4 1

# --- with CANCEL ---------------------------------------------------------
rc0=$(sum_both reconnects)
t0=$(sum_both timeouts)
l0=$(sum_both late_responses)
c0=$(srv_sum cancelled)
echo 4000 > $DELAY
ktap_check "a read answered 4 s late fails with -ETIMEDOUT, reused pages intact" \
	rift_test_io $S late 0 65536 7 4000
ktap_info "$(last)"
ktap_check "it failed near io_timeout_ms" took_ok
counters
ktap_check "counted: timeout, cancelled on the server, late answer absorbed" \
	eval "[ \$(sum_both timeouts) = $((t0 + 1)) ] && [ \$(srv_sum cancelled) = $((c0 + 1)) ] &&
	      rift_wait_until 5 eval '[ \$(sum_both late_responses) = $((l0 + 1)) ]'"
ktap_check "the path stayed up: no reconnect, nothing refused" \
	eval "all_connected && [ \$(sum_both reconnects) = $rc0 ] &&
	      [ \$(cat $SS/writes_refused) = 0 ]"
# Verification runs get a long timeout: under TCG, rxe can stall a
# connection for longer than 2 s (the stall probe then fails its path).
e0=$(rift_test_stat $S errors)
ktap_check "the permit came back: a verified run at depth 64 passes" \
	eval "echo 30000 > $CS/io_timeout_ms &&
	      rift_test_io $S random 8388608 1000 64 8 4096 && [ \$(rift_test_stat $S errors) = $e0 ] &&
	      echo $TMO > $CS/io_timeout_ms"

# The verified run may have lost a path to an rxe stall (and it passes
# anyway, by failover): wait for it, and count the write's reconnects
# from here.
rift_wait_until 30 all_connected
counters
rc0=$(sum_both reconnects)
t0=$(sum_both timeouts)
l0=$(sum_both late_responses)
echo 3000 > $DELAY
ktap_check "a write answered 3 s late fails with -ETIMEDOUT" \
	rift_test_io $S latew 0 65536 9 3000
ktap_info "$(last)"
counters
ktap_check "write: timeout and late answer counted, path up" \
	eval "took_ok && [ \$(sum_both timeouts) = $((t0 + 1)) ] &&
	      rift_wait_until 5 eval '[ \$(sum_both late_responses) = $((l0 + 1)) ]' &&
	      all_connected && [ \$(sum_both reconnects) = $rc0 ]"

# --- without CANCEL: the invalidated MR is the defence ------------------
ktap_check "server cancel off; paths renegotiate" \
	eval "echo N > /sys/module/rift_server/parameters/cancel &&
	      echo 1 > $CS/paths/$RIFT_P0/disconnect && echo 1 > $CS/paths/$RIFT_P1/disconnect &&
	      echo 1 > $CS/paths/$RIFT_P0/reconnect && echo 1 > $CS/paths/$RIFT_P1/reconnect &&
	      rift_wait_until 30 all_connected"
rc0=$(sum_both reconnects)
w0=$(cat $SS/writes_refused)
e0=$(rift_test_stat $S errors)
echo 4000 > $DELAY
rift_test_io $S late 0 65536 13 4000
ok=$?
ktap_info "$(last)"
ktap_check "no CANCEL: -ETIMEDOUT, and the reused pages intact after the late write" \
	test $ok = 0
ktap_check "the late write was refused by the client's device (counted)" \
	rift_wait_until 10 eval "[ \$(cat $SS/writes_refused) -gt $w0 ]"
ktap_check "the refused connection's path reconnects" \
	rift_wait_until 30 eval "all_connected && [ \$(sum_both reconnects) -gt $rc0 ]"
ktap_check "verified IO on the recovered paths" \
	eval "echo 30000 > $CS/io_timeout_ms &&
	      rift_test_io $S random 8388608 1000 16 11 4096 && [ \$(rift_test_stat $S errors) = $e0 ] &&
	      [ \$(rift_test_bad_completions) = 0 ]"

# A read of one page lands in the path's staging page of its permit, which
# stays registered: the late write is not refused, and it must not reach
# the reader's pages nor a later request (the permit is held back).
rc0=$(sum_both reconnects)
w0=$(cat $SS/writes_refused)
l0=$(sum_both late_responses)
b0=$(sum_both bounced_reads)
e0=$(rift_test_stat $S errors)
echo $TMO > $CS/io_timeout_ms
echo 4000 > $DELAY
ktap_check "no CANCEL, 4 KiB read (staging page): -ETIMEDOUT, reused pages intact" \
	rift_test_io $S late 0 4096 15 4000
ktap_info "$(last); bounced_reads +$(($(sum_both bounced_reads) - b0))"
counters
ktap_check "the late write landed in the staging page: absorbed, not refused, path up" \
	eval "rift_wait_until 5 eval '[ \$(sum_both late_responses) = $((l0 + 1)) ]' &&
	      [ \$(cat $SS/writes_refused) = $w0 ] && all_connected &&
	      [ \$(sum_both reconnects) = $rc0 ] && [ \$(sum_both bounced_reads) -gt $b0 ]"
b0=$(sum_both bounced_reads)
ktap_check "verified IO of 1 B..8 KiB after it (reads staged and not), permits reused" \
	eval "echo 30000 > $CS/io_timeout_ms &&
	      rift_test_io $S random 8388608 2000 64 17 8192 && [ \$(rift_test_stat $S errors) = $e0 ] &&
	      [ \$(rift_test_bad_completions) = 0 ] && [ \$(sum_both bounced_reads) -gt $((b0 + 100)) ]"
ktap_info "bounced_reads +$(($(sum_both bounced_reads) - b0)) of $(last)"
echo Y > /sys/module/rift_server/parameters/cancel

ktap_check "session closes" rift_test_close $S
__rift_run_deferred
ktap_check "modules unloaded" eval '! rift_loaded rift/rift-core'
ktap_finished
