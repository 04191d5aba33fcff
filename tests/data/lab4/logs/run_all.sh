#!/usr/bin/env bash
# the three lab4 batches in order, each batch's stdout+stderr in logs/<batch>.log
cd "$(dirname "$0")" || exit 1
for b in run_rt run_deep run_qd1nice; do
    echo "== $b start $(date -u +%FT%TZ) $(cut -d' ' -f1-3 /proc/loadavg)"
    ./$b.sh > $b.log 2>&1; echo "== $b rc=$? end $(date -u +%FT%TZ) $(cut -d' ' -f1-3 /proc/loadavg)"
done
