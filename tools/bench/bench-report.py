#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tabulate `make bench`: read what tools/bench/bench-guest.sh recorded
(results.jsonl, fio's JSON, perftest's output) and print one block per
figure, rows = peers, with each figure's ratio to nvme-rdma, to RNBD and to
the raw verbs limit, and the transport work, guest CPU time and context
switches per IO; then how much of the host's CPU went to other work than
the VM during each fio job (build/bench/vm/host-load.txt, written on the
host by tools/bench/host-load.sh), naming the jobs that shared the host;
then, for the jobs BENCH_SCHED named, where their context switches and
wake-ups went, per IO (build/bench/vm/sched/); then, for each peer X-alt
(BENCH_ALT: another build of Rift in the same boot), its ratios to X,
mean and per repetition; then, if it ran, the
rift-idle63 scenario (one busy session beside 63
idle ones, tools/bench/bench-idle63.sh) in a section of its own.
Writes the same as JSON.  Numbers only: nothing here passes or fails.

usage: bench-report.py VMOUT JSONOUT
"""
import glob
import json
import os
import re
import statistics
import sys

PEERS = ["local", "rift-1p", "rift-2p", "rift-ai", "rift-fai", "nvme", "nvme-mp",
         "rnbd", "rnbd-2p"]
# The peers a ratio divides by: the one-link peer, else (for a figure only
# two-link peers have: the failover gap) its two-link configuration.
REFS = {"nvme": ["nvme", "nvme-mp"], "rnbd": ["rnbd", "rnbd-2p"]}
# figure: (job, title, unit, higher is better)
FIGS = {
    "lat_mean_us": ("qd1-randread", "4k randread QD1, mean latency (submission + completion)", "us", False),
    "lat_p99_us": ("qd1-randread", "4k randread QD1, p99 latency (submission + completion)", "us", False),
    "wlat_mean_us": ("qd1-randwrite", "4k randwrite QD1, mean latency (submission + completion)", "us", False),
    "wlat_p99_us": ("qd1-randwrite", "4k randwrite QD1, p99 latency (submission + completion)", "us", False),
    "randread_iops": ("qd32-randread", "4k randread QD32", "IOPS", True),
    "randwrite_iops": ("qd32-randwrite", "4k randwrite QD32", "IOPS", True),
    "seqread_MiBps": ("qd8-seqread", "128k sequential read QD8", "MiB/s", True),
    "seqwrite_MiBps": ("qd8-seqwrite", "128k sequential write QD8", "MiB/s", True),
    "plat_mean_us": ("qd1-polled", "4k randread QD1 polled (io_uring hipri, poll queues), "
                     "mean latency (submission + completion)", "us", False),
    "plat_p99_us": ("qd1-polled", "4k randread QD1 polled (io_uring hipri, poll queues), "
                    "p99 latency (submission + completion)", "us", False),
    "failover_gap_ms": ("failover", "failover gap: largest gap between completions once one of "
                        "two links went down, QD16 verified randwrite", "ms", False),
    "mem_idle_MiB": ("mem-idle", "memory one idle mapped session takes, whole VM (client and "
                     "server ends), not free nor page cache", "MiB", False),
    "srv_pinned_MiB": ("mem-idle", "server memory pinned per idle session, by the server's "
                       "own count", "MiB", False),
}
COUNTERS = ["post_send", "post_recv", "cqe", "pkts"]
# A job during which this share of the host's CPU time or more went to
# other work than the VM is named: its figures may be low for that.
HOST_OTHER_NAMED = 0.10
WRITE_JOBS = ("qd1-randwrite", "qd32-randwrite", "qd8-seqwrite")
LAT_PREFIX = {"qd1-randread": "lat", "qd1-randwrite": "wlat", "qd1-polled": "plat"}


# fio JSON without total-latency percentiles (runs before the bench set
# lat_percentiles=1), whose p99 figures are clat's: named in the report.
P99_FROM_CLAT = set()


def total_latency(d, path):
    """fio's lat of one direction (submission and completion), not clat
    alone: a peer that does the IO's work inside io_submit() (a post that
    runs the driver's softirq there) would otherwise look faster than it
    is.  Its percentiles need fio's lat_percentiles=1, which the bench
    sets; JSON from before that has clat's only (named: P99_FROM_CLAT)."""
    lat = d["lat_ns"]
    if "percentile" not in lat:
        lat = dict(lat, percentile=d["clat_ns"].get("percentile", {}))
        P99_FROM_CLAT.add(os.path.basename(path))
    return lat


def fio_figures(path, job):
    s = open(path).read()
    j = json.loads(s[s.index("{"):])["jobs"][0]
    r, w = j["read"], j["write"]
    d = w if job in WRITE_JOBS else r
    figs = {}
    if job in LAT_PREFIX:
        p = LAT_PREFIX[job]
        lat = total_latency(d, path)
        figs[p + "_mean_us"] = lat["mean"] / 1e3
        figs[p + "_p99_us"] = lat["percentile"].get("99.000000", 0) / 1e3
    elif job == "qd8-seqread":
        figs["seqread_MiBps"] = d["bw_bytes"] / 2**20
    elif job == "qd8-seqwrite":
        figs["seqwrite_MiBps"] = d["bw_bytes"] / 2**20
    else:
        figs[job.split("-")[1] + "_iops"] = d["iops"]
    return figs, r["total_ios"] + w["total_ios"]


