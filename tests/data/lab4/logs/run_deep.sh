#!/usr/bin/env bash
# lab4 batch 2: every deeper lab2 group (run_main's QD4-64 groups + run_extra's two simple
# groups) at NICE=-20, 3 reps. Run from tests/lab.
cd "$(dirname "$0")/../../../lab" || exit 1
NICE=-20 REPS=3 QUIET_WAIT=60 RUNTIME=20 MID=12 \
MATRIX="noparent:randw-qd4:none noparent:randw-qd16:none noparent:randw-qd64:none noparent:randr-qd32:none noparent:randrw-qd16-mix70:none noparent:randw-bs16k-qd16:none noparent:randw-bs64k-qd16:none noparent:randw-qd4-nj4:none noparent-nolock=noparent@noparent-nolock:randw-qd4-nj4:none noparent-nolock=noparent@noparent-nolock:randw-qd16:none noparent-2img=noparent@noparent,noparent2:randw-qd16:none clone-fresh:seqw-qd16:none clone-written:randw-qd16:none noparent:randw-qd16:simple clone-fresh:seqw-qd16:simple" \
exec ./capture.sh ../data/lab4/captures
