# SPDX-License-Identifier: GPL-2.0
#
# The transport tests: the test ULP (rift-test), client and server
# path state and counters, the kernel log's path failures, rift-evil.
# Sourced by lib.sh; not a test.

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

# rift_test_pace SESS: requests per second of SESS's last finished run
# ("last": ops bytes usecs ...), 0 if none.
rift_test_pace()
{
	local n='' us=''

	{ read -r n _ us _ < "$RIFT_TEST_DBG/$1/last"; } 2>/dev/null
	case "$n$us" in
	*[!0-9]* | '') echo 0 ;;
	*) echo $((n * 1000000 / (us + 1))) ;;
	esac
}

# rift_run_size PACE SECONDS MIN: a request count that lasts about
# SECONDS at PACE (rift_test_pace), MIN at least.  A fixed count sized
# for one guest's pace ends too soon on a faster one, and a run that
# must outlast events set by timers (reconnect delays, heartbeats) then
# leaves them without IO: the pace of CI's guest has varied three to
# four times over the sessions (session 24's review of the suite).
rift_run_size()
{
	local c=$(($1 * $2))

	[ $c -ge "$3" ] || c=$3
	echo $c
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
	# A user-space program started on a slow kernel (the sanitizer one)
	# may take longer than 10 s to bind its listeners.
	rift_wait_until "$(rift_scaled 10)" grep -q '^listening' "$log"
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

# rift_srv_at_floor SESS: every path of SESS on the server holds no more
# chunks than memory credits' floor (rift_server credit_floor, at least
# the protocol's 2), and none on its way back (its pinned_bytes are its
# grant's).  An idle path of the kernel client comes down to that
# credit_idle_ms after its last request (a revoke) and the reclaim of
# what it gave back: a test that compares memory or slab objects before
# and after IO waits for it first, so that a grant the IO grew and the
# server has not yet taken back is not counted as a leak.  True at once
# with credit_floor 0 (the feature off: a path holds its whole queue
# depth from admission to close); false while SESS has no path on the
# server.  For sessions of the kernel client only: a client that does
# not offer memory credits holds its whole queue depth whatever the
# floor, and never comes down to it.
rift_srv_at_floor()
{
	local s=$RIFT_SRV_SYSFS/$1 f cs p g n=0

	f=$(cat /sys/module/rift_server/parameters/credit_floor 2>/dev/null) || return 1
	[ "$f" -gt 0 ] || return 0
	[ "$f" -ge 2 ] || f=2
	cs=$(cat "$s/chunk_size" 2>/dev/null) || return 1
	for p in "$s"/paths/*/; do
		[ -d "$p" ] || continue
		g=$(cat "$p/granted" 2>/dev/null) || return 1
		[ "$g" -le "$f" ] && [ "$(cat "$p/pinned_bytes" 2>/dev/null)" = $((g * cs)) ] ||
			return 1
		n=$((n + 1))
	done
	[ $n -gt 0 ]
}

# rift_srv_grants SESS: "granted/pinned KiB" of each of SESS's server
# paths, for a diagnostic line.
rift_srv_grants()
{
	local p
	for p in "$RIFT_SRV_SYSFS/$1"/paths/*/; do
		[ -d "$p" ] || continue
		echo "$(basename "$p")=$(cat "$p/granted" 2>/dev/null)/$(($(cat "$p/pinned_bytes" 2>/dev/null || echo 0) / 1024))KiB"
	done | tr '\n' ' '
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
