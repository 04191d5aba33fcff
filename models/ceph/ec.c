/*
 * ec.c - the erasure-coded pool's data path (pgbackend_ops "erasure"):
 * ECBackend in Ceph as it is through Reef (src/osd/ECBackend.cc,
 * ECTransaction.cc, ECUtil.h), for RBD's data pool (`rbd create --data-pool`,
 * allow_ec_overwrites).  A stripe is k chunks of stripe_unit bytes (the
 * profile's k, m, stripe_unit; osd_pool_erasure_code_stripe_unit 4096); shard
 * i of a PG is acting[i], the primary shard 0.
 *
 *  - write: ECTransaction::get_write_plan reads the stripes a write covers
 *    only in part ("reading partial head/tail stripe") when the object
 *    existed: a MOSDECSubOpRead of each stripe's chunk to every data shard
 *    (k of them, the primary's own through its local connection), each served
 *    under that shard's PG lock (handle_sub_read: a BlueStore read) and
 *    gathered on the primary (handle_sub_read_reply, PG lock).  Then
 *    generate_transactions encodes the stripes (ECUtil::encode) and every one
 *    of the k + m shards writes its chunk of them (MOSDECSubOpWrite, the
 *    primary's shard locally); the write commits when all k + m have
 *    (pending_commit), and replies as a replicated one does.  The pipeline
 *    keeps a PG's writes in order (waiting_state -> waiting_reads ->
 *    waiting_commit): a write whose stripe is read goes out after the ones
 *    queued before it.  Each shard's overwrite of an existing object also
 *    keeps the old chunks for rollback: generate_transactions touches the
 *    log entry's generation object and clone_ranges the overwritten extent
 *    into it (rollback_extents), which a later entry's roll-forward removes
 *    (PGBackend::trim): BlueStore's _do_clone_range (the blob becomes shared)
 *    and _do_remove, costed on the shard's transaction
 *    (cost.bluestore_ec_rollback_us, bluestore_ec_rollback_keys_per_txc).
 *    When a PG's pipeline drains, the primary sends every shard a log-only
 *    transaction to roll the log forward (try_finish_rmw's dummy op).
 *    Not modelled: the extent cache (ECExtentCache, which serves a stripe
 *    read from an in-flight write of the same stripe: rare for random I/O
 *    over large images), and Tentacle's partial writes and reads.
 *  - read: objects_read_async reads whole stripes (offset_len_to_stripe_bounds):
 *    a MOSDECSubOpRead to each data shard, the reply to the client when all
 *    k chunks are in.  The primary's own shard's read and its reply go through
 *    the loopback Connection: the OSD's ms_local thread, not the messenger's
 *    workers, and no msgr_recv_messages (tests/data/lab8: 1 + 2(k - 1)
 *    messages read per client read on a real cluster).
 *  - the image's header and object map live in the replicated pool RBD keeps
 *    beside an erasure data pool: their ops go to the first min(3, k + m)
 *    OSDs of the PG's acting set as a size-3 pool's would [simplification:
 *    the same PG's OSDs, not a pool of their own].
 */
#include <stdint.h>

#include "msgr.h"
#include "osd-internal.h"

#define EC_SUBREAD_BYTES 200 /* MOSDECSubOpRead: the shard's extents to read, attrs wanted [est] */
#define EC_META_SHARDS 3     /* the replicated pool of the image's metadata: osd_pool_default_size */

static bool is_data(const struct osd_op *op)
{
    const struct rados_op *r = op->rop;
    return r->obj != &r->img->header && r->obj != &r->img->map_obj;
}

/* The stripes [s0, s1) that the object extent [off, off + len) touches
   (ECUtil::stripe_info_t::offset_len_to_stripe_bounds), and where each
   shard's chunks of them lie in its store: the object's base address plus
   s0 / k (a shard holds stripe_unit bytes of every stripe). */
static void plan_stripes(struct osd_op *op, uint64_t base, uint64_t off, uint64_t len, uint64_t *s0, uint64_t *s1)
{
    const struct cluster_spec *sp = &op_cluster(op)->spec;
    uint64_t width = (uint64_t)sp->ec_k * sp->ec_stripe_unit;
    *s0 = off / width * width;
    *s1 = (off + len + width - 1) / width * width;
    op->ec_chunk = (uint32_t)((*s1 - *s0) / sp->ec_k);
    op->ec_addr = base + *s0 / sp->ec_k;
}

/* ---- shard reads (MOSDECSubOpRead / MOSDECSubOpReadReply) ---- */

static void ec_reads_done(struct sim *s, struct cpu_thread *th, struct osd_op *op);

static void reply_handled(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    SIM_ASSERT(op->ec_reads_left > 0);
    if (--op->ec_reads_left)
        osd_op_item_end(op, th);
    else
        ec_reads_done(s, th, op);
}

