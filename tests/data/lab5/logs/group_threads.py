#!/usr/bin/env python3
"""group_threads.py CAPTURES: lab5's per-group table (mean over reps) of the OSD
threads' CPU and wake-ups per fio I/O (tests/lab/threads.py per run), and the
least-squares line CPU/op = W + w x wake-ups/op over the write groups."""
import collections
import glob
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
caps = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "captures")
runs = sorted(glob.glob(os.path.join(caps, "*_r[0-9]")))
res = json.loads(subprocess.check_output(
    [sys.executable, os.path.join(here, "..", "..", "..", "lab", "threads.py"), "--json"] + runs))
groups = collections.defaultdict(list)
for k, v in res.items():
    groups[k.rsplit("_r", 1)[0]].append(v)
kinds = ["tp_osd_tp", "msgr-worker", "bstore_kv_sync", "bstore_aio", "bstore_kv_final", "OpHistorySvc"]
print("| group | reps | IOPS | OSD CPU us/op | wake-ups/op | " + " | ".join(kinds) + " |")
print("|---|---|---|---|---|" + "---|" * len(kinds))
pts = []
for g in sorted(groups, key=lambda g: (g.split("_")[1][:5], int(g.split("qd")[1].split("_")[0]))):
    L = groups[g]
    n = len(L)
    cpu = sum(sum(t["cpu_us"] for t in x["threads"].values()) for x in L) / n
    wk = sum(sum(t["wakeups"] for t in x["threads"].values()) for x in L) / n
    iops = sum(x["ios"] for x in L) / n / 20.0
    cells = []
    for k in kinds:
        c = sum(x["threads"].get(k, {"cpu_us": 0})["cpu_us"] for x in L) / n
        w = sum(x["threads"].get(k, {"wakeups": 0})["wakeups"] for x in L) / n
        cells.append("%.0f / %.1f" % (c, w))
    print("| %s | %d | %.0f | %.0f | %.1f | %s |" % (g.replace("noparent_", "").replace("_sched-none", ""), n,
                                                     iops, cpu, wk, " | ".join(cells)))
    if "randw" in g:
        pts.append((wk, cpu))
n = len(pts)
mx = sum(p[0] for p in pts) / n
my = sum(p[1] for p in pts) / n
w = sum((p[0] - mx) * (p[1] - my) for p in pts) / sum((p[0] - mx) ** 2 for p in pts)
W = my - w * mx
print()
print("write groups: CPU/op = %.0f + %.1f x wake-ups/op; residuals %s" % (
    W, w, ", ".join("%+.1f %%" % (100 * (W + w * x - y) / y) for x, y in pts)))
