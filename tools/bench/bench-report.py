#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tabulate `make bench`: read what tools/bench/bench-guest.sh recorded
(results.jsonl, fio's JSON, perftest's output) and print one block per
figure, rows = peers, with each figure's ratio to nvme-rdma, to RNBD and to
the raw verbs limit, and the transport work per IO.  Writes the same as
JSON.  Numbers only: nothing here passes or fails.

usage: bench-report.py VMOUT JSONOUT
"""
import json
import os
import sys

PEERS = ["local", "rift-1p", "rift-2p", "rift-ai", "rift-fai", "nvme", "rnbd"]
# figure: (fio job, title, unit, higher is better)
FIGS = {
    "lat_mean_us": ("qd1-randread", "4k randread QD1, mean completion latency", "us", False),
    "lat_p99_us": ("qd1-randread", "4k randread QD1, p99 completion latency", "us", False),
    "randread_iops": ("qd32-randread", "4k randread QD32", "IOPS", True),
    "randwrite_iops": ("qd32-randwrite", "4k randwrite QD32", "IOPS", True),
    "seqread_MiBps": ("qd8-seqread", "128k sequential read QD8", "MiB/s", True),
}
COUNTERS = ["post_send", "post_recv", "cqe", "pkts"]


def fio_figures(path, job):
    j = json.load(open(path))["jobs"][0]
    r, w = j["read"], j["write"]
    d = w if job == "qd32-randwrite" else r
    figs = {}
    if job == "qd1-randread":
        figs["lat_mean_us"] = d["clat_ns"]["mean"] / 1e3
        figs["lat_p99_us"] = d["clat_ns"].get("percentile", {}).get("99.000000", 0) / 1e3
    elif job == "qd8-seqread":
        figs["seqread_MiBps"] = d["bw_bytes"] / 2**20
    else:
        figs[job.split("-")[1] + "_iops"] = d["iops"]
    return figs, r["total_ios"] + w["total_ios"]


def mean(v):
    return sum(v) / len(v) if v else None


def main():
    vm, jout = sys.argv[1], sys.argv[2]
    meta = {}
    if os.path.exists(os.path.join(vm, "meta.json")):
        meta = json.load(open(os.path.join(vm, "meta.json")))
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
    # the QD1 limit of a read is twice it.
    rawv = {}
    for r in recs:
        if r["peer"] != "raw" or r["status"] != "ok":
            continue
        if r["job"] == "lat-4k":
            rawv.setdefault("lat_mean_us", []).append(2 * r["lat_avg_us"])
            rawv.setdefault("lat_p99_us", []).append(2 * r["lat_p99_us"])
        elif r["job"] == "bw-4096":
            rawv.setdefault("randread_iops", []).append(r["mpps"] * 1e6)
            rawv.setdefault("randwrite_iops", []).append(r["mpps"] * 1e6)
        elif r["job"] == "bw-131072":
            rawv.setdefault("seqread_MiBps", []).append(r["bw_MBps"])
    raw_na = sorted({r["status"] for r in recs if r["peer"] == "raw" and r["status"] != "ok"})
    raw = {f: mean(v) for f, v in rawv.items()}

    # per peer and figure: values over the repetitions, counters per IO
    vals, na, cnt = {}, {}, {}
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
        fpath = os.path.join(vm, "fio", "%s-%s-r%d.json" % (p, job, r["rep"]))
        try:
            got, ios = fio_figures(fpath, job)
        except (OSError, ValueError, KeyError, IndexError) as e:
            for f in figs:
                na.setdefault((p, f), set()).add("fio output unreadable: %s" % e)
            continue
        for f, v in got.items():
            vals.setdefault((p, f), []).append(v)
            c = cnt.setdefault((p, f), {k: 0 for k in COUNTERS + ["ios"]})
            c["ios"] += ios
            for k in COUNTERS:
                c[k] += r.get(k, 0)

    def ratio(v, ref):
        return v / ref if v is not None and ref else None

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
    w("nvme-rdma's, RNBD's and the raw verbs limit's (latency: >1 is slower; IOPS, MiB/s: >1 is")
    w("faster).  Per IO, both ends of the VM together: ps = ib_post_send calls, rw = receive")
    w("WRs posted, cq = completions (CQEs), pk = rxe packets sent (ACKs included).")
    if raw_na:
        w("raw verbs limit n/a: %s" % "; ".join(raw_na))
    for f, (job, title, unit, _) in FIGS.items():
        w("")
        rawtxt = "%.1f" % raw[f] if raw.get(f) else "n/a"
        w("%s (%s)   raw limit: %s" % (title, unit, rawtxt))
        w("  %-8s %10s %21s %6s %6s %6s %6s %6s %6s %6s" %
          ("peer", "value", "[min..max]", "/nvme", "/rnbd", "/raw", "ps", "rw", "cq", "pk"))
        fig = res["figures"].setdefault(f, {"title": title, "unit": unit, "raw": raw.get(f), "peers": {}})
        nv, rn = mean(vals.get(("nvme", f), [])), mean(vals.get(("rnbd", f), []))
        for p in peers:
            v = vals.get((p, f))
            if not v:
                why = "; ".join(sorted(na.get((p, f), {"not run"})))
                w("  %-8s %10s   %s" % (p, "n/a", why))
                fig["peers"][p] = {"na": why}
                continue
            m = mean(v)
            c = cnt[(p, f)]
            per = {k: c[k] / c["ios"] if c["ios"] else None for k in COUNTERS}
            rs = {"nvme": ratio(m, nv), "rnbd": ratio(m, rn), "raw": ratio(m, raw.get(f))}

            def fmt(x, spec="%.2f"):
                return spec % x if x is not None else "-"
            w("  %-8s %10.1f %21s %6s %6s %6s %6s %6s %6s %6s" % (
                p, m, "[%.1f..%.1f]" % (min(v), max(v)), fmt(rs["nvme"]), fmt(rs["rnbd"]),
                fmt(rs["raw"]), *[fmt(per[k], "%.1f") for k in COUNTERS]))
            fig["peers"][p] = {"values": v, "mean": m, "min": min(v), "max": max(v),
                               "ratio_nvme": rs["nvme"], "ratio_rnbd": rs["rnbd"],
                               "ratio_raw": rs["raw"], "per_io": per, "ios": c["ios"]}
            if len(v) < meta.get("reps", len(v)):
                fig["peers"][p]["missing_reps"] = sorted(na.get((p, f), []))
    w("")
    w("TCG noise is +-30-50 %: compare ratios within one run, not absolute numbers "
      "across machines or boots.")
    print("\n".join(out))
    with open(jout, "w") as fh:
        json.dump(res, fh, indent=1)


if __name__ == "__main__":
    main()
