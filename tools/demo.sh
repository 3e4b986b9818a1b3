#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: the whole stack on a machine without RDMA hardware.
# Installs what is needed, builds, boots a VM, brings up Soft-RoCE on two
# links, loads Rift, and with riftctl admits the host (with secrets),
# exports a null_blk device and maps it through riftblk over a
# two-path session, runs verified fio while one link goes down and up,
# prints a summary, then unmaps, unloads and shuts down.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build/demo
rm -rf "$out"
mkdir -p "$out"

echo "demo: installing dependencies (first run only)"
tools/deps.sh
echo "demo: building modules and riftctl"
make -s modules riftctl 2>&1 | grep -v "Skipping BTF" || true
echo "demo: booting the VM (qemu TCG, ~30 s)"
rc=0
tools/vm/vm.sh --out "$out" --name demo --timeout 600 -- \
	bash tools/demo-guest.sh || rc=$?
cat "$out/demo.txt" 2>/dev/null || true
if [ $rc -ne 0 ]; then
	echo "demo: FAILED (status $rc); console log: $out/console-demo.log" >&2
	exit 1
fi
echo "demo: done; full log in $out/"
