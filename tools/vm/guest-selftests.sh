#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM: executes the named selftests one after another.
# Each test runs in its own session with a deadline; one that overruns is
# killed and recorded as failed (rc 124); its cleanup never ran, so the
# VM's state is unknown and this boot stops there: the host boots a fresh
# VM for the tests that had not run.  After
# every test the kernel log written during it is checked for warnings,
# BUGs, oopses, slub and lockdep reports: any makes the test fail.  On a
# kernel with kmemleak enabled (the sanitizer kernel boots with
# kmemleak=on) a scan runs after every test too, and an unreferenced
# object allocated by Rift (a rift* module in its backtrace, or a module
# since unloaded: its frames print as bare addresses) fails the test;
# the kernel's own suspects are kept in <test>.kmemleak, not judged.
#
# usage: guest-selftests.sh ROLE TEST...   (ROLE: single, server, client)
# Results: $RIFT_OUT/results/<test>[.<role>].{rc,log,dmesg,why}
set -u
role=$1
shift
top=${RIFT_TREE:-/mnt/rift}
res=${RIFT_OUT:-/mnt/out}/results
mkdir -p "$res"
. "$top/tools/vm/testmeta.sh"

KML=/sys/kernel/debug/kmemleak
kmemleak=
# A scan fails (EPERM) unless kmemleak is built in and enabled.  What
# boot left unreferenced is no test's: cleared before the first test.
if [ -e $KML ] && echo scan 2>/dev/null > $KML; then
	kmemleak=1
	echo clear > $KML
fi

# kmemleak_check KEY: scan; print "kmemleak: ..." lines for Rift's
# suspects (every report's full text lands in KEY.kmemleak).
kmemleak_check()
{
	[ -n "$kmemleak" ] || return 0
	# Two scans: the first only records each new object's checksum (an
	# object that changed since the previous scan is never reported),
	# the second reports; it also lets the test's last allocations age
	# past kmemleak's 5 s minimum (a scan takes ~15 s under TCG).
	echo scan > $KML
	echo scan > $KML
	cat $KML > "$res/$1.kmemleak"
	echo clear > $KML
	# One report per object: "unreferenced object ADDR (size N):" then
	# indented lines up to the next one.
	awk '	function flush() {
			if (obj != "" && rift)
				printf "kmemleak: %s allocated by Rift: %s\n", obj, where
			obj = ""; rift = 0; where = ""
		}
		/^unreferenced object/ { flush(); obj = $3 " " $4 " " $5; next }
		/\[<[0-9a-f]+>\]/ {
			if ($0 ~ /\[(rift|riftblk)[a-z_]*\]$/ ||
			    $0 ~ /\] 0xffffffff[a-f][0-9a-f]+$/) {
				rift = 1
				if (where == "") { where = $0; sub(/^ *\[<[0-9a-f]+>\] */, "", where) }
			}
		}
		END { flush() }' "$res/$1.kmemleak"
}

# ktap_judge TEST KEY: what the test printed must match what it planned,
# and it may not skip.  Sets rc.
#  - The plan "1..N" must be there and N points printed: a test that died
#    half way (set -e, a killed shell, an exit in a helper) with only
#    passing points so far would pass on its exit status alone.
#  - A skipped test, or a skipped point, fails: every tool a test needs is
#    installed by tools/deps.sh, so a skip here means a precondition broke
#    (a missing fio, a peer that does not run) and the check it guards
#    never ran.  A test that may skip says why in its header with
#    "# rift-allow-skip: REASON" (tools/vm/testmeta.sh).
ktap_judge()
{
	local t=$1 key=$2 log=$res/$2.log plan n skips allow
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$log" | head -n 1)
	n=$(grep -cE '^(not )?ok [0-9]+' "$log")
	skips=$(grep -E '^ok [0-9]+ .*# SKIP|^1\.\.0 # SKIP' "$log" | head -n 3)
	[ "$rc" = 4 ] && [ -z "$skips" ] && skips="exit status 4 (skip)"
	allow=$(testmeta_get "$top/selftests/$t.sh" allow-skip)
	if [ "$rc" = 0 ] || [ "$rc" = 4 ]; then
		if [ -z "$plan" ]; then
			rc=1
			echo "KTAP: no plan (1..N) printed" >> "$res/$key.why"
		elif [ "$plan" != "$n" ]; then
			rc=1
			echo "KTAP: plan 1..$plan but $n test points printed" >> "$res/$key.why"
		fi
	fi
	if [ -n "$skips" ] && [ -z "$allow" ]; then
		[ "$rc" != 0 ] && [ "$rc" != 4 ] || rc=1
		{
			echo "skipped, and the test has no '# rift-allow-skip:' reason:"
			printf '%s\n' "$skips"
		} >> "$res/$key.why"
	fi
}

dmesg -C
for t in "$@"; do
	key=$t
	[ "$role" = single ] || key=$t.$role
	tmo=$(testmeta_timeout "$top/selftests/$t.sh")
	mapfile -t expect < <(sed -n 's/^# rift-expect-dmesg: *//p' "$top/selftests/$t.sh")
	echo "$t $tmo" > "$res/../current.$role.tmp"
	mv "$res/../current.$role.tmp" "$res/../current.$role"
	echo "rift-selftest: begin $key" > /dev/kmsg

	(cd "$top/selftests" && exec setsid bash "./$t.sh" "$role") \
		> "$res/$key.log" 2>&1 < /dev/null &
	pid=$!
	deadline=$((SECONDS + tmo))
	rc=
	while kill -0 "$pid" 2>/dev/null; do
		if [ $SECONDS -ge $deadline ]; then
			kill -KILL -- "-$pid" 2>/dev/null
			rc=124
			echo "timeout: killed after ${tmo}s" > "$res/$key.why"
			break
		fi
		sleep 0.5
	done
	# A test stuck in the kernel may not die; do not wait for it then.
	[ -n "$rc" ] || { wait "$pid"; rc=$?; }

	echo "rift-selftest: end $key rc=$rc" > /dev/kmsg
	ktap_judge "$t" "$key"
	leaks=$(kmemleak_check "$key")
	dmesg -c > "$res/$key.dmesg"
	bad=$("$top/tools/vm/dmesg-check.sh" < "$res/$key.dmesg")
	[ -z "$leaks" ] || bad=$(printf '%s\n%s' "$leaks" "${bad}" | sed '/^$/d')
	n=$(grep -c '^unreferenced object' "$res/$key.kmemleak" 2>/dev/null)
	[ "${n:-0}" -eq 0 ] || [ -n "$leaks" ] ||
		echo "kmemleak: $n suspects, none Rift's (results/$key.kmemleak)" >> "$res/$key.why"
	if [ ${#expect[@]} -gt 0 ] && [ "$rc" != 4 ]; then
		# The harness's own canaries: the checks must catch each.
		for e in "${expect[@]}"; do
			if ! printf '%s\n' "$bad" | grep -qE -- "$e"; then
				[ "$rc" != 0 ] || rc=1
				echo "dmesg check missed the expected '$e'" >> "$res/$key.why"
			fi
		done
	elif [ -n "$bad" ]; then
		[ "$rc" != 0 ] && [ "$rc" != 4 ] || rc=1
		{
			echo "kernel log reports a problem:"
			printf '%s\n' "$bad" | head -n 5
		} >> "$res/$key.why"
	fi
	echo "$rc" > "$res/$key.rc"
	[ "$rc" != 124 ] || break
done
rm -f "$res/../current.$role"
exit 0
