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
echo "== unloading"
rift_unload_all
dmesg | "$RIFT_TREE/tools/vm/dmesg-check.sh" && echo "== kernel log clean"