static void reply_locked(struct sim *s, struct cpu_thread *th, struct osd_op *op)
{
    const struct stage_costs *k = &op_cluster(op)->spec.cost;
    cpu_exec(th, stage_cost(op_cluster(op), k->osd_dequeue_us + k->osd_ec_sub_read_reply_us), reply_handled, op, 0);
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

static void reply_rx_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t shard_osd)
{
    struct osd_op *op = obj;
    struct cluster *c = op_cluster(op);
    /* the reply has the client op's priority: the normal class */
    cpu_pool_submit(osd_op_shard(op), CPU_PRIO_NORMAL, reply_shard_run, op, 0);
    if (shard_osd != op->osd->id) {
        struct osd *r = &c->osds[shard_osd];
        msgr_read_lossless(c, th->pool, osd_conn(op->osd, (uint32_t)shard_osd), op->osd->host, r->host,
                           osd_worker(r, op->osd->id));
    }
    cpu_thread_release(th);
}

static void reply_rx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t shard_osd)
{
    struct osd_op *op = obj;
    struct cluster *c = op_cluster(op);
    msgr_count_rx(c, th, REPLY_BYTES + op->ec_chunk);
    cpu_exec(th, msgr_rx_cost(c, REPLY_BYTES + op->ec_chunk) + stage_cost(c, c->spec.cost.osd_enqueue_us),
             reply_rx_done, op, shard_osd);
}

static void reply_delivered(struct sim *s, void *obj, uint64_t shard_osd)
{
    struct osd_op *op = obj;
    cpu_pool_submit(osd_worker(op->osd, (uint32_t)shard_osd), CPU_PRIO_NORMAL, reply_rx, op, shard_osd);
}

/* Send a message of op's PG from o to peer: the cluster network, or, for its
   own shard, the loopback Connection (OSDService::send_message_osd_cluster:
   get_loopback_connection): no socket and no acks, the Message handed to the
   ms_local thread as it is (DispatchQueue::local_delivery), which runs local_rx
   there; an OSD without one (Crimson) sends it through its messenger. */
static void send_to_shard(struct cluster *c, struct osd *o, struct osd *peer, uint32_t bytes, sim_event_fn delivered,
                          cpu_item_fn local_rx, void *obj, uint64_t arg)
{
    if (peer == o && o->ms_local)
        cpu_pool_submit(o->ms_local, CPU_PRIO_NORMAL, local_rx, obj, arg);
    else if (peer == o)
        msgr_send(c, osd_worker(o, o->id), NULL, o->host, o->host, bytes, delivered, obj, arg);
    else
        msgr_send_lossless(c, osd_worker(o, peer->id), MSGR_RX(c, osd_worker(peer, o->id)), osd_conn(o, peer->id),
                           o->host, peer->host, bytes, delivered, obj, arg);
}

/* The ms_local thread's share of a message an OSD sent itself: its dispatch and OSD::ms_fast_dispatch. */
static double local_rx_cost(struct cluster *c)
{
    return c->spec.cost.msgr_local_delivery_us + stage_cost(c, c->spec.cost.osd_enqueue_us);
}

static void reply_local_rx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t shard_osd)
{
    struct osd_op *op = obj;
    cpu_exec(th, local_rx_cost(op_cluster(op)), reply_rx_done, op, shard_osd);
}

/* handle_sub_read's BlueStore read is done: MOSDECSubOpReadReply with the chunk. */
static void subread_read(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *sub = obj;
    struct cluster *c = op_cluster(sub);
    struct osd_op *op = sub->primary_op;
    struct pg_local *pg = sub->pg;
    send_to_shard(c, sub->osd, op->osd, REPLY_BYTES + op->ec_chunk, reply_delivered, reply_local_rx, op,
                  sub->osd->id);
    osd_op_history_queue(sub); /* the MOSDECSubOpRead's OpRequest, tracked like any op */
    osd_op_free(sub);
    mutexq_release(&pg->lock, s);
    cpu_thread_release(th);
}

static void subread_exec(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *sub = obj;
    sub->osd->store_ops->read(sub->osd->store, th, &sub->txc, sub->bytes, subread_read);
}

static void subread_locked(struct sim *s, struct cpu_thread *th, struct osd_op *sub)
{
    const struct stage_costs *k = &op_cluster(sub)->spec.cost;
    cpu_exec(th, stage_cost(op_cluster(sub), k->osd_dequeue_us + k->osd_ec_sub_read_us), subread_exec, sub, 0);
}

static void subread_locked_ev(struct sim *s, void *th, uint64_t sub)
{
    subread_locked(s, th, (struct osd_op *)(uintptr_t)sub);
}

