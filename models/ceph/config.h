/*
 * config.h - every knob of a simulated cluster, declared once.
 *
 * Three tables, each a struct plus a param_def table (sim/param.h):
 *  - struct ceph_options: Ceph's own config options, by their Ceph names and
 *    with Ceph's defaults for the release (ceph.<name> in scenarios);
 *  - struct stage_costs: the CPU cost of each simulated stage in µs at the
 *    CPU profile's reference clock (cost.<name>); these have no Ceph option,
 *    they are what calibration fits;
 *  - the scenario-level cluster/pool/image/sim settings live in scenario.h.
 * ceph_options_apply_release() sets the version-dependent defaults
 * (ceph.release): every option's default as that release ships it
 * (release_table.c), the RWEXCL fix of tracker 53593 and Crimson.
 */
#ifndef CEPHSIM_MODELS_CONFIG_H
#define CEPHSIM_MODELS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "param.h"

enum osd_op_queue { OSD_OP_QUEUE_WPQ, OSD_OP_QUEUE_MCLOCK };
enum rbd_io_scheduler { RBD_IO_SCHEDULER_NONE, RBD_IO_SCHEDULER_SIMPLE };
/* The CMAKE_BUILD_TYPE RocksDB was compiled with (the packages, not a Ceph option). */
enum rocksdb_build_type { ROCKSDB_BUILD_RELWITHDEBINFO, ROCKSDB_BUILD_NONE };
/* Which lock a write-ordered op that may read takes (PrimaryLogPG::get_rw_locks). */
enum rw_lock_rule {
    RW_LOCK_RULE_RELEASE,      /* follow ceph.release */
    RW_LOCK_RULE_EXCL_IF_READ, /* pre-fix: may_read() -> RWEXCL */
    RW_LOCK_RULE_EXCL_IF_READ_DATA, /* post-fix (PR 45852): only may_read_data() -> RWEXCL */
};

/*
 * What the model reads from bluestore_rocksdb_options, by RocksDB's own
 * option names (RocksDBStore::ParseOptionsFromString hands the string to
 * rocksdb::GetDBOptionsFromString / GetColumnFamilyOptionsFromString).
 */
struct rocksdb_tuning {
    uint64_t write_buffer_size;         /* bytes per memtable; RocksDB's default 64 MiB */
    uint64_t min_write_buffer_number_to_merge; /* full memtables a flush takes at once; RocksDB's default 1 */
};

/* Parse a bluestore_rocksdb_options string ("k=v,k=v"; sizes may end in
   k/m/g/t, as RocksDB's ParseUint64 reads them) into t; a malformed pair or
   value is refused naming it. */
int rocksdb_options_parse(const char *text, struct rocksdb_tuning *t, struct sim_err *err);

struct ceph_options {
    /* OSD threads and queues */
    int64_t osd_op_num_shards_ssd;
    int64_t osd_op_num_threads_per_shard_ssd;
    int osd_op_queue;                 /* enum osd_op_queue; 0/1 by release */
    int64_t ms_async_op_threads;
    int64_t osd_client_message_cap;
    int64_t osd_client_message_size_cap;
    bool ms_crc_data;
    bool osd_enable_op_tracker;
    int64_t osd_op_history_size;
    double osd_op_history_duration;   /* s */
    /* BlueStore */
    int64_t bluestore_min_alloc_size_ssd;
    int64_t bluestore_prefer_deferred_size_ssd;
    int64_t bluestore_deferred_batch_ops_ssd;
    int64_t bluestore_throttle_bytes;
    int64_t bluestore_throttle_deferred_bytes;
    int64_t bluestore_throttle_cost_per_io_ssd;
    char bluestore_rocksdb_options[PARAM_TEXT_MAX]; /* up to ~600 characters (the mailing lists' "alternate tuning": 564) */
    struct rocksdb_tuning rocksdb;    /* bluestore_rocksdb_options parsed (ceph_options_defaults, _apply_release) */
    bool bluestore_allocation_from_file; /* 17.2+: allocations not in RocksDB (NCB) */
    /* BlueStore's caches (BlueStore::MempoolThread, PriorityCache) and what reads/writes leave in them */
    bool bluestore_default_buffered_read, bluestore_default_buffered_write;
    bool bluestore_cache_autotune;
    int64_t osd_memory_target, osd_memory_base, osd_memory_cache_min;
    double osd_memory_expected_fragmentation;
    int64_t bluestore_cache_size_ssd;
    double bluestore_cache_meta_ratio, bluestore_cache_kv_ratio, bluestore_cache_kv_onode_ratio;
    int rocksdb_build_type;           /* enum rocksdb_build_type */
    int64_t osd_num_cache_shards;     /* BlueStore cache shards (0: the op shards, before 15.2) */
    double bluestore_cache_autotune_interval; /* s between the autotuner's balances */
    /* logging: gather level of each subsystem (the higher of "N/M") */
    int64_t debug_osd, debug_ms, debug_bluestore, debug_rocksdb, debug_bdev;
    /* librbd / objecter */
    int rbd_io_scheduler;             /* enum rbd_io_scheduler */
    int64_t rbd_op_threads;
    int64_t librados_thread_count;    /* librbd's io_context_pool from 16.2: max(this, rbd_op_threads) */
    bool rbd_non_blocking_aio;
    bool rbd_cache;
    bool rbd_cache_writethrough_until_flush;
    int64_t rbd_cache_max_dirty;
    int64_t objecter_inflight_ops;
    int64_t objecter_inflight_op_bytes;
    int64_t rbd_simple_scheduler_min_samples; /* LatencyStats window before holding (10) */
    int64_t krbd_queue_depth;         /* rbd map -o queue_depth: blk-mq tags per mapped image (128) */
    double client_notify_timeout;     /* s: RequestLock retry after the owner acked (10) */
    /* version-dependent behaviour */
    char release[PARAM_STR_MAX];      /* e.g. 16.2.14, 18.2.4, crimson */
    int rw_lock_rule;                 /* enum rw_lock_rule */
    int64_t crimson_seastar_smp;      /* reactor cores per OSD (crimson) */
};

