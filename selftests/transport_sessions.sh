#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 240
#
# Sessions as both ends see them: a one-path and a two-path session come
# up; the server lists exactly those sessions and, for each, exactly the
# client's paths under the same names; client and server agree on every
# path's state, on the session's limits and on how many requests each
# path carried.  Removing and re-adding a path, a disconnect from the
# server's side and closing a session show up on both ends.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

A=s1
B=s2
ktap_header
ktap_plan 25

# sorted names of the entries of a directory, on one line
names()
{
	ls "$1" 2>/dev/null | sort | tr '\n' ' '
}

# paths_agree SESS: client and server list the same paths, every one in
# the same state, and that state is "connected".
paths_agree()
{
	local c s p
	c=$(names "$RIFT_CLT_SYSFS/$1/paths")
	s=$(names "$RIFT_SRV_SYSFS/$1/paths")
	[ -n "$c" ] && [ "$c" = "$s" ] || return 1
	for p in $c; do
		[ "$(rift_path_state "$1" "$p")" = connected ] || return 1
		[ "$(rift_srv_path_state "$1" "$p")" = connected ] || return 1
	done
}

show_paths()
{
	local p
	for p in "$RIFT_CLT_SYSFS/$1"/paths/*/; do
		p=$(basename "$p")
		ktap_info "$1 $p: client $(rift_path_state "$1" "$p") server $(rift_srv_path_state "$1" "$p")"
	done
	ktap_info "$1 server paths: $(names "$RIFT_SRV_SYSFS/$1/paths")"
}

ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules and test ULP load" rift_transport_up
defer rift_test_close $B
defer rift_test_close $A

ktap_check "open a one-path session" rift_test_open $A 198.18.0.2@198.18.0.1
ktap_check "open a two-path session" \
	rift_test_open $B 198.18.0.2@198.18.0.1 198.18.1.2@198.18.1.1
ktap_check "client: $A has one path, $B two, all connected" \
	eval "[ \"\$(names $RIFT_CLT_SYSFS/$A/paths)\" = '$RIFT_P0 ' ] &&
	      [ \"\$(names $RIFT_CLT_SYSFS/$B/paths)\" = '$RIFT_P0 $RIFT_P1 ' ] &&
	      rift_wait_until 10 rift_all_paths_in $A connected &&
	      rift_wait_until 10 rift_all_paths_in $B connected"

ktap_info "server sessions: $(names $RIFT_SRV_SYSFS)"
ktap_check "server lists exactly the two sessions" \
	test "$(names $RIFT_SRV_SYSFS)" = "$A $B "
ok=1
for s in $A $B; do
	st=$(cat "$RIFT_SRV_SYSFS/$s/state")
	port=$(cat "$RIFT_SRV_SYSFS/$s/port")
	ktap_info "server $s: state $st port $port"
	[ "$st" = connected ] && [ "$port" = 7674 ] || ok=0
done
ktap_check "server sessions connected, on port 7674" test $ok = 1

show_paths $A
show_paths $B
ktap_check "$A: server lists the client's path, states agree" paths_agree $A
ktap_check "$B: server lists both client paths, states agree" paths_agree $B

ok=1
for s in $A $B; do
	for f in queue_depth max_io_size; do
		c=$(cat "$RIFT_CLT_SYSFS/$s/$f")
		v=$(cat "$RIFT_SRV_SYSFS/$s/$f")
		ktap_info "$s $f: client $c server $v"
		[ "$c" = "$v" ] && [ "$c" -gt 0 ] || ok=0
	done
done
ktap_check "client and server agree on queue_depth and max_io_size" test $ok = 1

nc=$(cat "$RIFT_CLT_SYSFS/$B/nr_cons")
ok=1
for p in $RIFT_P0 $RIFT_P1; do
	cs=$(cat "$RIFT_SRV_SYSFS/$B/paths/$p/con_states")
	ktap_info "$B $p server con_states: $cs (client nr_cons $nc)"
	[ "$(wc -w <<<"$cs")" = "$nc" ] || ok=0
	[ -z "$(tr ' ' '\n' <<<"$cs" | grep -vx connected)" ] || ok=0
done
ktap_check "server: every connection of every path connected, as many as the client has" \
	test $ok = 1

# Each request is counted on submission by the client and on arrival by
# the server, on the path that carried it: the counters must match.
ok=1
rift_test_io $A write 0 4096 1 20 4 && rift_test_io $A verify 0 4096 1 20 4 || ok=0
rift_test_io $B write 0 8192 2 40 8 && rift_test_io $B verify 0 8192 2 40 8 || ok=0
ktap_check "verified IO on both sessions" test $ok = 1
ok=1
tot=0
for sp in $A/$RIFT_P0 $B/$RIFT_P0 $B/$RIFT_P1; do
	s=${sp%%/*}
	p=${sp#*/}
	for k in reqs_write reqs_read bytes_write bytes_read; do
		c=$(rift_clt_stat "$s" "$p" $k)
		v=$(rift_srv_stat "$s" "$p" $k)
		[ "$c" = "$v" ] || { ok=0; ktap_info "$s $p $k: client $c server $v"; }
	done
	n=$(($(rift_clt_stat "$s" "$p" reqs_write) + $(rift_clt_stat "$s" "$p" reqs_read)))
	ktap_info "$s $p: $n requests"
	tot=$((tot + n))
