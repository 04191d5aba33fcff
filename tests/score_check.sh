#!/usr/bin/env bash
# score_check.sh - the scored validation set (validation/published) stays in
# its bands: `cephsim score --check` runs every case but the slow ones and
# fails when a case's error leaves its category's band (validation/published/
# corpus.json; bands are today's achieved error plus a margin, to shrink).
#
#   tests/score_check.sh [BINDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-out/bin}
"$bin/cephsim" score validation/published --check -q
