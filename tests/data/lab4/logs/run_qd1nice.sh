#!/usr/bin/env bash
# lab4 batch 3: the noparent QD=1 groups WITHOUT SCHED_RR, NICE=-20, 3 reps (does nice
# suffice on a quiet machine?). Run from tests/lab.
cd "$(dirname "$0")/../../../lab" || exit 1
NICE=-20 REPS=3 QUIET_WAIT=60 RUNTIME=20 MID=12 \
MATRIX="noparent:randw-qd1:none noparent:randr-qd1:none" \
exec ./capture.sh ../data/lab4/captures
