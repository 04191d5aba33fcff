#!/usr/bin/env bash
# Runs every cmocka runner given as an argument, sums their results and prints
# one closing line "N passed, N failed[, N skipped]".  Exit status is non-zero
# on any failure.  A *.sh argument is a script test (run with the build's bin
# directory): one test, passed on exit 0 (or skipped when it says SKIPPED),
# failed otherwise.
#
# Skipped tests are counted and named.  Most skip because ../shared (the real
# captures) is absent; with CI=true or CEPHSIM_NO_SKIP=1 a skipped test fails
# the run, since CI always has ../shared and must test against it.
set -u
passed=0 failed=0 skipped=0
skipped_names=()
bindir=${TEST_BINDIR:-out/bin}
for t in "$@"; do
  case "$t" in
  *.sh)
    log=$(mktemp)
    if bash "$t" "$bindir" >"$log" 2>&1; then
      if grep -q SKIPPED "$log"; then
        skipped=$((skipped + 1)); skipped_names+=("$(basename "$t")")
        printf '%-40s skipped (%s)\n' "$(basename "$t")" "$(grep -m1 SKIPPED "$log")"
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
  # per-test lines "[  SKIPPED ] name" (the summary line says "N test(s), listed below")
  s_names=$(grep -E '^\[  SKIPPED \] ' "$log" | grep -vE '^\[  SKIPPED \] [0-9]+ test\(s\)' | sed 's/^\[  SKIPPED \] //' | sort -u)
  s=0
  [ -n "$s_names" ] && s=$(printf '%s\n' "$s_names" | wc -l)
  p=${p:-0}; f=${f:-0}
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1
  fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  while IFS= read -r n; do
    [ -n "$n" ] && skipped_names+=("$(basename "$t"):$n")
  done <<< "$s_names"
  if [ "$f" -ne 0 ]; then
    echo "---- $t (exit $rc)"; cat "$log"
  elif [ "$s" -ne 0 ]; then
    printf '%-40s %3d passed, %d skipped\n' "$(basename "$t")" "$p" "$s"
  else
    printf '%-40s %3d passed\n' "$(basename "$t")" "$p"
  fi
  rm -f "$log"
done
strict=0
[ "${CI:-}" = true ] || [ "${CEPHSIM_NO_SKIP:-0}" = 1 ] && strict=1
if [ "$skipped" -gt 0 ]; then
  echo "skipped: ${skipped_names[*]}"
  if [ "$strict" = 1 ]; then
    echo "skipped tests are failures here (CI=true or CEPHSIM_NO_SKIP=1): is ../shared missing?"
    failed=$((failed + skipped))
  fi
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
