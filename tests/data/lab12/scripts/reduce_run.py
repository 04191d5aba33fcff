#!/usr/bin/env python3
"""reduce_run.py RUNDIR [--keep]: reduce one run_probe.sh run to small files.

Writes RUNDIR/summary.json:
  window   (snap_w0 -> snap_w1, the traced window or the same seconds untraced):
           osd ops per OSD (op_w, subop_w, op_r deltas), client ops (sum of op_w+op_rw+op_r),
           per thread kind and OSD (osd.0 and all 3) CPU us and voluntary / nonvoluntary
           switches, per osd.0 op (op_w+subop_w+op_r, as wait_probe.sh) and per client op
           (all 3 OSDs);
  run      (snap_start -> snap_end, the whole fio run, as threads.py): per fio I/O;
  load     per window and run: cores used by /proc/stat busy, the lab daemons, fio, the
           tracer, other processes (user, kernel threads), the unexplained rest; loadavg.
With perf.data: `perf script --no-inline` -> perf_script.txt.gz (kept in the run dir, which
is scratch), classify_perf.py -> classes.json, and perf.data is deleted (unless --keep).
With strace.txt: strace_classes.txt (the kit's wait_classify.py) and strace.txt.gz."""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.join(HERE, "..", "..", "..", "lab")  # the repository's tests/lab
KTHREAD = re.compile(r"^(kworker|ksoftirqd|jbd2|rcu_|kswapd|migration|cpuhp|kcompactd|khugepaged|"
                     r"watchdog|idle_inject|kthreadd|scsi_|irq/|md|loop\d|kauditd|oom_reaper|"
                     r"writeback|kblockd|blkcg|ext4|xfs|flush-|khungtaskd|ksmd|kintegrity|kdamond)")


def kind(comm):
    return re.sub(r"[-]?\d+$", "", comm)


def load(p):
    with open(p) as f:
        return json.load(f)


def busy(ps):
    return sum(ps[k] for k in ("user", "nice", "system", "irq", "softirq"))


def thread_delta(a, b, daemons=None):
    """{daemon: {kind: [threads, cpu_us, vol, nonvol]}}"""
    out = {}
    for d, tb in b["threads"].items():
        if daemons and d not in daemons:
            continue
        ta = a["threads"].get(d, {})
        for tid, (comm, cpu, vol, nv) in tb.items():
            c0, v0, n0 = (ta[tid][1], ta[tid][2], ta[tid][3]) if tid in ta else (0, 0, 0)
            k = out.setdefault(d, {}).setdefault(kind(comm), [0, 0.0, 0, 0])
            k[0] += 1
            k[1] += (cpu - c0) / 1e3
            k[2] += vol - v0
            k[3] += nv - n0
    return out


def tid_vol(a, b, daemon):
    ta, tb = a["threads"][daemon], b["threads"][daemon]
    return {tid: tb[tid][2] - (ta[tid][2] if tid in ta else 0) for tid in tb}


def load_split(a, b, extra_ticks):
    dt = b["time"] - a["time"]
    hz = a["clk_tck"]
    total = (busy(b["proc_stat_cpu"]) - busy(a["proc_stat_cpu"])) / hz / dt
    lab = sum((b["daemons"][d] or 0) - (a["daemons"].get(d) or 0) for d in b["daemons"]) / hz / dt
    ou, ok = 0.0, 0.0
    top = []
    skip = set(a.get("extra", {})) | set(b.get("extra", {}))
    for pid, (comm, t) in b["others"].items():
        if pid in skip:
            continue
        t0 = a["others"].get(pid, [comm, None])[1]
        if t0 is None:
            continue     # started after the first snapshot: left in the rest
        d = (t - t0) / hz / dt
        if d <= 0:
            continue
        if KTHREAD.match(comm):
            ok += d
        else:
            ou += d
            top.append((d, comm))
    ex = extra_ticks / hz / dt
    top.sort(reverse=True)
    return {"seconds": round(dt, 3), "busy_cores": round(total, 3), "lab_daemons_cores": round(lab, 3),
            "fio_tracer_cores": round(ex, 3), "other_user_cores": round(ou, 3),
            "kernel_threads_cores": round(ok, 3),
            "rest_cores": round(total - lab - ex - ou - ok, 3),
            "forks": b["stat"]["processes"] - a["stat"]["processes"] if "stat" in a else None,
            "top_other": [[c, round(d, 3)] for d, c in top[:5]],
            "loadavg": [a.get("loadavg"), b.get("loadavg")]}


