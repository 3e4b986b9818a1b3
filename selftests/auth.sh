#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 600
#
# Rift refuses hosts it does not know and authenticates those with a
# secret (Documentation/security.rst):
#  - a host not on the server's list is refused, the reason in the
#    client's log ("host not allowed"), and the server pins nothing;
#  - a host with a secret is refused without it, and with a wrong one,
#    and admitted with the right one; the server shows the session's host
#    name, host UUID and that it authenticated;
#  - mutual: a client requiring the server's proof refuses a server with
#    the wrong server secret, and accepts the right one;
#  - a foreign join (another client presenting the victim session's UUID,
#    name and host name, without the secret) is refused while the victim's
#    verified IO goes on;
#  - a secret changed on the server refuses the path's next reconnect with
#    the reason in last_error; restored, the path reconnects;
#  - secrets are write-only.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

S=au1
M=au2
H=$(uname -n)
HK=/sys/kernel/rift_server/hosts/$H
PB=/sys/kernel/rift_server/pinned_bytes
KEY=00112233445566778899aabbccddeeff0011223344556677
BAD=ffeeddccbbaa99887766554433221100ffeeddccbbaa9988
SKEY=0f1e2d3c4b5a69788796a5b4c3d2e1f0
peer=$RIFT_TREE/tools/peer/rift-peer

ktap_header
ktap_plan 21

# map_fails LINE PATTERN [ERRNO_TEXT]: map_device refuses LINE (with
# ERRNO_TEXT, as the shell words it) and the kernel log gains a line
# matching PATTERN.
map_fails()
{
	local n0 e
	n0=$(dmesg | grep -c -- "$2")
	e=$(rift_write "$RIFTBLK_CTL/map_device" "$1")
	echo "# map_device: $e"
	[ "$e" != ok ] && { [ -z "$3" ] || [ "$e" = "$3" ]; } &&
		rift_wait_until 5 eval "[ \$(dmesg | grep -c -- '$2') -gt $n0 ]"
}

ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules load" riftblk_up
ktap_check "memory-backed null_blk, 128 MiB" riftblk_nullb rbau0 128
ktap_check "memory-backed null_blk, 64 MiB" riftblk_nullb rbau1 64