static void subread_shard_run(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *sub = obj;
    if (osd_pg_lock(sub, th, subread_locked_ev))
        subread_locked(s, th, sub);
}

static void subread_rx_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *sub = obj;
    struct cluster *c = op_cluster(sub);
    struct osd *p = sub->primary_op->osd;
    cpu_pool_submit(osd_op_shard(sub), CPU_PRIO_NORMAL, subread_shard_run, sub, 0);
    if (p != sub->osd)
        msgr_read_lossless(c, th->pool, osd_conn(sub->osd, p->id), sub->osd->host, p->host, osd_worker(p, sub->osd->id));
    cpu_thread_release(th);
}

static void subread_rx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *sub = obj;
    struct cluster *c = op_cluster(sub);
    msgr_count_rx(c, th, EC_SUBREAD_BYTES);
    cpu_exec(th, msgr_rx_cost(c, EC_SUBREAD_BYTES) + stage_cost(c, c->spec.cost.osd_enqueue_us), subread_rx_done,
             sub, 0);
}

static void subread_local_rx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *sub = obj;
    cpu_exec(th, local_rx_cost(op_cluster(sub)), subread_rx_done, sub, 0);
}

static void subread_delivered(struct sim *s, void *obj, uint64_t arg)
{
    struct osd_op *sub = obj;
    cpu_pool_submit(osd_worker(sub->osd, sub->primary_op->osd->id), CPU_PRIO_NORMAL, subread_rx, sub, 0);
}

/* ECBackend::start_read_op: the op's stripes from its k data shards; the
   item on th ends (the op waits without the PG lock). */
static void subreads_issued(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    struct cluster *c = op_cluster(op);
    const uint32_t *acting = cluster_acting(c, op->pg->pgid);
    for (uint32_t i = 0; i < c->spec.ec_k; i++) {
        struct osd *peer = &c->osds[acting[i]];
        struct osd_op *sub = osd_op_new(peer, OSD_EC_SUBREAD, op->pg->pgid);
        sub->primary_op = op;
        sub->obj = op->obj;
        sub->bytes = op->ec_chunk;
        sub->txc.addr = op->ec_addr;
        sub->txc.len = op->ec_chunk;
        sub->txc.cache_shard = op->txc.cache_shard;
        sub->txc.cached_extent = true;
        send_to_shard(c, op->osd, peer, EC_SUBREAD_BYTES, subread_delivered, subread_local_rx, sub, 0);
    }
    osd_op_item_end(op, th);
}

static void start_reads(struct osd_op *op, struct cpu_thread *th)
{
    struct cluster *c = op_cluster(op);
    op->ec_reads_left = c->spec.ec_k;
    cpu_exec(th, stage_cost(c, c->spec.cost.osd_issue_repop_us * c->spec.ec_k), subreads_issued, op, 0);
}

/* ---- writes ---- */

static void try_writes(struct sim *s, struct cpu_thread *th, struct pg_local *pg);

/* The primary's shard took its transaction: the next write of the PG may go. */
static void local_submitted(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    try_writes(s, th, op->pg);
}

/* generate_transactions done: every shard's chunk of the stripes, the
   primary's own through its store. */
static void writes_encoded(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    struct cluster *c = op_cluster(op);
    const uint32_t *acting = cluster_acting(c, op->pg->pgid);
    /* an object that existed is overwritten: every shard keeps the old chunks
       for rollback (ECTransaction's rollback_extents) */
    for (uint32_t i = 1; i < c->spec.pool_size; i++)
        pgbackend_send_subwrite(op, &c->osds[acting[i]], op->ec_chunk, op->ec_addr, op->ec_chunk, op->existed);
    op->txc.addr = op->ec_addr;
    op->txc.len = op->ec_chunk;
    op->txc.rollback = op->existed;
    pgbackend_local_write(op, th, op->ec_chunk, local_submitted);
}

/* try_reads_to_commit: the oldest write of the PG whose shards' writes are
   not out goes when its stripes are read; th holds the PG lock, and leaves
   it (with the thread) when none can go. */
static void try_writes(struct sim *s, struct cpu_thread *th, struct pg_local *pg)
{
    struct osd_op *q = pg->repop_head;
    while (q && q->ec_writes_issued)
        q = q->next;
    if (!q || q->ec_reads_left) {
        mutexq_release(&pg->lock, s);
        cpu_thread_release(th);
        return;
    }
    struct cluster *c = op_cluster(q);
    const struct stage_costs *k = &c->spec.cost;
    q->ec_writes_issued = true;
    double stripe_kib = (double)q->ec_chunk * c->spec.ec_k / 1024.0;
    double cost = k->osd_ec_encode_us_per_kib * stripe_kib + k->osd_issue_repop_us * (c->spec.pool_size - 1);
    cpu_exec(th, stage_cost(c, cost), writes_encoded, q, 0);
}

