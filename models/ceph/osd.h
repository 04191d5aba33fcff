/*
 * osd.h - one OSD daemon: messenger workers, sharded op queue, PGs, the op path
 * (osd.c), its object store (store.h) and its backend (classic or Crimson).
 * The op path itself is private to osd.c; the cluster creates OSDs and
 * delivers client ops and commits through the functions below.
 */
#ifndef CEPHSIM_MODELS_CEPH_OSD_H
#define CEPHSIM_MODELS_CEPH_OSD_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "cpu.h"
#include "nvme.h"
#include "opinfo.h"
#include "optracker.h"
#include "perfcounters.h"
#include "queueing.h"
#include "store.h"

struct cluster;
struct osd;
struct rados_op;
struct obj_state;

/* OSD_EC_ROLLFORWARD: ECBackend's own log-only transaction (try_finish_rmw's
   dummy op), with no client op behind it */
enum osd_op_kind { OSD_CLIENT_OP, OSD_REPOP, OSD_EC_SUBREAD, OSD_EC_ROLLFORWARD };

struct osd_op {
    struct osd_op *next;     /* repop_queue */
    struct osd *osd;
    struct pg_local *pg;
    struct rados_op *rop;    /* client op: the request it serves */
    struct osd_op *primary_op; /* repop: the primary's op */
    struct obj_state *obj;
    struct op_flags flags;
    enum obj_lock_mode lock_mode, lock_held;
    uint32_t waiting_for_commit;
    bool committed, log_only, requeued, error;
    bool lock_granted;       /* crimson: the obc lock was handed over while queued */
    bool existed;            /* a write: the object existed before it (an EC stripe to read first) */
    bool ec_writes_issued;   /* EC: its shards' writes are out (they leave in PG order) */
    uint32_t ec_reads_left;  /* EC: shard reads not yet back (MOSDECSubOpReadReply) */
    uint32_t ec_chunk;       /* EC: bytes of each shard's part of the op's stripes */
    uint64_t ec_addr;        /* EC: store address of that part on every shard */
    int cls_result;          /* the class method's result (cls_exec), 0 for other ops */
    uint32_t bytes;          /* message data bytes */
    enum osd_op_kind kind;   /* here: fills the hole after bytes */
    sim_time_t t_recv, t_dequeue, t_started, t_subops, t_op_commit, t_last_sub_commit;
    sim_time_t t_rep[3];     /* primary: the latest-committing replica's initiated, started, commit_sent */
    struct store_txc txc;      /* the object store's transaction for this op */
    struct optrack_op track; /* last: op_new zeroes everything before track.ev_dt */
};

/* An OSD's local state of one PG. */
struct pg_local {
    uint32_t pgid;
    uint32_t shard;
    bool primary;
    struct mutexq lock;          /* PG::lock() */
    struct osd_op *repop_head, *repop_tail; /* in-order repop_queue (primary) */
    uint64_t version;
    struct store_seq seq;                   /* the store's OpSequencer: txcs not yet kv-queued */
    struct osd_op *rq_head, *rq_tail;       /* requeued ops ahead of newer ones (pg_slot to_process) */
};

struct osd {
    struct cluster *c;
    const struct osd_backend_ops *backend; /* classic or crimson */
    const struct pgbackend_ops *pgbackend; /* the pool's data path: replicated */
    uint32_t id, host;
    struct cpu_pool *msgr;          /* ms_async_op_threads pools of one thread */
    struct cpu_pool *shards;        /* osd_op_num_shards pools */
    struct cpu_pool *ms_local;      /* the cluster messenger's local delivery thread (DispatchQueue,
                                       "ms_local"): messages the OSD sends itself; NULL: none sent (a
                                       replicated pool) or none there (Crimson) */
    struct op_history_svc *history_svc; /* OpHistoryServiceThread ("OpHistorySvc"); NULL: the op tracker is
                                       off (osd_enable_op_tracker false) or the backend has no such thread */
    uint32_t n_msgr, n_shards;
    struct msgr_worker_perf *msgr_perf; /* per msgr worker (classic OSD; NULL for Crimson) */
    /* this end of its lossless connection to each peer OSD: open addressing
       by peer id (conn_peer UINT32_MAX = free), sized for its PGs' peers */
    struct msgr_conn *conns;
    uint32_t *conn_peer;
    uint32_t conn_mask;
    struct nvme_dev dev;
    const struct store_ops *store_ops;
    void *store;                    /* store_ops->create(...) */
    struct throttle client_msgs;    /* osd_client_message_cap / _size_cap */
    struct pg_local *pgs;           /* local PGs */
    uint32_t n_pgs;
    struct optracker tracker;
    struct osd_perf perf;
    uint32_t epoch;
};

/*
 * The OSD-implementation seam (classic OSD, Crimson): what differs between
 * them in the model, in the style of fio's ioengine_ops.  Adding a backend is
 * adding a file with its table and naming it in osd_backend_for.
 */
struct osd_backend_ops {
    const char *name;
    /* the object context lock: RWState (classic) or Crimson's FIFO tri_mutex */
    const struct rwlockq_policy *obj_lock_policy;
    /* messenger and op threads on the OSD's host (osd_init's share) */
    void (*init_threads)(struct osd *o, struct cpu_host *h, const struct ceph_options *opt);
    void (*fini_threads)(struct osd *o);
    /* its messenger delivers what the OSD sends itself on a thread of its own
       (AsyncMessenger's DispatchQueue: ms_local); false: through the messenger */
    bool local_delivery_thread;
    /* its OpTracker hands finished ops to a history thread of its own
       (OpHistoryServiceThread, "OpHistorySvc"); false: none modelled */
    bool op_history_thread;
};
extern const struct osd_backend_ops osd_backend_classic, osd_backend_crimson;

/* The backend a release runs: Crimson for "crimson", else the classic OSD. */
const struct osd_backend_ops *osd_backend_for(const struct release_traits *rel);

/* An OSD on host that will hold n_pgs PGs (added with osd_add_pg). */
void osd_init(struct osd *o, struct cluster *c, uint32_t id, uint32_t host, uint32_t n_pgs);
/* The OSD joins PG pg's acting set (as its primary or a replica); its local index. */
uint32_t osd_add_pg(struct osd *o, uint32_t pg, bool primary);
void osd_fini(struct osd *o);
void osd_reset_stats(struct osd *o);
/* Net delivery of a client's MOSDOp (obj = rados_op) at its primary. */
void osd_client_op_delivered(struct sim *s, void *rop, uint64_t arg);
/* o's messenger worker that reads client client_id's connection. */
struct cpu_pool *osd_client_worker(struct osd *o, uint32_t client_id);
/* This end of o's lossless connection to OSD peer (created on first use). */
struct msgr_conn *osd_conn(struct osd *o, uint32_t peer);
/* Commit callback of a transaction (store_env.committed: ctx is the osd, owner the op). */
void osd_txc_committed(void *osd, void *op);

#endif
