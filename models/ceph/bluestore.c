/*
 * bluestore.c - BlueStore's small-write transaction pipeline on one device.
 *
 * Mirrors BlueStore.cc (ceph-model.md section 4):
 *  - queue_transactions on the OSD shard thread (PG lock held): txc create,
 *    _txc_add_transaction/_do_write (a write larger than
 *    bluestore_prefer_deferred_size_ssd, default 0, is a new allocation with a
 *    data aio; smaller ones go through the WAL as a deferred write),
 *    _txc_write_nodes, throttle (bluestore_throttle_bytes; cost
 *    (1 + aios) x bluestore_throttle_cost_per_io_ssd + bytes), io_submit;
 *  - the bstore_aio thread reaps the completion (_txc_aio_finish), and
 *    _txc_finish_io keeps OpSequencer (per PG) order before kv_queue;
 *  - ONE bstore_kv_sync thread swaps the whole kv_queue (a batch), flushes the
 *    device if data aios happened since the last flush, submits each txc,
 *    writes the RocksDB WAL (one IO for the batch) and syncs it (BlueFS fsync);
 *    each submit inserts the txc's keys into the active memtable, a skiplist
 *    whose insert walks more levels the larger it grows (write_buffer_size of
 *    bluestore_rocksdb_options: 256 MiB until 17.2, 16 MiB from 18.2), and
 *    until 17.2's bluestore_allocation_from_file an allocating txc carries
 *    BitmapFreelistManager's keys too (ceph.io 2022 'RocksDB Tuning Deep-Dive':
 *    the kv_sync thread's profile, cost.rocksdb_memtable_insert_us);
 *  - ONE bstore_kv_final thread runs _txc_committed_kv for the batch and hands
 *    each commit callback to the PG's shard (store_env.committed: osd_txc_committed);
 *  - deferred writes are written to their final place after the commit, off
 *    the critical path: kv_final queues each txc in its PG's OpSequencer's
 *    DeferredBatch and, at bluestore_deferred_batch_ops_ssd txcs in all,
 *    deferred_try_submit issues every sequencer's batch
 *    (_deferred_submit_unlock, on kv_final: one aio_write per physically
 *    contiguous run of the batch's iomap, cost.bluestore_deferred_aio_us
 *    each, then one aio_submit); the bstore_aio thread reaps each batch
 *    (_deferred_aio_finish); a deferred txc holds
 *    bluestore_throttle_deferred_bytes from queue time until then
 *    (BlueStoreThrottle); its record (the PREFIX_DEFERRED key its commit
 *    wrote) is removed by a later kv_sync cycle: done batches become stable
 *    with the next commit (or at once when that cycle flushes the device),
 *    stable ones lose their keys in the commit after, and kv_final then
 *    finishes their txcs (state_deferred_cleanup_lat);
 *  - the WAL append is a sequential write, data and deferred writes random;
 *    a read at the address the OSD gives (store_txc.addr) is sequential
 *    when it follows on from the device's previous read;
 *  - RocksDB memtable flushes and compactions cost CPU on their own threads
 *    (bluestore_rocksdb_options max_background_compactions=2), in proportion
 *    to the committed txcs: they compete for cores but are off the commit path.
 *  - the data cache (BlueStore::BufferSpace buffers in the cache shards),
 *    as 16.2.15 does it (measured: tests/data/lab3/NOTES.md): with
 *    bluestore_default_buffered_read a read leaves its 4 KiB blocks in its
 *    PG's cache shard (_do_read -> BufferSpace::did_read), a write drops the
 *    blocks it covers unless bluestore_default_buffered_write
 *    (Buffer::FLAG_NOCACHE, _finish_write); a read found there costs no
 *    device I/O.  A PG's shard is ps % osd_num_cache_shards (32 from 15.2;
 *    before, the OSD's op shards: OSD::init set_cache_shards); each shard
 *    holds at most the data cache's committed bytes / shards
 *    (MempoolThread::_resize_shards) and, being 2Q's warm_in, evicts the
 *    oldest first (a hit does not move a block).  Committed bytes: the
 *    autotuner (bluestore_cache_autotune) has tuned_mem = (1 -
 *    osd_memory_expected_fragmentation) x osd_memory_target - osd_memory_base
 *    (at least osd_memory_cache_min), keeps 4 x get_chunk(1) back, and every
 *    bluestore_cache_autotune_interval gives the data cache what it holds
 *    plus its ratio (1 - meta - kv - kv_onode: 0.06 in 16.2) of the rest,
 *    plus get_chunk's 64 MiB (PriorityCache::Manager::balance); so the cache
 *    grows only as fast as it fills.  Without the autotuner: the ratio x
 *    bluestore_cache_size_ssd.  Left out: the other caches' own requests
 *    (onodes: a few MB for RBD), 2Q's hot list for blocks read again after
 *    eviction, and tcmalloc's tune_memory (Debian's build has none: tuned_mem
 *    stays at its maximum, as modelled).
 * Simplifications: RocksDB flush/compaction is CPU only (no device I/O, no
 * write stalls), no BlueFS log, no allocator fragmentation; a 4 KiB-aligned write never needs a read.
 */
#include "bluestore.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "idmap.h"

/* A 4 KiB block the data cache knows: on its shard's FIFO while cached. */
struct cache_blk {
    struct cache_blk *prev, *next;
    uint32_t shard;
    bool cached;
};

#define CACHE_BLOCK_SHIFT 12
#define WARM_SCALE 4294967296.0 /* a block of the warm set: hash32 < its shard's warm_thr */

/* One cache shard (BufferCacheShard): the PGs whose ps % shards is its index. */
struct cache_shard {
    struct cache_blk fifo;      /* sentinel: fifo.next is the newest */
    uint64_t listed;            /* blocks on the FIFO */
    uint64_t warm_live;         /* blocks of the warm set still cached (older than the FIFO's) */
    double warm_thr, warm_step; /* the warm set's hash threshold, and its fall per block evicted */
};

/*
 * The data cache at 4 KiB granularity.  Blocks read or written in the run
 * are entries (created on first touch, never freed: bounded by the I/Os
 * simulated); the blocks earlier jobs left (image.cached) are a hashed share
 * of each shard's primary data, the oldest of its shard.
 */
struct data_cache {
    struct idmap blocks;        /* block key -> struct cache_blk */
    struct cache_shard *shards;
    uint32_t n_shards;
    uint64_t shard_cap;         /* blocks per shard: committed / shards */
    uint64_t held;              /* blocks cached, all shards */
    struct bluestore_cache_size size;
    bool balancing;             /* the autotuner's periodic balance is scheduled */
};

/* A queued deferred write's extent; addr_known false: where it lies is not
   known (no image extent), so it joins no neighbour. */
struct deferred_extent {
    uint64_t addr, len;
    uint64_t cost;             /* its txc's throttle cost */
    struct store_seq *osr;     /* its PG's OpSequencer: one DeferredBatch each */
    sim_time_t t_queued;       /* _deferred_queue: state_deferred_queued_lat from here */
    uint32_t rank;             /* its sequencer's place in this submit (deferred_queue order) */
    bool addr_known;
};

/* One OpSequencer's DeferredBatch: its runs (one aio_write each), what its
   txcs give back to the deferred throttle when the last is done
   (_deferred_aio_finish), then, done, stable and finalized, its txcs'
   cleanup. */
