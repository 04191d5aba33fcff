#!/usr/bin/env bash
# badinput.sh - the hand-made bad inputs of tests/badinput/cases.txt: each
# gets a clean one-line error naming the file (or the path at fault), or is
# accepted correctly; the table's third column, "other" (a crash, a signal, a
# silent acceptance, a message of several lines or naming nothing), must be 0.
#
#   tests/badinput.sh [BINDIR]
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=$(cd "${1:-out/bin}" && pwd)/cephsim
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cephsim-badinput-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
lab=$root/scenarios/lab.json
FAST=(--set sim.duration_s=0.002 --set sim.warmup_s=0 --set sim.replications=1)
"$bin" run "$lab" "${FAST[@]}" -q -o "$tmp/sim" >/dev/null 2>&1 || { echo "setup run failed"; exit 1; }
clean=0 accepted=0 other=0 n=0
declare -A kinds_err kinds_ok kinds_other
cd tests/badinput/files
while read -r expect kind input name; do
  case $expect in ''|'#'*) continue ;; esac
  input=${input//@ROOT/$root}
  [ -n "${name:-}" ] || name=$(basename "$input")
  rm -rf "$tmp/o" "$tmp/x.db"
  case $kind in
  scenario) cmd=("$bin" run "$input" -q -o "$tmp/o") ;;
  fio) cmd=("$bin" run "$lab" --jobfile "$input" "${FAST[@]}" -q -o "$tmp/o") ;;
  trace) cmd=("$bin" replay "$input" --scenario "$lab" -q -o "$tmp/o") ;;
  capture) cmd=("$bin" validate --real "$input" --sim "$tmp/sim") ;;
  grid) cmd=("$bin" sweep "$input" --db "$tmp/x.db" -n) ;;
  crush) cmd=("$bin" run "$lab" --set "cluster.crush_map=$input" "${FAST[@]}" --set pool.pg_num=32 -q -o "$tmp/o") ;;
  cpu) cmd=("$bin" run "$lab" --set "cluster.cpu=$input" "${FAST[@]}" -q -o "$tmp/o") ;;
  set) cmd=("$bin" run "$lab" "${FAST[@]}" --set "$input" -q -o "$tmp/o") ;;
  *) echo "cases.txt: unknown kind $kind"; exit 1 ;;
  esac
  timeout 120 "${cmd[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  lines=$(wc -l < "$tmp/err")
  n=$((n + 1))
  verdict=other
  if [ "$expect" = ok ]; then
    if [ $rc -eq 0 ] || { [ "$kind" = capture ] && [ $rc -eq 1 ] && [ "$lines" -eq 0 ]; }; then verdict=accepted; fi
  elif [ $rc -ne 0 ] && [ $rc -lt 124 ] && [ "$lines" -eq 1 ] && grep -qF -- "$name" "$tmp/err"; then
    verdict=clean
  fi
  case $verdict in
  clean) clean=$((clean + 1)); kinds_err[$kind]=$((${kinds_err[$kind]:-0} + 1)) ;;
  accepted) accepted=$((accepted + 1)); kinds_ok[$kind]=$((${kinds_ok[$kind]:-0} + 1)) ;;
  *) other=$((other + 1)); kinds_other[$kind]=$((${kinds_other[$kind]:-0} + 1))
     echo "OTHER $expect $kind $input: exit $rc, $lines stderr lines: $(head -c 300 "$tmp/err")" ;;
  esac
done < ../cases.txt
printf '%-10s %12s %10s %6s\n' kind "clean error" accepted other
for k in scenario fio trace capture grid crush cpu set; do
  printf '%-10s %12d %10d %6d\n' "$k" "${kinds_err[$k]:-0}" "${kinds_ok[$k]:-0}" "${kinds_other[$k]:-0}"
done
echo "bad inputs: $n cases: $clean clean one-line errors, $accepted accepted correctly, $other other"
[ $other -eq 0 ]
