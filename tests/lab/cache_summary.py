#!/usr/bin/env python3
"""Summarise a cache_probe.sh capture: one row per run, totals over the OSDs.

usage: cache_summary.py CAPTURE_DIR [--json OUT.json] [--md OUT.md]

CAPTURE_DIR holds one directory per image (cache512/, ...), each with the run
directories NN_<workload>_<pass>/ that cache_probe.sh writes.  Columns:
  hit, miss     bluestore_buffer_hit_bytes / _miss_bytes summed over the OSDs (MiB);
                counters are reset just before the run, so the after-dump is the run
  hit %         hit / (hit + miss)
  FIFO model %  what fifo_hit_ratio() expects for the run (random reads only)
  cached0/img   bluestore_buffer_bytes of all OSDs before the run over the image size:
                for uniformly random 4 KiB reads over the whole image the hit ratio
                a cache that neither grows nor shrinks during the run would give
  data MiB      mempool bluestore_cache_data bytes after the run, summed over the OSDs
  shard cap MiB the most the shards can hold after the run: per OSD the sum over its
                primary PGs of min(PG bytes, pc data committed / osd_num_cache_shards); without
                the autotuner the data cache is (1 - kv - meta - kv_onode ratios) x cache size
  pc data MiB   the priority cache's committed bytes for the data cache after the run,
                summed over the OSDs (bluestore-pricache:data committed_bytes); per OSD
                it is split evenly over osd_num_cache_shards buffer-cache shards
  read_lat      BlueStore's read_lat (BlueStore::read, cache lookup + device read), mean
                over the OSDs' reads
  IOPS, clat    fio's, read or write as the workload does
"""
import glob
import gzip
import json
import os
import re
import sys

MiB = 1024.0 * 1024.0


def load(path):
    with gzip.open(path, "rt") as f:
        return json.load(f)


def size_bytes(s):
    m = re.fullmatch(r"(\d+)([KMGT]?)", s)
    if not m:
        raise ValueError("image size %r" % s)
    return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2)]


def primaries(pg_ls_path):
    """Bytes, objects and PGs each OSD is primary for (after the prefill)."""
    d = json.load(open(pg_ls_path))
    pgs = d["pg_stats"] if isinstance(d, dict) else d
    out = {}
    for p in pgs:
        o = out.setdefault("osd.%d" % p["acting_primary"], {"pgs": 0, "bytes": 0, "objects": 0, "pg_bytes": []})
        o["pgs"] += 1
        o["bytes"] += p["stat_sum"]["num_bytes"]
        o["objects"] += p["stat_sum"]["num_objects"]
        o["pg_bytes"].append(p["stat_sum"]["num_bytes"])
    return out


def fifo_hit_ratio(cached0, cap, blocks, reads, random_map=True):
    """Expected hits of `reads` uniformly random 4 KiB reads of one OSD's `blocks` primary
    blocks, `cached0` of them cached at the start, in a cache of at most `cap` blocks that
    inserts every miss and evicts the oldest block first (2Q's warm_in is such a FIFO: a
    hit does not move a buffer).  With fio's random map (random_map=True) a pass reads a
    block at most once per loop over the image (fio starts the map over when a time_based
    pass has read every block), so only blocks cached before the loop can hit: an independent
    expectation (expected-value recursion) to compare the measured hit ratio with."""
    if reads <= 0 or blocks <= 0:
        return None
    cap = max(cap, cached0)
    old = float(cached0)        # blocks cached before the pass still cached
    unread = float(cached0)     # ... of which this pass has not read yet
    total = float(cached0)      # all cached blocks
    hits = 0.0
    nblocks = int(round(blocks))
    for t in range(int(reads)):
        if random_map and t and nblocks and t % nblocks == 0:
            # a time_based pass that has read every block starts the random map over:
            # everything cached is readable again
            unread = old = total
        left = (blocks - t % nblocks) if random_map else blocks
        if left <= 0:
            break
        p = (unread if random_map else total) / left
        p = min(1.0, max(0.0, p))
        hits += p
        if random_map:
            unread -= p
        miss = 1.0 - p
        if total + miss > cap:      # evict the oldest: blocks from before the pass first
            ev = total + miss - cap
            if old > 0:
                e = min(ev, old)
                if random_map:
                    unread -= e * unread / old
                old -= e
            total = cap
        else:
            total += miss
    return hits / reads


def osd_config(config_txt):
    """The option values config_osd0.txt (cache_probe.sh) recorded."""
    conf = {}
    for line in open(config_txt):
        w = line.split()
        if len(w) >= 2 and not w[0].startswith("#"):
            conf[w[0]] = w[1]
    if "osd_num_cache_shards" not in conf:
        raise ValueError("%s: no osd_num_cache_shards line" % config_txt)
    return conf


