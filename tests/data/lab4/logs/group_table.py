#!/usr/bin/env python3
"""group_table.py LAB4_CAPTURES LAB2_CAPTURES -> markdown table on stdout.

One row per (label, workload, rbd_io_scheduler, SCHED_RR) group and fio direction of
LAB4_CAPTURES: IOPS and fio clat mean per rep, mean, spread = (max-min)/mean, clat p50/p99
per rep, 1-min loadavg at start, CPU steal %, busy % and foreign nice>0 % over the run (cpu_before/after.json), the
BlueStore buffer-cache hit ratio of reads (osd.N.perf.json, all OSDs; '?' = under 64 MiB read, e.g. a write run's metadata), and the
same group's mean and spread in LAB2_CAPTURES (lab2 ran at nice -10 where lab4 ran at -20)."""
import json
import os
import re
import sys


def load_runs(root):
    groups = {}
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        m = re.match(r"(.+)_r(\d+)$", name)
        if not m or not os.path.isfile(os.path.join(d, "meta.json")):  # meta.json: run complete
            continue
        with open(os.path.join(d, "fio.json")) as f:
            job = json.load(f)["jobs"][0]
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        steal = None
        try:
            with open(os.path.join(d, "cpu_before.json")) as f:
                a = json.load(f)["proc_stat_cpu"]
            with open(os.path.join(d, "cpu_after.json")) as f:
                b = json.load(f)["proc_stat_cpu"]
            tot = sum(b[k] - a[k] for k in a if k not in ("guest", "guest_nice"))
            steal = 100.0 * (b["steal"] - a["steal"]) / max(1, tot)
            busy = 100.0 - 100.0 * (b["idle"] + b["iowait"] - a["idle"] - a["iowait"]) / max(1, tot)
            # /proc/stat "nice" = CPU time of tasks with nice > 0: the lab runs at nice <= 0
            # (or SCHED_RR), so this is the foreign (nice 19) load during the run
            fnice = 100.0 * (b["nice"] - a["nice"]) / max(1, tot)
        except (OSError, KeyError):
            busy = fnice = None
        hit = miss = 0
        for o in sorted(os.listdir(d)):
            if o.endswith(".perf.json"):
                with open(os.path.join(d, o)) as f:
                    bs = json.load(f).get("bluestore", {})
                hit += bs.get("bluestore_buffer_hit_bytes", 0)
                miss += bs.get("bluestore_buffer_miss_bytes", 0)
        # BlueStore buffer-cache hit ratio of the run's reads, all OSDs (perf reset before the run)
        # (only when the run read >= 64 MiB: a write run's few metadata reads say nothing)
        hitpct = 100.0 * hit / (hit + miss) if hit + miss >= 64 << 20 else None
        for dirn in ("read", "write"):
            s = job[dirn]
            if s["total_ios"] == 0:
                continue
            c = s["clat_ns"]
            pct = c.get("percentile", {})
            groups.setdefault((m.group(1), dirn), []).append({
                "rep": int(m.group(2)), "iops": s["iops"], "clat": c["mean"] / 1e3,
                "p50": pct.get("50.000000", 0) / 1e3, "p99": pct.get("99.000000", 0) / 1e3,
                "load": float(meta["loadavg_start"].split()[0]), "steal": steal, "busy": busy, "fnice": fnice, "hit": hitpct, "t": meta["t_start"],
                "nice": meta.get("nice"), "rr": meta.get("sched_rr")})
    return groups


def spread(v):
    m = sum(v) / len(v)
    return m, (max(v) - min(v)) / m if m else 0.0


def lab2_key(key):
    # lab2's non-RT runs have the same names; nice differs (-10 there)
    return key


def main():
    lab4, lab2 = load_runs(sys.argv[1]), load_runs(sys.argv[2])
    print("| group | dir | reps | IOPS per rep | IOPS mean | IOPS spread | lab2 IOPS mean (spread) "
          "| clat mean us per rep | clat mean | clat spread | lab2 clat mean (spread) "
          "| clat p50 us per rep | clat p99 us per rep | load1 start per rep | steal % | busy % | foreign nice>0 CPU % | BlueStore read hit % |")
    print("|" + "---|" * 18)
    for key in sorted(lab4):
        runs = sorted(lab4[key], key=lambda r: r["rep"])
        im, isp = spread([r["iops"] for r in runs])
        cm, csp = spread([r["clat"] for r in runs])
        l2 = lab2.get(lab2_key(key))
        if l2:
            l2i, l2is = spread([r["iops"] for r in l2])
            l2c, l2cs = spread([r["clat"] for r in l2])
            l2i_s = "%.0f (%.0f%%)" % (l2i, 100 * l2is)
            l2c_s = "%.0f (%.0f%%)" % (l2c, 100 * l2cs)
        else:
            l2i_s = l2c_s = "-"
        j = lambda f, k: " / ".join(f % r[k] if r[k] is not None else "?" for r in runs)
        print("| `%s` | %s | %d | %s | %.0f | %.1f%% | %s | %s | %.0f | %.1f%% | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            key[0], key[1], len(runs), j("%.0f", "iops"), im, 100 * isp, l2i_s,
            j("%.0f", "clat"), cm, 100 * csp, l2c_s, j("%.0f", "p50"), j("%.0f", "p99"),
            j("%.2f", "load"), j("%.2f", "steal"), j("%.0f", "busy"), j("%.0f", "fnice"), j("%.0f", "hit")))


if __name__ == "__main__":
    main()
