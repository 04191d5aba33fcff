#!/usr/bin/env python3
"""Snapshots of BlueStore's caches through the OSD admin sockets (cache_probe.sh).

usage: cache_snap.py dump OUTDIR TAG SOCKET...
           OUTDIR/osd.N.TAG.json.gz = {"perf": <perf dump>, "mempools": <dump_mempools>}
       cache_snap.py sample OUTFILE PERIOD_S DURATION_S SOCKET...
           one JSON line per OSD every PERIOD_S seconds for DURATION_S seconds: the cache
           counters and sizes only (hit/miss bytes, buffers, mempool bluestore_cache_data,
           the priority cache's data/kv/meta/kv_onode assignments), to show how the data
           cache fills during a run.  Costs ~2 ms of OSD CPU per OSD per sample.
"""
import gzip
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from asok import asok_command, daemon_name  # noqa: E402

CACHES = ("data", "kv", "kv_onode", "meta")


def ask(sock, prefix):
    data = asok_command(sock, {"prefix": prefix})
    if data.startswith(b"ERROR"):
        raise IOError("%s: %s -> %s" % (sock, prefix, data.decode(errors="replace")))
    return json.loads(data.decode())


def compact(perf, mempools):
    """The cache-related numbers of one OSD, flat (names as Ceph prints them)."""
    b = perf["bluestore"]
    row = {k: b[k] for k in ("bluestore_buffer_hit_bytes", "bluestore_buffer_miss_bytes",
                             "bluestore_buffers", "bluestore_buffer_bytes", "bluestore_onodes",
                             "onode_hits", "onode_misses")}
    row["read_lat_avgcount"] = b["read_lat"]["avgcount"]
    row["read_lat_sum"] = b["read_lat"]["sum"]
    pools = mempools["mempool"]["by_pool"]
    for p in ("bluestore_cache_data", "bluestore_cache_onode", "bluestore_cache_other",
              "buffer_anon"):
        row["mempool_%s_bytes" % p] = pools[p]["bytes"]
        row["mempool_%s_items" % p] = pools[p]["items"]
    pc = perf.get("bluestore-pricache")
    if pc:
        row["pricache_cache_bytes"] = pc["cache_bytes"]
        row["pricache_heap_bytes"] = pc["heap_bytes"]
    for c in CACHES:
        s = perf.get("bluestore-pricache:" + c)
        if s:
            row["pricache_%s_committed_bytes" % c] = s["committed_bytes"]
            row["pricache_%s_assigned_bytes" % c] = sum(
                v for k, v in s.items() if k.startswith("pri") and k.endswith("_bytes"))
    return row


def do_dump(outdir, tag, socks):
    os.makedirs(outdir, exist_ok=True)
    for sock in socks:
        snap = {"time": time.time(), "perf": ask(sock, "perf dump"),
                "mempools": ask(sock, "dump_mempools")}
        fn = os.path.join(outdir, "%s.%s.json.gz" % (daemon_name(sock), tag))
        with gzip.open(fn, "wt", compresslevel=6) as f:
            json.dump(snap, f)


def do_sample(outfile, period, duration, socks):
    t0 = time.time()
    with open(outfile, "w") as out:
        while True:
            for sock in socks:
                t = time.time()
                try:
                    row = compact(ask(sock, "perf dump"), ask(sock, "dump_mempools"))
                except (IOError, OSError, ValueError) as e:
                    print("cache_snap.py: %s" % e, file=sys.stderr)
                    continue
                row = dict({"t": round(t - t0, 3), "osd": daemon_name(sock)}, **row)
                out.write(json.dumps(row) + "\n")
            out.flush()
            if time.time() - t0 + period > duration:
                break
            time.sleep(max(0.0, t0 + period * (1 + int((time.time() - t0) / period)) - time.time()))


def main(argv):
    if len(argv) >= 4 and argv[0] == "dump":
        do_dump(argv[1], argv[2], argv[3:])
        return 0
    if len(argv) >= 5 and argv[0] == "sample":
        do_sample(argv[1], float(argv[2]), float(argv[3]), argv[4:])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
