/*
 * cluster-internal.h - the state shared by the cluster's model files
 * (cluster.c: build and run; osd.c: the OSD op path; bluestore.c: the txc
 * pipeline; client.c: fio jobs, librbd and the Objecter).  Not for outside
 * use: other code goes through cluster.h.
 */
#ifndef CEPHSIM_MODELS_CLUSTER_INTERNAL_H
#define CEPHSIM_MODELS_CLUSTER_INTERNAL_H

#include <gsl/gsl_rng.h>

#include "cluster.h"
#include "opinfo.h"
#include "pool.h"
#include "queueing.h"

struct cluster;
struct osd;
struct client;

/* message sizes both ends of a client op use */
#define MSG_HEADER_BYTES 320   /* MOSDOp front + msgr2 frame [est], ceph-model.md 3.5 */
#define REPLY_BYTES 220        /* MOSDOpReply / MOSDRepOpReply [est] */

/* ---- objects and images ---- */

/* Per RADOS object of an image: OSD-side truth, the primary's object context,
   and librbd's view (object map, scheduler, copy-up). */
struct obj_state {
    uint32_t pg;
    bool exists;             /* the object exists in RADOS (copied up / written) */
    bool map_exists;         /* librbd object map: OBJECT_EXISTS */
    struct rwlockq lock;     /* ObjectContext::rwstate on the primary */
    /* librbd SimpleSchedulerObjectDispatch */
    uint32_t inflight_writes;
    struct rados_op *held;   /* held writes, merged (one pending batch) */
    /* librbd CopyupRequest in progress, and the writes waiting on it */
    struct rados_op *copyup_op;       /* the write whose CopyupRequest is in flight */
    bool copyup_sent;                 /* [call rbd.copyup, ...] already sent */
    struct rados_op *copyup_waiters;  /* appended before it was sent: ride along */
    struct rados_op *copyup_late;     /* appended after: re-sent once it completes */
};

struct image {
    struct image_spec spec;
    uint64_t object_size;
    uint64_t n_objects;
    struct obj_state *obj;
    struct image *parent;    /* clone: the parent image (objects all exist) */
    uint32_t map_object_pg;  /* PG of rbd_object_map.<id> */
    struct obj_state map_obj; /* the object map object itself (locks) */
};

/* ---- client side ---- */

enum rados_kind {
    RADOS_WRITE,         /* data write (maybe guarded) */
    RADOS_STAT,          /* stat round trip (guard design stat_roundtrip) */
    RADOS_READ,
    RADOS_PARENT_READ,   /* copy-up: read the parent object */
    RADOS_MAP_UPDATE,    /* object map update on rbd_object_map.<id> */
    RADOS_COPYUP,        /* [call rbd.copyup, write] */
};

struct fio_io;

/* One Objecter op: what goes to a primary OSD and comes back. */
struct rados_op {
    struct rados_op *next;   /* held / copy-up waiter lists */
    struct client *cl;
    struct image *img;
    uint64_t objno;
    struct obj_state *obj;
    enum rados_kind kind;
    uint32_t subops;         /* enum osd_subop */
    uint64_t off, len;       /* extent within the object */
    uint64_t tid;
    int result;              /* 0 or -ENOENT */
    struct fio_io *ios;      /* the fio I/Os this op completes (merged writes) */
    struct rados_op *copyup_parent; /* parent read / map update: the copy-up it serves */
    uint64_t acked_early;    /* write-around: bytes already acknowledged to fio */
    uint64_t copyup_extra;   /* copy-up: bytes of the pending writes appended to it */
    uint32_t primary;        /* OSD id */
    sim_time_t t_sent, t_reply_rx;
    /* the primary's milestones, for the waterfall */
    sim_time_t t_initiated, t_reached, t_started, t_subops, t_op_commit, t_sub_commit,
        t_commit_sent;
    sim_time_t t_rep[3];     /* the slowest replica: initiated, started, commit_sent */
};

/* A message handed to a messenger worker for sending. */
struct msgr_msg {
    struct msgr_msg *next;
    sim_event_fn delivered;
    void *obj;
    uint64_t arg;
    uint32_t bytes, src_host, dst_host;
};

