#!/usr/bin/env python3
"""cpu_snap.py PIDFILE -> JSON on stdout: wall time, /proc/stat cpu totals and
utime+stime (clock ticks) of each daemon recorded in the minicluster pidfile,
and per thread of each daemon ("threads": {tid: [comm, cpu_ns, sleeps,
preemptions]}): CPU time in ns from /proc/PID/task/TID/schedstat and the
voluntary / nonvoluntary context switches from .../status.  A voluntary
switch is the thread going to sleep (futex, epoll_wait, io_getevents) and
being woken again: what cephsim counts as a thread wake-up, so the pair
before/after a run gives each Ceph thread's CPU and wake-ups per op."""
import json
import os
import sys
import time


def proc_ticks(pid):
    try:
        with open("/proc/%s/stat" % pid) as f:
            s = f.read()
    except OSError:
        return None
    rest = s[s.rindex(")") + 2:].split()
    # fields after ')' start at field 3 (state); utime=14, stime=15
    return int(rest[11]) + int(rest[12])


def thread_facts(pid):
    """{tid: [comm, cpu_ns, voluntary, nonvoluntary]} of every thread of pid"""
    out = {}
    try:
        tids = os.listdir("/proc/%s/task" % pid)
    except OSError:
        return out
    for tid in tids:
        base = "/proc/%s/task/%s/" % (pid, tid)
        try:
            with open(base + "comm") as f:
                comm = f.read().strip()
            with open(base + "schedstat") as f:
                cpu_ns = int(f.read().split()[0])
            vol = nonvol = 0
            with open(base + "status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        vol = int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        nonvol = int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue   # the thread exited between listdir and open
        out[tid] = [comm, cpu_ns, vol, nonvol]
    return out


def main():
    pidfile = sys.argv[1]
    out = {"time": time.time(), "clk_tck": os.sysconf("SC_CLK_TCK"),
           "ncpu": os.cpu_count(), "daemons": {}}
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu "):
                v = [int(x) for x in line.split()[1:]]
                out["proc_stat_cpu"] = dict(zip(
                    ["user", "nice", "system", "idle", "iowait", "irq",
                     "softirq", "steal", "guest", "guest_nice"], v))
                break
    mine = set()
    with open(pidfile) as f:
        for line in f:
            name, pid = line.split()
            mine.add(pid)
            out["daemons"][name] = proc_ticks(pid)
            out.setdefault("threads", {})[name] = thread_facts(pid)
    # every other process: pid -> [comm, ticks]  (to measure foreign CPU load
    # from processes that are not part of this lab, e.g. another job sharing
    # the machine; children's ticks of long-lived processes are included)
    others = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or pid in mine or pid == str(os.getpid()):
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                s = f.read()
        except OSError:
            continue
        comm = s[s.index("(") + 1:s.rindex(")")]
        rest = s[s.rindex(")") + 2:].split()
        others[pid] = [comm, int(rest[11]) + int(rest[12])]
    out["others"] = others
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
