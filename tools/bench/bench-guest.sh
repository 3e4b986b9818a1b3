#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`, inside the VM (see tools/bench/bench.sh).  One null_blk
# device is served in turn to every peer over the same two Soft-RoCE links,
# and fio runs the same jobs on each; the repetitions are interleaved
# (rep 1: every peer, rep 2: every peer, ...).  Records one JSON line per
# measurement in $RIFT_OUT/results.jsonl (fio's own JSON next to it in
# fio/), which the host turns into the table.  Measures, never judges: a
# peer that cannot be set up is recorded as "n/a" with the reason.
#
# Each peer, each repetition: its device mapped on /dev/nullb0 (the memory
# one idle session takes is sampled around the map), the fio JOBS, unmap;
# mapped again with poll queues for the polled job (POLL_JOBS, io_uring
# hipri) where the peer has poll queues; and for the peers over both links
# the failover job on the memory-backed /dev/nullbfo (fo_job: one link goes
# down under a verified QD16 fio and comes back).  Every fio job also
# records the VM's busy CPU time and context switches (/proc/stat) for
# CPU time and context switches per IO, and its guest times t0/t1, for
# the host to find the job on its load record (tools/bench/host-load.sh).
#
# The peer rift-idle63 (only if named in BENCH_PEERS; `make bench-idle63`)
# is memory credits' scenario of its own, one busy riftblk session with
# 63 idle ones connected and without them: tools/bench/bench-idle63.sh.
#
# Environment: BENCH_RUNTIME (s per fio job, 10), BENCH_REPS (3),
# BENCH_PEERS (default: raw local rift-1p rift-2p rift-ai rift-fai nvme
# nvme-mp rnbd rnbd-2p; a peer X-alt is X with BENCH_ALT_DIR's modules),
# BENCH_PEERS_DIR (the out-of-tree rtrs/rnbd build), BENCH_ALT_DIR (the
# modules of another Rift tree, as bench.sh copied them: see
# riftblk_modules),
# BENCH_PROFILE (fio job names to sample with perf, comma-separated; see
# profile_start), BENCH_SCHED (fio job names whose context switches and
# wake-ups are recorded; see sched_start), BENCH_FO_DOWN (s the link
# stays down in the failover job, 15); for rift-idle63 BENCH_IDLE_N (idle sessions, 63) and
# BENCH_IDLE_MS (the server's credit_idle_ms, 1000).
set -uo pipefail
# shellcheck source=selftests/lib.sh
cd "$RIFT_TREE/selftests" && . ./lib.sh

RUNTIME=${BENCH_RUNTIME:-10}
REPS=${BENCH_REPS:-3}
read -r -a PEERS <<<"${BENCH_PEERS:-raw local rift-1p rift-2p rift-ai rift-fai nvme nvme-mp rnbd rnbd-2p}"
PEERS_DIR=${BENCH_PEERS_DIR:-$RIFT_TREE/build/bench/peers}
# Another build of Rift (bench.sh's BENCH_ALT), run by the peers X-alt.
ALT_TREE=${BENCH_ALT_DIR:-}
OUT=$RIFT_OUT
RES=$OUT/results.jsonl
NB=/dev/nullb0
NULLB_PARAMS=(nr_devices=1 gb=1 bs=512 irqmode=0 queue_mode=2 submit_queues=2
	      hw_queue_depth=128)
# The failover job's device: the same null_blk but memory-backed, so that
# fio can verify what it wrote (configfs, see nullbfo_add).
NBFO=/dev/nullbfo
NQN=nqn.2026-11.org.rift:bench
NQN_FO=nqn.2026-11.org.rift:bench-fo
NVMET=/sys/kernel/config/nvmet
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid)
TR=/sys/kernel/tracing
# Setup and teardown steps that take longer than this count as hung.
STEP_TMO=60
# fio jobs: name rw bs iodepth engine (io_uring-hipri: io_uring with
# IOPOLL, on a device mapped with poll queues)
JOBS=("qd1-randread randread 4k 1 libaio" "qd1-randwrite randwrite 4k 1 libaio"
      "qd32-randread randread 4k 32 libaio" "qd32-randwrite randwrite 4k 32 libaio"
      "qd8-seqread read 128k 8 libaio" "qd8-seqwrite write 128k 8 libaio")
POLL_JOBS=("qd1-polled randread 4k 1 io_uring-hipri")
# Poll queues asked of every peer that has them: one per CPU.
POLLQ=$(nproc)
# The failover job: IO for FO_WARM s, link down for FO_DOWN s, back up,
# FO_AFTER s more.  The link stays down as long for every peer; a peer
# that does not fail over within it shows a gap as long as the window.
FO_WARM=5
FO_DOWN=${BENCH_FO_DOWN:-15}
FO_AFTER=5

mkdir -p "$OUT/fio" "$OUT/raw"
: > "$RES"
exec > >(tee "$OUT/guest.log") 2>&1

log()
{
	printf 'bench: %5ss %s\n' "$SECONDS" "$*"
}

# json_str TEXT: TEXT as a JSON string (quotes, backslashes, newlines go).
json_str()
{
	printf '"%s"' "$(printf '%s' "$1" | tr -d '"\\\n' | tr '\t' ' ')"
}

# record PEER REP JOB STATUS [KEY=NUMBER...]: one line of results.jsonl;
# STATUS is "ok" or the reason the figure is missing.
record()
{
	local line kv
	line="{\"peer\":$(json_str "$1"),\"rep\":$2,\"job\":$(json_str "$3"),\"status\":$(json_str "$4")"
	shift 4
	for kv in "$@"; do
		line+=",\"${kv%%=*}\":${kv#*=}"
	done
	echo "$line}" >> "$RES"
}

# The bench's polling (every step, 5 times a second) pauses with
# lib-ktap.sh's rift_nap, which forks nothing: a sleep(1) each time kept a
# quarter of the idle TCG guest's CPU busy, taken from the peer measured.

# step SECONDS CMD...: run CMD with a deadline.  A step stuck in the
# kernel (a sysfs write in D state) cannot be killed; it is abandoned and
# the peer is given up on, so one hung peer does not hang the bench.
step()
{
	local tmo=$1 pid rc
	shift
	"$@" &
	pid=$!
	rift_wait_pid "$tmo" "$pid"
	rc=$?
	if [ $rc -eq 124 ]; then
		kill -9 "$pid" 2>/dev/null
		log "step timed out after ${tmo}s: $*"
	fi
	return $rc
}

# --- transport-level counters, identical for every peer ----------------
# kprobes on the Soft-RoCE driver's verbs entry points count, for the
# whole VM (client and server ends together): ib_post_send calls (a chain
# of linked WRs counts once), receive WRs posted and completion-queue
# entries generated.  rxe's sent_pkts counts wire packets (MTU-sized
# segments, ACKs included).  Rift's own stats count requests, not WRs.
KPROBES=(post_send:rxe_post_send post_recv:post_one_recv cqe:rxe_cq_post)
counters_setup()
{
	local k
	[ -w "$TR/kprobe_events" ] || { log "no tracefs: no WR/CQE counts"; return 1; }
	for k in "${KPROBES[@]}"; do
		echo "p:riftbench/${k%%:*} ${k#*:}" >> "$TR/kprobe_events" || return 1
		echo 'hist:keys=common_pid' > "$TR/events/riftbench/${k%%:*}/trigger" || return 1
	done
}

