#!/usr/bin/env bash
# capture.sh -- run the fio (rbd engine) matrix against the minicluster (or, with
# EXTERNAL=1, an existing cluster) and capture OSD perf counters, historic ops and
# CPU use for every run.  The run directories are what `cephsim validate`,
# `cephsim calibrate` and `cephsim replay` read (see README.md).
#
# usage: capture.sh [OUTDIR]        (default: ./lab-captures)
# env:   RUNTIME=20  seconds per fio run (time_based)
#        MID=12      seconds after fio start to grab the 1-second op window
#        REPS=2      repetitions of the whole matrix
#        ONLY=REGEX  only run names matching REGEX
#        FORCE=1     re-run even if <run>/fio.json exists (default: resume)
#        NICE=-10    nice value given to the lab's own daemons (all threads of the
#                    PIDs in the pidfile) and to fio, so that unrelated load on a
#                    shared machine disturbs the measurement less (0 = leave)
#        RT=1        instead of nice: put every thread of the lab daemons and fio
#                    in SCHED_RR priority 1 for the run (isolates a latency run
#                    from other CPU load on a shared machine; reverted after the
#                    run); run names get a "_rt" tag.  Use only for QD1 runs.
#        WORKLOADS="seqw-qd128 randw-qd128"  QD128 workloads (x both schedulers)
#        QD1_WORKLOADS="randw-qd1 seqw-qd1"   QD1 workloads (simple scheduler)
#        KINDS="clone-fresh clone-written noparent clone-flat"  images (setup_images.sh)
#        QUIET_WAIT=60  seconds to wait (at most) for the machine to be >=80% idle
#                    before each run; the outcome is recorded in meta.json
#        POOL=rbd    pool of the images
#        DROP_CACHE=1  `cache drop` on every OSD before each run, so that it starts with
#                    BlueStore's caches cold, as cephsim simulates it by default (fio's
#                    randrepeat=1 re-reads the previous run's offsets, which the OSDs
#                    still hold: tests/data/lab4/NOTES.md); 0 = keep them (lab, lab2,
#                    lab4 were taken so); recorded in meta.json
#   labwork extensions:
#        MATRIX="KIND:WORKLOAD:SCHED ..."  run exactly these (per rep) instead of the
#                    WORKLOADS/QD1_WORKLOADS x KINDS loops; KIND may be LABEL=KIND@IMG[,IMG]
#        workload names <pat>[-bs<size>]-qd<N>[-nj<J>][-mix<R>] (see fio_args)
#        meta.json also records label, images, fio_args, loadavg_start/loadavg_end
#   Existing cluster (not started by minicluster.sh):
#        EXTERNAL=1  use $CEPH_CONF (default /etc/ceph/ceph.conf) instead of the lab's;
#                    daemons are never reniced, put in SCHED_RR or stopped
#        OSD_CMD=asok|tell  how OSDs are asked: asok = their admin sockets on THIS host
#                    (ASOK_GLOB, default /var/run/ceph/ceph-osd.*.asok: only local OSDs),
#                    tell = `ceph tell osd.N ...` for every OSD of `ceph osd ls`
#                    (default: asok for the lab, tell for EXTERNAL=1)
#
# Each run directory <OUTDIR>/<image>_<workload>_sched-<s>_r<rep>/ gets:
#   fio.json                         fio --output-format=json
#   fio_cmd.txt                      the exact fio command line
#   rbd_info.json                    rbd info of the image used
#   osd.N.perf.json                  perf dump after the run (reset just before it)
#   osd.N.historic_window.json.gz    dump_historic_ops taken MID s into the run
#                                    with osd_op_history_duration=1 and size=20000,
#                                    i.e. EVERY op that completed in that ~1 s
#   osd.N.historic.json.gz           dump_historic_ops after the run, history
#                                    size 200 / duration 900 s from MID on
#                                    (=> the 200 slowest ops of the last part:
#                                    the OSD evicts the SHORTEST ops first)
#   osd.N.historic_by_duration.json.gz  dump_historic_ops_by_duration, same set
#   cpu_before.json cpu_after.json   /proc/stat + daemon CPU ticks (this host only)
#   meta.json                        times, image, workload, scheduler
set -eu
set -o pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
EXTERNAL="${EXTERNAL:-0}"
if [ "$EXTERNAL" = 1 ]; then
    export CEPH_CONF="${CEPH_CONF:-/etc/ceph/ceph.conf}"
    OSD_CMD="${OSD_CMD:-tell}"
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/cephlab-capture.XXXXXX")"
    trap 'rm -rf -- "$WORK"' EXIT
    PIDFILE="$WORK/pids"
    # CPU snapshots cover the ceph-osd processes of this host (read only)
    for pid in $(pgrep -x ceph-osd || true); do echo "osd.pid$pid $pid"; done > "$PIDFILE"
    CONF_DIR="$WORK"
    NICE="${NICE:-0}"
