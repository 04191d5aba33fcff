#!/usr/bin/env bash
# foreign_load.sh -- the fio matrix of capture.sh again with k CPU-bound processes of
# someone else's running on the machine: what other work on an OSD host (a VM, a
# container, another daemon, a neighbour's benchmark) does to Ceph's latency and IOPS.
#
# usage: foreign_load.sh OUTDIR
# env:   HOGS="0 1 2"      numbers of foreign processes to run, one pass of the matrix each
#        HOG_NICE=0        their nice value (the lab's own threads keep capture.sh's NICE, -10)
#        MATRIX_WL="randw-qd1:simple randw-qd16:none randr-qd1:none"   WORKLOAD:SCHED pairs
#        REPS=2 RUNTIME=20 and the rest as capture.sh (QUIET_WAIT is 0: the load is the point)
# Each foreign process is a busy loop (`sh -c 'while :; do :; done'`: user-mode CPU only, no
# system calls); their PIDs are recorded in OUTDIR/hogs-K.pids and killed after the pass.
# Run directories are named hogK_<workload>_sched-<s>_r<rep> (image noparent); capture.sh
# records /proc/stat, every lab thread's CPU and every other process's before and after
# each run, so the loops' CPU actually taken is in cpu_before/after.json ("others"), which
# `cephsim validate` and `calibrate --compare` report (foreign_cores).
set -eu
OUT="${1:?usage: foreign_load.sh OUTDIR}"
HOGS="${HOGS:-0 1 2}"
HOG_NICE="${HOG_NICE:-0}"
MATRIX_WL="${MATRIX_WL:-randw-qd1:simple randw-qd16:none randr-qd1:none}"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT"
hog_pids=()
stop_hogs() {
    for p in "${hog_pids[@]:-}"; do
        [ -n "$p" ] && kill "$p" 2>/dev/null || true
    done
    hog_pids=()
}
trap stop_hogs EXIT
for k in $HOGS; do
    for i in $(seq 1 "$k"); do
        nice -n "$HOG_NICE" sh -c 'while :; do :; done' &
        hog_pids+=("$!")
    done
    printf '%s\n' "${hog_pids[@]:-}" > "$OUT/hogs-$k.pids"
    m=""
    for wl in $MATRIX_WL; do
        m="$m hog$k=noparent@noparent:${wl%%:*}:${wl#*:}"
    done
    QUIET_WAIT=0 MATRIX="$m" "$here/capture.sh" "$OUT"
    stop_hogs
done
