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
# Environment: BENCH_RUNTIME (s per fio job, 10), BENCH_REPS (3),
# BENCH_PEERS (default: raw local rift-1p rift-2p rift-ai rift-fai nvme rnbd),
# BENCH_PEERS_DIR (the out-of-tree rtrs/rnbd build), BENCH_PROFILE (fio
# job names to sample with perf, comma-separated; see profile_start).
set -uo pipefail
# shellcheck source=selftests/lib.sh
cd "$RIFT_TREE/selftests" && . ./lib.sh

RUNTIME=${BENCH_RUNTIME:-10}
REPS=${BENCH_REPS:-3}
read -r -a PEERS <<<"${BENCH_PEERS:-raw local rift-1p rift-2p rift-ai rift-fai nvme rnbd}"
PEERS_DIR=${BENCH_PEERS_DIR:-$RIFT_TREE/build/bench/peers}
OUT=$RIFT_OUT
RES=$OUT/results.jsonl
NB=/dev/nullb0
NULLB_PARAMS=(nr_devices=1 gb=1 bs=512 irqmode=0 queue_mode=2 submit_queues=2
	      hw_queue_depth=128)
NQN=nqn.2026-11.org.rift:bench
NVMET=/sys/kernel/config/nvmet
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid)
TR=/sys/kernel/tracing
# Setup and teardown steps that take longer than this count as hung.
STEP_TMO=60
# fio jobs: name rw bs iodepth
JOBS=("qd1-randread randread 4k 1" "qd32-randread randread 4k 32"
      "qd32-randwrite randwrite 4k 32" "qd8-seqread read 128k 8")

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

# counters: "post_send post_recv cqe pkts" now.
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
	echo "${out[*]} $pk"
}

# --- fio -----------------------------------------------------------------
# fio_job OUTFILE DEV RW BS QD: one fio run, JSON to OUTFILE.
fio_job()
{
	timeout -k 5 $((RUNTIME + 90)) fio --name="${1##*/}" --filename="$2" \
		--ioengine=libaio --direct=1 --rw="$3" --bs="$4" --iodepth="$5" \
		--numjobs=1 --runtime="$RUNTIME" --time_based --randrepeat=0 \
		--norandommap --output-format=json --output="$1" > "$1.log" 2>&1
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
	step 300 sh -c "perf report -i '$data' --stdio --no-children \
		--sort sym --percent-limit 0.5 -g none > '$PERF_OUT.txt' 2>> '$PERF_OUT.log'"
	step 300 sh -c "perf report -i '$data' --stdio --no-children \
		--sort dso --percent-limit 0.5 -g none > '$PERF_OUT.dso.txt' 2>> '$PERF_OUT.log'"
	rm -f "$data" /tmp/perf.ctl /tmp/perf.ack
	PERF_PID=
	log "  profile: ${PERF_OUT#"$OUT"/}.txt"
}

# run_jobs PEER REP DEV: every fio job on DEV, one record each.  Returns
# 124 if fio hung (IO stuck in the kernel): the device cannot be torn
# down then, and the peer is given up on.
run_jobs()
{
	local peer=$1 rep=$2 dev=$3 j name rw bs qd f c0 c1 rc fields
	for j in "${JOBS[@]}"; do
		read -r name rw bs qd <<<"$j"
		f=$OUT/fio/$peer-$name-r$rep.json
		read -r -a c0 <<<"$(counters)"
		rc=0
		profile_start "$peer-$name-r$rep" "$name"
		step $((RUNTIME + 120)) fio_job "$f" "$dev" "$rw" "$bs" "$qd" || rc=$?
		profile_stop
		read -r -a c1 <<<"$(counters)"
		fields=("post_send=$((c1[0] - c0[0]))" "post_recv=$((c1[1] - c0[1]))"
			"cqe=$((c1[2] - c0[2]))" "pkts=$((c1[3] - c0[3]))")
		if [ $rc -eq 0 ]; then
			record "$peer" "$rep" "$name" ok "${fields[@]}"
			log "  $peer $name: done"
		elif [ $rc -eq 124 ]; then
			record "$peer" "$rep" "$name" "fio hung (IO stuck for > $((RUNTIME + 120))s)"
			return 124
		else
			record "$peer" "$rep" "$name" "fio failed (rc $rc): $(tail -n 1 "$f.log")"
			log "  $peer $name: fio rc $rc: $(tail -n 2 "$f.log")"
		fi
	done
}

# na_jobs PEER REP REASON: the peer gave no figures this repetition.
na_jobs()
{
	local j
	for j in "${JOBS[@]}"; do
		record "$1" "$2" "${j%% *}" "$3"
	done
	log "  $1: n/a: $3"
}

