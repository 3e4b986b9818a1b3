#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 600
#
# The server admits before it allocates, and bounds what clients can
# make it hold (Documentation/admin-guide.rst, "Admission limits"):
#  - its limits refuse values out of range;
#  - nothing is pinned without a session; a path's chunks are pinned once
#    it is admitted and count against max_pinned_mb: with memory credits
#    off (credit_floor 0, as for a client that does not offer them) a
#    path's whole queue depth, so that a path over it is refused (INFO_RSP
#    ENOSPC, the reason in the client's last_error) while the session's
#    other path works, and connects once the limit allows; with them (the
#    default) a path pins its floor only, and two paths fit where one
#    whole queue depth hardly does;
#  - CONNECT_REQUESTs over max_sessions, max_cons_per_path or
#    max_paths_per_session are refused with NO_RESOURCES, the reason in
#    the server's log, and nothing is left behind; a path already in the
#    session can still reconnect at the limit;
#  - with every session closed, nothing is pinned and no session counted.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

A=adm1
B=adm2
SP=/sys/module/rift_server/parameters
PB=/sys/kernel/rift_server/pinned_bytes
NS=/sys/kernel/rift_server/nr_sessions
ktap_header
ktap_plan 18

# refused FILE VALUE...: every VALUE written to FILE is refused (EINVAL).
refused()
{
	local f=$1 v
	shift
	for v in "$@"; do
		[ "$(rift_write "$f" "$v")" = "Invalid argument" ] || return 1
	done
}

# logged PATTERN N0: the kernel log has more than N0 lines with PATTERN.
logged()
{
	[ "$(dmesg | grep -c "$1")" -gt "$2" ]
}

ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules and test ULP load" rift_transport_up
defer rift_test_close $B
defer rift_test_close $A
ktap_check "the limits refuse 0 and values out of range" \
	eval "refused $SP/max_sessions 0 65537 && refused $SP/max_paths_per_session 0 1025 &&
	      refused $SP/max_cons_per_path 0 257 && refused $SP/max_pending_per_addr 0 65537 &&
	      refused $SP/setup_timeout_ms 999 600001 && refused $SP/max_pinned_mb 0 x"
ktap_check "nothing pinned, no session" eval "[ \$(cat $PB) = 0 ] && [ \$(cat $NS) = 0 ]"

# One path's chunks (128 x 132 KiB) fit in 20 MiB, two do not: session
# A's paths are admitted with memory credits off, each pinning its whole
# queue depth at admission, as a client without credits does.
CF=$(cat $SP/credit_floor)
echo 20 > $SP/max_pinned_mb
defer eval "echo 1024 > $SP/max_pinned_mb"
echo 0 > $SP/credit_floor
defer eval "echo $CF > $SP/credit_floor"
ktap_check "session $A over two paths opens under max_pinned_mb 20" \
	eval "rift_test_open $A 198.18.0.2@198.18.0.1 198.18.1.2@198.18.1.1 &&
	      rift_wait_until 10 eval '[ \"\$(rift_path_state $A $RIFT_P0)\" = connected ]'"
sleep 2
e1=$(cat $RIFT_CLT_SYSFS/$A/paths/$RIFT_P1/last_error)
ktap_info "pinned $(cat $PB) bytes; path 1: $(rift_path_state $A $RIFT_P1), last_error '$e1'"
ktap_check "the second path is refused for the pinned-memory limit, with the reason" \
	eval "[ \"\$(rift_path_state $A $RIFT_P1)\" != connected ] &&
	      grep -q 'pinned-memory limit' $RIFT_CLT_SYSFS/$A/paths/$RIFT_P1/last_error"
ktap_check "pinned bytes: the first path's chunks only, within the limit" \
	eval "[ \$(cat $PB) -gt 0 ] && [ \$(cat $PB) -le $((20 << 20)) ] &&
	      [ \$(cat $PB) = \$(cat $RIFT_SRV_SYSFS/$A/pinned_bytes) ]"
ktap_check "limit raised: the second path connects, verified IO over both" \
	eval "echo 1024 > $SP/max_pinned_mb && echo 1 > $RIFT_CLT_SYSFS/$A/paths/$RIFT_P1/reconnect &&
	      rift_wait_until 30 rift_all_connected $A && rift_test_io $A random 0 200 4 11"
# Session B from here on: credit_floor back to what it was (the default,
# 2: memory credits on).
echo "$CF" > $SP/credit_floor

# max_sessions: one session is all there is room for.
n0=$(dmesg | grep -c "max_sessions reached")
echo 1 > $SP/max_sessions
defer eval "echo 128 > $SP/max_sessions"
ktap_check "max_sessions 1: a second session is refused" \
	eval "! rift_test_open $B 198.18.0.2@198.18.0.1 2>/dev/null"