struct deferred_batch {
    struct bluestore *bs;
    struct deferred_batch *next;     /* the list it is on: submitting, done, stable, free */
    struct deferred_batch *next_all; /* every batch the store made (freed with it) */
    uint64_t cost;
    uint32_t *run_bytes;             /* its runs' sizes until aio_submit */
    uint32_t n_runs, cap_runs;
    sim_time_t t_submit;       /* aio_submit: state_deferred_aio_wait_lat from here */
    sim_time_t t_done;         /* _deferred_aio_finish: state_deferred_cleanup_lat from here */
    uint32_t ops, writes_left;
};

/* A FIFO of batches (deferred_done_queue, deferred_stable_queue...). */
struct batch_list {
    struct deferred_batch *head, *tail;
    uint32_t txcs;             /* the txcs of its batches */
};

struct bluestore {
    struct store_env env;
    struct data_cache cache;
    double rocksdb_cpu;             /* RocksDB's CPU per unit of the cost table: 1, or 3 unoptimised */
    double memtable_bytes;          /* on_fill: what the memtables hold towards the next flush */
    double flush_bytes;             /* on_fill: what a flush takes (write_buffer_size x min to merge) */
    double memtable_key_us;         /* one key's memtable insert at this write_buffer_size (cost table units) */
    double kv_keys, kv_freelist_keys; /* keys per txc; the freelist's, per allocating txc (0 with NCB) */
    double batch_submit_us;         /* the batch's per-txc submit costs, summed (kv_submit) */
    struct nvme_dev *dev;
    struct cpu_pool aio, kv_sync, kv_final;
    struct cpu_pool rocksdb_bg;     /* RocksDB flush/compaction threads */
    struct store_txc *kv_head, *kv_tail;  /* kv_queue */
    uint32_t kv_len;
    bool kv_running;
    bool aios_since_flush;
    double flush_sleeps_owed;             /* fraction of an extra sleep the flushes so far left over */
    struct store_txc *batch;              /* batch being committed by kv_sync */
    uint32_t batch_n;
    sim_time_t t_batch, t_phase;
    sim_time_t t_submit;        /* when the batch's RocksDB submits began (rocksdb submit_latency) */
    struct throttle throttle;       /* bluestore_throttle_bytes */
    struct throttle deferred_throttle; /* bluestore_throttle_deferred_bytes */
    uint32_t deferred_aggressive;
    struct deferred_extent *deferred_ext; /* the queued txcs' extents (DeferredBatch::iomap) */
    uint32_t deferred_n, deferred_cap;    /* deferred_n: deferred_queue_size */
    uint32_t deferred_osrs;               /* sequencers with extents queued (their ranks) */
    struct deferred_batch *deferred_free; /* batches finalized, for reuse */
    struct deferred_batch *deferred_all;
    struct batch_list deferred_done;      /* deferred_done_queue: written, reaped by bstore_aio */
    struct batch_list deferred_stable;    /* deferred_stable_queue: made stable by the last commit */
    struct batch_list cycle_stable;       /* the running kv cycle's: their keys go in its commit */
    struct batch_list cycle_done;         /* the running kv cycle's done: stable once it commits */
    struct batch_list stable_to_finalize; /* committed cleanups for kv_final */
    struct batch_list finalizing;         /* those kv_final took when its pass began */
    double cleanup_us;                    /* the running cycle's cleanup keys' submit CPU */
    struct bluestore_perf perf;
};


static inline struct sim *bs_sim(const struct bluestore *bs) { return bs->env.s; }

/* The CPU cost of a stage including gathered logging. */
static inline double stage(const struct bluestore *bs, double us) { return us + bs->env.log_cost_us; }

/* PriorityCache::get_chunk as 16.2.15 has it (fitted to its counters to the
   byte, tests/data/lab3): 64 MiB more, rounded up to a chunk of
   nextpow2(tuned_mem) / 256 within [4, 32] MiB. */
static double get_chunk(double bytes, double tuned_mem)
{
    double chunk = 1;
    while (chunk < tuned_mem)
        chunk *= 2;
    chunk /= 256;
    if (chunk < 4.0 * (1 << 20))
        chunk = 4.0 * (1 << 20);
    if (chunk > 32.0 * (1 << 20))
        chunk = 32.0 * (1 << 20);
    return ceil((bytes + 64.0 * (1 << 20)) / chunk) * chunk;
}

void bluestore_cache_size_init(struct bluestore_cache_size *z, const struct ceph_options *o)
{
    memset(z, 0, sizeof *z);
    z->ratio = 1.0 - o->bluestore_cache_meta_ratio - o->bluestore_cache_kv_ratio - o->bluestore_cache_kv_onode_ratio;
    if (z->ratio < 0)
        z->ratio = 0;
    z->autotune = o->bluestore_cache_autotune;
    if (!z->autotune) {
        z->committed = z->ratio * (double)o->bluestore_cache_size_ssd;
        return;
    }
    double limited = (1.0 - o->osd_memory_expected_fragmentation) * (double)o->osd_memory_target;
    double base = (double)o->osd_memory_base, min = (double)o->osd_memory_cache_min;
    z->tuned_mem = limited > base + min ? limited - base : min;
    /* Manager::balance keeps a chunk back per cache (kv, meta, data, kv_onode) */
    z->mem_avail = z->tuned_mem - 4 * get_chunk(1, z->tuned_mem);
    if (z->mem_avail < 0)
        z->mem_avail = 0;
    z->committed = bluestore_cache_committed(z, 0);
}

double bluestore_cache_committed(const struct bluestore_cache_size *z, double held_bytes)
{
    if (!z->autotune)
        return z->committed;
    if (z->ratio <= 0)
        return 0;
    /* PRI1: what it holds (the other caches' requests left out); LAST: its
       ratio of the rest; committed: get_chunk of the sum */
    double held = held_bytes < z->mem_avail ? held_bytes : z->mem_avail;
    return get_chunk(held + z->ratio * (z->mem_avail - held), z->tuned_mem);
}

