/*
 * osd-internal.h - the op path's shared pieces, for the files of one OSD:
 * osd.c (the op path), the PG backends (replicated.c, ec.c) and the object
 * classes (cls.c).  Private to models/ceph.
 */
#ifndef CEPHSIM_MODELS_CEPH_OSD_INTERNAL_H
#define CEPHSIM_MODELS_CEPH_OSD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster-internal.h"
#include "osd.h"

static inline struct cluster *op_cluster(const struct osd_op *op) { return op->osd->c; }
static inline struct sim *op_sim(const struct osd_op *op) { return op->osd->c->s; }

/* Record an op-tracker event on op now. */
void osd_track(struct osd_op *op, enum optrack_ev event);
/* An event of issue_repop's commit path (mark_sub_op_sent, op_commit, ...). */
void osd_track_commit_path(struct osd_op *op, enum optrack_ev event);
/* The msgr worker a connection to peer (an OSD id, or a client) is bound to. */
struct cpu_pool *osd_worker(struct osd *o, uint32_t peer);
/* The peer id of client.<id>'s connection. */
#define PEER_CLIENT(id) (1000000u + (id))
/* A new op of kind on o for PG pgid (from the cluster's op pool). */
struct osd_op *osd_op_new(struct osd *o, enum osd_op_kind kind, uint32_t pgid);
/* The op is finished: into the op tracker's history, back to the pool. */
void osd_op_done(struct osd_op *op);
/* Back to the pool without an op tracker record. */
void osd_op_free(struct osd_op *op);
/* OpHistory::insert: a finished op queued for the OSD's OpHistorySvc thread (none when the tracker is off). */
void osd_op_history_queue(struct osd_op *op);
/* The shard (thread pool) of op's PG. */
struct cpu_pool *osd_op_shard(const struct osd_op *op);
/* Take the PG lock for op on th; true = held now, else granted(th, op) later. */
bool osd_pg_lock(struct osd_op *op, struct cpu_thread *th, sim_event_fn granted);
/* Finish the item th is running for op: drop the PG lock, free the thread. */
void osd_op_item_end(struct osd_op *op, struct cpu_thread *th);
/* One of a write's commits is in (local or a shard's); on the last, eval_repop and reply. */
void osd_op_commit_one(struct sim *s, struct cpu_thread *th, struct osd_op *op);
/* The store took a transaction's prepare: the shard thread's item ends. */
void osd_op_local_submitted(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
/* The store extent of the op's object (store_txc.addr, len): reads and the primary's writes. */
void osd_op_set_extent(struct osd_op *op, uint64_t off, uint64_t len);

/*
 * The PG backend seam (PGBackend in Ceph: ReplicatedBackend, ECBackend): how
 * a primary's write reaches the PG's other shards and their commits come
 * back.  Adding a pool type is adding a file with its table (replicated.c is
 * the model) and choosing it in osd_init.
 */
struct pgbackend_ops {
    const char *name;
    /* a client read of op's extent (op->txc), on th with the PG and object
       locks held; it ends in osd_op_read_done on a thread holding the PG lock */
    void (*read)(struct osd_op *op, struct cpu_thread *th);
    /* issue_repop -> submit_transaction: a write (or log-only update) to every
       shard and the local store; on thread th with the PG lock held */
    void (*submit)(struct osd_op *op, struct cpu_thread *th);
    /* a non-primary shard's op committed locally (its PG lock held on th) */
    void (*shard_committed)(struct sim *s, struct cpu_thread *th, struct osd_op *rep);
    /* optional: a client write committed everywhere (eval_repop, op still in
       the repop queue); a new op of the backend's own to submit on the same
       thread, or NULL */
    struct osd_op *(*write_finished)(struct osd_op *op);
    /* its shards' writes count subop / subop_w on the shard */
    bool counts_subops;
    /* it sends the OSD messages to itself (its own shard's): the OSD needs its
       messenger's local delivery thread (osd_init) */
    bool sends_to_self;
};
extern const struct pgbackend_ops pgbackend_replicated, pgbackend_ec;

/* The pieces of the replicated path the erasure-coded one shares (replicated.c, osd.c). */
/* The read's reply to the client; releases the object and PG locks and th. */
void osd_op_read_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
/* ReplicatedBackend's read: the primary's own store. */
void pgbackend_read_local(struct osd_op *op, struct cpu_thread *th);
/* The write's object extent (op->txc) on the primary, copy-up included. */
void pgbackend_set_write_extent(struct osd_op *op);
/* One sub-write (MOSDRepOp / MOSDECSubOpWrite) of op to peer: bytes for the extent (addr, len). */
void pgbackend_send_subwrite(struct osd_op *op, struct osd *peer, uint32_t bytes, uint64_t addr, uint64_t len,
                             bool rollback);
/* The subops event, then the primary's local transaction of bytes; submitted ends the item. */
void pgbackend_local_write(struct osd_op *op, struct cpu_thread *th, uint32_t bytes, cpu_item_fn submitted);
/* issue_repop to the first n shards of the acting set (the primary writes locally). */
void pgbackend_replicate(struct osd_op *op, struct cpu_thread *th, uint32_t n);
/* A sub-write committed on its shard: MOSDRepOpReply / MOSDECSubOpWriteReply to the primary. */
void pgbackend_replica_committed(struct sim *s, struct cpu_thread *th, struct osd_op *rep);

#endif
