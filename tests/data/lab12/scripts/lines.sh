#!/usr/bin/env bash
# lines.sh: the evidence for the lock names categories.py gives to source lines of Debian's
# ceph-osd 16.2.15 (no source tree here: the calls made on each line, from objdump -dl with
# ceph-osd-dbg installed).  Prints the line -> call pairs of OSD::ShardedOpWQ::_process and
# ::_enqueue and the inline chains addr2line gives for the other lock sites seen.
set -u
B=/usr/bin/ceph-osd
calls() {  # calls START STOP: "file:line  call target" for each call in [START, STOP)
    objdump -d -l -C --no-show-raw-insn --start-address="$1" --stop-address="$2" "$B" 2>/dev/null |
        awk '/^\.\/obj|^\/usr\/include/ {loc=$1} /call/ {sub(/.*call +[0-9a-f]+ /, ""); print loc "  " $0}' |
        sed 's#\./obj-x86_64-linux-gnu/src/[a-z]*/\./##'
}
echo "== OSD::ShardedOpWQ::_process (0x67bb60), calls that take or wait on a lock"
calls 0x67bb60 0x67d600 | grep -E 'mutex|unique_lock|condition_variable|PG::lock|move_to|clear_timeout|pthread' | sort -u -t: -k2,2n
echo
echo "== OSD::ShardedOpWQ::_enqueue (0x656540)"
calls 0x656540 0x656680
echo
echo "== _process after the wake-up (the futile-return probe 0x67cfb7 and its two jumps)"
objdump -d --no-show-raw-insn --start-address=0x67bb60 --stop-address=0x67d600 "$B" 2>/dev/null | grep -E 'j[a-z]+ +67cf(a6|b0)'
objdump -d -l --no-show-raw-insn --start-address=0x67c549 --stop-address=0x67c578 "$B" 2>/dev/null | grep -E 'OSD.cc|call|cmp|j'
objdump -d -l --no-show-raw-insn --start-address=0x67cfa6 --stop-address=0x67cfc1 "$B" 2>/dev/null | grep -E 'OSD.cc|call|jmp|std_mutex'
