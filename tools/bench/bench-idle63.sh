# SPDX-License-Identifier: GPL-2.0
#
# The rift-idle63 peer of `make bench` (`make bench-idle63`), sourced by
# tools/bench/bench-guest.sh, whose helpers it uses (log, record, step,
# counters, riftblk_modules, rift_map, rift_down, GIVEN_UP).  Issue 18
# item 4, as Documentation/design/memory-credits.rst describes the
# measurement ("one busy session keeps its IOPS with 63 idle ones"): in
# the bench's one VM, over link 0, with memory credits on.  Numbers only.
#
# Each repetition, self-contained (the server's parameters are set at its
# start and restored at its end, so peers run between repetitions see
# the defaults):
#
# 1. rift-server credit_floor 2 (its default, set all the same so that
#    the scenario does not move with it), pool_mb 48, credit_idle_ms
#    BENCH_IDLE_MS (1000); rift-client read_bounce_kb 4 (see below);
# 2. the busy session: riftblk over one path, /dev/nullb0 rw;
# 3. arms "with" and "alone", in the order with, alone in odd
#    repetitions and alone, with in even ones (ABBA: each arm as often
#    first as second, and one map and one unmap of the idle sessions per
#    repetition).  "with" first maps BENCH_IDLE_N (63) more sessions of
#    one path each (/dev/nullb0 read-only: the export allows one rw
#    mapping), warms every mapped session up (4k randread QD32 for 2 s,
#    eight sessions at a time, so that grants grow and the pool has to
#    reclaim), and 2 x credit_idle_ms after the warm-up reads each idle
#    path's held_bytes, pinned_bytes and granted on the server (record
#    "idle-mem").  "alone" unmaps the idle sessions first, if mapped;
# 4. in each arm the busy session runs 4k randread, then randwrite, QD32
#    for BENCH_RUNTIME s, each started once its grant is back at the
#    floor (waiting 2 x credit_idle_ms + 10 s at most), with fio's IOPS log
#    (100 ms windows) for the ramp, and its server-side grant sampled
#    every 25 ms for the first 5 s; recorded with the busy path's
#    CREDIT_REQ / CREDIT / CREDIT_REL / revoke / reclaim counts over the
#    job, its answers the budget cut short (credit_short), and the
#    credit messages of the idle paths meanwhile.
#
# Why riftblk rather than rift-test sessions: the figures are fio's (a
# time-based QD32 run, IOPS, p99 completion latency, the per-interval
# IOPS log the ramp is read from), the same as the bench's rift-1p row;
# a rift-test run is count-based, at most 64 deep, and reports only a
# run's ops and time.  The cost of 64 riftblk sessions is their client
# bounce slots: queue depth x read_bounce_kb each, 16 MiB at the default
# 1024, 1 GiB for 64; read_bounce_kb 4 keeps them at 512 KiB and still
# bounces every read of 4 KiB, i.e. every read measured here.
#
# riftblk polls each device's size every size_poll_ms (riftblk_client,
# default 2000): a request every 2 s, so an idle riftblk path is quiet
# for at most that long; a BENCH_IDLE_MS at or above it and no idle path
# would ever be revoked (logged, measured all the same).

I63=rift-idle63
I63_N=${BENCH_IDLE_N:-63}
I63_IDLE_MS=${BENCH_IDLE_MS:-1000}
I63_FLOOR=2
I63_POOL_MB=48
I63_BOUNCE_KB=4
# Warm-up: seconds of 4k randread QD32 per session, sessions per fio.
I63_WARM_S=2
I63_WARM_PAR=8
# fio's IOPS log window, and the grant trace's interval and length.
I63_LOG_MS=100
I63_TRACE_NAP=0.025
I63_TRACE_S=5
I63_PATH=198.18.0.2@198.18.0.1
I63_SRVP=/sys/module/rift_server/parameters
I63_CLTP=/sys/module/rift_client/parameters
I63_JOBS=(randread randwrite)
# The records of one repetition, for na_jobs when it cannot run.
I63_RECS=(idle-mem with-randread with-randwrite alone-randread alone-randwrite)

