# SPDX-License-Identifier: GPL-2.0
#
# Leak accounting from slab statistics and SLUB allocation tracking.
# Sourced by lib.sh; not a test.

# rift_kmalloc_snapshot FILE: in-use kmalloc objects, per cache, into
# FILE (caches shrunk first); prints the sum.
rift_kmalloc_snapshot()
{
	local f
	for f in /sys/kernel/slab/kmalloc-*/shrink; do
		echo 1 > "$f"
	done
	awk '/^kmalloc-/ { print $1, $2 }' /proc/slabinfo > "$1"
	awk '{ n += $2 } END { print n }' "$1"
}

# rift_slab_owned FILE: slab objects in use that Rift's modules allocated,
# from SLUB's allocation tracking (the harness boots with slub_debug=U):
# "cache count caller" per call site into FILE; prints the sum.  An entry
# is Rift's when the allocation's caller is in a rift or riftblk module,
# or kvmalloc was, called from one.  Unlike a cache's total, this is not
# moved by network buffers that rxe and the veth pair keep around.
rift_slab_owned()
{
	local d=/sys/kernel/debug/slab f
	[ -d $d ] || mount -t debugfs nodev /sys/kernel/debug
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 > "$f" 2>/dev/null
	done
	# One awk for every cache: a process per cache costs minutes under
	# TCG once a long test has filled the caches.
	awk '	function flush() { if (n && own) print c, n, site; n = 0 }
		FNR == 1 { flush(); c = FILENAME; sub(/\/alloc_traces$/, "", c); sub(/.*\//, "", c) }
		/^ *[0-9]+ / { flush(); n = $1; site = $2; own = /\[riftblk_|\[rift_/;
			       kv = site ~ /^kvmalloc/; depth = 0; next }
		kv && NF && depth++ < 6 && /\[riftblk_|\[rift_/ { own = 1 }
		END { flush() }' $d/*/alloc_traces > "$1"
	awk '{ n += $2 } END { print n + 0 }' "$1"
}

# rift_slab_owned_min FILE: rift_slab_owned, the lower of two counts a
# second apart (FILE lists the lower's entries).  An object in flight (an
# answer being sent, a CM event's work) is seldom in both; one such in a
# count taken before a loop and none after hides a leak of one object per
# loop, and the other way round makes one.
rift_slab_owned_min()
{
	local a b

	a=$(rift_slab_owned "$1")
	sleep 1
	b=$(rift_slab_owned "$1.2")
	if [ "$b" -lt "$a" ]; then
		mv "$1.2" "$1"
		a=$b
	else
		rm -f "$1.2"
	fi
	echo "$a"
}
