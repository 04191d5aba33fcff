/*
 * osd.c - the classic OSD's op path for replicated pools (primary and replica).
 *
 * Mirrors, stage by stage (ceph-model.md section 3):
 *  - AsyncMessenger: ms_async_op_threads workers (default 3); each connection
 *    is bound to one worker; the sender encodes in its own thread and the
 *    worker writes the socket (ProtocolV2::send_message/write_message); the
 *    receiver's worker reads, crc-checks (ms_crc_data) and fast-dispatches
 *    (OSD::ms_fast_dispatch) under the policy throttle
 *    (osd_client_message_cap 256, osd_client_message_size_cap 500 MiB).
 *  - OSD::ShardedOpWQ: osd_op_num_shards_ssd (8) x
 *    osd_op_num_threads_per_shard_ssd (2); PG -> shard by pgid; client ops in
 *    the normal class, replies (CEPH_MSG_PRIO_HIGH >= osd_op_queue_cut_off) in
 *    the strict class, rep ops too under mClock ("immediate"); requeued ops at
 *    the front (_enqueue_front); commit callbacks only on thread 0 of a shard,
 *    after the item it is running (_process / handle_oncommits).
 *  - PG::lock() held across do_request/do_op/execute_ctx/issue_repop/BlueStore
 *    prepare, and for each commit callback and replica reply.
 *  - PrimaryLogPG::do_op -> get_rw_locks (opinfo.c) with RWState semantics:
 *    on refusal "waiting for rw locks", the op parks on the object context;
 *    on the last release all waiters are requeued to the front and re-run
 *    do_op (osd_redispatch_us each), possibly parking again.
 *  - execute_ctx -> issue_repop -> ReplicatedBackend::submit_transaction:
 *    MOSDRepOp to every replica, then the local BlueStore transaction;
 *    reply (eval_repop: log_op_stats, MOSDOpReply, "commit_sent") only when
 *    the local commit and every replica's MOSDRepOpReply(ONDISK) are in; the
 *    object lock is released in remove_repop, in repop_queue order.
 *  - a guarded write to a missing object (-ENOENT): record_write_error's
 *    replicated log-only update; the object lock is released at once.
 *  - replica: do_repop -> BlueStore -> repop_commit (MOSDRepOpReply).
 * Simplifications: no peering, recovery, scrub, snap trim or backoff; the
 * obc cache always hits; TCP ACKs are ignored (the messenger's AckFrames are
 * msgr.c's).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "osd.h"
#include "osd-internal.h"

#include "cluster-internal.h"
#include "err.h"
#include "librbd.h"
#include "msgr.h"
#include "bluestore.h"



void osd_track(struct osd_op *op, enum optrack_ev event)
{
    if (op->osd->c->spec.ceph.osd_enable_op_tracker)
        optrack_mark_ev(&op->track, event, sim_now(op_sim(op)));
}

/* An event of issue_repop's commit path (mark_sub_op_sent, op_commit,
   sub_op_commit_rec, commit_sent): record_write_error's log-only update
   (MOSDPGUpdateLogMissing) marks none of them. */
void osd_track_commit_path(struct osd_op *op, enum optrack_ev event)
{
    if (!op->error)
        osd_track(op, event);
}

/* The worker a connection to peer is bound to (one connection per peer). */
struct cpu_pool *osd_worker(struct osd *o, uint32_t peer)
{
    return &o->msgr[peer % o->n_msgr];
}

struct cpu_pool *osd_client_worker(struct osd *o, uint32_t client_id)
{
    return osd_worker(o, PEER_CLIENT(client_id));
}

/* ---- op lifetime ---- */

struct osd_op *osd_op_new(struct osd *o, enum osd_op_kind kind, uint32_t pgid)
{
    /* the op tracker's event array is filled as events come: zero the rest */
    struct osd_op *op = pool_get_raw(&o->c->op_pool);
    memset(op, 0, offsetof(struct osd_op, track) + offsetof(struct optrack_op, ev_dt));
    op->kind = kind;
    op->osd = o;
    op->pg = &o->pgs[cluster_pg_local(o->c, pgid, o->id)];
    op->txc.owner = op;
    return op;
}

/* ---- the OpTracker's history thread ----
 *
 * OpTracker::unregister_inflight_op (src/common/TrackedOp.cc) hands every
 * finished op to OpHistory::insert, which queues it for
 * OpHistoryServiceThread::entry: a loop that swaps the queue out and, when
 * it was empty, usleep()s sleep_time (1 ms, x4 after each empty look while
 * below 128 ms: 1, 4, 16, 64, 256 ms), and otherwise resets sleep_time to
 * 1 ms and runs _insert_delayed on each op (the history's sets, cleanup of
 * the op it pushes out, and that op's teardown).  Under load it wakes about
 * once per millisecond, whatever the op rate.  With osd_enable_op_tracker
 * off, unregister_inflight_op deletes the op in place and the thread has no
 * work (it is not made here).  The same loop from 12.2 to 19.2. */
