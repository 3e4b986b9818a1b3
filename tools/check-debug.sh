#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-debug`: every VM selftest on the sanitizer kernel of
# tools/debug-kernel.sh (KASAN, KFENCE, UBSAN, lockdep, atomic-sleep,
# debug objects, kmemleak, init_on_free), then selftests/Makefile's
# DEBUG_TEST_PROGS, which prove those checks can fail a test.  Rift's
# modules are built against that kernel; timeouts are scaled (x3 unless
# RIFT_TIMEOUT_SCALE says otherwise); after each test the harness scans
# for leaks with kmemleak and checks the kernel log (tools/vm/
# guest-selftests.sh, dmesg-check.sh), so any report fails its test.
#
# Builds the kernel first if it is not cached (about an hour on 2 cores).
# usage: check-debug.sh [TEST...]     (default: all)
# Results: build/check-debug/ (RIFT_RESULTS); ends with
# "check-debug: N passed, N failed, N skipped" and exits 1 on any failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. tools/vm/testmeta.sh
t0=$SECONDS

tools/debug-kernel.sh || { echo "check-debug: no sanitizer kernel" >&2; exit 1; }
KVER=$(tools/debug-kernel.sh --kver) || exit 1
export KVER RIFT_KERNEL=debug
export RIFT_RESULTS=${RIFT_RESULTS:-$top/build/check-debug}
echo "# rift: make check-debug on $KVER"

if [ $# -gt 0 ]; then
	tests=("$@")
else
	mapfile -t tests < <(testmeta_list selftests/Makefile TEST_PROGS
			     testmeta_list selftests/Makefile LONG_TEST_PROGS
			     testmeta_list selftests/Makefile DEBUG_TEST_PROGS)
fi
# run-selftests.sh runs the single-VM tests in one boot in this order,
# so the canaries come last there, after every test they could blind.

log=$(mktemp)
tools/vm/run-selftests.sh "${tests[@]}" > "$log" 2>&1
rc=$?
mkdir -p "$RIFT_RESULTS"
mv "$log" "$RIFT_RESULTS/selftests.log"
grep -E '^(not )?ok [0-9]+ selftests:|^# (kernel|.*kernel log reports|kmemleak)' \
	"$RIFT_RESULTS/selftests.log"
# Every report the checks found, by test, for the closing summary.
for f in "$RIFT_RESULTS"/results/*.why; do
	[ -f "$f" ] || continue
	grep -q -E 'kernel log reports|kmemleak' "$f" || continue
	echo "# reports in $(basename "$f" .why):"
	sed 's/^/#   /' "$f" | head -n 12
done
line=$(grep -E '^selftests: [0-9]+ passed' "$RIFT_RESULTS/selftests.log" | tail -n 1)
[ -n "$line" ] || { tail -n 20 "$RIFT_RESULTS/selftests.log"; line="selftests: 0 passed, 1 failed, 0 skipped"; rc=1; }
d=$((SECONDS - t0))
# A full run's duration is what .ci/run budgets with.
[ $# -gt 0 ] || echo "$d" > "$(tools/debug-kernel.sh --dir)/check-debug.seconds"
echo "check-debug: ${line#selftests: } ($((d / 60))m$((d % 60))s)"
exit $rc
