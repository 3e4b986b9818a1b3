#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: every test Rift has, in order of cost.  Each step prints
# ok / not ok; unit tests and selftests count one per test.  Ends with
# "check: N passed, N failed, N skipped" and exits 1 on any failure.
#
# env: RIFT_FUZZ_SECONDS (default 60), RIFT_SKIP_VM=1 (no VM selftests),
#      RIFT_SKIP_PACKAGES=1 (no make check-packages: it installs and purges
#      the rift-dkms and riftctl packages on this machine),
#      KVER (kernel to build for and boot).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
logs=$top/build/check
# From scratch, so W=1 and sparse judge every file.
make -s clean >/dev/null 2>&1
mkdir -p "$logs"
RIFT_CACHE=${RIFT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rift}
scripts=$RIFT_CACHE/linux-source-6.1/scripts

pass=0 fail=0 skip=0 failed_logs=

result()
{
	local rc=$1 name=$2
	if [ "$rc" -eq 0 ]; then
		echo "ok - $name"
		pass=$((pass + 1))
	else
		echo "not ok - $name (log: ${logs#"$top"/}/$3)"
		# The lines that say what is wrong, else the end of the log:
		# failed test points (nested ones too) and the diagnostics
		# after them first, as "error" also matches passing lines.
		{ grep -E -A3 '^[[:space:]]*not ok' "$logs/$3" | grep -v '^--$' ||
		  grep -E 'warning|error|ERROR|WARNING|CHECK' "$logs/$3" |
			grep -Ev '^[[:space:]]*(not )?ok ' ||
		  tail -n 25 "$logs/$3"; } | head -n 40 | sed 's/^/#   /'
		failed_logs="$failed_logs $3"
		fail=$((fail + 1))
	fi
}