struct op_history_svc {
    struct cpu_pool thread;
    const struct stage_costs *cost;
    uint64_t queued;            /* finished ops in _external_queue */
    uint64_t queued_writes;     /* of them, ops that wrote */
    sim_time_t sleep_ns;        /* sleep_time */
};

/* Linux's default timer slack of a SCHED_OTHER thread (init_task's timer_slack_ns, 50 us;
   prctl PR_GET_TIMERSLACK): a usleep's timer may fire up to this much late; the model
   takes all of it */
#define USLEEP_SLACK_NS (50 * SIM_NS_PER_US)
#define OP_HISTORY_SLEEP_MIN_NS SIM_NS_PER_MS
#define OP_HISTORY_SLEEP_GROW_BELOW_NS (128 * SIM_NS_PER_MS)

static void op_history_look(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);

static void op_history_usleep_done(struct sim *s, void *obj, uint64_t arg)
{
    struct op_history_svc *h = obj;
    cpu_pool_submit(&h->thread, CPU_PRIO_NORMAL, op_history_look, h, 0);
}

/* internal_queue.swap(_external_queue), then usleep or _insert_delayed each op. */
static void op_history_look(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct op_history_svc *h = obj;
    if (h->queued == 0) {
        sim_schedule(s, h->sleep_ns + USLEEP_SLACK_NS, op_history_usleep_done, h, 0);
        if (h->sleep_ns < OP_HISTORY_SLEEP_GROW_BELOW_NS)
            h->sleep_ns <<= 2;
        cpu_thread_release(th);
        return;
    }
    const struct stage_costs *k = h->cost;
    double us = (double)h->queued * k->osd_op_history_insert_us + (double)h->queued_writes * k->osd_op_history_write_us;
    h->queued = h->queued_writes = 0;
    h->sleep_ns = OP_HISTORY_SLEEP_MIN_NS;
    cpu_exec(th, us, op_history_look, h, 0); /* then look again, without sleeping */
}

static void op_history_start(struct osd *o, struct cpu_host *host)
{
    struct op_history_svc *h = sim_xcalloc(1, sizeof *h);
    cpu_pool_init(&h->thread, host, "OpHistorySvc", 1);
    h->cost = &o->c->spec.cost;
    h->sleep_ns = OP_HISTORY_SLEEP_MIN_NS;
    o->history_svc = h;
    /* the thread's first look, at the start (an empty queue: it sleeps) */
    cpu_pool_submit(&h->thread, CPU_PRIO_NORMAL, op_history_look, h, 0);
}

static void op_history_stop(struct osd *o)
{
    if (!o->history_svc)
        return;
    cpu_pool_fini(&o->history_svc->thread);
    free(o->history_svc);
    o->history_svc = NULL;
}

void osd_op_done(struct osd_op *op)
{
    osd_track(op, OPTRACK_EV_DONE);
    struct osd *o = op->osd;
    if (o->c->spec.ceph.osd_enable_op_tracker && o->c->measuring)
        optracker_finish(&o->tracker, &op->track);
    osd_op_history_queue(op);
    osd_op_free(op); /* nothing left to free if the history took it */
}

void osd_op_history_queue(struct osd_op *op)
{
    struct op_history_svc *h = op->osd->history_svc;
    if (!h)
        return;
    h->queued++;
    if (op->kind == OSD_REPOP || op->flags.may_write)
        h->queued_writes++;
}

void osd_op_free(struct osd_op *op)
{
    optrack_release(&op->track);
    pool_put(&op->osd->c->op_pool, op);
}

struct cpu_pool *osd_op_shard(const struct osd_op *op)
{
    return &op->osd->shards[op->pg->shard];
}

/* Take the PG lock for op on th; true = held now, else granted(th, op) later. */
bool osd_pg_lock(struct osd_op *op, struct cpu_thread *th, sim_event_fn granted)
{
    return mutexq_acquire(&op->pg->lock, op_sim(op), granted, th, (uint64_t)(uintptr_t)op);
}

static void pg_unlock(struct osd_op *op)
{
    mutexq_release(&op->pg->lock, op_sim(op));
}

/* Finish the item th is running for op: drop the PG lock, free the thread. */
void osd_op_item_end(struct osd_op *op, struct cpu_thread *th)
{
    pg_unlock(op);
    cpu_thread_release(th);
}

static void perf_class_add(struct perf_op_class *pc, const struct osd_op *op, sim_time_t now,
                           bool in, bool out)
{
    pc->count++;
    /* log_op_stats: inb = the request's data (a copy-up's parent data included) */
    if (in)
        pc->in_bytes += op->bytes;
    if (out)
        pc->out_bytes += op->rop->len;
    lat_sum_add(&pc->latency, now - op->t_recv);
    lat_sum_add(&pc->process_latency, now - op->t_dequeue);
}

