#!/usr/bin/env python3
"""threads.py RUNDIR... -> per run, each OSD thread kind's CPU and wake-ups per
client op, from the run's cpu_before.json / cpu_after.json (cpu_snap.py's
per-thread schedstat CPU and voluntary context switches) and fio.json's I/O
count; --json prints them as JSON (what `cephsim validate --threads` compares
with the model's sim.json summary osd_threads_per_op).

A thread kind is the comm without its trailing number (msgr-worker-1 ->
msgr-worker, rocksdb:low0 -> rocksdb:low), summed over the lab's OSDs
(osd.N in the pidfile).  A voluntary switch is a sleep, woken later: cephsim's
thread wake-up."""
import json
import os
import re
import sys


def kind(comm):
    return re.sub(r"[-]?\d+$", "", comm)


def fio_ios(run):
    with open(os.path.join(run, "fio.json")) as f:
        j = json.load(f)
    n = 0
    for job in j["jobs"]:
        for d in ("read", "write"):
            n += job[d]["total_ios"]
    return n


def run_threads(run):
    with open(os.path.join(run, "cpu_before.json")) as f:
        a = json.load(f)
    with open(os.path.join(run, "cpu_after.json")) as f:
        b = json.load(f)
    if "threads" not in a or "threads" not in b:
        return None
    ios = fio_ios(run)
    out = {}
    for daemon, tb in b["threads"].items():
        if not daemon.startswith("osd."):
            continue
        ta = a["threads"].get(daemon, {})
        for tid, (comm, cpu_ns, vol, nonvol) in tb.items():
            c0, v0, n0 = (ta[tid][1], ta[tid][2], ta[tid][3]) if tid in ta else (0, 0, 0)
            k = out.setdefault(kind(comm), {"threads": 0, "cpu_us": 0.0, "wakeups": 0.0, "preempted": 0.0})
            k["threads"] += 1
            k["cpu_us"] += (cpu_ns - c0) / 1e3
            k["wakeups"] += vol - v0
            k["preempted"] += nonvol - n0
    for k in out.values():
        for f in ("cpu_us", "wakeups", "preempted"):
            k[f] = k[f] / ios if ios else 0.0
    return {"ios": ios, "threads": out}


def main():
    args = [x for x in sys.argv[1:] if x != "--json"]
    res = {}
    for run in args:
        t = run_threads(run)
        if t is None:
            print("%s: no per-thread figures (cpu_snap.py before the threads field)" % run, file=sys.stderr)
            continue
        res[os.path.basename(run.rstrip("/"))] = t
    if "--json" in sys.argv:
        json.dump(res, sys.stdout, indent=1, sort_keys=True)
        print()
        return
    for name, t in res.items():
        busy = sorted(t["threads"].items(), key=lambda kv: -kv[1]["cpu_us"])
        print("%s (%d I/Os)" % (name, t["ios"]))
        for k, v in busy:
            if v["cpu_us"] < 0.5 and v["wakeups"] < 0.01:
                continue
            print("  %-18s %3d threads  %8.1f us CPU  %6.2f wake-ups  %5.2f preempted per op"
                  % (k, v["threads"], v["cpu_us"], v["wakeups"], v["preempted"]))


if __name__ == "__main__":
    main()
