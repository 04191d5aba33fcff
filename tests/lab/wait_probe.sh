#!/usr/bin/env bash
# wait_probe.sh OUTFILE [RW]: what osd.0's threads block on, per op (tests/lab/wait_classify.py).
# fio QD=1 4 KiB (RW: randwrite, default, or randread) on the noparent image of the
# minicluster for 16 s; 4 s in, strace follows osd.0's threads for 6 s (futex,
# epoll_wait, io_getevents, fdatasync, fsync).  strace slows the OSD several-fold:
# the counts per op hold at QD=1 (nothing queues), timings do not.
set -eu
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$1"; RW="${2:-randwrite}"
eval "$("$HERE/minicluster.sh" env)"
LAB="$(dirname "$CEPH_CONF")"
pid0=$(awk '$1=="osd.0"{print $2}' "$LAB/pids")
ops() { ceph daemon osd.0 perf dump 2>/dev/null |
        python3 -c "import json,sys; d=json.load(sys.stdin)['osd']; print(d['op_w'] + d['subop_w'] + d['op_r'])"; }
trace="$(mktemp "${TMPDIR:-/tmp}/wait_probe.XXXXXX")"
trap 'rm -f -- "$trace"' EXIT
fio --name=probe --ioengine=rbd --clientname=admin --pool=rbd --rbdname=noparent --rw="$RW" --bs=4k \
    --iodepth=1 --direct=1 --time_based --runtime=16 --output-format=json > /dev/null &
fpid=$!
sleep 4
p0=$(ops)
timeout -s INT 6 strace -f -qq -e trace=futex,epoll_wait,io_getevents,fdatasync,fsync -o "$trace" -p "$pid0" || true
p1=$(ops)
wait "$fpid"
python3 "$HERE/wait_classify.py" "$trace" "$pid0" $((p1 - p0)) > "$OUT"
cat "$OUT"