/* PrimaryLogPG::log_op_stats */
static void log_op_stats(struct osd_op *op)
{
    struct osd_perf *p = &op->osd->perf;
    sim_time_t now = sim_now(op_sim(op));
    bool is_write = op->flags.may_write, is_read = op->flags.may_read;
    perf_class_add(&p->op, op, now, is_write, is_read && !is_write);
    switch (opinfo_perf_class(&op->flags)) {
    case PERF_CLASS_RW: perf_class_add(&p->op_rw, op, now, true, false); break;
    case PERF_CLASS_R: perf_class_add(&p->op_r, op, now, false, true); break;
    case PERF_CLASS_W: perf_class_add(&p->op_w, op, now, true, false); break;
    }
}

static void log_prepare_stats(struct osd_op *op)
{
    struct osd_perf *p = &op->osd->perf;
    sim_time_t d = sim_now(op_sim(op)) - op->t_dequeue;
    lat_sum_add(&p->op.prepare_latency, d);
    switch (opinfo_perf_class(&op->flags)) {
    case PERF_CLASS_RW: lat_sum_add(&p->op_rw.prepare_latency, d); break;
    case PERF_CLASS_R: lat_sum_add(&p->op_r.prepare_latency, d); break;
    case PERF_CLASS_W: lat_sum_add(&p->op_w.prepare_latency, d); break;
    }
}

/* ---- primary: receive and queue ---- */

static void op_shard_run(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);

static void op_rx_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    osd_track(op, OPTRACK_EV_ALL_READ);
    osd_track(op, OPTRACK_EV_DISPATCHED);
    osd_track(op, OPTRACK_EV_QUEUED_FOR_PG);
    lat_sum_add(&op->osd->perf.op_before_queue_op_lat, sim_now(s) - op->t_recv);
    cpu_pool_submit(osd_op_shard(op), CPU_PRIO_NORMAL, op_shard_run, op, 0);
    cpu_thread_release(th);
}

/* The policy throttle let the message in: read the rest, crc, decode, dispatch.
   Event order as Pacific's msgr2 records it: initiated, throttled, header_read. */
static void op_rx_throttled(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    struct cluster *c = op_cluster(op);
    op->t_recv = sim_now(s);
    op->rop->t_initiated = op->t_recv;
    osd_track(op, OPTRACK_EV_INITIATED);
    osd_track(op, OPTRACK_EV_THROTTLED);
    osd_track(op, OPTRACK_EV_HEADER_READ);
    double cost = msgr_rx_cost(c, op->bytes + MSG_HEADER_BYTES) + stage_cost(c, c->spec.cost.osd_enqueue_us);
    msgr_count_rx(c, th, op->bytes + MSG_HEADER_BYTES);
    cpu_exec(th, cost, op_rx_done, op, 0);
}

/* Throttle::get_or_fail succeeding on both message throttles (now, or on the retry after room
   was freed), and the gauges after it. */
static void count_throttle_get(struct osd *o, uint64_t bytes)
{
    struct perf_throttle *m = &o->perf.client_messages, *b = &o->perf.client_bytes;
    m->get_or_fail_success++, m->get++, m->get_sum++;
    b->get_or_fail_success++, b->get++, b->get_sum += bytes;
    m->val = o->client_msgs.ops;
    b->val = o->client_msgs.bytes;
}

/* Throttle::put on both, when the reply is sent. */
static void count_throttle_put(struct osd *o, uint64_t bytes)
{
    struct perf_throttle *m = &o->perf.client_messages, *b = &o->perf.client_bytes;
    m->put++, m->put_sum++;
    b->put++, b->put_sum += bytes;
    m->val = o->client_msgs.ops;
    b->val = o->client_msgs.bytes;
}

/* Throttle room freed: the connection's worker resumes reading the message. */
static void op_throttle_granted(struct sim *s, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    count_throttle_get(op->osd, op->bytes + MSG_HEADER_BYTES);
    cpu_pool_submit(osd_worker(op->osd, PEER_CLIENT(op->rop->cl->id)), CPU_PRIO_NORMAL, op_rx_throttled, op, 0);
}

/* ProtocolV2 read the preamble: throttle_message / throttle_bytes
   (osd_client_message_cap, osd_client_message_size_cap).  When full, the
   connection stops reading; the worker serves its other connections. */
static void op_rx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    struct osd *o = op->osd;
    uint64_t ops_before = o->client_msgs.ops;
    if (throttle_get(&o->client_msgs, s, op->bytes + MSG_HEADER_BYTES, op_throttle_granted, op, 0)) {
        count_throttle_get(o, op->bytes + MSG_HEADER_BYTES);
        op_rx_throttled(s, th, op, 0);
        return;
    }
    /* the get_or_fail that failed: the message cap's when it is full, else the bytes cap's */
    if (o->client_msgs.max_ops && ops_before >= o->client_msgs.max_ops)
        o->perf.client_messages.get_or_fail_fail++;
    else
        o->perf.client_bytes.get_or_fail_fail++;
    cpu_thread_release(th);
}

