#!/usr/bin/env bash
cd "$(dirname "$0")"
for rep in 1 2; do
 for cfg in "randread 1" "randread 32" "randwrite 1" "randwrite 32"; do
  set -- $cfg
  [ -f out/${1}_qd${2}_fp_r${rep}/snap_b.json ] && continue
  ./run_one.sh $1 $2 $rep fp
 done
done
for cfg in "randread 1" "randread 32" "randwrite 1" "randwrite 32"; do
  set -- $cfg
  ./run_one.sh $1 $2 1 none
done
for cfg in "randread 1" "randwrite 1" "randread 32" "randwrite 32"; do
  set -- $cfg
  ./run_one.sh $1 $2 1 dwarf
done
echo done > out/batch.done
