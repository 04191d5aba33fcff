#!/usr/bin/env python3
"""wait_classify.py STRACE_OUT PID OPS -> what one OSD's threads block on, per op.

STRACE_OUT is `strace -f -e trace=futex,epoll_wait,io_getevents,fdatasync,fsync
-p PID` output (one "TID call(...) = ret" line per call; wait_probe.sh makes it),
OPS the ops the OSD did meanwhile (perf dump op_w + subop_w + op_r).  Per thread
kind (comm without its number): condition-variable waits (glibc's
pthread_cond_wait: FUTEX_WAIT_BITSET), mutex waits (FUTEX_WAIT), EAGAIN returns
(the word had changed: no sleep), and the blocking calls epoll_wait,
io_getevents, fdatasync."""
import collections
import os
import re
import sys


def main():
    path, pid, ops = sys.argv[1], sys.argv[2], float(sys.argv[3])
    comm = {}
    for tid in os.listdir("/proc/%s/task" % pid):
        with open("/proc/%s/task/%s/comm" % (pid, tid)) as f:
            comm[tid] = re.sub(r"[-]?\d+$", "", f.read().strip())
    cnt = collections.Counter()
    with open(path) as f:
        for line in f:
            m = re.match(r"(\d+)\s+(\w+)\((.*)", line)
            if not m:
                continue
            tid, call, rest = m.groups()
            k = comm.get(tid, "?")
            if call == "futex":
                op = rest.split(",")[1].strip()
                if "WAKE" in op:
                    continue
                if "EAGAIN" in line:
                    cnt[(k, "futex EAGAIN (no sleep)")] += 1
                elif "ETIMEDOUT" in line:
                    cnt[(k, "futex timed out")] += 1
                elif "BITSET" in op:
                    cnt[(k, "condition wait")] += 1
                else:
                    cnt[(k, "mutex wait")] += 1
            else:
                cnt[(k, call)] += 1
    print("%d ops" % ops)
    for (k, c), n in sorted(cnt.items(), key=lambda x: -x[1]):
        if n / ops >= 0.05:
            print("%-18s %-26s %6.2f per op (%d)" % (k, c, n / ops, n))


if __name__ == "__main__":
    main()