void osd_client_op_delivered(struct sim *s, void *obj, uint64_t arg)
{
    struct rados_op *rop = obj;
    struct cluster *c = rop->cl->c;
    struct osd *o = &c->osds[rop->primary];
    struct osd_op *op = osd_op_new(o, OSD_CLIENT_OP, rop->obj->pg);
    op->rop = rop;
    op->obj = rop->obj;
    op->flags = opinfo_classify(rop->subops);
    op->lock_mode = opinfo_lock_mode(&op->flags, c->lock_rule);
    bool carries_data = rop->subops & (SUBOP_WRITE | SUBOP_WRITEFULL | SUBOP_WRITE_MUST_EXIST);
    op->bytes = carries_data ? (uint32_t)rop->len : 0;
    if (rop->kind == RADOS_COPYUP)
        op->bytes = (uint32_t)(rop->copyup_bytes + rop->len + rop->copyup_extra);
    struct optrack_op *t = &op->track;
    t->kind = OPTRACK_OSD_OP;
    /* descriptions as a fresh cluster prints them: global ids in the low
       thousands (client.4835 in the lab captures), the first pool after .mgr is 2 */
    t->client = 4100 + rop->cl->id;
    t->tid = rop->tid;
    t->pool = 2;
    t->pg_seed = rop->obj->pg;
    t->image_id = rop->img->spec.id;
    t->objno = rop->objno;
    bool map_update = rop->kind == RADOS_MAP_UPDATE;
    t->subops = (rop->subops & SUBOP_STAT ? OPTRACK_STAT : 0) |
                (rop->subops & SUBOP_CALL_RDWR ? (map_update ? OPTRACK_CALL_OBJECT_MAP_UPDATE : OPTRACK_CALL_COPYUP) : 0) |
                (rop->subops & SUBOP_SETALLOCHINT ? OPTRACK_ALLOC_HINT : 0) |
                (rop->subops & (SUBOP_WRITE | SUBOP_WRITE_MUST_EXIST) ? OPTRACK_WRITE : 0) |
                (rop->subops & SUBOP_WRITEFULL ? OPTRACK_WRITEFULL : 0) |
                (rop->subops & SUBOP_READ ? OPTRACK_READ : 0) |
                (rop->subops & SUBOP_CMPEXT ? OPTRACK_CMPEXT : 0);
    if (rop->track_subops) /* the lock and watch ops say how they print */
        t->subops = rop->track_subops;
    t->object = rop->track_object;
    t->off = rop->off;
    t->len = rop->len;
    if (rop->kind == RADOS_COPYUP) /* the writes that rode along (CopyupRequest pending requests) */
        for (const struct rados_op *w = rop->cobj->copyup_waiters; w && t->n_more < OPTRACK_MORE_WRITES; w = w->next)
            optrack_add_write(t, (uint32_t)w->off, (uint32_t)w->len);
    t->epoch = o->epoch;
    cpu_pool_submit(osd_worker(o, PEER_CLIENT(rop->cl->id)), CPU_PRIO_NORMAL, op_rx, op, 0);
}

/* ---- primary: do_op ---- */

static void op_do_op(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);

static void rq_push(struct pg_local *pg, struct osd_op *op)
{
    op->next = NULL;
    if (pg->rq_tail)
        pg->rq_tail->next = op;
    else
        pg->rq_head = op;
    pg->rq_tail = op;
}

static struct osd_op *rq_pop(struct pg_local *pg)
{
    struct osd_op *op = pg->rq_head;
    if (op) {
        pg->rq_head = op->next;
        if (!pg->rq_head)
            pg->rq_tail = NULL;
        op->next = NULL;
    }
    return op;
}

static void op_pg_locked(struct sim *s, struct cpu_thread *th, struct osd_op *op)
{
    struct cluster *c = op_cluster(op);
    if (!op->requeued && op->pg->rq_head) {
        /* _process runs pg_slot->to_process.front() once it holds the PG
           lock: requeued ops go before this newer one, which takes their
           place at the back (each queued entry keeps one token in the shard) */
        struct osd_op *w = rq_pop(op->pg);
        rq_push(op->pg, op);
        op->requeued = true;
        op = w;
    }
    op->requeued = false;
    osd_track(op, OPTRACK_EV_REACHED_PG);
    double cost;
    if (!op->t_dequeue) {
        op->t_dequeue = sim_now(s);
        op->rop->t_reached = op->t_dequeue;
        lat_sum_add(&op->osd->perf.op_before_dequeue_op_lat, op->t_dequeue - op->t_recv);
        cost = c->spec.cost.osd_dequeue_us + c->spec.cost.osd_do_op_us;
    } else {
        cost = c->spec.cost.osd_dequeue_us + c->spec.cost.osd_redispatch_us;
    }
    cpu_exec(th, stage_cost(c, cost), op_do_op, op, 0);
}

