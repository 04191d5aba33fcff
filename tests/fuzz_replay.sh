#!/usr/bin/env bash
# fuzz_replay.sh - every fuzz harness (tests/fuzz/), built as a plain program,
# replays its seed corpus and every input that once failed
# (tests/fuzz/regress/<harness>/): in `ninja test` and, built with ASan +
# UBSan, in `ninja test-asan`.  A crash, a sanitizer report or a refusal
# without a one-line message (the harnesses check it) fails the test.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${FUZZ_REPLAY_DIR:-out/build/fuzz}
export TMPDIR
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/cephsim-replay-XXXXXX")
trap 'rm -rf "$TMPDIR"' EXIT
n=0
for bin in "$dir"/fuzz_*; do
  case $bin in *.o|*.d) continue ;; esac
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  seeds=$TMPDIR/seeds-$name
  tests/fuzz/seeds.sh "$name" "$seeds"
  files=("$seeds"/*)
  [ -d "tests/fuzz/regress/$name" ] && files+=(tests/fuzz/regress/"$name"/*)
  "$bin" "${files[@]}" >/dev/null || { echo "$name: replay failed"; exit 1; }
  n=$((n + ${#files[@]}))
done
[ "$n" -gt 0 ] || { echo "no harnesses in $dir"; exit 1; }
echo "fuzz_replay: $n inputs replayed"
