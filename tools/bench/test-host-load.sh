#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bench report's host-load section and cs column, without a VM: a
# synthetic build/bench/vm as bench-guest.sh leaves it (results.jsonl
# with the jobs' guest times t0/t1 and context switches, fio's JSON per
# job with its host mtime set by touch -d, as 9p would have it) for 2
# peers x 2 repetitions x 2 jobs, and a host-load.txt as
# tools/bench/host-load.sh writes it (samples about a second apart, with
# jitter), the guest's clock an hour off the host's.  Checks that
#   - a burst of 40 % of the host's CPU outside the VM during exactly one
#     job's window names that job, and no other;
#   - without the burst no job is named;
#   - without host-load.txt the report says so once and goes on;
#   - cs is the context switches per IO.
# Runs in a second or two.  usage: tools/bench/test-host-load.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
report=$top/tools/bench/bench-report.py
d=$(mktemp -d /tmp/rift-test-host-load.XXXXXX)
trap 'rm -rf "$d"' EXIT
fails=0

# gen VMDIR BURST: the synthetic run; BURST 1 puts 40 % of the host's
# CPU outside the VM during rift-1p qd32-randread rep 1 only.
gen()
{
	rm -rf "$1"
	mkdir -p "$1/fio"
	python3 - "$1" "$2" <<'PY' | while read -r f t; do touch -d "@$t" "$f"; done
import json, os, random, sys
vm, burst = sys.argv[1], sys.argv[2] == "1"
random.seed(18)
OFF = 3600.25              # the guest's clock minus the host's
LEN, GAP, HZ, CPUS = 10.0, 2.0, 100, 2
jobs = [("qd1-randread", "randread", 1, 900.0), ("qd32-randread", "randread", 32, 9000.0)]
host_t = 1.8e9             # host epoch of the first job's start
wins, recs = [], []


def side(iops, qd, on):
    n = int(iops * LEN) if on else 0
    mean = qd * 1e9 / iops if on else 0.0
    pct = {"1.000000": mean * .6, "50.000000": mean, "99.000000": mean * 2.5,
           "99.900000": mean * 4} if on else {}
    return {"io_bytes": 4096 * n, "io_kbytes": 4 * n, "bw_bytes": int(4096 * iops) if on else 0,
            "bw": int(4 * iops) if on else 0, "iops": iops if on else 0.0,
            "runtime": int(LEN * 1000) if on else 0, "total_ios": n, "short_ios": 0,
            "drop_ios": 0,
            "slat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0},
            "clat_ns": {"min": int(mean / 3), "max": int(mean * 20), "mean": mean,
                        "stddev": mean / 4, "N": n, "percentile": pct},
            "lat_ns": {"min": int(mean / 3), "max": int(mean * 20), "mean": mean * 1.02,
                       "stddev": mean / 4, "N": n}}


for rep in (1, 2):
    for peer in ("rift-1p", "nvme"):
        for name, rw, qd, iops in jobs:
            iops *= random.uniform(0.9, 1.1)
            g0 = host_t + OFF
            g_end = g0 + LEN + 0.35             # fio's start-up under TCG
            t1 = g_end + random.uniform(0, 0.2)  # the guest polls fio's end
            f = os.path.join(vm, "fio", "%s-%s-r%d.json" % (peer, name, rep))
            fio = {"fio version": "fio-3.33", "timestamp": int(g_end),
                   "timestamp_ms": int(g_end * 1000), "time": "Sun Jan 17 12:00:00 2027",
                   "jobs": [{"jobname": os.path.basename(f), "groupid": 0, "error": 0,
                             "eta": 0, "elapsed": int(LEN + 1),
                             "job options": {"name": os.path.basename(f), "filename": "/dev/x",
                                             "ioengine": "libaio", "direct": "1", "rw": rw,
                                             "bs": "4k", "iodepth": str(qd), "numjobs": "1",
                                             "runtime": str(int(LEN)), "time_based": ""},
                             "read": side(iops, qd, True), "write": side(0, qd, False),
                             "trim": side(0, qd, False),
                             "sync": {"total_ios": 0, "lat_ns": {"min": 0, "max": 0,
                                                                 "mean": 0.0, "N": 0}},
                             "job_runtime": int(LEN * 1000), "usr_cpu": 9.5,
                             "sys_cpu": 41.2, "ctx": int(iops * LEN * 1.1), "majf": 0,
                             "minf": 28, "iodepth_level": {"1": 100.0}, "latency_ns": {}}],
                   "disk_util": []}
            open(f, "w").write(json.dumps(fio, indent=2))
            open(f + ".log", "w").close()
            ios = int(iops * LEN)
            recs.append({"peer": peer, "rep": rep, "job": name, "status": "ok",
                         "post_send": 2 * ios, "post_recv": 2 * ios, "cqe": 4 * ios,
                         "pkts": 4 * ios, "cpu_busy": int(1.9 * HZ * LEN),
                         "cpu_total": int(2 * HZ * LEN), "ctxt": 3 * ios + 7,
                         "t0": round(g0, 6), "t1": round(t1, 6)})
            end = host_t + LEN + 0.35 + 0.004    # the host stamps the write
            print(f, "%.6f" % end)
            wins.append((peer, name, rep, host_t, end))
            host_t = end + GAP
        recs.append({"peer": peer, "rep": rep, "job": "mem-idle", "status": "ok",
                     "used_kib": 2048})
with open(os.path.join(vm, "results.jsonl"), "w") as fh:
    for r in recs:
        fh.write(json.dumps(r) + "\n")
json.dump({"runtime": int(LEN), "reps": 2, "kernel": "6.1.0-synthetic", "cpus": 2,
           "clk_tck": HZ, "idle_busy_pct": 1.5, "idle_ctxt_per_s": 160},
          open(os.path.join(vm, "meta.json"), "w"))

# The host: 2 CPUs; qemu takes one (TCG), other work 2 %, and 40 % during
# the burst, exactly the window of rift-1p qd32-randread rep 1.
bw = [w for w in wins if w[:3] == ("rift-1p", "qd32-randread", 1)][0][3:]


def other(t):
    """Ticks of other work from the record's start to t: 2 % of the host,
    40 % during the burst."""
    o = 0.02 * (t - t_first)
    if burst:
        o += 0.38 * max(0.0, min(t, bw[1]) - max(t_first, bw[0]))
    return o * CPUS * HZ


t_first = wins[0][3] - 5
with open(os.path.join(vm, "host-load.txt"), "w") as fh:
    fh.write("# host-load.sh: epoch host_busy host_total qemu_cpu; clk_tck 100 cpus 2; "
             "parent 1; pid files %s/qemu-bench.pid\n" % vm)
    t, busy0, total0 = t_first, 51234, 4000000
    while t < wins[-1][4] + 5:
        q = int((t - t_first) * HZ)
        fh.write("%.6f %d %d %d\n" % (t, busy0 + q + int(other(t)),
                                       total0 + int((t - t_first) * HZ * CPUS), q))
        t += 1.0 + random.uniform(0.0, 0.08)
PY
}