# State of the repetition going on (this shell's, never a step's).
I63_BUSY_DEV=
I63_BUSY_SESS=
I63_IDLE_DEVS=()
I63_IDLE_SESS=()
declare -A I63_SAVED=()

# i63_num FILE: the number in FILE, 0 if it cannot be read (forks
# nothing itself; a $(...) around it does).
i63_num()
{
	local v=
	{ read -r v < "$1"; } 2>/dev/null
	[[ $v =~ ^[0-9]+$ ]] || v=0
	echo "$v"
}

# i63_srv_path SESS: the server's directory of SESS's one path.
i63_srv_path()
{
	local p=("$RIFT_SRV_SYSFS/$1"/paths/*/)
	echo "${p[0]%/}"
}

# i63_params_set: the scenario's server and client parameters, the
# previous values kept for i63_params_restore.
i63_params_set()
{
	local kv f
	for kv in "$I63_SRVP/credit_floor=$I63_FLOOR" "$I63_SRVP/pool_mb=$I63_POOL_MB" \
		  "$I63_SRVP/credit_idle_ms=$I63_IDLE_MS" "$I63_CLTP/read_bounce_kb=$I63_BOUNCE_KB"; do
		f=${kv%=*}
		[ -w "$f" ] || { echo "no ${f##*/} parameter (${f%/parameters/*})"; return 1; }
		[ -n "${I63_SAVED[$f]:-}" ] || I63_SAVED[$f]=$(cat "$f")
		echo "${kv##*=}" > "$f" || { echo "cannot set ${f##*/} to ${kv##*=}"; return 1; }
	done
}

i63_params_restore()
{
	local f
	for f in "${!I63_SAVED[@]}"; do
		echo "${I63_SAVED[$f]}" > "$f" 2>/dev/null
	done
	I63_SAVED=()
}

# i63_map SESS MODE OUTFILE: a riftblk session of one path mapping
# /dev/nullb0 in MODE (rw, ro); the device into OUTFILE.  Run by step.
i63_map()
{
	rift_map "$1" "$3" "$NB" "access_mode=$2" "$I63_PATH" 2>"$3.err" || {
		echo "riftblk map of $1 failed: $(tail -n 1 "$3.err"; dmesg | grep -i rift | tail -n 1)"
		return 1
	}
	rift_wait_until 10 test -d "$RIFT_SRV_SYSFS/$1/paths" || {
		echo "no server session $1"
		return 1
	}
}

# i63_mem: "used slab vmalloc srv_pinned", KiB: the VM's memory neither
# free nor page cache (as mem_snap), Slab, VmallocUsed, rift-server's
# pinned_bytes.
i63_mem()
{
	local sp
	sp=$(($(i63_num /sys/kernel/rift_server/pinned_bytes) / 1024))
	awk -v sp="$sp" '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 } /^Buffers:/ { b = $2 }
		/^Cached:/ { c = $2 } /^Slab:/ { s = $2 } /^VmallocUsed:/ { v = $2 }
		END { print t - f - b - c, s, v, sp }' /proc/meminfo
}

# i63_warm TAG DEV...: 4k randread QD32 for I63_WARM_S s on every DEV at
# once (one fio, a job per device); fio's JSON in fio/rift-idle63-warm-TAG.json.
i63_warm()
{
	local d k=0 f=$OUT/fio/$I63-warm-$1
	shift
	local args=(--ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=32
		    --runtime="$I63_WARM_S" --time_based --randrepeat=0 --norandommap
		    --output-format=json --output="$f.json")
	for d in "$@"; do
		k=$((k + 1))
		args+=(--name="w$k" --filename="$d")
	done
	timeout -k 5 $((I63_WARM_S + 90)) fio "${args[@]}" > "$f.log" 2>&1
}

# i63_idle_up REP: map I63_N idle sessions, warm every mapped session up,
# let the idle ones idle 2 x credit_idle_ms and record what their paths
# hold ("idle-mem").  Returns 124 if IO hung.
i63_idle_up()
{
	local rep=$1 i s of rc t0 m0 m1 grp=() names=() g n warm=() tab p nap f cp
	local all_devs all_sess map_s warm_s fields pool=0
	log "  $I63: mapping $I63_N idle sessions"
	read -r -a m0 <<<"$(i63_mem)"
	t0=$SECONDS
	I63_IDLE_DEVS=()
	I63_IDLE_SESS=()
	for ((i = 1; i <= I63_N; i++)); do
		s=i63-r$rep-$i
		of=$OUT/idle63/dev-$s
		rc=0
		step "$STEP_TMO" i63_map "$s" ro "$of" > "$of.why" || rc=$?
		if [ $rc -ne 0 ] || [ ! -s "$of" ]; then
			[ $rc -eq 124 ] && echo "map hung (> ${STEP_TMO}s)" >> "$of.why"
			log "  $I63: $s not mapped: $(tail -n 1 "$of.why")"
			# A hung map may hold what the next one needs.
			[ $rc -eq 124 ] && break
			continue
		fi
		I63_IDLE_DEVS+=("$(cat "$of")")
		I63_IDLE_SESS+=("$s")
	done
	map_s=$((SECONDS - t0))
	log "  $I63: ${#I63_IDLE_DEVS[@]} idle sessions mapped in ${map_s}s; warm-up"
	# Warm-up, I63_WARM_PAR sessions at a time, the busy one among them.
	all_devs=("$I63_BUSY_DEV" "${I63_IDLE_DEVS[@]}")
	all_sess=("$I63_BUSY_SESS" "${I63_IDLE_SESS[@]}")
	t0=$SECONDS
	for ((i = 0; i < ${#all_devs[@]}; i += I63_WARM_PAR)); do
		grp=("${all_devs[@]:i:I63_WARM_PAR}")
		names=("${all_sess[@]:i:I63_WARM_PAR}")
		rc=0
		step $((I63_WARM_S + 120)) i63_warm "r$rep-g$((i / I63_WARM_PAR))" "${grp[@]}" || rc=$?
		[ $rc -eq 124 ] && return 124
		[ $rc -eq 0 ] || log "  $I63: warm-up of ${names[*]}: fio rc $rc"
		# The grant each reached, read before any revoke can come, and
		# what the pool holds then.
		g=$(($(i63_num /sys/kernel/rift_server/pinned_bytes) / 1024))
		[ "$g" -le "$pool" ] || pool=$g
		for s in "${names[@]}"; do
			g=$(i63_num "$(i63_srv_path "$s")/granted")
			warm+=("$g")
		done
	done
	warm_s=$((SECONDS - t0))
	nap=$((2 * I63_IDLE_MS))
	rift_nap "$((nap / 1000)).$(printf '%03d' $((nap % 1000)))"
	# One line per idle path: held pinned granted warm-granted
	# credit_reqs credits credit_rels revokes reclaimed client-bounce
	# credit_short (last: the columns before it kept their numbers).
	tab=$OUT/idle63/idle-r$rep.txt
	: > "$tab"
	for ((i = 0; i < ${#I63_IDLE_SESS[@]}; i++)); do
		s=${I63_IDLE_SESS[i]}
		p=$(i63_srv_path "$s")
		n=()
		for f in held_bytes pinned_bytes granted; do
			n+=("$(i63_num "$p/$f")")
		done
		n+=("${warm[i + 1]:-0}")
		for f in credit_reqs credits credit_rels revokes reclaimed; do
			n+=("$(i63_num "$p/stats/$f")")
		done
		cp=("$RIFT_CLT_SYSFS/$s"/paths/*/)
		n+=("$(i63_num "${cp[0]}bounce_bytes")")
		n+=("$(i63_num "$p/stats/credit_short")")
		echo "$s ${n[*]}" >> "$tab"
	done
	read -r -a m1 <<<"$(i63_mem)"
	if [ ! -s "$tab" ]; then
		record "$I63" "$rep" idle-mem "no idle session mapped"
		return 0
	fi
	# Sums, maxima and means over the idle paths; what the pool holds.
	read -r -a fields <<<"$(awk -v lim=1048576 -v floor="$I63_FLOOR" '
		{ n++; h += $2; if ($2 > hm) hm = $2; if ($2 > lim) over++
		  p += $3; if ($3 > pm) pm = $3; g += $4; if ($4 > gm) gm = $4
		  if ($4 > floor) above++
		  w += $5; if ($5 > wm) wm = $5; if ($5 > floor) grew++
		  cr += $6; c += $7; rl += $8; rv += $9; rc += $10
		  if ($11 > bm) bm = $11; sh += $12 }
		END { printf "n_idle=%d held_max_b=%d held_mean_b=%.0f n_over_1mib=%d " \
			"pinned_max_b=%d pinned_mean_b=%.0f granted_max=%d granted_mean=%.2f " \
			"n_above_floor=%d warm_granted_max=%d warm_granted_mean=%.2f n_grew=%d " \
			"credit_reqs=%d credits=%d credit_rels=%d revokes=%d reclaimed=%d " \
			"clt_bounce_max_b=%d credit_short=%d",
			n, hm, h / n, over, pm, p / n, gm, g / n, above, wm, w / n, grew,
			cr, c, rl, rv, rc, bm, sh }' "$tab")"
	i=${#I63_IDLE_SESS[@]}
	fields+=("busy_warm_granted=${warm[0]:-0}" "srv_pinned_kib=${m1[3]}"
		 "used_kib_per_sess=$(((m1[0] - m0[0]) / i))"
		 "slab_kib_per_sess=$(((m1[1] - m0[1]) / i))"
		 "vmalloc_kib_per_sess=$(((m1[2] - m0[2]) / i))"
		 "warm_pool_max_kib=$pool" "map_s=$map_s" "warm_s=$warm_s" "settle_ms=$nap")
	record "$I63" "$rep" idle-mem ok "${fields[@]}"
	log "  $I63: ${fields[*]}"
}

# i63_no_srv_sess GLOB: no server session's name matches GLOB.
i63_no_srv_sess()
{
	! compgen -G "$RIFT_SRV_SYSFS/$1" > /dev/null
}

# i63_idle_down: unmap the idle sessions; returns 1 if one did not go.
i63_idle_down()
{
	local d rc=0
	for d in "${I63_IDLE_DEVS[@]}"; do
		step "$STEP_TMO" rift_down "$d" || { log "  $I63: unmapping $d failed"; rc=1; }
	done
	I63_IDLE_DEVS=()
	I63_IDLE_SESS=()
	[ $rc -eq 0 ] || return 1
	# Their server sessions gone too, so that "alone" is alone.
	rift_wait_until 30 i63_no_srv_sess 'i63-r*-[0-9]*' || {
		log "  $I63: idle server sessions still there 30 s after their unmap"
		return 1
	}
}

# i63_at_floor: the busy path is down to its floor on the server.
i63_at_floor()
{
	[ "$(i63_num "$(i63_srv_path "$I63_BUSY_SESS")/granted")" -le "$I63_FLOOR" ]
}

# i63_idle_msgs: credit messages of the idle paths so far, summed.
i63_idle_msgs()
{
	local s p f t=0
	for s in "${I63_IDLE_SESS[@]}"; do
		p=$(i63_srv_path "$s")
		for f in credit_reqs credits credit_rels; do
			t=$((t + $(i63_num "$p/stats/$f")))
		done
	done
	echo $t
}

# i63_trace FILE STOPFILE: "EPOCH_S GRANTED" of the busy path every
# I63_TRACE_NAP s, for I63_TRACE_S s or until STOPFILE exists.  Forks
# nothing while it samples.
i63_trace()
{
	local f g end=$((SECONDS + I63_TRACE_S))
	f=$(i63_srv_path "$I63_BUSY_SESS")/granted
	while [ $SECONDS -lt $end ] && [ ! -e "$2" ]; do
		g=
		read -r g < "$f"
		echo "$EPOCHREALTIME ${g:-0}"
		rift_nap "$I63_TRACE_NAP"
	done > "$1" 2>/dev/null
}

# i63_fio OUTFILE LOGPREFIX RW: the busy job, as fio_job plus the IOPS log.
i63_fio()
{
	timeout -k 5 $((RUNTIME + 90)) fio --name="${1##*/}" --filename="$I63_BUSY_DEV" \
		--ioengine=libaio --direct=1 --rw="$3" --bs=4k --iodepth=32 --numjobs=1 \
		--runtime="$RUNTIME" --time_based --randrepeat=0 --norandommap --lat_percentiles=1 \
		--write_iops_log="$2" --log_avg_msec="$I63_LOG_MS" --log_unix_epoch=1 \
		--output-format=json --output="$1" > "$1.log" 2>&1
}

# i63_busy ARM REP RW: the busy session's job RW in arm ARM (with,
# alone).  Returns 124 if fio hung.
i63_busy()
{
	local arm=$1 rep=$2 rw=$3 name=$1-$3 f p tmp s0 s1 c0 cf i0 i1 g0 rc=0 k st=() fields
	f=$OUT/fio/$I63-$name-r$rep.json
	p=$(i63_srv_path "$I63_BUSY_SESS")
	rift_wait_until $((2 * I63_IDLE_MS / 1000 + 10)) i63_at_floor ||
		log "  $I63 $name: the busy path is still above its floor; starting anyway"
	g0=$(i63_num "$p/granted")
	tmp=/tmp/$I63-$name-r$rep
	rm -rf "$tmp"
	mkdir -p "$tmp"
	st=(credit_reqs credits credit_rels revokes reclaimed credit_short)
	s0=()
	for k in "${st[@]}"; do
		s0+=("$(i63_num "$p/stats/$k")")
	done
	i0=$(i63_idle_msgs)
	read -r -a c0 <<<"$(counters)"
	i63_trace "$tmp/grant.log" "$tmp/stop" &
	local tpid=$!
	step $((RUNTIME + 120)) i63_fio "$f" "$tmp/busy" "$rw" || rc=$?
	touch "$tmp/stop"
	rift_wait_pid 10 "$tpid" > /dev/null 2>&1 || kill -9 "$tpid" 2>/dev/null
	read -r -a cf <<<"$(counted_since "${c0[@]}")"
	i1=$(i63_idle_msgs)
	fields=("granted_start=$g0" "granted_end=$(i63_num "$p/granted")"
		"n_idle=${#I63_IDLE_SESS[@]}" "idle_credit_msgs=$((i1 - i0))")
	for ((k = 0; k < ${#st[@]}; k++)); do
		s1=$(i63_num "$p/stats/${st[k]}")
		fields+=("${st[k]}=$((s1 - s0[k]))")
	done
	fields+=("${cf[@]}")
	cp "$tmp/busy_iops.1.log" "$OUT/fio/$I63-$name-r$rep.iops.log" 2>/dev/null
	cp "$tmp/grant.log" "$OUT/fio/$I63-$name-r$rep.grant.log" 2>/dev/null
	rm -rf "$tmp"
	fio_outcome "$I63" "$rep" "$name" "$rc" "$f" "done (${fields[*]:0:10})" || return 124
}

# i63_na REP REASON DONE...: the records of the repetition not among
# DONE are n/a for REASON.
i63_na()
{
	local rep=$1 why=$2 j left=()
	shift 2
	for j in "${I63_RECS[@]}"; do
		[[ " $* " == *" $j "* ]] || left+=("$j")
	done
	[ ${#left[@]} -eq 0 ] || na_jobs "$I63" "$rep" "$why" "${left[@]}"
}

# i63_run REP: one repetition (see the top of this file) once the
# parameters are set.  Returns 1 once the peer is given up on.
i63_run()
{
	local rep=$1 of arms arm j rc why done_=()
	I63_BUSY_SESS=i63-r$rep-busy
	of=$OUT/idle63/dev-$I63_BUSY_SESS
	rc=0
	step "$STEP_TMO" i63_map "$I63_BUSY_SESS" rw "$of" > "$of.why" || rc=$?
	if [ $rc -ne 0 ] || [ ! -s "$of" ]; then
		why=$(tail -n 1 "$of.why" 2>/dev/null)
		[ $rc -eq 124 ] && why="setup hung (> ${STEP_TMO}s)"
		GIVEN_UP["$I63"]=${why:-busy session not mapped}
		i63_na "$rep" "${GIVEN_UP["$I63"]}"
		return 1
	fi
	I63_BUSY_DEV=$(cat "$of")
	log "  $I63: busy session $I63_BUSY_SESS on $I63_BUSY_DEV"
	arms=(with alone)
	[ $((rep % 2)) -eq 0 ] && arms=(alone with)
	for arm in "${arms[@]}"; do
		rc=0
		if [ "$arm" = with ]; then
			i63_idle_up "$rep" || rc=$?
			done_+=(idle-mem)
		else
			i63_idle_down || rc=1
		fi
		if [ $rc -eq 0 ]; then
			for j in "${I63_JOBS[@]}"; do
				i63_busy "$arm" "$rep" "$j" || rc=$?
				done_+=("$arm-$j")
				[ $rc -eq 124 ] && break
			done
		fi
		if [ $rc -eq 124 ]; then
			GIVEN_UP["$I63"]="IO hung in an earlier repetition"
			log "  $I63: IO hung; not tearing down"
			i63_na "$rep" "IO hung earlier in the repetition" "${done_[@]}"
			return 1
		elif [ $rc -ne 0 ]; then
			GIVEN_UP["$I63"]="idle sessions not unmapped in an earlier repetition"
			i63_na "$rep" "the idle sessions could not be unmapped" "${done_[@]}"
			return 1
		fi
	done
	i63_idle_down || {
		GIVEN_UP["$I63"]="idle sessions not unmapped in an earlier repetition"
		return 1
	}
	step "$STEP_TMO" rift_down "$I63_BUSY_DEV" || {
		GIVEN_UP["$I63"]="teardown failed or hung in an earlier repetition"
		log "  $I63: unmapping $I63_BUSY_DEV failed"
		return 1
	}
	I63_BUSY_DEV=
	# The next peer's sessions get the server's defaults: ours gone
	# before the parameters go back.
	rift_wait_until 30 i63_no_srv_sess 'i63-r*' ||
		log "  $I63: server sessions still there 30 s after the unmap"
}

# i63_rep REP: one repetition of the peer, or its records n/a.
i63_rep()
{
	local rep=$1 why
	why=${GIVEN_UP["$I63"]:-}
	if [ -n "$why" ]; then
		i63_na "$rep" "$why"
		return 0
	fi
	mkdir -p "$OUT/idle63"
	why=$OUT/idle63/setup.why
	if ! step "$STEP_TMO" riftblk_modules > "$why" || ! i63_params_set > "$why"; then
		GIVEN_UP["$I63"]=$(tail -n 1 "$why")
		GIVEN_UP["$I63"]=${GIVEN_UP["$I63"]:-riftblk modules do not load}
		i63_params_restore
		i63_na "$rep" "${GIVEN_UP["$I63"]}"
		return 0
	fi
	log "  $I63: credit_floor $I63_FLOOR, pool_mb $I63_POOL_MB, credit_idle_ms $I63_IDLE_MS, read_bounce_kb $I63_BOUNCE_KB, $I63_N idle sessions"
	why=/sys/module/riftblk_client/parameters/size_poll_ms
	[ ! -r "$why" ] || [ "$I63_IDLE_MS" -lt "$(i63_num "$why")" ] ||
		log "  $I63: credit_idle_ms $I63_IDLE_MS is not below riftblk's size_poll_ms ($(i63_num "$why")): its idle paths are never quiet that long"
	i63_run "$rep"
	# Also after a hang: what is mapped keeps what it was admitted with.
	i63_params_restore
}
