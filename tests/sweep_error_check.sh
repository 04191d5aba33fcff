#!/usr/bin/env bash
# sweep_error_check.sh - a sweep worker that dies keeps its reason in
# runs.error: the signal AND the last line it wrote to stderr (issue 15:
# "runs.error keeps only the signal of a crashed worker, not its message").
#
#   tests/sweep_error_check.sh [BINDIR]
#
# The crash is made deterministic with an address-space limit (prlimit
# --as): a 3-host point fits in it, a 64,000-OSD point (the documented maximum) cannot set up, so its
# worker aborts with sim_xalloc's "out of memory" line.  Not under ASan
# (its shadow memory needs terabytes of address space).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-out/bin}
root=$(pwd)
command -v prlimit >/dev/null || { echo "sweep_error_check: prlimit (util-linux) missing"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cephsim-sweep-error-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/grid.json" <<JSON
{"name": "worker-error", "base": "$root/scenarios/qd1-latency.json",
 "set": {"sim.duration_s": 0.02, "sim.warmup_s": 0.01},
 "axes": {"size": {"alternatives": {"small": {"cluster.hosts": 3}, "huge": {"cluster.hosts": 1000, "cluster.osds_per_host": 64}}}}, "replications": 1}
JSON
prlimit --as=150000000 "$bin/cephsim" sweep "$tmp/grid.json" --db "$tmp/db.sqlite" -j 1 --quiet \
    >"$tmp/out" 2>&1 || { cat "$tmp/out"; }
rows=$(sqlite3 "$tmp/db.sqlite" "SELECT status || '|' || coalesce(error, '') FROM runs ORDER BY status")
done_rows=$(echo "$rows" | grep -c '^done|$' || true)
failed=$(echo "$rows" | grep '^failed|' || true)
[ "$done_rows" = 1 ] || { echo "expected the 3-host point done: $rows"; exit 1; }
echo "$failed" | grep -q 'killed by signal 6 (Aborted)' || { echo "no signal in runs.error: $failed"; exit 1; }
echo "$failed" | grep -q 'out of memory' || { echo "the worker's message is not in runs.error: $failed"; exit 1; }
echo "sweep_error_check: runs.error = ${failed#failed|}"
