#!/usr/bin/env python3
"""analyze.py RUNDIR -> RUNDIR/analysis.json + analysis.md
threads: per comm (schedstat delta between snap_a and snap_b, threads alive in both) / I/Os in window
perf: per comm, sample groups (leaf frame, kernel classified through the chain)"""
import json, os, re, subprocess, sys, glob, collections

run = sys.argv[1]
a = json.load(open(os.path.join(run, "snap_a.json")))
b = json.load(open(os.path.join(run, "snap_b.json")))
ta, tb = a["time"], b["time"]
t0 = ta_run = None
for line in open(os.path.join(run, "cmd.txt")):
    m = re.match(r"t0=(\S+) ta=(\S+)", line)
    if m:
        t0 = float(m.group(1)); ta_perf = float(m.group(2))
# I/Os in window from the 1 s IOPS log
ios = 0.0
lo_w, hi_w = ta - t0, tb - t0
for path in glob.glob(os.path.join(run, "log_iops*.log")):
    for line in open(path):
        p = [x.strip() for x in line.split(",")]
        t, v = int(p[0]) / 1000.0, float(p[1])
        lo, hi = max(t - 1, lo_w), min(t, hi_w)
        if hi > lo:
            ios += v * (hi - lo)
ios_perf = 0.0
pw = (ta_perf - t0 + 0.05, ta_perf - t0 + 15.05)
for path in glob.glob(os.path.join(run, "log_iops*.log")):
    for line in open(path):
        p = [x.strip() for x in line.split(",")]
        t, v = int(p[0]) / 1000.0, float(p[1])
        lo, hi = max(t - 1, pw[0]), min(t, pw[1])
        if hi > lo:
            ios_perf += v * (hi - lo)
fj = json.load(open(os.path.join(run, "fio.json")))
job = fj["jobs"][0]
rw = "read" if job["read"]["io_bytes"] > 0 else "write"
iops_total = job[rw]["iops"]
clat_mean_us = job[rw]["clat_ns"]["mean"] / 1000
psd = [y - x for x, y in zip(a["proc_stat_cpu"], b["proc_stat_cpu"])]
machine_busy = 1 - (psd[3] + psd[4]) / sum(psd[:8])

def kind(comm):
    return comm
threads = collections.OrderedDict()
for tid, tb_ in b["threads"].items():
    ta_ = a["threads"].get(tid)
    if not ta_:
        continue
    k = kind(tb_["comm"])
    e = threads.setdefault(k, {"n": 0, "cpu_ns": 0, "vol": 0, "nonvol": 0, "wait_ns": 0, "utime": 0, "stime": 0})
    e["n"] += 1
    for f in ("cpu_ns", "vol", "nonvol", "wait_ns", "utime", "stime"):
        e[f] += tb_[f] - ta_[f]
tot = {"n": 0, "cpu_ns": 0, "vol": 0, "nonvol": 0, "wait_ns": 0, "utime": 0, "stime": 0}
for e in threads.values():
    for f in tot:
        tot[f] += e[f]
threads["ALL"] = tot

