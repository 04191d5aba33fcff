#!/usr/bin/env bash
# cli_run_check.sh - `cephsim run`'s forms as its --help gives them:
#  * -q leaves stdout empty, also for the seed studies (which still write
#    their JSON summaries);
#  * --jobfile F without a scenario is `run F`: the job file on the seed
#    cluster (scenarios/qd1-latency.json), the same outputs;
#  * a scenario-less job file and --jobfile together are refused (one job file);
#  * a run whose writes were all copy-ups says why its summary has no waterfall.
#
#   tests/cli_run_check.sh [BINDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-out/bin}/cephsim
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cephsim-cli-run-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
short=(--set sim.duration_s=0.02 --set sim.warmup_s=0 --set sim.replications=1)

"$bin" run "${short[@]}" -q -o "$tmp/studies" >"$tmp/out"
[ ! -s "$tmp/out" ] || { echo "run -q (seed studies) printed: $(head -c 200 "$tmp/out")"; exit 1; }
[ -s "$tmp/studies/qd1-latency.json" ] || { echo "run -q wrote no qd1-latency.json"; exit 1; }

job=tests/data/fio/examples/rbd.fio
"$bin" run "$job" "${short[@]}" -q -o "$tmp/bare" >"$tmp/out"
[ ! -s "$tmp/out" ] || { echo "run F.fio -q printed: $(head -c 200 "$tmp/out")"; exit 1; }
"$bin" run --jobfile "$job" "${short[@]}" -q -o "$tmp/opt" >"$tmp/out"
[ ! -s "$tmp/out" ] || { echo "run --jobfile F -q printed: $(head -c 200 "$tmp/out")"; exit 1; }
[ -s "$tmp/opt/sim.json" ] || { echo "run --jobfile F: no sim.json (not the seed cluster's single run)"; exit 1; }
# the same run both ways: fio.json equal once the wall-clock fields are gone
strip() { grep -v -E '"(time|timestamp|timestamp_ms|wall_s|jobs_wall_s)"' "$1"; }
cmp -s <(strip "$tmp/bare/fio.json") <(strip "$tmp/opt/fio.json") ||
  { echo "run F.fio and run --jobfile F differ"; diff <(strip "$tmp/bare/fio.json") <(strip "$tmp/opt/fio.json") | head; exit 1; }

set +e
"$bin" run "$job" --jobfile "$job" "${short[@]}" -q -o "$tmp/two" 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "one job file" "$tmp/err" || { echo "two job files: rc $rc, $(cat "$tmp/err")"; exit 1; }
"$bin" run scenarios/lab.json --set image.kind=clone --set image.copied_up=0 --set sim.duration_s=0.05 \
  --set sim.warmup_s=0 --set sim.replications=1 -o "$tmp/copyup" >"$tmp/out"
grep -q "no waterfall: every write was a copy-up" "$tmp/out" ||
  { echo "copy-up run: no note for the missing waterfall"; tail -3 "$tmp/out"; exit 1; }
echo "cli_run_check: ok"
