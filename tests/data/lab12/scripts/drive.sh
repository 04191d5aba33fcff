#!/usr/bin/env bash
# drive.sh OUTROOT "NAME:RW:QD:MODE[:TRACE_OSD] ..." : run_probe.sh + reduce_run.py for each item, each
# only when the machine is quiet (no foreign process above FOREIGN_MAX cores over 10 s,
# waiting up to WAIT_MAX s), and again (up to TRIES times) when the window or the run had
# more than 0.2 cores of other processes; rejected attempts are kept as NAME.rejectN.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTROOT="$1"; shift
WAIT_MAX="${WAIT_MAX:-1800}"; TRIES="${TRIES:-4}"; FOREIGN_MAX="${FOREIGN_MAX:-0.10}"
LAB="${CEPHLAB_DIR:-/var/tmp/cephlab}"   # minicluster.sh's data dir
log() { echo "[drive $(date +%H:%M:%S)] $*" >&2; }
foreign_now() {  # cores used over 10 s by processes other than the lab daemons and kernel threads
    python3 - "$LAB/pids" <<'PY'
import os, re, sys, time
lab = set(l.split()[1] for l in open(sys.argv[1]))
kth = re.compile(r"^(kworker|ksoftirqd|jbd2|rcu_|kswapd|migration|kdamond|kcompactd)")
def t():
    o = {}
    for p in os.listdir("/proc"):
        if not p.isdigit() or p in lab or p == str(os.getpid()):
            continue
        try:
            s = open("/proc/%s/stat" % p).read()
        except OSError:
            continue
        r = s[s.rindex(")") + 2:].split()
        o[p] = (s[s.index("(") + 1:s.rindex(")")], int(r[11]) + int(r[12]))
    return o
def busy():
    v = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return sum(v[:3]) + v[5] + v[6]
def labt():
    n = 0
    for p in lab:
        try:
            r = open("/proc/%s/stat" % p).read()
            r = r[r.rindex(")") + 2:].split(); n += int(r[11]) + int(r[12])
        except OSError:
            pass
    return n
a, ba, la, t0 = t(), busy(), labt(), time.time()
time.sleep(10)
b, bb, lb, t1 = t(), busy(), labt(), time.time()
hz = os.sysconf("SC_CLK_TCK"); dt = t1 - t0
fo = sum(b[p][1] - a[p][1] for p in b if p in a and not kth.match(b[p][0])) / hz / dt
rest = ((bb - ba) - (lb - la)) / hz / dt
print("%.3f %.3f" % (max(fo, rest), fo))
PY
}
for item in "$@"; do
    IFS=: read -r name rw qd mode tosd <<< "$item"
    if [ -s "$OUTROOT/$name/summary.json" ]; then log "skip $name (done)"; continue; fi
    for ((try = 1; try <= TRIES; try++)); do
        waited=0
        while :; do
            f=$(foreign_now); f1=${f% *}
            if awk -v f="$f1" -v m="$FOREIGN_MAX" 'BEGIN {exit !(f <= m)}'; then break; fi
            if [ "$waited" -ge "$WAIT_MAX" ]; then log "still busy ($f) after $waited s: running anyway"; break; fi
            [ $((waited % 120)) -lt 15 ] && log "machine busy (foreign $f cores), waiting"
            sleep 5; waited=$((waited + 15))
        done
        log "$name (try $try, foreign before $f)"
        TRACE_OSD="${tosd:-0}" QUIET_WAIT=10 "$HERE/run_probe.sh" "$OUTROOT" "$name" "$rw" "$qd" "$mode" || { log "run failed"; continue; }
        python3 "$HERE/reduce_run.py" "$OUTROOT/$name" || { log "reduce failed"; continue; }
        bad=$(python3 - "$OUTROOT/$name/summary.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w, r = d["window"]["load"], d["run"]["load"]
# the window: other processes + the unexplained rest above its usual 0.1 (fio and the tracer
# are measured there); the whole run: other processes only (its "rest" holds fio's librbd
# threads, which fio's own usr/sys CPU figures leave out)
f = lambda L: L["other_user_cores"] + max(0.0, L["rest_cores"] - 0.1)
print(1 if max(f(w), r["other_user_cores"]) > 0.2 else 0)
PY
)
        if [ "$bad" = 0 ]; then break; fi
        log "$name: foreign load > 0.2 cores, repeating"
        rm -f "$OUTROOT/$name/perf_script.txt.gz"
        mv "$OUTROOT/$name" "$OUTROOT/$name.reject$try"
    done
done
log "all done"
