#!/usr/bin/env bash
# check_deps.sh - the test suite's run of tools/check-deps (also `ninja check-deps`):
# every include points down the layers, no include circles.
cd "$(dirname "$0")/.." && exec tools/check-deps