counters_teardown()
{
	local k
	for k in "${KPROBES[@]}"; do
		echo '!hist:keys=common_pid' > "$TR/events/riftbench/${k%%:*}/trigger" 2>/dev/null
	done
	echo > "$TR/kprobe_events" 2>/dev/null
}

# counters: "post_send post_recv cqe pkts busy total ctxt" now; busy and
# total are the VM's CPU time (all CPUs, USER_HZ ticks) from /proc/stat:
# busy is user + nice + system + irq + softirq + steal, total adds idle
# and iowait; ctxt is the VM's context switches (all CPUs) from the same
# read of /proc/stat.
counters()
{
	local k n out=() pk=0 f
	for k in "${KPROBES[@]}"; do
		n=$(awk '/^ *Hits:/ { print $2 }' "$TR/events/riftbench/${k%%:*}/hist" 2>/dev/null)
		out+=("${n:-0}")
	done
	for f in /sys/class/infiniband/rxe_*/ports/1/hw_counters/sent_pkts; do
		[ -r "$f" ] && pk=$((pk + $(cat "$f")))
	done
	echo "${out[*]} $pk $(awk '/^cpu / { b = $2 + $3 + $4 + $7 + $8 + $9; t = b + $5 + $6 }
		/^ctxt / { print b, t, $2; exit }' /proc/stat)"
}

# --- memory an idle session takes ---------------------------------------
# mem_snap FILE [SESSNAME]: "used srv_pinned clt_pinned" (KiB) into FILE.
# used is the VM's memory that is neither free nor page cache (MemTotal -
# MemFree - Buffers - Cached): client and server ends together, whatever
# allocated it (slab, pages, MRs).  srv_pinned is rift-server's own count
# of chunk memory (/sys/kernel/rift_server/pinned_bytes), clt_pinned the
# Rift client session's (pinned_bytes); "-" where there is none.
mem_snap()
{
	local sp=- cp=- f
	f=/sys/kernel/rift_server/pinned_bytes
	[ -r "$f" ] && sp=$(($(cat "$f") / 1024))
	f=$RIFT_CLT_SYSFS/${2:-none}/pinned_bytes
	[ -n "${2:-}" ] && [ -r "$f" ] && cp=$(($(cat "$f") / 1024))
	echo "$(awk '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 } /^Buffers:/ { b = $2 }
		/^Cached:/ { c = $2 } END { print t - f - b - c }' /proc/meminfo) $sp $cp" > "$1"
}

# Seconds an idle session is left to settle (connections, heartbeats)
# before its memory is read.
MEM_SETTLE=3
# With memory credits (rift_server's default) an idle Rift session's
# memory is read once the server has also taken its paths down to their
# floor: the map's own reads (partition scan) may have grown a grant,
# which the server revokes credit_idle_ms after the path's last request.
# What is measured is then what an idle session keeps, not a moment of
# its first second.  Bounded: a figure is taken all the same.
MEM_FLOOR_S=15
# rift-server's credit_floor as the first Rift peer found it (its
# default: the bench sets it only for rift-idle63) goes to
# $OUT/srv_credit_floor, for the report.

# --- fio -----------------------------------------------------------------
# fio_job OUTFILE DEV RW BS QD ENGINE: one fio run, JSON to OUTFILE.
# Percentiles of the total latency too (lat_percentiles): the report's
# latency is submission plus completion, fio's lat.
fio_job()
{
	local eng=(--ioengine="$6")
	[ "$6" = io_uring-hipri ] && eng=(--ioengine=io_uring --hipri=1)
	timeout -k 5 $((RUNTIME + 90)) fio --name="${1##*/}" --filename="$2" \
		"${eng[@]}" --direct=1 --rw="$3" --bs="$4" --iodepth="$5" \
		--numjobs=1 --runtime="$RUNTIME" --time_based --randrepeat=0 \
		--norandommap --lat_percentiles=1 --output-format=json \
		--output="$1" > "$1.log" 2>&1
}

# --- optional profile (BENCH_PROFILE=JOB[,JOB...]) ----------------------
# perf samples the whole VM (both ends, all CPUs) on the kernel clock while
# the named fio jobs run; the flat profile of each goes to
# $RIFT_OUT/perf/PEER-JOB-rREP.txt.  Sampling costs CPU time under TCG,
# so figures of a profiled run are not comparable with unprofiled ones.
PROFILE=${BENCH_PROFILE:-}
PERF_PID=
PERF_OUT=

profile_start()
{
	[ -n "$PROFILE" ] && [[ ",$PROFILE," == *",$2,"* ]] || return 0
	command -v perf > /dev/null || { log "no perf: not profiling"; return 0; }
	mkdir -p "$OUT/perf"
	PERF_OUT=$OUT/perf/$1
	# perf takes seconds to start under TCG: it starts with its events
	# off, and the job runs once perf has acknowledged turning them on.
	rm -f /tmp/perf.ctl /tmp/perf.ack
	mkfifo /tmp/perf.ctl /tmp/perf.ack
	perf record -q -a -g -e cpu-clock -F 499 -D -1 \
		--control=fifo:/tmp/perf.ctl,/tmp/perf.ack -o "/tmp/${1}.data" \
		> "$PERF_OUT.log" 2>&1 &
	PERF_PID=$!
	if ! timeout 120 sh -c 'echo enable > /tmp/perf.ctl && read -r a < /tmp/perf.ack'; then
		log "  perf did not start: not profiling"
		kill -9 "$PERF_PID" 2>/dev/null
		PERF_PID=
	fi
}