static inline uint32_t block_hash32(uint64_t key)
{
    /* splitmix64's finaliser: which blocks form the warm set */
    key += 0x9e3779b97f4a7c15ull;
    key = (key ^ (key >> 30)) * 0xbf58476d1ce4e5b9ull;
    key = (key ^ (key >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((key ^ (key >> 31)) >> 32);
}

static void cache_gauges(struct bluestore *bs)
{
    bs->perf.bluestore_buffers = bs->cache.held;
    bs->perf.bluestore_buffer_bytes = bs->cache.held << CACHE_BLOCK_SHIFT;
}

static void fifo_unlink(struct data_cache *dc, struct cache_blk *b)
{
    b->prev->next = b->next;
    b->next->prev = b->prev;
    b->cached = false;
    dc->shards[b->shard].listed--;
    dc->held--;
}

static void fifo_push(struct data_cache *dc, struct cache_blk *b, uint32_t shard)
{
    struct cache_shard *sh = &dc->shards[shard];
    b->shard = shard;
    b->prev = &sh->fifo;
    b->next = sh->fifo.next;
    sh->fifo.next->prev = b;
    sh->fifo.next = b;
    b->cached = true;
    sh->listed++;
    dc->held++;
}

/* Make room for one block in a shard: the warm set's first (it is older), else the FIFO's oldest. */
static void shard_evict_one(struct data_cache *dc, struct cache_shard *sh)
{
    if (sh->warm_live) {
        sh->warm_live--;
        dc->held--;
        sh->warm_thr = sh->warm_thr > sh->warm_step ? sh->warm_thr - sh->warm_step : 0;
    } else if (sh->listed) {
        fifo_unlink(dc, sh->fifo.prev);
    }
}

static bool in_warm_set(const struct cache_shard *sh, uint64_t key)
{
    return sh->warm_live && (double)block_hash32(key) < sh->warm_thr;
}

/* Is the block cached?  (2Q's warm_in: a hit leaves it where it is.) */
static bool cache_lookup(struct data_cache *dc, uint64_t key, uint32_t shard)
{
    struct cache_blk *b = idmap_find(&dc->blocks, key);
    if (b)
        return b->cached;
    return in_warm_set(&dc->shards[shard], key);
}

static void cache_balance(struct sim *s, void *obj, uint64_t arg);

static void cache_insert(struct bluestore *bs, uint64_t key, uint32_t shard)
{
    struct data_cache *dc = &bs->cache;
    if (!dc->shard_cap)
        return;
    struct cache_shard *sh = &dc->shards[shard];
    struct cache_blk *b = idmap_get(&dc->blocks, key, NULL);
    if (b->cached)
        return; /* read again while cached: stays where it is */
    if (in_warm_set(sh, key)) {
        /* known from now on; it leaves the warm set for the FIFO's front */
        sh->warm_live--;
        dc->held--;
    }
    while (sh->listed + sh->warm_live >= dc->shard_cap && (sh->listed || sh->warm_live))
        shard_evict_one(dc, sh);
    fifo_push(dc, b, shard);
    /* the autotuner's balance runs while there is something to balance */
    if (dc->size.autotune && !dc->balancing) {
        dc->balancing = true;
        sim_schedule(bs->env.s, (sim_time_t)(bs->env.opt->bluestore_cache_autotune_interval * 1e9), cache_balance, bs, 0);
    }
}

static void cache_drop(struct data_cache *dc, uint64_t key, uint32_t shard)
{
    struct cache_blk *b = idmap_find(&dc->blocks, key);
    if (b) {
        if (b->cached)
            fifo_unlink(dc, b);
    } else if (in_warm_set(&dc->shards[shard], key)) {
        dc->shards[shard].warm_live--;
        dc->held--;
        b = idmap_get(&dc->blocks, key, NULL); /* known now, and not cached */
        b->shard = shard;
    }
}

/* Each shard's limit from the committed bytes; a shard over it sheds its oldest. */
static void cache_resize(struct bluestore *bs)
{
    struct data_cache *dc = &bs->cache;
    dc->shard_cap = (uint64_t)(dc->size.committed / dc->n_shards) >> CACHE_BLOCK_SHIFT;
    for (uint32_t i = 0; i < dc->n_shards; i++)
        while (dc->shards[i].listed + dc->shards[i].warm_live > dc->shard_cap)
            shard_evict_one(dc, &dc->shards[i]);
    cache_gauges(bs);
}

/* PriorityCache::Manager::balance, every bluestore_cache_autotune_interval. */
static void cache_balance(struct sim *s, void *obj, uint64_t arg)
{
    struct bluestore *bs = obj;
    struct data_cache *dc = &bs->cache;
    dc->size.committed = bluestore_cache_committed(&dc->size, (double)(dc->held << CACHE_BLOCK_SHIFT));
    cache_resize(bs);
    sim_schedule(s, (sim_time_t)(bs->env.opt->bluestore_cache_autotune_interval * 1e9), cache_balance, bs, 0);
}

/* A write on the primary: the blocks it covers leave the cache, or with
   buffered writes join it. */
static void cache_write(struct bluestore *bs, const struct store_txc *t)
{
    struct data_cache *dc = &bs->cache;
    bool buffered = bs->env.opt->bluestore_default_buffered_write;
    if (!t->cached_extent || !t->len || (!dc->held && !buffered))
        return;
    uint64_t first = t->addr >> CACHE_BLOCK_SHIFT, last = (t->addr + t->len - 1) >> CACHE_BLOCK_SHIFT;
    for (uint64_t k = first; k <= last; k++) {
        if (buffered)
            cache_insert(bs, k, t->cache_shard);
        else
            cache_drop(dc, k, t->cache_shard);
    }
    cache_gauges(bs);
}

/*
 * image.cached: before the run each shard holds that share of its primary
 * blocks (shard_blocks[i]), as much as fits.  The committed size is the
 * autotuner's fixed point for what the shards then hold (the balances of a
 * cache filled before: committed = held + ratio x the rest + 64 MiB).
 */
static void bluestore_warm_cache(void *store, double fraction, const uint64_t *shard_blocks)
{
    struct bluestore *bs = store;
    struct data_cache *dc = &bs->cache;
    if (fraction <= 0 || dc->size.ratio <= 0)
        return;
    for (int it = 0; it < 200 && dc->size.autotune; it++) {
        double cap = (double)((uint64_t)(dc->size.committed / dc->n_shards) >> CACHE_BLOCK_SHIFT), held = 0;
        for (uint32_t i = 0; i < dc->n_shards; i++) {
            double want = fraction * (double)shard_blocks[i];
            held += want < cap ? want : cap;
        }
        double next = bluestore_cache_committed(&dc->size, held * (1 << CACHE_BLOCK_SHIFT));
        if (next <= dc->size.committed)
            break;
        dc->size.committed = next;
    }
    cache_resize(bs);
    for (uint32_t i = 0; i < dc->n_shards; i++) {
        struct cache_shard *sh = &dc->shards[i];
        if (!shard_blocks[i])
            continue;
        double share = fraction;
        if (share * (double)shard_blocks[i] > (double)dc->shard_cap)
            share = (double)dc->shard_cap / (double)shard_blocks[i];
        sh->warm_live = (uint64_t)(share * (double)shard_blocks[i]);
        sh->warm_thr = share * WARM_SCALE;
        sh->warm_step = WARM_SCALE / (double)shard_blocks[i];
        dc->held += sh->warm_live;
    }
    if (dc->held && dc->size.autotune && !dc->balancing) {
        dc->balancing = true;
        sim_schedule(bs->env.s, (sim_time_t)(bs->env.opt->bluestore_cache_autotune_interval * 1e9), cache_balance, bs, 0);
    }
    cache_gauges(bs);
}

uint32_t bluestore_cache_shards(const struct ceph_options *o)
{
    /* 0: the op shards, as before 15.2 (OSD::init: set_cache_shards(get_num_op_shards())) */
    return o->osd_num_cache_shards ? (uint32_t)o->osd_num_cache_shards : (uint32_t)o->osd_op_num_shards_ssd;
}

/*
 * The skiplist levels a memtable insert walks beyond those that stay in
 * cache (InlineSkipList::Insert, RecomputeSpliceLevels: log2 of the entries),
 * averaged over the active memtable's life, filling at a steady rate from
 * empty to write_buffer_size W before it is switched: the mean of
 * max(0, log2(x / C)) for x uniform in [0, W] is log2(W/C) - (1 - C/W) / ln 2.
 */
double memtable_insert_levels(double write_buffer_size, double cached_bytes)
{
    double r = write_buffer_size / cached_bytes;
    return r <= 1 ? 0 : log2(r) - (1 - 1 / r) / M_LN2;
}

static void *bluestore_create(const struct store_env *env)
{
    struct bluestore *bs = sim_xcalloc(1, sizeof *bs);
    bs->env = *env;
    bs->dev = env->dev;
    idmap_init(&bs->cache.blocks, sizeof(struct cache_blk), 4096);
    bs->cache.n_shards = bluestore_cache_shards(env->opt);
    bs->cache.shards = sim_xcalloc(bs->cache.n_shards, sizeof *bs->cache.shards);
    for (uint32_t i = 0; i < bs->cache.n_shards; i++)
        bs->cache.shards[i].fifo.next = bs->cache.shards[i].fifo.prev = &bs->cache.shards[i].fifo;
    bluestore_cache_size_init(&bs->cache.size, env->opt);
    bs->cache.shard_cap = (uint64_t)(bs->cache.size.committed / bs->cache.n_shards) >> CACHE_BLOCK_SHIFT;
    /* an unoptimised RocksDB (CMAKE_BUILD_TYPE None): its code ~3x slower, as
       its compactions were before and after the fix (ceph.io 2024) */
    bs->rocksdb_cpu = env->opt->rocksdb_build_type == ROCKSDB_BUILD_NONE ? 3.0 : 1.0;
    const struct stage_costs *k = env->cost;
    double write_buffer_size = (double)env->opt->rocksdb.write_buffer_size;
    bs->memtable_key_us =
        k->rocksdb_memtable_insert_us * memtable_insert_levels(write_buffer_size, k->rocksdb_memtable_cached_bytes);
    bs->flush_bytes = write_buffer_size * (double)env->opt->rocksdb.min_write_buffer_number_to_merge;
    bs->memtable_bytes = env->rocksdb_memtable_fill * bs->flush_bytes;
    bs->kv_keys = k->bluestore_kv_keys_per_txc;
    bs->kv_freelist_keys = env->opt->bluestore_allocation_from_file ? 0 : k->bluestore_freelist_keys_per_txc;
    struct cpu_host *h = env->host;
    cpu_pool_init(&bs->aio, h, "bstore_aio", 1);
    cpu_pool_init(&bs->kv_sync, h, "bstore_kv_sync", 1);
    cpu_pool_init(&bs->kv_final, h, "bstore_kv_final", 1);
    /* RocksDB's flush and compaction threads: 2 (max_background_compactions=2
       of 15.2-17.2; 18.2's max_background_jobs=4 is not modelled: the work is
       CPU per txc, or per filled memtable with cluster.rocksdb_flushes on_fill,
       not jobs whose parallelism the count would bound) */
    cpu_pool_init(&bs->rocksdb_bg, h, "rocksdb:low", 2);
    throttle_init(&bs->throttle, 0, (uint64_t)env->opt->bluestore_throttle_bytes);
    bs->perf.throttle_bytes.max = (uint64_t)env->opt->bluestore_throttle_bytes;
    /* BlueStoreThrottle::reset_throttle: max = throttle_bytes + throttle_deferred_bytes */
    throttle_init(&bs->deferred_throttle, 0,
                  (uint64_t)(env->opt->bluestore_throttle_bytes + env->opt->bluestore_throttle_deferred_bytes));
    return bs;
}

static void bluestore_destroy(void *store)
{
    struct bluestore *bs = store;
    cpu_pool_fini(&bs->aio);
    cpu_pool_fini(&bs->kv_sync);
    cpu_pool_fini(&bs->kv_final);
    cpu_pool_fini(&bs->rocksdb_bg);
    idmap_fini(&bs->cache.blocks);
    free(bs->cache.shards);
    free(bs->deferred_ext);
    while (bs->deferred_all) {
        struct deferred_batch *b = bs->deferred_all;
        bs->deferred_all = b->next_all;
        free(b->run_bytes);
        free(b);
    }
    free(bs);
}

static void rocksdb_bg_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t n)
{
    struct bluestore *bs = obj;
    bs->perf.rocksdb_bg_txcs_done += n;
    cpu_thread_release(th);
}

static void rocksdb_bg_run(struct sim *s, struct cpu_thread *th, void *obj, uint64_t n)
{
    struct bluestore *bs = obj;
    cpu_exec(th, (double)n * bs->env.cost->rocksdb_background_us_per_txc * bs->rocksdb_cpu, rocksdb_bg_done, bs, n);
}

/*
 * RocksDB's background work for n more committed txcs.  steady: charged as it
 * accrues, a long run's average.  on_fill: the memtables take
 * bluestore_wal_bytes_per_txc a txc (the WriteBatch the WAL record holds) and
 * when they reach write_buffer_size x min_write_buffer_number_to_merge
 * (DBImpl::SwitchMemtable, then a FlushJob and the compactions it sets off)
 * the work of that many txcs is submitted at once; the same CPU per txc in
 * the long run, none before the first fill.
 */
static void rocksdb_background(struct bluestore *bs, uint64_t n)
{
    if (!bs->env.rocksdb_flush_on_fill) {
        bs->perf.rocksdb_bg_txcs_queued += n;
        cpu_pool_submit(&bs->rocksdb_bg, CPU_PRIO_NORMAL, rocksdb_bg_run, bs, n);
        return;
    }
    double per_txc = bs->env.cost->bluestore_wal_bytes_per_txc;
    if (per_txc <= 0)
        return;
    bs->memtable_bytes += (double)n * per_txc;
    while (bs->memtable_bytes >= bs->flush_bytes) {
        bs->memtable_bytes -= bs->flush_bytes;
        bs->perf.rocksdb_flushes++;
        uint64_t txcs = (uint64_t)llround(bs->flush_bytes / per_txc);
        bs->perf.rocksdb_bg_txcs_queued += txcs;
        cpu_pool_submit(&bs->rocksdb_bg, CPU_PRIO_NORMAL, rocksdb_bg_run, bs, txcs);
    }
}

/* ---- kv_sync / kv_final ---- */

static void kv_cycle(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);

static void kv_queue_txc(struct bluestore *bs, struct store_txc *t)
{
    sim_time_t now = sim_now(bs_sim(bs));
    lat_sum_add(&bs->perf.state_io_done_lat, now - t->t_state); /* OpSequencer wait */
    t->t_state = now;
    t->kv_next = NULL;
    if (bs->kv_tail)
        bs->kv_tail->kv_next = t;
    else
        bs->kv_head = t;
    bs->kv_tail = t;
    bs->kv_len++;
    if (!bs->kv_running) {
        /* kv_cond.notify_one(): wake the kv_sync thread */
        bs->kv_running = true;
        cpu_pool_submit(&bs->kv_sync, CPU_PRIO_NORMAL, kv_cycle, bs, 0);
    }
}

/* _txc_finish_io: advance the sequencer's head txcs whose IO is done, in order. */
static void seq_advance(struct bluestore *bs, struct store_seq *seq)
{
    while (seq->head && seq->head->io_done) {
        struct store_txc *t = seq->head;
        seq->head = t->seq_next;
        if (!seq->head)
            seq->tail = NULL;
        kv_queue_txc(bs, t);
    }
}

static void batch_list_push(struct batch_list *l, struct deferred_batch *b)
{
    b->next = NULL;
    if (l->tail)
        l->tail->next = b;
    else
        l->head = b;
    l->tail = b;
    l->txcs += b->ops;
}

/* Append src to dst; src is left empty. */
static void batch_list_move(struct batch_list *dst, struct batch_list *src)
{
    if (!src->head)
        return;
    if (dst->tail)
        dst->tail->next = src->head;
    else
        dst->head = src->head;
    dst->tail = src->tail;
    dst->txcs += src->txcs;
    *src = (struct batch_list){0};
}

/* _deferred_aio_finish on the bstore_aio thread: the batch's txcs go to
   DEFERRED_CLEANUP, give back their deferred throttle and wait in
   deferred_done_queue for kv_sync (which is not woken for them: "it will
   catch us on the next commit anyway"). */
static void deferred_reaped(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct deferred_batch *b = obj;
    struct bluestore *bs = b->bs;
    sim_time_t now = sim_now(s);
    uint64_t wait = now - b->t_submit;
    for (uint32_t i = 0; i < b->ops; i++)
        lat_sum_add(&bs->perf.state_deferred_aio_wait_lat, wait);
    for (uint32_t i = 1; i < b->ops; i++)
        throttle_put(&bs->deferred_throttle, s, 0);
    throttle_put(&bs->deferred_throttle, s, b->cost);
    b->t_done = now;
    batch_list_push(&bs->deferred_done, b);
    cpu_thread_release(th);
}

static void deferred_reap(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct deferred_batch *b = obj;
    cpu_exec(th, stage(b->bs, b->bs->env.cost->bluestore_aio_us), deferred_reaped, b, 0);
}

/* One of a batch's writes is done; with the last, KernelDevice's aio thread
   runs the batch's callback (its IOContext had them all). */
static void deferred_write_done(struct sim *s, void *obj, uint64_t arg)
{
    struct deferred_batch *b = obj;
    if (--b->writes_left)
        return;
    cpu_pool_submit(&b->bs->aio, CPU_PRIO_NORMAL, deferred_reap, b, 0);
}

/* Sequencers in deferred_queue order, then device offset (the iomap's key). */
static int extent_cmp(const void *a, const void *b)
{
    const struct deferred_extent *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->addr_known != y->addr_known)
        return x->addr_known ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* e continues prev on the device within one batch: one aio_write covers both. */
static bool extent_joins(const struct deferred_extent *prev, const struct deferred_extent *e)
{
    return prev->rank == e->rank && prev->addr_known && e->addr_known && prev->addr + prev->len == e->addr;
}

/* A queued deferred txc's extent (_deferred_queue: its sequencer's
   DeferredBatch::prepare_write; a sequencer joins deferred_queue with its
   first). */
static void deferred_queue_extent(struct bluestore *bs, const struct store_txc *t)
{
    if (bs->deferred_n == bs->deferred_cap) {
        bs->deferred_cap = bs->deferred_cap ? 2 * bs->deferred_cap : 64;
        bs->deferred_ext = sim_xrealloc(bs->deferred_ext, bs->deferred_cap, sizeof *bs->deferred_ext);
    }
    if (!t->seq->deferred_rank)
        t->seq->deferred_rank = ++bs->deferred_osrs;
    bs->deferred_ext[bs->deferred_n++] = (struct deferred_extent){
        .addr = t->addr, .len = t->deferred_bytes, .cost = t->cost, .osr = t->seq, .t_queued = sim_now(bs->env.s),
        .rank = t->seq->deferred_rank, .addr_known = t->len != 0};
}

static struct deferred_batch *batch_get(struct bluestore *bs)
{
    struct deferred_batch *b = bs->deferred_free;
    if (b) {
        bs->deferred_free = b->next;
    } else { /* kept for reuse: at most the batches written, done or awaiting cleanup at once */
        b = sim_xcalloc(1, sizeof *b);
        b->next_all = bs->deferred_all;
        bs->deferred_all = b;
    }
    b->bs = bs;
    b->next = NULL;
    b->cost = 0;
    b->ops = b->n_runs = 0;
    return b;
}

static void batch_add_run(struct deferred_batch *b, uint64_t bytes)
{
    SIM_ASSERT(bytes <= UINT32_MAX);
    if (b->n_runs == b->cap_runs) {
        b->cap_runs = b->cap_runs ? 2 * b->cap_runs : 4;
        b->run_bytes = sim_xrealloc(b->run_bytes, b->cap_runs, sizeof *b->run_bytes);
    }
    b->run_bytes[b->n_runs++] = (uint32_t)bytes;
}

/* aio_submit of each batch of a submit: its runs go to the device. */
static void deferred_aio_submit(struct bluestore *bs, struct deferred_batch *first)
{
    sim_time_t now = sim_now(bs->env.s);
    for (struct deferred_batch *b = first, *next; b; b = next) {
        next = b->next;
        b->t_submit = now;
        b->writes_left = b->n_runs;
        for (uint32_t i = 0; i < b->n_runs; i++)
            nvme_submit(bs->dev, NVME_WRITE, b->run_bytes[i], deferred_write_done, b, 0);
    }
}

/*
 * deferred_try_submit -> _deferred_submit_unlock for every sequencer with
 * deferred writes queued: each its own DeferredBatch, whose iomap is keyed by
 * device offset; each physically contiguous run is one aio_write (and one
 * count of deferred_write_ops), a batch's runs one aio_submit.  Random 4 KiB
 * overwrites are therefore one device write each; a sequential stream's
 * extents, one PG's, merge.  Returns the batches (linked by next) and their
 * runs; the caller issues them (deferred_aio_submit) once it has spent the
 * CPU, or at once.
 */
static struct deferred_batch *deferred_build(struct bluestore *bs, uint32_t *runs)
{
    *runs = 0;
    if (!bs->deferred_n)
        return NULL;
    sim_time_t now = sim_now(bs->env.s);
    struct deferred_extent *x = bs->deferred_ext;
    for (uint32_t i = 0; i < bs->deferred_n; i++) {
        lat_sum_add(&bs->perf.state_deferred_queued_lat, now - x[i].t_queued);
        x[i].osr->deferred_rank = 0;
    }
    qsort(x, bs->deferred_n, sizeof *x, extent_cmp);
    struct deferred_batch *first = NULL, *last = NULL, *b = NULL;
    for (uint32_t i = 0; i < bs->deferred_n;) {
        if (!b || x[i].rank != x[i - 1].rank) {
            b = batch_get(bs);
            if (last)
                last->next = b;
            else
                first = b;
            last = b;
        }
        uint64_t bytes = 0;
        uint32_t j = i;
        do {
            bytes += x[j].len;
            b->cost += x[j].cost;
            b->ops++;
            j++;
        } while (j < bs->deferred_n && extent_joins(&x[j - 1], &x[j]));
        bs->perf.deferred_write_ops++;
        bs->perf.deferred_write_bytes += bytes;
        batch_add_run(b, bytes);
        ++*runs;
        i = j;
    }
    bs->deferred_n = 0;
    bs->deferred_osrs = 0;
    return first;
}

/* From a thread that does not pay for it here (a txc's wait for the deferred
   throttle, deferred_aggressive): issued at once. */
static void deferred_submit_now(struct bluestore *bs)
{
    uint32_t runs;
    deferred_aio_submit(bs, deferred_build(bs, &runs));
}

/* kv_final after _deferred_submit_unlock's CPU: aio_submit, then its next wait. */
static void kv_final_submitted(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    deferred_aio_submit(obj, (struct deferred_batch *)(uintptr_t)arg);
    cpu_thread_release(th);
}

static void kv_final_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct bluestore *bs = obj;
    struct store_txc *t = (struct store_txc *)(uintptr_t)arg;
    sim_time_t now = sim_now(s);
    uint64_t n = 0;
    bool deferred = false;
    /* the deferred batches whose cleanup committed: their txcs DEFERRED_CLEANUP
       -> FINISHING (their _txc_finish's CPU is charged with their first pass,
       cost.bluestore_kv_final_us) */
    for (struct deferred_batch *b = bs->finalizing.head, *next; b; b = next) {
        next = b->next;
        for (uint32_t i = 0; i < b->ops; i++)
            lat_sum_add(&bs->perf.state_deferred_cleanup_lat, now - b->t_done);
        b->next = bs->deferred_free;
        bs->deferred_free = b;
    }
    bs->finalizing = (struct batch_list){0};
    while (t) {
        struct store_txc *next = t->kv_next;
        lat_sum_add(&bs->perf.state_kv_done_lat, now - t->t_state);
        lat_sum_add(&bs->perf.commit_lat, now - t->t_start);
        lat_sum_add(&bs->perf.kv_final_lat, now - t->t_state);
        if (t->deferred_bytes) {
            deferred_queue_extent(bs, t);
            deferred = true;
        }
        bs->env.committed(bs->env.ctx, t->owner);
        t = next;
        n++;
    }
    if (n && bs->env.cost->rocksdb_background_us_per_txc > 0)
        rocksdb_background(bs, n);
    if (deferred) {
        /* _deferred_queue: written to the final location later, each PG's in
           its sequencer's batch; _kv_finalize_thread submits at deferred_batch_ops
           txcs in all (deferred_queue_size) or once the deferred throttle is past
           its midpoint (should_submit_deferred), _deferred_queue at once while a
           txc waits for that throttle (deferred_aggressive) */
        const struct throttle *dt = &bs->deferred_throttle;
        if (bs->deferred_n >= (uint64_t)bs->env.opt->bluestore_deferred_batch_ops_ssd ||
            dt->bytes >= dt->max_bytes / 2 || bs->deferred_aggressive) {
            uint32_t runs;
            struct deferred_batch *first = deferred_build(bs, &runs);
            cpu_exec(th, stage(bs, runs * bs->env.cost->bluestore_deferred_aio_us), kv_final_submitted, bs,
                     (uint64_t)(uintptr_t)first);
            return;
        }
    }
    cpu_thread_release(th);
}

