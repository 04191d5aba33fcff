#!/usr/bin/env bash
# range_limits.sh - the limits of every documented range run, or are refused
# with a one-line error; none aborts (tests/range_limits.py).
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 tests/range_limits.py "${1:-out/bin}"
