#!/usr/bin/env python3
"""Per run of captures/: IOPS, then CPU us and wake-ups per I/O of the client's threads
(fio, io_context_pool, msgr-worker) and of the OSDs' (tp_osd_tp, msgr-worker,
bstore_aio, bstore_kv_sync, OpHistorySvc), from each run's threads.json (client_threads.py)."""
import json, os, sys
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "captures")
CL = ["fio", "io_context_pool", "msgr-worker"]
OS = ["tp_osd_tp", "msgr-worker", "bstore_aio", "bstore_kv_sync", "OpHistorySvc"]
print("| run | IOPS | " + " | ".join("client " + k for k in CL) + " | " + " | ".join("osd " + k for k in OS) + " |")
print("|---|---:|" + "---:|" * (len(CL) + len(OS)))
for run in sorted(os.listdir(here)):
    t = json.load(open(os.path.join(here, run, "threads.json")))
    ios = t["ios"]; w = t["window_s"]
    def cell(side, k):
        v = t[side].get(k)
        return "%.1f / %.2f" % (v[1] / 1e3 / ios, v[2] / ios) if v else "-"
    print("| %s | %.0f | %s | %s |" % (run, ios / (w[1] - w[0]), " | ".join(cell("fio", k) for k in CL),
                                       " | ".join(cell("osd", k) for k in OS)))