def rec_figures(r):
    """Figures of a record that is not a fio job of its own."""
    figs, na = {}, {}
    if r["job"] == "failover":
        figs["failover_gap_ms"] = r["gap_ms"]
    elif r["job"] == "mem-idle":
        figs["mem_idle_MiB"] = r["used_kib"] / 1024
        if "srv_pinned_kib" in r and r["peer"].startswith("rift"):
            figs["srv_pinned_MiB"] = r["srv_pinned_kib"] / 1024
        else:
            na["srv_pinned_MiB"] = "no count of its own: see the whole-VM figure above"
    return figs, na


def mean(v):
    return sum(v) / len(v) if v else None


def host_samples(path):
    """host-load.txt (tools/bench/host-load.sh): sorted (epoch, busy,
    total, qemu) tuples of cumulative USER_HZ ticks; None if missing."""
    try:
        fh = open(path)
    except OSError:
        return None
    out = []
    with fh:
        for line in fh:
            f = line.split()
            if len(f) != 4 or line.startswith("#"):
                continue
            try:
                out.append((float(f[0]), int(f[1]), int(f[2]), int(f[3])))
            except ValueError:
                continue
    out.sort()
    return out


def host_at(samples, t):
    """The cumulative (busy, total, qemu) at epoch t, linear between the
    two samples around it; None outside the record."""
    if not samples or t < samples[0][0] or t > samples[-1][0]:
        return None
    lo, hi = 0, len(samples) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if samples[mid][0] <= t:
            lo = mid
        else:
            hi = mid
    a, b = samples[lo], samples[hi]
    x = (t - a[0]) / (b[0] - a[0]) if b[0] > a[0] else 0.0
    return tuple(a[i] + x * (b[i] - a[i]) for i in (1, 2, 3))


def job_window(vm, r):
    """(start, end, None) of a fio job on the host's clock, or (None,
    None, why not).  The end is the host's mtime of its fio JSON (written at
    fio's end through 9p: the host stamps it); the length is the guest's
    own, fio's timestamp_ms (when it wrote that JSON) minus t0 (just
    before fio started), else t1 - t0 (t1: once the guest saw fio end,
    up to 0.2 s later)."""
    if "t0" not in r or "t1" not in r:
        return None, None, "no job times recorded"
    fpath = os.path.join(vm, "fio", "%s-%s-r%d.json" % (r["peer"], r["job"], r["rep"]))
    try:
        end = os.stat(fpath).st_mtime_ns / 1e9
    except OSError as e:
        return None, None, "no fio output: %s" % e
    gend = r["t1"]
    try:
        s = open(fpath).read()
        ts = json.loads(s[s.index("{"):])["timestamp_ms"] / 1e3
        if r["t0"] < ts <= r["t1"] + 1:
            gend = ts
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return end - (gend - r["t0"]), end, None


def host_load(vm, recs, res, w):
    """The host's load during each fio job: the share of all the host's
    CPU time used outside the VM (host busy minus qemu's CPU time) and
    the host's busy share, qemu included.  Returns {(peer, job, rep):
    other share} for the figures' blocks in the JSON."""
    path = os.path.join(vm, "host-load.txt")
    samples = host_samples(path)
    hl = {"file": "host-load.txt", "named_at_pct": 100 * HOST_OTHER_NAMED, "jobs": [],
          "shared": []}
    res["host_load"] = hl
    w("")
    if samples is None:
        w("Host load: not recorded (no host-load.txt: a run from before tools/bench/host-load.sh,")
        w("or it did not start); which jobs shared the host cannot be told.")
        hl["file"] = None
        return {}
    jobs = []
    for r in recs:
        if r["peer"] in ("raw", IDLE63) or r["status"] != "ok" or r["job"] == "mem-idle":
            continue
        e = {"peer": r["peer"], "job": r["job"], "rep": r["rep"], "host_other": None,
             "host_busy": None}
        start, end, why = job_window(vm, r)
        if why is None:
            a, b = host_at(samples, start), host_at(samples, end)
            e.update({"start": start, "end": end, "length_s": end - start})
            if a is None or b is None:
                why = "outside the host's record"
            elif b[1] <= a[1]:
                why = "no host CPU time counted in the window"
            else:
                e["host_other"] = ((b[0] - a[0]) - (b[2] - a[2])) / (b[1] - a[1])
                e["host_busy"] = (b[0] - a[0]) / (b[1] - a[1])
        if why:
            e["why"] = why
        jobs.append(e)
    hl["jobs"] = jobs
    w("Host load during each fio job (host-load.txt: the host's /proc/stat and qemu's CPU time,")
    w("sampled every second on the host): % of all the host's CPU time used outside the VM")
    w("(host busy minus qemu's CPU time) / % busy in all, qemu included.  A job's window ends")
    w("at the host's mtime of its fio JSON and is as long as the guest timed the job.  Evidence")
    w("for reading a slow repetition, not a verdict; %.0f %% or more outside the VM is named below."
      % (100 * HOST_OTHER_NAMED))
    if not jobs:
        w("  no fio job to place on it")
        return {}
    names = [d[0] for d in FIGS.values() if d[0] != "mem-idle"]
    names = list(dict.fromkeys(names + [e["job"] for e in jobs]))
    names = [n for n in names if any(e["job"] == n for e in jobs)]
    cell = {(e["peer"], e["job"], e["rep"]): e for e in jobs}
    rows = list(dict.fromkeys((e["peer"], e["rep"]) for e in jobs))
    order = {p: i for i, p in enumerate(PEERS)}
    rows.sort(key=lambda x: (order.get(x[0], len(PEERS)), x[0], x[1]))
    wd = [max(len(n), 7) for n in names]
    w("  %-8s %3s %s" % ("peer", "rep", " ".join("%*s" % (k, n) for k, n in zip(wd, names))))
    for p, rep in rows:
        cs = []
        for k, n in zip(wd, names):
            e = cell.get((p, n, rep))
            if e is None or e["host_other"] is None:
                cs.append("%*s" % (k, "-"))
            else:
                cs.append("%*s" % (k, "%.0f/%.0f" % (100 * e["host_other"],
                                                     100 * e["host_busy"])))
        w("  %-8s %3d %s" % (p, rep, " ".join(cs)))
    why = sorted({e["why"] for e in jobs if e.get("why")})
    if why:
        w("  - : %s" % "; ".join(why))
    for p, rep in rows:
        for n in names:
            e = cell.get((p, n, rep))
            if e and e["host_other"] is not None and e["host_other"] >= HOST_OTHER_NAMED:
                hl["shared"].append({"peer": p, "job": n, "rep": rep,
                                     "host_other_pct": 100 * e["host_other"]})
                w("shared the host: %s %s rep %d: %.0f %% of the host outside the VM"
                  % (p, n, rep, 100 * e["host_other"]))
    if not hl["shared"]:
        w("no fio job shared the host: under %.0f %% of its CPU outside the VM in every one"
          % (100 * HOST_OTHER_NAMED))
    return {k: e["host_other"] for k, e in cell.items()}