# --- peers: each has PEER_up (prints the device), PEER_down --------------
# A peer whose setup fails or hangs is recorded n/a; GIVEN_UP keeps a
# hung one from being retried in later repetitions.
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
riftblk_modules()
{
	local m
	for m in rift/rift-core rift/rift-client rift/rift-server \
		 riftblk/riftblk-server riftblk/riftblk-client; do
		rift_loaded "$m" || rift_insmod "$m" || return 1
	done
	# The server refuses hosts it does not know, and maps only what it
	# exports.
	rift_srv_allow_host "$(uname -n)"
	[ -d "$RIFTBLK_SRV_KOBJ/exports/${NB#/dev/}" ] ||
		riftblk_export_add "$NB" rw "$(uname -n)"
}

# rift_map PEER REP OUTFILE PATH...
rift_map()
{
	local peer=$1 rep=$2 of=$3 line p
	shift 3
	line="sessname=$peer-r$rep device_path=$NB"
	for p in "$@"; do
		line+=" path=$p"
	done
	bench_map "$of" "$RIFTBLK_CTL/map_device" "$line" '^riftblk[0-9]+$'
}

AI_PARAM=/sys/module/rift_client/parameters/always_invalidate
# rift-fai: the server imposes always-invalidate (the client does not ask).
FAI_PARAM=/sys/module/rift_server/parameters/force_always_invalidate
rift_up()
{
	local peer=$1 rep=$2 of=$3 paths=(198.18.0.2@198.18.0.1) rc s
	riftblk_modules || { echo "riftblk modules do not load"; return 1; }
	[ "$peer" = rift-2p ] && paths+=(198.18.1.2@198.18.1.1)
	if [ "$peer" = rift-ai ]; then
		[ -w "$AI_PARAM" ] || {
			echo "this rift-client has no always_invalidate (not merged on this branch)"
			return 1
		}
		echo 1 > "$AI_PARAM"
	fi
	if [ "$peer" = rift-fai ]; then
		[ -w "$FAI_PARAM" ] || {
			echo "this rift-server has no force_always_invalidate"
			return 1
		}
		echo 1 > "$FAI_PARAM"
	fi
	rc=0
	rift_map "$peer" "$rep" "$of" "${paths[@]}" 2>"$of.err" || rc=1
	[ "$peer" = rift-ai ] && echo 0 > "$AI_PARAM"
	[ "$peer" = rift-fai ] && echo 0 > "$FAI_PARAM"
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
	if [ "$peer" = rift-fai ]; then
		s=$RIFT_CLT_SYSFS/$peer-r$rep/paths/$RIFTBLK_P0/always_invalidate
		[ "$(cat "$s")" = 1 ] || {
			echo "path of $peer-r$rep does not run the imposed always_invalidate"
			return 1
		}
	fi
	if [ "$peer" = rift-ai ]; then
		s=$RIFT_CLT_SYSFS/$peer-r$rep/always_invalidate
		[ ! -e "$s" ] || [ "$(cat "$s")" = 1 ] || {
			echo "session $peer-r$rep did not take always_invalidate"
			return 1
		}
	fi
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

# nvme-rdma: the nvmet target is configured once; the host connects each
# repetition over the first link.
nvmet_setup()
{
	local s=$NVMET/subsystems/$NQN p=$NVMET/ports/1
	[ -L "$p/subsystems/$NQN" ] && return 0
	modprobe nvmet && modprobe nvmet-rdma && modprobe nvme-rdma || return 1
	[ -d "$s" ] || mkdir "$s" || return 1
	echo 1 > "$s/attr_allow_any_host" || return 1
	[ -d "$s/namespaces/1" ] || mkdir "$s/namespaces/1" || return 1
	echo -n "$NB" > "$s/namespaces/1/device_path" &&
		echo 1 > "$s/namespaces/1/enable" || return 1
	[ -d "$p" ] || mkdir "$p" || return 1
	echo rdma > "$p/addr_trtype" && echo ipv4 > "$p/addr_adrfam" &&
		echo 198.18.0.1 > "$p/addr_traddr" && echo 4420 > "$p/addr_trsvcid" &&
		ln -s "$s" "$p/subsystems/$NQN"
}

nvmet_teardown()
{
	local s=$NVMET/subsystems/$NQN p=$NVMET/ports/1
	nvme disconnect -n "$NQN" >/dev/null 2>&1
	rm -f "$p/subsystems/$NQN"
	[ -d "$p" ] && rmdir "$p"
	[ -d "$s/namespaces/1" ] && echo 0 > "$s/namespaces/1/enable" &&
		rmdir "$s/namespaces/1"
	[ -d "$s" ] && rmdir "$s"
}

nvme_connect()
{
	local before after d
	before=$(blockdevs '^nvme[0-9]+n[0-9]+$')
	nvme connect -t rdma -a 198.18.0.1 -s 4420 -w 198.18.0.2 -n "$NQN" \
		--hostnqn="$HOSTNQN" >/dev/null || return 1
	for _ in $(seq 100); do
		after=$(blockdevs '^nvme[0-9]+n[0-9]+$')
		d=$(comm -13 <(echo "$before") <(echo "$after") | head -n 1)
		[ -n "$d" ] && break
		sleep 0.2
	done
	[ -n "$d" ] || return 1
	rift_wait_until 10 test -b "/dev/$d" && echo "/dev/$d" > "$1"
}

nvme_up()
{
	nvmet_setup 2>"$3.err" || { echo "nvmet setup failed: $(tail -n 1 "$3.err")"; return 1; }
	nvme_connect "$3" 2>"$3.err" || { echo "nvme connect failed: $(tail -n 1 "$3.err")"; return 1; }
}

nvme_down()
{
	nvme disconnect -n "$NQN" >/dev/null
	rift_wait_until 20 test ! -e "$1"
}

# RNBD over RTRS (the out-of-tree comparison build), one path.
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
	rnbd_modules >"$3.err" 2>&1 || { echo "rtrs/rnbd do not load: $(tail -n 1 "$3.err")"; return 1; }
	bench_map "$3" /sys/class/rnbd-client/ctl/map_device \
		"sessname=rnbd-r$2 path=ip:198.18.0.2@ip:198.18.0.1 device_path=${NB#/dev/}" \
		'^rnbd[0-9]+$' 2>"$3.err" || {
		echo "rnbd map failed: $(tail -n 1 "$3.err"; dmesg | grep -i rnbd | tail -n 1)"
		return 1
	}
}

