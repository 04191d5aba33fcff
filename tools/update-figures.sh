#!/usr/bin/env bash
# Regenerates the README's figures from a fresh run of the default studies:
# the pictures are cephsim's own output (cephsim plot), never drawn by hand.
#   tools/update-figures.sh        (after ninja; writes docs/figures/*.png)
set -euo pipefail
cd "$(dirname "$0")/.."
out/bin/cephsim run -o out/runs/default > out/runs/default.txt
out/bin/cephsim plot out/runs/default -f png >/dev/null
for f in qd1-tunings iops-vs-iodepth copyup qd1-latency.waterfall clone-serialisation.latency-cdf; do
  cp "out/runs/default/plots/$f.png" "docs/figures/$f.png"
done
cat out/runs/default.txt