else
    eval "$("$HERE/minicluster.sh" env)"
    LAB="$(dirname "$CEPH_CONF")"
    OSD_CMD="${OSD_CMD:-asok}"
    PIDFILE="$LAB/pids"
    CONF_DIR="$LAB"
    NICE="${NICE:--10}"
fi
OUT="${1:-$PWD/lab-captures}"
RUNTIME="${RUNTIME:-20}"
MID="${MID:-12}"
REPS="${REPS:-2}"
ONLY="${ONLY:-.}"
FORCE="${FORCE:-0}"
QUIET_WAIT="${QUIET_WAIT:-60}"
RT="${RT:-0}"
WORKLOADS="${WORKLOADS-seqw-qd128 randw-qd128}"
QD1_WORKLOADS="${QD1_WORKLOADS-randw-qd1 seqw-qd1}"
KINDS="${KINDS-clone-fresh clone-written noparent clone-flat}"
TAG=""; [ "$RT" = 1 ] && TAG="_rt"
POOL="${POOL:-rbd}"
ASOK="python3 $HERE/asok.py"
if [ "$OSD_CMD" = asok ]; then
    if [ "$EXTERNAL" = 1 ]; then
        # shellcheck disable=SC2206
        SOCKS=(${ASOK_GLOB:-/var/run/ceph/ceph-osd.*.asok})
    else
        SOCKS=("$LAB"/run/ceph-osd.*.asok)
    fi
    [ -S "${SOCKS[0]}" ] || { echo "capture.sh: no OSD admin socket (${SOCKS[0]})" >&2; exit 1; }
else
    OSD_IDS="$(ceph osd ls)"
    [ -n "$OSD_IDS" ] || { echo "capture.sh: ceph osd ls returned nothing" >&2; exit 1; }
fi
mkdir -p "$OUT"

log() { echo "[capture $(date +%H:%M:%S)] $*" >&2; }

# client config variants: identical to ceph.conf plus the librbd io scheduler
for s in none simple; do
    { cat "$CEPH_CONF"; printf '\n[client]\nrbd_io_scheduler = %s\n' "$s"; } > "$CONF_DIR/ceph-client-sched-$s.conf"
done

# osd_all OUTDIR SUFFIX COMMAND: COMMAND on every OSD; SUFFIX "-" discards the output,
# else OUTDIR/osd.N.SUFFIX.json (.gz with GZ=1).
osd_all() {
    local dir="$1" suffix="$2" cmd="$3" id
    if [ "$OSD_CMD" = asok ]; then
        if [ "${GZ:-0}" = 1 ]; then $ASOK --gzip "$dir" "$suffix" "$cmd" "${SOCKS[@]}"
        else $ASOK "$dir" "$suffix" "$cmd" "${SOCKS[@]}"; fi
        return
    fi
    for id in $OSD_IDS; do
        # shellcheck disable=SC2086
        if [ "$suffix" = - ]; then timeout 60 ceph tell "osd.$id" $cmd >/dev/null
        elif [ "${GZ:-0}" = 1 ]; then timeout 60 ceph tell "osd.$id" $cmd | gzip -6 > "$dir/osd.$id.$suffix.json.gz"
        else timeout 60 ceph tell "osd.$id" $cmd > "$dir/osd.$id.$suffix.json"; fi
    done
}