rnbd_down()
{
	echo normal > "/sys/block/$(basename "$1")/rnbd/unmap_device"
	rift_wait_until 20 test ! -e "$1"
}

# bench_peer PEER REP: set up, run the jobs, tear down.
bench_peer()
{
	local peer=$1 rep=$2 kind of dev why rc
	case $peer in
	rift-*) kind=rift ;;
	*) kind=$peer ;;
	esac
	if [ -n "${GIVEN_UP[$peer]:-}" ]; then
		na_jobs "$peer" "$rep" "${GIVEN_UP[$peer]}"
		return
	fi
	of=$OUT/dev-$peer
	rm -f "$of" "$of.why"
	rc=0
	step $STEP_TMO "${kind}_up" "$peer" "$rep" "$of" >"$of.why" || rc=$?
	why=$(tail -n 1 "$of.why" 2>/dev/null)
	if [ $rc -ne 0 ] || [ ! -s "$of" ]; then
		[ $rc -eq 124 ] && why="setup hung (> ${STEP_TMO}s)"
		why=${why:-setup failed}
		# Setup that fails once fails every time; do not pay it again.
		GIVEN_UP[$peer]=$why
		na_jobs "$peer" "$rep" "$why"
		return
	fi
	dev=$(cat "$of")
	log "  $peer: $dev"
	if ! run_jobs "$peer" "$rep" "$dev"; then
		GIVEN_UP[$peer]="IO hung in an earlier repetition"
		log "  $peer: IO hung on $dev; not tearing it down"
		return
	fi
	step $STEP_TMO "${kind}_down" "$dev" || {
		GIVEN_UP[$peer]="teardown failed or hung in an earlier repetition"
		log "  $peer: teardown of $dev failed"
	}
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
counters_setup || counters_teardown
defer counters_teardown
echo "{\"runtime\":$RUNTIME,\"reps\":$REPS,\"kernel\":$(json_str "$(uname -r)"),\"cpus\":$(nproc),\"nullb\":$(json_str "${NULLB_PARAMS[*]}"),\"rxe_mtu\":$(json_str "$(ibv_devinfo -d rxe_riftb0 2>/dev/null | awk '/active_mtu/ { print $2 }')")}" > "$OUT/meta.json"
# Bounded: a peer may have left IO stuck that unmapping or unloading
# would wait on for ever (the host also kills the VM; see bench.sh).
defer step 120 bench_cleanup

for ((rep = 1; rep <= REPS; rep++)); do
	log "repetition $rep/$REPS"
	for p in "${PEERS[@]}"; do
		if [ "$p" = raw ]; then
			bench_raw "$rep"
		else
			bench_peer "$p" "$rep"
		fi
	done
done
dmesg > "$OUT/dmesg.txt"
log "finished"
# The host powers the VM off if it is still up a while after this.
touch "$OUT/bench.done"
