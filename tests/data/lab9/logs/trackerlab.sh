#!/bin/bash
# lab9 part 2: the op tracker on (history 20 ops / 600 s: Ceph's defaults) against off,
# 4k randread / randwrite at QD=32, 2 reps alternated
cd "$(dirname "$0")/../../../lab" || exit 1
eval "$(./minicluster.sh env)"
OUT=${OUT:-../data/lab9/captures}
for o in 0 1 2; do ceph tell osd.$o config set osd_op_history_size 20 >/dev/null; ceph tell osd.$o config set osd_op_history_duration 600 >/dev/null; done
for rep in 1 2; do
 for cfg in on off; do
  v=true; [ $cfg = off ] && v=false
  for o in 0 1 2; do ceph tell osd.$o config set osd_enable_op_tracker $v >/dev/null; done
  for wl in randread randwrite; do
   for o in 0 1 2; do ceph tell osd.$o cache drop >/dev/null 2>&1; done
   nice -n -10 python3 client_threads.py "$OUT" tracker-${cfg}_${wl}_qd32_r$rep --name=$wl --ioengine=rbd --clientname=admin --pool=rbd --rbdname=noparent --invalidate=0 --rw=$wl --bs=4k --iodepth=32 --direct=1 --runtime=20 --time_based=1
  done
 done
done
for o in 0 1 2; do ceph tell osd.$o config set osd_enable_op_tracker true >/dev/null; done
