#!/usr/bin/env python3
"""snap.py PID OUT.json -> every thread of PID: comm, schedstat (cpu ns, runqueue wait ns, timeslices),
voluntary / nonvoluntary ctxt switches, plus wall time."""
import json, os, sys, time
pid, out = sys.argv[1], sys.argv[2]
res = {"time": time.time(), "threads": {}}
for tid in os.listdir("/proc/%s/task" % pid):
    b = "/proc/%s/task/%s/" % (pid, tid)
    try:
        comm = open(b + "comm").read().strip()
        ss = [int(x) for x in open(b + "schedstat").read().split()]
        vol = nv = 0
        for line in open(b + "status"):
            if line.startswith("voluntary_ctxt_switches:"): vol = int(line.split()[1])
            elif line.startswith("nonvoluntary_ctxt_switches:"): nv = int(line.split()[1])
        st = open(b + "stat").read(); rest = st[st.rindex(")") + 2:].split()
        res["threads"][tid] = {"comm": comm, "cpu_ns": ss[0], "wait_ns": ss[1], "slices": ss[2],
                               "vol": vol, "nonvol": nv, "utime": int(rest[11]), "stime": int(rest[12])}
    except (OSError, ValueError, IndexError):
        pass
with open("/proc/stat") as f:
    res["proc_stat_cpu"] = [int(x) for x in f.readline().split()[1:]]
json.dump(res, open(out, "w"), indent=1)
