#!/usr/bin/env python3
"""snap.py PIDFILE [EXTRA_PID...] -> JSON on stdout: cpu_snap.py's snapshot (wall time,
/proc/stat, every lab daemon's ticks and per-thread [comm, cpu_ns, voluntary,
nonvoluntary], every other process's ticks) plus
  "osd_ops": {osd.N: {op, op_r, op_w, subop, subop_w, ...}} from each OSD's admin socket
             (perf dump, osd section, the op counters only), and
  "extra":   {pid: [comm, ticks]} of EXTRA_PIDs (fio, perf, strace: lab load, not foreign),
  "stat":    /proc/stat's processes (forks so far) and procs_running.
"""
import glob
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.join(HERE, "..", "..", "..", "lab")  # the repository's tests/lab: asok.py, cpu_snap.py
sys.path.insert(0, KIT)
import asok      # noqa: E402
import cpu_snap  # noqa: E402

KEYS = ("op", "op_r", "op_w", "op_rw", "subop", "subop_w", "op_in_bytes", "op_out_bytes")


def main():
    pidfile, extra = sys.argv[1], sys.argv[2:]
    lab = os.path.dirname(os.path.abspath(pidfile))
    m0 = time.monotonic()
    t0 = time.time()
    ops = {}
    for sock in sorted(glob.glob(os.path.join(lab, "run", "ceph-osd.*.asok"))):
        full = json.loads(asok.asok_command(sock, {"prefix": "perf dump"}).decode())
        d = full["osd"]
        o = ops[asok.daemon_name(sock)] = {k: d[k] for k in KEYS if k in d}
        # kv_sync cycles and txcs (bluestore), and how often each throttle made a caller wait
        b = full.get("bluestore", {})
        for k in ("kv_flush_lat", "kv_commit_lat", "kv_sync_lat", "kv_final_lat", "throttle_lat"):
            if k in b:
                o["bluestore." + k + ".avgcount"] = b[k]["avgcount"]
                o["bluestore." + k + ".sum"] = b[k]["sum"]
        for k in ("bluestore_txc", "deferred_write_ops"):
            if k in b:
                o["bluestore." + k] = b[k]
        for sec, v in full.items():
            if sec.startswith("throttle-") and isinstance(v.get("wait"), dict):
                o[sec + ".wait.avgcount"] = v["wait"]["avgcount"]
                o[sec + ".wait.sum"] = v["wait"]["sum"]
            if sec.startswith("AsyncMessenger::Worker"):
                for k in ("msgr_recv_messages", "msgr_send_messages", "msgr_running_total_time"):
                    if k in v:
                        o[sec + "." + k] = v[k]
    t1 = time.time()
    m1 = time.monotonic()
    # cpu_snap.main prints JSON; capture it
    import io
    buf = io.StringIO()
    old = sys.stdout
    sys.stdout = buf
    sys.argv = [sys.argv[0], pidfile]
    try:
        cpu_snap.main()
    finally:
        sys.stdout = old
    out = json.loads(buf.getvalue())
    out["osd_ops"] = ops
    out["osd_ops_time"] = [t0, t1]
    out["osd_ops_monotonic"] = [m0, m1]
    out["monotonic_end"] = time.monotonic()
    ex = {}
    for pid in extra:
        try:
            with open("/proc/%s/stat" % pid) as f:
                s = f.read()
            rest = s[s.rindex(")") + 2:].split()
            ex[pid] = [s[s.index("(") + 1:s.rindex(")")], int(rest[11]) + int(rest[12])]
        except OSError:
            pass
    out["extra"] = ex
    st = {}
    with open("/proc/stat") as f:
        for line in f:
            w = line.split()
            if w[0] in ("processes", "procs_running", "ctxt"):
                st[w[0]] = int(w[1])
    out["stat"] = st
    with open("/proc/loadavg") as f:
        out["loadavg"] = f.read().split()[:3]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
