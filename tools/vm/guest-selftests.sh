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
# With page_owner on (the sanitizer kernel too) a page allocated through
# Rift during a test and still in use at the end of the boot fails that
# test as well (pages_check below): kmemleak sees no page memory.
#
# usage: guest-selftests.sh ROLE TEST...   (ROLE: single, server, client)
# Results: $RIFT_OUT/results/<test>[.<role>].{rc,log,dmesg,why,mem}
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

PO=/sys/kernel/debug/page_owner
page_owner=
# Readable only when the kernel has PAGE_OWNER and booted page_owner=on
# (the sanitizer kernel).  A read must have room for a whole record (or
# fails with ENOMEM): never read it with small buffers.
dd if=$PO of=/dev/null bs=64k count=1 status=none 2>/dev/null && page_owner=1

# Page leaks.  Reading page_owner costs 40 s or more on the sanitizer
# kernel (every page in use, with its stack); read after each test it took
# about a quarter of make check-debug (session 26).  So it is read once a
# boot, after the boot's last test (its last in the list, or the one that
# timed out and ends the boot), and each page is put to the test during
# whose span it was allocated: page_owner's ts and printk's timestamps are
# both local_clock, and a test's span runs from its "begin" mark to the
# next test's.  pages_note KEY records KEY's span; pages_check KEY judges
# every span of the boot, amends the verdicts of the tests before KEY, and
# prints KEY's own "pages: ..." line.
po_spans=$(mktemp)

pages_note()
{
	local t0 loaded=0
	[ -n "$page_owner" ] || return 0
	t0=$(dmesg | sed -n "s/^\[ *\([0-9]*\)\.\([0-9]*\)\] rift-selftest: begin $1\$/\1\2/p" | tail -n 1)
	if [ -z "$t0" ]; then
		echo "page_owner: no 'rift-selftest: begin $1' in the kernel log, not judged" > "$res/$1.pages"
		return 0
	fi
	# Judged at the end of the boot: a boot that dies first (its run
	# failed already) leaves only this line.
	echo "page_owner: span from ${t0}000 ns, judged at the end of the boot" > "$res/$1.pages"
	# Pages a test's modules hold while they stay loaded are in use, not
	# leaked: not judged then.
	lsmod | grep -qE '^(rift|riftblk)[a-z_]* ' && loaded=1
	echo "${t0}000 $1 $loaded" >> "$po_spans"
}

