#!/usr/bin/env bash
# runner_check.sh - tests/run.sh counts and shows skipped cmocka tests, and
# fails on them under CI=true.
#
#   tests/runner_check.sh [BINDIR]
#
# Builds a two-test cmocka probe (one passes, one calls skip()) and checks
# run.sh's closing line both ways.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cephsim-runner-check-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/probe.c" <<'C'
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
static void passes(void **s) { (void)s; }
static void skips(void **s) { (void)s; skip(); }
int main(void)
{
    const struct CMUnitTest t[] = {cmocka_unit_test(passes), cmocka_unit_test(skips)};
    return cmocka_run_group_tests_name("probe", t, NULL, NULL);
}
C
${CC:-cc} -o "$tmp/probe" "$tmp/probe.c" -lcmocka
out=$(env -u CI CEPHSIM_NO_SKIP=0 tests/run.sh "$tmp/probe")
echo "$out" | grep -qx '1 passed, 0 failed, 1 skipped' || { echo "not counted: $out"; exit 1; }
echo "$out" | grep -q 'probe:skips' || { echo "not named: $out"; exit 1; }
if out=$(CI=true tests/run.sh "$tmp/probe"); then
  echo "CI=true passed with a skipped test: $out"; exit 1
fi
echo "$out" | grep -qx '1 passed, 1 failed, 1 skipped' || { echo "CI=true: $out"; exit 1; }
echo "runner_check: ok"
