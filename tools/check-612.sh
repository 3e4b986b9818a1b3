#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-612`: Rift on its second kernel, Debian 12's Linux 6.12
# (bookworm-security).  tools/kernel-612.sh fetches and unpacks it if it
# is not cached and installs it where the VM harness boots kernels from
# (/lib/modules/<release>/, no /boot entry: tools/kver.sh still picks
# 6.1); then the modules must build warning-free against it (W=1, with
# and without test code, and sparse), and the VM selftests run on it:
# transport and riftblk_io unless tests are named.
#
# usage: check-612.sh [TEST...]       (root; RIFT_SKIP_VM=1: builds only,
#                                     RIFT_612_VM_ONLY=1: selftests only)
# Results: build/check-612/ (the selftests' in its selftests/); ends with
# "check-612: N passed, N failed, N skipped" and exits 1 on any failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
t0=$SECONDS
logs=$top/build/check-612
# run-selftests.sh empties its results directory: a subdirectory.
export RIFT_RESULTS=$logs/selftests
mkdir -p "$logs"

tools/kernel-612.sh --install || { echo "check-612: no Linux 6.12" >&2; exit 1; }
KVER=$(tools/kernel-612.sh --kver) || exit 1
KDIR=$(tools/kernel-612.sh --kdir) || exit 1
export KVER RIFT_KERNEL=612
echo "# rift: make check-612 on $KVER"

pass=0 fail=0 skip=0
result()
{
	if [ "$1" -eq 0 ]; then
		echo "ok - $2"
		pass=$((pass + 1))
	else
		echo "not ok - $2 (log: ${logs#"$top"/}/$3)"
		grep -E 'warning|error|^[^ ]+:[0-9]+: ' "$logs/$3" | head -n 20 | sed 's/^/#   /'
		fail=$((fail + 1))
	fi
}

# RIFT_612_VM_ONLY=1 (make check, which has built for 6.12 already):
# the selftests only.
if [ "${RIFT_612_VM_ONLY:-0}" != 1 ]; then
	# The objects of another kernel go first (as run-selftests.sh does).
	make -s KVER="$KVER" KDIR="$KDIR" clean-modules >/dev/null 2>&1
	make -s W=1 RIFT_TEST= RIFT_DEBUG= KVER="$KVER" KDIR="$KDIR" modules > "$logs/build-nodebug.log" 2>&1
	rc=$?
	grep -qE 'warning:|error:|^[^ ]+:[0-9]+: ' "$logs/build-nodebug.log" && rc=1
	result $rc "modules build clean with W=1 without test code for $KVER" build-nodebug.log
	make -s W=1 KVER="$KVER" KDIR="$KDIR" modules > "$logs/build.log" 2>&1
	rc=$?
	grep -qE 'warning:|error:|^[^ ]+:[0-9]+: ' "$logs/build.log" && rc=1
	result $rc "modules build clean with W=1 for $KVER" build.log
	make -s C=2 KVER="$KVER" KDIR="$KDIR" modules > "$logs/sparse.log" 2>&1
	rc=$?
	grep -qE '^/?[^ ]*\.[ch]:[0-9]+:[0-9]+: (warning|error):' "$logs/sparse.log" && rc=1
	result $rc "sparse (C=2) clean for $KVER" sparse.log
fi

if [ "${RIFT_SKIP_VM:-0}" = 1 ]; then
	echo "ok - VM selftests on $KVER # SKIP RIFT_SKIP_VM=1"
	skip=$((skip + 1))
else
	[ $# -gt 0 ] || set -- transport riftblk_io
	tools/vm/run-selftests.sh "$@" > "$logs/selftests.log" 2>&1
	rc=$?
	grep -E '^(not )?ok [0-9]+ selftests:' "$logs/selftests.log"
	line=$(grep -E '^selftests: [0-9]+ passed, [0-9]+ failed' "$logs/selftests.log" | tail -n 1)
	if [ -z "$line" ]; then
		tail -n 20 "$logs/selftests.log"
		fail=$((fail + 1))
	else
		echo "# $line"
		p=$(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")
		f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
		s=0
		grep -q skipped <<<"$line" && s=$(sed -E 's/.* ([0-9]+) skipped.*/\1/' <<<"$line")
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
		# A harness failure with no failed test (a build, a boot).
		[ $rc -eq 0 ] || [ "$f" -gt 0 ] || fail=$((fail + 1))
	fi
fi

d=$((SECONDS - t0))
echo "check-612: $pass passed, $fail failed, $skip skipped ($((d / 60))m$((d % 60))s)"
[ $fail -eq 0 ]
