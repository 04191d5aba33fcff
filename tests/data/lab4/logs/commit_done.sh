#!/usr/bin/env bash
# stage the finished runs (meta.json written) of captures/, without the
# dump_historic_ops_by_duration files (same ops as osd.N.historic.json.gz, sorted;
# read by neither cephsim validate/calibrate nor analyze.py)
cd "$(dirname "$0")/.." || exit 1
for d in captures/*/; do
    [ -s "$d/meta.json" ] || continue
    rm -f "$d"/osd.*.historic_by_duration.json.gz
    git add "$d"
done