profile_stop()
{
	[ -n "$PERF_PID" ] || return 0
	kill -INT "$PERF_PID" 2>/dev/null
	rift_wait_pid 60 "$PERF_PID"
	local data=/tmp/${PERF_OUT##*/}.data
	# Down to 0.02 %: the VM idles most of a QD1 job, and one module's
	# symbols each take a fraction of a percent (a 0.5 % cut-off showed
	# none of Rift's).  The guest's modules count as [kernel.kallsyms] in
	# the dso view: a module's share is the sum of its symbols.
	step 300 sh -c "perf report -i '$data' --stdio --no-children \
		--sort sym --percent-limit 0.02 -g none > '$PERF_OUT.txt' 2>> '$PERF_OUT.log'"
	step 300 sh -c "perf report -i '$data' --stdio --no-children \
		--sort dso --percent-limit 0.02 -g none > '$PERF_OUT.dso.txt' 2>> '$PERF_OUT.log'"
	rm -f "$data" /tmp/perf.ctl /tmp/perf.ack
	PERF_PID=
	log "  profile: ${PERF_OUT#"$OUT"/}.txt"
}

# --- optional scheduling record (BENCH_SCHED=JOB[,JOB...]) -------------
# Where a job's context switches go, for the named fio jobs: histograms
# (tracefs hist triggers, counted in the kernel, nothing streamed) of the
# task switched in (sched_switch next_comm), of the task woken and of the
# stack that woke a ksoftirqd (sched_wakeup), of the work items queued
# (workqueue_queue_work function) and of the softirqs run (softirq_entry
# vec), for the whole VM, to $RIFT_OUT/sched/PEER-JOB-rREP.txt.  The
# report divides them by the job's IOs.  A trigger costs a little CPU per
# event: figures of such a run are not compared with unrecorded ones.
SCHED=${BENCH_SCHED:-}
SCHED_OUT=
SCHED_HISTS=("sched/sched_switch:keys=next_comm:sort=hitcount.descending"
	     "sched/sched_wakeup:keys=comm:sort=hitcount.descending"
	     "workqueue/workqueue_queue_work:keys=function.sym:sort=hitcount.descending"
	     "irq/softirq_entry:keys=vec,common_pid.execname:sort=hitcount.descending"
	     "irq/softirq_raise:keys=vec:sort=hitcount.descending")
# The ksoftirqd wake-ups' stacks: a trigger of its own, filtered.
SCHED_KSOFT="sched/sched_wakeup:keys=stacktrace:sort=hitcount.descending:size=256 if comm ~ \"ksoftirqd*\""

sched_start()
{
	local h
	SCHED_OUT=
	[ -n "$SCHED" ] && [[ ",$SCHED," == *",$2,"* ]] || return 0
	[ -w "$TR/events/sched/sched_switch/trigger" ] || { log "no hist triggers: no sched record"; return 0; }
	mkdir -p "$OUT/sched"
	for h in "${SCHED_HISTS[@]}" "$SCHED_KSOFT"; do
		echo "hist:${h#*:}" >> "$TR/events/${h%%:*}/trigger" ||
			log "  sched: cannot set ${h%%:*} ${h#*:}"
	done
	SCHED_OUT=$OUT/sched/$1.txt
}

sched_stop()
{
	local h
	[ -n "$SCHED_OUT" ] || return 0
	# An event's hist file holds all its triggers' histograms: once each.
	for h in "${SCHED_HISTS[@]}"; do
		echo "=== ${h%%:*}"
		cat "$TR/events/${h%%:*}/hist"
	done > "$SCHED_OUT" 2>&1
	for h in "${SCHED_HISTS[@]}" "$SCHED_KSOFT"; do
		echo "!hist:${h#*:}" >> "$TR/events/${h%%:*}/trigger" 2>/dev/null
	done
	log "  sched record: ${SCHED_OUT#"$OUT"/}"
	SCHED_OUT=
}

# counted_since C0...: the growth of counters' seven numbers since C0 (an
# earlier reading of them), as key=value fields of a record.
counted_since()
{
	local c1
	read -r -a c1 <<<"$(counters)"
	echo "post_send=$((c1[0] - $1)) post_recv=$((c1[1] - $2))" \
	     "cqe=$((c1[2] - $3)) pkts=$((c1[3] - $4))" \
	     "cpu_busy=$((c1[4] - $5)) cpu_total=$((c1[5] - $6))" \
	     "ctxt=$((c1[6] - $7))"
}

# fio_outcome PEER REP NAME RC F DONE: one record for a fio job that
# ended with RC (F its json; DONE what the log says of a success), the
# fields in $fields.  Returns 124 for a fio that hung: IO is stuck in the
# kernel, and the caller gives the peer up.
fio_outcome()
{
	local peer=$1 rep=$2 name=$3 rc=$4 f=$5

	if [ "$rc" -eq 0 ]; then
		record "$peer" "$rep" "$name" ok "${fields[@]}"
		log "  $peer $name: $6"
	elif [ "$rc" -eq 124 ]; then
		record "$peer" "$rep" "$name" "fio hung (IO stuck for > $((RUNTIME + 120))s)"
		return 124
	else
		record "$peer" "$rep" "$name" "fio failed (rc $rc): $(tail -n 1 "$f.log")"
		log "  $peer $name: fio rc $rc: $(tail -n 2 "$f.log")"
	fi
}

# run_jobs PEER REP DEV JOB...: each fio JOB (a line of JOBS) on DEV, one
# record each.  Returns 124 if fio hung (IO stuck in the kernel): the
# device cannot be torn down then, and the peer is given up on.  t0 and
# t1 are the guest's wall clock (s) just before fio starts and once it is
# seen to have ended (up to rift_nap's 0.2 s later): t1 - t0 is the
# length of the job's window on the host's load record (bench-report.py
# ends the window at the host's mtime of fio's JSON, not trusting the
# two clocks to agree).
run_jobs()
{
	local peer=$1 rep=$2 dev=$3 j name rw bs qd eng f c0 rc fields t0 t1
	shift 3
	for j in "$@"; do
		read -r name rw bs qd eng <<<"$j"
		[ -n "$rw" ] || continue
		f=$OUT/fio/$peer-$name-r$rep.json
		read -r -a c0 <<<"$(counters)"
		rc=0
		profile_start "$peer-$name-r$rep" "$name"
		sched_start "$peer-$name-r$rep" "$name"
		t0=${EPOCHREALTIME/,/.}
		step $((RUNTIME + 120)) fio_job "$f" "$dev" "$rw" "$bs" "$qd" "$eng" || rc=$?
		t1=${EPOCHREALTIME/,/.}
		sched_stop
		profile_stop
		read -r -a fields <<<"$(counted_since "${c0[@]}")"
		fields+=("t0=$t0" "t1=$t1")
		fio_outcome "$peer" "$rep" "$name" "$rc" "$f" "done" || return 124
	done
}

# na_jobs PEER REP REASON JOB...: the peer gave no figures for the JOBs
# (lines of JOBS, or bare names) this repetition.
na_jobs()
{
	local j peer=$1 rep=$2 why=$3
	shift 3
	for j in "$@"; do
		record "$peer" "$rep" "${j%% *}" "$why"
	done
	log "  $peer: n/a ($(printf '%s ' "${@%% *}")): $why"
}

# --- peers: each has PEER_up (prints the device), PEER_down --------------
# A peer whose setup fails or hangs is recorded n/a; GIVEN_UP keeps a
# hung one from being retried in later repetitions (key PEER: every
# phase; PEER:poll, PEER:fo: that phase, see bench_phase).
declare -A GIVEN_UP=()

# blockdevs REGEX: the names in /sys/block matching REGEX, sorted.
blockdevs()
{
	local d
	for d in /sys/block/*; do
		[[ ${d##*/} =~ $1 ]] && echo "${d##*/}"
	done | sort
}

# bench_map OUTFILE SYSFSFILE LINE REGEX: write LINE to SYSFSFILE; the new
# block device in /sys/block matching REGEX goes to OUTFILE.
bench_map()
{
	local before after d
	before=$(blockdevs "$4")
	echo "$3" > "$2" || return 1
	after=$(blockdevs "$4")
	d=$(comm -13 <(echo "$before") <(echo "$after") | head -n 1)
	[ -n "$d" ] || return 1
	rift_wait_until 10 test -b "/dev/$(basename "$d")" || return 1
	echo "/dev/$(basename "$d")" > "$1"
}

# riftblk: the modules stay loaded, each repetition maps anew.  The
# *_up functions run in a subshell (see step), so what they set up once
# is found again by looking, and torn down by bench_cleanup.
#
# Every PEER_up takes PEER REP OUTFILE MODE and prints the device into
# OUTFILE; MODE is "" (the usual jobs, on $NB; the idle session's memory
# is sampled around the map into OUTFILE.mem0 and .mem1), poll (the same
# with $POLLQ poll queues) or fo (the failover job, on $NBFO).  PEER_down
# takes DEV MODE.