def ops_delta(a, b):
    return {o: {k: b["osd_ops"][o][k] - a["osd_ops"][o][k] for k in b["osd_ops"][o]} for o in b["osd_ops"]}


def per_op(td, n):
    return {k: {"threads": v[0], "cpu_us": round(v[1] / n, 2), "vol": round(v[2] / n, 3),
                "nonvol": round(v[3] / n, 3)} for k, v in sorted(td.items())} if n else {}


def summed(tdd, daemons):
    out = {}
    for d in daemons:
        for k, v in tdd.get(d, {}).items():
            o = out.setdefault(k, [0, 0.0, 0, 0])
            for i in range(4):
                o[i] += v[i]
    return out


def main():
    run = sys.argv[1].rstrip("/")
    keep = "--keep" in sys.argv
    meta = load(os.path.join(run, "meta.json"))
    s = {n: load(os.path.join(run, "snap_%s.json" % n)) for n in ("start", "w0", "w1", "end")}
    fio = load(os.path.join(run, "fio.json"))
    job = fio["jobs"][0]
    fio_ios = sum(job[d]["total_ios"] for d in ("read", "write"))
    osds = sorted(d for d in s["w1"]["threads"] if d.startswith("osd."))
    res = {"name": meta["name"], "rw": meta["rw"], "iodepth": meta["iodepth"], "mode": meta["mode"]}
    res["fio"] = {d: {"iops": round(job[d]["iops"], 1), "clat_mean_us": round(job[d]["clat_ns"]["mean"] / 1e3, 1),
                      "clat_p99_us": round(job[d]["clat_ns"]["percentile"]["99.000000"] / 1e3, 1),
                      "ios": job[d]["total_ios"]}
                  for d in ("read", "write") if job[d]["total_ios"]}
    res["fio"]["usr_cpu_pct"] = job["usr_cpu"]
    res["fio"]["sys_cpu_pct"] = job["sys_cpu"]
    # ---- window
    od = ops_delta(s["w0"], s["w1"])
    T = "osd.%d" % meta.get("traced_osd", 0)   # the traced OSD ("osd0" in the field names below)
    osd0_ops = od[T]["op_w"] + od[T]["subop_w"] + od[T]["op_r"]
    all_ops = sum(od[o]["op_w"] + od[o]["subop_w"] + od[o]["op_r"] for o in od)
    client_ops = sum(od[o]["op_w"] + od[o]["op_r"] + od[o].get("op_rw", 0) for o in od)
    tdw = thread_delta(s["w0"], s["w1"])
    ex_w = sum(s["w1"]["extra"][p][1] - s["w0"]["extra"].get(p, [0, 0])[1] for p in s["w1"]["extra"])
    tracer_ticks = 0
    tt = os.path.join(run, "tracer_time.txt")
    if os.path.exists(tt):   # "/usr/bin/time -f '%e %U %S'" of the tracer
        w = open(tt).read().split()
        tracer_ticks = (float(w[-2]) + float(w[-1])) * s["w0"]["clk_tck"]
    res["window"] = {"seconds": round(s["w1"]["time"] - s["w0"]["time"], 3), "ops": od,
                     "osd0_ops": osd0_ops, "all_osd_ops": all_ops, "client_ops": client_ops,
                     "client_iops": round(client_ops / (s["w1"]["time"] - s["w0"]["time"]), 1),
                     "traced_osd": T,
                     "per_osd0_op_osd0": per_op(tdw.get(T, {}), osd0_ops),
                     "per_client_op_all_osds": per_op(summed(tdw, osds), client_ops),
                     "per_client_op_by_osd": {o: per_op(tdw.get(o, {}), client_ops) for o in osds},
                     "osd0_vol_by_tid": tid_vol(s["w0"], s["w1"], T),
                     "load": load_split(s["w0"], s["w1"], ex_w + tracer_ticks)}
    # ---- whole run, per fio I/O (threads.py)
    tdr = thread_delta(s["start"], s["end"])
    fio_ticks = (job["usr_cpu"] + job["sys_cpu"]) / 100.0 * (s["end"]["time"] - s["start"]["time"]) * s["start"]["clk_tck"]
    res["run"] = {"fio_ios": fio_ios, "per_fio_io_all_osds": per_op(summed(tdr, osds), fio_ios),
                  "load": load_split(s["start"], s["end"], fio_ticks + tracer_ticks)}
    # ---- tracer output
    pd = os.path.join(run, "perf.data")
    if os.path.exists(pd):
        txt = os.path.join(run, "perf_script.txt.gz")
        with open(txt, "wb") as f:
            p1 = subprocess.Popen(["perf", "script", "-i", pd, "--no-inline", "-F",
                                   "comm,tid,time,event,trace,ip,sym,dso"], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
            subprocess.run(["gzip", "-3"], stdin=p1.stdout, stdout=f, check=True)
            p1.stdout.close()
            if p1.wait() != 0:
                raise SystemExit("perf script failed")
        st = subprocess.run(["perf", "report", "-i", pd, "--stats"], capture_output=True, text=True).stdout
        lost = [l.strip() for l in st.splitlines() if "LOST" in l.upper()]
        with open(os.path.join(run, "classes.json"), "w") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "classify_perf.py"), txt], stdout=f, check=True)
        c = load(os.path.join(run, "classes.json"))
        # ops inside perf's span (CLOCK_MONOTONIC timestamps), assuming a constant op rate
        # over the snapshot window
        m0 = sum(s["w0"]["osd_ops_monotonic"]) / 2
        m1 = sum(s["w1"]["osd_ops_monotonic"]) / 2
        ov = max(0.0, min(m1, c["t_last"]) - max(m0, c["t_first"])) if c["t_first"] else 0.0
        res["perf"] = {"lost": lost, "voluntary": c["voluntary"], "states": c["states"],
                       "span_mono": [c["t_first"], c["t_last"]], "window_mono": [m0, m1],
                       "span_in_window_s": round(ov, 3),
                       "osd0_ops_in_span": round(osd0_ops * ov / (m1 - m0), 1) if ov else None,
                       "span_s": round(c["t_last"] - c["t_first"], 3) if c["t_first"] else None,
                       "proc_osd0_vol_window": sum(res["window"]["osd0_vol_by_tid"].values()),
                       "perf_data_bytes": os.path.getsize(pd)}
        if not keep:
            os.unlink(pd)
    uc = os.path.join(run, "uprobe_counts.csv")
    if os.path.exists(uc):
        cnt = {}
        for line in open(uc):
            w = line.strip().split(",")
            if len(w) > 2 and w[2].startswith("probe_ceph:"):
                cnt[w[2].split(":")[1]] = int(w[0]) if w[0].isdigit() else None
        # perf stat counted for its own `sleep TW` (elapsed in tracer_time.txt), inside the window:
        # the traced OSD's ops in that span, at the window's op rate
        span = float(open(tt).read().split()[-3])
        ops_span = osd0_ops * span / res["window"]["seconds"]
        per_client = res["window"]["all_osd_ops"] / res["window"]["client_ops"]
        res["uprobes"] = {"counts": cnt, "span_s": span, "traced_osd_ops_in_span": round(ops_span, 1),
                          "per_traced_osd_op": {k: round(v / ops_span, 3) for k, v in cnt.items() if v is not None},
                          "per_client_op_3osds": {k: round(v / ops_span * per_client, 3)
                                                  for k, v in cnt.items() if v is not None}}
    sf = os.path.join(run, "strace.txt")
    if os.path.exists(sf):
        with open(os.path.join(run, "strace_classes.txt"), "w") as f:
            subprocess.run([sys.executable, os.path.join(KIT, "wait_classify.py"), sf,
                            str(meta["osd0_pid"]), str(osd0_ops)], stdout=f, check=True)
        with open(sf, "rb") as fi, gzip.open(sf + ".gz", "wb", compresslevel=3) as fo:
            shutil.copyfileobj(fi, fo)
        os.unlink(sf)
    with open(os.path.join(run, "summary.json"), "w") as f:
        json.dump(res, f, indent=1)
    w = res["window"]
    print("%s: window %.1fs client %.0f op/s osd0_ops %d; load busy %.2f lab %.2f fio+tracer %.2f other %.2f kthr %.2f rest %.2f"
          % (res["name"], w["seconds"], w["client_iops"], osd0_ops, w["load"]["busy_cores"],
             w["load"]["lab_daemons_cores"], w["load"]["fio_tracer_cores"], w["load"]["other_user_cores"],
             w["load"]["kernel_threads_cores"], w["load"]["rest_cores"]))
    if "perf" in res:
        print("   perf: %d voluntary (proc says %d), lost %s" % (res["perf"]["voluntary"],
              res["perf"]["proc_osd0_vol_window"], res["perf"]["lost"]))


if __name__ == "__main__":
    main()
