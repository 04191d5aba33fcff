#!/usr/bin/env bash
# run_probe.sh OUTROOT NAME RW QD MODE
#   One fio run (ioengine=rbd, 4 KiB RW at iodepth QD, RUNTIME s, on the minicluster's
#   noparent image) with snapshots (snap.py: per-thread CPU / voluntary switches of every
#   lab daemon, the OSDs' op counters, /proc/stat, other processes) at the start, at
#   T0 s, at T0+TW s and at the end.  MODE:
#     off     nothing attached (the tracer-off reference)
#     perf    perf record -e sched:sched_switch --call-graph dwarf,STACK on osd.0 from T0 for TW s
#     strace  the kit's wait_probe strace on osd.0 from T0 for TW s
#   Writes OUTROOT/NAME/: fio.json, snap_{start,w0,w1,end}.json, meta.json, and
#   perf.data / strace.txt (raw, reduced by reduce_run.py and then deleted).
#   Daemons reniced to NICE (-10), fio run at nice NICE as capture.sh does; cache drop on
#   every OSD before the run; $BUSY (if set) exists while fio runs.
set -eu
HERE="$(cd "$(dirname "$0")" && pwd)"
KIT="$(cd "$HERE/../../../lab" && pwd)"   # the repository's tests/lab
OUTROOT="$1"; NAME="$2"; RW="$3"; QD="$4"; MODE="$5"
RUNTIME="${RUNTIME:-20}"; T0="${T0:-7}"; TW="${TW:-6}"; NICE="${NICE:--10}"
STACK="${STACK:-4096}"; QUIET_WAIT="${QUIET_WAIT:-90}"
BUSY="${BUSY:-}"             # a marker file that exists while fio runs (none by default)
eval "$("$KIT/minicluster.sh" env)"
LAB="$(dirname "$CEPH_CONF")"
PIDFILE="$LAB/pids"
TRACE_OSD="${TRACE_OSD:-0}"   # the OSD the tracer follows
pid0=$(awk -v o="osd.$TRACE_OSD" '$1==o{print $2}' "$PIDFILE")
DIR="$OUTROOT/$NAME"
rm -rf "$DIR"; mkdir -p "$DIR"
log() { echo "[run_probe $(date +%H:%M:%S)] $*" >&2; }

# renice every thread of every lab daemon (as capture.sh's renice_lab)
for pid in $(awk '{print $2}' "$PIDFILE"); do
    renice -n "$NICE" -p $(ls "/proc/$pid/task") >/dev/null 2>&1 || true
done
# wait (<= QUIET_WAIT s) for a quiet machine: >= 90 % idle over 2 s
quiet=$(python3 - "$QUIET_WAIT" <<'PY'
import sys, time
limit = float(sys.argv[1])
def snap():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v[:8]), v[3] + v[4]
t0 = time.time()
while True:
    a = snap(); time.sleep(2); b = snap()
    idle = 100.0 * (b[1] - a[1]) / max(1, b[0] - a[0])
    if idle >= 90 or time.time() - t0 >= limit:
        break
print("%.0f %.1f" % (time.time() - t0, idle))
PY
)
for s in "$LAB"/run/ceph-osd.*.asok; do python3 "$KIT/asok.py" "$OUTROOT/$NAME" - "cache drop" "$s"; done
[ -z "$BUSY" ] || touch "$BUSY"
nice -n "$NICE" python3 "$HERE/snap.py" "$PIDFILE" > "$DIR/snap_start.json"
tstart=$(date +%s.%N)
fiocmd="fio --name=${RW}-qd${QD} --ioengine=rbd --clientname=admin --pool=rbd --rbdname=noparent --invalidate=0 --rw=$RW --bs=4k --iodepth=$QD --numjobs=1 --direct=1 --runtime=$RUNTIME --time_based=1 --group_reporting=1 --output-format=json --output=fio.json"
echo "nice -n $NICE $fiocmd" > "$DIR/fio_cmd.txt"
( cd "$DIR" && exec nice -n "$NICE" $fiocmd ) &
fpid=$!
sleep "$T0"
tracer=""
nice -n "$NICE" python3 "$HERE/snap.py" "$PIDFILE" $fpid > "$DIR/snap_w0.json"
case "$MODE" in
    perf)
        /usr/bin/time -f "%e %U %S" -o "$DIR/tracer_time.txt" perf record -q -B -k CLOCK_MONOTONIC -e sched:sched_switch \
            --call-graph "dwarf,$STACK" -m 16M -p "$pid0" -o "$DIR/perf.data" -- sleep "$TW" \
            2> "$DIR/perf_record.err" &
        tracer=$! ;;
    strace)
        /usr/bin/time -f "%e %U %S" -o "$DIR/tracer_time.txt" timeout -s INT "$TW" strace -f -qq \
            -e trace=futex,epoll_wait,io_getevents,fdatasync,fsync -o "$DIR/strace.txt" -p "$pid0" &
        tracer=$! ;;
    uprobe)
        # counts only: uprobes made by uprobes.sh (ShardedOpWQ::_process entries, _enqueue,
        # dequeue_op, and _process's return after a wake-up that found the queue empty)
        /usr/bin/time -f "%e %U %S" -o "$DIR/tracer_time.txt" perf stat -x, -o "$DIR/uprobe_counts.csv" \
            -e probe_ceph:osdproc,probe_ceph:osdenq,probe_ceph:osddeq,probe_ceph:osdfutile \
            -p "$pid0" -- sleep "$TW" &
        tracer=$! ;;
    off) ;;
    *) echo "bad MODE $MODE" >&2; exit 2 ;;
esac
# the window ends when the tracer stops recording (its own sleep/timeout of TW s), not when it
# has written its file
sleep "$TW"
nice -n "$NICE" python3 "$HERE/snap.py" "$PIDFILE" $fpid > "$DIR/snap_w1.json"
[ -n "$tracer" ] && { wait "$tracer" || true; }
wait "$fpid"
nice -n "$NICE" python3 "$HERE/snap.py" "$PIDFILE" > "$DIR/snap_end.json"
tend=$(date +%s.%N)
[ -z "$BUSY" ] || rm -f "$BUSY"
cat > "$DIR/meta.json" <<EOJ
{"name": "$NAME", "rw": "$RW", "iodepth": $QD, "mode": "$MODE", "runtime_s": $RUNTIME,
 "window_start_s": $T0, "window_s": $TW, "nice": $NICE, "perf_stack_bytes": $STACK,
 "traced_osd": $TRACE_OSD, "osd0_pid": $pid0, "fio_pid": $fpid, "tracer_pid": "${tracer}",
 "t_start": $tstart, "t_end": $tend, "pre_run_quiet_wait_s": ${quiet% *}, "pre_run_idle_pct": ${quiet#* },
 "kernel": "$(uname -r)", "ceph": "$(ceph-osd --version | awk '{print $3}')"}
EOJ
python3 - "$DIR/fio.json" <<'PY' >&2
import json,sys
j=json.load(open(sys.argv[1]))['jobs'][0]
for d in ('read', 'write'):
    x = j[d]
    if x['total_ios']:
        print("   %s iops=%.0f clat_mean=%.0fus p99=%.0fus" % (d, x['iops'], x['clat_ns']['mean']/1e3,
              x['clat_ns']['percentile']['99.000000']/1e3))
PY
log "done $NAME"
