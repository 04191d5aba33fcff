#!/usr/bin/env python3
"""dwarf_analyze.py RUNDIR -> RUNDIR/dwarf.md : inclusive (children) shares from DWARF call chains.
For every comm: the share of its samples whose chain contains a function (counted once), split leaf kernel / leaf user.
For Objecter::op_submit on io_context_pool: where its inclusive time goes (first matching child)."""
import re, sys, os, json, collections, glob
run = sys.argv[1]
samples = []
cur = None
for line in open(os.path.join(run, "script.txt"), errors="replace"):
    if not line.strip():
        continue
    if not line[0].isspace():
        if cur: samples.append(cur)
        cur = (line.split()[0], [])
    else:
        m = re.match(r"\s*([0-9a-f]+) (.*) \((.*)\)\s*$", line)
        if m: cur[1].append((m.group(2), os.path.basename(m.group(3))))
if cur: samples.append(cur)
an = json.load(open(os.path.join(run, "analysis.json"))) if os.path.exists(os.path.join(run, "analysis.json")) else None

KEYS = [
 ("Objecter::op_submit", r"^Objecter::op_submit$"),
 ("  Objecter::_op_submit", r"^Objecter::_op_submit$"),
 ("  Objecter::_calc_target", r"^Objecter::_calc_target$"),
 ("    OSDMap/CRUSH (crush_do_rule, _pg_to_raw_osds, ...)", r"^(crush_do_rule|OSDMap::_pg_to_raw_osds|OSDMap::pg_to_up_acting_osds|OSDMap::_pg_to_up_acting_osds)$"),
 ("    OSDMap::object_locator_to_pg (hash)", r"^OSDMap::(object_locator_to_pg|map_to_pg)$"),
 ("  Objecter::_send_op", r"^Objecter::_send_op$"),
 ("  Objecter::_prepare_osd_op (builds MOSDOp)", r"^Objecter::_prepare_osd_op$"),
 ("  AsyncConnection::send_message", r"^AsyncConnection::send_message$"),
 ("    EventCenter::dispatch_event_external / wakeup (pipe write)", r"^EventCenter::(dispatch_event_external|wakeup)$"),
 ("  Objecter::_throttle_op / _op_submit_with_budget", r"^Objecter::(_throttle_op|_op_submit_with_budget)$"),
 ("MOSDOp::encode_payload", r"MOSDOp<.*>::encode_payload"),
 ("Message::encode", r"^Message::encode$"),
 ("ProtocolV2::prepare_send_message", r"^ProtocolV2::prepare_send_message$"),
 ("ProtocolV2::write_message", r"^ProtocolV2::write_message$"),
 ("ProtocolV2::write_event / AsyncConnection::handle_write", r"^(ProtocolV2::write_event|AsyncConnection::handle_write)$"),
 ("AsyncConnection::process / ProtocolV2 read path", r"^(AsyncConnection::process|ProtocolV2::read_frame|ProtocolV2::handle_read_frame_.*|ProtocolV2::handle_message|ProtocolV2::run_continuation|ProtocolV2::read_event)$"),
 ("crc32c (any)", r"crc32c"),
 ("DispatchQueue / ms_fast_dispatch", r"(ms_fast_dispatch|DispatchQueue::fast_dispatch|Messenger::ms_fast_dispatch)"),
 ("Objecter::handle_osd_op_reply", r"^Objecter::handle_osd_op_reply$"),
 ("MOSDOpReply::decode_payload", r"MOSDOpReply::decode_payload"),
 ("neorados::RADOS::execute", r"^neorados::RADOS::execute$"),
 ("librbd ImageDispatcher::send (image layer)", r"ImageDispatcher<librbd::ImageCtx>::send_dispatch|Dispatcher<librbd::ImageCtx, librbd::io::ImageDispatcherInterface>::send$"),
 ("librbd ObjectDispatcher::send (object layer)", r"Dispatcher<librbd::ImageCtx, librbd::io::ObjectDispatcherInterface>::send$"),
 ("librbd AioCompletion::complete", r"librbd::io::AioCompletion::complete$"),
 ("librbd ObjectRequest handle_* (completion side)", r"librbd::io::(ObjectReadRequest|AbstractObjectWriteRequest|ObjectRequest)<.*>::handle_"),
 ("librbd api aio_read/aio_write (fio thread)", r"librbd::api::Io<librbd::ImageCtx>::aio_(read|write)$"),
 ("rbd_aio_read/rbd_aio_write", r"^rbd_aio_(read|write)$"),
 ("rbd_poll_io_events", r"^rbd_poll_io_events$"),
 ("asio scheduler::run (everything on io_context_pool)", r"boost::asio::detail::scheduler::run$"),
 ("futex syscall (any)", r"^__x64_sys_futex$"),
 ("epoll_wait syscall", r"^__x64_sys_epoll_wait$"),
 ("sendmsg syscall", r"^__sys_sendmsg$"),
 ("read syscall", r"^ksys_read$"),
 ("write syscall", r"^ksys_write$"),
 ("poll syscall", r"^__x64_sys_poll$"),
]
KRE = [(n, re.compile(r)) for n, r in KEYS]
bycomm = collections.defaultdict(list)
for comm, fr in samples:
    bycomm[comm].append(fr)
