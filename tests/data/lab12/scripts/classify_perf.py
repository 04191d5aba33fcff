#!/usr/bin/env python3
"""classify_perf.py PERF_SCRIPT_TXT[.gz] -> JSON on stdout: every voluntary context switch
(sched:sched_switch with prev_state other than R) of the traced process, counted by
  kind       the thread's comm without its trailing number (msgr-worker-2 -> msgr-worker)
  state      prev_state (S: interruptible sleep, D: uninterruptible)
  prim       what it blocks in (from the kernel and glibc frames): cond-wait
             (pthread_cond_*wait), cond-relock (pthread_cond_wait re-taking the condition's
             mutex after the wake-up: the mutex was held), cond-signal (glibc's condvar
             quiesce wait inside pthread_cond_broadcast/signal), mutex (pthread_mutex_lock),
             malloc-lock (glibc arena lock in malloc/free), epoll_wait, io_getevents,
             fdatasync, sync_file_range, pwrite, io_submit, nanosleep, page-fault, other
  site       the innermost Ceph source location on the stack: function and file:line of
             the call (from addr2line -i on ceph-osd's debug info, so inlined helpers such
             as std::mutex::lock are looked through), and
  caller     the next ceph-osd function up the stack (perf's symbol).
The input is `perf script --no-inline -F comm,tid,time,event,trace,ip,sym,dso`.
Preemptions (prev_state R) are counted per kind separately."""
import collections
import gzip
import json
import os
import re
import subprocess
import sys

OSD_BIN = "/usr/bin/ceph-osd"


