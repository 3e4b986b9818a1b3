# SPDX-License-Identifier: GPL-2.0
#
# KTAP output, deferred cleanup and waiting: what every test uses.
# Sourced by lib.sh; not a test.

RIFT_TREE=${RIFT_TREE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
RIFT_OUT=${RIFT_OUT:-/tmp}
KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

__ktap_n=0
__ktap_pass=0
__ktap_fail=0
__ktap_skip=0

# RIFT_KTAP_TIMES (set by the VM harness): a file that gets one line per
# test point, "MS N", the milliseconds since the test started: where a
# test spends its time, for keeping `make check` within its budget.
# $EPOCHREALTIME (bash 5): no date(1) forked per point.
__ktap_t0=${EPOCHREALTIME/./}

__ktap_time()
{
	local now=${EPOCHREALTIME/./}

	[ -z "${RIFT_KTAP_TIMES:-}" ] ||
		echo "$(((now - __ktap_t0) / 1000)) $__ktap_n" >> "$RIFT_KTAP_TIMES"
}

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
	__ktap_time
}

ktap_fail()
{
	__ktap_n=$((__ktap_n + 1))
	__ktap_fail=$((__ktap_fail + 1))
	echo "not ok $__ktap_n $*"
	__ktap_time
}

# ktap_skip DESC REASON
ktap_skip()
{
	__ktap_n=$((__ktap_n + 1))
	__ktap_skip=$((__ktap_skip + 1))
	echo "ok $__ktap_n $1 # SKIP $2"
	__ktap_time
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
		rift_nap 0.2
	done
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

# rift_scaled SECONDS: SECONDS times RIFT_TIMEOUT_SCALE (the harness sets
# it, 3 on the sanitizer kernel: see tools/vm/lib.sh), for a bound on work
# whose duration follows the CPU's speed, such as a fixed number of
# requests; not for bounds that protocol timers set.
rift_scaled()
{
	echo $(($1 * ${RIFT_TIMEOUT_SCALE:-1}))
}

# A pause that forks nothing: a read from a FIFO nobody writes times out.
# Every test polls (rift_wait_until, rift_wait_pid, five times a second
# while fio or a run goes on), and a fork and exec of sleep(1) each time
# kept a quarter of an idle TCG guest's CPU busy (tools/bench measured
# it), taken from the IO under test.  The FIFO is gone from the file
# system once open; children inherit only an fd no one writes to.
__rift_nap_fd=
if mkfifo "/tmp/rift-nap.$$" 2>/dev/null; then
	exec {__rift_nap_fd}<>"/tmp/rift-nap.$$" || __rift_nap_fd=
	rm -f "/tmp/rift-nap.$$"
fi

# rift_nap SECONDS: the polling loops' pause (fractions allowed).  The
# bench defines its own after sourcing this file.
rift_nap()
{
	local _x

	if [ -n "$__rift_nap_fd" ]; then
		read -r -t "$1" -u "$__rift_nap_fd" _x
	else
		sleep "$1"
	fi
	return 0
}

# rift_wait_pid SECONDS PID: wait for a background job, up to SECONDS;
# its exit status, or 124 if it is still running.
rift_wait_pid()
{
	local end=$((SECONDS + $1))
	while kill -0 "$2" 2>/dev/null; do
		[ $SECONDS -lt $end ] || return 124
		rift_nap 0.2
	done
	wait "$2"
}

# rift_now_ms: monotonic-enough milliseconds for timing a step.
rift_now_ms()
{
	echo $(($(date +%s%N) / 1000000))
}

# rift_klog_mark TEXT: put "rift-selftest: TEXT" in the kernel log, to time
# kernel events from with rift_klog_ms.  A shell that polls sysfs sees an
# event late, by up to seconds on a slow (sanitizer) kernel; the kernel
# log's clock does not depend on when the shell looked.
rift_klog_mark()
{
	echo "rift-selftest: $*" > /dev/kmsg
}

# rift_klog_ms TEXT: the kernel-clock milliseconds of the last kernel log
# line that contains TEXT (a fixed string); nothing if there is none.
rift_klog_ms()
{
	dmesg | grep -F -- "$1" | tail -n 1 |
		sed -n 's/^\[ *\([0-9]*\)\.\([0-9]\{3\}\).*/\1\2/p' | sed 's/^0*\([0-9]\)/\1/'
}