L = ["## %s: inclusive shares from DWARF call chains (%d samples)" % (os.path.basename(run), len(samples)), ""]
comms = [c for c, v in sorted(bycomm.items(), key=lambda kv: -len(kv[1])) if len(v) >= 30]
cpu = {}
if an:
    for c in comms:
        t = an["threads"].get(c)
        if t: cpu[c] = t["cpu_ns"] / 1000 / an["ios_window"]
L.append("Cell: inclusive %% of the comm's samples (of which leaf in kernel %%) / us per I/O using the comm's schedstat CPU per I/O")
L.append("")
L.append("| function (inclusive) | " + " | ".join("%s (%d smp, %.1f us/IO)" % (c, len(bycomm[c]), cpu.get(c, 0)) for c in comms) + " |")
L.append("|---|" + "---:|" * len(comms))
for name, rx in KRE:
    row = []; anyv = False
    for c in comms:
        n = k = 0
        for fr in bycomm[c]:
            if any(rx.search(s) for s, d in fr):
                n += 1
                if fr and fr[0][1] == "[kernel.kallsyms]": k += 1
        sh = n / len(bycomm[c])
        if n: anyv = True
        row.append("%.1f%% (k %.1f%%) / %.2f" % (100 * sh, 100 * k / len(bycomm[c]), sh * cpu.get(c, 0)) if n else "-")
    if anyv:
        L.append("| %s | " % name + " | ".join(row) + " |")
L.append("")
# op_submit breakdown on io_context_pool
SUB = [("_calc_target (incl. OSDMap/CRUSH)", r"^Objecter::_calc_target$"),
       ("AsyncConnection::send_message (queue, wake msgr-worker)", r"^AsyncConnection::send_message$"),
       ("_prepare_osd_op (MOSDOp construction)", r"^Objecter::_prepare_osd_op$"),
       ("MOSDOp::encode_payload", r"MOSDOp<.*>::encode_payload"),
       ("_send_op (rest)", r"^Objecter::_send_op$"),
       ("_get_session / _session_op_assign", r"^Objecter::(_get_session|_session_op_assign|get_session)$"),
       ("_throttle_op / budget", r"^Objecter::(_throttle_op|_op_submit_with_budget|_take_op_budget|calc_op_budget)$"),
       ("_op_submit (rest)", r"^Objecter::_op_submit$"),
       ("op_submit (rest: Op setup, locks)", r"^Objecter::op_submit$")]
SRE = [(n, re.compile(r)) for n, r in SUB]
for c in comms:
    tot = 0; cnt = collections.Counter(); kcnt = collections.Counter()
    for fr in bycomm[c]:
        names = [s for s, d in fr]
        if not any(s == "Objecter::op_submit" for s in names):
            continue
        tot += 1
        # innermost (closest to leaf) matching SUB entry wins in SUB order of specificity: walk from leaf
        lab = None
        for s in names:
            for n, rx in SRE:
                if rx.search(s):
                    lab = n; break
            if lab: break
        cnt[lab] += 1
        if fr[0][1] == "[kernel.kallsyms]": kcnt[lab] += 1
    if tot < 5:
        continue
    opus = tot / len(bycomm[c]) * cpu.get(c, 0)
    L.append("### Objecter::op_submit on %s: %d samples = %.1f%% of the comm = %.2f us/IO; split by the innermost Objecter step on the chain" % (c, tot, 100 * tot / len(bycomm[c]), opus))
    L.append("")
    L.append("| part | % of op_submit | of which leaf in kernel | us/IO |")
    L.append("|---|---:|---:|---:|")
    for n, _ in SUB:
        if cnt[n]:
            L.append("| %s | %.1f%% | %.1f%% | %.2f |" % (n, 100 * cnt[n] / tot, 100 * kcnt[n] / tot, opus * cnt[n] / tot))
    L.append("")
# top inclusive leaf-to-root "handler" on io_context_pool: which asio handler does the work
for c in comms:
    if not c.startswith("io_context"):
        continue
    h = collections.Counter()
    for fr in bycomm[c]:
        names = [s for s, d in fr]
        lab = "(no asio handler: idle wait / other)"
        for i, s in enumerate(names):
            if s.startswith("boost::asio::detail::scheduler::do_run_one") and i > 0:
                lab = re.sub(r"\s+", " ", names[i - 1])[:160]
                break
        h[lab] += 1
    L.append("### %s: samples by the asio handler being run (frame above scheduler::do_run_one)" % c)
    L.append("")
    for lab, n in h.most_common(12):
        L.append("* %.1f%% / %.2f us/IO: %s" % (100 * n / len(bycomm[c]), n / len(bycomm[c]) * cpu.get(c, 0), lab))
    L.append("")
open(os.path.join(run, "dwarf.md"), "w").write("\n".join(L) + "\n")
print("\n".join(L))
