#!/usr/bin/env python3
"""summarize.py -> out/summary.md: tables across runs (from each run's analysis.json)"""
import json, glob, os, re, collections, statistics, sys
OUT = sys.argv[1] if len(sys.argv) > 1 else "runs"
runs = {}
for p in sorted(glob.glob(OUT + "/*/analysis.json")):
    a = json.load(open(p)); runs[a["run"]] = a
CFG = [("randread", 1), ("randread", 32), ("randwrite", 1), ("randwrite", 32)]
SETS = {"io_context_pool": lambda c: c == "io_context_pool", "fio": lambda c: c == "fio",
        "msgr-worker (3 summed)": lambda c: c.startswith("msgr-worker"), "other threads": None}
def cfgruns(rw, qd, modes=("fp", "none", "dwarf", "dwarf2")):
    return [r for r in runs if re.match(r"%s_qd%d_(%s)_r\d+$" % (rw, qd, "|".join(modes)), r)]
def tset(a, name):
    f = SETS[name]
    cpu = vol = inv = 0.0
    for c, e in a["threads"].items():
        if c == "ALL": continue
        hit = f(c) if f else not any(g(c) for n, g in SETS.items() if g)
        if hit:
            cpu += e["cpu_ns"]; vol += e["vol"]; inv += e["nonvol"]
    n = a["ios_window"]
    return cpu / 1000 / n, vol / n, inv / n
def groups(a, name):
    """{group: us/IO} summed over the comms of the set: share of comm's samples x comm's CPU/IO"""
    f = SETS[name]; out = collections.Counter()
    for c, g in a["perf"].items():
        if not f(c) or c not in a["threads"]: continue
        n = a["perf_n"][c]; cpu = a["threads"][c]["cpu_ns"] / 1000 / a["ios_window"]
        for k, v in g.items():
            out[k] += v / n * cpu
    return out
def fmt(vals):
    if not vals: return "-"
    m = statistics.mean(vals)
    return "%.1f" % m if len(vals) == 1 else "%.1f (%.1f-%.1f)" % (m, min(vals), max(vals))
L = ["# Summary across runs", ""]
L.append("## 1. Threads: CPU us per I/O and voluntary switches (wake-ups) per I/O (schedstat / status deltas over the ~5-22 s window)")
L.append("")
L.append("Cells: mean (min-max) over the runs listed; 'perf runs' = fp r1, fp r2, dwarf (499 Hz), dwarf2 (1999 Hz); 'no perf' = one run without perf attached.")
L.append("")
L.append("| config | IOPS in window: perf runs / no perf | thread | CPU us/IO perf runs | CPU us/IO no perf | vol. sw./IO perf runs | vol. sw./IO no perf | invol./IO perf runs |")
L.append("|---|---|---|---:|---:|---:|---:|---:|")
for rw, qd in CFG:
    pr = cfgruns(rw, qd, ("fp", "dwarf", "dwarf2")); nr = cfgruns(rw, qd, ("none",))
    iops = "%s / %s" % (fmt([runs[r]["iops_window"] for r in pr]).replace(".0", ""), fmt([runs[r]["iops_window"] for r in nr]))
    first = True
    for s in ["fio", "io_context_pool", "msgr-worker (3 summed)", "other threads"]:
        a1 = [tset(runs[r], s) for r in pr]; a0 = [tset(runs[r], s) for r in nr]
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % ("%s QD%d" % (rw, qd) if first else "", iops if first else "", s,
                 fmt([x[0] for x in a1]), fmt([x[0] for x in a0]), fmt([x[1] for x in a1]).replace("(", "(") , fmt([x[1] for x in a0]), fmt([x[2] for x in a1])))
        first = False
    tot1 = [sum(tset(runs[r], s)[0] for s in SETS) for r in pr]; tot0 = [sum(tset(runs[r], s)[0] for s in SETS) for r in nr]
    L.append("| | | **all client threads** | %s | %s | | | |" % (fmt(tot1), fmt(tot0)))
L.append("")
KER = ["kernel:sched", "post-syscall:sched", "kernel:net", "post-syscall:net", "kernel:syscall-entry", "kernel:other"]
USER_LIB = [("librbd.so.1", lambda k: k.startswith("rbd:")), ("librados.so.2", lambda k: k.startswith("rados:")),
            ("libceph-common.so.2", lambda k: k.startswith("cc:")), ("libc (excl. post-syscall)", lambda k: k == "libc"),
            ("libstdc++", lambda k: k == "libstdc++"), ("tcmalloc", lambda k: k == "tcmalloc"), ("fio binary", lambda k: k == "fio-binary"),
            ("other user (vdso, boost, ...)", lambda k: k.startswith("other:") or k == "boost")]
FG = ["librbd code (librbd::, Striper)", "asio/neorados", "librados code", "calc_target+OSDMap/CRUSH", "Objecter (other)", "MOSDOp::encode_payload",
      "MOSDOp field encoders", "MOSDOp/OSDOp (other)", "MOSDOpReply (make/decode/dtor)", "crc32c", "messenger", "bufferlist", "PerfCounters",
      "mempool/refcount/locks", "other encode/decode", "rest"]
L.append("## 2. Where each thread's CPU goes, us per I/O (perf cpu-clock 4999 Hz fp runs r1 and r2: mean (r1, r2)); share of the thread's samples x its schedstat CPU/IO")
L.append("")
L.append("kernel:sched = scheduler, futex, epoll/poll, context switch, wake-ups (incl. pipe/eventfd writes that wake a thread); post-syscall:* = samples on the user instruction right after a `syscall` in libc (timer tick taken on the way out of the kernel in this PVM guest), kernel time of that syscall; kernel:net = TCP/IP/socket; kernel:syscall-entry = irq-enable point in do_syscall_64 (syscall entry/exit overhead, syscall unknown).")
L.append("")
def two(rw, qd, s, key):
    rr = sorted(cfgruns(rw, qd, ("fp",)))
    vals = [key(groups(runs[r], s)) for r in rr]
    if not vals: return "-"
    return "%.1f (%s)" % (statistics.mean(vals), ", ".join("%.1f" % v for v in vals))
