#!/usr/bin/env python3
"""validate_qd1.py RUNSDIR [RW]: the QD=1 check of the perf method against strace, per traced-OSD op.

strace (run_probe.sh MODE=strace, the kit's wait_probe.sh call) counts blocking calls:
condition waits = FUTEX_WAIT_BITSET, mutex waits = FUTEX_WAIT (glibc's mutexes, the re-lock
inside pthread_cond_wait, the condvar's internal quiesce wait and malloc's arena lock all use
it), epoll_wait, io_getevents, fdatasync; calls that return EAGAIN at once are not sleeps and
are left out (outcome read from the '<... resumed>' line when the call was interrupted; with
--kit they are counted as wait_classify.py counts them: an interrupted call whose line shows
no result counts as a wait whatever it returned).  perf
counts sleeps (sched_switch, prev_state S or D), mapped onto the same classes:
cond-wait -> condition wait; mutex, cond-relock, cond-signal, malloc-lock -> mutex wait.
An fdatasync is one call for strace and 2-4 D sleeps for perf (writeback wait, the journal
commit, the cache flush), so those two are not the same unit."""
import collections
import glob
import gzip
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

LAB5_W = {("tp_osd_tp", "condition wait"): 4.73, ("tp_osd_tp", "mutex wait"): 2.51,
          ("msgr-worker", "epoll_wait"): 4.28, ("msgr-worker", "mutex wait"): 0.25,
          ("bstore_aio", "io_getevents"): 1.86, ("bstore_kv_sync", "fdatasync"): 2.78,
          ("bstore_kv_sync", "condition wait"): 1.81, ("bstore_kv_sync", "mutex wait"): 0.52,
          ("bstore_kv_final", "condition wait"): 0.93, ("bstore_kv_final", "mutex wait"): 0.53}
LAB5_R = {("tp_osd_tp", "condition wait"): 2.87, ("tp_osd_tp", "mutex wait"): 0.91,
          ("msgr-worker", "epoll_wait"): 1.92, ("bstore_aio", "io_getevents"): 0.96}
ROWS = [("tp_osd_tp", "condition wait"), ("tp_osd_tp", "mutex wait"), ("msgr-worker", "epoll_wait"),
        ("msgr-worker", "mutex wait"), ("bstore_aio", "io_getevents"), ("bstore_kv_sync", "fdatasync"),
        ("bstore_kv_sync", "condition wait"), ("bstore_kv_sync", "mutex wait"),
        ("bstore_kv_final", "condition wait"), ("bstore_kv_final", "mutex wait"),
        ("OpHistorySvc", "(nanosleep: not traced by strace)"),
        ("bstore_kv_sync", "(sync_file_range, io_submit: not traced by strace)")]


def kind(c):
    return re.sub(r"[-]?\d+$", "", c)


def strace_counts(run, strict=True):
    s = json.load(open(os.path.join(run, "summary.json")))
    cache = os.path.join(run, "strace_counts.json")   # the reduced form of strace.txt.gz
    key = "strict" if strict else "kit"
    span = float(open(os.path.join(run, "tracer_time.txt")).read().split()[-3])
    ops = s["window"]["osd0_ops"] * span / s["window"]["seconds"]
    if not os.path.exists(os.path.join(run, "strace.txt.gz")):
        c = json.load(open(cache))[key]
        return collections.Counter({tuple(k.split("|")): v for k, v in c.items()}), ops, s
    sp = os.path.join(run, "snap_w0.json")
    snap = json.load(open(sp)) if os.path.exists(sp) else json.load(gzip.open(sp + ".gz", "rt"))
    T = s["window"].get("traced_osd", "osd.0")
    comm = {tid: kind(v[0]) for tid, v in snap["threads"][T].items()}
    cnt = collections.Counter()
    pending = {}
    with gzip.open(os.path.join(run, "strace.txt.gz"), "rt") as f:
        for line in f:
            m = re.match(r"(\d+)\s+<\.\.\. (\w+) resumed>.*=\s*(-?\d+|\?)(.*)", line)
            if m:
                tid, call, ret, rest = m.groups()
                cl = pending.pop(tid, None)
                if cl is None:
                    continue
                if strict and "EAGAIN" in rest:
                    continue
                cnt[(comm.get(tid, "?"), cl)] += 1
                continue
            m = re.match(r"(\d+)\s+(\w+)\((.*)", line)
            if not m:
                continue
            tid, call, rest = m.groups()
            if call == "futex":
                op = rest.split(",")[1].strip()
                if "WAKE" in op or "REQUEUE" in op:
                    continue
                cl = "condition wait" if "BITSET" in op else "mutex wait"
            else:
                cl = call
            if "<unfinished" in rest:
                pending[tid] = cl
                continue
            if "EAGAIN" in rest:
                continue
            cnt[(comm.get(tid, "?"), cl)] += 1
    for tid, cl in pending.items():     # still blocked when strace detached
        cnt[(comm.get(tid, "?"), cl)] += 1
    c = json.load(open(cache)) if os.path.exists(cache) else {}
    c[key] = {"|".join(k): v for k, v in cnt.items()}
    json.dump(c, open(cache, "w"), indent=0)
    # strace ran `timeout TW` (elapsed in tracer_time.txt) inside the snapshot window: the
    # traced OSD's ops in that span, at the window's op rate
    return cnt, ops, s


