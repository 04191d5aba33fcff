#!/usr/bin/env bash
# Runs every cmocka runner given as an argument, sums their results and prints
# one closing line "N passed, N failed".  Exit status is non-zero on any failure.
set -u
passed=0 failed=0 broken=0
for t in "$@"; do
  log=$(mktemp)
  CMOCKA_MESSAGE_OUTPUT=stdout "$t" >"$log" 2>&1
  rc=$?
  p=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$log" | grep -oE '[0-9]+' | head -1)
  f=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$log" | grep -oE '[0-9]+' | head -1)
  p=${p:-0}; f=${f:-0}
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1; broken=$((broken + 1))
  fi
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$f" -ne 0 ]; then
    echo "---- $t (exit $rc)"; cat "$log"
  else
    printf '%-40s %3d passed\n' "$(basename "$t")" "$p"
  fi
  rm -f "$log"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
