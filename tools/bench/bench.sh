#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: numbers, never pass/fail.  Builds Rift and the RTRS/RNBD
# comparison peer (tools/bench/build-peers.sh), boots ONE VM and runs
# tools/bench/bench-guest.sh in it: fio on local null_blk, riftblk over
# one and two paths and with always-invalidate, nvme-rdma and RNBD over
# one link and over both, and perftest's raw verbs limit, interleaved
# repetitions; plus a polled job, the failover gap, the memory of an idle
# session and CPU time per IO.  Meanwhile tools/bench/host-load.sh
# records the host's load (build/bench/vm/host-load.txt), for the report
# to name the jobs that shared the host with other work.  Prints the
# table and leaves build/bench/bench.{txt,json}.
#
# Environment: BENCH_RUNTIME (s per fio job, default 10), BENCH_REPS (3),
# BENCH_PEERS (subset, in order), BENCH_PROFILE (fio jobs to sample with
# perf, e.g. qd32-randread; profiles in build/bench/vm/perf/), BENCH_SCHED
# (fio jobs whose context switches and wake-ups are recorded, in
# build/bench/vm/sched/),
# BENCH_ALT (another Rift tree, say a branch's clone: its modules are
# built and run by the peers named X-alt, e.g. BENCH_PEERS="rift-1p
# rift-1p-alt nvme", for an A/B of two builds in the same boot; the
# report adds each X-alt's ratios to X),
# BENCH_FO_DOWN (s a link stays down in the failover job, default 15),
# BENCH_TIMEOUT (hard limit of the VM in seconds; default from the
# above).  The peer rift-idle63, run only when named (`make
# bench-idle63` names it alone), is memory credits' "one busy session
# keeps its IOPS with 63 idle ones" (tools/bench/bench-idle63.sh), with
# BENCH_IDLE_N (idle sessions, default 63) and BENCH_IDLE_MS (the
# server's credit_idle_ms, default 1000).  Exits non-zero only if the
# bench itself could not run (build, boot), never because of a figure.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=$top/build/bench
runtime=${BENCH_RUNTIME:-10}
reps=${BENCH_REPS:-3}
peers=${BENCH_PEERS:-raw local rift-1p rift-2p rift-ai rift-fai nvme nvme-mp rnbd rnbd-2p}
fodown=${BENCH_FO_DOWN:-15}
idlen=${BENCH_IDLE_N:-63}
idlems=${BENCH_IDLE_MS:-1000}
npeers=$(wc -w <<<"${peers//rift-idle63/}")
# Per peer and repetition: 7 fio jobs, three setups and the failover job
# under TCG; for rift-idle63 per repetition: 15 s to map and to unmap
# each of its sessions, a minute per warm-up of eight, four fio jobs
# each after up to 2 x credit_idle_ms + 10 s of waiting for the floor.
# The guest gives up on a hung peer by itself; this limit is for a
# wedged VM.
i63=0
if [[ " $peers " == *" rift-idle63 "* ]]; then
	i63=$((30 * (idlen + 1) + 62 * ((idlen + 8) / 8) + 4 * (runtime + 2 * idlems / 1000 + 70)))
fi
tmo=${BENCH_TIMEOUT:-$((300 + reps * (npeers * (7 * (runtime + 20) + 120 + fodown + 60) + i63)))}
# Once the guest has written bench.done (its figures are all recorded),
# it has this long to power off before the VM is killed: a peer may have
# left IO stuck that unmapping or unloading waits on for ever.
grace=180

