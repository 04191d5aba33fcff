#!/usr/bin/env python3
"""aggregate.py RUNSDIR [--md OUT.md] [--json OUT.json]: the tables of NOTES.md from the reduced runs
(RUNSDIR/<name>/summary.json, classes.json, strace_classes.txt; directories named *.reject* skipped).

Per group (rw, iodepth): per thread kind, summed over the 3 OSDs, per client op (sum of the OSDs'
op_w + op_rw + op_r over the window): CPU us and voluntary sleeps from /proc (tracer off and
tracer on), and, from the perf runs, the split of the sleeps by what they wait on: osd.0's perf
counts per kind give the fractions, applied to the 3 OSDs' /proc count of the same window
("scaled"); "direct" is osd.0's perf count per osd.0 op x (all OSD ops / client ops)."""
import collections
import gzip
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from categories import categorize  # noqa: E402

KINDS = ["tp_osd_tp", "msgr-worker", "bstore_kv_sync", "bstore_aio", "bstore_kv_final", "OpHistorySvc"]
CLASSES = ["idle", "contention", "io", "timer", "other"]


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def load_runs(root):
    runs = []
    for n in sorted(os.listdir(root)):
        d = os.path.join(root, n)
        if "reject" in n or not os.path.exists(os.path.join(d, "summary.json")):
            continue
        s = json.load(open(os.path.join(d, "summary.json")))
        s["dir"] = d
        c = os.path.join(d, "classes.json")
        if os.path.exists(c):
            s["classes"] = json.load(open(c))
        elif os.path.exists(c + ".gz"):
            s["classes"] = json.load(gzip.open(c + ".gz", "rt"))
        runs.append(s)
    return runs


def perf_split(run):
    """{kind: {"n": count, "cls": {class: n}, "lab": {(class,label): n}}} from osd.0's perf rows"""
    out = {}
    for r in run["classes"]["rows"]:
        k = out.setdefault(r["kind"], {"n": 0, "cls": collections.Counter(), "lab": collections.Counter()})
        c, lab = categorize(r)
        k["n"] += r["n"]
        k["cls"][c] += r["n"]
        k["lab"][(c, lab)] += r["n"]
    return out