ktap_check "... with the reason in the server's log, and nothing left" \
	eval "rift_wait_until 5 logged 'max_sessions reached' $n0 && [ \$(cat $NS) = 1 ] &&
	      [ ! -e $RIFT_CLT_SYSFS/$B ]"
echo 128 > $SP/max_sessions
ktap_check "max_sessions back: the session opens" \
	eval "rift_test_open $B 198.18.0.2@198.18.0.1 && rift_wait_until 10 eval '[ \"\$(rift_path_state $B $RIFT_P0)\" = connected ]'"
# With memory credits a path is admitted with its floor and pins only
# that; credit_floor 0 (the opt-out) keeps the whole queue depth.
floor_pinned()
{
	local cs g pb
	cs=$(cat $RIFT_SRV_SYSFS/$B/chunk_size)
	g=$(cat $RIFT_SRV_SYSFS/$B/paths/$RIFT_P0/granted)
	pb=$(cat $RIFT_SRV_SYSFS/$B/pinned_bytes)
	ktap_info "session $B (credit_floor $CF): granted $g, pinned $pb bytes"
	if [ "$CF" = 0 ]; then
		[ "$g" = "$(cat $RIFT_SRV_SYSFS/$B/queue_depth)" ]
	else
		[ "$g" -le "$((CF > 2 ? CF : 2))" ] && [ "$pb" = $((g * cs)) ]
	fi
}
ktap_check "its path pins what credit_floor grants at admission: the floor, not its queue depth" floor_pinned

# max_cons_per_path: a path of three connections (control plus two IO)
# reconnects as a new instance, which asks again.
n0=$(dmesg | grep -c "connections, at most 1")
echo 1 > $SP/max_cons_per_path
defer eval "echo 64 > $SP/max_cons_per_path"
echo 1 > $RIFT_CLT_SYSFS/$B/paths/$RIFT_P0/reconnect
ktap_check "max_cons_per_path 1: the path's reconnect is refused, the reason logged" \
	eval "rift_wait_until 10 logged 'connections, at most 1' $n0 &&
	      [ \"\$(rift_path_state $B $RIFT_P0)\" != connected ]"
echo 64 > $SP/max_cons_per_path
ktap_check "limit back: it reconnects" \
	eval "echo 1 > $RIFT_CLT_SYSFS/$B/paths/$RIFT_P0/reconnect &&
	      rift_wait_until 30 eval '[ \"\$(rift_path_state $B $RIFT_P0)\" = connected ]'"

# max_paths_per_session: B has one path; a second is one too many.
n0=$(dmesg | grep -c "session has 1 paths already")
echo 1 > $SP/max_paths_per_session
defer eval "echo 16 > $SP/max_paths_per_session"
# The refused path must not retry: once the session's one path goes for
# its reconnect below, the server drops the session, and a retry of the
# refused path could then take the one place in the session anew.
mra=$(cat $RIFT_CLT_SYSFS/$B/max_reconnect_attempts)
echo 0 > $RIFT_CLT_SYSFS/$B/max_reconnect_attempts
echo 198.18.1.2@198.18.1.1 > $RIFT_CLT_SYSFS/$B/add_path 2>/dev/null
ktap_check "max_paths_per_session 1: a second path is refused, the reason logged" \
	eval "rift_wait_until 10 logged 'session has 1 paths already' $n0 &&
	      rift_wait_until 10 eval '[ \"\$(rift_path_state $B $RIFT_P1)\" = gave-up ]'"
echo "$mra" > $RIFT_CLT_SYSFS/$B/max_reconnect_attempts
ktap_check "a path already in the session still reconnects at the limit" \
	eval "echo 1 > $RIFT_CLT_SYSFS/$B/paths/$RIFT_P0/reconnect &&
	      rift_wait_until 30 eval '[ \"\$(rift_path_state $B $RIFT_P0)\" = connected ]'"
echo 16 > $SP/max_paths_per_session
ktap_check "limit back: it connects, verified IO on both sessions" \
	eval "echo 1 > $RIFT_CLT_SYSFS/$B/paths/$RIFT_P1/reconnect &&
	      rift_wait_until 30 rift_all_connected $B &&
	      rift_test_io $B random 0 200 4 12 && rift_test_io $A random 0 200 4 13"

ktap_check "sessions closed: nothing pinned, no session counted" \
	eval "rift_test_close $A && rift_test_close $B &&
	      rift_wait_until 20 eval '[ \$(cat $PB) = 0 ] && [ \$(cat $NS) = 0 ]'"
ktap_finished
