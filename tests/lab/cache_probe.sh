#!/usr/bin/env bash
# cache_probe.sh -- what BlueStore's data (buffer) cache does for RBD reads on the
# minicluster: cold/warm random-read passes over an image that fits the OSDs' caches
# and one that does not, how much a random-write pass drops, and a cold pass after
# `cache drop` (tests/data/lab3/NOTES.md).
#
# usage: cache_probe.sh OUTDIR
# env:   IMAGES="cache512:512M cache4g:4G"  LABEL:SIZE, one sequence per image, in order
#        WRITE_DROP="cache512"  labels whose sequence includes the randwrite QD=16 pass and
#                    the QD=1 re-read after it
#        REPEAT_SEED="cache512"  labels whose sequence ends with two QD=1 passes on fio's
#                    default random sequence (randrepeat=1: the same offsets both times)
#        OSD_CONFIG="OPTION=VALUE ..."  set in the monitors' config database for every OSD
#                    (`ceph config set osd OPTION VALUE`) after a FRESH start, then restart the
#                    cluster so that options read only at mount (bluestore_cache_autotune,
#                    bluestore_cache_size_ssd) apply
#        FRESH=1     purge and start a new minicluster before each image, so that every
#                    sequence starts from empty caches (0 = reuse the running cluster)
#        RUNTIME=20  seconds per fio run (time_based)
#        SAMPLE=2    seconds between cache snapshots taken during each run (samples.jsonl)
#        NICE=-10    nice value of the lab daemons' threads and of fio (0 = leave)
#        POOL=rbd
#
# Per run directory OUTDIR/<label>/<NN>_<workload>_<pass>/:
#   fio.json, fio_cmd.txt     fio --output-format=json and its command line
#   osd.N.before.json.gz      {"perf": perf dump, "mempools": dump_mempools} right after
#                             `perf reset all`; osd.N.after.json.gz the same after fio
#   samples.jsonl             cache counters of every OSD every SAMPLE s (cache_snap.py)
#   meta.json                 workload, pass, randseed, times, load averages
# Per image: OUTDIR/<label>/pg_ls.json (`ceph pg ls-by-pool`, after the prefill: which OSD
# is primary for how many bytes), rbd_info.json; per cluster: OUTDIR/<label>/config_osd0.txt.
#
# Each pass uses its own fio random sequence (--randrepeat=0 --randseed=N: reproducible,
# and distinct per N).  With fio's default randrepeat=1, fio 3.33 draws the offsets from
# one fixed seed whatever --randseed says, so every pass reads the same offsets in the
# same order and pass 2 hits exactly the blocks pass 1 read; REPEAT_SEED labels end with
# two such default-seed passes to show it.  Within a pass fio's random map
# (norandommap=0) reads each 4 KiB block at most once, so the blocks a pass itself
# brings into the cache never hit in that pass; every sequence therefore ends with
# one QD=1 pass with --norandommap=1 (offsets drawn with replacement).
set -eu
set -o pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="${1:?usage: cache_probe.sh OUTDIR}"
IMAGES="${IMAGES:-cache512:512M cache4g:4G}"
WRITE_DROP="${WRITE_DROP:-cache512}"
REPEAT_SEED="${REPEAT_SEED:-cache512}"
FRESH="${FRESH:-1}"
OSD_CONFIG="${OSD_CONFIG:-}"
RUNTIME="${RUNTIME:-20}"
SAMPLE="${SAMPLE:-2}"
NICE="${NICE:--10}"
POOL="${POOL:-rbd}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