def main():
    root = sys.argv[1]
    runs = load_runs(root)
    groups = collections.OrderedDict()
    for s in sorted(runs, key=lambda s: (s["rw"], s["iodepth"], s["mode"], s["name"])):
        mode = s["mode"]
        t = s["window"].get("traced_osd", "osd.0")
        if mode == "perf" and t != "osd.0":
            mode = "perf-" + t.replace(".", "")
        s["mode_label"] = mode
        groups.setdefault((s["rw"], s["iodepth"]), {}).setdefault(mode, []).append(s)
    md = []
    out = {}
    for (rw, qd), modes in groups.items():
        g = out.setdefault("%s-qd%d" % (rw, qd), {})
        md.append("\n### %s, iodepth %d\n" % (rw, qd))
        # ---- runs and load
        md.append("| run | mode | fio IOPS (20 s) | window IOPS | busy cores | lab | fio+tracer | other procs | kernel thr | rest | loadavg (1 min) at window start |")
        md.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for mode in sorted(modes, key=lambda m: ("off", "perf", "strace").index(m) if m in ("off", "perf", "strace") else 9):
            for s in modes.get(mode, []):
                L = s["window"]["load"]
                io = sum(v["iops"] for d, v in s["fio"].items() if isinstance(v, dict))
                md.append("| %s | %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s |" % (
                    s["name"], mode, io, s["window"]["client_iops"], L["busy_cores"], L["lab_daemons_cores"],
                    L["fio_tracer_cores"], L["other_user_cores"], L["kernel_threads_cores"], L["rest_cores"],
                    L["loadavg"][0][0] if L["loadavg"][0] else "?"))
        # ---- per thread kind, off vs on
        md.append("\nPer client op, 3 OSDs (mean of the runs): CPU us / voluntary sleeps (/proc), tracer off and perf on; "
                  "perf direct = osd.0's perf count scaled to 3 OSDs.\n")
        md.append("| thread kind | CPU us off | CPU us perf | sleeps off | sleeps perf (/proc) | sleeps perf (direct) | preempted off |")
        md.append("|---|---|---|---|---|---|---|")
        tab = g.setdefault("threads", {})
        for k in KINDS + ["all"]:
            def get(mode, f):
                vals = []
                for s in modes.get(mode, []):
                    pc = s["window"]["per_client_op_all_osds"]
                    if k == "all":
                        vals.append(sum(v[f] for v in pc.values()))
                    else:
                        vals.append(pc.get(k, {}).get(f))
                return mean(vals)
            direct = []
            for s in modes.get("perf", []):
                sp = perf_split(s)
                ops = s["perf"]["osd0_ops_in_span"]
                scale = s["window"]["all_osd_ops"] / s["window"]["client_ops"]
                n = sum(v["n"] for v in sp.values()) if k == "all" else sp.get(k, {"n": 0})["n"]
                direct.append(n / ops * scale)
            row = {"cpu_off": get("off", "cpu_us"), "cpu_perf": get("perf", "cpu_us"), "vol_off": get("off", "vol"),
                   "vol_perf": get("perf", "vol"), "vol_perf_direct": mean(direct), "nonvol_off": get("off", "nonvol")}
            tab[k] = row
            f = lambda x, p=1: "-" if x is None else ("%.*f" % (p, x))
            md.append("| %s | %s | %s | %s | %s | %s | %s |" % (k, f(row["cpu_off"], 0), f(row["cpu_perf"], 0),
                      f(row["vol_off"], 2), f(row["vol_perf"], 2), f(row["vol_perf_direct"], 2), f(row["nonvol_off"], 2)))
        # ---- the split
        for pm in [m for m in modes if m.startswith("perf")]:
          if True:
            md.append("\nWhat the sleeps wait on (%s runs; per client op, 3 OSDs; the traced OSD's split x the 3 OSDs' /proc sleeps of the same window; mean over runs, [per run]):\n" % pm)
            md.append("| thread kind | sleeps | idle (own queue empty) | contention | I/O | timer | other |")
            md.append("|---|---|---|---|---|---|---|")
            split = g.setdefault("split" if pm == "perf" else "split_" + pm, {})
            labs = collections.defaultdict(list)
            for k in KINDS:
                per = {c: [] for c in CLASSES}
                tot = []
                for s in modes[pm]:
                    sp = perf_split(s).get(k)
                    vol = s["window"]["per_client_op_all_osds"].get(k, {}).get("vol", 0.0)
                    tot.append(vol)
                    for c in CLASSES:
                        per[c].append(vol * sp["cls"][c] / sp["n"] if sp and sp["n"] else 0.0)
                    if sp and sp["n"]:
                        for (c, lab), n in sp["lab"].items():
                            labs[(k, c, lab)].append(vol * n / sp["n"])
                split[k] = {"sleeps": mean(tot), **{c: mean(per[c]) for c in CLASSES},
                            "per_run": {c: per[c] for c in CLASSES}}
                md.append("| %s | %.2f | %s |" % (k, mean(tot), " | ".join(
                    "%.2f [%s]" % (mean(per[c]), "/".join("%.2f" % x for x in per[c])) for c in CLASSES)))
            nrun = len(modes[pm])
            md.append("\nBy label (per client op, 3 OSDs, mean of %d perf runs; labels >= 0.05):\n" % nrun)
            md.append("| thread kind | class | what | per op |")
            md.append("|---|---|---|---|")
            lt = g.setdefault("labels" if pm == "perf" else "labels_" + pm, [])
            for (k, c, lab), xs in sorted(labs.items(), key=lambda x: (KINDS.index(x[0][0]), -sum(x[1]))):
                v = sum(xs) / nrun
                lt.append({"kind": k, "class": c, "label": lab, "per_op": v, "per_run": xs})
                if v >= 0.05:
                    md.append("| %s | %s | %s | %.2f |" % (k, c, lab, v))
        # ---- uprobe counts: the shard queue's work items and futile wake-ups
        if modes.get("uprobe"):
            md.append("\nShard queue, uprobes on osd.0 (per client op, x3 for the 3 OSDs; each run):\n")
            md.append("| run | window IOPS | _process calls | items enqueued (_enqueue) | dequeue_op | woken, queue still empty (OSD.cc:11033-11035 return) | other _process returns (oncommit batches, no-wait) |")
            md.append("|---|---|---|---|---|---|---|")
            ut = g.setdefault("uprobes", [])
            for s in modes["uprobe"]:
                u = s["uprobes"]["per_client_op_3osds"]
                rest = u["osdproc"] - u["osdenq"] - u["osdfutile"]
                ut.append(dict(u, run=s["name"], rest=rest))
                md.append("| %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f |" % (
                    s["name"], s["window"]["client_iops"], u["osdproc"], u["osdenq"], u["osddeq"], u["osdfutile"], rest))
        # ---- strace (QD=1 validation), per osd.0 op
        if modes.get("strace"):
            md.append("\nstrace runs (osd.0, per osd.0 op):\n")
            for s in modes["strace"]:
                md.append("    " + s["name"] + ": " + open(os.path.join(s["dir"], "strace_classes.txt")).read()
                          .replace("\n", "\n    "))
    if "--md" in sys.argv:
        open(sys.argv[sys.argv.index("--md") + 1], "w").write("\n".join(md) + "\n")
    else:
        print("\n".join(md))
    if "--json" in sys.argv:
        json.dump(out, open(sys.argv[sys.argv.index("--json") + 1], "w"), indent=1)


if __name__ == "__main__":
    main()