hist_window_mode() {  # keep every op of the last second
    osd_all /tmp - "config set osd_op_history_size 20000"
    osd_all /tmp - "config set osd_op_history_duration 1"
}
hist_tail_mode() {    # keep the 200 slowest ops of the last 900 s
    osd_all /tmp - "config set osd_op_history_duration 900"
    osd_all /tmp - "config set osd_op_history_size 200"
}

fio_args() {  # fio_args <workload>
    # the shipped names, plus a generic form (labwork extension):
    #   <pat>[-bs<size>]-qd<N>[-nj<J>][-mix<R>]
    #   pat: seqw randw seqr randr seqrw randrw (rw=write randwrite read randread rw randrw)
    #   bs default 4k; nj = fio numjobs (default 1); mix = rwmixread percent (rw/randrw only)
    case "$1" in
        seqw-qd128)  echo "--rw=write --bs=4k --iodepth=128" ;;
        randw-qd128) echo "--rw=randwrite --bs=4k --iodepth=128" ;;
        randw-qd1)   echo "--rw=randwrite --bs=4k --iodepth=1" ;;
        seqw-qd1)    echo "--rw=write --bs=4k --iodepth=1" ;;
        *)
            local pat bs=4k qd="" nj="" mix="" f rw
            IFS=- read -r -a f <<< "$1"
            pat="${f[0]}"
            for x in "${f[@]:1}"; do
                case "$x" in
                    bs*) bs="${x#bs}" ;;
                    qd*) qd="${x#qd}" ;;
                    nj*) nj="${x#nj}" ;;
                    mix*) mix="${x#mix}" ;;
                    *) echo "unknown workload $1 (field $x)" >&2; return 1 ;;
                esac
            done
            case "$pat" in
                seqw) rw=write ;; randw) rw=randwrite ;; seqr) rw=read ;; randr) rw=randread ;;
                seqrw) rw=rw ;; randrw) rw=randrw ;;
                *) echo "unknown workload $1 (pattern $pat)" >&2; return 1 ;;
            esac
            [ -n "$qd" ] || { echo "unknown workload $1 (no -qdN)" >&2; return 1; }
            local a="--rw=$rw --bs=$bs --iodepth=$qd"
            [ -n "$mix" ] && a="$a --rwmixread=$mix"
            [ -n "$nj" ] && a="$a --numjobs=$nj"
            echo "$a" ;;
    esac
}

lab_tids() {
    local pid
    [ "$EXTERNAL" = 1 ] && return 0   # never touch daemons this kit did not start
    for pid in $(awk '{print $2}' "$PIDFILE"); do ls "/proc/$pid/task" 2>/dev/null; done
}
rt_lab() {  # rt_lab on|off: SCHED_RR 1 / back to SCHED_OTHER for every lab thread
    local t
    for t in $(lab_tids); do
        if [ "$1" = on ]; then chrt -r -p 1 "$t" >/dev/null 2>&1 || true
        else chrt -o -p 0 "$t" >/dev/null 2>&1 || true; fi
    done
}
renice_lab() {  # renice every thread of every recorded daemon
    [ "$NICE" = 0 ] && return 0
    [ "$EXTERNAL" = 1 ] && return 0
    local pid tids
    for pid in $(awk '{print $2}' "$PIDFILE"); do
        tids=$(ls "/proc/$pid/task" 2>/dev/null) || continue
        renice -n "$NICE" -p $tids >/dev/null 2>&1 || true
    done
}

wait_quiet() {  # prints "<waited_s> <idle_pct>"
    python3 - "$QUIET_WAIT" <<'PYEOF'
import sys, time
limit = float(sys.argv[1])
def snap():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v[:8]), v[3] + v[4]
t0 = time.time(); idle = 0.0
while True:
    a = snap(); time.sleep(2); b = snap()
    idle = 100.0 * (b[1] - a[1]) / max(1, b[0] - a[0])
    if idle >= 80 or time.time() - t0 >= limit:
        break
print("%.0f %.1f" % (time.time() - t0, idle))
PYEOF
}

