#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 240
#
# The transport end to end over two Soft-RoCE links with the test ULP:
# a two-path session connects, data written is read back and verified at
# many sizes and depths, both paths carry IO, bad input is refused with a
# clear error, a version the server does not speak is refused with the
# reason in last_error, a path removed through its own sysfs file goes
# away cleanly, and everything unloads.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

S=t1
P0=198.18.0.2@198.18.0.1:7674
ktap_header
ktap_plan 21

ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules and test ULP load" rift_transport_up
defer sh -c "echo $S > $RIFT_TEST_DBG/close"

ktap_check "open a session over two paths" \
	sh -c "echo 'sessname=$S path=198.18.0.2@198.18.0.1 path=198.18.1.2@198.18.1.1' > $RIFT_TEST_DBG/open"
ktap_check "both paths connected" rift_wait_until 10 rift_all_paths_in $S connected
ls "$RIFT_CLT_SYSFS/$S/paths/" | sed 's/^/# path: /'
qd=$(cat "$RIFT_CLT_SYSFS/$S/queue_depth")
mio=$(cat "$RIFT_CLT_SYSFS/$S/max_io_size")
ktap_info "queue_depth=$qd max_io_size=$mio"
ktap_check "session limits are sane" test "$qd" -gt 0 -a "$mio" -ge 4096

ok=1
for len in 512 4096 65536 "$mio"; do
	for depth in 1 8; do
		rift_test_io $S write 0 "$len" "$len$depth" 16 "$depth" || ok=0
		rift_test_io $S verify 0 "$len" "$len$depth" 16 "$depth" || ok=0
		[ $ok = 1 ] || { ktap_info "failed at len=$len depth=$depth"; break 2; }
	done
done
ktap_check "write + verified read, 512 B..max_io_size, depth 1 and 8" test $ok = 1

rift_test_io $S write 0 4096 11 4 1
ktap_check "verify with the wrong seed detects the mismatch" \
	eval "! rift_test_io $S verify 0 4096 12 4 1 2>/dev/null"

w0=$(cat "$RIFT_CLT_SYSFS/$S/paths/$P0/stats/reqs_write")
w1=$(cat "$RIFT_CLT_SYSFS/$S"/paths/198.18.1.2*/stats/reqs_write)
ktap_info "writes per path: $w0 $w1"
ktap_check "both paths carried writes" test "$w0" -gt 0 -a "$w1" -gt 0

ktap_check "IO beyond the server's store fails cleanly" \
	eval "! rift_test_io $S write $((16 << 20)) 4096 1 2>/dev/null"
ktap_check "session still works after the refused IO" \
	eval "rift_test_io $S write 0 4096 5 && rift_test_io $S verify 0 4096 5"

ktap_check "add_path refuses garbage with EINVAL" \
	eval "! echo 'not-an-address@@' > $RIFT_CLT_SYSFS/$S/add_path 2>/dev/null"
ktap_check "open refuses unknown keys" \
	eval "! echo 'sessname=x bogus=1 path=198.18.0.1' > $RIFT_TEST_DBG/open 2>/dev/null"

P1=198.18.1.2@198.18.1.1:7674
ktap_check "remove_path through its own sysfs file" \
	sh -c "echo 1 > $RIFT_CLT_SYSFS/$S/paths/$P1/remove_path"
ktap_check "the path is gone and IO goes on" \
	eval "[ ! -e '$RIFT_CLT_SYSFS/$S/paths/$P1' ] && rift_test_io $S write 0 65536 9 8 4 && rift_test_io $S verify 0 65536 9 8 4"

# A client that only speaks version 2 is refused with the reason shown.
echo 2 > /sys/module/rift_client/parameters/test_proto_version
echo 198.18.1.2@198.18.1.1 > "$RIFT_CLT_SYSFS/$S/add_path"
err=$(cat "$RIFT_CLT_SYSFS/$S/paths/$P1/last_error")
ktap_info "last_error: $err"
ktap_check "server refuses a version it does not speak, reason in last_error" \
	eval "grep -q 'server refused: .*client speaks 2..2, server 1..1' <<<'$err'"
# It retries every reconnect_delay_ms, passing through "reconnecting"
# each time: a loaded host can read the state in that moment.
ktap_check "the refused path is in state error" \
	rift_wait_until 10 eval "[ \"\$(rift_path_state $S $P1)\" = error ]"
echo 0 > /sys/module/rift_client/parameters/test_proto_version
ktap_check "once the versions agree the path reconnects by itself" \
	rift_wait_until 30 eval "[ \"\$(rift_path_state $S $P1)\" = connected ]"
ktap_check "IO over the reconnected path" \
	eval "rift_test_io $S write 0 4096 3 32 8 && rift_test_io $S verify 0 4096 3 32 8"
echo 1 > "$RIFT_CLT_SYSFS/$S/paths/$P1/remove_path"
ktap_check "removing the last path is refused" \
	eval "! echo 1 > '$RIFT_CLT_SYSFS/$S/paths/$P0/remove_path' 2>/dev/null"

ktap_check "session closes" sh -c "echo $S > $RIFT_TEST_DBG/close"
__rift_run_deferred
ktap_check "modules unloaded" eval '! rift_loaded rift/rift-core'
ktap_finished
