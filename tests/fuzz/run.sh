#!/usr/bin/env bash
# run.sh - run every libFuzzer harness of tests/fuzz/ for FUZZ_SECONDS each
# (default 60), from the tree's root, on its seed corpus (tests/fuzz/seeds.sh:
# the shipped files) plus what earlier runs found (out/fuzz/corpus/<harness>,
# kept between runs) and every input that once failed (tests/fuzz/regress/),
# with a dictionary of the parameter names (cephsim list-params) and the
# formats' keys (tests/fuzz/extra.dict).
#
#   tests/fuzz/run.sh [FUZZDIR]      (ninja fuzz; FUZZ_SECONDS=5 for a short run)
#   FUZZ_ONLY=fuzz_grid tests/fuzz/run.sh
#
# One line per harness: inputs run, corpus size, crashes.  A crash, leak,
# timeout or sanitizer report leaves its input in out/fuzz/crashes/ and fails
# the run: copy it into tests/fuzz/regress/<harness>/ with the fix.
set -uo pipefail
cd "$(dirname "$0")/../.."
fuzzdir=${1:-out/fuzz}
secs=${FUZZ_SECONDS:-60}
work=$fuzzdir/work
mkdir -p "$fuzzdir/corpus" "$fuzzdir/crashes" "$work"
export TMPDIR
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/cephsim-fuzz-XXXXXX")
trap 'rm -rf "$TMPDIR"' EXIT

# the dictionary: every parameter name (list-params), the fio options and format keys
dict=$work/params.dict
{
  out/bin/cephsim list-params | awk '/^\[/ { s = $1; gsub(/[\[\]]/, "", s); next }
    NF > 2 { printf "\"\\\"%s\\\"\"\n", $1; printf "\"%s\"\n", $1 }' | sort -u
  cat tests/fuzz/extra.dict
} > "$dict"

failed=0
total=0
for bin in "$fuzzdir"/fuzz_*; do
  name=$(basename "$bin")
  [ -x "$bin" ] || continue
  [ -n "${FUZZ_ONLY:-}" ] && [ "$FUZZ_ONLY" != "$name" ] && continue
  seeds=$work/seeds-$name
  rm -rf "$seeds"
  tests/fuzz/seeds.sh "$name" "$seeds" || { echo "$name: no seeds"; failed=1; continue; }
  corpus=$fuzzdir/corpus/$name
  mkdir -p "$corpus"
  regress=tests/fuzz/regress/$name
  [ -d "$regress" ] || regress=""
  log=$work/$name.log
  "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -dict="$dict" \
    -artifact_prefix="$fuzzdir/crashes/$name-" -print_final_stats=1 \
    "$corpus" "$seeds" $regress >"$log" 2>&1
  rc=$?
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  units=$(ls "$corpus" | wc -l)
  if [ $rc -ne 0 ]; then
    failed=1
    echo "$name: FAILED (exit $rc) after ${runs:-?} inputs; see $log:"
    grep -E 'ERROR|runtime error|fuzz:|SUMMARY|Test unit written' "$log" | head -8
  else
    printf '%-22s %10s inputs in %s s, corpus %d, 0 crashes\n' "$name" "${runs:-?}" "$secs" "$units"
  fi
  total=$((total + ${runs:-0}))
done
echo "fuzz: $total inputs in all$([ $failed = 0 ] && echo ', 0 crashes, 0 sanitizer reports' || echo ', FAILURES above')"
exit $failed
