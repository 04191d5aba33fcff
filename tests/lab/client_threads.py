#!/usr/bin/env python3
"""client_threads.py OUTDIR RUN_NAME FIO_ARGS... -> the librbd client's and the
OSDs' CPU and wake-ups per I/O, per thread kind, in a steady window of one fio run.

fio (ioengine=rbd) is started with FIO_ARGS plus an IOPS log averaged over 1 s;
at --from and --to seconds (default 5 and runtime - 2) every thread of the fio
process and of the lab's daemons ($CEPHLAB_DIR/pids) is read as cpu_snap.py
reads them (/proc/PID/task/TID/schedstat CPU ns, voluntary context switches =
sleeps woken later, cephsim's thread wake-ups).  The I/Os in that window come
from fio's IOPS log (one line per second per direction).  Writes
OUTDIR/RUN_NAME/{fio.json, fio_cmd.txt, threads.json, iops logs}; prints per
thread kind (comm without its trailing number, fio's threads apart):

  side    kind               threads  cpu_us/io  wakeups/io

The fio process's threads are the librbd client: fio (the job thread, which
calls rbd_aio_*), io_context_pool (librbd's asio io_context: the image and
object dispatch layers, Objecter::op_submit, completions), msgr-worker-N (the
client's AsyncMessenger), taskfin_librbd, safe_timer, ... Knobs:
  --from S --to S    the window (s from fio's start)
Run from tests/lab with the minicluster's environment (eval "$(./minicluster.sh env)").
"""
import glob
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_snap import thread_facts  # noqa: E402


def kind(comm):
    return re.sub(r"[-]?\d+$", "", comm)


def daemons():
    lab = os.environ.get("CEPHLAB_DIR", "/var/tmp/cephlab")
    out = []
    try:
        with open(os.path.join(lab, "pids")) as f:
            for line in f:
                name, pid = line.split()[:2]
                if name.startswith("osd"):
                    out.append((name, pid))
    except OSError:
        pass
    return out


def snap(fio_pid, osds):
    return {"time": time.time(), "fio": thread_facts(fio_pid),
            "osd": {name: thread_facts(pid) for name, pid in osds}}


def per_kind(a, b):
    """{kind: [threads, cpu_ns, sleeps]} of the threads present in both snapshots"""
    out = {}
    for tid, (comm, cpu, vol, _nv) in b.items():
        if tid not in a:
            continue
        k = kind(comm)
        e = out.setdefault(k, [0, 0, 0])
        e[0] += 1
        e[1] += cpu - a[tid][1]
        e[2] += vol - a[tid][2]
    return out


def ios_in_window(prefix, t_from, t_to):
    """I/Os fio's 1 s IOPS logs count between t_from and t_to (s from start)"""
    n = 0.0
    for path in glob.glob(prefix + "_iops*.log"):
        with open(path) as f:
            for line in f:
                parts = [p.strip() for p in line.split(",")]
                if len(parts) < 2:
                    continue
                t_ms, iops = int(parts[0]), float(parts[1])
                # each line is the second ending at t_ms
                lo, hi = max(t_ms / 1000.0 - 1, t_from), min(t_ms / 1000.0, t_to)
                if hi > lo:
                    n += iops * (hi - lo)
    return n


def main():
    args = sys.argv[1:]
    t_from, t_to = 5.0, None
    while args and args[0] in ("--from", "--to"):
        if args[0] == "--from":
            t_from = float(args[1])
        else:
            t_to = float(args[1])
        args = args[2:]
    if len(args) < 3:
        sys.exit(__doc__)
    outdir, name, fio_args = args[0], args[1], args[2:]
    runtime = None
    for a in fio_args:
        if a.startswith("--runtime="):
            runtime = float(a.split("=", 1)[1].rstrip("s"))
    if t_to is None:
        if runtime is None:
            sys.exit("client_threads.py: give --to or fio's --runtime=")
        t_to = runtime - 2
    run = os.path.join(outdir, name)
    os.makedirs(run, exist_ok=True)
    prefix = os.path.join(run, "log")
    cmd = ["fio"] + fio_args + ["--output-format=json", "--output=" + os.path.join(run, "fio.json"),
                                "--write_iops_log=" + prefix, "--log_avg_msec=1000"]
    with open(os.path.join(run, "fio_cmd.txt"), "w") as f:
        f.write(" ".join(cmd) + "\n")
    osds = daemons()
    t0 = time.time()
    p = subprocess.Popen(cmd)
    time.sleep(max(0.0, t0 + t_from - time.time()))
    a = snap(p.pid, osds)
    time.sleep(max(0.0, t0 + t_to - time.time()))
    b = snap(p.pid, osds)
    if p.wait() != 0:
        sys.exit("client_threads.py: fio failed (%s)" % " ".join(cmd))
    ios = ios_in_window(prefix, a["time"] - t0, b["time"] - t0)
    res = {"window_s": [a["time"] - t0, b["time"] - t0], "ios": ios, "fio": per_kind(a["fio"], b["fio"]),
           "osd": {}}
    for nm, _pid in osds:
        for k, v in per_kind(a["osd"].get(nm, {}), b["osd"].get(nm, {})).items():
            e = res["osd"].setdefault(k, [0, 0, 0])
            for i in range(3):
                e[i] += v[i]
    with open(os.path.join(run, "threads.json"), "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print("%s: %.0f I/Os in %.1f-%.1f s (%.0f IOPS)" % (name, ios, res["window_s"][0], res["window_s"][1],
                                                     ios / (res["window_s"][1] - res["window_s"][0])))
    print("  %-6s %-20s %7s %10s %10s" % ("side", "kind", "threads", "cpu_us/io", "wakeups/io"))
    for side in ("fio", "osd"):
        for k, (nt, cpu, vol) in sorted(res[side].items(), key=lambda kv: -kv[1][1]):
            if cpu == 0 and vol == 0:
                continue
            print("  %-6s %-20s %7d %10.2f %10.3f" % (side, k, nt, cpu / 1000.0 / ios, vol / ios))


if __name__ == "__main__":
    main()