run_one() {  # run_one <image-kind> <workload> <sched> <rep>
    # <image-kind> is a KINDS word (noparent, clone-written, clone-flat, clone-fresh) or
    # (labwork extension) LABEL=KIND@IMAGE[,IMAGE...]: run directory named after LABEL,
    # meta.json image_kind KIND (what cephsim infers the image type from), fio run against
    # IMAGE (one fio job per IMAGE when several, all in one group_reporting group).
    local spec="$1" wl="$2" sched="$3" rep="$4"
    local label="$spec" kind="$spec" imgs=""
    if [[ "$spec" == *=*@* ]]; then
        label="${spec%%=*}"; kind="${spec#*=}"; imgs="${kind#*@}"; kind="${kind%%@*}"
    fi
    local name="${label}_${wl}_sched-${sched}${TAG}_r${rep}"
    local dir="$OUT/$name"
    [[ "$name" =~ $ONLY ]] || return 0
    if [ "$FORCE" != 1 ] && [ -s "$dir/fio.json" ]; then
        log "skip $name (done)"; return 0
    fi
    rm -rf "$dir"; mkdir -p "$dir"
    local img="$kind"
    [ -n "$imgs" ] && img="${imgs%%,*}"
    if [ "$kind" = clone-fresh ]; then
        img="clone-fresh-${wl}-${sched}-r${rep}"
        imgs=""
        rbd rm --no-progress "$POOL/$img" >/dev/null 2>&1 || true
        rbd clone "$POOL/parent@base" "$POOL/$img"
    fi
    [ -n "$imgs" ] || imgs="$img"
    local -a images
    IFS=, read -r -a images <<< "$imgs"
    rbd info --format json "$POOL/${images[0]}" > "$dir/rbd_info.json"
    local k
    for ((k = 1; k < ${#images[@]}; k++)); do
        rbd info --format json "$POOL/${images[$k]}" > "$dir/rbd_info.$((k + 1)).json"
    done
    local args
    args="$(fio_args "$wl")"
    [[ "$args" == *--numjobs=* ]] || args="$args --numjobs=1"
    local prio="nice -n $NICE"
    [ "$NICE" = 0 ] && prio=""
    [ "$RT" = 1 ] && prio="chrt -r 1"
    local cmd
    if [ ${#images[@]} = 1 ]; then   # as shipped: every option is a job option
        cmd="fio --name=$wl --ioengine=rbd --clientname=admin --pool=$POOL --rbdname=${images[0]} --invalidate=0 $args --runtime=$RUNTIME --time_based=1 --group_reporting=1 --output-format=json --output=fio.json"
    else   # global options, then one job per image (fio.json: rw/bs/iodepth in "global options")
        cmd="fio --ioengine=rbd --clientname=admin --pool=$POOL --invalidate=0 $args --runtime=$RUNTIME --time_based=1 --group_reporting=1 --output-format=json --output=fio.json"
        for k in "${images[@]}"; do cmd="$cmd --name=$wl-$k --rbdname=$k"; done
    fi
    echo "CEPH_CONF=<conf dir>/ceph-client-sched-$sched.conf $prio $cmd" > "$dir/fio_cmd.txt"

    renice_lab
    local quiet load0 load1
    quiet="$(wait_quiet)"
    [ "$RT" = 1 ] && rt_lab on
    hist_window_mode
    if [ "${DROP_CACHE:-1}" = 1 ]; then osd_all /tmp - "cache drop"; fi
    osd_all /tmp - "perf reset all"
    python3 "$HERE/cpu_snap.py" "$PIDFILE" > "$dir/cpu_before.json"
    local t0 t1 tmid
    load0="$(cut -d' ' -f1-3 /proc/loadavg)"
    t0=$(date +%s.%N)
    log "run $name (image ${images[*]}) load $load0"
    ( cd "$dir" && CEPH_CONF="$CONF_DIR/ceph-client-sched-$sched.conf" exec $prio $cmd ) &
    local fpid=$!
    sleep "$MID"
    tmid=$(date +%s.%N)
    GZ=1 osd_all "$dir" historic_window dump_historic_ops 2>/dev/null
    hist_tail_mode
    wait "$fpid"
    t1=$(date +%s.%N)
    load1="$(cut -d' ' -f1-3 /proc/loadavg)"
    [ "$RT" = 1 ] && rt_lab off
    python3 "$HERE/cpu_snap.py" "$PIDFILE" > "$dir/cpu_after.json"
    osd_all "$dir" perf "perf dump" 2>/dev/null
    GZ=1 osd_all "$dir" historic dump_historic_ops 2>/dev/null
    GZ=1 osd_all "$dir" historic_by_duration dump_historic_ops_by_duration 2>/dev/null
    local imgjson
    imgjson="$(printf '"%s",' "${images[@]}")"; imgjson="[${imgjson%,}]"
    cat > "$dir/meta.json" <<EOF
{"run": "$name", "label": "$label", "image_kind": "$kind", "image": "${images[0]}", "images": $imgjson, "pool": "$POOL",
 "workload": "$wl", "fio_args": "$args", "rbd_io_scheduler": "$sched", "rep": $rep,
 "runtime_s": $RUNTIME, "window_dump_at_s": $MID,
 "t_start": $t0, "t_window_dump": $tmid, "t_end": $t1,
 "loadavg_start": "$load0", "loadavg_end": "$load1",
 "nice": ${NICE:-0}, "sched_rr": $RT, "cache_dropped": $([ "${DROP_CACHE:-1}" = 1 ] && echo true || echo false), "external": $EXTERNAL, "pre_run_quiet_wait_s": ${quiet% *}, "pre_run_idle_pct": ${quiet#* }}
EOF
    if [ "$kind" = clone-fresh ]; then
        rbd rm --no-progress "$POOL/$img" >/dev/null
    fi
    python3 - "$dir/fio.json" <<'EOF' >&2
import json,sys
j=json.load(open(sys.argv[1]))['jobs'][0]
for d in ('read', 'write'):
    x = j[d]
    if x['total_ios']:
        print("   %s iops=%.0f clat_mean=%.0fus p50=%.0fus p99=%.0fus" % (d, x['iops'], x['clat_ns']['mean']/1e3,
              x['clat_ns']['percentile']['50.000000']/1e3, x['clat_ns']['percentile']['99.000000']/1e3))
EOF
}

if [ "$EXTERNAL" = 1 ]; then
    # put the op-history settings of a cluster this kit does not own back as they were
    if [ "$OSD_CMD" = tell ]; then
        first="$(echo "$OSD_IDS" | head -1)"
        HIST0="$(ceph tell "osd.$first" config get osd_op_history_size -f json | python3 -c 'import json,sys; print(list(json.load(sys.stdin).values())[0])') $(ceph tell "osd.$first" config get osd_op_history_duration -f json | python3 -c 'import json,sys; print(list(json.load(sys.stdin).values())[0])')"
    else
        HIST0="$($ASOK --get "config get osd_op_history_size" "${SOCKS[0]}") $($ASOK --get "config get osd_op_history_duration" "${SOCKS[0]}")"
    fi
    restore_hist() {
        osd_all /tmp - "config set osd_op_history_size ${HIST0% *}" || true
        osd_all /tmp - "config set osd_op_history_duration ${HIST0#* }" || true
        rm -rf -- "$WORK"
    }
    trap restore_hist EXIT
    log "op history now ${HIST0% *} ops / ${HIST0#* } s; restored on exit"
fi

T0=$(date +%s)
for rep in $(seq 1 "$REPS"); do
    if [ -n "${MATRIX:-}" ]; then
        # labwork extension: MATRIX="KIND:WORKLOAD:SCHED ..." replaces the default loops
        for m in $MATRIX; do
            IFS=: read -r mk mw ms <<< "$m"
            run_one "$mk" "$mw" "$ms" "$rep"
        done
        continue
    fi
    for wl in $WORKLOADS; do
        for sched in none simple; do
            for kind in $KINDS; do
                run_one "$kind" "$wl" "$sched" "$rep"
            done
        done
    done
    for wl in $QD1_WORKLOADS; do
        for kind in $KINDS; do
            run_one "$kind" "$wl" simple "$rep"
        done
    done
done
[ "$EXTERNAL" = 1 ] || hist_tail_mode
log "capture done in $(( $(date +%s) - T0 )) s"