# ---------- perf ----------
TRANSPARENT = re.compile(r"^(pvm_|__raw_callee_save_pvm|_raw_spin_unlock|_raw_spin_lock|__raw_spin_lock|native_queued_spin_lock|queued_spin_lock|__local_bh_enable_ip|local_bh_enable|rcu_read_unlock|__rcu_read_unlock|preempt_count|__preempt|irqentry_exit|sysvec_|asm_sysvec|__sysvec|do_softirq|handle_softirqs|__do_softirq|irq_exit|__irq_exit)")
SCHED = re.compile(r"(schedule|finish_task_switch|futex|epoll|ep_poll|ep_item|ep_send|ep_done|ep_start|ep_autoremove|ttwu|try_to_wake_up|wake_up|enqueue|dequeue|pick_next|pick_eevdf|pick_task|update_curr|update_load|update_cfs|update_se|select_task|select_idle|psi_|__switch_to|switch_mm|context_switch|sched|hrtimer|nanosleep|exit_to_user_mode_loop|prepare_task_switch|set_next_entity|put_prev|check_preempt|resched|cpuacct|account_|vtime|balance|newidle|reweight|place_entity|wakeup|__wake|do_poll|do_sys_poll|poll_schedule|pipe_|eventfd|avg_vruntime|task_tick|tick_|timerqueue|set_task_cpu|migrate|idle|cgroup_rstat|mm_cid|rseq|wq_|autoremove_wake|default_wake)")
NET = re.compile(r"(tcp|^ip_|^__ip_|inet|sock|skb|^sk_|^__sk_|dev_|netif|net_rx|loopback|napi|process_backlog|nf_|sendmsg|recvmsg|recvfrom|sendto|csum|copy_user|_copy_to_iter|_copy_from_iter|copy_page_to_iter|copy_page_from_iter|__check_object_size|check_heap_object|__virt_addr_valid|kfree_skb|kmalloc_reserve|alloc_skb|page_frag|neigh|dst_|validate_xmit|qdisc|bpf_|eth_|rps|__build_skb|skmem|simple_copy_to_iter)")
SYSFRAME = {"__x64_sys_futex": "futex", "ksys_write": "write", "ksys_read": "read", "__sys_sendmsg": "sendmsg",
            "__x64_sys_sendmsg": "sendmsg", "__x64_sys_epoll_wait": "epoll_wait", "__x64_sys_poll": "poll",
            "__x64_sys_clock_nanosleep": "nanosleep", "exit_to_user_mode_loop": "preempt-at-syscall-exit",
            "__raw_callee_save_pvm_irq_enable": "syscall-entry/exit", "__raw_callee_save_pvm_irq_disable": "syscall-entry/exit"}

def kclass(frames, comm=""):
    """frames: (sym, dso) leaf first -> (category, context). category: sched | net | syscall-entry | other"""
    names = []
    for s, d in frames:
        if d != "[kernel.kallsyms]":
            break
        names.append(s)
    ctx = "none"
    if "do_syscall_64" in names:
        i = names.index("do_syscall_64")
        f = names[i - 1] if i > 0 else "LEAF"
        ctx = SYSFRAME.get(f, re.sub(r"^__x64_sys_|^__do_sys_|^ksys_", "", f))
    elif any(n in ("net_rx_action", "__napi_poll") for n in names):
        ctx = "softirq-net"
    elif any(n.startswith("asm_sysvec") or n.startswith("asm_common_interrupt") for n in names):
        ctx = "interrupt"
    elif any(n.startswith("asm_exc_page_fault") or n == "exc_page_fault" for n in names):
        ctx = "page-fault"
    if any(n in ("net_rx_action", "__napi_poll") for n in names) and ctx not in ("sendmsg",):
        ctx = ctx + "+softirq-net"
    cat = None
    for s in names:
        if TRANSPARENT.match(s) or s in ("do_syscall_64", "entry_SYSCALL_64_after_hwframe", "entry_SYSCALL_64",
                                         "syscall_exit_to_user_mode", "ret_from_fork", "ret_from_fork_asm", "x64_sys_call"):
            continue
        if SCHED.search(s):
            cat = "sched"
        elif NET.search(s):
            cat = "net"
        break
    if cat is None:
        c0 = ctx.split("+")[0]
        if c0 in ("futex", "epoll_wait", "poll", "nanosleep", "preempt-at-syscall-exit", "sched_yield", "pselect6"):
            cat = "sched"
        elif c0 in ("sendmsg", "recvmsg", "softirq-net") or "softirq-net" in ctx:
            cat = "net"
        elif c0 in ("read", "write"):
            cat = "other"
            for s in names:
                if re.search(r"pipe_|eventfd", s):
                    cat = "sched"; break
                if re.search(r"sock_|tcp_", s):
                    cat = "net"; break
            else:
                # unresolved (leaf in vfs_read/fdget...): msgr-workers read sockets (DWARF runs: ~85 % of their
                # read() samples are socket reads), everyone else reads/writes wake-up pipes / eventfds
                cat = "net" if (c0 == "read" and comm.startswith("msgr")) else "sched"
        elif c0 == "syscall-entry/exit":
            cat = "syscall-entry"
        else:
            cat = "other"
    return cat, ctx

