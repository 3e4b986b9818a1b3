#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the demo VM (see tools/demo.sh); writes a readable report.
set -euo pipefail
cd "$RIFT_TREE/selftests"
. ./lib.sh
exec > >(tee "$RIFT_OUT/demo.txt") 2>&1

dmesg -C
echo "== kernel $(uname -r), $(nproc) CPUs"
echo "== bringing up Soft-RoCE on two links"
rift_rxe_pairs 2
for l in rxe_rifta0 rxe_riftb0 rxe_rifta1 rxe_riftb1; do
	rift_wait_until 10 rift_rdma_link_active "$l"
done
rdma link show | sed 's/^/   /'
echo "== loading the Rift modules"
rift_load_all
for m in "${RIFT_MODULES[@]}"; do
	printf '   %-16s %s\n' "$(rift_modname "$m")" \
		"$(cat "/sys/module/$(rift_modname "$m")/initstate")"
done
echo "== sysfs"
ls -d /sys/class/rift-* /sys/class/riftblk-* | sed 's/^/   /'

S=demo
CS=$RIFT_CLT_SYSFS/$S
NB=riftnb0
RUNTIME=25

RC=$RIFT_TREE/tools/riftctl/riftctl
[ -x "$RC" ] || { echo "riftctl not built (make riftctl)"; exit 1; }

# paths_table: sessions, paths and devices as riftctl shows them.
paths_table()
{
	"$RC" list | sed 's/^/   /'
}

echo "== the server admits this host, with a secret (HMAC-SHA256, both ways)"
H=$(cat /sys/module/rift_client/parameters/host_name)
umask 077
openssl rand -hex 32 > "$RIFT_OUT/secret"
openssl rand -hex 32 > "$RIFT_OUT/server_secret"
echo "   # riftctl host add $H --secret-file secret --server-secret-file server_secret"
"$RC" host add "$H" --secret-file "$RIFT_OUT/secret" --server-secret-file "$RIFT_OUT/server_secret"
echo "   # riftctl host list"
"$RC" host list | sed 's/^/   /'
echo "== riftblk: exporting a memory-backed null_blk device (256 MiB) to host $H only"
riftblk_nullb_noexport $NB 256
echo "   # riftctl export add /dev/$NB --hosts $H --access rw"
"$RC" export add "/dev/$NB" --hosts "$H" --access rw
echo "   # riftctl export list"
"$RC" export list | sed 's/^/   /'
echo "== the client maps it over two paths"
echo "   # riftctl map $S /dev/$NB --path 198.18.0.2@198.18.0.1 --path 198.18.1.2@198.18.1.1 --secret-file secret --server-secret-file server_secret"
dev=$("$RC" map $S "/dev/$NB" --path 198.18.0.2@198.18.0.1 --path 198.18.1.2@198.18.1.1 \
	--secret-file "$RIFT_OUT/secret" --server-secret-file "$RIFT_OUT/server_secret")
rift_wait_until 20 riftblk_all_connected $S
echo "   # riftctl set $S hb_interval_ms=500 reconnect_delay_ms=200 reconnect_delay_max_ms=1000"
"$RC" set $S hb_interval_ms=500 reconnect_delay_ms=200 reconnect_delay_max_ms=1000
echo "   mapped /dev/$NB as $dev: $(blockdev --getsize64 "$dev") bytes"
echo "   # riftctl server list"
"$RC" server list | sed 's/^/   /'
echo "   # riftctl list"
paths_table

echo "== fio: ${RUNTIME} s of random writes 4..64 KiB, queue depth 16, crc32c read back and verified"
fo0=$(cat "$CS/failed_over")
rc=0
riftblk_fio_verify "$dev" demo "$RIFT_OUT" $RUNTIME &
fio_pid=$!
riftblk_sample "$dev" "$RIFT_OUT/demo.samples" &
smp=$!
sleep 8
echo "== t+8 s: link 1 (riftb1) goes down"
ip link set dev riftb1 down
rift_wait_until 20 eval "[ \"\$(rift_path_state $S $RIFTBLK_P1)\" != connected ]" || true
sleep 3
echo "   device $(cat "$(riftblk_sysfs "$dev" state)"), IO goes on over path 0:"
echo "   # riftctl stats $S"
"$RC" stats $S | sed 's/^/   /'
paths_table
echo "== link 1 comes back (rxe device re-created, see rift_link_up in selftests/lib-net.sh)"
rift_link_up riftb1
rift_wait_until 60 riftblk_all_connected $S || true
paths_table
wait $fio_pid || rc=$?
kill $smp
echo "== summary"
echo "   device $dev: state $(cat "$(riftblk_sysfs "$dev" state)"); session $S:" \
	"$(cat "$CS/connected_paths") paths connected, requests failed over" \
	"$(($(cat "$CS/failed_over") - fo0)), failover errors $(cat "$CS/failover_errors")"
paths_table
echo "   longest IO stall: $(riftblk_longest_stall "$RIFT_OUT/demo.samples") s"
fio_ok=0
res=$(riftblk_fio_report "$RIFT_OUT/demo.json" $rc) && fio_ok=1
echo "   fio: $res"
if [ $fio_ok = 1 ]; then
	echo "   verify errors: 0"
else
	echo "   verify errors or IO errors: see $RIFT_OUT/demo.out"
fi
echo "== unmapping and unloading"
echo "   # riftctl unmap $dev; riftctl export remove /dev/$NB; riftctl host remove $H"
"$RC" unmap "$dev"
rift_wait_until 10 eval "[ ! -e $dev ] && [ ! -e $CS ]"
"$RC" export remove "/dev/$NB"
"$RC" host remove "$H"
rift_unload_all
[ $fio_ok = 1 ] || { echo "== fio FAILED"; exit 1; }
dmesg | "$RIFT_TREE/tools/vm/dmesg-check.sh" && echo "== kernel log clean"
