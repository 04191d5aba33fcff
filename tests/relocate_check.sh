#!/usr/bin/env bash
# relocate_check.sh - the shipped inputs work from any copy of the tree.
#
#   tests/relocate_check.sh [BINDIR]      (default: out/bin; run from the repo root)
#
# Copies scenarios/, hw-profiles/ and explorer/grids/ to a new directory,
# then, from yet another working directory, loads and briefly runs every
# scenario in scenarios/ and a slice of every grid in explorer/grids/.  A
# file that names something outside the tree (an absolute path, a profile
# only one machine has) or resolves a relative path against the working
# directory instead of its own location fails here.  One line per file;
# exit 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
bindir=${1:-out/bin}
cephsim=$(readlink -f "$bindir/cephsim")
[ -x "$cephsim" ] || { echo "relocate_check: $bindir/cephsim not built" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cephsim-relocate-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/copy/cephsim
mkdir -p "$tree/explorer" "$tmp/elsewhere"
cp -r scenarios hw-profiles "$tree/"
cp -r explorer/grids "$tree/explorer/"
cd "$tmp/elsewhere"

failed=0 passed=0
check() { # name, command...
  local name=$1; shift
  if "$@" >"$tmp/log" 2>&1; then
    passed=$((passed + 1)); echo "ok    $name"
  else
    failed=$((failed + 1)); echo "FAIL  $name"; tail -n 5 "$tmp/log" | sed 's/^/      /'
  fi
}
short=(--set sim.duration_s=0.05 --set sim.warmup_s=0.01 --set sim.replications=1)
for sc in "$tree"/scenarios/*.json; do
  name=$(basename "$sc" .json)
  check "scenarios/$name.json" "$cephsim" run "$sc" -q -o "$tmp/elsewhere/runs/$name" "${short[@]}"
done
for g in "$tree"/explorer/grids/*.json; do
  name=$(basename "$g" .json)
  # the dry run validates every point; one small shard runs a few of them
  check "explorer/grids/$name.json (all points)" "$cephsim" sweep "$g" --db "$tmp/elsewhere/$name.db" -n -q
  n=$("$cephsim" sweep "$g" --db "$tmp/elsewhere/$name.dry.db" -n 2>/dev/null | head -n 1 | grep -oE "[0-9]+ points" | grep -oE "[0-9]+")
  check "explorer/grids/$name.json (a slice)" "$cephsim" sweep "$g" --db "$tmp/elsewhere/$name.db" -j 1 --quiet \
    --shard "1/${n:-1}"
done
echo "relocate_check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