tools/deps.sh
echo "bench: building modules"
make -s modules 2>&1 | grep -v 'Skipping BTF' || true
rm -rf "$out/vm" "$out/alt" "$out/bench.txt" "$out/bench.json"
alt=
if [ -n "${BENCH_ALT:-}" ]; then
	BENCH_ALT=$(cd "$BENCH_ALT" && pwd)
	# The VM sees this tree only: the other build's modules are copied in.
	echo "bench: building the modules of BENCH_ALT=$BENCH_ALT (peers X-alt)"
	mkdir -p "$out/vm"
	make -C "$BENCH_ALT" -s modules > "$out/vm/alt-build.log" 2>&1 || {
		grep -v 'Skipping BTF' "$out/vm/alt-build.log" >&2
		echo "bench: BENCH_ALT's modules do not build" >&2
		exit 1
	}
	for m in rift/rift-core rift/rift-client rift/rift-server \
		 riftblk/riftblk-common riftblk/riftblk-server riftblk/riftblk-client; do
		[ -f "$BENCH_ALT/$m.ko" ] || { echo "bench: $BENCH_ALT/$m.ko not built" >&2; exit 1; }
		mkdir -p "$out/alt/${m%/*}"
		cp "$BENCH_ALT/$m.ko" "$out/alt/$m.ko"
	done
	alt=/mnt/rift/build/bench/alt
	# For the report: which builds the A/B compared.
	{
		echo "alt: $BENCH_ALT $(git -C "$BENCH_ALT" log -1 --format='%h %s' 2>/dev/null)"
		echo "main: $top $(git -C "$top" log -1 --format='%h %s' 2>/dev/null)"
	} > "$out/vm/alt.txt"
elif [[ " $peers " == *-alt\ * ]]; then
	echo "bench: a peer X-alt needs BENCH_ALT (another tree); it will read n/a" >&2
fi
if [[ " $peers " == *" rnbd"* ]]; then
	echo "bench: building RTRS/RNBD out of tree (comparison peer, build/bench/peers)"
	tools/bench/build-peers.sh "$out/peers" >/dev/null || {
		echo "bench: RTRS/RNBD did not build; the rnbd column will read n/a" >&2
	}
fi
echo "bench: one VM, ${runtime}s per job, $reps repetitions, peers: $peers"
echo "bench: hard limit ${tmo}s; progress in $out/vm/guest.log"
# The host's load, sampled every second from before the VM boots until
# it is down: what else ran on the host during each fio job (the report
# reads it; tools/bench/host-load.sh).  Killed on any exit of this
# script; if this script is killed with SIGKILL, it stops by itself.
mkdir -p "$out/vm"
tools/bench/host-load.sh "$out/vm/host-load.txt" "$out/vm/qemu-bench.pid" >/dev/null &
hlpid=$!
trap 'kill "$hlpid" 2>/dev/null || true' EXIT
rc=0
# No slub_debug: its per-allocation stack traces would weigh on every figure.
tools/vm/vm.sh --out "$out/vm" --name bench --mem 3072 --timeout "$tmo" --slub-debug off -- \
	env BENCH_RUNTIME="$runtime" BENCH_REPS="$reps" BENCH_PEERS="$peers" \
	BENCH_PROFILE="${BENCH_PROFILE:-}" BENCH_SCHED="${BENCH_SCHED:-}" \
	BENCH_FO_DOWN="$fodown" \
	BENCH_IDLE_N="$idlen" BENCH_IDLE_MS="$idlems" \
	BENCH_PEERS_DIR=/mnt/rift/build/bench/peers BENCH_ALT_DIR="$alt" \
	bash tools/bench/bench-guest.sh &
vmpid=$!
killed=
while kill -0 "$vmpid" 2>/dev/null; do
	if [ -e "$out/vm/bench.done" ]; then
		t=$SECONDS
		while kill -0 "$vmpid" 2>/dev/null && [ $((SECONDS - t)) -lt $grace ]; do
			sleep 1
		done
		if kill -0 "$vmpid" 2>/dev/null; then
			echo "bench: the guest finished but the VM is still up ${grace}s later (a peer left something wedged); killing it" >&2
			if qpid=$(cat "$out/vm/qemu-bench.pid" 2>/dev/null); then
				kill -KILL "$qpid" 2>/dev/null || true
			fi
			killed=1
		fi
		break
	fi
	sleep 2
done
wait "$vmpid" || rc=$?
kill "$hlpid" 2>/dev/null || true
if [ -n "$killed" ]; then
	echo "bench: VM killed after the guest finished; tabulating" >&2
elif [ $rc -ne 0 ]; then
	echo "bench: the VM ended with status $rc (console: $out/vm/console-bench.log); tabulating what was measured" >&2
fi
[ -s "$out/vm/results.jsonl" ] || { echo "bench: no results" >&2; exit 1; }
python3 tools/bench/bench-report.py "$out/vm" "$out/bench.json" | tee "$out/bench.txt"
echo "bench: table in $out/bench.txt, figures in $out/bench.json"
