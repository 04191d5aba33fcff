#!/usr/bin/env bash
# run_one.sh RW QD REP MODE   (MODE: fp | dwarf | none)
set -u
RW=$1 QD=$2 REP=$3 MODE=${4:-fp}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(realpath -m "${OUTDIR:-out}")/${RW}_qd${QD}_${MODE}_r${REP}
cd "$HERE/../../../lab" && eval "$(./minicluster.sh env)"
mkdir -p $OUT
while pgrep -f 'cluster_bench|phold|hwsweep|sweep_bench' >/dev/null; do sleep 20; done
for o in 0 1 2; do ceph tell osd.$o cache drop >/dev/null 2>&1; done
cat /proc/loadavg > $OUT/loadavg_start.txt
FIOARGS="--name=$RW --ioengine=rbd --clientname=admin --pool=rbd --rbdname=noparent --invalidate=0 --rw=$RW --bs=4k --iodepth=$QD --direct=1 --numjobs=1 --runtime=25 --time_based=1 --output-format=json --output=$OUT/fio.json --write_iops_log=$OUT/log --log_avg_msec=1000"
echo "fio $FIOARGS" > $OUT/cmd.txt
T0=$(date +%s.%N)
fio $FIOARGS & FP=$!
sleep $(echo "$T0 + 5 - $(date +%s.%N)" | bc)
python3 "$HERE/snap.py" $FP $OUT/snap_a.json
TA=$(date +%s.%N)
case $MODE in
 fp)    PCMD="perf record -e cpu-clock -F 4999 -g --call-graph=fp -p $FP -o $OUT/perf.data -- sleep 15";;
 dwarf) PCMD="perf record -e cpu-clock -F 499 --call-graph=dwarf,16384 -p $FP -o $OUT/perf.data -- sleep 15";;
 flat)  PCMD="perf record -e cpu-clock -F 999 -p $FP -o $OUT/perf.data -- sleep 15";;
 none)  PCMD="sleep 15";;
 dwarf2) PCMD="perf record -e cpu-clock -F 1999 --call-graph=dwarf,8192 -p $FP -o $OUT/perf.data -- sleep 15";;
esac
echo "$PCMD" >> $OUT/cmd.txt
$PCMD > $OUT/perf_record.log 2>&1
python3 "$HERE/snap.py" $FP $OUT/snap_b.json
wait $FP; echo "fio rc=$?" >> $OUT/cmd.txt
echo "t0=$T0 ta=$TA" >> $OUT/cmd.txt
cat /proc/loadavg > $OUT/loadavg_end.txt