# pages_check KEY: the pages still in use whose allocation stack runs
# through Rift: a Rift module's frame, or a bare module address (a module
# since unloaded, as Rift's are at every test's end).  Pages a kernel
# cache keeps once the memory it handed out is freed (slab pages, per-cpu
# chunks, page fragments, vmalloc's page tables and KASAN shadow,
# kfree_rcu's pointer blocks) are no leak: slab objects are kmemleak's to
# judge.  Each test's records go to TEST.pages; a test with any fails,
# with one "pages: ..." line naming the first stack.
pages_check()
{
	local s=$SECONDS k line endloaded=0
	[ -n "$page_owner" ] && [ -s "$po_spans" ] || return 0
	lsmod | grep -qE '^(rift|riftblk)[a-z_]* ' && endloaded=1
	# A record: "Page allocated via order N, ... ts T ns, ...", "PFN ...",
	# the stack one frame a line, maybe a migration line, a blank line.
	awk -v spans="$po_spans" -v dir="$res" -v endloaded=$endloaded '
		BEGIN {
			# Numbers: what sub() leaves is a string, and a string
			# compares by its characters ("411..." after "1313..."),
			# which would put a page in the wrong span.
			while ((getline l < spans) > 0) {
				split(l, f, " ")
				ns++; t0[ns] = f[1] + 0; key[ns] = f[2]
				judged[ns] = !(f[3] + 0) && !endloaded
			}
		}
		function flush(  i) {
			if (rec != "" && ts >= t0[1]) {
				for (i = ns; i > 1 && ts < t0[i]; i--)
					;
				new[i]++
				if (rift && !cache) {
					n[i] += 2 ^ order
					print rec >> (dir "/" key[i] ".pages")
					if (first[i] == "") first[i] = where
				}
			}
			if (rec != "") recs++
			rec = ""; rift = 0; cache = 0; where = ""; prevmod = ""
		}
		/^Page allocated via order/ {
			flush()
			order = $5 + 0
			ts = $0; sub(/.*, ts /, "", ts); sub(/ ns.*/, "", ts); ts += 0
			rec = $0; next
		}
		rec == "" { next }
		{ rec = rec "\n" $0 }
		/^$/ { flush(); next }
		/allocate_slab|new_slab|pcpu_populate_chunk|pcpu_alloc_pages|page_frag_cache_refill|page_frag_alloc/ { cache = 1 }
		# Page tables of vmalloc space, and KASAN'"'"'s shadow of a vmalloc
		# area (freed when the kernel purges its lazily freed areas):
		# the kernel'"'"'s, kept after the vfree.
		/__pte_alloc_kernel|__pmd_alloc|__pud_alloc|__p4d_alloc|kasan_populate_vmalloc/ { cache = 1 }
		# kfree_rcu'"'"'s blocks of pointers: a page kvfree_call_rcu()
		# takes to batch what a caller (rxe freeing an MR Rift
		# deregistered) frees, kept in a per-CPU cache afterwards
		# (rcu_min_cached_objs) and reused by every later caller.
		/kvfree_call_rcu/ { cache = 1 }
		# The stack depot: where KASAN, kmemleak and page_owner keep
		# each allocation'"'"'s stack trace, pages it never frees (seen
		# under a mempool_alloc of riftblk'"'"'s, in its CQ handler).
		/stack_depot_save/ { cache = 1 }
		# An address without a symbol is code that is gone: a module
		# since unloaded (Rift'"'"'s are, at every test'"'"'s end) or a
		# module'"'"'s init text, freed once its init returned.  The
		# latter is not Rift'"'"'s when the frame it called is another
		# module'"'"'s: seen, loop_init (modprobe loop) calling
		# loop_add [loop], whose tag set stays while loop is loaded.
		/^ *0xffffffff[a-f][0-9a-f]+$/ && prevmod != "" && prevmod !~ /^(rift|riftblk)/ {
			prevmod = ""; next
		}
		/\[(rift|riftblk)[a-z_]*\]$/ || /^ *0xffffffff[a-f][0-9a-f]+$/ {
			rift = 1
			if (where == "") { where = $0; sub(/^ */, "", where) }
		}
		{
			prevmod = ""
			if (match($0, /\[[a-z0-9_]+\]$/))
				prevmod = substr($0, RSTART + 1, RLENGTH - 2)
		}
		END {
			flush()
			for (i = 1; i <= ns; i++) {
				out = dir "/" key[i] ".pages"
				printf "page_owner: read at the end of the boot: %d allocations in use, %d of them made during the test, %d pages of those through Rift\n", recs, new[i] + 0, n[i] + 0 >> out
				if (!judged[i])
					print "page_owner: not judged, Rift modules still loaded after the test or at the end of the boot" >> out
				else if (n[i])
					printf "%s pages: %d pages allocated through Rift during the test still in use at the end of the boot: %s\n", key[i], n[i], first[i]
			}
		}' < <(dd if=$PO bs=1M status=none) |
	while read -r k line; do
		if [ "$k" = "$1" ]; then
			echo "$line"
			continue
		fi
		# A test judged already: its verdict changes here.
		echo "$line" >> "$res/$k.why"
		case $(cat "$res/$k.rc" 2>/dev/null) in
		0|4) echo 1 > "$res/$k.rc" ;;
		esac
	done
	while read -r _ k _; do
		echo "page_owner: read and judged in $((SECONDS - s)) s (after $1)" >> "$res/$k.pages"
	done < "$po_spans"
	: > "$po_spans"
}

# Memory during a test, for reading, not judged (KEY.mem): rxe drops a
# packet it cannot allocate an skb for (GFP_ATOMIC, silent but for "Failed
# allocating skb") and fails the QP, and only figures tell whether memory
# ran short then or something else failed.  mem_sample keeps the lowest
# MemFree seen (called from the wait loop, every 0.5 s: no fork);
# mem_report puts it beside the zones' min watermarks and what reclaim and
# compaction did during the test (/proc/vmstat deltas; allocstall: direct
# reclaim, which a GFP_ATOMIC allocation cannot do).
mem_counters()
{
	grep -E '^(allocstall_|pgscan_(kswapd|direct) |compact_(stall|fail) |kswapd_low_wmark_hit_quickly )' \
		/proc/vmstat 2>/dev/null
}

mem_sample()
{
	local k v _
	while read -r k v _; do
		if [ "$k" = MemFree: ]; then
			[ -n "$memmin" ] && [ "$v" -ge "$memmin" ] || memmin=$v
			return
		fi
	done < /proc/meminfo
}