def debug_file(binary):
    out = subprocess.run(["readelf", "-n", binary], capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    if m:
        b = m.group(1)
        p = "/usr/lib/debug/.build-id/%s/%s.debug" % (b[:2], b[2:])
        if os.path.exists(p):
            return p
    return binary


def kind_of(comm):
    return re.sub(r"[-]?\d+$", "", comm)


def samples(path):
    op = gzip.open if path.endswith(".gz") else open
    head, frames = None, []
    with op(path, "rt", errors="replace") as f:
        for line in f:
            if not line.strip():
                if head:
                    yield head, frames
                head, frames = None, []
                continue
            if line[0] in " \t":
                s = line.strip()
                m = re.match(r"([0-9a-f]+) (.*) \((.*)\)$", s)
                if m:
                    frames.append((int(m.group(1), 16), m.group(2), m.group(3)))
            else:
                head = line
    if head:
        yield head, frames


def primitive(kframes, uframes):
    ks = set(s for _, s, _ in kframes)
    us = [s for _, s, d in uframes if "ceph-osd" not in d]
    # only the libc/libstdc++ frames below the first ceph-osd frame
    lib = []
    for _, s, d in uframes:
        if "ceph-osd" in d:
            break
        lib.append(s)
    libs = " ".join(lib)
    if "do_epoll_wait" in ks:
        return "epoll_wait"
    if "do_io_getevents" in ks or "read_events" in ks:
        return "io_getevents"
    if any("fdatasync" in s or "fsync" in s for s in lib) or "ext4_sync_file" in ks:
        return "fdatasync"
    if any("sync_file_range" in s for s in lib):
        return "sync_file_range"
    if any("pwrite" in s or "pread" in s for s in lib):
        return "pwrite/pread"
    if "io_submit" in libs:
        return "io_submit"
    if "nanosleep" in libs or "do_nanosleep" in ks:
        return "nanosleep"
    if any(x in ks for x in ("futex_wait", "__futex_wait", "futex_do_wait", "do_futex")):
        if "__pthread_mutex_cond_lock" in libs:
            return "cond-relock"
        if "pthread_cond_broadcast" in libs or "pthread_cond_signal" in libs:
            return "cond-signal"
        if "pthread_cond_" in libs or "condition_variable" in libs:
            return "cond-wait"
        if "__lll_lock_wait_private" in libs:
            return "malloc-lock" if re.search(r"malloc|free|memalign|_int_", libs) else "libc-lock"
        if "pthread_rwlock" in libs:
            return "rwlock"
        if "lll_lock_wait" in libs or "pthread_mutex_lock" in libs:
            return "mutex"
        return "futex-other"
    if "asm_exc_page_fault" in ks or "exc_page_fault" in ks:
        return "page-fault"
    return "other"


def main():
    path = sys.argv[1]
    recs = []
    preempt = collections.Counter()
    states = collections.Counter()
    per_tid = collections.Counter()
    tmin = tmax = None
    for head, frames in samples(path):
        m = re.search(r"prev_comm=(.*?) prev_pid=(\d+) .*prev_state=(\S+) ==>", head)
        if not m:
            continue
        t = re.search(r" (\d+\.\d+): ", head)
        if t:
            tt = float(t.group(1))
            tmin = tt if tmin is None else min(tmin, tt)
            tmax = tt if tmax is None else max(tmax, tt)
        comm, tid, st = m.groups()
        k = kind_of(comm)
        states[st] += 1
        if st.startswith("R"):
            preempt[k] += 1
            continue
        per_tid[tid] += 1
        kf = [f for f in frames if "kernel" in f[2]]
        uf = [f for f in frames if "kernel" not in f[2]]
        prim = primitive(kf, uf)
        ceph = [f for f in uf if os.path.basename(OSD_BIN) in f[2]]
        recs.append((k, st, prim, tuple(f[0] for f in ceph[:3]),
                     ceph[0][1] if ceph else "(no ceph frame)",
                     ceph[1][1] if len(ceph) > 1 else "",
                     ceph[2][1] if len(ceph) > 2 else "",
                     ";".join(s for _, s, _ in kf[2:6])))
    # addr2line -i on the innermost ceph-osd return addresses
    addrs = sorted(set(a for r in recs for a in r[3]))
    loc = {}
    if addrs:
        p = subprocess.run(["addr2line", "-f", "-i", "-C", "-a", "-e", debug_file(OSD_BIN)],
                           input="".join("0x%x\n" % (a - 1) for a in addrs),
                           capture_output=True, text=True)
        cur, lines = None, []
        out = p.stdout.splitlines()

        def finish(cur, lines):
            pairs = [(lines[i], lines[i + 1]) for i in range(0, len(lines) - 1, 2)]
            chain = [(fn, re.sub(r" \(discriminator \d+\)", "", l)) for fn, l in pairs]
            site = None
            for fn, l in chain:
                if "/src/" in l and not re.match(r"(std::|__gnu|ceph::mutex_debug|ceph::condition)", fn):
                    site = (re.sub(r"\(.*", "", fn), re.sub(r".*/src/", "src/", l))
                    break
            loc[cur + 1] = {"site": site, "chain": [[re.sub(r"\(.*", "", fn), re.sub(r".*/src/", "src/", l)]
                                                    for fn, l in chain]}
        for line in out:
            if re.match(r"0x[0-9a-f]+$", line):
                if cur is not None:
                    finish(cur, lines)
                cur, lines = int(line, 16), []
            else:
                lines.append(line)
        if cur is not None:
            finish(cur, lines)
    cnt = collections.Counter()
    chains = {}
    for k, st, prim, aa, sym, caller, caller2, kstack in recs:
        fn, l = sym, ""
        for a in aa:   # the innermost ceph-osd frame with a Ceph (not std::) call site
            if a in loc and loc[a]["site"]:
                fn, l = loc[a]["site"]
                chains.setdefault("%s @ %s" % (fn, l), loc[a]["chain"])
                break
        cnt[(k, st, prim, fn, l, caller, caller2 if prim in ("mutex", "cond-relock", "cond-wait") else "",
             kstack if prim in ("other", "futex-other", "page-fault", "io_submit", "fdatasync",
                                "sync_file_range", "pwrite/pread") else "")] += 1
    rows = [{"kind": k, "state": st, "prim": prim, "site_fn": fn, "site_loc": l, "caller": c,
             "caller2": c2, "kstack": ks, "n": n}
            for (k, st, prim, fn, l, c, c2, ks), n in sorted(cnt.items(), key=lambda x: -x[1])]
    json.dump({"voluntary": len(recs), "states": states, "preempted_by_kind": preempt,
               "voluntary_by_tid": per_tid, "t_first": tmin, "t_last": tmax,
               "rows": rows, "site_chains": chains}, sys.stdout, indent=0)


if __name__ == "__main__":
    main()
