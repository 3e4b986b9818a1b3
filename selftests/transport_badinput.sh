#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 360
#
# Bad input through sysfs and debugfs is refused with a clear errno and
# changes nothing: after each attempt the session's paths and their
# states are what they were.  add_path: text that does not parse
# (EINVAL), addresses of different families (EINVAL), a path the session
# has (EEXIST).  disconnect, reconnect, remove_path, reset_all and the
# server's disconnect take "1" only (EINVAL).  A well-formed but
# unreachable address is documented to be accepted: the path is added in
# state error and keeps retrying, without disturbing the others, until it
# is removed.  The test ULP's open refuses a duplicate session name
# (EEXIST) and leaves nothing behind, as does an open no path of which
# can connect.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

S=bad
ktap_header
ktap_plan 28

# refused FILE TEXT ERROR: writing TEXT to FILE fails with ERROR (the
# strerror text) and the session's paths are unchanged.  Reports what
# happened instead.
refused()
{
	local got now
	got=$(rift_write "$1" "$2")
	now=$(rift_paths_snapshot $S)
	if [ "$got" = "$3" ] && [ "$now" = "$snap" ]; then
		return 0
	fi
	ktap_info "'$2' > ${1#"$RIFT_CLT_SYSFS"/}: got '$got', want '$3'"
	[ "$now" = "$snap" ] || ktap_info "paths now: $now"
	return 1
}

# all_refused FILE ERROR TEXT...: every TEXT is refused with ERROR.
all_refused()
{
	local f=$1 e=$2 ok=0
	shift 2
	for t in "$@"; do
		refused "$f" "$t" "$e" || ok=1
	done
	return $ok
}

# undo_path NAME: remove a path this test should not have been able to add.
undo_path()
{
	local p=$RIFT_CLT_SYSFS/$S/paths/$1
	[ -d "$p" ] || return 0
	ktap_info "added anyway: $1 state $(cat "$p/state"), last_error '$(cat "$p/last_error")'; removing it"
	echo 1 > "$p/remove_path"
}

ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules and test ULP load" rift_transport_up
defer rift_test_close $S
ktap_check "two-path session connected, with IO done" \
	eval "rift_test_open $S 198.18.0.2@198.18.0.1 198.18.1.2@198.18.1.1 &&
	      rift_wait_until 10 rift_all_paths_in $S connected &&
	      rift_test_io $S write 0 4096 1 16 4"
snap=$(rift_paths_snapshot $S)
ktap_info "paths: $snap"
ADD=$RIFT_CLT_SYSFS/$S/add_path

long=$(printf '1%.0s' {1..300})
ktap_check "add_path: text that does not parse is refused with EINVAL" \
	all_refused "$ADD" "Invalid argument" "" " " "not-an-address@@" \
		"198.18.0.2@" "@198.18.0.1" "198.18.0.2@198.18.0.1@198.18.1.1" \
		"198.18.0.256" "ip:" "ip:@ip:" \
		"198.18.0.2 198.18.0.1" "$long" "$long@198.18.0.1" \
		$'198.18.0.2@198.18.0.1\n198.18.1.1' "198.18.0.2@198.18.0.1/24" \
		"ip:198.18.0.2@ipv6:198.18.0.1" "rifta0"

# in4_pton() ends an IPv4 address at a ':': what follows must not be
# ignored (the port is not part of add_path's grammar).
ktap_check "add_path: text after an IPv4 address (':7674', ':junk') refused with EINVAL" \
	all_refused "$ADD" "Invalid argument" "198.18.0.2@198.18.0.1:7674" \
		"198.18.0.2@198.18.0.1:junk" "198.18.0.2:x@198.18.0.1"

# Each address parses on its own, but no route joins two families.
ktap_check "add_path: IPv4 source with IPv6 destination refused with EINVAL" \
	refused "$ADD" "198.18.0.2@2001:db8::1" "Invalid argument"
undo_path "198.18.0.2@[2001:db8::1]:7674"
ktap_check "add_path: IPv6 source with IPv4 destination refused with EINVAL" \
	refused "$ADD" "::1@198.18.0.1" "Invalid argument"
undo_path "::1@198.18.0.1:7674"
snap=$(rift_paths_snapshot $S)

ktap_check "add_path: a path the session has is refused with EEXIST" \
	all_refused "$ADD" "File exists" "198.18.0.2@198.18.0.1" \
		"ip:198.18.0.2@ip:198.18.0.1" "198.18.1.2@198.18.1.1" \
		"198.18.1.2@ip:198.18.1.1"

# Well-formed and reachable by route, but nobody answers ARP: the write
# succeeds once the first attempt failed (rdma_cm's address resolution
# times out, ~5 s), and the path stays in the session, retrying.
U=198.18.0.2@198.18.0.99:7674
t0=$(rift_now_ms)
r=$(rift_write "$ADD" 198.18.0.2@198.18.0.99)
ktap_info "add_path of an unreachable address: '$r' after $(($(rift_now_ms) - t0)) ms"
ktap_check "add_path: an unreachable address is accepted" test "$r" = ok
ust=$(rift_path_state $S $U)
uerr=$(cat "$RIFT_CLT_SYSFS/$S/paths/$U/last_error" 2>/dev/null)
ktap_info "its state: $ust, last_error: '$uerr'"
ktap_check "it is in state error (or already retrying) with the reason in last_error" \
	eval "[[ '$ust' =~ ^(error|reconnecting)$ ]] && [[ '$uerr' =~ 'address error' ]]"