for s in ["io_context_pool", "msgr-worker (3 summed)", "fio"]:
    L.append("### %s" % s)
    L.append("")
    L.append("| group | " + " | ".join("%s QD%d" % c for c in CFG) + " |")
    L.append("|---|" + "---:|" * len(CFG))
    rows = [(k, (lambda kk: lambda g: g.get(kk, 0))(k)) for k in KER]
    rows.append(("**kernel total (incl. post-syscall)**", lambda g: sum(v for k, v in g.items() if k.startswith("kernel:") or k.startswith("post-syscall:"))))
    rows += [(n, (lambda ff: lambda g: sum(v for k, v in g.items() if ff(k)))(f)) for n, f in USER_LIB]
    rows.append(("**user-space total (excl. post-syscall)**", lambda g: sum(v for k, v in g.items() if not (k.startswith("kernel:") or k.startswith("post-syscall:")))))
    rows.append(("&nbsp;&nbsp;of which Ceph code (librbd+librados+libceph-common)", lambda g: sum(v for k, v in g.items() if re.match(r"(rbd|rados|cc):", k))))
    for fg in FG:
        rows.append(("&nbsp;&nbsp;&nbsp;&nbsp;Ceph: " + fg, (lambda ff: lambda g: sum(v for k, v in g.items() if re.match(r"(rbd|rados|cc):", k) and k.split(":", 1)[1] == ff))(fg)))
    for n, f in rows:
        cells = [two(rw, qd, s, f) for rw, qd in CFG]
        if all(c.startswith("0.0 (0.0, 0.0)") or c == "-" for c in cells):
            continue
        L.append("| %s | " % n + " | ".join(cells) + " |")
    L.append("")
open(OUT + "/summary.md", "w").write("\n".join(L) + "\n")
print("\n".join(L))

# ---------- 3. shares -> us/IO on the unperturbed (no-perf) CPU ----------
def shares(a, s):
    f = SETS[s]; cnt = collections.Counter(); tot = 0
    for c, g in a["perf"].items():
        if not f(c): continue
        tot += a["perf_n"][c]
        for k, v in g.items(): cnt[k] += v
    return {k: v / tot for k, v in cnt.items()} if tot else {}
CATS = [("sched (kernel sched/futex/epoll/poll/wake-up + post-syscall)", lambda k: k in ("kernel:sched", "post-syscall:sched")),
        ("net (kernel TCP/IP + post-syscall sendmsg/read)", lambda k: k in ("kernel:net", "post-syscall:net")),
        ("kernel syscall entry/exit + other", lambda k: k in ("kernel:syscall-entry", "kernel:other")),
        ("user-space, all", lambda k: not (k.startswith("kernel:") or k.startswith("post-syscall:"))),
        ("user: Ceph libs (librbd+librados+libceph-common)", lambda k: bool(re.match(r"(rbd|rados|cc):", k))),
        ("user: libc+libstdc++ (malloc, pthread, memcpy, printf)", lambda k: k in ("libc", "libstdc++")),
        ("user: fio binary", lambda k: k == "fio-binary")]
L2 = ["", "## 3. Shares of perf samples, and us per I/O on the CPU of the runs WITHOUT perf", "",
      "perf inflates every thread's CPU per I/O (x1.5 at 499 Hz, x2-2.5 at 4999 Hz on this PVM guest, user and kernel alike), so absolute us/IO in section 2 are inflated. "
      "Here: share = fraction of the thread set's samples (fp runs r1+r2 at 4999 Hz; in brackets the 499 Hz DWARF run, the least perturbed); "
      "us/IO = share(4999 Hz) x CPU/IO of the no-perf runs [share(499 Hz) x same]. No-perf CPU/IO: mean of the runs without perf.", ""]
for s in ["io_context_pool", "msgr-worker (3 summed)", "fio"]:
    L2.append("### %s" % s)
    L2.append("")
    L2.append("| category | " + " | ".join("%s QD%d" % c for c in CFG) + " |")
    L2.append("|---|" + "---:|" * len(CFG))
    row = ["no-perf CPU us/IO (runs)"]
    base = {}
    for rw, qd in CFG:
        nr = cfgruns(rw, qd, ("none",)); v = [tset(runs[r], s)[0] for r in nr]
        base[(rw, qd)] = statistics.mean(v) if v else 0
        row.append(", ".join("%.1f" % x for x in v))
    L2.append("| " + " | ".join(row) + " |")
    for name, f in CATS:
        cells = []
        for rw, qd in CFG:
            fp = [sum(v for k, v in shares(runs[r], s).items() if f(k)) for r in cfgruns(rw, qd, ("fp",))]
            dw = [sum(v for k, v in shares(runs[r], s).items() if f(k)) for r in cfgruns(rw, qd, ("dwarf",))]
            if not fp: cells.append("-"); continue
            m = statistics.mean(fp); d = statistics.mean(dw) if dw else float("nan")
            cells.append("%.0f%% [%.0f%%] = %.1f [%.1f]" % (100 * m, 100 * d, m * base[(rw, qd)], d * base[(rw, qd)]))
        L2.append("| %s | " % name + " | ".join(cells) + " |")
    L2.append("")
open(OUT + "/summary.md", "a").write("\n".join(L2) + "\n")
print("\n".join(L2))
