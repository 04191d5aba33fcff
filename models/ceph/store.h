/*
 * store.h - the object-store seam (ObjectStore in Ceph: BlueStore, SeaStore,
 * MemStore...): what an OSD hands a store and how the store reports back.
 *
 * An OSD creates its store from a store_env (its host's CPU, its device, the
 * options and stage costs) and calls it through a store_ops table, in the
 * style of fio's ioengine_ops: queue_transaction for a write's transaction
 * (BlueStore::queue_transactions), read for a synchronous read.  The store
 * reports each commit through env.committed.  Adding a store is adding a file
 * with its ops table (bluestore.c is the model) and choosing it in osd_init.
 */
#ifndef CEPHSIM_MODELS_CEPH_STORE_H
#define CEPHSIM_MODELS_CEPH_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "cpu.h"
#include "nvme.h"
#include "perfcounters.h"
#include "sim.h"

struct store_txc;

/* A PG's (collection's) OpSequencer: its transactions reach the KV store in order. */
struct store_seq {
    struct store_txc *head, *tail;
    uint32_t deferred_rank;     /* BlueStore: its place among the sequencers with deferred writes
                                   queued for the next submit (0: none queued) */
};

/* A transaction context (BlueStore's TransContext), embedded in the op it commits. */
struct store_txc {
    struct store_txc *seq_next; /* OpSequencer order */
    struct store_txc *kv_next;  /* kv_queue / kv batch */
    void *owner;                /* the OSD op: handed back to continuations and env.committed */
    void *store;                /* the store it was queued on */
    struct cpu_thread *th;      /* the thread waiting on it (throttle, synchronous read) */
    struct store_seq *seq;
    uint64_t data_bytes;        /* aio data write (0: none) */
    uint64_t deferred_bytes;    /* bytes written through the WAL */
    uint64_t cost;              /* throttle cost */
    uint64_t addr;              /* where the extent lies (an image object's bytes in offset order):
                                   the device's read-ahead, and the data cache's block keys */
    uint64_t len;               /* the extent's bytes from addr (data cache) */
    uint32_t cache_shard;       /* its PG's data cache shard (ps % shards) */
    bool cached_extent;         /* addr names a data extent the data cache may hold (a primary's
                                   read or write of an image object) */
    bool io_done;
    /* an erasure shard's overwrite: ECTransaction's rollback extent, a clone_range of the
       overwritten chunk into the log entry's generation object (and that object's removal
       when a later entry rolls it forward) */
    bool rollback;
    sim_time_t t_start, t_state;
};

/* What an OSD gives its store. */
struct store_env {
    struct sim *s;
    struct cpu_host *host;            /* the OSD's host: the store's threads run there */
    struct nvme_dev *dev;             /* the OSD's device */
    const struct ceph_options *opt;
    const struct stage_costs *cost;
    double log_cost_us;               /* gathered logging per stage (debug_* levels) */
    /* RocksDB's flushes (cluster.rocksdb_flushes): false, their CPU per
       transaction (a long run's average); true, in a burst each time the
       memtables fill, from rocksdb_memtable_fill of that at the start */
    bool rocksdb_flush_on_fill;
    double rocksdb_memtable_fill;
    /* a transaction is durable: called on the store's finisher thread */
    void (*committed)(void *ctx, void *owner);
    void *ctx;
};

struct store_ops {
    const char *name;
    /* A store on env (copied); destroy frees it. */
    void *(*create)(const struct store_env *env);
    void (*destroy)(void *store);
    /*
     * Queue a write's transaction on thread th, its caller holding the PG lock:
     * the prepare's CPU, then the data aio; cont(sim, th, t->owner, 0) runs when
     * the prepare is done (the caller then drops the lock).  The commit comes
     * later through env.committed.
     */
    void (*queue_transaction)(void *store, struct cpu_thread *th, struct store_txc *t, struct store_seq *seq,
                              uint64_t data_bytes, cpu_item_fn cont);
    /* A synchronous read of bytes on th (the thread waits); cont(sim, th, t->owner, 0) after. */
    void (*read)(void *store, struct cpu_thread *th, struct store_txc *t, uint64_t bytes, cpu_item_fn cont);
    /*
     * Optional: before the run, a fraction of the data this store is primary
     * for is already in its data cache (what
     * earlier jobs left there), capped by the cache's size; shard_blocks[i]:
     * the 4 KiB blocks of the primary PGs of cache shard i (bluestore_cache_shards).
     */
    void (*warm_cache)(void *store, double fraction, const uint64_t *shard_blocks);
    /* Zero the counters (after warm-up). */
    void (*reset_stats)(void *store);
    /* BlueStore's perf counters, or NULL for a store without them. */
    const struct bluestore_perf *(*bluestore_perf)(const void *store);
};

#endif