static void ec_reads_done(struct sim *s, struct cpu_thread *th, struct osd_op *op)
{
    if (op->kind == OSD_CLIENT_OP && !op->flags.may_write)
        osd_op_read_done(s, th, op, 0); /* the client read: its stripes are in */
    else
        try_writes(s, th, op->pg);
}

static void meta_issued(struct sim *s, struct cpu_thread *th, void *obj, uint64_t n)
{
    pgbackend_replicate(obj, th, (uint32_t)n);
}

/* ECBackend::try_finish_rmw: a write leaves the pipeline and none is left
   reading or committing (waiting_reads, waiting_commit empty) while its
   version is past the log's can_rollback_to: the primary submits "a dummy
   transaction to kick the rollforward", a log-only write to every shard
   (roll_forward_to = that version) with no log entry of its own.  A PG whose
   writes come one at a time pays one per write: k + m more shard
   transactions (tests/data/lab7: 6.0 BlueStore txcs per 4k write at QD=1 on
   k=2 m=1, 3.0 on size 3). */
static struct osd_op *ec_write_finished(struct osd_op *op)
{
    if (op->kind != OSD_CLIENT_OP || !is_data(op))
        return NULL;
    for (const struct osd_op *q = op->pg->repop_head; q; q = q->next)
        if (!q->committed && is_data(q))
            return NULL;
    struct osd_op *dummy = osd_op_new(op->osd, OSD_EC_ROLLFORWARD, op->pg->pgid);
    dummy->log_only = true;
    dummy->obj = op->obj;
    dummy->txc.cache_shard = op->txc.cache_shard;
    /* nop->reqid = op->reqid: its shard writes name the client op */
    dummy->track.client = op->track.client;
    dummy->track.tid = op->track.tid;
    dummy->track.object = op->track.object;
    dummy->track.image_id = op->track.image_id;
    dummy->track.objno = op->track.objno;
    dummy->track.pool = op->track.pool;
    dummy->track.pg_seed = op->track.pg_seed;
    return dummy;
}

static void ec_submit(struct osd_op *op, struct cpu_thread *th)
{
    struct cluster *c = op_cluster(op);
    const struct rados_op *r = op->rop;
    if (op->kind == OSD_EC_ROLLFORWARD) { /* try_reads_to_commit sends it at once */
        op->waiting_for_commit = c->spec.pool_size;
        cpu_exec(th, stage_cost(c, c->spec.cost.osd_issue_repop_us * (c->spec.pool_size - 1)), meta_issued, op,
                 c->spec.pool_size);
        return;
    }
    op->pg->version++;
    op->ec_writes_issued = true; /* until it is a data write below */
    if (!is_data(op) || op->log_only) {
        /* the metadata pool's replicas, or a log-only entry (every shard) */
        uint32_t n = is_data(op) ? c->spec.pool_size
                                 : c->spec.pool_size < EC_META_SHARDS ? c->spec.pool_size : EC_META_SHARDS;
        op->waiting_for_commit = n;
        cpu_exec(th, stage_cost(c, c->spec.cost.osd_issue_repop_us * (n - 1)), meta_issued, op, n);
        return;
    }
    op->waiting_for_commit = c->spec.pool_size;
    pgbackend_set_write_extent(op);
    uint64_t off = r->kind == RADOS_COPYUP ? 0 : r->off, s0, s1;
    plan_stripes(op, op->txc.addr - off, off, op->txc.len, &s0, &s1);
    op->ec_writes_issued = false;
    bool partial = s0 != off || s1 != off + op->txc.len;
    if (partial && op->existed) {
        start_reads(op, th);
        return;
    }
    op->ec_reads_left = 0;
    try_writes(op_sim(op), th, op->pg);
}

static void ec_read(struct osd_op *op, struct cpu_thread *th)
{
    if (!is_data(op)) {
        pgbackend_read_local(op, th);
        return;
    }
    uint64_t s0, s1;
    plan_stripes(op, op->txc.addr - op->rop->off, op->rop->off, op->rop->len, &s0, &s1);
    start_reads(op, th);
}

const struct pgbackend_ops pgbackend_ec = {
    .name = "erasure",
    .read = ec_read,
    .submit = ec_submit,
    .shard_committed = pgbackend_replica_committed,
    .write_finished = ec_write_finished,
    /* ECBackend::handle_sub_write counts no subop (tests/data/lab7: subop_w
       stays at the header's 14 while EC writes run) */
    .counts_subops = false,
    /* do_read_op's MOSDECSubOpRead to the primary's own shard, and its reply */
    .sends_to_self = true,
};