/* One fio I/O unit (an iodepth slot in flight). */
struct fio_io {
    struct fio_io *next;     /* merged into one rados_op */
    struct fio_worker *w;
    int ddir;                /* FIO_DDIR_READ / WRITE */
    uint64_t offset, len;    /* within the image */
    uint32_t parts;          /* rados ops still outstanding (object-spanning I/O) */
    sim_time_t t_issue, t_submitted;
    /* per-stage timestamps of the (last) rados op, for the waterfall */
    sim_time_t st[STAGE_COUNT + 1];
    sim_time_t rep[3];       /* the slowest replica's initiated, started, commit_sent */
    void *owner;             /* a replay port's request (replay.c); NULL for fio's own I/Os */
};

/* One fio job clone (numjobs makes several): a closed loop of iodepth I/Os. */
struct fio_worker {
    struct client *cl;
    const struct workload_job *job;
    uint32_t index;          /* job result slot */
    struct cpu_pool thread;  /* the fio thread */
    gsl_rng *rng;
    uint64_t region_off, region_len;
    uint64_t seq_next;
    uint64_t issued, bytes_issued;
    uint32_t inflight;
    bool stopped;
    sim_time_t next_rate_t;  /* rate_iops / thinktime pacing: issue resumes then */
    sim_time_t t_start;
};

struct client {
    struct cluster *c;
    uint32_t id;             /* client.<4100 + id> */
    uint32_t host;
    struct cpu_pool io_context;  /* librbd rbd_op_threads */
    struct cpu_pool *msgr;       /* ms_async_op_threads, one thread each */
    struct throttle objecter;    /* objecter_inflight_ops / _op_bytes */
    struct fio_worker *workers;
    uint32_t n_workers;
    uint64_t next_tid;
    /* LatencyStats of SimpleSchedulerObjectDispatch: writes completed so far */
    uint64_t sched_samples;
    /* WriteAroundObjectDispatch: bytes acknowledged to fio but still in flight */
    uint64_t writearound_bytes;
};

/* ---- OSD side ---- */

enum osd_op_kind { OSD_CLIENT_OP, OSD_REPOP };

struct txc; /* bluestore.c */

/* BlueStore transaction context (embedded in the op it commits). */
struct txc {
    struct txc *seq_next;    /* OpSequencer order */
    struct txc *kv_next;     /* kv_queue / kv batch */
    struct osd_op *op;
    struct pg_local *seq;
    uint64_t data_bytes;     /* aio data write (0: none) */
    uint64_t deferred_bytes; /* bytes written through the WAL */
    uint64_t cost;           /* throttle cost */
    bool io_done;
    sim_time_t t_start, t_state;
};

struct osd_op {
    struct osd_op *next;     /* repop_queue */
    enum osd_op_kind kind;
    struct osd *osd;
    struct pg_local *pg;
    struct rados_op *rop;    /* client op: the request it serves */
    struct osd_op *primary_op; /* repop: the primary's op */
    struct obj_state *obj;
    struct op_flags flags;
    enum obj_lock_mode lock_mode, lock_held;
    struct cpu_thread *th;
    uint32_t waiting_for_commit;
    bool committed, log_only, requeued, error;
    bool lock_granted;       /* crimson: the obc lock was handed over while queued */
    uint32_t bytes;          /* message data bytes */
    sim_time_t t_recv, t_dequeue, t_started, t_subops, t_op_commit, t_last_sub_commit;
    sim_time_t t_rep[3];     /* primary: the latest-committing replica's initiated, started, commit_sent */
    struct txc txc;
    struct optrack_op track; /* last: op_new zeroes everything before track.ev */
};

/* An OSD's local state of one PG. */
struct pg_local {
    uint32_t pgid;
    uint32_t shard;
    bool primary;
    struct mutexq lock;          /* PG::lock() */
    struct osd_op *repop_head, *repop_tail; /* in-order repop_queue (primary) */
    uint64_t version;
    struct txc *seq_head, *seq_tail;        /* BlueStore OpSequencer: txcs not yet kv-queued */
    struct osd_op *rq_head, *rq_tail;       /* requeued ops ahead of newer ones (pg_slot to_process) */
};

struct bluestore {
    struct osd *osd;
    struct nvme_dev *dev;
    struct cpu_pool aio, kv_sync, kv_final;
    struct cpu_pool rocksdb_bg;     /* RocksDB flush/compaction threads */
    struct txc *kv_head, *kv_tail;  /* kv_queue */
    uint32_t kv_len;
    bool kv_running;
    bool aios_since_flush;
    struct txc *batch;              /* batch being committed by kv_sync */
    uint32_t batch_n;
    sim_time_t t_batch, t_phase;
    struct throttle throttle;       /* bluestore_throttle_bytes */
    uint64_t deferred_pending;
    struct bluestore_perf perf;
};