# add_counts LOG WHAT: fold a runner's "WHAT: N passed, N failed[, N skipped]".
add_counts()
{
	local line p f s
	line=$(grep -E "^$2: [0-9]+ passed, [0-9]+ failed" "$1" | tail -n 1)
	[ -n "$line" ] || return 1
	p=$(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	s=0
	grep -q skipped <<<"$line" && s=$(sed -E 's/.* ([0-9]+) skipped.*/\1/' <<<"$line")
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
	echo "# $line"
}

# summary: the failed points once more, last (a reader who sees only
# the end of this output, a CI summary, still learns which checks
# failed), then the counts.
summary()
{
	local l

	for l in $failed_logs; do
		grep -E '^[[:space:]]+not ok' "$logs/$l" |
			sed -E "s/^[[:space:]]+/# failed in $l: /"
	done | tail -n 15
	echo "check: $pass passed, $fail failed, $skip skipped"
}

# Our kernel sources: what checkpatch, sparse and kernel-doc judge.
kernel_sources()
{
	find include rift riftblk test tools/vm/canary tools/vm/inject -name '*.[ch]' ! -name '*.mod.c' | sort
}

echo "# rift: make check"

# Kbuild compiles one file at a time unless asked: the five module builds
# below took 6 of make check's minutes on two cores, one of them idle.
jobs=-j$(nproc)

tools/deps.sh > "$logs/deps.log" 2>&1
result $? "dependencies installed" deps.log
[ $fail -eq 0 ] || { summary; exit 1; }

if [ -f tools/unit/Makefile ]; then
	make -C tools/unit run > "$logs/unit.log" 2>&1
	rc=$?
	if ! add_counts "$logs/unit.log" unit || [ $rc -ne 0 ]; then
		result 1 "unit tests" unit.log
	fi
fi

if [ -f tools/fuzz/Makefile ]; then
	make -C tools/fuzz run FUZZ_SECONDS="${RIFT_FUZZ_SECONDS:-60}" > "$logs/fuzz.log" 2>&1
	result $? "fuzz decoders for ${RIFT_FUZZ_SECONDS:-60}s" fuzz.log
fi

# The second kernel, Debian's 6.12 (tools/kernel-612.sh, fetched by
# tools/deps.sh): the same three builds against its headers, before the
# 6.1 ones, which start from a clean tree again, so that every later
# step sees 6.1 objects.  Make's own warnings ("file:line: text", e.g.
# kbuild's "added to multiple modules") count as warnings too.
if kver612=$(tools/kernel-612.sh --kver) && kdir612=$(tools/kernel-612.sh --kdir); then
	k612=(KVER="$kver612" KDIR="$kdir612")
	make -s "$jobs" W=1 RIFT_TEST= RIFT_DEBUG= "${k612[@]}" modules > "$logs/build-612-nodebug.log" 2>&1
	rc=$?
	if grep -E 'warning:|error:|^[^ ]+:[0-9]+: ' "$logs/build-612-nodebug.log" >/dev/null; then rc=1; fi
	result $rc "modules build clean with W=1 without test code for $kver612" build-612-nodebug.log
	make -s "$jobs" W=1 "${k612[@]}" modules > "$logs/build-612.log" 2>&1
	rc=$?
	if grep -E 'warning:|error:|^[^ ]+:[0-9]+: ' "$logs/build-612.log" >/dev/null; then rc=1; fi
	result $rc "modules build clean with W=1 for $kver612" build-612.log
	make -s "$jobs" W=1 C=2 "${k612[@]}" modules > "$logs/sparse-612.log" 2>&1
	rc=$?
	if grep -E '^/?[^ ]*\.[ch]:[0-9]+:[0-9]+: (warning|error):' "$logs/sparse-612.log" >/dev/null; then rc=1; fi
	result $rc "sparse (C=2) clean for $kver612" sparse-612.log
	make -s "${k612[@]}" clean-modules >/dev/null 2>&1
else
	echo "ok - modules build for 6.12 # SKIP 6.12 headers not cached: run tools/kernel-612.sh"
	skip=$((skip + 1))
fi

# As packaged (dkms.conf): no test ULP, no client test hooks.  First, so
# that the build below leaves the selftests' modules in the tree.
make -s "$jobs" W=1 RIFT_TEST= RIFT_DEBUG= modules > "$logs/build-nodebug.log" 2>&1
rc=$?
if grep -E 'warning:|error:' "$logs/build-nodebug.log" >/dev/null; then rc=1; fi
result $rc "modules build clean with W=1 without test code (RIFT_DEBUG=)" build-nodebug.log

make -s "$jobs" W=1 > "$logs/build.log" 2>&1
rc=$?
if grep -E 'warning:|error:' "$logs/build.log" >/dev/null; then rc=1; fi
result $rc "modules build clean with W=1" build.log

# W=1 as above: the objects are up to date, so only sparse runs (C=2
# checks every source) and nothing is compiled a third time.
make -s "$jobs" W=1 C=2 > "$logs/sparse.log" 2>&1
rc=$?
if grep -E '^/?[^ ]*\.[ch]:[0-9]+:[0-9]+: (warning|error):' "$logs/sparse.log" >/dev/null; then rc=1; fi
result $rc "sparse (C=2) clean" sparse.log

mapfile -t srcs < <(kernel_sources)
# include/rift/rift-compat.h is the one file that asks which kernel it is
# built for (6.1 or 6.12): checkpatch's rule against LINUX_VERSION_CODE
# (and against the constant-looking name left of a comparison) is for
# code merged into one kernel, so it is waived there, and only there.
compat=include/rift/rift-compat.h
mapfile -t others < <(printf '%s\n' "${srcs[@]}" | grep -vxF "$compat")
rc=0
{
	"$scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
		-f "${others[@]}" || rc=1
	"$scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f "$compat" || rc=1
} > "$logs/checkpatch.log" 2>&1
if grep -E ': (ERROR|WARNING|CHECK):' "$logs/checkpatch.log" >/dev/null; then rc=1; fi
result $rc "checkpatch --strict clean (${#srcs[@]} files)" checkpatch.log

"$scripts/kernel-doc" -none "${srcs[@]}" > "$logs/kernel-doc.log" 2>&1
rc=$?
if grep -Ei 'warning|error' "$logs/kernel-doc.log" >/dev/null; then rc=1; fi
result $rc "kernel-doc clean" kernel-doc.log

# The file-level call graph of the objects just built, as documented.
tools/callgraph.py --check Documentation/callgraph.rst > "$logs/callgraph.log" 2>&1
result $? "Documentation/callgraph.rst is the call graph of the tree" callgraph.log

# The bench report's host-load record on a synthetic run (no VM, ~2 s):
# a burst of load in one job's window is named, and nothing else.
tools/bench/test-host-load.sh > "$logs/bench-host-load.log" 2>&1
result $? "bench report: host load named for the job it fell in (synthetic)" bench-host-load.log

# The .debs: build, lintian, install, DKMS build for KVER, purge.
if [ "${RIFT_SKIP_PACKAGES:-0}" = 1 ]; then
	echo "ok - Debian packages # SKIP RIFT_SKIP_PACKAGES=1"
	skip=$((skip + 1))
else
	tools/test-packages.sh > "$logs/packages.log" 2>&1
	result $? "Debian packages build, lint clean, install, DKMS-build and purge" packages.log
fi

if [ "${RIFT_SKIP_VM:-0}" = 1 ]; then
	echo "ok - VM selftests # SKIP RIFT_SKIP_VM=1"
	skip=$((skip + 1))
else
	tools/vm/run-selftests.sh > "$logs/selftests.log" 2>&1
	rc=$?
	grep -E '^(not )?ok [0-9]+ selftests:' "$logs/selftests.log"
	if ! add_counts "$logs/selftests.log" selftests || [ $rc -ne 0 ]; then
		result 1 "VM selftests" selftests.log
	fi
	# The second kernel boots too, for the transport and riftblk IO
	# selftests (make check-612; its builds ran above).  Last: it leaves
	# 6.12 objects in the tree.
	if [ -n "${kver612:-}" ]; then
		RIFT_612_VM_ONLY=1 tools/check-612.sh > "$logs/check-612.log" 2>&1
		result $? "VM selftests on $kver612 (transport, riftblk_io)" check-612.log
	fi
fi

summary
[ $fail -eq 0 ]