CEPH_DSO = {"librbd.so.1.16.0": "rbd", "librados.so.2.0.0": "rados", "libceph-common.so.2": "cc"}
MOSD_FIELD = r"(OSDOp|osd_reqid_t|object_locator_t|hobject_t|spg_t|pg_t|snapid_t|object_t|eversion_t|osd_reqid|request_redirect_t|blkin_trace|jspan|ceph_osd_op|SnapContext|utime_t)"
def cgroup(sym):
    """function group of a Ceph-library symbol (any of the three Ceph dsos)"""
    if re.search(r"Objecter::_calc_target|crush_|^crush|CrushWrapper|OSDMap::|pg_pool_t::|object_locator_to_pg|ceph_str_hash|bucket_straw|crush_ln|pg_t::|ceph_stable_mod|Objecter::_calc_target", sym):
        return "calc_target+OSDMap/CRUSH"
    if re.search(r"MOSDOpReply", sym):
        return "MOSDOpReply (make/decode/dtor)"
    if re.search(r"MOSDOp<.*>::encode_payload", sym):
        return "MOSDOp::encode_payload"
    if re.search(r"encode", sym) and re.search(MOSD_FIELD, sym) and not re.search(r"decode", sym):
        return "MOSDOp field encoders"
    if "Objecter" in sym:
        return "Objecter (other)"
    if re.search(r"MOSDOp|OSDOp::|ObjectOperation", sym):
        return "MOSDOp/OSDOp (other)"
    if re.search(r"crc32c|crc32_iscsi|ceph_crc32", sym):
        return "crc32c"
    if re.search(r"ProtocolV2|ProtocolV1|Protocol::|AsyncConnection|AsyncMessenger|EventCenter|EpollDriver|PosixConnectedSocket|PosixWorker|PosixServerSocket|NetworkStack|Worker::|DispatchQueue|Messenger|Message::|Message\b|ceph::msgr|FrameAssembler|crypto_onwire|preamble|Connection::|C_handle|C_time_wakeup|C_clean_handler|EventCallback|ceph::net::|Dispatcher|frame", sym):
        return "messenger"
    if re.search(r"ceph::buffer|bufferlist|buffer::|ptr_node|raw_combined|buffer_raw|bufferptr", sym):
        return "bufferlist"
    if re.search(r"PerfCounters", sym):
        return "PerfCounters"
    if re.search(r"mempool|RefCountedObject|ceph::mutex_debug|ceph::shunique|shared_mutex", sym):
        return "mempool/refcount/locks"
    if re.search(r"^librbd::|^rbd_|librbd::|Striper|ImageCtx|^C_|ObjectExtent|striper", sym):
        return "librbd code (librbd::, Striper)"
    if re.search(r"boost::asio|neorados|ceph::async|asio", sym):
        return "asio/neorados"
    if re.search(r"librados::|^rados_|RadosClient|IoCtxImpl", sym):
        return "librados code"
    if re.search(r"encode|decode|denc", sym):
        return "other encode/decode"
    return "rest"

def ugroup(sym, dso):
    base = os.path.basename(dso)
    if base in CEPH_DSO:
        return CEPH_DSO[base] + ":" + cgroup(sym)
    if base.startswith("libc.so") or base.startswith("ld-linux"):
        return "libc"
    if base.startswith("libstdc++"):
        return "libstdc++"
    if "tcmalloc" in base:
        return "tcmalloc"
    if base == "fio":
        return "fio-binary"
    if base.startswith("libboost"):
        return "boost"
    return "other:" + base

LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
_libc = open(LIBC, "rb").read()
_ps = {}
def post_syscall(dso, ip):
    """True if the user-space sample sits on the instruction right after a `syscall` in libc: the timer
    interrupt was taken on the way out of the kernel (PVM guest), so it is kernel/syscall time"""
    if not os.path.basename(dso).startswith("libc.so"):
        return False
    if ip not in _ps:
        off = int(ip, 16)
        _ps[ip] = off >= 2 and off < len(_libc) and _libc[off - 2:off] == b"\x0f\x05"
    return _ps[ip]

spath = os.path.join(run, "script.txt")
if not os.path.exists(spath):
    subprocess.run("perf script -i %s -F comm,tid,period,ip,sym,dso > %s 2>/dev/null" % (os.path.join(run, "perf.data"), spath), shell=True)
samples = collections.defaultdict(lambda: collections.Counter())      # comm -> group -> n
ksyscall = collections.defaultdict(lambda: collections.Counter())     # comm -> kernel cat/ctx -> n
syms = collections.defaultdict(lambda: collections.Counter())          # comm -> (dso, sym) -> n
objsyms = collections.defaultdict(lambda: collections.Counter())       # comm -> cc-sym (calc/objecter/encode) -> n
ncomm = collections.Counter()
cur = None
def flush(cur):
    if not cur or not cur[1]:
        return
    comm, frames3 = cur
    frames = [(s, d) for s, d, _ in frames3]
    ncomm[comm] += 1
    sym, dso = frames[0]
    leaf_ip = frames3[0][2]
    if dso == "[kernel.kallsyms]":
        cat, ctx = kclass(frames, comm)
        g = "kernel:" + cat
        ksyscall[comm][cat + " / " + ctx] += 1
    elif post_syscall(dso, leaf_ip):
        g = "post-syscall:" + ("net" if re.search(r"sendmsg|^read$|recv", sym) else "sched")
        ksyscall[comm]["libc post-syscall " + sym] += 1
    else:
        g = ugroup(sym, dso)
        if re.search(r":(calc_target|Objecter|MOSDOp)", g):
            objsyms[comm][g.split(":")[0] + ":" + sym[:110]] += 1
    samples[comm][g] += 1
    syms[comm][(os.path.basename(dso), sym[:120])] += 1
if os.path.exists(spath):
    for line in open(spath, errors="replace"):
        if not line.strip():
            continue
        if not line.startswith("\t") and not line.startswith(" "):
            flush(cur)
            parts = line.split()
            # comm may contain spaces? ours do not
            cur = (parts[0] if len(parts) >= 3 else "?", [])
        else:
            m = re.match(r"\s*([0-9a-f]+) (.*) \((.*)\)\s*$", line)
            if m and cur is not None:
                cur[1].append((m.group(2), m.group(3), m.group(1)))
    flush(cur)

res = {"run": os.path.basename(run), "rw": rw, "ios_window": ios, "window_s": [lo_w, hi_w],
       "iops_window": ios / (hi_w - lo_w), "ios_perf_window": ios_perf, "iops_total": iops_total, "clat_mean_us": clat_mean_us,
       "machine_busy_frac": machine_busy, "threads": threads,
       "perf": {c: dict(samples[c]) for c in samples}, "perf_n": dict(ncomm),
       "kernel_ctx": {c: dict(ksyscall[c]) for c in ksyscall},
       "objecter_syms": {c: objsyms[c].most_common(25) for c in objsyms},
       "top_syms": {c: [[d, s, n] for (d, s), n in syms[c].most_common(40)] for c in syms}}
json.dump(res, open(os.path.join(run, "analysis.json"), "w"), indent=1)

# markdown
L = []
L.append("## %s  (%s; %.0f I/Os in %.1f-%.1f s = %.0f IOPS in window, %.0f IOPS whole run, clat mean %.0f us, machine busy %.0f %%)" %
         (res["run"], rw, ios, lo_w, hi_w, res["iops_window"], iops_total, clat_mean_us, 100 * machine_busy))
