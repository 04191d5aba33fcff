#!/usr/bin/env bash
# lab4 batch 4: re-run (FORCE=1) the disturbed runs, each with its batch's env:
#  - foreign (nice > 0) processes took >= 5 % of the CPU during the run (group_table.py's
#    last column, logs/group_table_before_reruns.md), or
#  - loadavg_start > 0.5 above the lab's own level for that kind of run (the first run after
#    image setup or after the deep batch: residual load, BlueStore/RocksDB background work);
# then reps 4-5 of the six groups whose undisturbed spread stayed > 15 %. QD=1 runs first
# (while the load is at the QD=1 level), deep runs last.
cd "$(dirname "$0")/../../../lab" || exit 1
C=../data/lab4/captures
COMMON="QUIET_WAIT=60 RUNTIME=20 MID=12"
env $COMMON RT=1 REPS=3 FORCE=1 \
    ONLY='^(noparent_randw-qd1_sched-none_rt_r1|clone-fresh_randw-qd1_sched-none_rt_r2|clone-written_randw-qd1_sched-none_rt_r2|noparent_randr-qd1_sched-none_rt_r3)$' \
    MATRIX="noparent:randw-qd1:none noparent:randr-qd1:none clone-written:randw-qd1:none clone-fresh:randw-qd1:none" ./capture.sh $C
env $COMMON NICE=-20 REPS=3 FORCE=1 \
    ONLY='^(noparent_randw-qd1_sched-none_r1|noparent_randr-qd1_sched-none_r1)$' \
    MATRIX="noparent:randw-qd1:none noparent:randr-qd1:none" ./capture.sh $C
env $COMMON RT=1 REPS=5 ONLY='_r[45]$' \
    MATRIX="noparent:randr-qd1:none clone-written:randw-qd1:none clone-fresh:randw-qd1:none" ./capture.sh $C
env $COMMON NICE=-20 REPS=3 FORCE=1 \
    ONLY='^(noparent_randr-qd32_sched-none_r1|noparent_randrw-qd16-mix70_sched-none_r1|noparent_randw-bs16k-qd16_sched-none_r1|noparent_randw-qd64_sched-none_r1)$' \
    MATRIX="noparent:randw-qd64:none noparent:randr-qd32:none noparent:randrw-qd16-mix70:none noparent:randw-bs16k-qd16:none" ./capture.sh $C
env $COMMON NICE=-20 REPS=5 ONLY='_r[45]$' \
    MATRIX="noparent:randw-qd4:none noparent-2img=noparent@noparent,noparent2:randw-qd16:none clone-fresh:seqw-qd16:none" ./capture.sh $C
