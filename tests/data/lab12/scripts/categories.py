#!/usr/bin/env python3
"""categories.py: what a classified voluntary sleep (a classes.json row of classify_perf.py) waits
on, as (class, label).  Classes:
  idle        the thread's own work queue is empty: it waits for work
  contention  it waits for a lock (or a condition variable's internal lock) another thread holds
  io          it waits for its own I/O (fdatasync, writeback, an aio it submitted)
  timer       a periodic sleep (timers, OpHistorySvc's usleep)
  other       anything else
Line numbers are Ceph 16.2.15's (Debian 16.2.15+ds-0+deb12u2), read from ceph-osd's debug
info with addr2line / objdump -dl (scripts/NOTES-lines.txt)."""

SHARD_LOCK = {"src/osd/OSD.cc:11018": "first peek", "src/osd/OSD.cc:11031": "after the sdata_cond wake",
              "src/osd/OSD.cc:11144": "after pg->lock()", "src/osd/OSD.cc:11097": "after a timed wait"}
WAIT_LOCK = {"src/osd/OSD.cc:11021", "src/osd/OSD.cc:11087"}


def categorize(r):
    k, prim, fn, loc, caller = r["kind"], r["prim"], r["site_fn"], r["site_loc"], r["caller"]
    # --- the OSD's sharded op queue (tp_osd_tp) and its producers
    if fn == "OSD::ShardedOpWQ::_process":
        if prim == "cond-wait":
            return ("idle", "tp_osd_tp: sdata_cond.wait, shard queue empty (ShardedOpWQ::_process OSD.cc:11029)")
        if prim == "cond-relock":
            return ("contention", "sdata_wait_lock, re-taken on the sdata_cond wake-up (_process OSD.cc:11029)")
        if prim == "mutex" and loc in SHARD_LOCK:
            return ("contention", "shard_lock in ShardedOpWQ::_process (%s)" % SHARD_LOCK[loc])
        if prim == "mutex" and loc in WAIT_LOCK:
            return ("contention", "sdata_wait_lock in ShardedOpWQ::_process (%s)" % loc.split("/")[-1])
        if prim == "mutex" and loc == "src/osd/OSD.cc:11050":
            return ("contention", "ContextQueue q_mutex (_process -> ContextQueue::move_to)")
    if fn == "ContextQueue::move_to" and prim == "mutex":
        return ("contention", "ContextQueue q_mutex (_process -> ContextQueue::move_to)")
    if fn == "OSD::ShardedOpWQ::_enqueue":
        if prim == "mutex" and loc == "src/osd/OSD.cc:11349":
            return ("contention", "shard_lock in ShardedOpWQ::_enqueue (OSD.cc:11349)")
        if prim == "mutex" and loc == "src/osd/OSD.cc:11355":
            return ("contention", "sdata_wait_lock in ShardedOpWQ::_enqueue (OSD.cc:11355)")
        if prim == "cond-signal":
            return ("contention", "sdata_cond notify_all: glibc condvar quiesce wait (_enqueue OSD.cc:11357)")
    if fn == "ContextQueue::queue":
        if prim == "mutex":
            return ("contention", "sdata_wait_lock in ContextQueue::queue (Finisher.h:218, from %s)" % caller)
        if prim == "cond-signal":
            return ("contention", "sdata_cond notify_all: glibc condvar quiesce wait (ContextQueue::queue Finisher.h:219)")
    if fn == "PG::lock" and prim == "mutex":
        return ("contention", "PG lock (PG::lock from %s)" % caller)
    if fn.startswith("ProtocolV2::") and prim == "mutex":
        return ("contention", "AsyncConnection write_lock (%s %s)" % (fn, loc.split("/")[-1]))
    if fn.startswith("HybridAllocator::") and prim == "mutex":
        return ("contention", "allocator lock (%s)" % fn)
    if fn == "BlueStore::OpSequencer::queue_new" or (fn == "BlueStore::_txc_finish_io" and prim == "mutex"):
        return ("contention", "OpSequencer qlock (%s)" % fn)
    if fn == "BlueStore::_txc_state_proc" and prim == "mutex" and loc.endswith(":11628"):
        return ("contention", "kv_lock (BlueStore::_txc_state_proc, queueing to kv_sync)")
    # --- BlueStore's threads
    if fn == "BlueStore::_kv_sync_thread":
        if prim == "cond-wait":
            return ("idle", "bstore_kv_sync: kv_cond.wait, kv queue empty (_kv_sync_thread)")
        if prim == "cond-relock":
            return ("contention", "kv_lock, re-taken on the kv_cond wake-up (_kv_sync_thread)")
    if fn == "BlueStore::_kv_finalize_thread":
        if prim == "cond-wait":
            return ("idle", "bstore_kv_final: kv_finalize_cond.wait, queue empty (_kv_finalize_thread)")
        if prim == "cond-relock":
            return ("contention", "kv_finalize_lock, re-taken on the wake-up (_kv_finalize_thread)")
    if prim == "io_getevents":
        return ("idle", "bstore_aio: io_getevents, no completed aio (KernelDevice::_aio_thread)")
    if fn == "IOContext::aio_wait":
        if prim == "cond-wait":
            who = "BlueFS::_wait_for_aio" if "BlueFS" in caller else caller
            return ("io", "IOContext::aio_wait, its aio in flight (from %s)" % who)
        if prim == "cond-relock":
            return ("contention", "IOContext lock, re-taken on the aio_wait wake-up")
    if prim == "fdatasync":
        who = "BlueFS::_flush_bdev (WAL/DB)" if "BlueFS" in caller else "BlueStore::_kv_sync_thread (data device)" \
            if "_kv_sync_thread" in caller else caller
        return ("io", "fdatasync in KernelDevice::flush from %s" % who)
    if prim == "sync_file_range":
        return ("io", "sync_file_range in KernelDevice::_sync_write (BlueFS buffered write)")
    if prim == "pwrite/pread":
        return ("io", "pwrite/pread in %s (inode lock / writeback)" % fn)
    if prim == "io_submit":
        return ("contention", "io_submit blocked on the block file's inode rwsem (ext4; KernelDevice::aio_submit)")
    if prim == "epoll_wait":
        return ("idle", "msgr-worker: epoll_wait, no socket ready (EventCenter::process_events)")
    if prim == "malloc-lock":
        return ("contention", "glibc malloc arena lock")
    if prim == "nanosleep":
        return ("timer", "usleep (%s)" % fn)
    if prim == "cond-wait" and any(x in fn for x in ("timer", "Timer", "MempoolThread", "heartbeat_entry",
                                                       "CephContextServiceThread", "tick", "Finisher::finisher_thread",
                                                       "OSD::", "Throttle")):
        if "Throttle" in fn:
            return ("other", "throttle (%s)" % fn)
        return ("timer", "periodic thread (%s)" % fn)
    if prim in ("mutex", "cond-relock", "cond-signal", "rwlock", "libc-lock"):
        return ("contention", "other lock: %s %s" % (fn, loc.split("/")[-1]))
    if prim == "cond-wait":
        return ("other", "cond wait: %s %s" % (fn, loc.split("/")[-1]))
    return ("other", "%s: %s" % (prim, fn))
