#!/usr/bin/env python3
"""Tabulate BlueStore deferred-write counters of the lab6 captures (per run, summed
over the OSDs) and their mean / spread over repetitions.  usage: tabulate.py [CAPDIR]"""
import glob, json, os, statistics as st, sys

cap = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "captures")
C = ["deferred_write_ops", "deferred_write_bytes", "bluestore_txc", "bluestore_write_small",
     "bluestore_write_big", "bluestore_write_big_deferred", "bluestore_write_deferred"]
A = ["state_deferred_aio_wait_lat", "kv_commit_lat"]   # avgcount of these

def run(d):
    fio = json.load(open(os.path.join(d, "fio.json")))["jobs"][0]["write"]
    s = dict.fromkeys(C + A, 0)
    for p in sorted(glob.glob(os.path.join(d, "osd.*.perf.json"))):
        b = json.load(open(p))["bluestore"]
        for k in C: s[k] += b[k]
        for k in A: s[k] += b[k]["avgcount"]
    s["fio_iops"] = fio["iops"]
    s["fio_ios"] = fio["total_ios"]
    s["ops_per_defw"] = s["deferred_write_ops"] / s["bluestore_write_deferred"]
    s["ops_per_deftxc"] = s["deferred_write_ops"] / s["state_deferred_aio_wait_lat"]
    s["bytes_per_op"] = s["deferred_write_bytes"] / s["deferred_write_ops"]
    s["txc_per_kvcommit"] = s["bluestore_txc"] / s["kv_commit_lat"]
    return s

cols = [("fio_iops", "fio write IOPS", "%.1f"), ("deferred_write_ops", "deferred_write_ops", "%d"),
        ("deferred_write_bytes", "deferred_write_bytes", "%d"), ("bluestore_txc", "bluestore_txc", "%d"),
        ("bluestore_write_small", "write_small", "%d"), ("bluestore_write_big", "write_big", "%d"),
        ("bluestore_write_big_deferred", "write_big_deferred", "%d"),
        ("bluestore_write_deferred", "write_deferred (deferred writes)", "%d"),
        ("state_deferred_aio_wait_lat", "deferred txcs done", "%d"),
        ("ops_per_defw", "deferred_write_ops / write_deferred", "%.4f"),
        ("ops_per_deftxc", "deferred_write_ops / deferred txcs done", "%.4f"),
        ("bytes_per_op", "bytes per deferred_write_op", "%.0f"),
        ("kv_commit_lat", "kv commits", "%d"), ("txc_per_kvcommit", "txc per kv commit", "%.2f")]
runs = sorted(d for d in glob.glob(os.path.join(cap, "*_r[0-9]*")) if os.path.isdir(d))
groups = {}
for d in runs:
    groups.setdefault(os.path.basename(d).rsplit("_r", 1)[0], []).append((os.path.basename(d), run(d)))
print("| run | " + " | ".join(c[1] for c in cols) + " |")
print("|---|" + "---|" * len(cols))
for g, rs in groups.items():
    for name, s in rs:
        print("| %s | " % name + " | ".join(f % s[k] for k, _, f in cols) + " |")
    for lab, fn in (("mean", st.mean), ("stdev", st.stdev), ("min", min), ("max", max)):
        if lab == "stdev" and len(rs) < 2: continue
        print("| **%s %s** | " % (g, lab) + " | ".join(f % fn([s[k] for _, s in rs]) for k, _, f in cols) + " |")