def generic_header(w, meta, vm):
    """How to read the usual figures' blocks."""
    w("Value = mean over the repetitions [min..max]; /nvme, /rnbd, /raw = value divided by")
    w("nvme-rdma's, RNBD's and the raw verbs limit's (latency, gap, memory, CPU: >1 is more;")
    w("IOPS, MiB/s: >1 is faster).  /nvme and /rnbd divide by the one-link peer (nvme, rnbd),")
    w("for the failover gap by its two-link one (nvme-mp: native multipath, rnbd-2p).")
    w("Per IO, both ends of the VM together: ps = ib_post_send calls, rw = receive WRs posted,")
    w("cq = completions (CQEs), pk = rxe packets sent (ACKs included); cpu = the VM's busy CPU")
    w("time (/proc/stat: user+nice+system+irq+softirq+steal, all CPUs) over the job divided")
    w("by the IOs fio completed, us; c/nv, c/rn = cpu divided by nvme's, rnbd's; cs = the VM's")
    w("context switches (/proc/stat ctxt, all CPUs) over the job per IO.  The idle VM (the")
    w("bench's shell) keeps %s%% of its CPU time busy and switches context %s times a second;"
      % (meta.get("idle_busy_pct", "?"), meta.get("idle_ctxt_per_s", "?")))
    w("that is in every cpu and cs figure.")
    cf = None
    cff = os.path.join(vm, "srv_credit_floor")
    if os.path.exists(cff):
        cf = open(cff).read().strip() or None
    if cf and cf != "0":
        w("Rift rows: rift-server at its defaults, credit_floor %s (memory credits on: a path"
          % cf)
        w("starts with that many chunks and asks for more); an idle session's memory is read")
        w("once the server has taken its paths back to that floor (credit_idle_ms after the map).")
    elif cf is not None:
        w("Rift rows: rift-server with credit_floor 0 (memory credits off: every path holds")
        w("its whole queue depth from admission on).")


IDLE63 = "rift-idle63"
IDLE63_JOBS = ("randread", "randwrite")
IDLE63_ARMS = ("with", "alone")
# The busy path's counters over a job, the first four and the last shown.
IDLE63_COUNTS = ("credit_reqs", "credits", "credit_rels", "revokes", "reclaimed",
                 "credit_short")