# peer_base PEER: the configuration PEER runs; a peer named X-alt runs
# X's with the modules of BENCH_ALT's tree (see riftblk_modules).
peer_base()
{
	echo "${1%-alt}"
}

# two_paths PEER: the peer runs over both links.
two_paths()
{
	case ${1%-alt} in
	rift-2p | nvme-mp | rnbd-2p) return 0 ;;
	esac
	return 1
}

# poll_check OUTFILE: the device in OUTFILE has poll queues.
poll_check()
{
	local q
	q=/sys/block/$(basename "$(cat "$1")")/queue/io_poll
	[ "$(cat "$q" 2>/dev/null)" = 1 ] || {
		echo "mapped asking $POLLQ poll queues, but queue/io_poll is $(cat "$q" 2>/dev/null)"
		return 1
	}
}

# riftblk_modules PEER: Rift's modules for PEER loaded.  A peer X-alt
# runs the modules built from another tree (bench.sh's BENCH_ALT, copied
# to ALT_TREE): A/B of two Rift builds in the same boot.  Switching
# between the two unloads every Rift module first; $OUT/rift-variant
# says which build is loaded (this runs in a subshell).
riftblk_modules()
{
	local m want=main have
	if [[ $1 == *-alt ]]; then
		[ -n "$ALT_TREE" ] && [ -f "$ALT_TREE/rift/rift-client.ko" ] || {
			echo "no other build to run $1 with (BENCH_ALT not set)"
			return 1
		}
		want=alt
	fi
	have=$(cat "$OUT/rift-variant" 2>/dev/null)
	if [ "$have" != "$want" ] && rift_loaded rift/rift-core; then
		riftblk_unmap_all
		rift_unload_all
		rift_loaded rift/rift-core && { echo "Rift's modules do not unload to switch builds"; return 1; }
	fi
	echo "$want" > "$OUT/rift-variant"
	[ $want = alt ] && export RIFT_KO_TREE=$ALT_TREE
	for m in rift/rift-core rift/rift-client rift/rift-server \
		 riftblk/riftblk-server riftblk/riftblk-client; do
		rift_loaded "$m" || rift_insmod "$m" || return 1
	done
	# The server refuses hosts it does not know, and maps only what it
	# exports.
	rift_srv_allow_host "$(uname -n)"
	[ -d "$RIFTBLK_SRV_KOBJ/exports/${NB#/dev/}" ] ||
		riftblk_export_add "$NB" rw "$(uname -n)"
	[ ! -b "$NBFO" ] || [ -d "$RIFTBLK_SRV_KOBJ/exports/${NBFO#/dev/}" ] ||
		riftblk_export_add "$NBFO" rw "$(uname -n)"
}

# rift_map SESS OUTFILE DEV EXTRA PATH...
rift_map()
{
	local line p of=$2
	line="sessname=$1 device_path=$3${4:+ $4}"
	shift 4
	for p in "$@"; do
		line+=" path=$p"
	done
	bench_map "$of" "$RIFTBLK_CTL/map_device" "$line" '^riftblk[0-9]+$'
}

