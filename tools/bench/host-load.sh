#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host's load while `make bench` runs (tools/bench/bench.sh starts
# it before the VM boots).  Every second one line is appended to OUTFILE:
#
#   EPOCH HOST_BUSY HOST_TOTAL QEMU_CPU
#
# EPOCH is the host's wall clock ($EPOCHREALTIME, seconds), HOST_BUSY and
# HOST_TOTAL the host's cumulative CPU time from the first "cpu " line of
# /proc/stat (busy = user + nice + system + irq + softirq + steal, total
# adds idle and iowait; all CPUs), QEMU_CPU the cumulative CPU time
# (utime + stime, all its threads) of the qemu process(es) whose pid
# qemu itself wrote into PIDFILE (vm.sh's -pidfile: build/bench/vm/
# qemu-bench.pid, the file bench.sh also kills a wedged VM by); all in
# USER_HZ ticks.  QEMU_CPU is 0 before a pid file appears and keeps its
# last value once that qemu is gone.  Cumulative, never per-second: the
# report (bench-report.py) differences any two instants, interpolating
# between samples, so a late or early sample costs nothing.  Lines that
# start with '#' are notes (the clock tick, the qemu pid found, why the
# sampler stopped).
#
# usage: host-load.sh OUTFILE PIDFILE...
#
# It ends when killed (bench.sh's EXIT trap) or by itself within a second
# of its parent going (a bench.sh killed with SIGKILL runs no trap): it
# watches its own parent pid in /proc/$$/stat, which changes when the
# parent dies (the orphan is reparented), even while the dead parent is a
# zombie not yet reaped.  The loop forks nothing: /proc is read with
# `read`, the pause is a `read -t 1` on a FIFO no one writes to, as
# rift_nap in selftests/lib-ktap.sh.
set -u
[ $# -ge 2 ] || { echo "usage: host-load.sh OUTFILE PIDFILE..." >&2; exit 2; }
out=$1
shift
pidfiles=("$@")
parent=$PPID

exec {o}>>"$out" || exit 1
nap=
fifo=/tmp/rift-host-load.$$
if mkfifo "$fifo" 2>/dev/null; then
	exec {nap}<>"$fifo" || nap=
	rm -f "$fifo"
fi
printf '# host-load.sh: epoch host_busy host_total qemu_cpu; clk_tck %s cpus %s; parent %s; pid files %s\n' \
	"$(getconf CLK_TCK)" "$(getconf _NPROCESSORS_ONLN)" "$parent" "${pidfiles[*]}" >&"$o"

# Per pid file: the qemu pid found in it and its last CPU time.
declare -a qpid=() qcpu=()
for i in "${!pidfiles[@]}"; do
	qpid[i]=
	qcpu[i]=0
done

while :; do
	# Our parent pid is field 4 of our own stat; our comm is "bash" or
	# the script's name, no space nor parenthesis in it.
	read -r _ _ _ pp _ < "/proc/$$/stat"
	if [ "$pp" != "$parent" ]; then
		printf '# parent %s gone at %s: stopping\n' "$parent" "$EPOCHREALTIME" >&"$o"
		exit 0
	fi
	read -r _ u n s idle iow irq sirq steal _ < /proc/stat
	q=0
	for i in "${!pidfiles[@]}"; do
		if [ -z "${qpid[i]}" ] && [ -s "${pidfiles[i]}" ]; then
			read -r p 2>/dev/null < "${pidfiles[i]}"
			if [[ ${p:-} =~ ^[0-9]+$ ]]; then
				qpid[i]=$p
				printf '# qemu pid %s (%s)\n' "$p" "${pidfiles[i]}" >&"$o"
			fi
		fi
		# Fields after the comm (which may hold spaces): state is
		# field 3, utime 14, stime 15.  A pid reused by something
		# other than qemu is not counted.
		if [ -n "${qpid[i]}" ] && read -r st 2>/dev/null < "/proc/${qpid[i]}/stat" &&
		   [[ $st == *"(qemu"* ]]; then
			read -r -a f <<<"${st##*) }"
			qcpu[i]=$((f[11] + f[12]))
		fi
		q=$((q + qcpu[i]))
	done
	printf '%s %d %d %d\n' "${EPOCHREALTIME/,/.}" $((u + n + s + irq + sirq + steal)) \
		$((u + n + s + irq + sirq + steal + idle + iow)) "$q" >&"$o"
	if [ -n "$nap" ]; then
		read -r -t 1 -u "$nap" _
	else
		sleep 1
	fi
done
