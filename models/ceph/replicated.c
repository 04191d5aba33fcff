/*
 * replicated.c - the replicated pool's data path (pgbackend_ops "replicated"):
 * ReplicatedBackend in Ceph.
 *
 *  - primary: issue_repop -> ReplicatedBackend::submit_transaction: an
 *    MOSDRepOp to every replica of the acting set (osd_issue_repop_us each),
 *    then the local transaction; the write waits for the local commit and
 *    every replica's MOSDRepOpReply(ONDISK) (do_repop_reply: strict queue,
 *    PG lock, osd_repop_reply_us);
 *  - replica: MOSDRepOp received (msgr), queued (the normal class under wpq,
 *    "immediate" under mClock), do_repop under the PG lock (osd_do_repop_us),
 *    the local transaction, then repop_commit (osd_repop_commit_us) sends the
 *    reply; subop / subop_w perf counters, except for log-only updates.
 */
#include <stdint.h>

#include "msgr.h"
#include "osd-internal.h"

#define REPOP_EXTRA_BYTES 900  /* MOSDRepOp: txn encoding, OI/SnapSet attrs, log entry [est] */

static void op_repops_issued(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);

static void replicated_submit(struct osd_op *op, struct cpu_thread *th);
static void reply_handled(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
static void reply_locked(struct sim *s, struct cpu_thread *th, struct osd_op *op);
static void reply_locked_ev(struct sim *s, void *th, uint64_t op);
static void reply_shard_run(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
static void reply_rx_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
static void reply_rx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
static void osd_repop_reply_delivered(struct sim *s, void *obj, uint64_t replica);
static void rep_committed(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
static void rep_prepared(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
static void rep_locked(struct sim *s, struct cpu_thread *th, struct osd_op *rep);
static void rep_locked_ev(struct sim *s, void *th, uint64_t rep);
static void rep_shard_run(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
static void rep_rx_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
static void rep_rx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
static void osd_repop_delivered(struct sim *s, void *obj, uint64_t arg);

/* One MOSDRepOp (or ECBackend's MOSDECSubOpWrite) of op's write to peer: bytes
   of data for the store extent (addr, len) on the peer's device. */
void pgbackend_send_subwrite(struct osd_op *op, struct osd *peer, uint32_t bytes, uint64_t addr, uint64_t len,
                             bool rollback)
{
    struct cluster *c = op_cluster(op);
    struct osd *o = op->osd;
    struct osd_op *rep = osd_op_new(peer, OSD_REPOP, op->pg->pgid);
    rep->primary_op = op;
    rep->obj = op->obj;
    /* the same object bytes on the replica's device (where its deferred
       write lands); its data cache serves no reads */
    rep->txc.addr = addr;
    rep->txc.len = len;
    /* an erasure shard serves reads of its chunks: its writes drop them from its cache */
    rep->txc.cache_shard = op->txc.cache_shard;
    rep->txc.cached_extent = c->spec.pool_erasure && op->txc.cached_extent;
    rep->txc.rollback = rollback && !op->log_only;
    rep->log_only = op->log_only;
    rep->bytes = op->log_only ? 0 : bytes;
    rep->track = (struct optrack_op){.kind = OPTRACK_OSD_REPOP, .subops = op->track.subops,
                                     .object = op->track.object, .client = op->track.client,
                                     .tid = op->track.tid, .pool = op->track.pool,
                                     .pg_seed = op->track.pg_seed, .image_id = op->track.image_id,
                                     .objno = op->track.objno, .epoch = peer->epoch,
                                     .version = op->pg->version};
    msgr_send_lossless(c, osd_worker(o, peer->id), MSGR_RX(c, osd_worker(peer, o->id)), osd_conn(o, peer->id), o->host,
                       peer->host, rep->bytes + REPOP_EXTRA_BYTES, osd_repop_delivered, rep, 0);
}

/* The write's object extent on the primary: the cache drops (or, buffered,
   keeps) what it covers on the primary, the only OSD that serves reads of it. */
void pgbackend_set_write_extent(struct osd_op *op)
{
    const struct rados_op *r = op->rop;
    if (!op->log_only && r->obj != &r->img->header && r->obj != &r->img->map_obj) {
        if (r->kind == RADOS_COPYUP) /* the parent's data from offset 0, and the write */
            osd_op_set_extent(op, 0, r->copyup_bytes > r->off + r->len ? r->copyup_bytes : r->off + r->len);
        else
            osd_op_set_extent(op, r->off, r->len);
    }
}

/* The PG's subops event once its writes are on their way ("waiting for
   subops from 1,2"), then the local transaction. */
void pgbackend_local_write(struct osd_op *op, struct cpu_thread *th, uint32_t bytes, cpu_item_fn submitted)
{
    struct cluster *c = op_cluster(op);
    struct sim *s = op_sim(op);
    if (c->spec.pool_size > 1) { /* mark_sub_op_sent only when there are replicas */
        op->track.own_name = cluster_subops_event(c, op->pg->pgid);
        osd_track_commit_path(op, OPTRACK_EV_OWN);
    }
    op->t_subops = sim_now(s);
    if (op->rop)
        op->rop->t_subops = op->t_subops;
    op->osd->store_ops->queue_transaction(op->osd->store, th, &op->txc, &op->pg->seq, op->log_only ? 0 : bytes,
                                          submitted);
}

/* issue_repop: MOSDRepOp to each of the first n shards but the primary, then
   the local transaction. */
void pgbackend_replicate(struct osd_op *op, struct cpu_thread *th, uint32_t n)
{
    struct cluster *c = op_cluster(op);
    const uint32_t *acting = cluster_acting(c, op->pg->pgid);
    pgbackend_set_write_extent(op);
    for (uint32_t k = 1; k < n; k++)
        pgbackend_send_subwrite(op, &c->osds[acting[k]], op->bytes, op->txc.addr, op->txc.len, false);
    pgbackend_local_write(op, th, op->bytes, osd_op_local_submitted);
}

static void op_repops_issued(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    pgbackend_replicate(obj, th, op_cluster(obj)->spec.pool_size);
}


static void replicated_submit(struct osd_op *op, struct cpu_thread *th)
{
    struct cluster *c = op_cluster(op);
    op->pg->version++;
    op->waiting_for_commit = c->spec.pool_size;
    double cost = c->spec.cost.osd_issue_repop_us * (c->spec.pool_size - 1);
    cpu_exec(th, stage_cost(c, cost), op_repops_issued, op, 0);
}

static void reply_handled(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    osd_track_commit_path(op, OPTRACK_EV_SUB_OP_COMMIT_REC);
    op->t_last_sub_commit = sim_now(s);
    osd_op_commit_one(s, th, op);
}

static void reply_locked(struct sim *s, struct cpu_thread *th, struct osd_op *op)
{
    struct cluster *c = op_cluster(op);
    cpu_exec(th, stage_cost(c, c->spec.cost.osd_dequeue_us + c->spec.cost.osd_repop_reply_us),
             reply_handled, op, 0);
}

static void reply_locked_ev(struct sim *s, void *th, uint64_t op)
{
    reply_locked(s, th, (struct osd_op *)(uintptr_t)op);
}

static void reply_shard_run(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    if (osd_pg_lock(op, th, reply_locked_ev))
        reply_locked(s, th, op);
}

static void reply_rx_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t replica)
{
    struct osd_op *op = obj;
    struct cluster *c = op_cluster(op);
    struct osd *r = &c->osds[replica];
    /* MOSDRepOpReply has CEPH_MSG_PRIO_HIGH: strict queue under wpq and mClock */
    cpu_pool_submit(osd_op_shard(op), CPU_PRIO_HIGH, reply_shard_run, op, 0);
    msgr_read_lossless(c, th->pool, osd_conn(op->osd, (uint32_t)replica), op->osd->host, r->host,
                       osd_worker(r, op->osd->id));
    cpu_thread_release(th);
}

static void reply_rx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    struct cluster *c = op_cluster(op);
    msgr_count_rx(c, th, REPLY_BYTES);
    cpu_exec(th, msgr_rx_cost(c, REPLY_BYTES) + stage_cost(c, c->spec.cost.osd_enqueue_us),
             reply_rx_done, op, arg);
}

static void osd_repop_reply_delivered(struct sim *s, void *obj, uint64_t replica)
{
    struct osd_op *op = obj;
    cpu_pool_submit(osd_worker(op->osd, (uint32_t)replica), CPU_PRIO_NORMAL, reply_rx, op, replica);
}

static void rep_committed(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *rep = obj;
    struct cluster *c = op_cluster(rep);
    struct osd *o = rep->osd;
    struct osd_op *primary = rep->primary_op;
    struct pg_local *pg = rep->pg;
    /* the replica's milestones travel back with its reply (for the waterfall);
       the last replica to commit overwrites the earlier ones */
    primary->t_rep[0] = rep->t_recv;
    primary->t_rep[1] = rep->t_dequeue;
    primary->t_rep[2] = sim_now(s);
    /* ReplicatedBackend::repop_commit: MOSDRepOpReply(ONDISK) to the primary */
    msgr_send_lossless(c, osd_worker(o, primary->osd->id), MSGR_RX(c, osd_worker(primary->osd, o->id)),
                       osd_conn(o, primary->osd->id), o->host, primary->osd->host, REPLY_BYTES,
                       osd_repop_reply_delivered, primary, o->id);
    /* a log-only update (MOSDPGUpdateLogMissing) is no subop, and the
       backend says whether its shard writes are (counts_subops) */
    if (!rep->log_only && o->pgbackend->counts_subops) {
        sim_time_t lat = sim_now(s) - rep->t_recv;
        o->perf.subop++;
        o->perf.subop_in_bytes += rep->bytes;
        lat_sum_add(&o->perf.subop_latency, lat);
        o->perf.subop_w++;
        o->perf.subop_w_in_bytes += rep->bytes;
        lat_sum_add(&o->perf.subop_w_latency, lat);
    }
    osd_track(rep, OPTRACK_EV_COMMIT_SENT);
    osd_op_done(rep);
    mutexq_release(&pg->lock, s);
    cpu_thread_release(th);
}

static void rep_prepared(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *rep = obj;
    rep->osd->store_ops->queue_transaction(rep->osd->store, th, &rep->txc, &rep->pg->seq,
                                           rep->log_only ? 0 : rep->bytes, osd_op_local_submitted);
}

static void rep_locked(struct sim *s, struct cpu_thread *th, struct osd_op *rep)
{
    struct cluster *c = op_cluster(rep);
    osd_track(rep, OPTRACK_EV_REACHED_PG);
    osd_track(rep, OPTRACK_EV_STARTED);
    rep->t_dequeue = sim_now(s);
    cpu_exec(th, stage_cost(c, c->spec.cost.osd_dequeue_us + c->spec.cost.osd_do_repop_us),
             rep_prepared, rep, 0);
}

static void rep_locked_ev(struct sim *s, void *th, uint64_t rep)
{
    rep_locked(s, th, (struct osd_op *)(uintptr_t)rep);
}

static void rep_shard_run(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *rep = obj;
    if (osd_pg_lock(rep, th, rep_locked_ev))
        rep_locked(s, th, rep);
}

static void rep_rx_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *rep = obj;
    struct cluster *c = op_cluster(rep);
    osd_track(rep, OPTRACK_EV_ALL_READ);
    osd_track(rep, OPTRACK_EV_DISPATCHED);
    osd_track(rep, OPTRACK_EV_QUEUED_FOR_PG);
    /* MOSDRepOp: the normal class under wpq, "immediate" (strict) under mClock */
    enum cpu_prio prio = c->spec.ceph.osd_op_queue == OSD_OP_QUEUE_MCLOCK ? CPU_PRIO_HIGH : CPU_PRIO_NORMAL;
    cpu_pool_submit(osd_op_shard(rep), prio, rep_shard_run, rep, 0);
    struct osd *p = rep->primary_op->osd;
    msgr_read_lossless(c, th->pool, osd_conn(rep->osd, p->id), rep->osd->host, p->host, osd_worker(p, rep->osd->id));
    cpu_thread_release(th);
}

static void rep_rx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *rep = obj;
    struct cluster *c = op_cluster(rep);
    rep->t_recv = sim_now(s);
    osd_track(rep, OPTRACK_EV_INITIATED);
    osd_track(rep, OPTRACK_EV_THROTTLED);
    osd_track(rep, OPTRACK_EV_HEADER_READ);
    msgr_count_rx(c, th, rep->bytes + REPOP_EXTRA_BYTES);
    cpu_exec(th, msgr_rx_cost(c, rep->bytes + REPOP_EXTRA_BYTES) + stage_cost(c, c->spec.cost.osd_enqueue_us),
             rep_rx_done, rep, 0);
}

static void osd_repop_delivered(struct sim *s, void *obj, uint64_t arg)
{
    struct osd_op *rep = obj;
    cpu_pool_submit(osd_worker(rep->osd, rep->primary_op->osd->id), CPU_PRIO_NORMAL, rep_rx, rep, 0);
}

/* C_OSD_RepModifyCommit on the replica's shard thread 0 */
void pgbackend_replica_committed(struct sim *s, struct cpu_thread *th, struct osd_op *rep)
{
    struct cluster *c = op_cluster(rep);
    cpu_exec(th, stage_cost(c, c->spec.cost.osd_repop_commit_us), rep_committed, rep, 0);
}

const struct pgbackend_ops pgbackend_replicated = {
    .name = "replicated",
    .submit = replicated_submit,
    .read = pgbackend_read_local,
    .shard_committed = pgbackend_replica_committed,
    .counts_subops = true, /* ReplicatedBackend::do_repop's l_osd_subop, l_osd_subop_w */
};
