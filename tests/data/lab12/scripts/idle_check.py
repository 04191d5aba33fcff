#!/usr/bin/env python3
"""idle_check.py SECONDS: cores busy over SECONDS (from /proc/stat) and the top other processes."""
import os, sys, time
def ticks():
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            s = open("/proc/%s/stat" % pid).read()
        except OSError:
            continue
        r = s[s.rindex(")") + 2:].split()
        out[pid] = (s[s.index("(") + 1:s.rindex(")")], int(r[11]) + int(r[12]))
    return out
def busy():
    v = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return sum(v[:3]) + v[5] + v[6]
dt = float(sys.argv[1])
a, ba, t0 = ticks(), busy(), time.time()
time.sleep(dt)
b, bb, t1 = ticks(), busy(), time.time()
hz = os.sysconf("SC_CLK_TCK")
top = sorted(((b[p][1] - a[p][1]) / hz / (t1 - t0), b[p][0]) for p in b if p in a)[::-1][:5]
print("busy %.2f cores; top: %s" % ((bb - ba) / hz / (t1 - t0), ", ".join("%s %.2f" % (c, d) for d, c in top)))
