#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 420
#
# riftctl (tools/riftctl) against the real modules: every command once on
# a riftblk device mapped over a two-path session (host allow-list and
# secrets, exports when riftblk-server has them, map, list/show/server
# list as text and JSON, set, path add/remove/reconnect/disconnect,
# stats, unmap while open, remap, server close/disconnect, unmap; apply
# of a configuration: refused whole for a bad line, idempotent, and
# bringing everything back after a module reload), and bad input: each bad command exits 2 (usage) or 1 (refused) with a
# message that says what to fix, and the sysfs state is the same after
# it as before.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

RC=$RIFT_TREE/tools/riftctl/riftctl
[ -x "$RC" ] || ktap_skip_all "riftctl not built (make -C tools/riftctl)"
S=ctl
NB=riftctlnb0
OUT=/tmp/riftctl
HOST=$(uname -n)
ktap_header
ktap_plan 38
mkdir -p "$OUT"

# rc_run EXPECTED_RC ERR_REGEX ARGS...: riftctl ARGS exits EXPECTED_RC
# and (if ERR_REGEX is not empty) its stderr matches ERR_REGEX.
rc_run()
{
	local want=$1 re=$2 rc
	shift 2
	"$RC" "$@" > "$OUT/out" 2> "$OUT/err"
	rc=$?
	if [ $rc != "$want" ]; then
		ktap_info "riftctl $*: exit $rc, wanted $want: $(head -c 300 "$OUT/err")"
		return 1
	fi
	if [ -n "$re" ] && ! grep -Eq -- "$re" "$OUT/err"; then
		ktap_info "riftctl $*: stderr '$(head -c 300 "$OUT/err")' does not match '$re'"
		return 1
	fi
}

