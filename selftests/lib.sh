# SPDX-License-Identifier: GPL-2.0
#
# Helpers for Rift's kselftests: KTAP output, deferred cleanup, loading
# the modules from the tree, Soft-RoCE links.  Sourced by every test; a
# test runs as root, inside the VM harness or on a real host.

RIFT_TREE=${RIFT_TREE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
RIFT_OUT=${RIFT_OUT:-/tmp}
KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

__ktap_n=0
__ktap_pass=0
__ktap_fail=0
__ktap_skip=0

ktap_header()
{
	echo "KTAP version 1"
}

ktap_plan()
{
	echo "1..$1"
}

ktap_pass()
{
	__ktap_n=$((__ktap_n + 1))
	__ktap_pass=$((__ktap_pass + 1))
	echo "ok $__ktap_n $*"
}

ktap_fail()
{
	__ktap_n=$((__ktap_n + 1))
	__ktap_fail=$((__ktap_fail + 1))
	echo "not ok $__ktap_n $*"
}

# ktap_skip DESC REASON
ktap_skip()
{
	__ktap_n=$((__ktap_n + 1))
	__ktap_skip=$((__ktap_skip + 1))
	echo "ok $__ktap_n $1 # SKIP $2"
}

ktap_info()
{
	echo "# $*"
}

# ktap_check DESC CMD...: one test point, passing iff CMD succeeds.
ktap_check()
{
	local desc=$1
	shift
	if "$@"; then
		ktap_pass "$desc"
	else
		ktap_fail "$desc"
	fi
}

# The whole test cannot run here (exit 4, as kselftest expects).
ktap_skip_all()
{
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}

ktap_finished()
{
	echo "# Totals: pass:$__ktap_pass fail:$__ktap_fail skip:$__ktap_skip"
	if [ $__ktap_fail -gt 0 ]; then
		exit $KSFT_FAIL
	fi
	if [ $__ktap_pass -eq 0 ] && [ $__ktap_skip -gt 0 ]; then
		exit $KSFT_SKIP
	fi
	exit $KSFT_PASS
}

# defer CMD ARGS...: run at exit, last deferred first, even on failure,
# so a test leaves the machine as it found it for the next one.
__rift_deferred=()
defer()
{
	__rift_deferred+=("$(printf '%q ' "$@")")
}

__rift_run_deferred()
{
	local i
	for ((i = ${#__rift_deferred[@]} - 1; i >= 0; i--)); do
		eval "${__rift_deferred[i]}" >/dev/null 2>&1 || true
	done
	__rift_deferred=()
}
trap __rift_run_deferred EXIT

rift_require_root()
{
	[ "$(id -u)" -eq 0 ] || ktap_skip_all "must run as root"
}

# rift_wait_until SECONDS CMD...: poll CMD until it succeeds.
rift_wait_until()
{
	local end=$((SECONDS + $1))
	shift
	while ! "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# Modules in load order; unload goes the other way.
RIFT_MODULES=(rift/rift-core rift/rift-client rift/rift-server test/rift-test-srv
	      test/rift-test riftblk/riftblk-client riftblk/riftblk-server)

rift_modname()
{
	basename "$1" | tr - _
}

rift_loaded()
{
	[ -d "/sys/module/$(rift_modname "$1")" ]
}

# rift_insmod PATH [PARAMS...]: load one module of the tree after the
# kernel modules it depends on.
rift_insmod()
{
	local ko=$RIFT_TREE/$1.ko d
	shift
	[ -f "$ko" ] || { echo "# $ko not built"; return 1; }
	for d in $(modinfo -F depends "$ko" | tr , ' '); do
		[ -d "/sys/module/$d" ] || modprobe "$d" 2>/dev/null || true
	done
	insmod "$ko" "$@"
}

# The server refuses hosts it does not know (allow_any_host=0): tests
# load it with this host, which the client names by its node name,
# allow-listed.
RIFT_SRV_KOBJ=/sys/kernel/rift_server

# rift_srv_allow_host NAME: admit host NAME (no secret)
rift_srv_allow_host()
{
	[ -d "$RIFT_SRV_KOBJ/hosts/$1" ] || echo "$1" > "$RIFT_SRV_KOBJ/add_host"
}

# rift_srv_load [PARAMS...]: rift-server with this host admitted
rift_srv_load()
{
	rift_insmod rift/rift-server "$@" && rift_srv_allow_host "$(uname -n)"
}

rift_load_all()
{
	local m
	for m in "${RIFT_MODULES[@]}"; do
		rift_loaded "$m" || rift_insmod "$m" || return 1
	done
}

rift_unload_all()
{
	local i m rc=0
	for ((i = ${#RIFT_MODULES[@]} - 1; i >= 0; i--)); do
		m=${RIFT_MODULES[i]}
		if rift_loaded "$m"; then
			rmmod "$(rift_modname "$m")" || rc=1
		fi
	done
	return $rc
}

rift_rxe_prepare()
{
	# rdma_rxe computes the ICRC with crc32; without autoload in some
	# initramfs setups the generic implementation must be there first.
	modprobe crc32_generic 2>/dev/null
	# RoCE assumes a lossless link.  A veth pair drops what exceeds the
	# receive backlog, and a retransmission makes rxe (6.1) re-execute
	# queued REG_MRs, which wedges the QP: give bursts of 128 KiB
	# requests room under a slow (TCG) guest.
	sysctl -qw net.core.netdev_max_backlog=16384 2>/dev/null
	modprobe rdma_rxe && modprobe rdma_ucm && modprobe veth
}

# rift_rxe_pairs N: N links, each a veth pair riftaI/riftbI in one netns
# with rxe on both ends: 198.18.I.1 (riftaI) <-> 198.18.I.2 (riftbI).
# The addresses are RFC 2544 benchmarking space, private to the VM.
rift_rxe_pairs()
{
	local i a b
	rift_rxe_prepare || return 1
	ip link set lo up
	for ((i = 0; i < $1; i++)); do
		a=rifta$i
		b=riftb$i
		ip link add "$a" type veth peer name "$b" || return 1
		defer ip link del "$a"
		ip addr add "198.18.$i.1/24" dev "$a"
		ip addr add "198.18.$i.2/24" dev "$b"
		ip link set "$a" up
		ip link set "$b" up
		# Both ends are local addresses; without accept_local rdma_cm
		# cannot resolve the route from one to the other.
		sysctl -qw net.ipv4.conf.all.accept_local=1 \
			"net.ipv4.conf.$a.accept_local=1" \
			"net.ipv4.conf.$b.accept_local=1"
		rdma link add "rxe_$a" type rxe netdev "$a" || return 1
		defer rdma link delete "rxe_$a"
		rdma link add "rxe_$b" type rxe netdev "$b" || return 1
		defer rdma link delete "rxe_$b"
	done
}

# rift_rxe_eth0 ADDR: rxe on the VM's NIC (the two-VM link).
rift_rxe_eth0()
{
	rift_rxe_prepare || return 1
	ip link set lo up
	ip link set eth0 up || return 1
	ip addr add "$1/24" dev eth0 || return 1
	defer ip addr del "$1/24" dev eth0
	rdma link add rxe_eth0 type rxe netdev eth0 || return 1
	defer rdma link delete rxe_eth0
}

# rift_rdma_link_active NAME: the rxe port is ACTIVE.
rift_rdma_link_active()
{
	rdma link show "$1/1" 2>/dev/null | grep -q 'state ACTIVE'
}

# Two-VM rendezvous through the results directory both VMs share.
rift_sync_post()
{
	mkdir -p "$RIFT_OUT/sync"
	echo "$2" > "$RIFT_OUT/sync/$1"
}

rift_sync_wait()
{
	rift_wait_until "$2" test -e "$RIFT_OUT/sync/$1"
}

# rift_sync_read NAME: what was posted as NAME.
rift_sync_read()
{
	cat "$RIFT_OUT/sync/$1" 2>/dev/null
}

# Which boot of the server VM this is, in a two-VM test that has the host
# replace its server VM ("# rift-server-restarts: N", see
# tools/vm/run-selftests.sh): 1 at first, 2 after the first kill, ...
RIFT_INCARNATION=${RIFT_INCARNATION:-1}

# rift_server_vm_kill TEST: on the server VM, have the host kill this VM
# now, with no shutdown (a power loss), and boot a fresh one that runs
# TEST again with RIFT_INCARNATION one higher.  Returns (and fails) only
# if the host did not kill the VM within 60 s.
rift_server_vm_kill()
{
	rift_sync_post "$1.kill-server" "$RIFT_INCARNATION"
	sleep 60
	echo "# the host did not kill this VM (rift-server-restarts in the test's header?)"
	return 1
}

# Transport helpers over the test ULP (rift-test.ko).
RIFT_TEST_DBG=/sys/kernel/debug/rift-test
RIFT_CLT_SYSFS=/sys/class/rift-client

# rift_transport_up: the modules with the test ULP serving its RAM store.
rift_transport_up()
{
	rift_insmod rift/rift-core || return 1
	rift_insmod rift/rift-client || return 1
	rift_srv_load || return 1
	rift_insmod test/rift-test-srv "$@" || return 1
	rift_insmod test/rift-test "$@" || return 1
	defer rift_unload_all
}

# rift_path_state SESS PATHDIR: state of one client path.
rift_path_state()
{
	cat "$RIFT_CLT_SYSFS/$1/paths/$2/state" 2>/dev/null
}

# rift_all_paths_in SESS STATE: every path of SESS is in STATE.
rift_all_paths_in()
{
	local p n=0
	for p in "$RIFT_CLT_SYSFS/$1"/paths/*/; do
		[ "$(cat "$p/state")" = "$2" ] || return 1
		n=$((n + 1))
	done
	[ $n -gt 0 ]
}

# rift_test_io SESS OP OFFSET LEN SEED [COUNT [DEPTH]]
rift_test_io()
{
	local s=$1
	shift
	echo "$*" > "$RIFT_TEST_DBG/$s/io"
}

# --- Helpers of the transport_* tests (open/close, stats, sysfs input). ---
RIFT_SRV_SYSFS=/sys/class/rift-server

# rift_srv_sessions: the server's sessions, one name a line.
rift_srv_sessions()
{
	find "$RIFT_SRV_SYSFS" -mindepth 1 -maxdepth 1 -type l -printf '%f\n' 2>/dev/null
}
RIFT_P0=198.18.0.2@198.18.0.1:7674
RIFT_P1=198.18.1.2@198.18.1.1:7674

# rift_test_open SESS [KEY=VALUE...] PATH...: open SESS over the paths
# (SRC@DST, the port is added by the ULP); KEY=VALUE are passed through.
rift_test_open()
{
	local s=$1 a args=
	shift
	for a in "$@"; do
		case $a in
		*=*) args+=" $a" ;;
		*) args+=" path=$a" ;;
		esac
	done
	echo "sessname=$s$args" > "$RIFT_TEST_DBG/open"
}

rift_test_close()
{
	echo "$1" > "$RIFT_TEST_DBG/close"
}

# rift_test_stat SESS KEY: a value of SESS's stats file (0 if absent).
rift_test_stat()
{
	awk -v k="$2" '$1 == k { v = $2 } END { print v + 0 }' \
		"$RIFT_TEST_DBG/$1/stats" 2>/dev/null
}

# rift_test_errnos SESS: "ERRNO:COUNT ..." of the errors SESS's runs saw.
rift_test_errnos()
{
	awk '$1 == "err" { printf "%s%s:%s", n++ ? " " : "", $2, $3 }' \
		"$RIFT_TEST_DBG/$1/stats" 2>/dev/null
}

rift_test_bad_completions()
{
	cat "$RIFT_TEST_DBG/bad_completions"
}

# rift_clt_stat SESS PATH KEY: a client path counter.
rift_clt_stat()
{
	cat "$RIFT_CLT_SYSFS/$1/paths/$2/stats/$3" 2>/dev/null
}

# rift_paths_failed SESS FROM [TO]: the kernel log's "path failed" lines
# of session SESS among its lines FROM + 1 .. TO (to the end without TO),
# FROM and TO counts taken with `dmesg | wc -l`.
rift_paths_failed()
{
	dmesg | awk -v a="$2" -v b="${3:-0}" 'NR > a && (b == 0 || NR <= b)' |
		grep -o "$1/[^ ]*: path failed: .*"
}

# rift_paths_failed_but SESS PATH FROM DOWN UP: the "path failed" lines
# of a test that broke PATH's link between log counts DOWN and UP: any
# path's before DOWN and after UP, and the other paths' in between (PATH
# then fails for the port event, a flushed or errored QP, whichever its
# device reports first).  Empty if only the broken link's path failed,
# and only while its link was down.
rift_paths_failed_but()
{
	rift_paths_failed "$1" "$3" "$4"
	rift_paths_failed "$1" "$4" "$5" | grep -vF "$1/$2: "
	rift_paths_failed "$1" "$5"
}

# rift_evil_start LOG ARGS...: tools/peer/rift-evil in the background,
# good address 198.18.0.1, bad 198.18.1.1, with ARGS (port, case, -B, ...),
# its output in LOG; returns once it listens.  rift_evil_stop ends it.
RIFT_EVIL_PID=
rift_evil_start()
{
	local log=$1
	shift
	"$RIFT_TREE/tools/peer/rift-evil" -g 198.18.0.1 -b 198.18.1.1 "$@" > "$log" 2>&1 &
	RIFT_EVIL_PID=$!
	rift_wait_until 10 grep -q '^listening' "$log"
}

rift_evil_stop()
{
	[ -n "$RIFT_EVIL_PID" ] || return 0
	kill "$RIFT_EVIL_PID" 2>/dev/null
	rift_wait_pid 10 "$RIFT_EVIL_PID" > /dev/null 2>&1
	RIFT_EVIL_PID=
}

# rift_srv_stat SESS PATH KEY: a server path counter.
rift_srv_stat()
{
	cat "$RIFT_SRV_SYSFS/$1/paths/$2/stats/$3" 2>/dev/null
}

rift_srv_path_state()
{
	cat "$RIFT_SRV_SYSFS/$1/paths/$2/state" 2>/dev/null
}

# rift_paths_snapshot SESS: "name=state" of every client path, sorted.
rift_paths_snapshot()
{
	local p
	for p in "$RIFT_CLT_SYSFS/$1"/paths/*/; do
		[ -d "$p" ] || continue
		echo "$(basename "$p")=$(cat "$p/state" 2>/dev/null)"
	done | sort | tr '\n' ' '
}

# rift_write FILE TEXT: one write(2) of TEXT and a newline; prints "ok" or
# the error's text ("Invalid argument", "File exists", ...).
rift_write()
{
	local out
	if out=$({ echo "$2" > "$1"; } 2>&1); then
		echo ok
	else
		echo "${out##*: }"
	fi
}

# rift_wait_pid SECONDS PID: wait for a background job, up to SECONDS;
# its exit status, or 124 if it is still running.
rift_wait_pid()
{
	local end=$((SECONDS + $1))
	while kill -0 "$2" 2>/dev/null; do
		[ $SECONDS -lt $end ] || return 124
		sleep 0.2
	done
	wait "$2"
}

# rift_now_ms: monotonic-enough milliseconds for timing a step.
rift_now_ms()
{
	echo $(($(date +%s%N) / 1000000))
}

# rift_link_up DEV: bring a test link (riftbI) back up after
# "ip link set dev DEV down".  rxe (6.1) on a veth pair in one netns stops
# receiving on DEV once its admin state bounced while RC connections used
# it: rping between the two addresses then fails just like Rift does, and
# flushing routes or neighbours does not help.  Its rxe device is created
# anew, as after a NIC replacement, which is what brings the link back.
rift_link_up()
{
	ip link set dev "$1" up || return 1
	rdma link delete "rxe_$1" || return 1
	rdma link add "rxe_$1" type rxe netdev "$1"
}

# rift_both_connected SESS PATH: PATH is connected on the client and on
# the server.
rift_both_connected()
{
	[ "$(rift_path_state "$1" "$2")" = connected ] &&
		[ "$(rift_srv_path_state "$1" "$2")" = connected ]
}

# rift_all_connected SESS: RIFT_P0 and RIFT_P1 connected on both ends.
rift_all_connected()
{
	rift_both_connected "$1" "$RIFT_P0" && rift_both_connected "$1" "$RIFT_P1"
}

# --- riftblk: the block device over Rift. ---
RIFTBLK_CTL=/sys/class/riftblk-client/ctl
RIFTBLK_SRV_SYSFS=/sys/class/riftblk-server
RIFTBLK_PORT=7675
# The two test paths as the client names them (riftblk's own port).
RIFTBLK_P0=198.18.0.2@198.18.0.1:$RIFTBLK_PORT
RIFTBLK_P1=198.18.1.2@198.18.1.1:$RIFTBLK_PORT

# riftblk_up [SERVER_PARAMS...]: transport and riftblk modules, no test
# ULP; every device still mapped at exit is force-unmapped before unload.
riftblk_up()
{
	rift_insmod rift/rift-core || return 1
	rift_insmod rift/rift-client || return 1
	rift_srv_load || return 1
	rift_insmod riftblk/riftblk-server "$@" || return 1
	rift_insmod riftblk/riftblk-client || return 1
	defer rift_unload_all
	defer riftblk_unmap_all
}

# The server maps nothing it does not export (default deny).
RIFTBLK_SRV_KOBJ=/sys/kernel/riftblk_server

# riftblk_export_add PATH [ACCESS [HOSTS]]: export PATH, rw to every
# host unless told otherwise.
riftblk_export_add()
{
	echo "path=$1 access=${2:-rw} hosts=${3:-*}" > "$RIFTBLK_SRV_KOBJ/add_export"
}

# riftblk_export PATH [ACCESS [HOSTS]]: riftblk_export_add, and the
# export is removed at exit (before what was deferred earlier, e.g. the
# device's deletion).
riftblk_export()
{
	riftblk_export_add "$@" || return 1
	defer riftblk_unexport "$1"
}

# riftblk_unexport PATH: remove the export of PATH (EBUSY while mapped).
riftblk_unexport()
{
	echo "$1" > "$RIFTBLK_SRV_KOBJ/remove_export"
}

# riftblk_nullb NAME MB [DISCARD [BLOCKSIZE]]: riftblk_nullb_noexport, exported rw to
# every host when riftblk-server is loaded.
riftblk_nullb()
{
	riftblk_nullb_noexport "$@" || return 1
	rift_loaded riftblk/riftblk-server || return 0
	riftblk_export "/dev/$1"
}

# riftblk_nullb_noexport NAME MB [DISCARD [BLOCKSIZE]]: a memory-backed null_blk
# /dev/NAME of MB MiB, made through configfs so that its name and size
# are ours.
riftblk_nullb_noexport()
{
	local d=/sys/kernel/config/nullb/$1
	[ -d /sys/kernel/config/nullb ] || {
		mountpoint -q /sys/kernel/config ||
			mount -t configfs none /sys/kernel/config || return 1
		modprobe null_blk nr_devices=0 || return 1
	}
	mkdir "$d" || return 1
	defer riftblk_nullb_del "$1"
	echo "$2" > "$d/size" && echo 1 > "$d/memory_backed" &&
		echo "${3:-0}" > "$d/discard" && echo "${4:-512}" > "$d/blocksize" &&
		echo 1 > "$d/power" &&
		rift_wait_until 5 test -b "/dev/$1"
}

riftblk_nullb_del()
{
	echo 0 > "/sys/kernel/config/nullb/$1/power"
	rmdir "/sys/kernel/config/nullb/$1"
}

# riftblk_map LINE: write LINE to map_device; prints the new device
# (/dev/riftblkN) on success.
riftblk_map()
{
	local before after d
	before=$(ls -d /sys/block/riftblk* 2>/dev/null | sort)
	echo "$1" > "$RIFTBLK_CTL/map_device" || return 1
	after=$(ls -d /sys/block/riftblk* 2>/dev/null | sort)
	d=$(comm -13 <(echo "$before") <(echo "$after") | head -n 1)
	[ -n "$d" ] || return 1
	echo "/dev/$(basename "$d")"
	rift_wait_until 5 test -b "/dev/$(basename "$d")"
}

# riftblk_all_connected SESS: both test paths (riftblk's port) connected
# on the client and on the server.
riftblk_all_connected()
{
	rift_both_connected "$1" "$RIFTBLK_P0" && rift_both_connected "$1" "$RIFTBLK_P1"
}

# riftblk_sysfs DEV FILE: /sys/block/<dev>/riftblk/FILE
riftblk_sysfs()
{
	echo "/sys/block/$(basename "$1")/riftblk/$2"
}

# riftblk_unmap DEV [force]
riftblk_unmap()
{
	echo "${2:-1}" > "$(riftblk_sysfs "$1" unmap_device)"
}

riftblk_unmap_all()
{
	local d
	for d in /sys/block/riftblk*; do
		[ -e "$d/riftblk/unmap_device" ] || continue
		echo force > "$d/riftblk/unmap_device"
	done
}

# riftblk_pattern FILE MB SEED: MB MiB of reproducible pseudo-random data.
riftblk_pattern()
{
	openssl enc -aes-128-ctr -nosalt -pass "pass:$3" -pbkdf2 \
		-in <(head -c "$(($2 << 20))" /dev/zero) -out "$1" 2>/dev/null
}

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

# riftblk_fio_verify DEV NAME OUTDIR SECONDS [FIO_ARGS...]: random writes
# of 4..64 KiB at queue depth 16 for SECONDS, every batch of 32 read back
# and checked (crc32c) while writing; fio's JSON in OUTDIR/NAME.json.
riftblk_fio_verify()
{
	local dev=$1 name=$2 out=$3 secs=$4
	shift 4
	# fio writes its verify state into its working directory.
	(cd "$out" && fio --name="$name" --filename="$dev" --direct=1 \
		--ioengine=libaio --rw=randwrite --bsrange=4k-64k --iodepth=16 \
		--size=64M --time_based --runtime="$secs" --verify=crc32c \
		--verify_backlog=32 --verify_fatal=1 --do_verify=1 "$@" \
		--output-format=json --output="$out/$name.json" \
		> "$out/$name.out" 2>&1)
}

# riftblk_fio_loop DEV OUTDIR SECONDS: riftblk_fio_verify runs of SECONDS
# on DEV, one after another, until OUTDIR/peer.done exists (at least one
# run); "N RC" per run into OUTDIR/fio.rcs.  A victim's load while a
# hostile peer runs.
riftblk_fio_loop()
{
	local n=0
	while [ ! -e "$2/peer.done" ] || [ $n -eq 0 ]; do
		n=$((n + 1))
		riftblk_fio_verify "$1" "v$n" "$2" "$3"
		echo "$n $?" >> "$2/fio.rcs"
	done
}

# riftblk_fio_summary KIND JSON RC: one line of fio's figures from its
# JSON output (fio may put warnings ahead of it); fails if fio counted an
# error, and for KIND "verify" also if it exited non-zero.
#  verify: a riftblk_fio_verify job: its writes and verify reads;
#  rw:     a mixed job: "job: rc, errors, read and write KiB/s and IOPS".
riftblk_fio_summary()
{
	python3 - "$@" <<'PY'
import json, sys
kind, path, rc = sys.argv[1:4]
try:
    s = open(path).read()
    j = json.loads(s[s.index("{"):])["jobs"][0]
except Exception as e:
    print("fio output unreadable: %s (rc %s)" % (e, rc))
    sys.exit(1)
w, r = j["write"], j["read"]
if kind == "rw":
    print("%s: rc %s err %d read %d KiB/s %d IOPS write %d KiB/s %d IOPS" % (
        j["jobname"], rc, j["error"], r["bw"], r["iops"], w["bw"], w["iops"]))
    sys.exit(j["error"] != 0)
p = w["clat_ns"].get("percentile", {})
print("rc %s errors %d; writes %d IOPS %d KiB/s, latency mean %.0f us p99 %.0f us max %.0f ms; verify reads %d IOPS, %d ios checked" % (
    rc, j["error"], w["iops"], w["bw"], w["clat_ns"]["mean"] / 1000,
    p.get("99.000000", 0) / 1000, w["clat_ns"]["max"] / 1e6, r["iops"],
    r["total_ios"]))
sys.exit(rc != "0" or j["error"] != 0)
PY
}

# riftblk_fio_report JSON RC: riftblk_fio_summary verify.
riftblk_fio_report()
{
	riftblk_fio_summary verify "$@"
}

# riftblk_fio_rw_report JSON RC: riftblk_fio_summary rw.
riftblk_fio_rw_report()
{
	riftblk_fio_summary rw "$@"
}

# riftblk_completed DEV: reads and writes DEV completed so far.
riftblk_completed()
{
	awk '{ print $1 + $5 }' "/sys/block/$(basename "$1")/stat"
}

# riftblk_sample DEV FILE: "seconds completed" lines every 0.2 s into
# FILE until killed.
riftblk_sample()
{
	while :; do
		echo "$(date +%s.%N) $(riftblk_completed "$1")"
		sleep 0.2
	done > "$2"
}

# riftblk_soak_fio DEV SECS DIR: the soak's fio run on DEV (512 MiB) in
# the background for SECS seconds, its pid in $fio_pid, its job file,
# output and JSON in DIR.  Four jobs on their own regions: random writes
# of 4 KiB..1 MiB at queue depths 1, 8, 32 and 64, every batch of
# written blocks read back and checked (crc32c) while writing, so reads
# and writes mix; a verify error stops fio.
riftblk_soak_fio()
{
	cat > "$3/soak.fio" <<EOF
[global]
filename=$1
direct=1
ioengine=libaio
rw=randwrite
verify=crc32c
verify_backlog=16
verify_fatal=1
do_verify=1
time_based
runtime=$2
[qd1]
iodepth=1
bsrange=4k-16k
offset=0
size=32M
[qd8]
iodepth=8
bsrange=4k-128k
offset=32M
size=96M
[qd32]
iodepth=32
bsrange=4k-1m
offset=128M
size=192M
[qd64]
iodepth=64
bsrange=4k-64k
offset=320M
size=192M
EOF
	(cd "$3" && exec fio --output-format=json --output="$3/soak.json" \
		"$3/soak.fio" > "$3/soak.out" 2>&1) &
	fio_pid=$!
}

# riftblk_soak_totals DIR: "VERIFIED_READS WRITES ERRORS" of the fio run
# of riftblk_soak_fio DIR (nothing when fio left no JSON).
riftblk_soak_totals()
{
	python3 - "$1/soak.json" <<'PY'
import json, sys
try:
    s = open(sys.argv[1]).read()
    jobs = json.loads(s[s.index("{"):])["jobs"]
except (OSError, ValueError):
    sys.exit(0)
print(sum(j["read"]["total_ios"] for j in jobs),
      sum(j["write"]["total_ios"] for j in jobs),
      sum(j["error"] for j in jobs))
PY
}

# riftblk_longest_stall FILE: the longest time, in seconds, the count of
# completed IOs in a riftblk_sample FILE did not move.
riftblk_longest_stall()
{
	awk 'NR > 1 && $2 != n && $1 - s > m { m = $1 - s }
	     NR == 1 || $2 != n { s = $1; n = $2 }
	     { t = $1 } END { if (t - s > m) m = t - s; printf "%.1f\n", m }' "$1"
}
