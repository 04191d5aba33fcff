/*
 * config.c - the parameter tables of config.h, with Ceph's defaults
 * (src/common/options/global.yaml.in, rbd.yaml.in; Pacific unless noted), the
 * releases (ceph.release selects release_table.c's row, generated from each
 * release's own options source by tools/extract-release-options) and the
 * sources of the stage-cost estimates.
 */
#include "config.h"

#include "release_table.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define OPT(field) offsetof(struct ceph_options, field)
#define COST(field) offsetof(struct stage_costs, field)

static const char *const op_queue_names[] = {"wpq", "mclock_scheduler", NULL};
static const char *const scheduler_names[] = {"none", "simple", NULL};
static const char *const rocksdb_build_names[] = {"RelWithDebInfo", "None", NULL};
static const char *const lock_rule_names[] = {"release", "excl_if_read", "excl_if_read_data", NULL};

#define I(name, lo, hi, d, unit, help) \
    {#name, PARAM_INT, OPT(name), lo, hi, d, NULL, NULL, unit, help}
#define B(name, d, help) {#name, PARAM_BOOL, OPT(name), 0, 1, d, NULL, NULL, NULL, help}

/* bluestore_rocksdb_options as each release ships it (src/common/options.cc,
   global.yaml.in; 16.2.15: `ceph-conf -D` of Debian 12's packages; 18.2:
   PR 51821 / reef backport PR 51900, merged before v18.2.0; 19.2: `ceph config
   get osd bluestore_rocksdb_options` of 19.2.1 in the ceph.io post on Squid's
   LZ4 default).
   12.2-15.2 differ from 16.2 only in keys the model does not read, and in
   max_background_compactions=2 (ceph PR 29027, 2019; taken as 15.2+). */
#define ROCKSDB_OPTIONS_12_2                                                                                 \
    "compression=kNoCompression,max_write_buffer_number=4,min_write_buffer_number_to_merge=1,"            \
    "recycle_log_file_num=4,write_buffer_size=268435456,writable_file_max_buffer_size=0,"                 \
    "compaction_readahead_size=2097152"
#define ROCKSDB_OPTIONS_15_2 ROCKSDB_OPTIONS_12_2 ",max_background_compactions=2"
#define ROCKSDB_OPTIONS_16_2 ROCKSDB_OPTIONS_15_2 ",max_total_wal_size=1073741824"
#define ROCKSDB_OPTIONS_18_2_TAIL                                                                            \
    ",max_write_buffer_number=64,min_write_buffer_number_to_merge=6,compaction_style=kCompactionStyleLevel," \
    "write_buffer_size=16777216,max_background_jobs=4,level0_file_num_compaction_trigger=8,"              \
    "max_bytes_for_level_base=1073741824,max_bytes_for_level_multiplier=8,compaction_readahead_size=2MB," \
    "max_total_wal_size=1073741824,writable_file_max_buffer_size=0"
#define ROCKSDB_OPTIONS_18_2 "compression=kNoCompression" ROCKSDB_OPTIONS_18_2_TAIL
#define ROCKSDB_OPTIONS_19_2 "compression=kLZ4Compression" ROCKSDB_OPTIONS_18_2_TAIL

const struct param_def ceph_option_params[] = {
    I(osd_op_num_shards_ssd, 1, 128, 8, "count", "op shards per OSD (OSD::ShardedOpWQ); default 8"),
    I(osd_op_num_threads_per_shard_ssd, 1, 32, 2, "count", "tp_osd_tp threads per shard; thread 0 runs commit callbacks; default 2"),
    {"osd_op_queue", PARAM_ENUM, OPT(osd_op_queue), 0, 0, 0, NULL, op_queue_names, NULL,
     "op scheduler: wpq (<= 16.2) or mclock_scheduler (17.2+); set by ceph.release unless given"},
    I(ms_async_op_threads, 1, 24, 3, "count", "AsyncMessenger worker threads per daemon; each connection bound to one; default 3"),
    I(osd_client_message_cap, 0, 1000000, 256, "count", "client messages in flight per OSD (Policy throttler), 0 = unlimited; 256 from 16.2, 100 or 0 before (set by ceph.release)"),
    I(osd_client_message_size_cap, 0, 1LL << 40, 500LL << 20, "bytes", "client message bytes in flight per OSD; default 500 MiB"),
    B(ms_crc_data, 1, "msgr crc32c over message data; default true"),
    B(osd_enable_op_tracker, 1, "OpTracker on (dump_historic_ops): finished ops go through the OpHistorySvc thread, which polls its queue with usleep 1 ms, x4 after each empty look up to 256 ms (cost.osd_op_history_*); default true"),
    I(osd_op_history_size, 1, 1000000, 20, "count", "ops kept by dump_historic_ops; default 20"),
    {"osd_op_history_duration", PARAM_DOUBLE, OPT(osd_op_history_duration), 0.001, 1e6, 600, NULL,
     NULL, "s", "oldest op kept by dump_historic_ops; default 600 s"},
    I(bluestore_min_alloc_size_ssd, 4096, 1 << 20, 4096, "bytes", "allocation unit on SSD (fixed at mkfs): 16 KiB in 14.2.0-14.2.7, 4 KiB from 14.2.8 (set by ceph.release); a write not a multiple of it is deferred"),
    I(bluestore_prefer_deferred_size_ssd, 0, 1 << 24, 0, "bytes", "writes up to this size go through the WAL (deferred); SSD default 0"),
    I(bluestore_deferred_batch_ops_ssd, 1, 1024, 16, "count", "deferred writes batched per submit; default 16"),
    I(bluestore_throttle_bytes, 0, 1LL << 40, 64LL << 20, "bytes", "txc bytes until KV commit (BlueStore::throttle); default 64 MiB"),
    I(bluestore_throttle_deferred_bytes, 0, 1LL << 40, 128LL << 20, "bytes", "deferred bytes until deferred IO done; default 128 MiB"),
    I(bluestore_throttle_cost_per_io_ssd, 0, 1 << 24, 4000, "bytes", "txc cost per IO (_txc_calc_cost); default 4000"),
    {"bluestore_rocksdb_options", PARAM_TEXT, OPT(bluestore_rocksdb_options), 0, 0, 0, ROCKSDB_OPTIONS_16_2, NULL,
     NULL,
     "the RocksDB options string BlueStore opens its DB with (set by ceph.release: 4 x 256 MiB memtables, "
     "min_write_buffer_number_to_merge 1 until 17.2; 64 x 16 MiB, merge 6, max_background_jobs 4 in 18.2 (PR 51900); "
     "LZ4 compression in 19.2). Read by the model: write_buffer_size (the skiplist the kv_sync thread inserts every "
     "key into: cost.rocksdb_memtable_insert_us) and, with cluster.rocksdb_flushes on_fill, x "
     "min_write_buffer_number_to_merge the memtable bytes a flush takes; a malformed pair is refused. Not read: "
     "write amplification and L0/L1 sizing (level0_*, max_bytes_for_level_*: compaction is CPU per txc), the "
     "background job count (flush and compaction CPU runs on 2 threads), compression"},
    B(bluestore_allocation_from_file, 0, "allocations kept in a file written at shutdown, not in RocksDB (NCB, 17.2+: "
      "true; absent, i.e. false, before): false puts BitmapFreelistManager's allocate/release keys in every allocating "
      "txc (cost.bluestore_freelist_keys_per_txc) (set by ceph.release)"),
    B(bluestore_default_buffered_read, 1, "a read's data stays in the OSD's data cache (BlueStore::_do_read: bc.did_read); default true since 12.2"),
    B(bluestore_default_buffered_write, 0, "a write's data stays in the data cache; false (default since 12.2): the write drops the cached range (Buffer::FLAG_NOCACHE)"),
    B(bluestore_cache_autotune, 1, "the PriorityCache autotuner sizes the caches from osd_memory_target (12.2.9+, default true; absent, i.e. false, before 12.2.9)"),
    I(osd_memory_target, 1LL << 26, 1LL << 42, 4LL << 30, "bytes", "OSD memory the autotuner aims at (12.2.9+); default 4 GiB"),
    I(osd_memory_base, 0, 1LL << 40, 768LL << 20, "bytes", "memory an OSD needs besides its caches (autotune); default 768 MiB"),
    I(osd_memory_cache_min, 0, 1LL << 40, 128LL << 20, "bytes", "the autotuner's floor for the caches; default 128 MiB"),
    {"osd_memory_expected_fragmentation", PARAM_DOUBLE, OPT(osd_memory_expected_fragmentation), 0, 1, 0.15, NULL,
     NULL, "ratio", "heap fragmentation the autotuner allows for; default 0.15"},
    I(bluestore_cache_size_ssd, 0, 1LL << 42, 3LL << 30, "bytes", "cache size without the autotuner; default 3 GiB"),
    {"bluestore_cache_meta_ratio", PARAM_DOUBLE, OPT(bluestore_cache_meta_ratio), 0, 1, 0.45, NULL, NULL, "ratio",
     "onode cache share (the data cache has 1 - meta - kv - kv_onode); 0.45 from 16.2, 0.4 in 12.2.9-15.2, 0.01 before 12.2.9 (set by ceph.release)"},
    {"bluestore_cache_kv_ratio", PARAM_DOUBLE, OPT(bluestore_cache_kv_ratio), 0, 1, 0.45, NULL, NULL, "ratio",
     "RocksDB block cache share; 0.45 from 16.2, 0.4 in 12.2.9-15.2, 0.99 before 12.2.9 (set by ceph.release)"},
    {"bluestore_cache_kv_onode_ratio", PARAM_DOUBLE, OPT(bluestore_cache_kv_onode_ratio), 0, 1, 0.04, NULL, NULL,
     "ratio", "RocksDB onode column family block cache share; 0.04 from 16.2, absent (0) before (set by ceph.release)"},
    I(osd_num_cache_shards, 0, 1024, 32, "count", "BlueStore cache shards: a PG uses shard ps % shards and holds at most the data cache / shards; 32 from 15.2, 0 = the op shards (before 15.2: OSD::init set_cache_shards(get_num_op_shards())) (set by ceph.release)"),
    {"bluestore_cache_autotune_interval", PARAM_DOUBLE, OPT(bluestore_cache_autotune_interval), 0.01, 3600, 5, NULL,
     NULL, "s", "seconds between the autotuner's balances: the data cache grows by what it holds plus its ratio of the rest each time; default 5"},
    {"rocksdb_build_type", PARAM_ENUM, OPT(rocksdb_build_type), 0, 0, 0, NULL, rocksdb_build_names, NULL,
     "CMAKE_BUILD_TYPE the OSD's RocksDB was built with: RelWithDebInfo (RPMs, containers, source builds, Canonical's "
     "Ubuntu packages) or None, unoptimised: download.ceph.com's Debian/Ubuntu packages until the BuildRocksDB.cmake "
     "fix (PR 54918) reached 16.2.15, 17.2.8 and 18.2.4; RocksDB's CPU (kv_sync submits, flushes, compaction) x3 "
     "(compaction ~3x faster once fixed, 4K randwrite up to 2x: ceph.io 2024 '1 TiB/s', 'Silver bullet')"},
    I(debug_osd, 0, 30, 5, "level", "gather level of debug_osd (default 1/5 -> 5); 0 = logging off"),
    I(debug_ms, 0, 30, 0, "level", "gather level of debug_ms (default 0/0)"),
    I(debug_bluestore, 0, 30, 5, "level", "gather level of debug_bluestore (default 1/5)"),
    I(debug_rocksdb, 0, 30, 5, "level", "gather level of debug_rocksdb (default 4/5)"),
    I(debug_bdev, 0, 30, 3, "level", "gather level of debug_bdev (default 1/3)"),
    {"rbd_io_scheduler", PARAM_ENUM, OPT(rbd_io_scheduler), 0, 0, 1, NULL, scheduler_names, NULL,
     "librbd object dispatch scheduler (SimpleSchedulerObjectDispatch); simple from 15.2, none (no such layer) in 14.2 (set by ceph.release)"},
    I(rbd_op_threads, 1, 64, 1, "count", "librbd's op work queue threads (before 16.2 its I/O path's; from 16.2 "
      "the io_context_pool has max(this, librados_thread_count): AsioEngine raises librados_thread_count to it); default 1"),
    I(librados_thread_count, 1, 64, 2, "count", "threads of librados' io_context_pool (RadosClient::connect "
      "poolctx.start), on which librbd's I/O path runs from 16.2 (AsioEngine, neorados): max(this, rbd_op_threads) "
      "of them; a 16.2.15 fio process shows 2 (ceph-conf -D; tests/data/lab9 client_threads.log); before 16.2 "
      "librbd's I/O path runs on rbd_op_threads and this has no effect; default 2"),
    B(rbd_non_blocking_aio, 1, "hand rbd_aio_* to the io_context thread (QueueImageDispatch); default true"),
    B(rbd_cache, 1, "librbd cache (writearound policy); default true"),
    B(rbd_cache_writethrough_until_flush, 1, "cache is pass-through until the first flush; default true (fio never flushes)"),
    I(rbd_cache_max_dirty, 0, 1LL << 40, 24LL << 20, "bytes", "write-around: in-flight bytes acknowledged early (WriteAroundObjectDispatch m_max_dirty); default 24 MiB"),
    I(objecter_inflight_ops, 1, 1 << 24, 1024, "count", "Objecter op throttle; default 1024"),
    I(objecter_inflight_op_bytes, 1, 1LL << 40, 100LL << 20, "bytes", "Objecter byte throttle; default 100 MiB"),
    I(krbd_queue_depth, 1, 65536, 128, "count", "rbd map -o queue_depth: blk-mq tags of a mapped image, I/Os past it wait (rbd.c RBD_QUEUE_DEPTH_DEFAULT = BLKDEV_DEFAULT_RQ, 128)"),
    I(rbd_simple_scheduler_min_samples, 0, 1000, 10, "count", "latency samples before the simple scheduler holds writes (LatencyStats window 10)"),
    {"client_notify_timeout", PARAM_DOUBLE, OPT(client_notify_timeout), 0.001, 1e6, 10, NULL, NULL, "s",
     "librbd: a lock owner that acked a RequestLock but never released is asked again after this (ImageWatcher::handle_request_lock); default 10 s"},
    {"release", PARAM_STRING, OPT(release), 0, 0, 0, "16.2.14", NULL, NULL,
     "Ceph release (12.2.0-12.2.13, 14.2.0-14.2.22, 15.2.0-15.2.17, 16.2.0-16.2.15, 17.2.0-17.2.9, 18.2.0-18.2.8, 19.2.0-19.2.4, luminous..squid, crimson; others refused): every ceph.* default as the release ships it (models/ceph/release_table.c; a ceph.<option> given wins), the RWEXCL fix (16.2.15/17.2.8/18.2.4/19+), Crimson"},
    {"rw_lock_rule", PARAM_ENUM, OPT(rw_lock_rule), 0, 0, 0, NULL, lock_rule_names, NULL,
     "override PrimaryLogPG::get_rw_locks for read+write ops: release (follow ceph.release), excl_if_read (pre-fix), excl_if_read_data (post-fix)"},
    I(crimson_seastar_smp, 1, 64, 1, "count", "crimson: reactor cores per OSD (crimson_seastar_smp)"),
    PARAM_END,
};

#define C(name, d, help) {#name, PARAM_DOUBLE, COST(name), 0, 100000, d, NULL, NULL, "us", help}

/*
 * Defaults are estimates [est] inside the published envelopes of
 * ceph-model.md section 6 (QD=1 budget 350-700 us; ~285 us of CPU per
 * replicated OSD write at high load, ceph.io 2022; ~65 us of librbd client
 * CPU per 4 KiB write, ceph PR 28044), at the reference clock of the CPU
 * profile.  `cephsim calibrate` fits them to captures.
 */
const struct param_def stage_cost_params[] = {
    C(fio_submit_us, 4, "fio io_u prep + rbd_aio_write call (fio thread)"),
    C(fio_complete_us, 4, "fio completion handling (fio thread)"),
    C(fio_aio_submit_us, 1.2, "fio io_u prep + io_submit/io_uring_enter through blk-mq to the driver's queue_rq, per I/O, "
                              "kernel engines (libaio, io_uring: fio thread); with fio_aio_complete_us the 1.64 us "
                              "per I/O of aio's single-thread peak, 608K IOPS (Axboe, 'Efficient IO with io_uring' "
                              "9.1), plus fio's own accounting [est split]"),
    C(fio_aio_complete_us, 0.8, "fio io_getevents/CQ reap + completion handling, per I/O, kernel engines (fio thread) "
                                "[est, see fio_aio_submit_us]"),
    C(librbd_dispatch_us, 12, "ImageDispatcher + Striper + object dispatch layers, every I/O (io_context thread); "
      "18 for reads and writes alike until librbd_write_dispatch_us took the write's own layers; librbd on "
      "neorados/asio (16.0+): 5.3 (stage_costs_apply_release)"),
    C(librbd_write_dispatch_us, 6, "the dispatch layers only a write passes (io_context thread): "
      "exclusive_lock::ImageDispatch, WriteBlockImageDispatch, the object map's pre-write check "
      "(ObjectWriteRequest::pre_write_object_map_update), the simple scheduler's in-flight tracking. "
      "[fit: ceph PR 28044's one librbd client spends 65.0 us of CPU per write against 53.8 per read; "
      "tests/data/lab9's client spends more per write on each of its threads, ~45 % of the difference "
      "on io_context_pool: 6 of the 11.2 us here, the rest not modelled]; librbd on neorados/asio (16.0+): "
      "20 (stage_costs_apply_release)"),
    C(librbd_complete_us, 10, "ObjectRequest/AioCompletion completion (io_context thread, the finisher before "
      "16.0); 16.0+: 4.4 (stage_costs_apply_release)"),
    C(objecter_submit_us, 10, "Objecter::op_submit: _calc_target (CRUSH), _prepare_osd_op, the send's hand-off "
      "to the connection's worker (which encodes the MOSDOp); 16.0+: 4.4 (stage_costs_apply_release)"),
    C(objecter_complete_us, 6, "Objecter::handle_osd_op_reply"),
    C(copyup_client_us, 30, "CopyupRequest bookkeeping on the client (per copy-up)"),
    C(krbd_dispatch_us, 2, "krbd: rbd_queue_workfn + rbd_img_fill_from_bio + rbd_img_handle_request, per I/O (rbd_wq kworker) [est]"),
    C(krbd_osdc_submit_us, 2, "krbd: ceph_osdc_start_request per object: calc_target (CRUSH) + encode_request (rbd_wq kworker) [est]"),
    C(krbd_con_send_us, 1.5, "krbd: libceph con_work try_write per message: prepare_write_message + ceph_tcp_sendmsg/"
                             "sendpage of header, front, data, footer (MSG_MORE), on the submitting core; the TCP "
                             "stack is the NIC profile's tcp_tx_cpu_us [est]"),
    C(krbd_complete_us, 4, "krbd: handle_reply + rbd_osd_req_callback + blk_mq_end_request, per object (ceph-msgr kworker) [est]"),
    C(msgr_tx_us, 4, "ProtocolV2::write_message: frame + socket write (msgr-worker)"),
    C(msgr_rx_us, 6, "ProtocolV2 read_frame/handle_message + decode (msgr-worker)"),
    C(msgr_crc_us_per_kib, 0.25, "crc32c per KiB of message (ms_crc_data)"),
    C(msgr_ack_us, 1, "ProtocolV2 AckFrame on a lossless (OSD-to-OSD) connection, each end: encode + _try_send on the "
      "worker that read a message when nothing was queued to carry the ack, read_frame + handle_message_ack (trim "
      "the sent list) on the peer's; the NIC profile's TCP CPU on top [est]"),
    C(msgr_local_delivery_us, 1, "a message an OSD sends itself (the loopback Connection: AsyncConnection::send_message's "
      "is_loopback branch): DispatchQueue::local_delivery queues the Message as it is (no encoding, no socket, not "
      "counted in msgr_send/recv_messages) and the ms_local thread fast-dispatches it (run_local_delivery); the "
      "ms_local thread's CPU besides OSD::ms_fast_dispatch's enqueue [est]"),
    C(osd_enqueue_us, 3, "OSD::ms_fast_dispatch -> enqueue_op (msgr-worker)"),
    C(osd_dequeue_us, 5, "ShardedOpWQ::_process dequeue + PG lock + dequeue_op"),
    C(osd_do_op_us, 20, "PrimaryLogPG::do_request/do_op prologue: OpInfo, find_object_context, get_rw_locks"),
    C(osd_execute_write_us, 30, "execute_ctx + prepare_transaction + finish_ctx (pg log entry)"),
    C(osd_execute_read_us, 12, "execute_ctx for a read"),
    C(osd_issue_repop_us, 8, "issue_repop + ReplicatedBackend::submit_transaction, per replica message"),
    C(osd_op_commit_us, 12, "ReplicatedBackend::op_commit callback on shard thread 0"),
    C(osd_repop_reply_us, 12, "do_repop_reply on the primary"),
    C(osd_reply_us, 15, "eval_repop: log_op_stats, MOSDOpReply, remove_repop, lock release"),
    C(osd_redispatch_us, 15, "re-running do_op for a requeued op (waiting for rw locks again)"),
    C(osd_error_us, 15, "record_write_error: log-only update for -ENOENT"),
    C(osd_do_repop_us, 20, "replica ReplicatedBackend::do_repop: decode txn + log"),
    C(osd_repop_commit_us, 10, "replica repop_commit: MOSDRepOpReply"),
    C(osd_ec_sub_read_us, 10, "ECBackend::handle_sub_read on a shard, besides the BlueStore read: decode the "
      "MOSDECSubOpRead, MOSDECSubOpReadReply with the chunk (do_repop's bookkeeping without a transaction) [est]"),
    C(osd_ec_sub_read_reply_us, 8, "ECBackend::handle_sub_read_reply on the primary, per shard's reply: gather the "
      "chunk into the read op (ReadOp::complete) [est, as do_repop_reply less the repop bookkeeping]"),
    C(osd_op_history_insert_us, 1.5, "OpHistory::_insert_delayed on the OpHistorySvc thread, per op the OpTracker "
      "finished (osd_enable_op_tracker): the op into the arrived and duration sets, cleanup's erase of the op it "
      "pushes out of osd_op_history_size and that op's teardown (OpRequest, its Message) [fit: tests/data/lab9, "
      "4 KiB reads, history 20 / 600 s: OpHistorySvc CPU per op less its wake-ups x cost.thread_sleep_us]"),
    C(osd_op_history_write_us, 6, "the same, more for an op that wrote (client write, repop): the teardown of its "
      "transaction, log entry and data buffers [fit: tests/data/lab9, writes against reads]"),
    C(osd_ec_encode_us_per_kib, 0.25, "ECUtil::encode (ErasureCodeJerasure reed_sol_van / ISA-L) per KiB of stripe "
      "data, with ECTransaction::generate_transactions' per-shard split: ~4 GB/s a core for RS k=4-8, m=2 with "
      "SIMD [est]"),
    C(bluestore_prepare_us, 40, "BlueStore::queue_transactions: _txc_add_transaction, alloc, csum, encode onode, io_submit"),
    C(bluestore_read_us, 15, "BlueStore::read CPU"),
    C(bluestore_aio_us, 4, "bstore_aio: _txc_aio_finish/_txc_state_proc per txc"),
    C(bluestore_read_reap_us, 2, "bstore_aio: a read's completion out of io_getevents and IOContext::try_aio_wake "
      "(its lock, notify_all of the reader in aio_wait: BlueStore::_do_read reads by aio whatever the size) "
      "[fit: tests/data/lab9, the OSDs' bstore_aio CPU per 4 KiB read at QD=1 and 32 (22.5 and 22.3 us at "
      "1.01 and 0.62 wake-ups) less its wake-ups, on that VM]"),
    C(bluestore_kv_submit_us, 10, "kv_sync: submit_transaction per txc, besides its keys' memtable inserts "
      "(cost.rocksdb_memtable_insert_us): WriteBatch encode, WAL record append through BlueFS"),
    C(bluestore_kv_sync_us, 12, "kv_sync: RocksDB WAL write path per batch (excluding device time)"),
    C(bluestore_kv_final_us, 8, "kv_final: _txc_committed_kv + _txc_finish per txc"),
    {"bluestore_wal_bytes_per_txc", PARAM_DOUBLE, COST(bluestore_wal_bytes_per_txc), 0, 1e7, 2048,
     NULL, NULL, "bytes", "RocksDB WAL record per txc (onode, OI/SnapSet, pg log, freelist) [est]"},
    C(bluestore_deferred_us, 10, "a deferred write's prepare per txc, on the submitting thread: _do_write's "
      "deferred op and the bluestore_deferred_transaction_t encoded into the txc's keys (queue_transactions; "
      "bluestore_prefer_deferred_size, min_alloc_size)"),
    C(bluestore_deferred_aio_us, 4, "_deferred_submit_unlock on bstore_kv_final, per aio_write it issues (one per "
      "physically contiguous run of an OpSequencer's DeferredBatch): the iomap walk, the run's bufferlist and "
      "iocb, its share of aio_submit (io_submit); [est] as cost.bluestore_aio_us on bare metal; 37 us measured "
      "on the lab VM (tests/data/lab6: bstore_kv_final CPU, random against sequential deferred writes, less "
      "their wake-ups, per run)"),
    C(rocksdb_background_us_per_txc, 79, "RocksDB memtable flush + compaction CPU per txc, on the background threads "
      "(off the commit path; with kv_sync's share brings a replicated write to ~285 us of OSD CPU at high load, "
      "ceph.io 2022; 90 until the memtable inserts were charged to kv_sync: 11 us, Pacific's default 10 keys at 256 MiB, "
      "moved there) [est]"),
    C(rocksdb_memtable_insert_us, 0.1474, "kv_sync: InlineSkipList::Insert + RecomputeSpliceLevels + KeyComparator "
      "per key and per doubling of the active memtable past rocksdb_memtable_cached_bytes (an insert walks "
      "log2(entries) levels; the top ones stay in cache), averaged over a memtable filling from empty to "
      "write_buffer_size: 10 keys x 7.54 levels at 256 MiB = 11.1 us, x 5.54 at 64 MiB = 8.2 us per txc, the "
      "deep-dive's wall-clock profile of bstore_kv_sync (29.3 % and 23.6 % of 37.9 / 34.6 us) [fit, ceph.io 2022 "
      "'RocksDB Tuning Deep-Dive']"),
    {"rocksdb_memtable_cached_bytes", PARAM_DOUBLE, COST(rocksdb_memtable_cached_bytes), 1, 1e12, 533625, NULL, NULL,
     "bytes", "memtable size whose skiplist walk costs nothing extra (see rocksdb_memtable_insert_us) [fit]"},
    {"bluestore_kv_keys_per_txc", PARAM_DOUBLE, COST(bluestore_kv_keys_per_txc), 0, 1000, 8, NULL, NULL, "count",
     "RocksDB keys a write txc puts besides the freelist's: onode, extent-map shard, pg log entry, _fastinfo, "
     "the trimmed entry, a dup entry added and one trimmed, per-pool statfs (BlueStore::_txc_write_nodes, "
     "PGLog::write_log_and_missing, _txc_update_store_statfs) [counted]"},
    {"bluestore_freelist_keys_per_txc", PARAM_DOUBLE, COST(bluestore_freelist_keys_per_txc), 0, 1000, 2, NULL, NULL,
     "count", "BitmapFreelistManager merge keys of a txc that allocates (allocate + release of a 4 KiB "
     "copy-on-write), only without ceph.bluestore_allocation_from_file [counted]"},
    {"bluestore_ec_rollback_keys_per_txc", PARAM_DOUBLE, COST(bluestore_ec_rollback_keys_per_txc), 0, 1000, 4, NULL,
     NULL, "count",
     "RocksDB keys an erasure shard's overwrite adds for its rollback extent: the generation object's onode and the "
     "shared blob _do_clone_range creates, and both again when a later entry rolls it forward and removes the "
     "object (ECTransaction rollback_extents, BlueStore::_do_clone_range / _do_remove) [counted]"},
    C(bluestore_ec_rollback_us, 10, "BlueStore CPU of an erasure shard's rollback extent, on the submitting thread: "
      "_touch + _do_clone_range of the overwritten chunk into the generation object (its blob made shared), and "
      "the _do_remove of the previous one when it is rolled forward [est]"),
    C(thread_sleep_us, 0, "CPU a worker spends going back to sleep when its queue is empty (ShardedThreadPool / "
      "EventCenter wait: unlock, futex_wait or epoll_wait, schedule() out), after its last item and off that item's "
      "critical path: paid per sleep, so per op it falls with load (ceph.io 2023 'Is 10k IOPs achievable': "
      "317 -> 192 us of OSD CPU per op from 1 to 16 clients). 0 = not charged (today's cost table) [est]"),
    C(thread_wake_us, 6, "futex/eventfd wake + context switch of a sleeping thread on a warm core (3-15 us, ceph-model.md 6.2) [est]"),
    {"cpu_work_cv", PARAM_DOUBLE, COST(cpu_work_cv), 0, 10, 0.35, NULL, NULL, "ratio",
     "coefficient of variation of each stage's CPU time (lognormal): cache misses, interrupts, SMT [est]"},
    C(cpu_timeslice_us, 3000, "how long a running thread keeps its core while others wait (CFS sched_latency 6 ms / 2 runnable, Linux default) [est]"),
    C(tcp_loopback_us, 6, "kernel loopback traversal of a message between processes of one host [est]"),
    C(log_entry_us, 0.6, "CPU per gathered log entry (in-memory ring)"),
    {"log_entries_per_stage_per_level", PARAM_DOUBLE, COST(log_entries_per_stage_per_level), 0, 100,
     0.4, NULL, NULL, "count", "log entries gathered per stage per debug level [est]"},
    PARAM_END,
};

void ceph_options_defaults(struct ceph_options *o)
{
    param_set_defaults(ceph_option_params, o);
    struct sim_err err;
    if (rocksdb_options_parse(o->bluestore_rocksdb_options, &o->rocksdb, &err) < 0)
        sim_panic(__FILE__, __LINE__, "built-in bluestore_rocksdb_options: %s", err.msg); /* a build error */
}

void stage_costs_defaults(struct stage_costs *c)
{
    param_set_defaults(stage_cost_params, c);
}

/* The series the table holds, with their names: "12.2.x (luminous), ..." for
   the error that refuses any other; and each series' last point release
   known here (docs.ceph.com "Ceph Releases (index)": luminous 12.2.13,
   nautilus 14.2.22, octopus 15.2.17, pacific 16.2.15, quincy 17.2.9, reef
   18.2.8, squid 19.2.4): a later one is refused, not taken as the last. */
static const struct { const char *name; int major, last_patch; } release_names[] = {
    {"luminous", 12, 13}, {"nautilus", 14, 22}, {"octopus", 15, 17}, {"pacific", 16, 15},
    {"quincy", 17, 9},    {"reef", 18, 8},      {"squid", 19, 4}};

static const char *release_name_of(int major)
{
    for (size_t i = 0; i < sizeof release_names / sizeof release_names[0]; i++)
        if (release_names[i].major == major)
            return release_names[i].name;
    return NULL;
}

const struct release_defaults *release_defaults_for(const struct release_traits *t)
{
    const struct release_defaults *best = NULL, *first = NULL;
    for (int i = 0; i < release_table_rows; i++) {
        const struct release_defaults *r = &release_table[i];
        if (r->major != t->major || r->minor != t->minor)
            continue;
        if (!first || r->from_patch < first->from_patch)
            first = r;
        if (r->from_patch <= t->patch && (!best || r->from_patch > best->from_patch))
            best = r;
    }
    /* a point release older than every one read: the series' first row */
    return best ? best : first;
}

int release_known_list(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < release_table_rows; i++) {
        const struct release_defaults *r = &release_table[i];
        if (i > 0 && release_table[i - 1].major == r->major && release_table[i - 1].minor == r->minor)
            continue;
        const char *name = release_name_of(r->major);
        int w = snprintf(buf + len, n - len, "%s%d.%d.x%s%s%s", len ? ", " : "", r->major, r->minor,
                         name ? " (" : "", name ? name : "", name ? ")" : "");
        if (w < 0 || (size_t)w >= n - len)
            return -ENOSPC;
        len += (size_t)w;
    }
    int w = snprintf(buf + len, n - len, ", crimson");
    return w < 0 || (size_t)w >= n - len ? -ENOSPC : 0;
}