# expect WHAT CMD...: one check.
expect()
{
	local what=$1
	shift
	if "$@"; then
		echo "ok: $what"
	else
		echo "FAIL: $what"
		fails=$((fails + 1))
	fi
}

# The burst: exactly the one job named.
gen "$d/vm" 1
python3 "$report" "$d/vm" "$d/bench.json" > "$d/bench.txt"
sed -n '/^Host load during/,/^TCG noise/p' "$d/bench.txt"
grep '^shared the host:' "$d/bench.txt" > "$d/named" || true
# The one-second samples blur the window's edges: a burst exactly as long
# as the window reads a little under its 40 %.
expect "the burst names rift-1p qd32-randread rep 1 and no other job" \
	grep -qEx 'shared the host: rift-1p qd32-randread rep 1: (3[5-9]|4[01]) % of the host outside the VM' "$d/named"
expect "one job named" test "$(wc -l < "$d/named")" = 1
expect "bench.json: host_other per job, host_other_pct per figure, cs_per_io" python3 - "$d/bench.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
hl = j["host_load"]
big = [(e["peer"], e["job"], e["rep"]) for e in hl["jobs"] if e["host_other"] >= 0.10]
assert big == [("rift-1p", "qd32-randread", 1)], big
assert len(hl["jobs"]) == 8 and all(e["host_other"] is not None for e in hl["jobs"]), hl["jobs"]
p = j["figures"]["randread_iops"]["peers"]["rift-1p"]
assert p["reps"] == [1, 2] and p["host_other_pct"][0] > 35 and p["host_other_pct"][1] < 5, p
assert abs(p["cs_per_io"] - 3.0) < 0.01, p["cs_per_io"]
PY
expect "cs column: 3.0 context switches per IO" \
	grep -q '^  rift-1p .* 3\.0$' "$d/bench.txt"

# No burst: nothing named.
gen "$d/vm" 0
python3 "$report" "$d/vm" "$d/bench.json" > "$d/bench.txt"
grep '^no fio job shared the host' "$d/bench.txt" || true
expect "without the burst no job is named" \
	test "$(grep -c '^shared the host:' "$d/bench.txt")" = 0
expect "without the burst the report says so" grep -q '^no fio job shared the host' "$d/bench.txt"

# An older run: no host-load.txt.
rm "$d/vm/host-load.txt"
python3 "$report" "$d/vm" "$d/bench.json" > "$d/bench.txt"
grep '^Host load' "$d/bench.txt" || true
expect "without host-load.txt: one notice" test "$(grep -c '^Host load: not recorded' "$d/bench.txt")" = 1
expect "without host-load.txt: the blocks are still there" grep -q '^4k randread QD32 (IOPS)' "$d/bench.txt"

[ $fails -eq 0 ] && echo "test-host-load: all passed" || echo "test-host-load: $fails failed"
[ $fails -eq 0 ]
