#!/usr/bin/env bash
cd "$(dirname "$0")"
for cfg in "randread 1" "randread 32" "randwrite 1" "randwrite 32"; do set -- $cfg; ./run_one.sh $1 $2 2 none; done
./run_one.sh randread 1 1 flat
./run_one.sh randwrite 32 1 flat
echo done > out/batch3.done