static void op_pg_locked_ev(struct sim *s, void *th, uint64_t op)
{
    op_pg_locked(s, th, (struct osd_op *)(uintptr_t)op);
}

static void op_shard_run(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    if (osd_pg_lock(op, th, op_pg_locked_ev))
        op_pg_locked(s, th, op);
}

/* Crimson's tri_mutex handed the lock over: continue the op on the reactor. */
static void op_lock_granted(struct sim *s, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    op->lock_granted = true;
    cpu_pool_submit(osd_op_shard(op), CPU_PRIO_FRONT, op_shard_run, op, 0);
}

static void rq_locked(struct sim *s, struct cpu_thread *th, struct pg_local *pg)
{
    struct osd_op *op = rq_pop(pg);
    if (!op) { /* another thread ran it in its place */
        mutexq_release(&pg->lock, s);
        cpu_thread_release(th);
        return;
    }
    op_pg_locked(s, th, op);
}

static void rq_locked_ev(struct sim *s, void *th, uint64_t pg)
{
    rq_locked(s, th, (struct pg_local *)(uintptr_t)pg);
}

/* A requeue token: take the PG lock, then run the front of the PG's requeued ops. */
static void rq_run(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct pg_local *pg = obj;
    if (mutexq_acquire(&pg->lock, s, rq_locked_ev, th, (uint64_t)(uintptr_t)pg))
        rq_locked(s, th, pg);
}

/* PG::requeue_ops -> enqueue_front: the waiters go ahead of newer ops of the
   PG, in FIFO order; under WPQ at the front of the client class, under mClock
   in the immediate queue. */
static void requeue_ops(struct sim *s, struct osd *o, struct sim_waiter *w)
{
    enum cpu_prio prio = o->c->spec.ceph.osd_op_queue == OSD_OP_QUEUE_MCLOCK ? CPU_PRIO_FRONT : CPU_PRIO_FRONT_NORMAL;
    while (w) {
        struct sim_waiter *next = w->next;
        struct osd_op *op = w->obj;
        SIM_ASSERT(op->osd == o); /* an object's context lives on its primary */
        o->perf.requeues++;
        op->requeued = true;
        rq_push(op->pg, op);
        cpu_pool_submit(osd_op_shard(op), prio, rq_run, op->pg, 0);
        sim_waiter_put(s, w);
        w = next;
    }
}

/* release_object_locks: the last holder's release requeues every waiter at
   once, before this thread goes on (ObjectContext::wake). */
static void obj_unlock(struct osd_op *op)
{
    if (op->lock_held == OBJ_LOCK_NONE)
        return;
    op->lock_held = OBJ_LOCK_NONE;
    if (op->obj->lock.policy->wake == RWLOCKQ_GRANT_FIFO) {
        rwlockq_release(&op->obj->lock, op_sim(op)); /* crimson: next waiters granted */
        return;
    }
    struct waitlist woken = {0};
    rwlockq_release_take(&op->obj->lock, &woken);
    requeue_ops(op_sim(op), op->osd, woken.head);
}