def idle63_ramp(vm, name, rep, log_ms):
    """Ramp of one busy job, from fio's IOPS log (LOG_MS windows, unix ms)
    and the server-side grant trace: (ramp_ms, steady_iops, grant_peak,
    grant_peak_ms, grant_first), each None where its log is missing.
    Time 0 is the start of fio's first window, about the first IO."""
    out = {"ramp_ms": None, "steady_iops": None, "grant_peak": None,
           "grant_peak_ms": None, "grant_first": None}
    base = os.path.join(vm, "fio", "%s-%s-r%d" % (IDLE63, name, rep))
    try:
        rows = []
        for line in open(base + ".iops.log"):
            f = [x.strip() for x in line.split(",")]
            if len(f) >= 2 and f[0]:
                rows.append((int(f[0]), float(f[1])))
    except (OSError, ValueError):
        return out
    if not rows:
        return out
    rows.sort()
    t0 = rows[0][0] - log_ms
    half = t0 + (rows[-1][0] - t0) / 2
    steady = statistics.median([v for t, v in rows if t >= half])
    out["steady_iops"] = steady
    # The end of the first window at 90 % of the second half's median.
    out["ramp_ms"] = next(t for t, v in rows if v >= 0.9 * steady) - t0
    try:
        tr = []
        for line in open(base + ".grant.log"):
            f = line.split()
            if len(f) == 2:
                tr.append((float(f[0].replace(",", ".")) * 1000, int(f[1])))
    except (OSError, ValueError):
        return out
    if tr:
        peak = max(g for _, g in tr)
        out["grant_peak"] = peak
        out["grant_first"] = tr[0][1]
        # None when it never grew; 0 when it had grown by fio's first window.
        if peak > tr[0][1]:
            out["grant_peak_ms"] = max(0, next(t for t, g in tr if g == peak) - t0)
    return out