struct stage_costs {
    /* client (fio + librbd + objecter), per op */
    double fio_submit_us, fio_complete_us;
    double fio_aio_submit_us, fio_aio_complete_us; /* fio's kernel engines (libaio, io_uring) */
    double librbd_dispatch_us, librbd_write_dispatch_us, librbd_complete_us;
    double objecter_submit_us, objecter_complete_us;
    double copyup_client_us;
    /* the kernel client (krbd.c), per I/O / per object */
    double krbd_dispatch_us, krbd_osdc_submit_us, krbd_con_send_us, krbd_complete_us;
    /* messenger, per message (plus crc per KiB) */
    double msgr_tx_us, msgr_rx_us, msgr_crc_us_per_kib, msgr_ack_us, msgr_local_delivery_us;
    /* OSD primary */
    double osd_enqueue_us, osd_dequeue_us, osd_do_op_us, osd_execute_write_us,
        osd_execute_read_us, osd_issue_repop_us, osd_op_commit_us, osd_repop_reply_us,
        osd_reply_us, osd_redispatch_us, osd_error_us;
    /* OSD replica */
    double osd_do_repop_us, osd_repop_commit_us;
    /* ECBackend (erasure pools) */
    double osd_ec_sub_read_us, osd_ec_sub_read_reply_us, osd_ec_encode_us_per_kib;
    /* the OpTracker's history thread, per finished op (and more for a write) */
    double osd_op_history_insert_us, osd_op_history_write_us;
    /* BlueStore */
    double bluestore_prepare_us, bluestore_read_us, bluestore_aio_us, bluestore_read_reap_us, bluestore_kv_submit_us,
        bluestore_kv_sync_us, bluestore_kv_final_us, bluestore_wal_bytes_per_txc,
        bluestore_deferred_us, bluestore_deferred_aio_us, rocksdb_background_us_per_txc;
    /* RocksDB's memtable inserts on kv_sync, per key of a txc */
    double rocksdb_memtable_insert_us, rocksdb_memtable_cached_bytes;
    double bluestore_kv_keys_per_txc, bluestore_freelist_keys_per_txc;
    /* an erasure shard's overwrite: its rollback extent's clone_range and later removal */
    double bluestore_ec_rollback_keys_per_txc, bluestore_ec_rollback_us;
    /* the operating system */
    double thread_wake_us;    /* futex/eventfd wake + context switch of a sleeping thread, warm core */
    double thread_sleep_us;
    double cpu_work_cv;       /* spread of each stage's CPU time */
    double cpu_timeslice_us;  /* CFS: a running thread keeps its core this long while others wait */
    double tcp_loopback_us;   /* a message between two processes of one host (kernel loopback) */
    /* logging: CPU per log entry gathered, and entries per stage per level */
    double log_entry_us, log_entries_per_stage_per_level;
};

extern const struct param_def ceph_option_params[];
extern const struct param_def stage_cost_params[];

void ceph_options_defaults(struct ceph_options *o);
void stage_costs_defaults(struct stage_costs *c);

/*
 * Release-dependent behaviour, decided from the release string:
 * fix_53593 (stat+write takes RWWRITE): >= 16.2.15, >= 17.2.8, >= 18.2.4, 19+;
 * Crimson: "crimson" (keeps RWEXCL, run-to-completion).  The op queue is an
 * option default (osd_op_queue, release_table.c), not a trait.
 */
struct release_traits {
    bool fix_53593;
    bool crimson;
    int major, minor, patch;
};

/* Parse ceph.release: N, N.N, N.N.N or a name (luminous..squid, crimson); a
   release whose series release_table.c does not hold is refused with a
   one-line error listing the known ones. */
int release_parse(const char *release, struct release_traits *t, struct sim_err *err);
/* "12.2.x (luminous), 14.2.x (nautilus), ..., crimson": the releases release_parse accepts. */
int release_known_list(char *buf, size_t n);
struct release_defaults;
/* The release_table.c row of a parsed release (NULL for none). */
const struct release_defaults *release_defaults_for(const struct release_traits *t);
/*
 * Set the release's option defaults (release_table.c, extracted from each
 * release's options source) on every option the user did not give:
 * given[i] is true for ceph_option_params[i] set by the scenario or --set
 * (NULL: none given).
 */
int ceph_options_apply_release(struct ceph_options *o, const struct release_traits *t, const bool *given,
                               struct sim_err *err);
/* librbd's I/O path runs on neorados/asio (16.0+, Crimson's clients too):
   io_context_pool threads, completions there rather than on librados' finisher. */
bool release_librbd_on_asio(const struct release_traits *t);
/* The release's client costs (librbd on asio from 16.0) on every cost the
   scenario does not give: given[i] for stage_cost_params[i] (NULL: none). */
int stage_costs_apply_release(struct stage_costs *c, const struct release_traits *t, const bool *given,
                              struct sim_err *err);
/* The effective lock rule (RELEASE resolved). */
enum rw_lock_rule ceph_rw_lock_rule(const struct ceph_options *o, const struct release_traits *t);

#endif