static void op_write_prepared(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
static void op_error_prepared(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
static void op_read_executed(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);

static void op_do_op(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    struct cluster *c = op_cluster(op);
    if (op->lock_granted) {
        op->lock_granted = false; /* crimson: taken for us in FIFO order */
    } else if (!rwlockq_acquire(&op->obj->lock, s, op->lock_mode, op_lock_granted, op, 0)) {
        osd_track(op, OPTRACK_EV_WAITING_FOR_RW_LOCKS);
        op->osd->perf.rw_lock_waits++;
        osd_op_item_end(op, th);
        return;
    }
    op->lock_held = op->lock_mode;
    osd_track(op, OPTRACK_EV_STARTED);
    op->t_started = sim_now(s);
    op->rop->t_started = op->t_started;
    const struct stage_costs *k = &c->spec.cost;
    /* do_osd_ops: a class method (cls_lock, ...) runs under the object context lock */
    op->cls_result = cls_exec(op->rop);
    if (!op->flags.may_write) {
        cpu_exec(th, stage_cost(c, k->osd_execute_read_us), op_read_executed, op, 0);
        return;
    }
    bool guarded = op->rop->subops & (SUBOP_STAT | SUBOP_WRITE_MUST_EXIST);
    if ((guarded && !op->obj->exists) || op->cls_result < 0) {
        op->rop->result = op->cls_result < 0 ? op->cls_result : -ENOENT;
        cpu_exec(th, stage_cost(c, k->osd_error_us), op_error_prepared, op, 0);
        return;
    }
    cpu_exec(th, stage_cost(c, k->osd_execute_write_us), op_write_prepared, op, 0);
}

/* Where an op's extent lies for the store: an image's objects apart from its
   parent's and from the other images', an object's bytes in offset order. */
void osd_op_set_extent(struct osd_op *op, uint64_t off, uint64_t len)
{
    const struct rados_op *r = op->rop;
    uint64_t image = r->img->index == UINT32_MAX ? 0 : r->img->index;
    op->txc.addr = r->objno * r->img->object_size + off + (r->img->parent ? 0 : 1ull << 60) + (image << 48) +
                   (r->obj == &r->img->map_obj ? 1ull << 59 : 0);
    op->txc.len = len;
    op->txc.cache_shard = op->pg->pgid % bluestore_cache_shards(&op->osd->c->spec.ceph);
    op->txc.cached_extent = true;
}

/* ---- primary: reads ---- */

void osd_op_read_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    struct cluster *c = op_cluster(op);
    log_prepare_stats(op);
    log_op_stats(op);
    uint32_t bytes = REPLY_BYTES + (op->rop->result == 0 && (op->rop->subops & SUBOP_READ) ? (uint32_t)op->rop->len : 0);
    op->rop->t_commit_sent = sim_now(s);
    struct client *cl = op->rop->cl;
    msgr_send(c, osd_worker(op->osd, PEER_CLIENT(cl->id)), MSGR_RX(c, cl->ops->rx_worker(cl, op->osd->id)),
              op->osd->host, cl->host, bytes, cl->ops->reply_delivered, op->rop, 0);
    throttle_put(&op->osd->client_msgs, s, op->bytes + MSG_HEADER_BYTES);
    count_throttle_put(op->osd, op->bytes + MSG_HEADER_BYTES);
    if (op->rop->kind == RADOS_NOTIFY || op->rop->kind == RADOS_NOTIFY_ACK)
        cls_watch_effects(op); /* do_osd_op_effects: MWatchNotify to the watchers / notify complete */
    obj_unlock(op);
    pg_unlock(op);
    osd_op_done(op);
    cpu_thread_release(th);
}

static void op_read_executed(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    op->rop->result = op->cls_result < 0 ? op->cls_result : op->obj->exists ? 0 : -ENOENT;
    if (op->rop->result == 0 && (op->rop->subops & SUBOP_READ)) {
        osd_op_set_extent(op, op->rop->off, op->rop->len);
        op->txc.cached_extent = op->rop->obj != &op->rop->img->header; /* data and object map */
        op->osd->pgbackend->read(op, th);
    } else {
        osd_op_read_done(s, th, op, 0);
    }
}

/* ReplicatedBackend::objects_read_sync: the primary's own store */
void pgbackend_read_local(struct osd_op *op, struct cpu_thread *th)
{
    op->osd->store_ops->read(op->osd->store, th, &op->txc, op->rop->len, osd_op_read_done);
}

/* ---- primary: writes ---- */

void osd_op_local_submitted(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    osd_op_item_end(obj, th);
}



static void op_write_prepared(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    log_prepare_stats(op);
    op->existed = op->obj->exists;
    op->obj->exists = true; /* write / copyup creates the object */
    /* new_repop: join the PG's in-order repop_queue */
    if (op->pg->repop_tail)
        op->pg->repop_tail->next = op;
    else
        op->pg->repop_head = op;
    op->pg->repop_tail = op;
    op->next = NULL;
    op->osd->perf.op_wip++;
    op->osd->pgbackend->submit(op, th);
}

/* record_write_error (rop->result: -ENOENT of a guard, or a class method's
   error): release the object lock now, replicate a log-only entry. */
static void op_error_prepared(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    log_prepare_stats(op);
    op->error = true;
    op->log_only = true;
    obj_unlock(op);
    op->osd->pgbackend->submit(op, th);
}

/* ---- commits ---- */

/* eval_repop once everything committed: reply, then remove_repop in order. */
static void op_eval_repop(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    struct cluster *c = op_cluster(op);
    struct osd *o = op->osd;
    struct pg_local *pg = op->pg;
    struct osd_op *next = NULL;
    if (op->kind == OSD_EC_ROLLFORWARD) { /* no client to answer, never in the repop queue */
        osd_op_free(op);
        mutexq_release(&pg->lock, s);
        cpu_thread_release(th);
        return;
    }
    /* the error path replies without log_op_stats or mark_commit_sent */
    if (!op->error)
        log_op_stats(op);
    op->rop->t_commit_sent = sim_now(s);
    op->rop->t_sub_commit = op->t_last_sub_commit;
    op->rop->t_op_commit = op->t_op_commit;
    memcpy(op->rop->t_rep, op->t_rep, sizeof op->t_rep);
    struct client *cl = op->rop->cl;
    msgr_send(c, osd_worker(o, PEER_CLIENT(cl->id)), MSGR_RX(c, cl->ops->rx_worker(cl, o->id)), o->host, cl->host,
              REPLY_BYTES, cl->ops->reply_delivered, op->rop, 0);
    osd_track_commit_path(op, OPTRACK_EV_COMMIT_SENT);
    throttle_put(&o->client_msgs, s, op->bytes + MSG_HEADER_BYTES);
    count_throttle_put(o, op->bytes + MSG_HEADER_BYTES);
    op->committed = true;
    if (op->error) {
        osd_op_done(op); /* never joined repop_queue; its lock is already released */
    } else {
        if (o->pgbackend->write_finished)
            next = o->pgbackend->write_finished(op);
        while (pg->repop_head && pg->repop_head->committed) {
            struct osd_op *h = pg->repop_head;
            pg->repop_head = h->next;
            if (!pg->repop_head)
                pg->repop_tail = NULL;
            obj_unlock(h); /* release_object_locks: waiters requeued to the front */
            o->perf.op_wip--;
            osd_op_done(h);
        }
    }
    if (next) { /* th and the PG lock go on to the backend's op */
        o->pgbackend->submit(next, th);
        return;
    }
    mutexq_release(&pg->lock, s);
    cpu_thread_release(th);
}

/* One of the op's commits is in (local or a replica's); on the last, eval_repop. */
void osd_op_commit_one(struct sim *s, struct cpu_thread *th, struct osd_op *op)
{
    SIM_ASSERT(op->waiting_for_commit > 0);
    if (--op->waiting_for_commit == 0) {
        struct cluster *c = op_cluster(op);
        cpu_exec(th, stage_cost(c, c->spec.cost.osd_reply_us), op_eval_repop, op, 0);
    } else {
        osd_op_item_end(op, th);
    }
}

static void op_local_committed(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    osd_track_commit_path(op, OPTRACK_EV_OP_COMMIT);
    op->t_op_commit = sim_now(s);
    osd_op_commit_one(s, th, op);
}

static void oncommit_locked(struct sim *s, struct cpu_thread *th, struct osd_op *op)
{
    struct cluster *c = op_cluster(op);
    if (op->kind == OSD_REPOP)
        op->osd->pgbackend->shard_committed(s, th, op);
    else
        cpu_exec(th, stage_cost(c, c->spec.cost.osd_op_commit_us), op_local_committed, op, 0);
}

static void oncommit_locked_ev(struct sim *s, void *th, uint64_t op)
{
    oncommit_locked(s, th, (struct osd_op *)(uintptr_t)op);
}

/* C_OSD_OnOpCommit / C_OSD_RepModifyCommit on shard thread 0 */
static void oncommit_run(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct osd_op *op = obj;
    if (osd_pg_lock(op, th, oncommit_locked_ev))
        oncommit_locked(s, th, op);
}

void osd_txc_committed(void *osd, void *owner)
{
    struct osd *o = osd;
    struct osd_op *op = owner;
    /* ObjectStore commit queue of the collection = the PG's shard context_queue,
       which only the shard's thread 0 drains */
    cpu_thread_submit(&o->shards[op->pg->shard].threads[0], oncommit_run, op, 0);
}
















/* ---- set-up ---- */

void osd_init(struct osd *o, struct cluster *c, uint32_t id, uint32_t host, uint32_t n_pgs)
{
    memset(o, 0, sizeof *o);
    o->c = c;
    o->id = id;
    o->host = host;
    o->epoch = 24;
    const struct ceph_options *opt = &c->spec.ceph;
    /* several OSDs per NVMe (ceph-volume --osds-per-device): the host's OSDs
       k*n .. k*n+n-1 share the first one's drive */
    uint32_t first = osd_drive_first(c, id);
    /* its threads run on its CPU set when the OSDs are confined to sets: its
       own, its drive's (pinned per NVMe) or its host's (one list for all) */
    struct cpu_host *h = c->osd_cpusets ? &c->osd_cpusets[osd_cpuset_index(c, id)] : &c->hosts[host];
    o->backend = osd_backend_for(&c->spec.rel);
    o->pgbackend = c->spec.pool_erasure ? &pgbackend_ec : &pgbackend_replicated;
    struct cpu_pool *before = cpu_host_last_pool(h);
    o->backend->init_threads(o, h, opt);
    /* at most n_pgs x (size - 1) peers, and no more than the other OSDs: a
       table of twice that (a cluster-wide array per OSD would be N^2) */
    uint64_t peers = (uint64_t)n_pgs * (c->spec.pool_size > 1 ? c->spec.pool_size - 1 : 1);
    if (peers > c->n_osds)
        peers = c->n_osds;
    uint32_t slots = 4;
    while (slots < 2 * peers)
        slots *= 2;
    o->conn_mask = slots - 1;
    o->conns = sim_xcalloc(slots, sizeof *o->conns);
    o->conn_peer = sim_xcalloc(slots, sizeof *o->conn_peer);
    memset(o->conn_peer, 0xff, slots * sizeof *o->conn_peer);
    nvme_init(&o->dev, c->s, &c->spec.nvme, id);
    /* BlueStore on the drive's first OSD's device: the drive's queue and
       internal parallelism are shared (the others' own device stays idle) */
    struct nvme_dev *dev = first == id ? &o->dev : &c->osds[first].dev;
    /* the classic OSD and Crimson's alienstore both run BlueStore here */
    o->store_ops = &bluestore_ops;
    struct store_env env = {.s = c->s, .host = h, .dev = dev, .opt = &c->spec.ceph, .cost = &c->spec.cost,
                            .log_cost_us = c->log_cost_us, .committed = osd_txc_committed, .ctx = o,
                            .rocksdb_flush_on_fill = c->spec.rocksdb_flush_on_fill,
                            .rocksdb_memtable_fill = c->spec.rocksdb_memtable_fill};
    o->store = o->store_ops->create(&env);
    /* the messenger's local delivery thread, idle unless the OSD sends itself
       messages: made only then, after the others, so that a replicated
       cluster's threads keep their order (their streams and CCXs) */
    if (o->backend->local_delivery_thread && o->pgbackend->sends_to_self) {
        o->ms_local = sim_xcalloc(1, sizeof *o->ms_local);
        cpu_pool_init(o->ms_local, h, "ms_local", 1);
    }
    /* made last for the same reason */
    if (o->backend->op_history_thread && opt->osd_enable_op_tracker)
        op_history_start(o, h);
    cpu_host_label_pools(h, before, "ceph-osd"); /* its threads, as `top -H -p` lists them */
    throttle_init(&o->client_msgs, (uint64_t)opt->osd_client_message_cap,
                  (uint64_t)opt->osd_client_message_size_cap);
    o->perf.client_messages.max = (uint64_t)opt->osd_client_message_cap;
    o->perf.client_bytes.max = (uint64_t)opt->osd_client_message_size_cap;
    optracker_init(&o->tracker, (uint32_t)opt->osd_op_history_size,
                   (sim_time_t)(opt->osd_op_history_duration * 1e9));
    /* its PGs come through osd_add_pg, n_pgs of them */
    o->pgs = sim_xcalloc(n_pgs ? n_pgs : 1, sizeof *o->pgs);
}

uint32_t osd_add_pg(struct osd *o, uint32_t pg, bool primary)
{
    struct pg_local *p = &o->pgs[o->n_pgs];
    p->pgid = pg;
    p->shard = pg % o->n_shards; /* spg_t::hash_to_shard */
    p->primary = primary;
    mutexq_init(&p->lock);
    o->perf.numpg++;
    if (primary)
        o->perf.numpg_primary++;
    else
        o->perf.numpg_replica++;
    return o->n_pgs++;
}

void osd_fini(struct osd *o)
{
    o->store_ops->destroy(o->store);
    nvme_fini(&o->dev);
    o->backend->fini_threads(o);
    if (o->ms_local) {
        cpu_pool_fini(o->ms_local);
        free(o->ms_local);
    }
    op_history_stop(o);
    optracker_fini(&o->tracker);
    free(o->pgs);
    free(o->conns);
    free(o->conn_peer);
}

struct msgr_conn *osd_conn(struct osd *o, uint32_t peer)
{
    for (uint32_t i = (peer * 0x9E3779B1u) & o->conn_mask;; i = (i + 1) & o->conn_mask) {
        if (o->conn_peer[i] == peer)
            return &o->conns[i];
        if (o->conn_peer[i] == UINT32_MAX) { /* a new peer; the table is at most half full */
            o->conn_peer[i] = peer;
            return &o->conns[i];
        }
    }
}

void osd_reset_stats(struct osd *o)
{
    uint64_t numpg = o->perf.numpg, prim = o->perf.numpg_primary, repl = o->perf.numpg_replica;
    int64_t wip = o->perf.op_wip;
    struct perf_throttle cm = o->perf.client_messages, cb = o->perf.client_bytes;
    memset(&o->perf, 0, sizeof o->perf);
    /* perf reset keeps the gauges and limits */
    o->perf.client_messages = (struct perf_throttle){.val = cm.val, .max = cm.max};
    o->perf.client_bytes = (struct perf_throttle){.val = cb.val, .max = cb.max};
    o->perf.numpg = numpg;
    o->perf.numpg_primary = prim;
    o->perf.numpg_replica = repl;
    o->perf.op_wip = wip;
    o->store_ops->reset_stats(o->store);
    for (uint32_t i = 0; o->msgr_perf && i < o->n_msgr; i++)
        o->msgr_perf[i] = (struct msgr_worker_perf){.busy_ns_at_reset = o->msgr[i].threads[0].busy_ns};
    optracker_reset(&o->tracker);
    nvme_reset_stats(&o->dev);
}
