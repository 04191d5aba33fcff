#!/usr/bin/env bash
cd "$(dirname "$0")"
for cfg in "randread 1" "randwrite 1" "randread 32" "randwrite 32"; do
  set -- $cfg
  ./run_one.sh $1 $2 1 dwarf2
done
echo done > out/batch2.done