line="sessname=$S path=198.18.0.2@198.18.0.1 path=198.18.1.2@198.18.1.1 device_path=/dev/rbau0"
echo "$H" > /sys/kernel/rift_server/remove_host
ktap_check "unknown host: refused, 'host not allowed', nothing pinned, no session" \
	eval "map_fails '$line' 'server refused the path: host not allowed' 'Permission denied' &&
	      [ \$(cat $PB) = 0 ] && [ -z \"\$(rift_srv_sessions)\" ]"

echo "$H" > /sys/kernel/rift_server/add_host
echo "$KEY" > "$HK/secret"
ktap_check "host with a secret, client without: refused, authentication required" \
	eval "map_fails '$line' 'server requires authentication' 'Required key not available' &&
	      [ \$(cat $PB) = 0 ]"
ktap_check "wrong secret: refused, 'authentication failed'" \
	eval "map_fails '$line secret=$BAD' 'authentication failed (wrong secret)' 'Key was rejected by service' &&
	      [ \$(cat $PB) = 0 ]"
ktap_check "a secret that is not hex: refused by the parser, the value not logged" \
	eval "map_fails '$line secret=xyz' 'secret is 16..64 bytes' &&
	      ! dmesg | grep -q 'xyz'"

dev=$(riftblk_map "$line secret=$KEY")
ktap_check "right secret: mapped over both paths ($dev)" \
	eval "[ -b '$dev' ] && rift_wait_until 30 riftblk_all_connected $S"
uuid=$(cat /sys/module/rift_client/parameters/host_uuid)
ktap_check "the server shows host name, host UUID and authentication" \
	eval "[ \"\$(cat $RIFT_SRV_SYSFS/$S/host_name)\" = '$H' ] &&
	      [ \"\$(cat $RIFT_SRV_SYSFS/$S/host_uuid)\" = '$uuid' ] &&
	      [ \$(cat $RIFT_SRV_SYSFS/$S/authenticated) = 1 ]"
ktap_info "host $H uuid $uuid"

# Mutual authentication on a second session.
echo "$SKEY" > "$HK/server_secret"
mline="sessname=$M path=198.18.0.2@198.18.0.1 device_path=/dev/rbau1 secret=$KEY"
ktap_check "mutual: the server proves the wrong server secret, the client refuses it" \
	eval "map_fails '$mline server_secret=$KEY' 'server failed authentication (wrong secret)' \
		'Key was rejected by service'"
mdev=$(riftblk_map "$mline server_secret=$SKEY")
ktap_check "mutual: the right server secret, mapped ($mdev)" \
	eval "[ -b '$mdev' ] && rift_wait_until 20 rift_both_connected $M $RIFTBLK_P0"
ktap_check "mutual: server secret cleared, the server proves the host's secret: refused" \
	eval "echo '' > $HK/server_secret && { echo 1 > $RIFT_CLT_SYSFS/$M/paths/$RIFTBLK_P0/reconnect; } 2>/dev/null;
	      rift_wait_until 20 grep -q 'server failed authentication' \
		$RIFT_CLT_SYSFS/$M/paths/$RIFTBLK_P0/last_error"
echo "$SKEY" > "$HK/server_secret"
ktap_check "server secret back: the path reconnects" \
	eval "echo 1 > $RIFT_CLT_SYSFS/$M/paths/$RIFTBLK_P0/reconnect &&
	      rift_wait_until 30 rift_both_connected $M $RIFTBLK_P0"
ktap_check "unmap the mutual session" riftblk_unmap "$mdev"

# A foreign join while the victim runs verified IO.
out=$(mktemp -d)
defer rm -rf "$out"
riftblk_fio_verify "$dev" auth "$out" 25 &
fio_pid=$!
sleep 3
suuid=$(cat $RIFT_SRV_SYSFS/$S/uuid)
timeout -k 5 60 "$peer" -s 198.18.0.2 -d 198.18.0.1 -p $RIFTBLK_PORT \
	-V "$suuid:$S:$H" foreign_join foreign_join_bad_proof > "$out/peer" 2>&1
prc=$?
sed 's/^/# peer: /' "$out/peer"
ktap_check "foreign join as host $H without the secret: refused (no proof, wrong proof)" \
	eval "[ $prc = 0 ] && grep -q '^ok 1 foreign_join$' $out/peer &&
	      grep -q '^ok 2 foreign_join_bad_proof$' $out/peer"
wait "$fio_pid"
rc=$?
sum=$(riftblk_fio_report "$out/auth.json" "$rc")
ktap_info "$sum"
ktap_check "the victim's verified IO: zero errors, both paths still connected" \
	eval "riftblk_fio_report '$out/auth.json' '$rc' > /dev/null && riftblk_all_connected $S"

# A changed secret refuses the path's next reconnect.
echo "$BAD" > "$HK/secret"
ktap_check "secret changed on the server: path 1's reconnect is refused, the reason in last_error" \
	eval "{ echo 1 > $RIFT_CLT_SYSFS/$S/paths/$RIFTBLK_P1/reconnect; } 2>/dev/null;
	      rift_wait_until 20 grep -q 'authentication failed' \
		$RIFT_CLT_SYSFS/$S/paths/$RIFTBLK_P1/last_error"
echo "$KEY" > "$HK/secret"
ktap_check "secret restored: path 1 reconnects" \
	eval "echo 1 > $RIFT_CLT_SYSFS/$S/paths/$RIFTBLK_P1/reconnect &&
	      rift_wait_until 30 riftblk_all_connected $S"

ktap_check "secrets are write-only" \
	eval "[ \"\$(stat -c %a $HK/secret)\" = 200 ] && [ \"\$(stat -c %a $HK/server_secret)\" = 200 ] &&
	      ! cat $HK/secret 2>/dev/null && ! cat $HK/server_secret 2>/dev/null &&
	      [ \$(cat $HK/has_secret) = 1 ] && [ \$(cat $HK/has_server_secret) = 1 ]"
ktap_check "unmap" riftblk_unmap "$dev"
ktap_finished