AI_PARAM=/sys/module/rift_client/parameters/always_invalidate
# rift-fai: the server imposes always-invalidate (the client does not ask).
# rift-fai-ri: the same with the server's remote_invalidate on, so that
# the client kills a write's key with a SEND WITH_INV rather than the
# server with a LOCAL_INV of its own (an A/B of the two ways, not in the
# default list).
FAI_PARAM=/sys/module/rift_server/parameters/force_always_invalidate
RINV_PARAM=/sys/module/rift_server/parameters/remote_invalidate
rift_up()
{
	local peer rep=$2 of=$3 mode=$4 paths=(198.18.0.2@198.18.0.1) rc s
	local dev=$NB extra='' sess=$1-r$2${4:+-$4} ri
	riftblk_modules "$1" >"$of.mod" 2>&1 || {
		echo "riftblk modules do not load: $(tail -n 1 "$of.mod")"
		return 1
	}
	peer=$(peer_base "$1")
	# rift_up runs in a subshell (step): a file carries it to the report.
	[ -s "$OUT/srv_credit_floor" ] ||
		cat /sys/module/rift_server/parameters/credit_floor \
			> "$OUT/srv_credit_floor" 2>/dev/null
	two_paths "$peer" && paths+=(198.18.1.2@198.18.1.1)
	[ "$mode" = fo ] && dev=$NBFO
	[ "$mode" = poll ] && extra="nr_poll_queues=$POLLQ"
	if [ "$peer" = rift-ai ]; then
		[ -w "$AI_PARAM" ] || {
			echo "this rift-client has no always_invalidate (not merged on this branch)"
			return 1
		}
		echo 1 > "$AI_PARAM"
	fi
	if [ "$peer" = rift-fai ] || [ "$peer" = rift-fai-ri ]; then
		[ -w "$FAI_PARAM" ] || {
			echo "this rift-server has no force_always_invalidate"
			return 1
		}
		echo 1 > "$FAI_PARAM"
	fi
	if [ "$peer" = rift-fai-ri ]; then
		[ -w "$RINV_PARAM" ] || {
			echo "this rift-server has no remote_invalidate"
			return 1
		}
		echo 1 > "$RINV_PARAM"
	fi
	[ -z "$mode" ] && mem_snap "$of.mem0"
	rc=0
	rift_map "$sess" "$of" "$dev" "$extra" "${paths[@]}" 2>"$of.err" || rc=1
	[ "$peer" = rift-ai ] && echo 0 > "$AI_PARAM"
	case $peer in
	rift-fai | rift-fai-ri) echo 0 > "$FAI_PARAM" ;;
	esac
	[ "$peer" = rift-fai-ri ] && echo 0 > "$RINV_PARAM"
	if [ $rc -ne 0 ]; then
		echo "riftblk map failed: $(tail -n 1 "$of.err"; dmesg | grep -i rift | tail -n 1)"
		return 1
	fi
	# rift-dl: what riftblk would be under blk-mq's default for shared
	# tags (mq-deadline) rather than its own (none).
	if [ "$peer" = rift-dl ]; then
		echo mq-deadline > "/sys/block/$(basename "$(cat "$of")")/queue/scheduler" || {
			echo "cannot set mq-deadline on $(cat "$of")"
			return 1
		}
	fi
	if [ "$peer" = rift-fai ] || [ "$peer" = rift-fai-ri ]; then
		s=$RIFT_CLT_SYSFS/$sess/paths/$RIFTBLK_P0/always_invalidate
		[ "$(cat "$s")" = 1 ] || {
			echo "path of $sess does not run the imposed always_invalidate"
			return 1
		}
		s=${s%/*}/remote_invalidate
		ri=0
		[ "$peer" = rift-fai-ri ] && ri=1
		[ "$(cat "$s")" = $ri ] || {
			echo "path of $sess: remote_invalidate $(cat "$s"), not as $peer asks"
			return 1
		}
	fi
	if [ "$peer" = rift-ai ]; then
		s=$RIFT_CLT_SYSFS/$sess/always_invalidate
		[ ! -e "$s" ] || [ "$(cat "$s")" = 1 ] || {
			echo "session $sess did not take always_invalidate"
			return 1
		}
	fi
	if [ -z "$mode" ]; then
		sleep "$MEM_SETTLE"
		rift_wait_until "$MEM_FLOOR_S" rift_srv_at_floor "$sess" ||
			log "  $peer: server paths of $sess still above their floor: $(rift_srv_grants "$sess")"
		mem_snap "$of.mem1" "$sess"
	fi
	[ "$mode" != poll ] || poll_check "$of"
}

rift_down()
{
	riftblk_unmap "$1" 1
	rift_wait_until 20 test ! -e "$1"
}

local_up()
{
	echo "$NB" > "$3"
}

local_down()
{
	:
}

# nvme-rdma: the nvmet target is configured once: $NB in subsystem $NQN,
# $NBFO in $NQN_FO, both on port 1 (link 0) and port 2 (link 1).  nvme
# connects over link 0 each repetition; nvme-mp over both links to the same
# subsystem (native multipath: one device, a controller per link).
nvmet_subsys()
{
	local s=$NVMET/subsystems/$1
	[ -d "$s" ] || mkdir "$s" || return 1
	echo 1 > "$s/attr_allow_any_host" || return 1
	[ -d "$s/namespaces/1" ] || mkdir "$s/namespaces/1" || return 1
	[ "$(cat "$s/namespaces/1/enable")" = 1 ] && return 0
	echo -n "$2" > "$s/namespaces/1/device_path" &&
		echo 1 > "$s/namespaces/1/enable"
}

# nvmet_port ID ADDR NQN...: port ID on ADDR offers the subsystems NQN.
nvmet_port()
{
	local p=$NVMET/ports/$1 n
	if [ ! -d "$p" ]; then
		mkdir "$p" || return 1
		echo rdma > "$p/addr_trtype" && echo ipv4 > "$p/addr_adrfam" &&
			echo "$2" > "$p/addr_traddr" && echo 4420 > "$p/addr_trsvcid" || return 1
	fi
	shift 2
	for n in "$@"; do
		[ -L "$p/subsystems/$n" ] || ln -s "$NVMET/subsystems/$n" "$p/subsystems/$n" || return 1
	done
}

nvmet_setup()
{
	local nqns=("$NQN")
	[ -L "$NVMET/ports/2/subsystems/$NQN" ] && return 0
	modprobe nvmet && modprobe nvmet-rdma && modprobe nvme-rdma || return 1
	nvmet_subsys "$NQN" "$NB" || return 1
	if [ -b "$NBFO" ]; then
		nvmet_subsys "$NQN_FO" "$NBFO" || return 1
		nqns+=("$NQN_FO")
	fi
	nvmet_port 1 198.18.0.1 "${nqns[@]}" && nvmet_port 2 198.18.1.1 "${nqns[@]}"
}

nvmet_teardown()
{
	local s p n
	nvme disconnect -n "$NQN" >/dev/null 2>&1
	nvme disconnect -n "$NQN_FO" >/dev/null 2>&1
	for p in "$NVMET"/ports/1 "$NVMET"/ports/2; do
		[ -d "$p" ] || continue
		rm -f "$p"/subsystems/*
		rmdir "$p"
	done
	for n in "$NQN" "$NQN_FO"; do
		s=$NVMET/subsystems/$n
		[ -d "$s/namespaces/1" ] && echo 0 > "$s/namespaces/1/enable" &&
			rmdir "$s/namespaces/1"
		[ -d "$s" ] && rmdir "$s"
	done
}

# nvme_live NQN: controllers of subsystem NQN that are live.
nvme_live()
{
	local c n=0
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$1" ] &&
			[ "$(cat "$c/state" 2>/dev/null)" = live ] && n=$((n + 1))
	done
	echo $n
}

# nvme_connect OUTFILE NQN LINK MODE: a controller over link LINK; the
# new block device goes to OUTFILE, unless OUTFILE already names one (the
# second path of a multipath device adds no device).
nvme_connect()
{
	local of=$1 nqn=$2 i=$3 before after d opts=()
	[ "$4" = poll ] && opts=(--nr-poll-queues="$POLLQ")
	before=$(blockdevs '^nvme[0-9]+n[0-9]+$')
	nvme connect -t rdma -a "198.18.$i.1" -s 4420 -w "198.18.$i.2" -n "$nqn" \
		--hostnqn="$HOSTNQN" "${opts[@]}" >/dev/null || return 1
	[ -s "$of" ] && return 0
	for _ in $(seq 100); do
		after=$(blockdevs '^nvme[0-9]+n[0-9]+$')
		d=$(comm -13 <(echo "$before") <(echo "$after") | head -n 1)
		[ -n "$d" ] && break
		sleep 0.2
	done
	[ -n "$d" ] || return 1
	rift_wait_until 10 test -b "/dev/$d" && echo "/dev/$d" > "$of"
}

nvme_up()
{
	local peer=$1 of=$3 mode=$4 nqn=$NQN
	[ "$mode" = fo ] && nqn=$NQN_FO
	nvmet_setup 2>"$of.err" || { echo "nvmet setup failed: $(tail -n 1 "$of.err")"; return 1; }
	if two_paths "$peer" && [ "$(cat /sys/module/nvme_core/parameters/multipath 2>/dev/null)" != Y ]; then
		echo "nvme_core has no native multipath (multipath=N)"
		return 1
	fi
	[ -z "$mode" ] && mem_snap "$of.mem0"
	nvme_connect "$of" "$nqn" 0 "$mode" 2>"$of.err" || {
		echo "nvme connect failed: $(tail -n 1 "$of.err")"
		return 1
	}
	if two_paths "$peer"; then
		if ! nvme_connect "$of" "$nqn" 1 "$mode" 2>"$of.err" ||
		   ! rift_wait_until 20 eval "[ \$(nvme_live $nqn) -ge 2 ]"; then
			echo "nvme connect over link 1 failed: $(tail -n 1 "$of.err") ($(nvme_live "$nqn") live controllers)"
			return 1
		fi
	fi
	if [ -z "$mode" ]; then
		sleep "$MEM_SETTLE"
		mem_snap "$of.mem1"
	fi
	[ "$mode" != poll ] || poll_check "$of"
}

nvme_down()
{
	local nqn=$NQN
	[ "$2" = fo ] && nqn=$NQN_FO
	nvme disconnect -n "$nqn" >/dev/null
	rift_wait_until 20 test ! -e "$1"
}

# RNBD over RTRS (the out-of-tree comparison build): rnbd over link 0,
# rnbd-2p over both links (one session, two paths).
RTRS_KO=(drivers/infiniband/ulp/rtrs/rtrs-core drivers/infiniband/ulp/rtrs/rtrs-server
	 drivers/infiniband/ulp/rtrs/rtrs-client drivers/block/rnbd/rnbd-server
	 drivers/block/rnbd/rnbd-client)
rnbd_modules()
{
	local m ko d
	for m in "${RTRS_KO[@]}"; do
		ko=$PEERS_DIR/$m.ko
		[ -f "$ko" ] || { echo "$ko not built"; return 1; }
		[ -d "/sys/module/$(rift_modname "$m")" ] && continue
		for d in $(modinfo -F depends "$ko" | tr , ' '); do
			[ -d "/sys/module/$d" ] || modprobe "$d" 2>/dev/null || true
		done
		if [ "$m" = drivers/block/rnbd/rnbd-server ]; then
			insmod "$ko" dev_search_path=/dev || return 1
		else
			insmod "$ko" || return 1
		fi
	done
}

# bench_cleanup: unmap what is left, unload the peers' modules.
bench_cleanup()
{
	local d i
	for d in /sys/block/rnbd*; do
		[ -e "$d/rnbd/unmap_device" ] && echo force > "$d/rnbd/unmap_device"
	done
	riftblk_unmap_all
	nvmet_teardown
	for ((i = ${#RTRS_KO[@]} - 1; i >= 0; i--)); do
		rmmod "$(rift_modname "${RTRS_KO[i]}")" 2>/dev/null
	done
	rift_unload_all
}

rnbd_up()
{
	local peer=$1 of=$3 mode=$4 line dev=${NB#/dev/}
	[ "$mode" = fo ] && dev=${NBFO#/dev/}
	rnbd_modules >"$of.err" 2>&1 || { echo "rtrs/rnbd do not load: $(tail -n 1 "$of.err")"; return 1; }
	line="sessname=$1-r$2${mode:+-$mode} path=ip:198.18.0.2@ip:198.18.0.1"
	two_paths "$peer" && line+=" path=ip:198.18.1.2@ip:198.18.1.1"
	line+=" device_path=$dev"
	[ "$mode" = poll ] && line+=" nr_poll_queues=$POLLQ"
	[ -z "$mode" ] && mem_snap "$of.mem0"
	bench_map "$of" /sys/class/rnbd-client/ctl/map_device "$line" '^rnbd[0-9]+$' 2>"$of.err" || {
		echo "rnbd map failed: $(tail -n 1 "$of.err"; dmesg | grep -i rnbd | tail -n 1)"
		return 1
	}
	if [ -z "$mode" ]; then
		sleep "$MEM_SETTLE"
		mem_snap "$of.mem1"
	fi
	[ "$mode" != poll ] || poll_check "$of"
}

rnbd_down()
{
	echo normal > "/sys/block/$(basename "$1")/rnbd/unmap_device"
	rift_wait_until 20 test ! -e "$1"
}

# record_mem PEER REP OUTFILE: the memory one idle session took (see
# mem_snap), from the samples PEER_up left.
record_mem()
{
	local u0 s0 u1 s1 c1 f
	if [ ! -s "$3.mem1" ] || ! read -r u0 s0 _ < "$3.mem0"; then
		record "$1" "$2" mem-idle "no session: fio runs on the null_blk device itself"
		return
	fi
	read -r u1 s1 c1 < "$3.mem1"
	f=("used_kib=$((u1 - u0))")
	# rift-server stays loaded while the other peers run: its count is
	# Rift's only.
	[[ $1 == rift-* ]] && [ "$s0" != - ] && [ "$s1" != - ] && f+=("srv_pinned_kib=$((s1 - s0))")
	[ "$c1" != - ] && f+=("clt_pinned_kib=$c1")
	record "$1" "$2" mem-idle ok "${f[@]}"
}

# --- the failover gap ----------------------------------------------------
# link_pkts: "PKTS0 PKTS1", packets the client ends of link 0 and 1 sent.
link_pkts()
{
	local i f n out=()
	for i in 0 1; do
		f=/sys/class/infiniband/rxe_riftb$i/ports/1/hw_counters/sent_pkts
		n=$(cat "$f" 2>/dev/null)
		out+=("${n:-0}")
	done
	echo "${out[*]}"
}

# dev_ios DEV: reads and writes DEV completed so far.
dev_ios()
{
	awk '{ print $1 + $5 }' "/sys/block/$(basename "$1")/stat" 2>/dev/null
}

# fo_started DEV IOS PKTS PID: fio (PID) has ended, or IO has started on
# DEV: its IO count moved from IOS, or the client ends of the links sent
# 200 packets more than PKTS (the head of an nvme multipath device counts
# no IO in its stat on 6.1; heartbeats alone send a few a second).
fo_started()
{
	local p
	kill -0 "$4" 2>/dev/null || return 0
	[ "$(dev_ios "$1")" != "$2" ] && return 0
	read -r -a p <<<"$(link_pkts)"
	[ $((p[0] + p[1] - $3)) -ge 200 ]
}

# fo_gaps CLATLOG T_DOWN T_UP: from fio's per-IO completion log (unix ms):
# "GAP BASE RESUMED_AFTER_UP IOS IOS_DOWN": the largest gap between two
# consecutive completions of which the second came at or after T_DOWN, the
# largest before T_DOWN, 1 if that largest gap ended only once the link was
# back (T_UP), all completions, those while the link was down.  Nothing
# if no IO completed after T_DOWN.
fo_gaps()
{
	python3 - "$@" <<'PY'
import sys
ts = sorted(int(l.split(",")[0]) for l in open(sys.argv[1]) if l.strip())
down, up = int(sys.argv[2]), int(sys.argv[3])
gap = base = 0
end = None
for a, b in zip(ts, ts[1:]):
    if b < down:
        base = max(base, b - a)
    elif end is None or b - a > gap:
        gap, end = b - a, b
if end is None:
    sys.exit(1)
print(gap, base, int(end >= up), len(ts), sum(1 for t in ts if down <= t < up))
PY
}

# fo_job PEER REP DEV: the failover gap.  fio writes and verifies (crc32c)
# random 4..64 KiB blocks at QD16 on DEV, as the failover selftests do,
# and logs every completion's time (--write_lat_log, per IO).  FO_WARM s
# after IO started, the link that carried more packets in the last second
# goes down (ip link set down on its client end, as the selftests do) for
# FO_DOWN s and comes back (rift_link_up: rxe device re-created).  The
# peers' own failure detection is left at their defaults.
fo_job()
{
	local peer=$1 rep=$2 dev=$3 d f rt pid rc=0 l p0 p1 t_down t_up n0 r
	local gap base after ios iosd errs t0 t1
	d=/tmp/fo-$peer-r$rep
	f=$OUT/fio/$peer-failover-r$rep.json
	rt=$((FO_WARM + FO_DOWN + FO_AFTER + 20))
	rm -rf "$d"
	mkdir -p "$d"
	n0=$(dev_ios "$dev")
	read -r -a p0 <<<"$(link_pkts)"
	t0=${EPOCHREALTIME/,/.}
	(cd "$d" && exec timeout -k 5 $((rt + 120)) fio --name=failover --filename="$dev" \
		--direct=1 --ioengine=libaio --rw=randwrite --bsrange=4k-64k --iodepth=16 \
		--size=64M --time_based --runtime="$rt" --verify=crc32c --verify_backlog=32 \
		--verify_fatal=1 --do_verify=1 --write_lat_log="$d/fo" --log_avg_msec=0 \
		--log_unix_epoch=1 --output-format=json --output="$f" > "$f.log" 2>&1) &
	pid=$!
	rift_wait_until 30 fo_started "$dev" "$n0" $((p0[0] + p0[1])) "$pid" ||
		log "  $peer failover: no IO seen on $dev after 30 s; going on"
	sleep $((FO_WARM - 1))
	read -r -a p0 <<<"$(link_pkts)"
	sleep 1
	read -r -a p1 <<<"$(link_pkts)"
	l=0
	[ $((p1[1] - p0[1])) -gt $((p1[0] - p0[0])) ] && l=1
	t_down=$(date +%s%3N)
	ip link set dev "riftb$l" down
	log "  $peer failover: link $l down (packets in the second before: $((p1[0] - p0[0])) / $((p1[1] - p0[1])))"
	sleep "$FO_DOWN"
	t_up=$(date +%s%3N)
	step $STEP_TMO rift_link_up "riftb$l" || log "  link $l: rxe device not re-created"
	rift_wait_until 20 rift_rdma_link_active "rxe_riftb$l" || log "  rxe_riftb$l not active again"
	rift_wait_pid $((rt + 150)) "$pid" || rc=$?
	t1=${EPOCHREALTIME/,/.}
	if [ $rc -eq 124 ]; then
		kill -9 "$pid" 2>/dev/null
		record "$peer" "$rep" failover "fio hung (IO stuck for > $((rt + 150))s)"
		return 124
	fi
	errs=$(python3 -c 'import json, sys; s = open(sys.argv[1]).read(); print(json.loads(s[s.index("{"):])["jobs"][0]["error"])' "$f" 2>/dev/null)
	if r=$(fo_gaps "$d/fo_clat.1.log" "$t_down" "$t_up" 2>/dev/null); then
		read -r gap base after ios iosd <<<"$r"
		record "$peer" "$rep" failover ok "gap_ms=$gap" "base_gap_ms=$base" \
			"resumed_after_up=$after" "ios=$ios" "ios_down=$iosd" \
			"down_ms=$((t_up - t_down))" "link=$l" "fio_rc=$rc" "fio_errors=${errs:-null}" \
			"t0=$t0" "t1=$t1"
		log "  $peer failover: largest gap $gap ms (before: $base ms), fio rc $rc"
	else
		record "$peer" "$rep" failover "no IO completed after the link went down (fio rc $rc: $(tail -n 1 "$f.log"))"
	fi
	cp "$d/fo_clat.1.log" "$OUT/fio/$peer-failover-r$rep.clat.log" 2>/dev/null
	rm -rf "$d"
	return 0
}

# --- one peer ------------------------------------------------------------
# bench_phase PEER REP MODE JOB...: set PEER up in MODE (see above), run
# the JOBs (lines of JOBS or POLL_JOBS; "failover" in mode fo; "mem-idle"
# is recorded from the setup), tear down.  Returns 1 once the peer is
# given up on.
bench_phase()
{
	local peer=$1 rep=$2 mode=$3 kind of dev why rc key
	shift 3
	case $peer in
	rift-*) kind=rift ;;
	nvme*) kind=nvme ;;
	rnbd*) kind=rnbd ;;
	*) kind=$peer ;;
	esac
	key=$peer${mode:+:$mode}
	why=${GIVEN_UP[$peer]:-${GIVEN_UP[$key]:-}}
	if [ -n "$why" ]; then
		na_jobs "$peer" "$rep" "$why" "$@"
		return 0
	fi
	of=$OUT/dev-$peer${mode:+-$mode}
	rm -f "$of" "$of".*
	rc=0
	step $STEP_TMO "${kind}_up" "$peer" "$rep" "$of" "$mode" >"$of.why" || rc=$?
	why=$(tail -n 1 "$of.why" 2>/dev/null)
	if [ $rc -ne 0 ] || [ ! -s "$of" ]; then
		[ $rc -eq 124 ] && why="setup hung (> ${STEP_TMO}s)"
		why=${why:-setup failed}
		# Setup that fails once fails every time; do not pay it again.
		GIVEN_UP[$key]=$why
		na_jobs "$peer" "$rep" "$why" "$@"
		# A device mapped before a check failed goes again.
		[ $rc -eq 124 ] || [ ! -s "$of" ] ||
			step $STEP_TMO "${kind}_down" "$(cat "$of")" "$mode" ||
			GIVEN_UP[$peer]="teardown failed or hung in an earlier repetition"
		return 0
	fi
	dev=$(cat "$of")
	log "  $peer${mode:+ ($mode)}: $dev"
	[ -n "$mode" ] || record_mem "$peer" "$rep" "$of"
	rc=0
	if [ "$mode" = fo ]; then
		fo_job "$peer" "$rep" "$dev" || rc=$?
	else
		run_jobs "$peer" "$rep" "$dev" "$@" || rc=$?
	fi
	if [ $rc -eq 124 ]; then
		GIVEN_UP[$peer]="IO hung in an earlier repetition"
		log "  $peer: IO hung on $dev; not tearing it down"
		return 1
	fi
	step $STEP_TMO "${kind}_down" "$dev" "$mode" || {
		GIVEN_UP[$peer]="teardown failed or hung in an earlier repetition"
		log "  $peer: teardown of $dev failed"
		return 1
	}
}

# bench_peer PEER REP: the usual jobs, the polled one, the failover one.
bench_peer()
{
	local peer=$1 rep=$2
	bench_phase "$peer" "$rep" "" "${JOBS[@]}" mem-idle
	if [ "$peer" = local ]; then
		na_jobs "$peer" "$rep" "null_blk, the backend every peer shares, is loaded without poll queues" \
			"${POLL_JOBS[@]}"
	else
		bench_phase "$peer" "$rep" poll "${POLL_JOBS[@]}"
	fi
	if ! two_paths "$peer"; then
		na_jobs "$peer" "$rep" "one path: nothing to fail over to" failover
	elif [ ! -b "$NBFO" ]; then
		na_jobs "$peer" "$rep" "no memory-backed null_blk to verify on" failover
	else
		bench_phase "$peer" "$rep" fo failover
	fi
}

# --- raw verbs limit: perftest between the two ends of link 0 -----------
# perf_pair NAME TOOL ARGS...: server on rxe_rifta0, client on rxe_riftb0,
# GID index 1 (rxe's IPv4 GID) so the QPs go over the veth link like the
# peers' do (with rdma_cm both ends would bind 198.18.0.1 and rxe would
# loop back locally); the client's output goes to NAME.
perf_pair()
{
	local f=$1 tool=$2 spid rc=0
	shift 2
	timeout -k 5 $((RUNTIME + 120)) "$tool" -d rxe_rifta0 -x 1 -F "$@" >"$f.srv" 2>&1 &
	spid=$!
	sleep 2
	timeout -k 5 $((RUNTIME + 120)) "$tool" -d rxe_riftb0 -x 1 -F "$@" 198.18.0.1 >"$f" 2>&1 || rc=$?
	rift_wait_pid 30 "$spid" >/dev/null 2>&1 || kill -9 "$spid" 2>/dev/null
	return $rc
}

# perftest's result line: the first line of numbers after the header.
perf_line()
{
	awk '/#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ { print; exit }' "$1"
}

# is_num WORD...: every WORD is a plain decimal number (perftest prints
# "inf" and "-nan" when its cycle counter misbehaves, as under TCG).
is_num()
{
	local w
	for w in "$@"; do
		[[ $w =~ ^[0-9]+(\.[0-9]+)?$ ]] || return 1
	done
}

bench_raw()
{
	local rep=$1 f l it v
	it=$((RUNTIME * 200))
	f=$OUT/raw/lat-4k-r$rep.txt
	if perf_pair "$f" ib_write_lat -s 4096 -n "$it" && l=$(perf_line "$f") && [ -n "$l" ]; then
		# #bytes #iter t_min t_max t_typical t_avg t_stdev p99 p99.9 (us,
		# half a round trip, as perftest reports write latency)
		read -r -a v <<<"$l"
		if is_num "${v[5]}" "${v[7]}"; then
			record raw "$rep" lat-4k ok "lat_avg_us=${v[5]}" "lat_p99_us=${v[7]}"
		else
			record raw "$rep" lat-4k "ib_write_lat printed no figure: mean ${v[5]}, p99 ${v[7]}"
		fi
	else
		record raw "$rep" lat-4k "ib_write_lat failed: $(tail -n 1 "$f")"
	fi
	# perftest's duration mode measures between 2 s of warm-up and
	# cool-down; its send queue depth is the fio job's.
	for bs in 4096:32 131072:8; do
		f=$OUT/raw/bw-${bs%:*}-r$rep.txt
		if perf_pair "$f" ib_write_bw -s "${bs%:*}" -t "${bs#*:}" -D $((RUNTIME < 6 ? 6 : RUNTIME)) &&
		   l=$(perf_line "$f") && [ -n "$l" ]; then
			# #bytes #iter BW_peak BW_avg[MB/s] MsgRate[Mpps]
			read -r -a v <<<"$l"
			is_num "${v[1]}" "${v[3]}" "${v[4]}" && [ "${v[1]%.*}" -gt 0 ] || {
				record raw "$rep" "bw-${bs%:*}" "ib_write_bw: no message completed in the measured window"
				continue
			}
			record raw "$rep" "bw-${bs%:*}" ok "bw_MBps=${v[3]}" "mpps=${v[4]}"
		else
			record raw "$rep" "bw-${bs%:*}" "ib_write_bw failed: $(tail -n 1 "$f")"
		fi
	done
	log "  raw: done"
}

# nullbfo_add: $NBFO through configfs, as $NB but memory-backed.
nullbfo_add()
{
	local d=/sys/kernel/config/nullb/${NBFO#/dev/}
	[ -d "${d%/*}" ] && mkdir "$d" || return 1
	echo 128 > "$d/size" && echo 1 > "$d/memory_backed" && echo 512 > "$d/blocksize" &&
		echo 0 > "$d/irqmode" && echo 2 > "$d/queue_mode" &&
		echo 2 > "$d/submit_queues" && echo 128 > "$d/hw_queue_depth" &&
		echo 1 > "$d/power" && rift_wait_until 10 test -b "$NBFO"
}

nullbfo_del()
{
	local d=/sys/kernel/config/nullb/${NBFO#/dev/}
	[ -d "$d" ] || return 0
	echo 0 > "$d/power"
	rmdir "$d"
}

# --- memory credits: one busy session beside 63 idle ones ---------------
# shellcheck source=tools/bench/bench-idle63.sh
. "$RIFT_TREE/tools/bench/bench-idle63.sh"

# --- main ----------------------------------------------------------------
log "kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print $2 / 1024 " MiB" }' /proc/meminfo)"
log "runtime ${RUNTIME}s per job, $REPS repetitions, peers: ${PEERS[*]}"
rift_rxe_pairs 2 || { log "Soft-RoCE setup failed"; exit 1; }
for l in rxe_rifta0 rxe_riftb0 rxe_rifta1 rxe_riftb1; do
	rift_wait_until 10 rift_rdma_link_active "$l" || { log "$l not active"; exit 1; }
done
log "rxe: $(rdma link show | awk '{ print $2, $4 }' | tr '\n' ' ')"
log "rxe MTU: $(ibv_devinfo -d rxe_riftb0 2>/dev/null | awk '/active_mtu/ { print $2, $3 }')"
modprobe null_blk "${NULLB_PARAMS[@]}" || { log "null_blk does not load"; exit 1; }
defer rmmod null_blk
rift_wait_until 10 test -b $NB || { log "no $NB"; exit 1; }
log "backend: null_blk ${NULLB_PARAMS[*]} (memory_backed=0)"
if nullbfo_add; then
	log "failover backend: $NBFO, the same but memory-backed (fio verifies)"
else
	log "no memory-backed $NBFO: the failover job will be n/a"
fi
defer nullbfo_del
counters_setup || counters_teardown
defer counters_teardown
# What the idle VM (the bench's shell polling its steps) keeps busy, for
# reading CPU time per IO.
read -r -a c0 <<<"$(counters)"
t0=${EPOCHREALTIME/,/.}
step 20 sleep 5
t1=${EPOCHREALTIME/,/.}
read -r -a c1 <<<"$(counters)"
idle=$(awk -v b=$((c1[4] - c0[4])) -v t=$((c1[5] - c0[5])) 'BEGIN { printf "%.1f", t ? 100 * b / t : 0 }')
idle_cs=$(awk -v c=$((c1[6] - c0[6])) -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b > a ? c / (b - a) : 0) }')
log "idle VM: ${idle}% of its CPU time busy, $idle_cs context switches a second"
echo "{\"runtime\":$RUNTIME,\"reps\":$REPS,\"kernel\":$(json_str "$(uname -r)"),\"cpus\":$(nproc),\"nullb\":$(json_str "${NULLB_PARAMS[*]}"),\"rxe_mtu\":$(json_str "$(ibv_devinfo -d rxe_riftb0 2>/dev/null | awk '/active_mtu/ { print $2 }')"),\"clk_tck\":$(getconf CLK_TCK),\"idle_busy_pct\":$idle,\"idle_ctxt_per_s\":$idle_cs,\"poll_queues\":$POLLQ,\"fo_down_s\":$FO_DOWN,\"mem_settle_s\":$MEM_SETTLE,\"idle63\":{\"n\":$I63_N,\"credit_idle_ms\":$I63_IDLE_MS,\"credit_floor\":$I63_FLOOR,\"pool_mb\":$I63_POOL_MB,\"read_bounce_kb\":$I63_BOUNCE_KB,\"warm_s\":$I63_WARM_S,\"warm_par\":$I63_WARM_PAR,\"log_ms\":$I63_LOG_MS}}" > "$OUT/meta.json"
# Bounded: a peer may have left IO stuck that unmapping or unloading
# would wait on for ever (the host also kills the VM; see bench.sh).
defer step 120 bench_cleanup

for ((rep = 1; rep <= REPS; rep++)); do
	log "repetition $rep/$REPS"
	for p in "${PEERS[@]}"; do
		case $p in
		raw) bench_raw "$rep" ;;
		rift-idle63) i63_rep "$rep" ;;
		*) bench_peer "$p" "$rep" ;;
		esac
	done
done
dmesg > "$OUT/dmesg.txt"
log "finished"
# The host powers the VM off if it is still up a while after this.
touch "$OUT/bench.done"
