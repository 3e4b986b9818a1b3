#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 60
# rift-expect-dmesg: possible circular locking dependency
# rift-expect-dmesg: sleeping function called from invalid context
# rift-expect-dmesg: kmemleak: .* allocated by Rift
# rift-expect-dmesg: UBSAN: array-index-out-of-bounds
# rift-expect-dmesg: KASAN: slab-out-of-bounds
# rift-allow-skip: its faults need the sanitizer kernel; on another it skips
#
# The sanitizer kernel's (tools/debug-kernel.sh) checks, proven able to
# fail a test: the harness canary module commits one deliberate fault per
# load, and the harness passes this test only if its post-test checks (the
# kernel log and the kmemleak scan) caught every one.  Run by
# `make check-debug` only (selftests/Makefile DEBUG_TEST_PROGS), and as
# the last test of its VM: lockdep switches itself off after one report
# and a KASAN report taints the kernel, so no test after this one in the
# same boot would be checked as well.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

case "$(uname -r)" in
*-riftdebug) ;;
*) ktap_skip_all "not the sanitizer kernel (RIFT_KERNEL=debug)" ;;
esac
ko=$RIFT_TREE/tools/vm/canary/rift-canary.ko
[ -f "$ko" ] || ktap_skip_all "canary module not built"

# Lockdep's first: any KASAN report (the ubsan fault's stack overrun is
# one too) taints the kernel, which turns lock debugging off.
faults=(lockdep sleep leak ubsan kasan)
ktap_header
ktap_plan ${#faults[@]}
canary()
{
	insmod "$ko" fault="$1" && rmmod rift_canary
}
for f in "${faults[@]}"; do
	ktap_check "canary fault=$f loads and unloads" canary "$f"
done
ktap_finished
