/*
 * perfcounters.h - the OSD and BlueStore perf counters the model keeps, named
 * as `ceph daemon osd.N perf dump` prints them (Pacific names); the JSON is
 * written by explorer/io/perfdump.c.
 *
 * Only counters the model produces are kept; the dump writes them under the
 * same section and key names as the real daemon ("osd": op_w, op_rw,
 * op_w_latency {avgcount, sum, avgtime}...; "bluestore": kv_sync_lat,
 * state_aio_wait_lat...), so scripts written for real clusters read them.
 * Classification follows PrimaryLogPG::log_op_stats: may_read && may_write ->
 * op_rw, may_read -> op_r, otherwise op_w.
 */
#ifndef CEPHSIM_MODELS_PERFCOUNTERS_H
#define CEPHSIM_MODELS_PERFCOUNTERS_H

#include <stdint.h>

#include "stats.h"

/* One op-class block: op, op_r, op_w, op_rw share this layout. */
struct perf_op_class {
    uint64_t count;
    uint64_t in_bytes, out_bytes;
    struct lat_sum latency;         /* recv_stamp -> reply sent */
    struct lat_sum process_latency; /* dequeue -> reply sent */
    struct lat_sum prepare_latency; /* dequeue -> transaction prepared */
};

/*
 * One Throttle's counters (src/common/Throttle.cc, l_throttle_*), section
 * "throttle-<name>": val the units held now (gauge), max the limit;
 * get_started/get/get_sum of Throttle::get (the waiting kind),
 * get_or_fail_success/_fail of get_or_fail (never waits; a fail means the
 * caller retries later: counted once per request the model holds back),
 * put/put_sum, wait the time blocked in get.  take is never called on the
 * throttles the model has.
 */
struct perf_throttle {
    uint64_t val, max;
    uint64_t get_started, get, get_sum, get_or_fail_fail, get_or_fail_success, put, put_sum;
    struct lat_sum wait;
};

struct osd_perf {
    int64_t op_wip;                 /* repops in flight (gauge) */
    /* the client messenger's policy throttlers (osd_client_message_cap,
       osd_client_message_size_cap: ProtocolV2 throttle_message/throttle_bytes, get_or_fail) */
    struct perf_throttle client_messages, client_bytes;
    struct perf_op_class op, op_r, op_w, op_rw;
    struct lat_sum op_before_queue_op_lat;   /* recv_stamp -> enqueue */
    struct lat_sum op_before_dequeue_op_lat; /* recv_stamp -> dequeue */
    uint64_t subop, subop_in_bytes;
    struct lat_sum subop_latency;
    uint64_t subop_w, subop_w_in_bytes;
    struct lat_sum subop_w_latency;
    uint64_t numpg, numpg_primary, numpg_replica;
    /* not in Ceph's dump: counts the model keeps for explanations */
    uint64_t rw_lock_waits;         /* "waiting for rw locks" events */
    uint64_t requeues;              /* waiters requeued on lock release */
};

struct bluestore_perf {
    struct lat_sum kv_flush_lat, kv_commit_lat, kv_sync_lat, kv_final_lat;
    struct lat_sum state_prepare_lat, state_aio_wait_lat, state_io_done_lat,
        state_kv_queued_lat, state_kv_commiting_lat, state_kv_done_lat,
        state_deferred_queued_lat, state_deferred_aio_wait_lat, state_deferred_cleanup_lat,
        state_finishing_lat, state_done_lat;
    struct lat_sum throttle_lat, submit_lat, commit_lat, read_lat;
    uint64_t deferred_write_ops, deferred_write_bytes;
    /* the data cache: buffers held (gauges) and read bytes found / not found there */
    uint64_t bluestore_buffers, bluestore_buffer_bytes, bluestore_buffer_hit_bytes, bluestore_buffer_miss_bytes;
    uint64_t bluestore_write_big, bluestore_write_big_bytes;
    uint64_t bluestore_write_small, bluestore_write_small_bytes;
    uint64_t bluestore_write_big_deferred;  /* aligned writes deferred (prefer_deferred_size) */
    uint64_t bluestore_write_deferred, bluestore_write_deferred_bytes; /* every deferred write */
    uint64_t bluestore_txc;
    uint64_t kv_batches;            /* not in Ceph: kv_sync cycles, for batch size */
    uint64_t rocksdb_flushes;       /* not in Ceph: memtable flushes (cluster.rocksdb_flushes on_fill) */
    /* not in Ceph: txcs whose RocksDB background work (cost.rocksdb_background_us_per_txc) was
       queued on rocksdb:low, and whose work those threads finished, since the reset; more in
       than out means the threads fell behind the charge (a real RocksDB would stall writes) */
    uint64_t rocksdb_bg_txcs_queued, rocksdb_bg_txcs_done;
    /* throttle-bluestore_throttle_bytes: BlueStoreThrottle::try_start_transaction's get per
       txc, release_kv_throttle's one put per kv_sync batch */
    struct perf_throttle throttle_bytes;
    /* "rocksdb" (RocksDBStore): submit_latency per txc submitted by kv_sync (its share of
       the batch's submit CPU), submit_sync_latency per batch (the WAL append and its fsync) */
    struct lat_sum rocksdb_submit_latency, rocksdb_submit_sync_latency;
};

/*
 * One AsyncMessenger worker's counters (src/msg/async/Stack.h, section
 * "AsyncMessenger::Worker-N" of an OSD's dump): messages and bytes it wrote
 * and read, msgr_running_total_time (the worker thread's CPU since the
 * reset), msgr_running_send_time (its message writes),
 * msgr_send_messages_queue_lat (a message's wait from send_message until
 * the worker writes it).  The model keeps no connection counts, no recv or
 * fast-dispatch split and no ack frames: those keys are absent.
 */
struct msgr_worker_perf {
    uint64_t recv_messages, send_messages, recv_bytes, send_bytes;
    uint64_t send_ns;
    double busy_ns_at_reset;        /* the thread's busy_ns when the counters were reset */
    struct lat_sum send_queue_lat;
    /* AckFrames written (lossless connections): not in the perf dump, whose
       msgr_send_messages counts messages only (ProtocolV2::write_message) */
    uint64_t ack_frames;
};

/*
 * A librbd client's Objecter counters (src/osdc/Objecter.cc Objecter::init,
 * section "objecter" of the client's `perf dump`): ops submitted, sent and
 * replied, by kind (op_r / op_w / op_rmw from the op's read and write flags)
 * and per OSD op code in them (osdop_*); the model never resends, so
 * op_resend stays 0.  objecter_ops / objecter_bytes are the in-flight
 * throttles (objecter_inflight_ops, objecter_inflight_op_bytes).
 */
struct objecter_perf {
    uint64_t op_active, op_send, op_send_bytes, op_reply;
    struct lat_sum oplen_avg;       /* an avg counter of ops per request: {avgcount, sum} */
    uint64_t op, op_r, op_w, op_rmw;
    uint64_t osdop_stat, osdop_read, osdop_write, osdop_writefull, osdop_call, osdop_notify, osdop_other;
    struct perf_throttle throttle_ops, throttle_bytes;
};

#endif