def idle63_report(vm, recs, meta, w):
    """The rift-idle63 section: idle paths' memory per repetition, the
    busy session's jobs with the idle ones and alone, their ratios."""
    m = meta.get("idle63", {})
    log_ms = m.get("log_ms", 100)
    rr = [r for r in recs if r["peer"] == IDLE63]
    res = {"params": m, "idle": [], "jobs": {}, "ratios": {}, "na": {}}

    def fmt(x, spec="%.1f"):
        return spec % x if x is not None else "-"

    def span(v, spec="%.1f"):
        return "%s [%s..%s]" % (fmt(mean(v), spec), fmt(min(v), spec), fmt(max(v), spec)) \
            if v else "n/a"
    w("")
    w("rift-idle63: one busy riftblk session (one path, /dev/nullb0) beside %s idle ones, "
      "memory credits on" % m.get("n", "?"))
    w("server credit_floor %s, pool_mb %s, credit_idle_ms %s; client read_bounce_kb %s; "
      "warm-up %s s of 4k randread QD32, %s sessions at a time"
      % (m.get("credit_floor", "?"), m.get("pool_mb", "?"), m.get("credit_idle_ms", "?"),
         m.get("read_bounce_kb", "?"), m.get("warm_s", "?"), m.get("warm_par", "?")))
    w("")
    w("Idle paths, read on the server 2 x credit_idle_ms after the warm-up (one row per")
    w("repetition; KiB; held = held_bytes, what the 1 MiB target counts; pinned = chunks;")
    w("granted now / after its warm-up; msgs = CREDIT_REQ/CREDIT/CREDIT_REL summed over the")
    w("idle paths' lives; short = their answers the budget cut short (credit_short), summed;")
    w("pool = rift-server pinned_bytes now / highest after a warm-up group;")
    w("VM = used (not free nor cache) / Slab / VmallocUsed growth per idle session):")
    w("  %3s %3s %17s %10s %17s %15s %15s %8s %8s %17s %6s %15s %20s"
      % ("rep", "n", "held max/mean", ">1MiB", "pinned max/mean", "granted mx/mean",
         "warm mx/mean", "revokes", "reclaim", "msgs req/cr/rel", "short", "pool now/peak",
         "VM used/slab/vmalloc"))
    for r in sorted((r for r in rr if r["job"] == "idle-mem"), key=lambda r: r["rep"]):
        if r["status"] != "ok":
            w("  %3d n/a: %s" % (r["rep"], r["status"]))
            res["na"].setdefault("idle-mem", []).append(r["status"])
            continue
        res["idle"].append(r)
        w("  %3d %3d %17s %10s %17s %15s %15s %8d %8d %17s %6d %15s %20s" % (
            r["rep"], r["n_idle"],
            "%.0f/%.0f" % (r["held_max_b"] / 1024, r["held_mean_b"] / 1024),
            "%d of %d" % (r["n_over_1mib"], r["n_idle"]),
            "%.0f/%.0f" % (r["pinned_max_b"] / 1024, r["pinned_mean_b"] / 1024),
            "%d/%.1f" % (r["granted_max"], r["granted_mean"]),
            "%d/%.1f" % (r["warm_granted_max"], r["warm_granted_mean"]),
            r["revokes"], r["reclaimed"],
            "%d/%d/%d" % (r["credit_reqs"], r["credits"], r["credit_rels"]),
            r.get("credit_short", 0),
            "%d/%d" % (r["srv_pinned_kib"], r["warm_pool_max_kib"]),
            "%d/%d/%d" % (r["used_kib_per_sess"], r["slab_kib_per_sess"],
                          r["vmalloc_kib_per_sess"])))
    ok = res["idle"]
    if ok:
        w("  every idle path at most 1 MiB held: %s (%d of %d paths over, all repetitions); "
          "mapping took %s s, warm-up %s s, client bounce per path %s KiB"
          % ("yes" if not sum(r["n_over_1mib"] for r in ok) else "no",
             sum(r["n_over_1mib"] for r in ok), sum(r["n_idle"] for r in ok),
             "/".join(str(r["map_s"]) for r in ok), "/".join(str(r["warm_s"]) for r in ok),
             "/".join("%.0f" % (r["clt_bounce_max_b"] / 1024) for r in ok)))
    w("")
    w("Busy session, 4k QD32, %s s per job; arms interleaved ABBA (odd repetitions with, then"
      % meta.get("runtime", "?"))
    w("alone; even ones alone, then with); each job starts with the busy path at its floor.")
    w("Value = mean [min..max] over the repetitions.  ramp = ms from fio's first %d ms window"
      % log_ms)
    w("to the end of the first window at 90 % of the job's second-half median IOPS (resolution")
    w("%d ms); grant = the busy path's server-side grant: at the start -> its peak, and ms to the"
      % log_ms)
    w("peak (sampled every 25 ms for the first 5 s after fio is started); req/cr/rel/rv/sh =")
    w("the busy path's CREDIT_REQ/CREDIT/CREDIT_REL/revokes/answers the budget cut short")
    w("(credit_short) over the job; idle = credit messages of all idle paths during the job.")
    w("  %-9s %-5s %28s %26s %14s %13s %11s %24s %6s" %
      ("job", "arm", "IOPS", "p99 us", "ramp ms", "grant", "to peak ms", "req/cr/rel/rv/sh",
       "idle"))
    for job in IDLE63_JOBS:
        figs = {}
        for arm in IDLE63_ARMS:
            name = "%s-%s" % (arm, job)
            iops, p99, ramp, gpk, gms, g0, cnt, idle, why = [], [], [], [], [], [], [], [], set()
            for r in rr:
                if r["job"] != name:
                    continue
                if r["status"] != "ok":
                    why.add(r["status"])
                    continue
                try:
                    fpath = os.path.join(vm, "fio", "%s-%s-r%d.json"
                                         % (IDLE63, name, r["rep"]))
                    fs = open(fpath).read()
                    j = json.loads(fs[fs.index("{"):])["jobs"][0]
                    d = j["write"] if job == "randwrite" else j["read"]
                    pc = total_latency(d, fpath)["percentile"].get("99.000000")
                    iops.append(d["iops"])
                    if pc is not None:
                        pc /= 1e3
                        p99.append(pc)
                except (OSError, ValueError, KeyError, IndexError) as e:
                    why.add("fio output unreadable: %s" % e)
                    continue
                rp = idle63_ramp(vm, name, r["rep"], log_ms)
                if rp["ramp_ms"] is not None:
                    ramp.append(rp["ramp_ms"])
                if rp["grant_peak"] is not None:
                    gpk.append(rp["grant_peak"])
                if rp["grant_peak_ms"] is not None:
                    gms.append(rp["grant_peak_ms"])
                g0.append(r.get("granted_start", 0))
                cnt.append([r.get(k, 0) for k in IDLE63_COUNTS])
                idle.append(r.get("idle_credit_msgs", 0))
                res["jobs"].setdefault(name, []).append(dict(r, iops=iops[-1], p99_us=pc,
                                                             **rp))
            if why:
                res["na"][name] = sorted(why)
            if not iops:
                w("  %-9s %-5s n/a: %s" % (job, arm, "; ".join(sorted(why)) or "not run"))
                continue
            figs[arm] = (mean(iops), mean(p99))
            c = [mean([x[i] for x in cnt]) for i in (0, 1, 2, 3, 5)]
            w("  %-9s %-5s %28s %26s %14s %13s %11s %24s %6s" % (
                job, arm, span(iops), span(p99), fmt(mean(ramp), "%.0f"),
                "%.0f->%s" % (mean(g0), fmt(mean(gpk), "%.0f")) if gpk else "-",
                fmt(mean(gms), "%.0f"), "%.1f/%.1f/%.1f/%.1f/%.1f" % tuple(c),
                fmt(mean(idle), "%.1f")))
            if why:
                w("  %-9s %-5s %d of the repetitions n/a: %s"
                  % ("", "", sum(1 for r in rr if r["job"] == name and r["status"] != "ok"),
                     "; ".join(sorted(why))))
        if "with" in figs and "alone" in figs:
            ri = figs["with"][0] / figs["alone"][0] if figs["alone"][0] else None
            rl = figs["with"][1] / figs["alone"][1] \
                if figs["with"][1] and figs["alone"][1] else None
            res["ratios"][job] = {"iops": ri, "p99": rl}
            w("  %-9s with/alone: IOPS %s, p99 %s" % (job, fmt(ri, "%.3f"), fmt(rl, "%.3f")))
    w("  (IOPS ratio below 1: slower beside the idle sessions; p99 ratio above 1: slower.)")
    return res


# Rows of a sched record's histograms shown per section.
SCHED_TOP = 8
SCHED_TITLES = {"sched/sched_switch": "switched in (next_comm)",
                "sched/sched_wakeup": "woken (comm)",
                "workqueue/workqueue_queue_work": "work queued (function)",
                "irq/softirq_entry": "softirqs run (vec, task)",
                "irq/softirq_raise": "softirqs raised (vec)"}
SOFTIRQ = ["HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
           "HRTIMER", "RCU"]