static int release_unknown(const char *release, struct sim_err *err)
{
    char known[256];
    release_known_list(known, sizeof known);
    return sim_errf(err, -EINVAL, "ceph.release: '%s' is not a known release (known: %s)", release, known);
}

int release_parse(const char *release, struct release_traits *t, struct sim_err *err)
{
    memset(t, 0, sizeof *t);
    if (!strcmp(release, "crimson")) {
        /* crimson/osd get_lock_type: rwordered && may_read -> RWEXCL (no READ_DATA
           refinement); its option defaults are Squid's (crimson ships in 19.2) */
        t->crimson = true;
        t->major = 19;
        t->minor = 2;
        return 0;
    }
    int ma = -1, mi = 0, pa = 0;
    for (size_t i = 0; i < sizeof release_names / sizeof release_names[0]; i++)
        if (!strcmp(release, release_names[i].name)) {
            ma = release_names[i].major;
            mi = 2;
            pa = 0;
        }
    if (ma < 0) {
        /* digits and dots only: N, N.N or N.N.N */
        int dots = 0;
        bool shape = release[0] >= '0' && release[0] <= '9';
        for (const char *p = release; *p && shape; p++) {
            if (*p == '.')
                shape = p[1] >= '0' && p[1] <= '9' && ++dots <= 2;
            else
                shape = *p >= '0' && *p <= '9';
        }
        int n = shape ? sscanf(release, "%d.%d.%d", &ma, &mi, &pa) : 0;
        if (!shape || n != dots + 1 || ma < 10 || ma > 99)
            return release_unknown(release, err);
        if (dots == 0)
            mi = 2; /* "18": the stable series 18.2 */
    }
    t->major = ma;
    t->minor = mi;
    t->patch = pa;
    if (!release_defaults_for(t))
        return release_unknown(release, err);
    for (size_t i = 0; i < sizeof release_names / sizeof release_names[0]; i++)
        if (release_names[i].major == ma && mi == 2 && pa > release_names[i].last_patch)
            return sim_errf(err, -EINVAL, "ceph.release: '%s' is not a known release (the last %s point release "
                            "known here is %d.2.%d)", release, release_names[i].name, ma, release_names[i].last_patch);
    /* PR 45852 "osd: don't require RWEXCL lock for stat+write ops" (tracker 53593):
       backported to 16.2.15, 17.2.8, 18.2.4; in 19.2.0+. A bare name
       ("pacific") means the release's first point release. */
    t->fix_53593 = ma >= 19 || (ma == 18 && (mi > 2 || (mi == 2 && pa >= 4))) ||
                   (ma == 17 && (mi > 2 || (mi == 2 && pa >= 8))) ||
                   (ma == 16 && (mi > 2 || (mi == 2 && pa >= 15)));
    return 0;
}

