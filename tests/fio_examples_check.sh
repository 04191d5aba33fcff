#!/usr/bin/env bash
# fio_examples_check.sh - fio job files through `cephsim run F.fio`, each given
# one outcome class: accepted, not-modelled (a fio option or value cephsim does
# not model, with what it would change), refused-engine (an ioengine other than
# rbd or a block engine on /dev/rbdN), unknown-option (fio itself lacks it),
# crash (a signal or a status other than 0/1/2: must never happen).  A refusal
# that does not name the job file's line (NAME.fio:LINE) fails as CLASS-unnamed.
#
#   tests/fio_examples_check.sh [BINDIR [DIR]]
#
# DIR defaults to tests/data/fio/examples, whose EXPECTED file the outcomes
# must match; with another DIR (e.g. all of fio's examples/) the table is
# printed and only crashes fail.
set -uo pipefail
cd "$(dirname "$0")/.."
bindir=${1:-out/bin}
dir=${2:-tests/data/fio/examples}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cephsim-fio-examples-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
declare -A count=()
for f in "$dir"/*.fio; do
  n=$(basename "$f" .fio)
  "$bindir/cephsim" run "$f" --set sim.duration_s=0.05 --set sim.warmup_s=0.01 -q -o "$tmp/o-$n" >"$tmp/log" 2>&1
  rc=$?
  msg=$(head -c 400 "$tmp/log" | tr '\n' ' ')
  if [ $rc -eq 0 ]; then k=accepted
  elif [ $rc -gt 2 ]; then k=crash
  elif grep -q "unknown option" "$tmp/log"; then k=unknown-option
  elif grep -qE "ioengine=[^ ]+ .*is not modelled|ioengine=[^ ]+ is not an engine" "$tmp/log"; then k=refused-engine
  elif grep -qE "not modelled by cephsim|not supported by cephsim|not a distribution of" "$tmp/log"; then k=not-modelled
  else k=refused-other
  fi
  # every refusal names the job file and its line (file:line), never only the scenario
  if [ $rc -ne 0 ] && [ "$k" != crash ] && ! grep -qF "$n.fio:" "$tmp/log"; then k="$k-unnamed"; fail=1; fi
  count[$k]=$(( ${count[$k]:-0} + 1 ))
  printf '%-32s %-15s %s\n' "$n" "$k" "${msg:0:200}"
  [ "$k" = crash ] && fail=1
  if [ -f "$dir/EXPECTED" ]; then
    want=$(awk -v n="$n" '$1 == n {print $2}' "$dir/EXPECTED")
    if [ "$want" != "$k" ]; then echo "FAIL: $n: $k, expected ${want:-(not listed)}"; fail=1; fi
  fi
done
for k in "${!count[@]}"; do echo "$k ${count[$k]}"; done | sort
exit $fail