static void kv_final_run(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct bluestore *bs = obj;
    /* _kv_finalize_thread swaps both lists in: the committed txcs and the
       stable batches whose cleanup committed */
    batch_list_move(&bs->finalizing, &bs->stable_to_finalize);
    uint32_t n = 0;
    for (struct store_txc *t = (struct store_txc *)(uintptr_t)arg; t; t = t->kv_next)
        n++;
    cpu_exec(th, n * stage(bs, bs->env.cost->bluestore_kv_final_us), kv_final_done, bs, arg);
}

/* kv_sync back from its fdatasync (woken by the completion): the batch is durable */
static void kv_synced(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct bluestore *bs = obj;
    sim_time_t now = sim_now(s);
    lat_sum_add(&bs->perf.kv_commit_lat, now - bs->t_phase);
    lat_sum_add(&bs->perf.rocksdb_submit_sync_latency, now - bs->t_phase); /* submit_transaction_sync */
    lat_sum_add(&bs->perf.kv_sync_lat, now - bs->t_batch);
    for (struct store_txc *t = bs->batch; t; t = t->kv_next) {
        lat_sum_add(&bs->perf.state_kv_commiting_lat, now - t->t_state);
        t->t_state = now;
    }
    bs->perf.kv_batches++;
    /* the cycle's stable batches, their keys now removed, go to kv_final with
       the batch; its done ones are stable by virtue of this commit */
    batch_list_move(&bs->stable_to_finalize, &bs->cycle_stable);
    batch_list_move(&bs->deferred_stable, &bs->cycle_done);
    /* hand the batch to kv_final (kv_finalize_cond) */
    cpu_pool_submit(&bs->kv_final, CPU_PRIO_NORMAL, kv_final_run, bs, (uint64_t)(uintptr_t)bs->batch);
    bs->batch = NULL;
    if (bs->kv_head) {
        kv_cycle(s, th, bs, 0); /* more queued while syncing: no sleep in between */
    } else {
        bs->kv_running = false;
        cpu_thread_release(th);
    }
}