/*
 * The cache options release_table.c does not carry (its generator's sources
 * lack a 17.2.7 tree to re-read, tools/release-sources.txt), read by hand from
 * each release's src/common/options.cc (v12.2.0-v12.2.13, v14.2.0, v14.2.16,
 * v15.2.8 in a ceph tree with tags) and from `ceph-conf -D` of Debian 12's
 * 16.2.15; 17.2-19.2 are taken as 16.2.15 (not read here).  Before 12.2.9
 * there is no osd_memory_target and no autotuner: the data cache is the
 * rest of bluestore_cache_size_ssd after meta .01 and kv .99, i.e. nothing.
 */
static const struct {
    int major, minor, patch; /* from this release on */
    const char *autotune, *meta, *kv, *kv_onode, *shards;
} release_cache_rows[] = {
    {12, 2, 0, "false", "0.01", "0.99", "0", "0"},
    {12, 2, 9, "true", "0.4", "0.4", "0", "0"},
    {15, 2, 0, "true", "0.4", "0.4", "0", "32"}, /* osd_num_cache_shards (v15.2.8 options.cc) */
    {16, 2, 0, "true", "0.45", "0.45", "0.04", "32"},
};

/* bluestore_rocksdb_options and bluestore_allocation_from_file, from this
   release on (the strings' sources at ROCKSDB_OPTIONS_12_2; NCB, allocations
   out of RocksDB, came with 17.2.0: the deep-dive's 'Quincy Testing'). */
