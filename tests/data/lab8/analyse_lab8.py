#!/usr/bin/env python3
"""analyse_lab8.py [CAPTURES] -> the tables of NOTES.md: per kind and workload, IOPS per
repetition, EC/3x ratio, BlueStore transactions / reads / messages per client I/O
(summed over the 8 OSDs' perf dumps, which capture.sh reset just before each run)."""
import glob, json, os, sys

CAP = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "captures")
KINDS = ["noparent", "ec21", "ec42", "ec62"]
WLS = ["randw-qd16", "randr-qd16", "randw-qd1", "randr-qd1"]


def run(kind, wl, r):
    d = os.path.join(CAP, "%s_%s_sched-none_r%d" % (kind, wl, r))
    j = json.load(open(os.path.join(d, "fio.json")))["jobs"][0]
    s = {"iops": j["read"]["iops"] + j["write"]["iops"], "rd": j["read"]["total_ios"],
         "wr": j["write"]["total_ios"], "clat_ms": (j["read"]["clat_ns"]["mean"] if j["read"]["total_ios"]
                                                    else j["write"]["clat_ns"]["mean"]) / 1e6}
    c = dict.fromkeys(["op_w", "op_r", "subop_w", "subop", "txc", "bs_read", "msg_rx", "msg_tx"], 0)
    for p in glob.glob(os.path.join(d, "osd.*.perf.json")):
        pd = json.load(open(p))
        o, b = pd["osd"], pd["bluestore"]
        c["op_w"] += o["op_w"]; c["op_r"] += o["op_r"]
        c["subop_w"] += o["subop_w"]; c["subop"] += o["subop"]
        c["txc"] += b["bluestore_txc"]
        c["bs_read"] += b["read_lat"]["avgcount"]
        for k, v in pd.items():
            if k.startswith("AsyncMessenger::Worker"):
                c["msg_rx"] += v["msgr_recv_messages"]; c["msg_tx"] += v["msgr_send_messages"]
    s.update(c)
    return s


def f(x, n=2):
    return ("%%.%df" % n) % x


rows = {(k, w): [run(k, w, r) for r in (1, 2)] for k in KINDS for w in WLS}
print("## IOPS (r1 / r2) and EC/3x (ratio of the means)\n")
print("| workload | " + " | ".join(KINDS) + " | ec21/3x | ec42/3x | ec62/3x |")
print("|---|" + "---:|" * 7)
for w in WLS:
    m = {k: sum(x["iops"] for x in rows[k, w]) / 2 for k in KINDS}
    print("| %s | " % w + " | ".join("%.0f / %.0f" % tuple(x["iops"] for x in rows[k, w]) for k in KINDS)
          + " | " + " | ".join("%.3f" % (m[k] / m["noparent"]) for k in KINDS[1:]) + " |")
print("\n## clat mean ms (r1 / r2)\n")
print("| workload | " + " | ".join(KINDS) + " |")
print("|---|" + "---:|" * 4)
for w in WLS:
    print("| %s | " % w + " | ".join("%.2f / %.2f" % tuple(x["clat_ms"] for x in rows[k, w]) for k in KINDS) + " |")


def table(title, fn):
    print("\n## %s (r1 / r2)\n" % title)
    print("| workload | " + " | ".join(KINDS) + " |")
    print("|---|" + "---:|" * 4)
    for w in WLS:
        print("| %s | " % w + " | ".join(" / ".join(fn(x) for x in rows[k, w]) for k in KINDS) + " |")


table("BlueStore txcs per client write (sum bluestore_txc / sum osd.op_w)",
      lambda x: f(x["txc"] / x["op_w"]) if x["wr"] else "-")
table("BlueStore txcs per fio I/O (sum bluestore_txc / fio total_ios)",
      lambda x: f(x["txc"] / (x["rd"] + x["wr"]), 3))
table("BlueStore reads per client I/O (sum bluestore read_lat avgcount / fio total_ios)",
      lambda x: f(x["bs_read"] / (x["rd"] + x["wr"])))
table("client ops at the primaries per fio I/O ((op_r + op_w) / fio total_ios)",
      lambda x: f((x["op_r"] + x["op_w"]) / (x["rd"] + x["wr"]), 3))
table("subop + subop_w summed (replica sub-ops; EC shard ops count none)",
      lambda x: "%d" % (x["subop"]))
table("messages per fio I/O: received + sent over all OSDs' msgr workers",
      lambda x: "%.1f+%.1f" % (x["msg_rx"] / (x["rd"] + x["wr"]), x["msg_tx"] / (x["rd"] + x["wr"])))

# Idle background measured on the same cluster after the captures (30 s, no client):
# 343 messages/s received (345 sent) over the 8 OSDs' msgr workers, 0 BlueStore txcs.
IDLE_MSG_S = 343.0


def span(kind, wl, r):
    m = json.load(open(os.path.join(CAP, "%s_%s_sched-none_r%d" % (kind, wl, r), "meta.json")))
    return m["t_end"] - m["t_start"]


print("\n## messages received per fio I/O minus the idle rate (%.0f/s x fio wall time) (r1 / r2)\n" % IDLE_MSG_S)
print("| workload | " + " | ".join(KINDS) + " |")
print("|---|" + "---:|" * 4)
for w in WLS:
    cells = []
    for k in KINDS:
        cells.append(" / ".join("%.1f" % ((x["msg_rx"] - IDLE_MSG_S * span(k, w, r)) / (x["rd"] + x["wr"]))
                                for r, x in zip((1, 2), rows[k, w])))
    print("| %s | " % w + " | ".join(cells) + " |")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lab"))
import threads  # noqa: E402  tests/lab/threads.py

SHOW = ["tp_osd_tp", "msgr-worker", "bstore_kv_sync", "bstore_kv_final", "bstore_aio", "bstore_mempool",
        "OpHistorySvc", "ms_local"]
for rep in (1, 2):
    for field, title in (("cpu_us", "OSD CPU us per fio I/O"), ("wakeups", "voluntary switches (wake-ups) per fio I/O")):
        print("\n## %s, r%d (threads.py, summed over the 8 OSDs)\n" % (title, rep))
        print("| run | " + " | ".join(SHOW) + " | all OSD threads | OSD CPU cores busy |")
        print("|---|" + "---:|" * (len(SHOW) + 2))
        for w in ("randr-qd16", "randw-qd16"):
            for k in KINDS:
                t = threads.run_threads(os.path.join(CAP, "%s_%s_sched-none_r%d" % (k, w, rep)))
                th = t["threads"]
                tot = sum(v[field] for v in th.values())
                cores = sum(v["cpu_us"] for v in th.values()) * t["ios"] / 1e6 / span(k, w, rep)
                print("| %s %s | " % (k, w) + " | ".join(f(th.get(s, {}).get(field, 0.0), 1) for s in SHOW)
                      + " | %s | %.2f |" % (f(tot, 1), cores))