/*
 * The flush's sleeps past the first (hw.nvme.flush_sleeps - 1 on average;
 * 0 on a block device): an fdatasync on a file in a journaling filesystem
 * also waits for the journal commit and the file's own writes, each a sleep
 * and a wake-up of the calling thread inside the flush.  Their CPU (the
 * host's cost.thread_sleep_us each) is spent once the flush is back, before
 * the latency counters are read: Ceph times the whole syscall.  Whole sleeps
 * are carried over, so the mean is exact and the run deterministic.
 */
static double flush_extra_sleeps_us(struct bluestore *bs, struct cpu_thread *th)
{
    bs->flush_sleeps_owed += bs->dev->p.flush_sleeps - 1;
    uint32_t n = (uint32_t)bs->flush_sleeps_owed;
    if (!n)
        return 0;
    bs->flush_sleeps_owed -= n;
    return cpu_thread_extra_sleeps(th, n);
}

/* Back from a flush: its extra sleeps' CPU, then cont. */
static void after_flush_sleeps(struct sim *s, struct cpu_thread *th, struct bluestore *bs, cpu_item_fn cont)
{
    double us = flush_extra_sleeps_us(bs, th);
    if (us > 0)
        cpu_exec(th, us, cont, bs, 0);
    else
        cont(s, th, bs, 0);
}

