#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tabulate `make bench`: read what tools/bench/bench-guest.sh recorded
(results.jsonl, fio's JSON, perftest's output) and print one block per
figure, rows = peers, with each figure's ratio to nvme-rdma, to RNBD and to
the raw verbs limit, and the transport work and guest CPU time per IO.
Writes the same as JSON.  Numbers only: nothing here passes or fails.

usage: bench-report.py VMOUT JSONOUT
"""
import json
import os
import sys

PEERS = ["local", "rift-1p", "rift-2p", "rift-ai", "rift-fai", "nvme", "nvme-mp",
         "rnbd", "rnbd-2p"]
# The peers a ratio divides by: the one-link peer, else (for a figure only
# two-link peers have: the failover gap) its two-link configuration.
REFS = {"nvme": ["nvme", "nvme-mp"], "rnbd": ["rnbd", "rnbd-2p"]}
# figure: (job, title, unit, higher is better)
FIGS = {
    "lat_mean_us": ("qd1-randread", "4k randread QD1, mean completion latency", "us", False),
    "lat_p99_us": ("qd1-randread", "4k randread QD1, p99 completion latency", "us", False),
    "wlat_mean_us": ("qd1-randwrite", "4k randwrite QD1, mean completion latency", "us", False),
    "wlat_p99_us": ("qd1-randwrite", "4k randwrite QD1, p99 completion latency", "us", False),
    "randread_iops": ("qd32-randread", "4k randread QD32", "IOPS", True),
    "randwrite_iops": ("qd32-randwrite", "4k randwrite QD32", "IOPS", True),
    "seqread_MiBps": ("qd8-seqread", "128k sequential read QD8", "MiB/s", True),
    "seqwrite_MiBps": ("qd8-seqwrite", "128k sequential write QD8", "MiB/s", True),
    "plat_mean_us": ("qd1-polled", "4k randread QD1 polled (io_uring hipri, poll queues), "
                     "mean completion latency", "us", False),
    "plat_p99_us": ("qd1-polled", "4k randread QD1 polled (io_uring hipri, poll queues), "
                    "p99 completion latency", "us", False),
    "failover_gap_ms": ("failover", "failover gap: largest gap between completions once one of "
                        "two links went down, QD16 verified randwrite", "ms", False),
    "mem_idle_MiB": ("mem-idle", "memory one idle mapped session takes, whole VM (client and "
                     "server ends), not free nor page cache", "MiB", False),
    "srv_pinned_MiB": ("mem-idle", "server memory pinned per idle session, by the server's "
                       "own count", "MiB", False),
}
COUNTERS = ["post_send", "post_recv", "cqe", "pkts"]
WRITE_JOBS = ("qd1-randwrite", "qd32-randwrite", "qd8-seqwrite")
LAT_PREFIX = {"qd1-randread": "lat", "qd1-randwrite": "wlat", "qd1-polled": "plat"}


def fio_figures(path, job):
    s = open(path).read()
    j = json.loads(s[s.index("{"):])["jobs"][0]
    r, w = j["read"], j["write"]
    d = w if job in WRITE_JOBS else r
    figs = {}
    if job in LAT_PREFIX:
        p = LAT_PREFIX[job]
        figs[p + "_mean_us"] = d["clat_ns"]["mean"] / 1e3
        figs[p + "_p99_us"] = d["clat_ns"].get("percentile", {}).get("99.000000", 0) / 1e3
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
    vals, na, cnt, fo = {}, {}, {}, {}
    for r in recs:
        p = r["peer"]
        if p == "raw":
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
            c = cnt.setdefault((p, f), {k: 0 for k in COUNTERS + ["ios", "cpu_busy"]})
            c["ios"] += ios
            for k in COUNTERS + ["cpu_busy"]:
                c[k] += r.get(k, 0)

    def ratio(v, ref):
        return v / ref if v is not None and ref else None

    def fmt(x, spec="%.2f"):
        return spec % x if x is not None else "-"

    # The usual rows first, then optional peers (rift-dl) in the order run.
    seen = [r["peer"] for r in recs if r["peer"] != "raw"]
    peers = [p for p in PEERS if p in seen] + \
        [p for p in dict.fromkeys(seen) if p not in PEERS]
    res = {"meta": meta, "raw": raw, "raw_na": raw_na, "figures": {}}
    out = []
    w = out.append
    w("Rift bench: %s, %s CPUs, %ss per fio job, %s repetitions (interleaved), "
      "null_blk %s, rxe active MTU %s" % (meta.get("kernel", "?"), meta.get("cpus", "?"),
                                          meta.get("runtime", "?"), meta.get("reps", "?"),
                                          meta.get("nullb", "?"), meta.get("rxe_mtu", "?")))
    w("Value = mean over the repetitions [min..max]; /nvme, /rnbd, /raw = value divided by")
    w("nvme-rdma's, RNBD's and the raw verbs limit's (latency, gap, memory, CPU: >1 is more;")
    w("IOPS, MiB/s: >1 is faster).  /nvme and /rnbd divide by the one-link peer (nvme, rnbd),")
    w("for the failover gap by its two-link one (nvme-mp: native multipath, rnbd-2p).")
    w("Per IO, both ends of the VM together: ps = ib_post_send calls, rw = receive WRs posted,")
    w("cq = completions (CQEs), pk = rxe packets sent (ACKs included); cpu = the VM's busy CPU")
    w("time (/proc/stat: user+nice+system+irq+softirq+steal, all CPUs) over the job divided")
    w("by the IOs fio completed, us; c/nv, c/rn = cpu divided by nvme's, rnbd's.  The idle VM")
    w("(the bench's shell) keeps %s%% of its CPU time busy; that is in every cpu figure."
      % meta.get("idle_busy_pct", "?"))
    if raw_na:
        w("raw verbs limit n/a: %s" % "; ".join(raw_na))
    for f, (job, title, unit, _) in FIGS.items():
        w("")
        rawtxt = "%.1f" % raw[f] if raw.get(f) else "n/a"
        w("%s (%s)   raw limit: %s" % (title, unit, rawtxt))
        fiojob = job not in ("failover", "mem-idle")
        if fiojob:
            w("  %-8s %10s %21s %6s %6s %6s %6s %6s %6s %6s %7s %5s %5s" %
              ("peer", "value", "[min..max]", "/nvme", "/rnbd", "/raw", "ps", "rw", "cq", "pk",
               "cpu", "c/nv", "c/rn"))
        else:
            w("  %-8s %10s %21s %6s %6s %6s" %
              ("peer", "value", "[min..max]", "/nvme", "/rnbd", "/raw"))
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
                w("  %-8s %10s   %s" % (p, "n/a", why))
                fig["peers"][p] = {"na": why}
                continue
            m = mean(v)
            rs = {"nvme": ratio(m, ref.get("nvme")), "rnbd": ratio(m, ref.get("rnbd")),
                  "raw": ratio(m, raw.get(f))}
            row = "  %-8s %10.1f %21s %6s %6s %6s" % (
                p, m, "[%.1f..%.1f]" % (min(v), max(v)), fmt(rs["nvme"]), fmt(rs["rnbd"]),
                fmt(rs["raw"]))
            fig["peers"][p] = {"values": v, "mean": m, "min": min(v), "max": max(v),
                               "ratio_nvme": rs["nvme"], "ratio_rnbd": rs["rnbd"],
                               "ratio_raw": rs["raw"]}
            if fiojob:
                c = cnt[(p, f)]
                per = {k: c[k] / c["ios"] if c["ios"] else None for k in COUNTERS}
                cpu = cpu_per_io(p)
                cr = {k: ratio(cpu, cpu_per_io(refpeer[k])) if k in refpeer else None
                      for k in REFS}
                row += " %6s %6s %6s %6s %7s %5s %5s" % (
                    *[fmt(per[k], "%.1f") for k in COUNTERS], fmt(cpu, "%.0f"),
                    fmt(cr["nvme"]), fmt(cr["rnbd"]))
                fig["peers"][p].update({"per_io": per, "ios": c["ios"], "cpu_us_per_io": cpu,
                                        "cpu_ratio_nvme": cr["nvme"],
                                        "cpu_ratio_rnbd": cr["rnbd"]})
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
    w("")
    w("Failover: the link stays down %s s for every peer (each peer's own detection at its"
      % meta.get("fo_down_s", "?"))
    w("defaults); 'before' is the largest gap before it went down; no IO done while down")
    w("means the peer did not fail over at all; the longest IO shows a request held on the")
    w("dead path while others went on.")
    w("TCG noise is +-30-50 %: compare ratios within one run, not absolute numbers "
      "across machines or boots.")
    print("\n".join(out))
    with open(jout, "w") as fh:
        json.dump(res, fh, indent=1)


if __name__ == "__main__":
    main()