struct osd {
    struct cluster *c;
    uint32_t id, host;
    struct cpu_pool *msgr;          /* ms_async_op_threads pools of one thread */
    struct cpu_pool *shards;        /* osd_op_num_shards pools */
    uint32_t n_msgr, n_shards;
    struct nvme_dev dev;
    struct bluestore bs;
    struct throttle client_msgs;    /* osd_client_message_cap / _size_cap */
    struct pg_local *pgs;           /* local PGs */
    int32_t *pg_index;              /* pgid -> index in pgs, or -1 */
    uint32_t n_pgs;
    struct optracker tracker;
    struct osd_perf perf;
    uint32_t epoch;
};

struct cluster {
    struct cluster_spec spec;
    struct sim *s;
    enum rw_lock_rule lock_rule;
    struct net net;
    uint32_t n_hosts;               /* OSD hosts + client hosts */
    struct cpu_host *hosts;
    struct osd *osds;
    uint32_t n_osds;
    uint32_t *acting;               /* pg_num x pool_size OSD ids, primary first */
    struct image image, parent;
    struct client *clients;
    uint32_t n_clients;
    struct job_result *results;
    uint32_t n_results;
    struct pool op_pool, rados_pool, io_pool, msg_pool;
    bool measuring;
    sim_time_t t_measure_start, t_end;
    double stage_sum[STAGE_COUNT];
    double replica_sum[REPLICA_STAGE_COUNT];
    uint64_t replica_n;
    uint64_t stage_n;
    double log_cost_us;             /* per stage, from the debug_* levels */
    char (*subops_event)[48];       /* per PG */
};

/* cluster.c */
const uint32_t *cluster_acting(const struct cluster *c, uint32_t pg);
/* "waiting for subops from 1,2" with the PG's replica ids (an interned string). */
const char *cluster_subops_event(const struct cluster *c, uint32_t pg);
uint32_t cluster_object_pg(const struct cluster *c, const struct image *img, uint64_t objno);
/* Time-stamped stage accounting of a finished, measured client write. */
void cluster_account_stages(struct cluster *c, const struct fio_io *io);

/* osd.c */
void osd_init(struct osd *o, struct cluster *c, uint32_t id, uint32_t host);
void osd_fini(struct osd *o);
void osd_reset_stats(struct osd *o);
/* Net delivery of a client's MOSDOp (obj = rados_op) at its primary. */
void osd_client_op_delivered(struct sim *s, void *rop, uint64_t arg);
/* Commit callback of a txc (called by BlueStore's kv_final thread). */
void osd_txc_committed(struct osd *o, struct osd_op *op);
/* Messenger helpers shared with the client. */
/* Hand a message to a msgr worker, which writes it to the socket (CPU) and
   puts it on the wire; delivered(sim, obj, arg) runs when it has arrived and
   the receiver's NIC interrupt fired. */
void msgr_send(struct cluster *c, struct cpu_pool *worker, uint32_t src_host, uint32_t dst_host,
               uint32_t bytes, sim_event_fn delivered, void *obj, uint64_t arg);
/* CPU of receiving a message of bytes on a msgr worker (read, crc, decode). */
double msgr_rx_cost(const struct cluster *c, uint32_t bytes);

/* bluestore.c */
void bluestore_init(struct bluestore *bs, struct osd *o);
void bluestore_fini(struct bluestore *bs);
/*
 * BlueStore::queue_transactions, called on shard thread th with the PG lock
 * held: CPU of the prepare, then the data aio; cont(th, op) runs when the
 * prepare is done (the caller then drops the PG lock).  The commit is
 * reported later through osd_txc_committed.
 */
void bluestore_queue_transaction(struct bluestore *bs, struct cpu_thread *th, struct osd_op *op,
                                 uint64_t data_bytes, cpu_item_fn cont);
/* A synchronous read of bytes on th (thread blocked); cont runs after. */
void bluestore_read(struct bluestore *bs, struct cpu_thread *th, struct osd_op *op, uint64_t bytes,
                    cpu_item_fn cont);

/* client.c */
void client_init(struct client *cl, struct cluster *c, uint32_t id, uint32_t host);
void client_fini(struct client *cl);
void client_start(struct client *cl);
/* Net delivery of the MOSDOpReply for rop (obj = rados_op) at the client. */
void client_reply_delivered(struct sim *s, void *rop, uint64_t arg);

/* The CPU cost of a stage including gathered logging. */
static inline double stage_cost(const struct cluster *c, double us)
{
    return us + c->log_cost_us;
}

#endif
