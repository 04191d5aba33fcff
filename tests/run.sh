#!/usr/bin/env bash
# Runs every cmocka runner given as an argument, sums their results and prints
# one closing line "N passed, N failed".  Exit status is non-zero on any failure.
# A *.sh argument is a script test (run with the build's bin directory): one
# test, passed on exit 0 (or skipped when it says SKIPPED), failed otherwise.
set -u
passed=0 failed=0 broken=0 skipped=0
bindir=${TEST_BINDIR:-out/bin}
for t in "$@"; do
  case "$t" in
  *.sh)
    log=$(mktemp)
    if bash "$t" "$bindir" >"$log" 2>&1; then
      if grep -q SKIPPED "$log"; then
        skipped=$((skipped + 1)); printf '%-40s skipped (%s)\n' "$(basename "$t")" "$(grep -m1 SKIPPED "$log")"
      else
        passed=$((passed + 1)); printf '%-40s %3d passed\n' "$(basename "$t")" 1
      fi
    else
      failed=$((failed + 1)); echo "---- $t"; cat "$log"
    fi
    rm -f "$log"
    continue ;;
  esac
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
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