mem_report()
{
	local key=$1 before=$2
	{
		echo "MemFree at least ${memmin:-?} kB during the test (sampled every 0.5 s); zones' min watermarks $(awk '$1 == "min" { s += $2 } END { print s * 4 }' /proc/zoneinfo) kB"
		printf '%s\n' "$before" | awk 'NR == FNR { b[$1] = $2; next }
			{ printf "%s %d during the test\n", $1, $2 - b[$1] }' - <(mem_counters)
		grep -E '^(MemTotal|MemFree|MemAvailable|Slab|SUnreclaim|KernelStack|VmallocUsed|Percpu):' /proc/meminfo
	} > "$res/$key.mem" 2>&1
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

# The wait loop below pauses by reading a FIFO nobody writes rather than
# with sleep(1): a fork and exec twice a second costs a TCG guest CPU
# time the test under way needs (see rift_nap in selftests/lib-ktap.sh).
nap_fd=
if mkfifo /tmp/rift-harness-nap.$$; then
	exec {nap_fd}<>/tmp/rift-harness-nap.$$ || nap_fd=
	rm -f /tmp/rift-harness-nap.$$
fi
nap()
{
	if [ -n "$nap_fd" ]; then
		read -r -t "$1" -u "$nap_fd" _ || true
	else
		sleep "$1"
	fi
}

dmesg -C
last_key=${*: -1}
[ "$role" = single ] || last_key=$last_key.$role
for t in "$@"; do
	key=$t
	[ "$role" = single ] || key=$t.$role
	tmo=$(testmeta_timeout "$top/selftests/$t.sh")
	mapfile -t expect < <(sed -n 's/^# rift-expect-dmesg: *//p' "$top/selftests/$t.sh")
	echo "$t $tmo" > "$res/../current.$role.tmp"
	mv "$res/../current.$role.tmp" "$res/../current.$role"
	echo "rift-selftest: begin $key" > /dev/kmsg
	memmin=
	mem0=$(mem_counters)

	(cd "$top/selftests" && RIFT_KTAP_TIMES=$res/$key.times exec setsid bash "./$t.sh" "$role") \
		> "$res/$key.log" 2>&1 < /dev/null &
	pid=$!
	deadline=$((SECONDS + tmo))
	rc=
	while kill -0 "$pid" 2>/dev/null; do
		if [ $SECONDS -ge $deadline ]; then
			kill -KILL -- "-$pid" 2>/dev/null
			rc=124
			echo "timeout: killed after ${tmo}s" > "$res/$key.why"
			# What it was stuck on: the stacks of the tasks blocked in
			# the kernel (sysrq w, into the log judged below) and the
			# QPs' states (KEY.rdma).  A hung drain on the sanitizer
			# kernel (session 25) left only the hung-task notices,
			# not whether rxe had moved the QP to its error state.
			echo w > /proc/sysrq-trigger 2>/dev/null
			timeout 10 rdma -d res show qp > "$res/$key.rdma" 2>&1
			break
		fi
		mem_sample
		nap 0.5
	done
	# A test stuck in the kernel may not die; do not wait for it then.
	[ -n "$rc" ] || { wait "$pid"; rc=$?; }

	echo "rift-selftest: end $key rc=$rc" > /dev/kmsg
	mem_report "$key" "$mem0"
	ktap_judge "$t" "$key"
	# The log as it is now, before the scans: on the sanitizer kernel they
	# take minutes, and a VM killed during them (the harness's deadline)
	# would leave no log of the test at all (session 16 lost one so).
	dmesg > "$res/$key.dmesg"
	# The scans get a deadline of their own from the host's watchdog,
	# which times from this file: counted in the test's, they got what
	# the test left (check-debug always_invalidate, session 20: 17/17 in
	# about 800 of its 900 s, then killed during the kmemleak and
	# page_owner scans, which take 2 to 4 minutes on that kernel).
	if [ -n "$kmemleak$page_owner" ]; then
		echo "$t $((300 * ${RIFT_TIMEOUT_SCALE:-1}))" > "$res/../current.$role.tmp"
		mv "$res/../current.$role.tmp" "$res/../current.$role"
	fi
	leaks=$(kmemleak_check "$key")
	pages_note "$key"
	pleak=
	# The boot ends after the last test, or after one that timed out.
	if [ "$key" = "$last_key" ] || [ "$rc" = 124 ]; then
		pleak=$(pages_check "$key")
	fi
	[ -z "$pleak" ] || leaks=$(printf '%s\n%s' "$leaks" "$pleak" | sed '/^$/d')
	dmesg -c > "$res/$key.dmesg"
	# The log up to here is this test's, judged below: the host's check of
	# the console outside any test skips from "end" to this mark.  The
	# scans above print to the log after "end" (kmemleak's "N new
	# suspected memory leaks", half a minute later on the sanitizer kernel),
	# and the host judged them again, failing the canary whose leak is
	# expected (session 25).
	echo "rift-selftest: checked $key" > /dev/kmsg
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