static void kv_wal_synced(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    after_flush_sleeps(s, th, obj, kv_synced);
}

/* The device completed what kv_sync sleeps on: wake it (its own queue: the
   completion's interrupt wakes the thread waiting in the syscall) to run fn. */
static void kv_wake_synced(struct sim *s, void *obj, uint64_t arg)
{
    struct bluestore *bs = obj;
    cpu_thread_submit((struct cpu_thread *)(uintptr_t)arg, kv_wal_synced, bs, 0);
}

static void kv_wal_written(struct sim *s, void *obj, uint64_t arg)
{
    struct bluestore *bs = obj;
    /* submit_transaction_sync: BlueFS fsync -> _flush_bdev */
    nvme_submit(bs->dev, NVME_FLUSH, 0, kv_wake_synced, bs, arg);
}

/* One txc's RocksDBStore::submit_transaction on kv_sync: the write path plus
   each key's memtable insert; an allocating txc (a data aio: copy-on-write)
   also carries BitmapFreelistManager's allocate/release keys unless
   allocations live in a file (bluestore_allocation_from_file, 17.2+). */
static double txc_submit_us(const struct bluestore *bs, const struct store_txc *t)
{
    /* a deferred txc also puts its bluestore_deferred_transaction_t (PREFIX_DEFERRED) */
    double keys = bs->kv_keys + (t->data_bytes ? bs->kv_freelist_keys : 0) + (t->deferred_bytes ? 1 : 0) +
                  (t->rollback ? bs->env.cost->bluestore_ec_rollback_keys_per_txc : 0);
    return bs->env.cost->bluestore_kv_submit_us + keys * bs->memtable_key_us;
}

static void kv_submitted(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct bluestore *bs = obj;
    uint64_t wal = 0, released = 0;
    /* each txc's RocksDBStore::submit_transaction: its share of the submit CPU just spent
       (kv_submit: kv_sync_us for the cycle plus kv_submit_us per txc) */
    const struct stage_costs *k = bs->env.cost;
    double whole = k->bluestore_kv_sync_us + bs->batch_submit_us + bs->cleanup_us;
    sim_time_t spent = sim_now(s) - bs->t_submit;
    for (struct store_txc *t = bs->batch; t; t = t->kv_next) {
        wal += (uint64_t)bs->env.cost->bluestore_wal_bytes_per_txc + t->deferred_bytes;
        /* the throttle is released before the sync (throttle.release_kv_throttle) */
        throttle_put(&bs->throttle, s, t->cost);
        released += t->cost;
        if (whole > 0)
            lat_sum_add(&bs->perf.rocksdb_submit_latency, (uint64_t)((double)spent * txc_submit_us(bs, t) / whole));
    }
    if (bs->batch) { /* one Throttle::put of the batch's costs */
        bs->perf.throttle_bytes.put++;
        bs->perf.throttle_bytes.put_sum += released;
        bs->perf.throttle_bytes.val = bs->throttle.bytes;
    }
    wal = (wal + 4095) / 4096 * 4096;
    bs->t_phase = sim_now(s);
    /* BlueFS appends to the WAL file: a sequential write.  With bluefs_buffered_io
       (true in 14.2.x-18.2) BlueFS::_flush_range copies it into the page cache
       and _flush_bdev's fdatasync writes it back and sleeps until the device is
       done (without it, KernelDevice aio and IOContext::aio_wait: a sleep too);
       kv_sync gives up its core meanwhile (a voluntary switch) */
    nvme_submit(bs->dev, NVME_WRITE_SEQ, (uint32_t)wal, kv_wal_written, bs, (uint64_t)(uintptr_t)th);
    cpu_thread_release(th);
}