L.append("")
L.append("| thread (comm) | n | CPU us/IO | user us/IO (ticks) | sys us/IO (ticks) | vol. switches/IO | invol./IO | runq wait us/IO | perf samples | perf-CPU us/IO |")
L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for k, e in sorted(threads.items(), key=lambda kv: -kv[1]["cpu_ns"]):
    if e["cpu_ns"] < 1e6 and k != "ALL":
        continue
    tk = e["utime"] + e["stime"]
    u = e["cpu_ns"] * e["utime"] / tk / 1000 / ios if tk else 0
    s = e["cpu_ns"] * e["stime"] / tk / 1000 / ios if tk else 0
    n = ncomm.get(k, 0) if k != "ALL" else sum(ncomm.values())
    hz = 499 if "dwarf" in res["run"] else 4999
    L.append("| %s | %d | %.1f | %.1f | %.1f | %.2f | %.2f | %.1f | %d | %.1f |" % (
        k, e["n"], e["cpu_ns"] / 1000 / ios, u, s, e["vol"] / ios, e["nonvol"] / ios, e["wait_ns"] / 1000 / ios,
        n, n * 1e6 / hz / ios_perf if n else 0))
L.append("")
comms = [c for c, n in ncomm.most_common() if n >= 50]
def table(title, keyf, order):
    L.append(title)
    L.append("")
    L.append("| group | " + " | ".join(comms) + " |")
    L.append("|---|" + "---:|" * len(comms))
    agg = {c: collections.Counter() for c in comms}
    for c in comms:
        for g, n in samples[c].items():
            agg[c][keyf(g)] += n
    keys = [k for k in order if any(agg[c][k] for c in comms)]
    keys += sorted(set(k for c in comms for k in agg[c]) - set(keys))
    for k in keys:
        if k is None:
            continue
        row = []
        for c in comms:
            sh = agg[c].get(k, 0) / ncomm[c]
            cpu = threads.get(c, {"cpu_ns": 0})["cpu_ns"] / 1000 / ios
            row.append("%.1f%% / %.2f" % (100 * sh, sh * cpu))
        L.append("| %s | " % k + " | ".join(row) + " |")
    L.append("")
DSO_ORDER = ["kernel:sched", "kernel:net", "kernel:syscall-entry", "kernel:other", "post-syscall:sched", "post-syscall:net", "rbd", "rados", "cc", "libc", "libstdc++", "tcmalloc", "boost", "fio-binary"]
table("Per comm, by library: share of the comm's perf samples / us per I/O (share x the comm's schedstat CPU per I/O). rbd = librbd.so.1, rados = librados.so.2, cc = libceph-common.so.2",
      lambda g: g.split(":")[0] if g.split(":")[0] in ("rbd", "rados", "cc") else g, DSO_ORDER)
FG = ["librbd code (librbd::, Striper)", "asio/neorados", "librados code", "calc_target+OSDMap/CRUSH", "Objecter (other)", "MOSDOp::encode_payload",
      "MOSDOp field encoders", "MOSDOp/OSDOp (other)", "MOSDOpReply (make/decode/dtor)", "crc32c", "messenger", "bufferlist", "PerfCounters",
      "mempool/refcount/locks", "other encode/decode", "rest"]
table("Per comm, Ceph user-space code by function group (librbd + librados + libceph-common together): share / us per I/O",
      lambda g: g.split(":", 1)[1] if g.split(":")[0] in ("rbd", "rados", "cc") else None, FG)
for c in comms:
    L.append("### %s: kernel samples by (category / syscall-or-context), %% of the comm's samples" % c)
    L.append("")
    L.append(", ".join("%s %.1f%%" % (k, 100 * v / ncomm[c]) for k, v in ksyscall[c].most_common(14)))
    L.append("")
    if objsyms[c]:
        L.append("Objecter/CRUSH/MOSDOp symbols (%% of comm samples): " + "; ".join("%s %.2f%%" % (s, 100 * v / ncomm[c]) for s, v in objsyms[c].most_common(14)))
        L.append("")
open(os.path.join(run, "analysis.md"), "w").write("\n".join(L) + "\n")
print("\n".join(L))