static const struct {
    int major, minor, patch;
    const char *rocksdb_options, *allocation_from_file;
} release_rocksdb_rows[] = {
    {12, 2, 0, ROCKSDB_OPTIONS_12_2, "false"}, {15, 2, 0, ROCKSDB_OPTIONS_15_2, "false"},
    {16, 2, 0, ROCKSDB_OPTIONS_16_2, "false"}, {17, 2, 0, ROCKSDB_OPTIONS_16_2, "true"},
    {18, 2, 0, ROCKSDB_OPTIONS_18_2, "true"},  {19, 2, 0, ROCKSDB_OPTIONS_19_2, "true"},
};

static int release_cmp(int ma, int mi, int pa, const struct release_traits *t)
{
    return ma != t->major ? ma - t->major : mi != t->minor ? mi - t->minor : pa - t->patch;
}

static int set_unless_given(struct ceph_options *o, const char *name, const char *value, const bool *given,
                            struct sim_err *err)
{
    const struct param_def *d = param_find(ceph_option_params, name);
    if (given && given[d - ceph_option_params])
        return 0;
    char path[96];
    snprintf(path, sizeof path, "ceph.%s", d->name);
    return param_set_text(d, o, value, "release defaults", path, err);
}

static int apply_release_rocksdb_defaults(struct ceph_options *o, const struct release_traits *t, const bool *given,
                                          struct sim_err *err)
{
    int row = -1;
    for (int i = 0; i < (int)(sizeof release_rocksdb_rows / sizeof release_rocksdb_rows[0]); i++)
        if (release_cmp(release_rocksdb_rows[i].major, release_rocksdb_rows[i].minor, release_rocksdb_rows[i].patch,
                        t) <= 0)
            row = i;
    if (row < 0)
        return 0;
    int rc = set_unless_given(o, "bluestore_rocksdb_options", release_rocksdb_rows[row].rocksdb_options, given, err);
    if (rc == 0)
        rc = set_unless_given(o, "bluestore_allocation_from_file", release_rocksdb_rows[row].allocation_from_file,
                              given, err);
    return rc;
}