log() { echo "[cache_probe $(date -u +%H:%M:%S)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

eval "$("$HERE/minicluster.sh" env)"
LAB="$(dirname "$CEPH_CONF")"
case "$OUT/" in "$LAB"/*) die "OUTDIR must not be inside the lab data dir $LAB (FRESH=1 purges it)" ;; esac
ASOK="python3 $HERE/asok.py"
SNAP="python3 $HERE/cache_snap.py"

socks() { ls "$LAB"/run/ceph-osd.*.asok; }

renice_lab() {
    [ "$NICE" = 0 ] && return 0
    local pid
    for pid in $(awk '{print $2}' "$LAB/pids"); do
        # shellcheck disable=SC2046
        renice -n "$NICE" -p $(ls "/proc/$pid/task" 2>/dev/null) >/dev/null 2>&1 || true
    done
}

# the cache and memory options as the OSD sees them; the data dir is written as
# ${CEPHLAB_DIR} so that the file names no path of this machine
cluster_config() {  # cluster_config FILE
    {
        echo "# ceph config show-with-defaults osd.0 (cache/memory options), ceph-osd $(ceph-osd --version | awk '{print $3}')"
        ceph config show-with-defaults osd.0 | awk 'NR == 1 || $1 ~ /^(osd_memory_|bluestore_cache_|bluestore_default_buffered_|bluestore_2q_|bluestore_min_alloc_size|bluestore_max_blob_size|bluestore_csum_type|bluestore_debug_enforce_settings|bluestore_prefer_deferred_size|rbd_cache$|osd_op_num_|osd_num_cache_shards)/ {print $1, $2, $3}'
        echo "# heap stats (whether ceph-osd runs on tcmalloc: the autotuner reads the heap size from it)"
        ceph daemon "$(socks | head -1)" heap stats 2>&1 | sed 's/^/# /'
    } | sed "s|$LAB|\${CEPHLAB_DIR}|g" > "$1"
}

ensure_pool() {
    if ! ceph osd pool ls | grep -qx "$POOL"; then
        log "creating pool $POOL (32 PGs, size 3, min_size 2)"
        ceph osd pool create "$POOL" 32 32 replicated >/dev/null
        ceph osd pool set "$POOL" size 3 --yes-i-really-mean-it >/dev/null
        ceph osd pool set "$POOL" min_size 2 >/dev/null
        ceph osd pool set "$POOL" pg_autoscale_mode off >/dev/null
        rbd pool init "$POOL"
        local i
        for ((i = 0; i < 120; i++)); do
            ceph pg stat -f json | python3 -c '
import json, sys
s = json.load(sys.stdin)
s = s.get("pg_summary", s)
clean = sum(x["num"] for x in s.get("num_pg_by_state", []) if x["name"] == "active+clean")
sys.exit(0 if s.get("num_pgs", 0) >= 32 and clean == s["num_pgs"] else 1)' && return 0
            sleep 1
        done
        die "pool $POOL: PGs not active+clean after 120 s"
    fi
}

# run_fio DIR WORKLOAD PASS FIO-ARGS...: one measured run (counters reset just before)
run_fio() {
    local dir="$1" wl="$2" pass="$3"; shift 3
    rm -rf "$dir"; mkdir -p "$dir"
    local prio=""
    [ "$NICE" = 0 ] || prio="nice -n $NICE"
    local cmd="fio --name=$wl --ioengine=rbd --clientname=admin --pool=$POOL --rbdname=$IMG --invalidate=0 $* --numjobs=1 --group_reporting=1 --output-format=json --output=fio.json"
    echo "$prio $cmd" > "$dir/fio_cmd.txt"
    local -a S
    mapfile -t S < <(socks)
    renice_lab
    $ASOK "$dir" - "perf reset all" "${S[@]}"
    $SNAP dump "$dir" before "${S[@]}"
    local load0 load1 t0 t1
    load0="$(cut -d' ' -f1-3 /proc/loadavg)"
    t0=$(date +%s.%N)
    log "run ${dir#"$OUT"/} load $load0"
    $SNAP sample "$dir/samples.jsonl" "$SAMPLE" "$((RUNTIME + 1))" "${S[@]}" &
    local spid=$!
    # shellcheck disable=SC2086
    ( cd "$dir" && exec $prio $cmd )
    t1=$(date +%s.%N)
    wait "$spid" || log "sampler failed (samples.jsonl incomplete)"
    load1="$(cut -d' ' -f1-3 /proc/loadavg)"
    $SNAP dump "$dir" after "${S[@]}"
    cat > "$dir/meta.json" <<EOF
{"label": "$LABEL", "image": "$IMG", "image_size": "$SIZE", "pool": "$POOL", "workload": "$wl", "pass": "$pass",
 "fio_args": "$*", "t_start": $t0, "t_end": $t1, "loadavg_start": "$load0", "loadavg_end": "$load1",
 "nice": $NICE, "sample_period_s": $SAMPLE}
EOF
    python3 - "$dir" <<'EOF' >&2
import glob, gzip, json, os, sys
d = sys.argv[1]
j = json.load(open(os.path.join(d, "fio.json")))["jobs"][0]
hit = miss = 0
for f in glob.glob(os.path.join(d, "osd.*.after.json.gz")):
    b = json.load(gzip.open(f, "rt"))["perf"]["bluestore"]
    hit += b["bluestore_buffer_hit_bytes"]; miss += b["bluestore_buffer_miss_bytes"]
for k in ("read", "write"):
    x = j[k]
    if x["total_ios"]:
        print("   %s iops=%.0f clat_mean=%.0fus p99=%.0fus  buffer hit %.1f MiB miss %.1f MiB (%.1f %%)" % (
            k, x["iops"], x["clat_ns"]["mean"] / 1e3, x["clat_ns"]["percentile"]["99.000000"] / 1e3,
            hit / 2**20, miss / 2**20, 100.0 * hit / max(1, hit + miss)))
EOF
}

n=0
run() {  # run WORKLOAD PASS FIO-ARGS...
    local wl="$1" pass="$2"; shift 2
    n=$((n + 1))
    run_fio "$OUT/$LABEL/$(printf %02d "$n")_${wl}_${pass}" "$wl" "$pass" "$@"
}

T0=$(date +%s)
for spec in $IMAGES; do
    LABEL="${spec%%:*}"; SIZE="${spec#*:}"; IMG="$LABEL"; n=-1
    if [ "$FRESH" = 1 ]; then
        log "$LABEL: new minicluster"
        "$HERE/minicluster.sh" purge
        "$HERE/minicluster.sh" start >/dev/null
        if [ -n "$OSD_CONFIG" ]; then
            for kv in $OSD_CONFIG; do
                log "ceph config set osd ${kv%%=*} ${kv#*=}"
                ceph config set osd "${kv%%=*}" "${kv#*=}"
            done
            "$HERE/minicluster.sh" stop
            "$HERE/minicluster.sh" start >/dev/null
        fi
    fi
    ensure_pool
    mkdir -p "$OUT/$LABEL"
    cluster_config "$OUT/$LABEL/config_osd0.txt"
    rbd rm --no-progress "$POOL/$IMG" >/dev/null 2>&1 || true
    rbd create --size "$SIZE" "$POOL/$IMG"
    rbd info --format json "$POOL/$IMG" > "$OUT/$LABEL/rbd_info.json"
    R="--runtime=$RUNTIME --time_based=1 --randrepeat=0"
    # prefill as cbt's librbdfio does: sequential full-object writes, QD=1
    run prefill 0 --rw=write --bs=4M --iodepth=1 --size="$SIZE"
    ceph pg ls-by-pool "$POOL" -f json > "$OUT/$LABEL/pg_ls.json"
    run randr-qd1 p1 --rw=randread --bs=4k --iodepth=1 $R --randseed=101
    run randr-qd1 p2 --rw=randread --bs=4k --iodepth=1 $R --randseed=102
    run randr-qd1 p3 --rw=randread --bs=4k --iodepth=1 $R --randseed=103
    run randr-qd16 p1 --rw=randread --bs=4k --iodepth=16 $R --randseed=161
    run randr-qd16 p2 --rw=randread --bs=4k --iodepth=16 $R --randseed=162
    if [[ " $WRITE_DROP " == *" $LABEL "* ]]; then
        run randw-qd16 p1 --rw=randwrite --bs=4k --iodepth=16 $R --randseed=261
        run randr-qd1 after-write --rw=randread --bs=4k --iodepth=1 $R --randseed=104
    fi
    log "$LABEL: cache drop on every OSD"
    mapfile -t S < <(socks)
    $ASOK "$OUT/$LABEL" - "cache drop" "${S[@]}"
    run randr-qd1 after-drop --rw=randread --bs=4k --iodepth=1 $R --randseed=105
    # sampling with replacement: every cached block is as likely to be read as any
    # other, so the hit ratio is the cached fraction of the image (no random map)
    run randr-qd1 norandommap --rw=randread --bs=4k --iodepth=1 $R --randseed=106 --norandommap=1
    if [[ " $REPEAT_SEED " == *" $LABEL "* ]]; then
        run randr-qd1 fio-default-seed-a --rw=randread --bs=4k --iodepth=1 --runtime="$RUNTIME" --time_based=1
        run randr-qd1 fio-default-seed-b --rw=randread --bs=4k --iodepth=1 --runtime="$RUNTIME" --time_based=1
    fi
done
log "done in $(( $(date +%s) - T0 )) s"