def fixed_data_alloc(conf):
    """Data cache bytes per OSD without the autotuner (MempoolThread::_resize_shards):
    (1 - kv - meta - kv_onode ratios) x bluestore_cache_size, else bluestore_cache_size_ssd
    (the lab forces SSD settings)."""
    size = int(conf.get("bluestore_cache_size", "0")) or int(conf["bluestore_cache_size_ssd"])
    ratio = 1.0 - sum(float(conf[k]) for k in ("bluestore_cache_kv_ratio", "bluestore_cache_meta_ratio",
                                                "bluestore_cache_kv_onode_ratio"))
    return max(0.0, ratio) * size


def run_row(d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    job = json.load(open(os.path.join(d, "fio.json")))["jobs"][0]
    ddir = "write" if job["write"]["total_ios"] and not job["read"]["total_ios"] else "read"
    x = job[ddir]
    row = {"run": os.path.basename(d), "label": meta["label"], "workload": meta["workload"],
           "pass": meta["pass"], "image_size": meta["image_size"], "ddir": ddir,
           "loadavg_start": meta["loadavg_start"], "loadavg_end": meta["loadavg_end"],
           "iops": x["iops"], "clat_mean_us": x["clat_ns"]["mean"] / 1e3,
           "clat_p50_us": x["clat_ns"]["percentile"]["50.000000"] / 1e3,
           "clat_p99_us": x["clat_ns"]["percentile"]["99.000000"] / 1e3,
           "total_ios": x["total_ios"], "osd": {}}
    tot = {}
    for f in sorted(glob.glob(os.path.join(d, "osd.*.after.json.gz"))):
        name = os.path.basename(f).split(".after")[0]
        a = load(f)
        b = load(f.replace(".after.", ".before."))
        ab, bb = a["perf"]["bluestore"], b["perf"]["bluestore"]
        pc = a["perf"].get("bluestore-pricache:data", {})
        o = {"hit_bytes": ab["bluestore_buffer_hit_bytes"], "miss_bytes": ab["bluestore_buffer_miss_bytes"],
             "buffers_before": bb["bluestore_buffers"], "buffers_after": ab["bluestore_buffers"],
             "buffer_bytes_before": bb["bluestore_buffer_bytes"], "buffer_bytes_after": ab["bluestore_buffer_bytes"],
             "onodes_after": ab["bluestore_onodes"], "onode_hits": ab["onode_hits"],
             "onode_misses": ab["onode_misses"],
             "read_lat_avg_us": 1e6 * ab["read_lat"]["avgtime"], "read_ops": ab["read_lat"]["avgcount"],
             "read_onode_meta_lat_avg_us": 1e6 * ab["read_onode_meta_lat"]["avgtime"],
             "pricache_data_committed": pc.get("committed_bytes", 0),
             "pricache_data_assigned": sum(v for k, v in pc.items() if k.startswith("pri")),
             "pricache_cache_bytes": a["perf"].get("bluestore-pricache", {}).get("cache_bytes", 0)}
        for c in ("kv", "kv_onode", "meta"):
            o["pricache_%s_committed" % c] = a["perf"].get("bluestore-pricache:" + c, {}).get("committed_bytes", 0)
        pools = a["mempools"]["mempool"]["by_pool"]
        for p in ("bluestore_cache_data", "bluestore_cache_onode", "bluestore_cache_other", "buffer_anon"):
            o["mempool_%s_bytes" % p] = pools[p]["bytes"]
            o["mempool_%s_items" % p] = pools[p]["items"]
        row["osd"][name] = o
        for k, v in o.items():
            if not k.endswith("_us"):
                tot[k] = tot.get(k, 0) + v
    row["total"] = tot
    ops = sum(o["read_ops"] for o in row["osd"].values())
    row["read_lat_avg_us"] = (sum(o["read_lat_avg_us"] * o["read_ops"] for o in row["osd"].values()) / ops
                              if ops else None)
    # the FIFO expectation per OSD: blocks = the OSD's primary bytes (pg_ls.json),
    # cap = the cache the run ended with (it stops growing once the shards are full)
    pl = os.path.join(os.path.dirname(d), "pg_ls.json")
    prim = primaries(pl) if os.path.exists(pl) else {}
    # the most the buffer cache can hold: every primary PG is its own cache shard
    # (spg_t::hash_to_shard = ps % osd_num_cache_shards; 32 PGs, 32 shards) and each
    # shard is trimmed to committed / shards (MempoolThread::_resize_shards)
    conf = osd_config(os.path.join(os.path.dirname(d), "config_osd0.txt"))
    shards = int(conf["osd_num_cache_shards"])
    cap = 0.0
    for name, o in row["osd"].items():
        # with bluestore_cache_autotune=false there is no priority cache: fixed ratios
        alloc = o["pricache_data_committed"] if conf.get("bluestore_cache_autotune") != "false" \
            else fixed_data_alloc(conf)
        per_shard = alloc / shards
        o["shard_model_capacity"] = sum(min(b, per_shard) for b in prim.get(name, {}).get("pg_bytes", []))
        cap += o["shard_model_capacity"]
    row["shard_model_capacity"] = cap
    if meta["workload"].startswith("randr") and prim and "fio-default-seed" not in meta["pass"]:
        rm = "--norandommap=1" not in meta["fio_args"]
        eh = 0.0
        for name, o in row["osd"].items():
            reads = (o["hit_bytes"] + o["miss_bytes"]) / 4096.0
            blocks = prim.get(name, {}).get("bytes", 0) / 4096.0
            r = fifo_hit_ratio(o["buffer_bytes_before"] / 4096.0, o["buffer_bytes_after"] / 4096.0,
                               blocks, reads, rm)
            o["fifo_model_hit_ratio"] = r
            eh += (r or 0.0) * reads * 4096.0
        hm = tot["hit_bytes"] + tot["miss_bytes"]
        row["fifo_model_hit_ratio"] = eh / hm if hm else None
    else:
        row["fifo_model_hit_ratio"] = None
    hm = tot["hit_bytes"] + tot["miss_bytes"]
    row["hit_ratio"] = tot["hit_bytes"] / hm if hm else None
    row["cached_before_over_image"] = tot["buffer_bytes_before"] / size_bytes(meta["image_size"])
    return row


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    top = argv[0]
    out_json = out_md = None
    if "--json" in argv:
        out_json = argv[argv.index("--json") + 1]
    if "--md" in argv:
        out_md = argv[argv.index("--md") + 1]
    images = {}
    for img in sorted(glob.glob(os.path.join(top, "*", "rbd_info.json"))):
        idir = os.path.dirname(img)
        label = os.path.basename(idir)
        runs = [run_row(d) for d in sorted(glob.glob(os.path.join(idir, "[0-9][0-9]_*")))
                if os.path.exists(os.path.join(d, "meta.json"))]
        pl = os.path.join(idir, "pg_ls.json")
        images[label] = {"primaries": primaries(pl) if os.path.exists(pl) else None, "runs": runs}
    lines = []
    for label, im in images.items():
        lines.append("### %s" % label)
        lines.append("")
        if im["primaries"]:
            lines.append("Primary share after the prefill: " + ", ".join(
                "%s %d PGs %.0f MiB" % (k, v["pgs"], v["bytes"] / MiB) for k, v in sorted(im["primaries"].items())))
            lines.append("")
        lines.append("| run | load 1m | IOPS | clat mean µs | p50 | p99 | hit MiB | miss MiB | hit % | FIFO model % | cached0/img % "
                     "| BlueStore read_lat µs | data MiB (0/1/2) | shard cap MiB | pc data MiB (0/1/2) | onode miss |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in im["runs"]:
            t = r["total"]
            per = lambda k: "/".join("%.0f" % (r["osd"][o][k] / MiB) for o in sorted(r["osd"]))
            lines.append("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f | %s | %s | %.1f | %s | %.0f (%s) | %.0f | %.0f (%s) | %d |" % (
                r["run"], r["loadavg_start"].split()[0], r["iops"], r["clat_mean_us"], r["clat_p50_us"],
                r["clat_p99_us"], t["hit_bytes"] / MiB, t["miss_bytes"] / MiB,
                "-" if r["hit_ratio"] is None else "%.1f" % (100 * r["hit_ratio"]),
                "-" if r["fifo_model_hit_ratio"] is None else "%.1f" % (100 * r["fifo_model_hit_ratio"]),
                100 * r["cached_before_over_image"],
                "-" if r["read_lat_avg_us"] is None else "%.0f" % r["read_lat_avg_us"],
                t["mempool_bluestore_cache_data_bytes"] / MiB, per("mempool_bluestore_cache_data_bytes"),
                r["shard_model_capacity"] / MiB,
                t["pricache_data_committed"] / MiB, per("pricache_data_committed"), t["onode_misses"]))
        lines.append("")
    text = "\n".join(lines)
    if out_md:
        with open(out_md, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    if out_json:
        with open(out_json, "w") as f:
            json.dump(images, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
