#!/usr/bin/env bash
# `ninja bench`: speed figures, printed (never asserted in tests).
#  1. PHOLD A and B on the engine's queue, next to the plain C binary heap of
#     ../shared/bench/phold (built here into out/bench), in the same run, and
#     SimGrid's kernel-timer PHOLD (its cheapest event path) when libsimgrid-dev
#     is installed.
#  2. The cluster benchmarks (issue 14), each in its own forked child:
#     30-OSD (3 hosts x 10, 4 clients x iodepth 128), 1,000-OSD (100 hosts x
#     10, 32k PGs, 64 clients x iodepth 128) and the 320-OSD published shape
#     (tests/bench/published-320osd.json, 1 simulated second), then their
#     figures against the goals and against the reference heap's PHOLD B
#     events/s of this same run; then the 320-OSD shape as 4 of its 32
#     hosts (sim.reduce_to_hosts), what a user runs for its means.  CPU
#     seconds of the process are the measure of one core's work on a shared
#     machine; wall seconds are printed too.
#  3. The device/network sweep of the hardware models, and the sweep bench.
#  BENCH_320=0 skips the 320-OSD shape (the longest); D320=0.1 simulates
#  less of it (its figure is then scaled to one simulated second).
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

# the last table line of a cluster_bench run; columns as cluster_bench prints them
col() { awk -v c="$2" 'END {print $c}' "$1"; }
echo
echo "== cluster_bench 30-OSD (3 hosts x 10 OSDs, 1024 PGs, 4 clients x iodepth 128)"
$bin/cluster_bench -d 1,4 | tee out/bench/c30.txt
echo
echo "== cluster_bench 1000-OSD (100 hosts x 10 OSDs, 32768 PGs, 64 clients x iodepth 128, 4 GiB image each)"
$bin/cluster_bench -d 0.2 -c 64 -g 4 --set cluster.hosts=100 --set pool.pg_num=32768 | tee out/bench/c1000.txt
if [ "${BENCH_320:-1}" != 0 ]; then
  echo
  echo "== cluster_bench 320-OSD published shape (tests/bench/published-320osd.json, ${D320:=1} s simulated)"
  $bin/cluster_bench -k -s tests/bench/published-320osd.json -d "$D320" | tee out/bench/c320.txt
fi
if [ "${BENCH_320:-1}" != 0 ]; then
  echo
  echo "== cluster_bench 320-OSD published shape, reduced to 4 of its 32 hosts (sim.reduce_to_hosts, docs/scaling.md; ${D320R:=1} s simulated)"
  $bin/cluster_bench -k -s tests/bench/published-320osd.json -d "$D320R" --set sim.reduce_to_hosts=4 | tee out/bench/c320r.txt
fi
echo
echo "== speed at scale (issue 14 goals), ratios within this run"
heapB=$(for i in $(seq "$REPS"); do [ $have_ref = 1 ] && out/bench/phold_c -n 10000 -e 10 -T 100 -q bheap-rt; done |
        sed -n 's/.*ev_per_s=\([0-9]*\).*/\1/p' | median)
awk -v ops="$(col out/bench/c30.txt 7)" -v ev30="$(col out/bench/c30.txt 11)" -v epo30="$(col out/bench/c30.txt 9)" \
    -v ev1k="$(col out/bench/c1000.txt 11)" -v epo1k="$(col out/bench/c1000.txt 9)" \
    -v hwm="$(col out/bench/c1000.txt 16)" -v setup="$(col out/bench/c1000.txt 15)" -v heap="${heapB:-0}" 'BEGIN {
  printf "30-OSD: %.0f client ops per CPU second (goal >= 250000), %.1f events/op, %.2f M events/s\n", ops, epo30, ev30 / 1e6
  printf "1000-OSD: %.2f M events/s = %.2fx the 30-OSD (goal: within 1.3x, i.e. >= 0.77), %.1f events/op, max RSS %.1f MB (goal <= 100), set-up %.3f CPU s (goal < 1)\n",
         ev1k / 1e6, ev1k / ev30, epo1k, hwm / 1024, setup
  if (heap > 0)
    printf "vs the C binary heap on PHOLD B (%.2f M events/s this run): 30-OSD %.2fx, 1000-OSD %.2fx\n", heap / 1e6, ev30 / heap, ev1k / heap
}'
if [ -f out/bench/c320.txt ] && [ "${BENCH_320:-1}" != 0 ]; then
  awk -v d="$(col out/bench/c320.txt 1)" -v w="$(col out/bench/c320.txt 4)" -v c="$(col out/bench/c320.txt 5)" \
      -v iops="$(col out/bench/c320.txt 3)" -v ev="$(col out/bench/c320.txt 11)" -v heap="${heapB:-0}" 'BEGIN {
    printf "320-OSD shape: %.2f simulated s in %.1f s wall, %.1f s CPU = %.0f CPU s per simulated second (goal <= 30 s), %.0f simulated IOPS, %.2f M events/s",
           d, w, c, c / d, iops, ev / 1e6
    if (heap > 0) printf " = %.2fx the heap", ev / heap
    printf "\n"
  }'
fi

if [ -f out/bench/c320r.txt ] && [ "${BENCH_320:-1}" != 0 ]; then
  awk -v d="$(col out/bench/c320r.txt 1)" -v c="$(col out/bench/c320r.txt 5)" -v iops="$(col out/bench/c320r.txt 3)" \
      -v k="$(col out/bench/c320r.txt 18)" 'BEGIN {
    printf "320-OSD shape reduced to 4 of 32 hosts: %.0f CPU s per simulated second (goal <= 30 s: its means, not its tail), %.0f whole-cluster IOPS (%.0f simulated x %.2f)\n",
           c / d, iops * k, iops, k
  }'
fi

for b in hwsweep sweep_bench; do
  if [ -x "$bin/$b" ]; then
    echo
    echo "== $b"
    "$bin/$b"
  fi
done
