#!/bin/bash
# lab9 part 1: the librbd client's threads, 4k randread / randwrite at QD=32 and QD=1,
# 2 reps alternated (the kit's ceph.conf: op history 500 ops / 900 s)
cd "$(dirname "$0")/../../../lab" || exit 1
eval "$(./minicluster.sh env)"
OUT=${OUT:-../data/lab9/captures}
mkdir -p "$OUT"
for rep in 1 2; do
 for wl in randread randwrite; do
  for qd in 32 1; do
   for o in 0 1 2; do ceph tell osd.$o cache drop >/dev/null 2>&1; done
   nice -n -10 python3 client_threads.py "$OUT" ${wl}_qd${qd}_r$rep --name=$wl --ioengine=rbd --clientname=admin --pool=rbd --rbdname=noparent --invalidate=0 --rw=$wl --bs=4k --iodepth=$qd --direct=1 --runtime=20 --time_based=1
  done
 done
done