done
ktap_check "client and server count the same requests and bytes per path" test $ok = 1
ktap_check "every request counted once: 40 on $A, 80 on $B ($tot)" test $tot = 120
ktap_check "both paths of $B carried requests" \
	test "$(rift_srv_stat $B $RIFT_P0 reqs_write)" -gt 0 -a \
	     "$(rift_srv_stat $B $RIFT_P1 reqs_write)" -gt 0

ktap_check "remove_path on the client removes the server's path" \
	eval "echo 1 > $RIFT_CLT_SYSFS/$B/paths/$RIFT_P1/remove_path &&
	      rift_wait_until 10 eval '[ ! -e $RIFT_SRV_SYSFS/$B/paths/$RIFT_P1 ]' &&
	      paths_agree $B"
ktap_check "add_path brings it back on both ends" \
	eval "echo 198.18.1.2@198.18.1.1 > $RIFT_CLT_SYSFS/$B/add_path &&
	      rift_wait_until 10 paths_agree $B"

# The server drops a path: the client sees it fail, reconnects it after
# its reconnect delay, and the two agree again.
echo 1 > "$RIFT_SRV_SYSFS/$B/paths/$RIFT_P0/disconnect"
ktap_check "a disconnect from the server fails the client's path" \
	rift_wait_until 10 eval "[ \"\$(rift_path_state $B $RIFT_P0)\" != connected ]"
ktap_info "client state: $(rift_path_state $B $RIFT_P0), last_error: $(cat $RIFT_CLT_SYSFS/$B/paths/$RIFT_P0/last_error)"
ktap_check "the client reconnects it and both ends agree" rift_wait_until 30 paths_agree $B
show_paths $B
ktap_check "the client counted the reconnect" \
	test "$(rift_clt_stat $B $RIFT_P0 reconnects)" = 1
ktap_check "IO over the reconnected session" \
	eval "rift_test_io $B write 0 65536 3 32 8 && rift_test_io $B verify 0 65536 3 32 8"

ktap_check "closing $A removes it from the server" \
	eval "rift_test_close $A &&
	      rift_wait_until 10 eval '[ ! -e $RIFT_SRV_SYSFS/$A ] && [ ! -e $RIFT_CLT_SYSFS/$A ]'"
ktap_check "$B is untouched by that" \
	eval "paths_agree $B && rift_test_io $B verify 0 65536 3 32 8"
ktap_check "closing $B leaves the server without sessions" \
	eval "rift_test_close $B &&
	      rift_wait_until 10 eval '[ -z \"\$(names $RIFT_SRV_SYSFS)\" ]'"
__rift_run_deferred
ktap_check "modules unloaded" eval '! rift_loaded rift/rift-core'
ktap_finished