PERF_MAP = {"cond-wait": "condition wait", "mutex": "mutex wait", "cond-relock": "mutex wait",
            "cond-signal": "mutex wait", "malloc-lock": "mutex wait", "libc-lock": "mutex wait",
            "epoll_wait": "epoll_wait", "io_getevents": "io_getevents", "fdatasync": "fdatasync",
            "nanosleep": "(nanosleep: not traced by strace)",
            "sync_file_range": "(sync_file_range, io_submit: not traced by strace)",
            "io_submit": "(sync_file_range, io_submit: not traced by strace)"}


def perf_counts(run):
    s = json.load(open(os.path.join(run, "summary.json")))
    cp = os.path.join(run, "classes.json")
    c = json.load(open(cp)) if os.path.exists(cp) else json.load(gzip.open(cp + ".gz", "rt"))
    cnt = collections.Counter()
    for r in c["rows"]:
        cnt[(r["kind"], PERF_MAP.get(r["prim"], r["prim"]))] += r["n"]
    return cnt, s["perf"]["osd0_ops_in_span"], s


def main():
    root = sys.argv[1]
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rw = args[1] if len(args) > 1 else "randwrite"
    pre = "w1" if rw == "randwrite" else "r1"
    lab5 = LAB5_W if rw == "randwrite" else LAB5_R
    strict = "--kit" not in sys.argv
    st = [(os.path.basename(d),) + strace_counts(d, strict) for d in sorted(glob.glob(os.path.join(root, pre + "_strace_r*")))
          if "reject" not in d]
    pf = [(os.path.basename(d),) + perf_counts(d) for d in sorted(glob.glob(os.path.join(root, pre + "_perf_r*")))
          if "reject" not in d]
    off = [json.load(open(os.path.join(d, "summary.json"))) for d in sorted(glob.glob(os.path.join(root, pre + "_off_r*")))
           if "reject" not in d]
    hdr = ["kind", "class"] + [n for n, *_ in st] + ["strace mean"] + [n for n, *_ in pf] + ["perf mean", "perf/strace", "lab5 strace", "perf/lab5"]
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for k, cl in ROWS:
        a = [cnt[(k, cl)] / ops for _, cnt, ops, _ in st]
        b = [cnt[(k, cl)] / ops for _, cnt, ops, _ in pf]
        ma, mb = sum(a) / len(a), sum(b) / len(b)
        l5 = lab5.get((k, cl))
        if ma < 0.05 and mb < 0.05:
            continue
        print("| %s | %s | %s | %.2f | %s | %.2f | %s | %s | %s |" % (
            k, cl, " | ".join("%.2f" % x for x in a), ma, " | ".join("%.2f" % x for x in b), mb,
            "%.2f" % (mb / ma) if ma else "-", "%.2f" % l5 if l5 else "-", "%.2f" % (mb / l5) if l5 else "-"))
    print()
    print("Voluntary sleeps of the traced OSD per its op (/proc, the window), and its ops/s:")
    for name, runs in (("strace", [s for *_, s in st]), ("perf", [s for *_, s in pf]), ("off", off)):
        for s in runs:
            w = s["window"]
            v = sum(x["vol"] for x in w["per_osd0_op_osd0"].values())
            print("  %-14s %-7s %6.2f sleeps/op  %6.0f osd ops/s  CPU %5.0f us/op" % (
                s["name"], name, v, w["osd0_ops"] / w["seconds"],
                sum(x["cpu_us"] for x in w["per_osd0_op_osd0"].values())))


if __name__ == "__main__":
    main()