# state: what riftctl could change, one line each (secrets as has_*).
state()
{
	local f
	{
		ls -d /sys/block/riftblk* 2>/dev/null
		ls "$RIFT_CLT_SYSFS"
		ls "$RIFT_CLT_SYSFS"/*/paths 2>/dev/null
		for f in "$RIFT_CLT_SYSFS"/*/{mp_policy,*_ms,hb_missed_max,max_reconnect_attempts,always_invalidate} \
			 "$RIFT_SRV_KOBJ"/hosts/*/has_* /sys/block/riftblk*/riftblk/state \
			 $RIFTBLK_SRV_SYSFS/*/sessions/*/access_mode \
			 /sys/kernel/riftblk_server/exports/*/*; do
			[ -r "$f" ] && echo "$f=$(cat "$f")"
		done
	} 2>/dev/null
}

# json EXPR: evaluate the python EXPR (on one or more lines) on riftctl's
# last output, as j.
json()
{
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if eval(" ".join(sys.argv[2].split())) else 1)' \
		"$OUT/out" "$1"
}

ktap_check "two rxe links" rift_rxe_pairs 2
ktap_check "modules load" riftblk_up
if type riftblk_nullb_noexport >/dev/null 2>&1; then
	mk_nullb=riftblk_nullb_noexport
else
	mk_nullb=riftblk_nullb
fi
ktap_check "null_blk backing device" $mk_nullb $NB 64

# --- server: hosts and exports ---
openssl rand -hex 32 > "$OUT/secret"
echo 0123 > "$OUT/short"
chmod 600 "$OUT/secret" "$OUT/short"
ktap_check "host add/secret/clear/remove" eval '
	rc_run 0 "" host add ctlhost &&
	[ -d $RIFT_SRV_KOBJ/hosts/ctlhost ] &&
	rc_run 0 "" host secret ctlhost --file "$OUT/secret" &&
	[ "$(cat $RIFT_SRV_KOBJ/hosts/ctlhost/has_secret)" = 1 ] &&
	rc_run 0 "" host secret ctlhost --server --file "$OUT/secret" &&
	[ "$(cat $RIFT_SRV_KOBJ/hosts/ctlhost/has_server_secret)" = 1 ] &&
	rc_run 0 "" host secret ctlhost --clear &&
	[ "$(cat $RIFT_SRV_KOBJ/hosts/ctlhost/has_secret)" = 0 ] &&
	rc_run 0 "" host list --json && json "\"ctlhost\" in [h[\"name\"] for h in j[\"hosts\"]]" &&
	rc_run 0 "" host remove ctlhost && [ ! -e $RIFT_SRV_KOBJ/hosts/ctlhost ]'
ktap_check "host add with a secret file" eval '
	rc_run 0 "" host add ctlhost2 --secret-file "$OUT/secret" &&
	[ "$(cat $RIFT_SRV_KOBJ/hosts/ctlhost2/has_secret)" = 1 ] &&
	rc_run 0 "" host remove ctlhost2'

if [ -e /sys/kernel/riftblk_server/add_export ]; then
	ktap_check "export add, list --json" eval '
		rc_run 0 "" export add /dev/$NB --hosts "*" --access rw &&
		rc_run 0 "" export list --json &&
		json "any(e[\"path\"] == \"/dev/$NB\" and e[\"access\"] == \"rw\" for e in j[\"exports\"])"'
	defer "$RC" export remove /dev/$NB
else
	ktap_check "export list without the export ABI: exit 1, says why" \
		rc_run 1 "too old to have exports|not loaded" export list
fi

# --- client: map and look ---
# The kernel's uevents, read straight from its netlink socket (the VM
# runs no udevd): each event as its KEY=VALUE lines.
rm -f "$OUT/uevents"
python3 -c '
import socket, sys
s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)  # NETLINK_KOBJECT_UEVENT
s.bind((0, 1))
out = open(sys.argv[1], "w", buffering=1)
out.write("READY\n\n")
while True:
    out.write(s.recv(65536).replace(b"\0", b"\n").decode(errors="replace") + "\n")
' "$OUT/uevents" &
mon=$!
defer kill $mon
# Bound before the map: a fixed second was a guess at how long python
# takes to start, which a slower guest could outlast.
rift_wait_until "$(rift_scaled 10)" grep -qs '^READY$' "$OUT/uevents" ||
	ktap_info "the uevent monitor did not start"
dev=$("$RC" map $S /dev/$NB --path 198.18.0.2@198.18.0.1 --path 198.18.1.2@198.18.1.1 2> "$OUT/err")
ktap_check "map prints the new device: $dev" rift_wait_until 5 test -b "$dev"
[ -b "$dev" ] || ktap_info "map: $(cat "$OUT/err")"
d=$(basename "$dev")

# --- udev: /dev/disk/by-id/riftblk-<session>-<path> ---
id="$S-dev_$NB"
ktap_check "riftblk/stable_name is <session>-<path, '/' as '_'>: $id" \
	test "$(cat /sys/block/$d/riftblk/stable_name 2>/dev/null)" = "$id"
ktap_check "a change event carries RIFTBLK_ID, RIFTBLK_SESSION, RIFTBLK_PATH" eval '
	rift_wait_until 5 grep -qx "RIFTBLK_ID=$id" "$OUT/uevents" &&
	grep -qx "RIFTBLK_SESSION=$S" "$OUT/uevents" &&
	grep -qx "RIFTBLK_PATH=/dev/$NB" "$OUT/uevents"'
grep -qx "RIFTBLK_ID=$id" "$OUT/uevents" ||
	ktap_info "uevents: $(grep -c . "$OUT/uevents") lines, $(grep -c '^ACTION=change' "$OUT/uevents") change events: $(grep RIFTBLK "$OUT/uevents" | tr "\n" " ")$(sed -n '3,4p' "$OUT/uevents" | tr "\n" " ")"
# udev reads rules from /run too; the tree's rule, as installed.
mkdir -p /run/udev/rules.d
cp "$RIFT_TREE/tools/riftctl/udev/60-riftblk.rules" /run/udev/rules.d/
defer rm -f /run/udev/rules.d/60-riftblk.rules
udevadm test --action=add "/sys/block/$d" > "$OUT/udevtest" 2>&1
ktap_check "udevadm test: the disk gets disk/by-id/riftblk-$id" \
	grep -q "DEVLINKS=.*/dev/disk/by-id/riftblk-$id\\( \\|$\\)" "$OUT/udevtest"
grep -q "DEVLINKS=.*riftblk-$id" "$OUT/udevtest" ||
	ktap_info "udevadm test: $(grep -E "DEVLINKS|riftblk|rules" "$OUT/udevtest" | head -5 | tr "\n" " ")"
echo ",,L" | sfdisk -q "$dev" > "$OUT/sfdisk" 2>&1
rift_wait_until 5 test -e "/sys/block/$d/${d}p1"
udevadm test --action=add "/sys/block/$d/${d}p1" > "$OUT/udevtest1" 2>&1
ktap_check "udevadm test: its partition 1 gets disk/by-id/riftblk-$id-part1" \
	grep -q "DEVLINKS=.*/dev/disk/by-id/riftblk-$id-part1" "$OUT/udevtest1"
grep -q "DEVLINKS=.*riftblk-$id-part1" "$OUT/udevtest1" ||
	ktap_info "sfdisk: $(head -c 200 "$OUT/sfdisk"); udevadm test: $(grep -E "DEVLINKS|riftblk" "$OUT/udevtest1" | head -5 | tr "\n" " ")"
ktap_check "list: the session's paths and its device" eval '
	rift_wait_until 20 riftblk_all_connected $S &&
	rc_run 0 "" list && grep -q "^$S  2/2 paths connected" $OUT/out &&
	grep -q "path $RIFTBLK_P0  connected" $OUT/out &&
	grep -q "dev  $dev  /dev/$NB  rw  mapped" $OUT/out'
ktap_check "list --json" eval 'rc_run 0 "" --json list && json "
	[s for s in j[\"sessions\"] if s[\"name\"] == \"$S\"][0][\"devices\"][0][\"mapping_path\"] == \"/dev/$NB\" and
	len([s for s in j[\"sessions\"] if s[\"name\"] == \"$S\"][0][\"paths\"]) == 2"'
ktap_check "show SESSION --json, show DEVICE --json" eval '
	rc_run 0 "" show $S --json && json "j[\"name\"] == \"$S\" and j[\"paths\"][0][\"stats\"][\"reqs_read\"] >= 0" &&
	rc_run 0 "" show $dev --json && json "j[\"state\"] == \"mapped\" and j[\"size_bytes\"] == 64 << 20" &&
	rc_run 0 "" show $S && grep -q "^mp_policy: round-robin" $OUT/out'
ktap_check "server list --json: session, host, mapping" eval '
	rc_run 0 "" server list --json && json "
	[s for s in j[\"sessions\"] if s[\"name\"] == \"$S\"][0][\"host_name\"] == \"$HOST\" and
	[s for s in j[\"sessions\"] if s[\"name\"] == \"$S\"][0][\"mappings\"][0][\"device\"] == \"$NB\" and
	\"$HOST\" in [h[\"name\"] for h in j[\"hosts\"]]" &&
	rc_run 0 "" server list && grep -q "maps $NB (/dev/$NB) rw" $OUT/out'

# --- session tunables ---
ktap_check "set two tunables" eval '
	rc_run 0 "" set $S hb_interval_ms=1000 hb_missed_max=7 mp_policy=min-inflight &&
	[ "$(cat $RIFT_CLT_SYSFS/$S/hb_interval_ms)" = 1000 ] &&
	[ "$(cat $RIFT_CLT_SYSFS/$S/hb_missed_max)" = 7 ] &&
	[ "$(cat $RIFT_CLT_SYSFS/$S/mp_policy)" = min-inflight ]'

# --- stats ---
dd if=/dev/zero of="$dev" bs=64k count=64 oflag=direct status=none
ktap_check "stats --json: path and device counters" eval 'rc_run 0 "" stats --json $S && json "
	sum(p[\"reqs_write\"] for p in j[\"client_paths\"]) >= 64 and
	[x for x in j[\"devices\"] if x[\"device\"] == \"$d\"][0][\"writes\"] >= 64 and
	len(j[\"server_paths\"]) == 2"'
(dd if="$dev" of=/dev/null bs=4k count=4000 iflag=direct status=none) &
ddpid=$!
ktap_check "stats --watch 1 --count 2: two reports, reads per second seen" eval '
	rc_run 0 "" stats --watch 1 --count 2 &&
	[ $(grep -c "interval" $OUT/out) = 2 ] && grep -q "^$d " $OUT/out &&
	awk -v d=$d "\$1 == d && \$3 > 0 { ok = 1 } END { exit !ok }" $OUT/out'
wait $ddpid

# --- paths ---
ktap_check "path disconnect, then it reconnects" eval '
	rc_run 0 "" path disconnect $S 198.18.1.2@198.18.1.1 &&
	rift_wait_until 30 riftblk_all_connected $S'
ktap_check "path reconnect" eval '
	rc_run 0 "" path reconnect $S $RIFTBLK_P1 && rift_wait_until 30 riftblk_all_connected $S'
ktap_check "path remove" eval '
	rc_run 0 "" path remove $S 198.18.1.2@198.18.1.1 &&
	rift_wait_until 10 test ! -e $RIFT_CLT_SYSFS/$S/paths/$RIFTBLK_P1'
ktap_check "path remove of the last path: exit 1, says why, path kept" eval '
	rc_run 1 "last path" path remove $S $RIFTBLK_P0 && test -d $RIFT_CLT_SYSFS/$S/paths/$RIFTBLK_P0'
ktap_check "path add prints the path; it connects" eval '
	rc_run 0 "" path add $S 198.18.1.2@198.18.1.1 && grep -qx "$RIFTBLK_P1" $OUT/out &&
	rift_wait_until 30 riftblk_all_connected $S'

# --- bad input: clear message, exit code, nothing changed ---
before=$(state)
bad=0
nbad=0
# bad_case RC REGEX ARGS...
bad_case()
{
	nbad=$((nbad + 1))
	rc_run "$@" || bad=$((bad + 1))
}
bad_case 2 "unknown command" frobnicate
bad_case 2 "usage" map $S
bad_case 2 "not a session name" map "a/b" /dev/$NB --path 198.18.0.2@198.18.0.1
bad_case 2 "ro, rw or migration" map $S /dev/$NB --access rx
bad_case 2 "1\.\.65535" map $S /dev/$NB --port 70000
bad_case 2 "0\.\.32" map $S /dev/$NB --poll-queues 33
bad_case 2 "hexadecimal" map ctl3 /dev/$NB --path 198.18.0.2@198.18.0.1 --secret-file "$OUT/short"
bad_case 1 "(EACCES|ENOENT)\): (the server refused|the server has no such device)" map $S /dev/riftctl-nosuch
bad_case 2 "1\.\.100" set $S hb_interval_ms=2000 hb_missed_max=0
bad_case 2 "100\.\.60000" set $S hb_missed_max=9 hb_interval_ms=50
bad_case 2 "unknown setting" set $S hb_missed_max=9 nosuch=1
bad_case 1 "no session nosuch" set nosuch hb_missed_max=9
bad_case 2 "not a riftblk device" unmap /dev/sda
bad_case 1 "no riftblk device riftblk999" unmap riftblk999
bad_case 1 "already" path add $S 198.18.0.2@198.18.0.1
bad_case 1 "not a path" path add $S 198.18.0.2@@x
bad_case 1 "has no path" path remove $S 10.9.9.9@10.9.9.8
bad_case 1 "on the allow-list already" host add "$HOST"
bad_case 1 "not on the allow-list" host remove nosuchhost
bad_case 2 "not a host name" host add "a/b"
bad_case 2 "hexadecimal" host add ctlhost3 --secret-file "$OUT/short"
bad_case 2 "needs --hosts" export add /dev/$NB
bad_case 1 "maps no device nosuch" server close $S nosuch
bad_case 1 "no session nosuch" server disconnect nosuch
after=$(state)
ktap_check "$nbad bad commands: exit code and message right ($bad wrong)" test $bad = 0
ktap_check "... and the sysfs state unchanged" test "$before" = "$after"
[ "$before" = "$after" ] || diff <(echo "$before") <(echo "$after") | head -20 | while read -r l; do ktap_info "$l"; done

# A host the server does not admit: the server's EACCES, explained.
ktap_check "map from a host not allowed: EACCES explained, nothing left" eval '
	rc_run 0 "" host remove "$HOST" &&
	rc_run 1 "EACCES\): the server refused: host not allowed or device not exported" \
		map ctl2 /dev/$NB --access ro --path 198.18.0.2@198.18.0.1 &&
	[ ! -e $RIFT_CLT_SYSFS/ctl2 ] && [ "$(ls /sys/block | grep -c riftblk)" = 1 ]'
rc_run 0 "" host add "$HOST"

# --- unmap while open, remap, server close ---
exec 3< "$dev"
ktap_check "unmap of an open device: exit 1, says --force, still mapped" eval '
	rc_run 1 "EBUSY\): the device is open.*--force" unmap $dev &&
	[ "$(cat /sys/block/$d/riftblk/state)" = mapped ]'
exec 3<&-
ktap_check "remap" eval 'rc_run 0 "" remap $d && [ "$(cat /sys/block/$d/riftblk/state)" = mapped ]'
ktap_check "server close: the mapping goes on the server" eval '
	rc_run 0 "" server close $S $NB && rift_wait_until 10 test ! -e $RIFTBLK_SRV_SYSFS/$NB/sessions/$S'
ktap_check "remap after server close brings it back" eval '
	rc_run 0 "" remap $dev && test -d $RIFTBLK_SRV_SYSFS/$NB/sessions/$S &&
	dd if=$dev of=/dev/null bs=4k count=1 iflag=direct status=none'
ktap_check "server disconnect of one path: it reconnects" eval '
	rc_run 0 "" server disconnect $S $RIFTBLK_P0 && sleep 1 &&
	rift_wait_until 30 riftblk_all_connected $S'

# --- unmap ---
ktap_check "unmap: device and session gone" eval '
	rc_run 0 "" unmap $d &&
	rift_wait_until 10 eval "[ ! -e /sys/block/$d ] && [ ! -e $RIFT_CLT_SYSFS/$S ]"'
ktap_check "list with no session" eval 'rc_run 0 "" list && grep -qx "no sessions" $OUT/out &&
	rc_run 0 "" list --json && json "j[\"sessions\"] == []"'
# --- configuration: apply, idempotent, back after a module reload ---
printf 'cfgkey %s\n' "$(openssl rand -hex 32)" > "$OUT/secrets"
chmod 600 "$OUT/secrets"
{
	echo "# riftctl.sh"
	echo "host ctlcfghost secret=cfgkey"
	[ -e /sys/kernel/riftblk_server/add_export ] && echo "export /dev/$NB hosts=* access=rw"
	echo "map ctlcfg /dev/$NB path=198.18.0.2@198.18.0.1 path=198.18.1.2@198.18.1.1"
	echo "session ctlcfg hb_missed_max=6 mp_policy=min-latency"
} > "$OUT/rift.conf"
A=(apply --config "$OUT/rift.conf" --secrets "$OUT/secrets")
cp "$OUT/rift.conf" "$OUT/bad.conf"
echo "session ctlcfg hb_missed_max=0" >> "$OUT/bad.conf"
before=$(state)
ktap_check "apply of a configuration with a bad line: exit 2, names the line, nothing changed" eval '
	rc_run 2 "bad.conf:[0-9]+: hb_missed_max" apply --config $OUT/bad.conf --secrets $OUT/secrets &&
	[ "$before" = "$(state)" ]'
cfgdev() { grep -l '^ctlcfg$' /sys/block/riftblk*/riftblk/session 2>/dev/null | head -n 1 | cut -d/ -f4; }
cfg_up()
{
	local d
	d=$(cfgdev)
	[ -n "$d" ] && [ "$(cat /sys/block/$d/riftblk/mapping_path)" = /dev/$NB ] &&
	[ "$(cat $RIFT_CLT_SYSFS/ctlcfg/hb_missed_max)" = 6 ] &&
	[ "$(cat $RIFT_CLT_SYSFS/ctlcfg/mp_policy)" = min-latency ] &&
	[ "$(cat $RIFT_SRV_KOBJ/hosts/ctlcfghost/has_secret)" = 1 ]
}
ktap_check "apply: host with secret, map, session tunables" eval '
	rc_run 0 "" "${A[@]}" && grep -q "^map ctlcfg /dev/$NB" $OUT/out && cfg_up'
before=$(state)
ktap_check "apply again: nothing to do, nothing changed" eval '
	rc_run 0 "" "${A[@]}" && grep -q "nothing to do" $OUT/out && [ "$before" = "$(state)" ]'
reload_client()
{
	riftblk_unmap_all && rmmod riftblk_client && rmmod rift_client &&
	rift_insmod rift/rift-client && rift_insmod riftblk/riftblk-client
}
ktap_check "after a client module reload, apply brings it all back" eval '
	reload_client && [ -z "$(cfgdev)" ] && rc_run 0 "" "${A[@]}" && cfg_up'
"$RC" unmap "$(cfgdev)"
rc_run 0 "" host remove ctlcfghost

if [ -e /sys/kernel/riftblk_server/add_export ]; then
	ktap_check "export remove; again: exit 1, not exported" eval '
		rc_run 0 "" export remove /dev/$NB && rc_run 1 "not exported" export remove /dev/$NB'
else
	ktap_check "export add without the export ABI: exit 1" \
		rc_run 1 "too old to have exports|not loaded" export add /dev/$NB --hosts "*"
fi
ktap_finished