/* RocksDB's ParseUint64: digits, then an optional k/m/g/t (any case; what
   follows it, e.g. the B of "2MB", is not read). */
static bool rocksdb_uint(const char *v, size_t n, uint64_t *out)
{
    uint64_t x = 0;
    size_t i = 0;
    for (; i < n && v[i] >= '0' && v[i] <= '9'; i++) {
        if (x > (UINT64_MAX - 9) / 10)
            return false;
        x = x * 10 + (uint64_t)(v[i] - '0');
    }
    if (i == 0)
        return false;
    if (i < n) {
        int shift = 0;
        switch (v[i] | 0x20) {
        case 'k': shift = 10; break;
        case 'm': shift = 20; break;
        case 'g': shift = 30; break;
        case 't': shift = 40; break;
        default: return false;
        }
        if (x > (UINT64_MAX >> shift))
            return false;
        x <<= shift;
    }
    *out = x;
    return true;
}

int rocksdb_options_parse(const char *text, struct rocksdb_tuning *t, struct sim_err *err)
{
    /* RocksDB's own defaults (options.h) for what the string leaves out */
    *t = (struct rocksdb_tuning){.write_buffer_size = 64u << 20, .min_write_buffer_number_to_merge = 1};
    const char *p = text;
    while (*p) {
        /* RocksDBStore::ParseOptionsFromString: get_str_map(opt_str, ",\n;") */
        size_t len = strcspn(p, ",;\n");
        const char *k = p, *end = p + len;
        while (k < end && (*k == ' ' || *k == '\t'))
            k++;
        if (k < end) {
            const char *eq = memchr(k, '=', (size_t)(end - k));
            if (!eq)
                return sim_errf(err, -EINVAL, "ceph.bluestore_rocksdb_options: '%.*s' is not key=value", (int)(end - k),
                                k);
            const char *ke = eq, *v = eq + 1, *ve = end;
            while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
                ke--;
            while (v < ve && (*v == ' ' || *v == '\t'))
                v++;
            while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
                ve--;
            size_t kn = (size_t)(ke - k), vn = (size_t)(ve - v);
            /* the keys the model reads; RocksDB checks the others' names */
            bool ok = true;
            if (kn == strlen("write_buffer_size") && !memcmp(k, "write_buffer_size", kn))
                ok = rocksdb_uint(v, vn, &t->write_buffer_size) && t->write_buffer_size > 0;
            else if (kn == strlen("min_write_buffer_number_to_merge") &&
                     !memcmp(k, "min_write_buffer_number_to_merge", kn))
                ok = rocksdb_uint(v, vn, &t->min_write_buffer_number_to_merge) &&
                     t->min_write_buffer_number_to_merge > 0 && t->min_write_buffer_number_to_merge <= 1024;
            if (!ok)
                return sim_errf(err, -EINVAL, "ceph.bluestore_rocksdb_options: %.*s: '%.*s' is not a valid value",
                                (int)kn, k, (int)vn, v);
        }
        p = *end ? end + 1 : end;
    }
    return 0;
}

