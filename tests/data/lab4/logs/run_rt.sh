#!/usr/bin/env bash
# lab4 batch 1: the QD=1 groups in SCHED_RR (as lab2's run_rt.sh), 3 reps. Run from tests/lab.
cd "$(dirname "$0")/../../../lab" || exit 1
RT=1 REPS=3 QUIET_WAIT=60 RUNTIME=20 MID=12 \
MATRIX="noparent:randw-qd1:none noparent:randr-qd1:none clone-written:randw-qd1:none clone-fresh:randw-qd1:none" \
exec ./capture.sh ../data/lab4/captures