ktap_check "a second add of it is refused with EEXIST" \
	eval "[ \"\$(rift_write $ADD 198.18.0.2@198.18.0.99)\" = 'File exists' ]"
sleep 6
ktap_info "6 s later: $(rift_path_state $S $U), $(cat "$RIFT_CLT_SYSFS/$S/paths/$U/last_error")"
ktap_check "it keeps retrying; the other paths are untouched and carry IO" \
	eval "[[ '$(rift_path_state $S $U)' =~ ^(error|reconnecting)$ ]] &&
	      [ \$(cat $RIFT_CLT_SYSFS/$S/connected_paths) = 2 ] &&
	      rift_test_io $S verify 0 4096 1 16 4"
ktap_check "remove_path removes it; the paths are as before" \
	eval "echo 1 > $RIFT_CLT_SYSFS/$S/paths/$U/remove_path &&
	      [ \"\$(rift_paths_snapshot $S)\" = '$snap' ]"

BAD=("0" "2" "yes" "" " 1" "1 1" "11" "-1" "01" "true")
for f in disconnect reconnect remove_path; do
	ok=0
	for p in $RIFT_P0 $RIFT_P1; do
		all_refused "$RIFT_CLT_SYSFS/$S/paths/$p/$f" "Invalid argument" "${BAD[@]}" || ok=1
	done
	ktap_check "$f takes only 1: other values refused with EINVAL" test $ok = 0
done
w0=$(rift_clt_stat $S $RIFT_P0 reqs_write)
ktap_check "stats/reset_all takes only 1: other values refused with EINVAL" \
	all_refused "$RIFT_CLT_SYSFS/$S/paths/$RIFT_P0/stats/reset_all" "Invalid argument" "${BAD[@]}"
ktap_check "and the counters were not reset ($w0 writes)" \
	test "$(rift_clt_stat $S $RIFT_P0 reqs_write)" = "$w0" -a "$w0" -gt 0
ktap_check "the server's disconnect takes only 1: other values refused with EINVAL" \
	all_refused "$RIFT_SRV_SYSFS/$S/paths/$RIFT_P0/disconnect" "Invalid argument" "${BAD[@]}"
# A disconnect that got through would show as a reconnect by now.
sleep 3
ktap_check "no path went down: no reconnect counted, both ends connected" \
	eval "[ \"\$(rift_paths_snapshot $S)\" = '$snap' ] &&
	      [ \$(rift_clt_stat $S $RIFT_P0 reconnects) = 0 ] &&
	      [ \$(rift_clt_stat $S $RIFT_P1 reconnects) = 0 ] &&
	      [ \$(rift_srv_path_state $S $RIFT_P0) = connected ] &&
	      [ \$(rift_srv_path_state $S $RIFT_P1) = connected ]"

# The test ULP.
IO=$RIFT_TEST_DBG/$S/io
ktap_check "io: malformed random runs refused with EINVAL" \
	eval "[ \"\$(rift_write $IO 'random 0 0 8 1')\" = 'Invalid argument' ] &&
	      [ \"\$(rift_write $IO 'random 0 10 0 1')\" = 'Invalid argument' ] &&
	      [ \"\$(rift_write $IO 'random 0 10 65 1')\" = 'Invalid argument' ] &&
	      [ \"\$(rift_write $IO 'random 0 10')\" = 'Invalid argument' ] &&
	      [ \"\$(rift_write $IO 'bogus 0 4096 1')\" = 'Invalid argument' ]"
ktap_check "io: a random run the store cannot hold refused with ERANGE" \
	eval "[ \"\$(rift_write $IO \"random $((15 << 20)) 10 16 1\")\" = 'Numerical result out of range' ]"
sessions()
{
	echo "client: $(ls $RIFT_CLT_SYSFS | tr '\n' ' ')server: $(rift_srv_sessions | tr '\n' ' ')debugfs: $(ls -d $RIFT_TEST_DBG/*/ | tr '\n' ' ')"
}
before=$(sessions)
ktap_info "$before"
ktap_check "open with the name of an open session refused with EEXIST" \
	eval "[ \"\$(rift_write $RIFT_TEST_DBG/open 'sessname=$S path=198.18.1.2@198.18.1.1')\" = 'File exists' ]"
ktap_check "and nothing is left behind" eval "[ \"\$(sessions)\" = '$before' ]"
t0=$(rift_now_ms)
r=$(rift_write "$RIFT_TEST_DBG/open" "sessname=nowhere path=198.18.0.2@198.18.0.99")
ktap_info "open with no reachable path: '$r' after $(($(rift_now_ms) - t0)) ms"
ktap_check "open with no reachable path fails and leaves nothing behind" \
	eval "[ '$r' != ok ] && [ \"\$(sessions)\" = '$before' ]"
ktap_check "the session still works, its paths as before" \
	eval "rift_test_io $S verify 0 4096 1 16 4 && [ \"\$(rift_paths_snapshot $S)\" = '$snap' ]"

ktap_check "session closes" rift_test_close $S
__rift_run_deferred
ktap_check "modules unloaded" eval '! rift_loaded rift/rift-core'
ktap_finished