def alt_report(vm, peers, vals, vreps, w):
    """A/B of two Rift builds in one boot: each figure of X-alt (the
    modules of BENCH_ALT's tree) over X's, of the means and paired by
    repetition (the repetitions interleave, so a pair shared the boot's
    conditions most closely)."""
    pairs = [(p[:-len("-alt")], p) for p in peers
             if p.endswith("-alt") and p[:-len("-alt")] in peers]
    res = {}
    if not pairs:
        return res
    w("")
    w("A/B of two builds in this boot: X-alt / X (latency: above 1 is slower; "
      "throughput: above 1 is faster)")
    try:
        for line in open(os.path.join(vm, "alt.txt")):
            w("  " + line.rstrip())
    except OSError:
        pass
    for base, alt in pairs:
        w("  %s / %s:" % (alt, base))
        for f, (job, title, unit, _) in FIGS.items():
            a, b = vals.get((alt, f)), vals.get((base, f))
            if not a or not b:
                continue
            byrep = dict(zip(vreps[(base, f)], b))
            paired = [x / byrep[r] for r, x in zip(vreps[(alt, f)], a)
                      if byrep.get(r)]
            m = mean(a) / mean(b) if mean(b) else None
            res.setdefault("%s/%s" % (alt, base), {})[f] = {"ratio": m, "paired": paired}
            w("    %-16s %6s   per repetition: %s" % (
                f, "%.2f" % m if m is not None else "-",
                " ".join("%.2f" % x for x in paired) or "-"))
    return res


def sched_hists(path):
    """The histograms of one sched record: [(section, filtered, [(key, hits)])],
    a stacktrace key given as its first frames."""
    out, cur, name, stack, seen = [], None, None, [], set()
    for line in open(path, errors="replace"):
        if line.startswith("=== "):
            name, cur = line[4:].split()[0], None
            continue
        # An event's hist file shows every hist trigger of the event,
        # each under its trigger info: one section each, once.
        if line.startswith("# trigger info:"):
            cur = None
            if name and (name, line) not in seen:
                seen.add((name, line))
                cur = (name, " if " in line, [])
                out.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r"\{ (.*?)\s*\} hitcount:\s*(\d+)", line)
        if m:
            k = re.sub(r"\s+", " ", m.group(1))
            v = re.match(r"vec:\s*(\d+)(.*)", k)
            if v and int(v.group(1)) < len(SOFTIRQ):
                k = SOFTIRQ[int(v.group(1))] + v.group(2)
            cur[2].append((k, int(m.group(2))))
            continue
        if line.startswith("{ stacktrace:"):
            stack = []
            continue
        m = re.match(r"\s+(\S+)\+0x", line)
        if m and len(stack) < 6:
            stack.append(m.group(1))
            continue
        m = re.match(r"\s*\} hitcount:\s*(\d+)", line)
        if m and stack:
            cur[2].append((" < ".join(stack), int(m.group(1))))
            stack = []
    return out


def sched_report(vm, w):
    """Per IO: what the named jobs switched in, woke, queued and ran."""
    files = sorted(glob.glob(os.path.join(vm, "sched", "*.txt")))
    if not files:
        return
    w("")
    w("Where the context switches went (BENCH_SCHED), per IO of the job, whole VM:")
    for f in files:
        base = os.path.basename(f)[:-4]
        ios = None
        fj = os.path.join(vm, "fio", base + ".json")
        try:
            d = json.load(open(fj))
            j = d["jobs"][0]
            ios = j["read"]["total_ios"] + j["write"]["total_ios"]
        except (OSError, ValueError, KeyError, IndexError):
            pass
        w("  %s (%s IOs)" % (base, ios if ios else "?"))
        for name, filt, rows in sched_hists(f):
            title = SCHED_TITLES.get(name, name)
            if filt:
                title = "stacks waking a ksoftirqd"
            total = sum(h for _, h in rows)
            per = "%.2f" % (total / ios) if ios else "?"
            w("    %s: %d, %s per IO" % (title, total, per))
            # Stacks cut to their first frames may now be equal: summed.
            merged = {}
            for k, h in rows:
                merged[k] = merged.get(k, 0) + h
            for k, h in sorted(merged.items(), key=lambda r: -r[1])[:SCHED_TOP]:
                w("      %8s  %s" % ("%.3f" % (h / ios) if ios else h, k))