/* kv_sync after the flush: submit each txc to RocksDB; syscall_ns is CPU the
   flush cost the thread when it was only a syscall. */
static void kv_submit(struct sim *s, struct cpu_thread *th, struct bluestore *bs, sim_time_t syscall_ns)
{
    bs->t_submit = sim_now(s) + syscall_ns; /* the flush syscall first, then the submits */
    bs->batch_submit_us = 0;
    for (const struct store_txc *t = bs->batch; t; t = t->kv_next)
        bs->batch_submit_us += txc_submit_us(bs, t);
    /* "cleanup sync deferred keys": synct->rm_single_key of each stable txc's record */
    bs->cleanup_us = bs->cycle_stable.txcs * bs->memtable_key_us;
    double cost = (bs->env.cost->bluestore_kv_sync_us + bs->batch_submit_us + bs->cleanup_us) * bs->rocksdb_cpu;
    cpu_exec(th, stage(bs, cost) + (double)syscall_ns / 1e3, kv_submitted, bs, 0);
}

static void kv_flush_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct bluestore *bs = obj;
    lat_sum_add(&bs->perf.kv_flush_lat, sim_now(s) - bs->t_phase);
    kv_submit(s, th, bs, 0);
}

static void kv_flushed(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    after_flush_sleeps(s, th, obj, kv_flush_done);
}

static void kv_wake_flushed(struct sim *s, void *obj, uint64_t arg)
{
    struct bluestore *bs = obj;
    cpu_thread_submit((struct cpu_thread *)(uintptr_t)arg, kv_flushed, bs, 0);
}

/* One _kv_sync_thread iteration: take the whole queue, flush, submit, sync. */
static void kv_cycle(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct bluestore *bs = obj;
    sim_time_t now = sim_now(s);
    bs->batch = bs->kv_head;
    bs->batch_n = bs->kv_len;
    bs->kv_head = bs->kv_tail = NULL;
    bs->kv_len = 0;
    bs->t_batch = bs->t_phase = now;
    for (struct store_txc *t = bs->batch; t; t = t->kv_next) {
        lat_sum_add(&bs->perf.state_kv_queued_lat, now - t->t_state);
        t->t_state = now;
    }
    /* deferred_done.swap(deferred_done_queue), deferred_stable.swap(deferred_stable_queue);
       on BlueFS's single shared device a cycle flushes the device only for
       data aios, and then its done batches are stable at once */
    batch_list_move(&bs->cycle_done, &bs->deferred_done);
    batch_list_move(&bs->cycle_stable, &bs->deferred_stable);
    if (bs->aios_since_flush)
        batch_list_move(&bs->cycle_stable, &bs->cycle_done);
    if (bs->aios_since_flush && !bs->dev->p.plp) {
        bs->aios_since_flush = false;
        /* bdev->flush(): fdatasync with a volatile cache to flush, asleep until done */
        nvme_submit(bs->dev, NVME_FLUSH, 0, kv_wake_flushed, bs, (uint64_t)(uintptr_t)th);
        cpu_thread_release(th);
        return;
    }
    /* no volatile write cache: bdev->flush() is an fdatasync the kernel
       completes at once, i.e. CPU on this thread (none when nothing was written) */
    sim_time_t syscall_ns = bs->aios_since_flush ? (sim_time_t)(bs->dev->p.flush_syscall_us * 1e3) : 0;
    bs->aios_since_flush = false;
    lat_sum_add(&bs->perf.kv_flush_lat, syscall_ns);
    kv_submit(s, th, bs, syscall_ns);
}

/* ---- aio ---- */

static void aio_reaped(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct bluestore *bs = obj;
    struct store_txc *t = (struct store_txc *)(uintptr_t)arg;
    sim_time_t now = sim_now(s);
    lat_sum_add(&bs->perf.state_aio_wait_lat, now - t->t_state);
    t->t_state = now;
    t->io_done = true;
    seq_advance(bs, t->seq);
    cpu_thread_release(th);
}

static void aio_reap(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct bluestore *bs = obj;
    cpu_exec(th, stage(bs, bs->env.cost->bluestore_aio_us), aio_reaped, bs, arg);
}

static void aio_complete(struct sim *s, void *obj, uint64_t arg)
{
    struct bluestore *bs = obj;
    /* KernelDevice::_aio_thread wakes on io_getevents */
    cpu_pool_submit(&bs->aio, CPU_PRIO_NORMAL, aio_reap, bs, arg);
}

/* ---- queue_transactions ---- */


static void txc_submit(struct bluestore *bs, struct store_txc *t)
{
    sim_time_t now = sim_now(bs_sim(bs));
    lat_sum_add(&bs->perf.state_prepare_lat, now - t->t_start);
    lat_sum_add(&bs->perf.submit_lat, now - t->t_start);
    t->t_state = now;
    /* OpSequencer order */
    t->seq_next = NULL;
    if (t->seq->tail)
        t->seq->tail->seq_next = t;
    else
        t->seq->head = t;
    t->seq->tail = t;
    if (t->data_bytes) {
        bs->aios_since_flush = true;
        nvme_submit(bs->dev, NVME_WRITE, (uint32_t)t->data_bytes, aio_complete, bs, (uint64_t)(uintptr_t)t);
    } else {
        t->io_done = true; /* no aio: PREPARE -> IO_DONE at once */
        seq_advance(bs, t->seq);
    }
}

static void txc_prepared(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);

/* Both throttles taken: submit, then the caller's continuation (arg). */
static void txc_go(struct sim *s, struct store_txc *t, uint64_t arg)
{
    struct bluestore *bs = t->store;
    lat_sum_add(&bs->perf.throttle_lat, sim_now(s) - t->t_state);
    txc_submit(bs, t);
    cpu_item_fn cont = (cpu_item_fn)(uintptr_t)arg;
    cont(s, t->th, t->owner, 0);
}

static void txc_deferred_throttled(struct sim *s, void *obj, uint64_t arg)
{
    struct store_txc *t = obj;
    ((struct bluestore *)t->store)->deferred_aggressive--;
    txc_go(s, t, arg);
}

/* try_start_transaction's second get: a deferred txc also takes the deferred
   throttle; failing, it flushes the queued deferred writes and waits. */
static bool txc_deferred_get(struct sim *s, struct bluestore *bs, struct store_txc *t, uint64_t arg)
{
    if (!t->deferred_bytes || throttle_get(&bs->deferred_throttle, s, t->cost, txc_deferred_throttled, t, arg))
        return true;
    bs->deferred_aggressive++;
    deferred_submit_now(bs);
    return false;
}

/* Throttle::get granted: counts, and the wait when it blocked. */
static void count_throttle_get(struct bluestore *bs, struct store_txc *t, bool waited)
{
    struct perf_throttle *p = &bs->perf.throttle_bytes;
    p->get++;
    p->get_sum += t->cost;
    p->val = bs->throttle.bytes;
    if (waited)
        lat_sum_add(&p->wait, sim_now(bs_sim(bs)) - t->t_state);
}

static void txc_throttled(struct sim *s, void *obj, uint64_t arg)
{
    struct store_txc *t = obj;
    count_throttle_get(t->store, t, true);
    if (txc_deferred_get(s, t->store, t, arg))
        txc_go(s, t, arg);
}

