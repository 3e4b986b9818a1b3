# SPDX-License-Identifier: GPL-2.0
#
# riftblk: modules, exports, null_blk backing devices, mapping, fio
# runs and their reports, the soak's fio, IO stall sampling.
# Sourced by lib.sh; not a test.

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

# riftblk_nullb NAME MB [DISCARD [BLOCKSIZE [IRQMODE [NSEC]]]]:
# riftblk_nullb_noexport, exported rw to every host when riftblk-server
# is loaded.
riftblk_nullb()
{
	riftblk_nullb_noexport "$@" || return 1
	rift_loaded riftblk/riftblk-server || return 0
	riftblk_export "/dev/$1"
}

# riftblk_nullb_noexport NAME MB [DISCARD [BLOCKSIZE [IRQMODE [NSEC]]]]: a
# memory-backed null_blk /dev/NAME of MB MiB, made through configfs so
# that its name and size are ours.  IRQMODE 2 ends every request from an
# hrtimer, in hard interrupt context, as virtio_blk and NVMe do (default
# 1, softirq); with it NSEC (completion_nsec, default 20000) is how long
# after its arrival each request ends: seconds make a backend that holds
# IO (null_blk takes it only before the device is powered on).
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
		echo "${5:-1}" > "$d/irqmode" && echo "${6:-20000}" > "$d/completion_nsec" &&
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
# FILE until killed.  Shell built-ins only: date, awk and sleep forked
# 15 times a second took a TCG guest's CPU from the IO it samples.
riftblk_sample()
{
	local st r w _x
	st=/sys/block/$(basename "$1")/stat
	while :; do
		read -r r _x _x _x w _x < "$st"
		echo "$EPOCHREALTIME $((r + w))"
		rift_nap 0.2
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
# completed IOs in a riftblk_sample FILE did not move, from its first
# move on: the sampler starts before fio has laid out its files and
# issued anything, and that wait is no stall (it was 6.2 s in make demo).
riftblk_longest_stall()
{
	awk 'NR == 1 { n = $2; next }
	     !go && $2 == n { next }
	     !go { go = 1; s = $1; n = $2; t = $1; next }
	     $2 != n && $1 - s > m { m = $1 - s }
	     $2 != n { s = $1; n = $2 }
	     { t = $1 } END { if (go && t - s > m) m = t - s; printf "%.1f\n", m }' "$1"
}