static int apply_release_cache_defaults(struct ceph_options *o, const struct release_traits *t, const bool *given,
                                        struct sim_err *err)
{
    int row = -1;
    for (int i = 0; i < (int)(sizeof release_cache_rows / sizeof release_cache_rows[0]); i++)
        if (release_cmp(release_cache_rows[i].major, release_cache_rows[i].minor, release_cache_rows[i].patch, t) <= 0)
            row = i;
    if (row < 0)
        return 0;
    const struct {
        const char *name, *value;
    } set[] = {{"bluestore_cache_autotune", release_cache_rows[row].autotune},
               {"bluestore_cache_meta_ratio", release_cache_rows[row].meta},
               {"bluestore_cache_kv_ratio", release_cache_rows[row].kv},
               {"bluestore_cache_kv_onode_ratio", release_cache_rows[row].kv_onode},
               {"osd_num_cache_shards", release_cache_rows[row].shards}};
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
        int rc = set_unless_given(o, set[i].name, set[i].value, given, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int ceph_options_apply_release(struct ceph_options *o, const struct release_traits *t, const bool *given,
                               struct sim_err *err)
{
    int rc0 = apply_release_cache_defaults(o, t, given, err);
    if (rc0 == 0)
        rc0 = apply_release_rocksdb_defaults(o, t, given, err);
    if (rc0 < 0)
        return rc0;
    const struct release_defaults *r = release_defaults_for(t);
    if (!r)
        return sim_errf(err, -EINVAL, "ceph.release: %d.%d.%d has no defaults", t->major, t->minor, t->patch);
    for (int i = 0; i < r->n_options; i++) {
        const struct param_def *d = param_find(ceph_option_params, r->options[i].name);
        if (!d)
            return sim_errf(err, -EINVAL, "release table %d.%d.%d: %s is not a ceph option", r->major, r->minor,
                            r->from_patch, r->options[i].name);
        if (given && given[d - ceph_option_params])
            continue; /* the user's ceph.<option> wins */
        char path[96];
        snprintf(path, sizeof path, "ceph.%s", d->name);
        int rc = param_set_text(d, o, r->options[i].value, "release table", path, err);
        if (rc < 0)
            return rc;
    }
    /* the options string, the release's or the user's, as the model reads it */
    return rocksdb_options_parse(o->bluestore_rocksdb_options, &o->rocksdb, err);
}

bool release_librbd_on_asio(const struct release_traits *t)
{
    /* crimson parses as 19; major 0 is a spec built without release_parse (tests) */
    return t->major == 0 || t->major >= 16;
}

/*
 * The client's costs on librbd's I/O path from 16.0, where it runs on
 * neorados/asio (librbd/AsioEngine.cc, ceph PR 35629) instead of librbd's op
 * work queue and librados' finisher.  The defaults above were fitted on
 * 14.2's client (ceph PR 28044: 65.0 us of client CPU per write, 53.8 per
 * read); these were measured on a real 16.2.15 client (tests/data/lab11:
 * fio --ioengine=rbd, 4 KiB, iodepth 32, io_context_pool's CPU per I/O from
 * /proc/PID/task/TID/schedstat, two runs each): 20.3 us per read and 48.7 per
 * write on the lab VM, x its speed against the reference core (lab-vm:
 * 2.1 / 3.0 GHz) = 14.2 and 34.1 us.  A read is split as before
 * (dispatch : submit : complete = 12 : 10 : 10), the rest of a write is its
 * own layers.  The bare-metal check: 16.2.9's one client reading 122 k 16 KiB
 * blocks a second with its three msgr-workers busy (24.6 us a read there)
 * and the lab's io_context / msgr-worker CPU ratio at iodepth 32 (0.58) put
 * io_context at ~14.3 us a read.  A cost the scenario or a --set gives wins.
 */
static const struct {
    const char *name;
    double asio_us;
} librbd_asio_costs[] = {
    {"librbd_dispatch_us", 5.3},
    {"objecter_submit_us", 4.4},
    {"librbd_complete_us", 4.4},
    {"librbd_write_dispatch_us", 20.0},
};

int stage_costs_apply_release(struct stage_costs *c, const struct release_traits *t, const bool *given,
                              struct sim_err *err)
{
    if (!release_librbd_on_asio(t))
        return 0;
    for (size_t i = 0; i < sizeof librbd_asio_costs / sizeof *librbd_asio_costs; i++) {
        const struct param_def *d = param_find(stage_cost_params, librbd_asio_costs[i].name);
        if (!d)
            return sim_errf(err, -EINVAL, "librbd_asio_costs: %s is not a stage cost", librbd_asio_costs[i].name);
        if (given && given[d - stage_cost_params])
            continue;
        char path[96];
        snprintf(path, sizeof path, "cost.%s", d->name);
        int rc = param_set_number(d, c, librbd_asio_costs[i].asio_us, "release costs", path, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

enum rw_lock_rule ceph_rw_lock_rule(const struct ceph_options *o, const struct release_traits *t)
{
    if (o->rw_lock_rule != RW_LOCK_RULE_RELEASE)
        return (enum rw_lock_rule)o->rw_lock_rule;
    return t->fix_53593 && !t->crimson ? RW_LOCK_RULE_EXCL_IF_READ_DATA : RW_LOCK_RULE_EXCL_IF_READ;
}