static void txc_prepared(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct store_txc *t = obj;
    struct bluestore *bs = t->store;
    t->t_state = sim_now(s);
    /* the shard thread blocks in throttle.try_start_transaction when over budget */
    t->th = th;
    bs->perf.throttle_bytes.get_started++;
    if (!throttle_get(&bs->throttle, s, t->cost, txc_throttled, t, arg))
        return;
    count_throttle_get(bs, t, false);
    if (txc_deferred_get(s, bs, t, arg))
        txc_go(s, t, arg);
}

static void bluestore_queue_transaction(void *store, struct cpu_thread *th, struct store_txc *t,
                                        struct store_seq *seq, uint64_t data_bytes, cpu_item_fn cont)
{
    struct bluestore *bs = store;
    const struct ceph_options *o = bs->env.opt;
    t->store = bs;
    t->seq = seq;
    t->t_start = sim_now(bs->env.s);
    t->io_done = false;
    t->data_bytes = t->deferred_bytes = 0;
    uint32_t aios = 0;
    if (data_bytes)
        cache_write(bs, t);
    if (data_bytes) {
        /* _do_write: small/unaligned overwrites and writes <= prefer_deferred_size
           are deferred (WAL); aligned writes are new allocations (_do_write_big) */
        uint64_t mas = (uint64_t)o->bluestore_min_alloc_size_ssd;
        bool aligned = data_bytes % mas == 0;
        /* the counters as 16.2.15 keeps them (tests/data/lab6): an aligned write is
           _do_write_big's, deferred or not (write_big_deferred); an unaligned one
           _do_write_small's; every deferred one counts in write_deferred, and
           deferred_write_ops counts the device writes (deferred_submit) */
        if (aligned) {
            bs->perf.bluestore_write_big++;
            bs->perf.bluestore_write_big_bytes += data_bytes;
        } else {
            bs->perf.bluestore_write_small++;
            bs->perf.bluestore_write_small_bytes += data_bytes;
        }
        if (data_bytes <= (uint64_t)o->bluestore_prefer_deferred_size_ssd || !aligned) {
            t->deferred_bytes = data_bytes;
            bs->perf.bluestore_write_deferred++;
            bs->perf.bluestore_write_deferred_bytes += data_bytes;
            bs->perf.bluestore_write_big_deferred += aligned;
        } else {
            t->data_bytes = data_bytes;
            aios = 1;
        }
    }
    bs->perf.bluestore_txc++;
    t->cost = (1 + aios) * (uint64_t)o->bluestore_throttle_cost_per_io_ssd + data_bytes;
    double cost = bs->env.cost->bluestore_prepare_us + (t->deferred_bytes ? bs->env.cost->bluestore_deferred_us : 0) +
                  (t->rollback ? bs->env.cost->bluestore_ec_rollback_us : 0);
    cpu_exec(th, stage(bs, cost), txc_prepared, t, (uint64_t)(uintptr_t)cont);
}

/* ---- reads ---- */

static void read_cpu_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct store_txc *t = obj;
    struct bluestore *bs = t->store;
    lat_sum_add(&bs->perf.read_lat, sim_now(s) - t->t_start);
    cpu_item_fn cont = (cpu_item_fn)(uintptr_t)arg;
    cont(s, th, t->owner, 0);
}

/* The reader is back from IOContext::aio_wait: _generate_read_result_bl. */
static void read_resumed(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct store_txc *t = obj;
    struct bluestore *bs = t->store;
    /* _do_read: what came from the device stays in the cache (bc.did_read) */
    if (t->cached_extent && bs->env.opt->bluestore_default_buffered_read && t->len) {
        uint64_t first = t->addr >> CACHE_BLOCK_SHIFT, last = (t->addr + t->len - 1) >> CACHE_BLOCK_SHIFT;
        for (uint64_t k = first; k <= last; k++)
            cache_insert(bs, k, t->cache_shard);
        cache_gauges(bs);
    }
    cpu_exec(th, stage(bs, bs->env.cost->bluestore_read_us), read_cpu_done, t, arg);
}

/* KernelDevice::_aio_thread reaped the read: IOContext::try_aio_wake
   (num_running to 0: notify_all) wakes the reader out of aio_wait. */
static void read_reaped(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct store_txc *t = obj;
    cpu_thread_resume(t->th, read_resumed, t, arg);
    cpu_thread_release(th);
}

static void read_reap(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct store_txc *t = obj;
    struct bluestore *bs = t->store;
    cpu_exec(th, stage(bs, bs->env.cost->bluestore_read_reap_us), read_reaped, t, arg);
}

/* The device completed the read: bstore_aio's io_getevents returns with it. */
static void read_io_done(struct sim *s, void *obj, uint64_t arg)
{
    struct store_txc *t = obj;
    struct bluestore *bs = t->store;
    cpu_pool_submit(&bs->aio, CPU_PRIO_NORMAL, read_reap, t, arg);
}

static void bluestore_read(void *store, struct cpu_thread *th, struct store_txc *t, uint64_t bytes, cpu_item_fn cont)
{
    struct bluestore *bs = store;
    t->store = bs;
    t->th = th;
    t->t_start = sim_now(bs_sim(bs));
    /* _do_read: the blocks the cache holds (bc.read), the rest from the device */
    uint64_t missing = bytes;
    if (t->cached_extent && bytes) {
        struct data_cache *dc = &bs->cache;
        uint64_t first = t->addr >> CACHE_BLOCK_SHIFT, last = (t->addr + bytes - 1) >> CACHE_BLOCK_SHIFT;
        uint64_t held = 0;
        if (dc->held)
            for (uint64_t k = first; k <= last; k++)
                held += cache_lookup(dc, k, t->cache_shard);
        uint64_t blocks = last - first + 1;
        missing = held == blocks ? 0 : bytes - (bytes * held) / blocks;
        bs->perf.bluestore_buffer_hit_bytes += bytes - missing;
        bs->perf.bluestore_buffer_miss_bytes += missing;
        t->len = missing ? bytes : 0; /* what read_io_done puts in the cache */
    }
    if (!missing) {
        cpu_exec(th, stage(bs, bs->env.cost->bluestore_read_us), read_cpu_done, t, (uint64_t)(uintptr_t)cont);
        return;
    }
    /* BlueStore::_do_read always reads by aio: bdev->aio_submit, then the
       shard thread sleeps in IOContext::aio_wait until the aio thread has
       reaped the completion (KernelDevice::_aio_thread -> try_aio_wake) */
    cpu_thread_block(th);
    nvme_read_at(bs->dev, t->addr, (uint32_t)missing, read_io_done, t, (uint64_t)(uintptr_t)cont);
}

static void bluestore_reset_stats(void *store)
{
    struct bluestore *bs = store;
    struct perf_throttle tb = bs->perf.throttle_bytes;
    memset(&bs->perf, 0, sizeof bs->perf);
    bs->perf.throttle_bytes = (struct perf_throttle){.val = tb.val, .max = tb.max}; /* gauges stay */
    cache_gauges(bs);
}

static const struct bluestore_perf *bluestore_perf_of(const void *store)
{
    return &((const struct bluestore *)store)->perf;
}

const struct store_ops bluestore_ops = {
    .name = "bluestore",
    .create = bluestore_create,
    .destroy = bluestore_destroy,
    .queue_transaction = bluestore_queue_transaction,
    .read = bluestore_read,
    .warm_cache = bluestore_warm_cache,
    .reset_stats = bluestore_reset_stats,
    .bluestore_perf = bluestore_perf_of,
};
