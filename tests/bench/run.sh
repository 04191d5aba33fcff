#!/usr/bin/env bash
# `ninja bench`: speed figures, printed (never asserted in tests).
#  1. PHOLD A and B on the engine's queue, next to the plain C binary heap of
#     ../shared/bench/phold (built here into out/bench), in the same run, and
#     SimGrid's kernel-timer PHOLD (its cheapest event path) when libsimgrid-dev
#     is installed.
#  2. The cluster benchmark (simulated client ops per wall second).
#  3. The device/network sweep of the hardware models.
set -u
cd "$(dirname "$0")/../.."
bin=out/bin
ref=../shared/bench/phold
mkdir -p out/bench
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "== PHOLD (events per second of the event loop; median of ${REPS:=3} runs)"
have_ref=0
if [ -f "$ref/c/phold_heap.c" ] && cc -O2 -o out/bench/phold_c "$ref/c/phold_heap.c" -lm 2>/dev/null; then
  have_ref=1
fi
have_sg=0
if [ -f "$ref/simgrid/phold_sg.cpp" ] && dpkg -s libsimgrid-dev >/dev/null 2>&1 &&
   g++ -O2 -std=c++17 -o out/bench/phold_sg "$ref/simgrid/phold_sg.cpp" -lsimgrid 2>/dev/null; then
  have_sg=1
fi
for cfg in A B; do
  if [ $cfg = A ]; then args="-n 1000 -e 1 -T 10000"; else args="-n 10000 -e 10 -T 100"; fi
  line=""
  ours=$(for i in $(seq "$REPS"); do $bin/phold $cfg; done | tee out/bench/phold_$cfg.txt |
         sed -n 's/.*events_per_s=\([0-9]*\).*/\1/p' | median)
  tail -n 1 out/bench/phold_$cfg.txt
  if [ $have_ref = 1 ]; then
    heap=$(for i in $(seq "$REPS"); do out/bench/phold_c $args -q bheap-rt; done |
           sed -n 's/.*ev_per_s=\([0-9]*\).*/\1/p' | median)
    line="c-bheap-rt=$heap ratio=$(awk -v a="$ours" -v b="$heap" 'BEGIN {printf "%.2f", a / b}') (goal >= 0.70)"
  fi
  if [ $have_sg = 1 ]; then
    sg=$(for i in $(seq "$REPS"); do (out/bench/phold_sg $args -q timers --log=root.thres:warning 2>/dev/null); done |
         sed -n 's/.*ev_per_s=\([0-9]*\).*/\1/p' | median)
    if [ -n "$sg" ] && [ "$sg" != 0 ]; then
      line="$line simgrid=$sg ratio=$(awk -v a="$ours" -v b="$sg" 'BEGIN {printf "%.2f", a / b}') (goal >= 3)"
    else
      line="$line (SimGrid's PHOLD failed on this config: see ../shared/docs/phold.md's figures)"
    fi
  fi
  echo "phold config=$cfg median events_per_s=$ours $line"
done
[ $have_sg = 1 ] || echo "(SimGrid not installed: compare with ../shared/docs/phold.md's figures, or apt-get install libsimgrid-dev)"

for b in cluster_bench hwsweep sweep_bench; do
  if [ -x "$bin/$b" ]; then
    echo
    echo "== $b"
    "$bin/$b"
  fi
done
