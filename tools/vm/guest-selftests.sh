#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM: executes the named selftests one after another.
# Each test runs in its own session with a deadline; one that overruns is
# killed and recorded as failed (rc 124); its cleanup never ran, so the
# VM's state is unknown and this boot stops there: the host boots a fresh
# VM for the tests that had not run.  After
# every test the kernel log written during it is checked for warnings,
# BUGs, oopses, slub and lockdep reports: any makes the test fail.
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

dmesg -C
for t in "$@"; do
	key=$t
	[ "$role" = single ] || key=$t.$role
	tmo=$(testmeta_timeout "$top/selftests/$t.sh")
	expect=$(testmeta_get "$top/selftests/$t.sh" expect-dmesg)
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
	dmesg -c > "$res/$key.dmesg"
	bad=$("$top/tools/vm/dmesg-check.sh" < "$res/$key.dmesg")
	if [ -n "$expect" ]; then
		# The harness's own canary: the check must catch this.
		if ! printf '%s\n' "$bad" | grep -qE -- "$expect"; then
			[ "$rc" != 0 ] || rc=1
			echo "dmesg check missed the expected '$expect'" >> "$res/$key.why"
		fi
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