def main():
    vm, jout = sys.argv[1], sys.argv[2]
    meta = {}
    if os.path.exists(os.path.join(vm, "meta.json")):
        meta = json.load(open(os.path.join(vm, "meta.json")))
    hz = meta.get("clk_tck", 100)
    recs = []
    for n, l in enumerate(open(os.path.join(vm, "results.jsonl")), 1):
        if not l.strip():
            continue
        try:
            recs.append(json.loads(l))
        except ValueError as e:
            print("bench-report: results.jsonl line %d skipped (%s): %s" % (n, e, l.strip()),
                  file=sys.stderr)

    # raw verbs limit (perftest): write latency is half a round trip, so
    # the QD1 limit of an IO is twice it, polled or not, read or write.
    rawv = {}
    for r in recs:
        if r["peer"] != "raw" or r["status"] != "ok":
            continue
        if r["job"] == "lat-4k":
            for p in ("lat", "wlat", "plat"):
                rawv.setdefault(p + "_mean_us", []).append(2 * r["lat_avg_us"])
                rawv.setdefault(p + "_p99_us", []).append(2 * r["lat_p99_us"])
        elif r["job"] == "bw-4096":
            rawv.setdefault("randread_iops", []).append(r["mpps"] * 1e6)
            rawv.setdefault("randwrite_iops", []).append(r["mpps"] * 1e6)
        elif r["job"] == "bw-131072":
            rawv.setdefault("seqread_MiBps", []).append(r["bw_MBps"])
            rawv.setdefault("seqwrite_MiBps", []).append(r["bw_MBps"])
    raw_na = sorted({r["status"] for r in recs if r["peer"] == "raw" and r["status"] != "ok"})
    raw = {f: mean(v) for f, v in rawv.items()}

    # per peer and figure: values over the repetitions, counters per IO,
    # and for the failover gap what else the job saw
    vals, vreps, na, cnt, fo = {}, {}, {}, {}, {}
    for r in recs:
        p = r["peer"]
        if p in ("raw", IDLE63):
            continue
        job = r["job"]
        figs = [f for f, d in FIGS.items() if d[0] == job]
        if r["status"] != "ok":
            for f in figs:
                na.setdefault((p, f), set()).add(r["status"])
            continue
        if job in ("failover", "mem-idle"):
            got, why = rec_figures(r)
            for f, v in got.items():
                vals.setdefault((p, f), []).append(v)
                vreps.setdefault((p, f), []).append(r["rep"])
            for f, v in why.items():
                na.setdefault((p, f), set()).add(v)
            if job == "failover":
                # The longest single IO: a request stuck on the dead
                # path shows here, not in the gap, while others complete.
                try:
                    fpath = os.path.join(vm, "fio", "%s-failover-r%d.json" % (p, r["rep"]))
                    s = open(fpath).read()
                    j = json.loads(s[s.index("{"):])["jobs"][0]
                    r = dict(r, max_io_ms=max(j[d]["clat_ns"]["max"] for d in ("read", "write"))
                             / 1e6)
                except (OSError, ValueError, KeyError, IndexError):
                    pass
                fo.setdefault(p, []).append(r)
            continue
        fpath = os.path.join(vm, "fio", "%s-%s-r%d.json" % (p, job, r["rep"]))
        try:
            got, ios = fio_figures(fpath, job)
        except (OSError, ValueError, KeyError, IndexError) as e:
            for f in figs:
                na.setdefault((p, f), set()).add("fio output unreadable: %s" % e)
            continue
        for f, v in got.items():
            vals.setdefault((p, f), []).append(v)
            vreps.setdefault((p, f), []).append(r["rep"])
            c = cnt.setdefault((p, f), {k: 0 for k in COUNTERS + ["ios", "cpu_busy", "ctxt"]})
            c["ios"] += ios
            for k in COUNTERS + ["cpu_busy", "ctxt"]:
                c[k] += r.get(k, 0)
            # Runs from before the guest counted context switches.
            if "ctxt" not in r:
                c["ctxt_missing"] = True

    def ratio(v, ref):
        return v / ref if v is not None and ref else None

    def fmt(x, spec="%.2f"):
        return spec % x if x is not None else "-"

    # The usual rows first, then optional peers (rift-dl) in the order run.
    seen = [r["peer"] for r in recs if r["peer"] not in ("raw", IDLE63)]
    peers = [p for p in PEERS if p in seen] + \
        [p for p in dict.fromkeys(seen) if p not in PEERS]
    res = {"meta": meta, "raw": raw, "raw_na": raw_na, "figures": {}}
    # The peer column: as wide as the longest name (rift-1p-alt, say).
    pw = max([8] + [len(p) for p in peers])
    out = []
    w = out.append
    w("Rift bench: %s, %s CPUs, %ss per fio job, %s repetitions (interleaved), "
      "null_blk %s, rxe active MTU %s" % (meta.get("kernel", "?"), meta.get("cpus", "?"),
                                          meta.get("runtime", "?"), meta.get("reps", "?"),
                                          meta.get("nullb", "?"), meta.get("rxe_mtu", "?")))
    # A run of rift-idle63 alone has no table of the usual figures.
    generic = bool(peers) or any(r["peer"] == "raw" for r in recs)
    if generic:
        generic_header(w, meta, vm)
    # The host's load per job, printed after the blocks; its figures
    # also go into the blocks' JSON.
    hlout = []
    hother = host_load(vm, recs, res, hlout.append) if generic else {}
    if raw_na:
        w("raw verbs limit n/a: %s" % "; ".join(raw_na))
    for f, (job, title, unit, _) in FIGS.items() if generic else ():
        w("")
        rawtxt = "%.1f" % raw[f] if raw.get(f) else "n/a"
        w("%s (%s)   raw limit: %s" % (title, unit, rawtxt))
        fiojob = job not in ("failover", "mem-idle")
        if fiojob:
            w("  %-8s %10s %21s %6s %6s %6s %6s %6s %6s %6s %7s %5s %5s %6s" %
              ("peer".ljust(pw), "value", "[min..max]", "/nvme", "/rnbd", "/raw", "ps", "rw", "cq", "pk",
               "cpu", "c/nv", "c/rn", "cs"))
        else:
            w("  %-8s %10s %21s %6s %6s %6s" %
              ("peer".ljust(pw), "value", "[min..max]", "/nvme", "/rnbd", "/raw"))
        fig = res["figures"].setdefault(f, {"title": title, "unit": unit, "raw": raw.get(f),
                                            "peers": {}})
        ref, refpeer = {}, {}
        for k, cands in REFS.items():
            for c in cands:
                if vals.get((c, f)):
                    ref[k], refpeer[k] = mean(vals[(c, f)]), c
                    break
        fig["ratio_to"] = refpeer

        def cpu_per_io(p):
            c = cnt.get((p, f))
            return c["cpu_busy"] * 1e6 / hz / c["ios"] if c and c["ios"] else None
        for p in peers:
            v = vals.get((p, f))
            if not v:
                why = "; ".join(sorted(na.get((p, f), {"not run"})))
                w("  %-8s %10s   %s" % (p.ljust(pw), "n/a", why))
                fig["peers"][p] = {"na": why}
                continue
            m = mean(v)
            rs = {"nvme": ratio(m, ref.get("nvme")), "rnbd": ratio(m, ref.get("rnbd")),
                  "raw": ratio(m, raw.get(f))}
            row = "  %-8s %10.1f %21s %6s %6s %6s" % (
                p.ljust(pw), m, "[%.1f..%.1f]" % (min(v), max(v)), fmt(rs["nvme"]), fmt(rs["rnbd"]),
                fmt(rs["raw"]))
            fig["peers"][p] = {"values": v, "reps": vreps[(p, f)], "mean": m, "min": min(v),
                               "max": max(v), "ratio_nvme": rs["nvme"],
                               "ratio_rnbd": rs["rnbd"], "ratio_raw": rs["raw"]}
            if job != "mem-idle" and hother:
                # Per repetition, as "values": % of the host's CPU time
                # used outside the VM during the job (None: not known).
                fig["peers"][p]["host_other_pct"] = [
                    100 * hother[(p, job, rp)] if hother.get((p, job, rp)) is not None
                    else None for rp in vreps[(p, f)]]
            if fiojob:
                c = cnt[(p, f)]
                per = {k: c[k] / c["ios"] if c["ios"] else None for k in COUNTERS}
                cpu = cpu_per_io(p)
                cr = {k: ratio(cpu, cpu_per_io(refpeer[k])) if k in refpeer else None
                      for k in REFS}
                cs = c["ctxt"] / c["ios"] if c["ios"] and "ctxt_missing" not in c else None
                row += " %6s %6s %6s %6s %7s %5s %5s %6s" % (
                    *[fmt(per[k], "%.1f") for k in COUNTERS], fmt(cpu, "%.0f"),
                    fmt(cr["nvme"]), fmt(cr["rnbd"]), fmt(cs, "%.1f"))
                fig["peers"][p].update({"per_io": per, "ios": c["ios"], "cpu_us_per_io": cpu,
                                        "cpu_ratio_nvme": cr["nvme"],
                                        "cpu_ratio_rnbd": cr["rnbd"], "cs_per_io": cs})
            elif f == "failover_gap_ms":
                rr = fo[p]
                errs = [x.get("fio_errors") for x in rr]
                lio = [x["max_io_ms"] for x in rr if "max_io_ms" in x]
                row += "   before: %.0f ms; IOs done while down: %s; longest IO %s ms; " \
                    "fio errors %s" % (
                        max(x["base_gap_ms"] for x in rr),
                        "/".join(str(x["ios_down"]) for x in rr),
                        "%.0f" % max(lio) if lio else "?",
                        "/".join(str(e) for e in errs))
                fig["peers"][p]["runs"] = rr
            elif f == "mem_idle_MiB":
                cl = [r["clt_pinned_kib"] for r in recs if r["peer"] == p and
                      r["job"] == "mem-idle" and "clt_pinned_kib" in r]
                if cl:
                    row += "   client's own count: %.2f MiB" % (mean(cl) / 1024)
            w(row)
            if len(v) < meta.get("reps", len(v)):
                fig["peers"][p]["missing_reps"] = sorted(na.get((p, f), []))
    if generic:
        w("")
        w("Failover: the link stays down %s s for every peer (each peer's own detection at its"
          % meta.get("fo_down_s", "?"))
        w("defaults); 'before' is the largest gap before it went down; no IO done while down")
        w("means the peer did not fail over at all; the longest IO shows a request held on the")
        w("dead path while others went on.")
        out.extend(hlout)
    if P99_FROM_CLAT:
        w("")
        w("p99 latency of %d fio jobs is clat's (their JSON predates lat_percentiles=1): "
          "the means are submission + completion, those p99s completion only."
          % len(P99_FROM_CLAT))
    res["alt"] = alt_report(vm, peers, vals, vreps, w)
    sched_report(vm, w)
    if any(r["peer"] == IDLE63 for r in recs):
        res["idle63"] = idle63_report(vm, recs, meta, w)
    w("TCG noise is +-30-50 %: compare ratios within one run, not absolute numbers "
      "across machines or boots.")
    print("\n".join(out))
    with open(jout, "w") as fh:
        json.dump(res, fh, indent=1)


if __name__ == "__main__":
    main()
