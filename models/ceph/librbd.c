/*
 * librbd.c - fio jobs on librbd (client_ops "librbd"): the closed loop, librbd's dispatch, its
 * simple scheduler, the clone guard designs and copy-up, and the Objecter.
 *
 * Mirrors (ceph-model.md section 5):
 *  - fio's rbd engine: each job clone (numjobs) is one fio thread keeping
 *    iodepth I/Os in flight; what it issues (direction, offset, block size:
 *    rw, rw_seq_nr, random_distribution, the random map, bs/bsrange/bssplit,
 *    randseed/randrepeat) is fiogen.c's; rate_iops, thinktime (backend.c
 *    handle_thinktime: after thinktime_blocks I/Os completed or issued, or
 *    thinktime_iotime, stop issuing, let every I/O in flight complete,
 *    spin thinktime_spin on the fio thread and sleep the rest of thinktime),
 *    ramp_time (stats reset), size/io_size/number_ios limits.
 *  - librbd: rbd_non_blocking_aio hands each request to the io_context_pool
 *    (QueueImageDispatch; from 16.2 max(librados_thread_count 2,
 *    rbd_op_threads 1) threads, before it rbd_op_threads); the Striper maps it to
 *    objects of 1 << order bytes; the write-around cache
 *    (WriteAroundObjectDispatch) is a pass-through until the first flush
 *    (rbd_cache_writethrough_until_flush, default true; fio never flushes);
 *    with rbd_cache on and that option off, a write is acknowledged at once
 *    while the bytes in flight stay within rbd_cache_max_dirty.
 *  - SimpleSchedulerObjectDispatch (rbd_io_scheduler=simple): once 10 latency
 *    samples exist, a write to an object that has a write in flight is held
 *    and merged with adjacent held writes, and dispatched when the in-flight
 *    writes complete.
 *  - AbstractObjectWriteRequest: a partial write inside a clone's parent
 *    overlap carries the copy-up guard; the guard design decides its form
 *    (guard_design in cluster.h); -ENOENT -> CopyupRequest: read the parent
 *    object, update the object map (if enabled), send
 *    [call rbd.copyup, write]; later writers to the object wait on it and are
 *    completed with it.  With the object map, a write to an object the map
 *    says does not exist goes straight to copy-up.
 *  - Objecter: objecter_inflight_ops / objecter_inflight_op_bytes throttle,
 *    one connection per OSD bound to one of the client's msgr workers.
 * Each client is one librbd instance with one open image (struct
 * rbd_image_ctx, librbd::ImageCtx): the scheduler's in-flight and held
 * writes, the copy-ups in progress and the exclusive lock (exclusive_lock.c)
 * are its own, so several clients of one image never hold or send each
 * other's writes; only the OSD-side truth (does the object exist, the
 * primary's object context, the object map object) is shared (rados.h).
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <gsl/gsl_randist.h>

#include "librbd.h"

#include "cluster-internal.h"
#include "err.h"
#include "msgr.h"
#include "osd.h"
#include "replay.h"

#define MAP_UPDATE_BYTES 64

static inline struct cluster *cl_cluster(const struct client *cl) { return cl->c; }

static void fio_issue_item(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);
static void librbd_send_write(struct client *cl, struct rados_op *rop);
static void objecter_send(struct client *cl, struct rados_op *rop);

/* ---- fio: the closed loop ---- */

static bool worker_limit_reached(const struct fio_worker *w)
{
    const struct workload_job *j = w->job;
    if (w->stopped)
        return true;
    if (j->number_ios && w->issued >= j->number_ios)
        return true;
    if (!j->time_based) {
        if (w->bytes_issued >= w->io_limit)
            return true;
    }
    return false;
}

static void librbd_dispatch(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);

/* fio's CPU per I/O on its thread: the rbd engine's calls into librbd, or a
   kernel engine's syscalls into the block layer (client_ops.block_engine) */
static double fio_submit_cost(const struct fio_worker *w)
{
    const struct stage_costs *k = &w->cl->c->spec.cost;
    return w->cl->ops->block_engine ? k->fio_aio_submit_us : k->fio_submit_us;
}

static double fio_complete_cost(const struct fio_worker *w)
{
    const struct stage_costs *k = &w->cl->c->spec.cost;
    return w->cl->ops->block_engine ? k->fio_aio_complete_us : k->fio_complete_us;
}

static void fio_submitted(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct fio_io *io = obj;
    struct fio_worker *w = io->w;
    struct client *cl = w->cl;
    io->t_submitted = sim_now(s);
    if (cl->ops->submit_io) {
        cl->ops->submit_io(cl, io); /* another client kind (krbd.c) */
    } else {
        /* rbd_aio_write returns: QueueImageDispatch hands the request to the io_context */
        struct cpu_pool *ctx = cl->c->spec.ceph.rbd_non_blocking_aio ? &cl->io_context : &w->thread;
        cpu_pool_submit(ctx, CPU_PRIO_NORMAL, librbd_dispatch, io, 0);
    }
    fio_issue_item(s, th, w, 0);
}

static void fio_issue_later(struct sim *s, void *obj, uint64_t arg)
{
    struct fio_worker *w = obj;
    w->next_rate_t = 0;
    cpu_pool_submit(&w->thread, CPU_PRIO_NORMAL, fio_issue_item, w, 0);
}

/* The thinktime sleep ended: the next I/O goes out before the next check (fio's do_io loop). */
static void think_done(struct sim *s, void *obj, uint64_t arg)
{
    struct fio_worker *w = obj;
    w->think_resumed = true;
    w->think_last_t = sim_now(s);
    fio_issue_later(s, obj, arg);
}

/* usec_spin: burn the fio thread's core until the deadline (arg, wall time), then
   sleep the rest of thinktime (it ends at next_rate_t; later if the spin overran). */
static void think_spin(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct fio_worker *w = obj;
    sim_time_t now = sim_now(s), deadline = (sim_time_t)arg;
    if (now + 1000 <= deadline) { /* spin in slices of at most 10 us: the clock is polled */
        struct cpu_host *h = w->thread.host;
        double us = (double)(deadline - now) / 1e3;
        cpu_exec(th, (us < 10 ? us : 10) * cpu_clock_ghz(h) / h->p.ref_clock_ghz, think_spin, w, deadline);
        return;
    }
    if (w->next_rate_t < now)
        w->next_rate_t = now;
    sim_schedule(s, w->next_rate_t - now, think_done, w, 0);
    cpu_thread_release(th);
}

/*
 * backend.c handle_thinktime, checked after every issue and completion: true
 * when the worker stalls (th then is the thinktime's, or released).
 */
static bool think_stall(struct sim *s, struct cpu_thread *th, struct fio_worker *w)
{
    const struct workload_job *j = w->job;
    sim_time_t now = sim_now(s);
    if (!w->think_pending) {
        if (w->think_resumed)
            return false;
        bool stall = false;
        if (j->thinktime_iotime_ns) {
            if (now - w->think_last_t >= j->thinktime_iotime_ns)
                stall = true;
            else if (!j->thinktime_blocks_set)
                return false;
        }
        uint64_t b = j->thinktime_blocks_type == FIO_THINKTIME_ISSUE ? w->issued : w->completed;
        if (b >= w->think_last_blocks + j->thinktime_blocks)
            stall = true;
        if (!stall)
            return false;
        w->think_pending = true;
        w->think_last_blocks = b;
    }
    if (w->inflight) { /* io_u_quiesce: the last completion comes back here */
        cpu_thread_release(th);
        return true;
    }
    w->think_pending = false;
    sim_time_t spin = j->thinktime_spin_ns < j->thinktime_ns ? j->thinktime_spin_ns : j->thinktime_ns;
    w->next_rate_t = now + j->thinktime_ns;
    think_spin(s, th, w, now + spin);
    return true;
}

/* A new I/O of w, counted as issued and in flight (its offset is the caller's). */
static struct fio_io *io_start(struct fio_worker *w, int ddir, uint64_t len, sim_time_t now)
{
    struct fio_io *io = pool_get(&w->cl->c->io_pool);
    io->w = w;
    io->ddir = ddir;
    io->len = len;
    io->t_issue = now;
    io->owner = NULL;
    w->issued++;
    w->bytes_issued += len;
    w->inflight++;
    return io;
}

/* fio's __io_u_mark_map bucket of a batch of nr I/Os: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64. */
static int batch_bucket(uint32_t nr)
{
    int b = 0;
    while (b < 6 && nr > (b ? 2u << b : 0u))
        b++;
    return b;
}

/* io_u_mark_depth's bucket of the queue depth: 1, 2-3, 4-7, 8-15, 16-31, 32-63, >=64. */
static int depth_bucket(uint32_t d)
{
    int b = 0;
    while (b < 6 && d >= (2u << b))
        b++;
    return b;
}

/* Issue I/Os until iodepth are in flight; runs on the fio thread, which it
   releases.  A replay port's worker (no job, replay.c) issues nothing itself. */
static void fio_issue_item(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct fio_worker *w = obj;
    struct cluster *c = w->cl->c;
    const struct workload_job *j = w->job;
    if (!j || worker_limit_reached(w) || w->next_rate_t) {
        cpu_thread_release(th);
        return;
    }
    if (j->thinktime_ns && think_stall(s, th, w))
        return;
    if (w->inflight >= j->iodepth) {
        cpu_thread_release(th);
        return;
    }
    /* rate_iops / thinktime pacing: wait, then come back */
    sim_time_t now = sim_now(s), wait = 0;
    uint32_t rate = j->rate_iops[FIO_DDIR_WRITE] ? j->rate_iops[FIO_DDIR_WRITE] : j->rate_iops[FIO_DDIR_READ];
    if (rate) {
        sim_time_t due = w->t_start + (sim_time_t)((double)w->issued * 1e9 / rate);
        if (due > now)
            wait = due - now;
    }
    if (wait) {
        w->next_rate_t = now + wait;
        sim_schedule(s, wait, fio_issue_later, w, 0);
        cpu_thread_release(th);
        return;
    }
    int ddir;
    uint64_t off, len;
    fiogen_next(&w->gen, &ddir, &off, &len);
    struct fio_io *io = io_start(w, ddir, len, now);
    io->offset = w->region_off + off;
    w->think_resumed = false;
    if (c->measuring) {
        /* td_io_queue of an engine without ->commit (rbd): the depth with this I/O counted
           (cur_depth), one submit and one complete mark of 1 */
        struct job_result *r = &c->results[w->index];
        r->io_u_map[depth_bucket(w->inflight)]++;
        r->io_u_submit[batch_bucket(1)]++;
        r->io_u_complete[batch_bucket(1)]++;
        r->total_submit++;
        r->total_complete++;
    }
    if (c->io_obs.issued)
        c->io_obs.issued(c->io_obs.ctx, &(struct cluster_io_event){.job = w->index, .ddir = ddir, .offset = io->offset,
                                                                  .len = len, .t_issue = now});
    cpu_exec(th, fio_submit_cost(w), fio_submitted, io, 0);
}

static void record_io(struct cluster *c, struct fio_io *io, sim_time_t now)
{
    struct fio_worker *w = io->w;
    struct job_result *r = &c->results[w->index];
    struct job_ddir_stats *d = &r->dir[io->ddir];
    d->io_bytes += io->len;
    d->total_ios++;
    hist_add(&d->slat, io->t_submitted - io->t_issue);
    hist_add(&d->clat, now - io->t_submitted);
    hist_add(&d->lat, now - io->t_issue);
    uint64_t sec = (now - c->t_measure_start) / SIM_NS_PER_S;
    if (sec < sizeof d->iops_samples / sizeof d->iops_samples[0]) {
        d->iops_samples[sec] += 1;
        d->bw_kib_samples[sec] += (double)io->len / 1024.0;
    }
    if (io->ddir == FIO_DDIR_WRITE && io->st[STAGE_COUNT])
        cluster_account_stages(c, io);
    if (c->io_obs.completed)
        c->io_obs.completed(c->io_obs.ctx, &(struct cluster_io_event){.job = w->index, .ddir = io->ddir,
                                                                     .offset = io->offset, .len = io->len,
                                                                     .t_issue = io->t_issue,
                                                                     .t_submitted = io->t_submitted, .t_done = now});
}

static void fio_complete_item(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct fio_io *io = obj;
    struct fio_worker *w = io->w;
    struct cluster *c = w->cl->c;
    sim_time_t now = sim_now(s);
    /* td_io_getevents: the rbd engine's getevents returns every completion
       waiting when the fio thread reaps (at least one, at most iodepth), so the
       completions queued behind this one are reaped with it, in one batch */
    w->completions_queued--;
    bool batch_start = w->reap_left == 0;
    if (batch_start)
        w->reap_left = 1 + w->completions_queued;
    w->reap_left--;
    /* fio stamps the completion when it reaps it; after ramp_time every
       completion counts, also of I/Os issued during the ramp (no survivor bias) */
    if (c->measuring) {
        if (batch_start && w->job) {
            struct job_result *r = &c->results[w->index];
            r->io_u_complete[batch_bucket(1 + w->completions_queued)]++;
            r->total_complete++;
        }
        record_io(c, io, now);
    }
    if (!w->job)
        replay_io_done(w, io, now);
    w->inflight--;
    w->completed++;
    pool_put(&c->io_pool, io);
    cpu_exec(th, fio_complete_cost(w), fio_issue_item, w, 0);
}

static void io_part_done(struct client *cl, struct fio_io *io, const struct rados_op *rop)
{
    if (rop->kind == RADOS_WRITE && rop->t_commit_sent) {
        /* the primary's milestones of this I/O's write, for the waterfall */
        sim_time_t *st = io->st;
        st[STAGE_CLIENT_SUBMIT] = rop->t_sent;
        st[STAGE_NET_TO_PRIMARY] = rop->t_initiated;
        st[STAGE_PRIMARY_QUEUE] = rop->t_reached;
        st[STAGE_PRIMARY_LOCK_WAIT] = rop->t_started;
        st[STAGE_PRIMARY_PREPARE] = rop->t_subops;
        st[STAGE_LOCAL_COMMIT] = rop->t_op_commit;
        st[STAGE_REPLICA_COMMIT] = rop->t_sub_commit;
        st[STAGE_PRIMARY_REPLY] = rop->t_commit_sent;
        st[STAGE_NET_TO_CLIENT] = rop->t_reply_rx;
        st[STAGE_COUNT] = 1;
        memcpy(io->rep, rop->t_rep, sizeof io->rep);
    }
    SIM_ASSERT(io->parts > 0);
    if (--io->parts == 0) {
        io->w->completions_queued++;
        cpu_pool_submit(&io->w->thread, CPU_PRIO_NORMAL, fio_complete_item, io, 0);
    }
}

void client_io_part_done(struct client *cl, struct fio_io *io, const struct rados_op *rop)
{
    io_part_done(cl, io, rop);
}

/* ---- librbd ---- */

/* A data-object op of cl: obj is the object at the OSDs; a write carries this
   client's own librbd state of the object (its image only, not the parent). */
static struct rados_op *rop_new(struct client *cl, struct image *img, uint64_t objno, enum rados_kind kind)
{
    struct rados_op *rop = pool_get(&cl->c->rados_pool);
    rop->cl = cl;
    rop->img = img;
    rop->objno = objno;
    rop->obj = image_object(cl->c, img, objno);
    if (img == cl->ictx.img)
        rop->cobj = idmap_get(&cl->ictx.objs, objno, NULL);
    rop->kind = kind;
    return rop;
}

struct rados_op *librbd_rop_new(struct client *cl, struct image *img, struct obj_state *obj, enum rados_kind kind)
{
    struct rados_op *rop = pool_get(&cl->c->rados_pool);
    rop->cl = cl;
    rop->img = img;
    rop->obj = obj;
    rop->kind = kind;
    return rop;
}

static void rop_free(struct client *cl, struct rados_op *rop)
{
    pool_put(&cl->c->rados_pool, rop);
}

void librbd_rop_free(struct client *cl, struct rados_op *rop)
{
    rop_free(cl, rop);
}

/* Complete the fio I/Os a finished write or read carried. */
static void rop_complete_ios(struct client *cl, struct rados_op *rop)
{
    if (rop->acked_early) {
        cl->writearound_bytes -= rop->acked_early;
        rop->acked_early = 0;
    }
    struct fio_io *io = rop->ios;
    while (io) {
        struct fio_io *next = io->next;
        io->next = NULL;
        io_part_done(cl, io, rop);
        io = next;
    }
    rop->ios = NULL;
}

/* The held writes of one object of cl go out (its own: the scheduler is per image handle). */
static void librbd_dispatch_held(struct client *cl, struct rbd_obj *cobj)
{
    struct rados_op *h = cobj->held;
    cobj->held = NULL;
    while (h) {
        struct rados_op *next = h->next;
        h->next = NULL;
        SIM_ASSERT(h->cl == cl && h->cobj == cobj);
        cobj->inflight_writes++;
        librbd_send_write(cl, h);
        h = next;
    }
}

/* A data write to the object finished (or a copy-up that carried it). */
static void librbd_write_finished(struct client *cl, struct rados_op *rop)
{
    struct rbd_obj *cobj = rop->cobj;
    SIM_ASSERT(cobj->inflight_writes > 0);
    cobj->inflight_writes--;
    cl->sched_samples++;
    rop_complete_ios(cl, rop);
    if (cobj->inflight_writes == 0 && cobj->held)
        librbd_dispatch_held(cl, cobj);
    rop_free(cl, rop);
    exclusive_lock_write_finished(cl);
}

/* Held write h takes in the write r adjacent to it (their extents and the
   fio I/Os waiting on them); r completes with h. */
static void held_absorb(struct client *cl, struct rados_op *h, struct rados_op *r)
{
    if (r->off < h->off)
        h->off = r->off;
    h->len += r->len;
    h->acked_early += r->acked_early;
    if (r->ios) {
        struct fio_io *tail = r->ios;
        while (tail->next)
            tail = tail->next;
        tail->next = h->ios;
        h->ios = r->ios;
    }
    rop_free(cl, r);
    exclusive_lock_write_finished(cl); /* it completes with h */
}

/* SimpleSchedulerObjectDispatch::try_delay_request (this image handle's writes only) */
static bool scheduler_hold(struct client *cl, struct rados_op *rop)
{
    struct cluster *c = cl->c;
    struct rbd_obj *cobj = rop->cobj;
    if (c->spec.ceph.rbd_io_scheduler != RBD_IO_SCHEDULER_SIMPLE || cobj->inflight_writes == 0 ||
        cl->sched_samples < (uint64_t)c->spec.ceph.rbd_simple_scheduler_min_samples)
        return false;
    /* an I/O split over several objects is linked from each part: never merged */
    if (rop->ios && rop->ios->parts > 1)
        return false;
    /* merge with an adjacent held write if there is one, and then that with
       the held write on its other side, which the new one may have joined
       (ObjectRequests::try_delay_request merges front and back, then
       try_merge_delayed_requests the neighbours: writes that reach the
       scheduler out of order, as from several io_context threads, end as
       one request all the same) */
    for (struct rados_op *h = cobj->held; h; h = h->next) {
        if (h->off + h->len == rop->off || rop->off + rop->len == h->off) {
            held_absorb(cl, h, rop);
            for (struct rados_op **pp = &cobj->held; *pp; pp = &(*pp)->next) {
                struct rados_op *g = *pp;
                if (g != h && (g->off + g->len == h->off || h->off + h->len == g->off)) {
                    *pp = g->next;
                    held_absorb(cl, h, g);
                    break;
                }
            }
            return true;
        }
    }
    rop->next = NULL;
    struct rados_op **pp = &cobj->held;
    while (*pp)
        pp = &(*pp)->next;
    *pp = rop;
    return true;
}

static bool in_parent_overlap(const struct rados_op *rop)
{
    const struct image *img = rop->img;
    return img->spec.kind == IMAGE_CLONE && img->parent && rop->objno < img->parent->n_objects;
}

/* The data a parent object holds: image.parent_written of it, from offset 0. */
static uint64_t parent_data_bytes(const struct image *img)
{
    return (uint64_t)llround(img->spec.parent_written * (double)img->object_size);
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
    uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

/*
 * What the copy-up op carries besides the writes riding in it
 * (CopyupRequest::prepare_copyup_data, copyup): the parent's data extent
 * [0, D).  Sparse copy-up (rbd.sparse_copyup: enable_sparse_copyup when
 * require_osd_release >= octopus, RefreshRequest) sends only that extent,
 * less what the pending writes overwrite (a clone without snapshots: the
 * "partial copy-up"); an all-zero parent sends nothing and the class just
 * creates the object.  Before Octopus (rbd.copyup) the thick buffer of the
 * whole object goes, unless the parent data is all zero.
 */
static uint64_t copyup_data_bytes(const struct client *cl, const struct rados_op *rop)
{
    const struct image *img = rop->img;
    uint64_t d = parent_data_bytes(img);
    if (d == 0)
        return 0;
    if (cl->c->spec.rel.major < 15) /* 12.2, 14.2: no octopus require_osd_release */
        return img->object_size;
    uint64_t over = overlap(rop->off, rop->off + rop->len, 0, d);
    for (const struct rados_op *w = rop->cobj->copyup_waiters; w; w = w->next)
        over += overlap(w->off, w->off + w->len, 0, d);
    return over < d ? d - over : 0;
}

static void copyup_start_or_join(struct client *cl, struct rados_op *rop)
{
    struct rbd_obj *cobj = rop->cobj;
    if (cobj->copyup_op) {
        /* CopyupRequest::append_request: a write appended before the copy-up
           goes out rides in it (its ops are added to the copyup op); one
           appended later is sent again once the object exists */
        if (!cobj->copyup_sent) {
            cobj->copyup_op->copyup_extra += rop->len;
            rop->next = cobj->copyup_waiters;
            cobj->copyup_waiters = rop;
        } else {
            rop->next = cobj->copyup_late;
            cobj->copyup_late = rop;
        }
        return;
    }
    cobj->copyup_op = rop;
    cobj->copyup_sent = false;
    struct image *parent = rop->img->parent;
    struct rados_op *pr = rop_new(cl, parent, rop->objno, RADOS_PARENT_READ);
    pr->subops = SUBOP_READ;
    pr->off = 0;
    /* read_from_parent: a (sparse) read of the parent object returns the data it holds */
    pr->len = parent_data_bytes(rop->img);
    pr->copyup_parent = rop;
    objecter_send(cl, pr);
}

static void copyup_send(struct client *cl, struct rados_op *rop)
{
    /* [call rbd.copyup(parent data), write...]: the pending writes ride along */
    rop->cobj->copyup_sent = true;
    rop->copyup_bytes = copyup_data_bytes(cl, rop);
    rop->kind = RADOS_COPYUP;
    rop->subops = SUBOP_CALL_RDWR | SUBOP_WRITE;
    objecter_send(cl, rop);
}

/* AbstractObjectWriteRequest::send/write_object with the scenario's guard design */
static void librbd_send_write(struct client *cl, struct rados_op *rop)
{
    struct image *img = rop->img;
    struct obj_state *obj = rop->obj;
    rop->kind = RADOS_WRITE;
    bool full_object = rop->off == 0 && rop->len == img->object_size;
    bool copyup_enabled = in_parent_overlap(rop) && !full_object && img->spec.guard != GUARD_NONE;
    /* the owner's object map (the on-disk map it loaded with the lock) */
    bool object_map = exclusive_lock_object_map(cl);
    if (!copyup_enabled) {
        rop->subops = SUBOP_WRITE;
        objecter_send(cl, rop);
        return;
    }
    /* pre_write_object_map_update: a map saying "does not exist" skips the guarded write */
    if (object_map && !obj->map_exists) {
        copyup_start_or_join(cl, rop);
        return;
    }
    switch (img->spec.guard) {
    case GUARD_STAT_ROUNDTRIP:
        rop->kind = RADOS_STAT;
        rop->subops = SUBOP_STAT;
        break;
    case GUARD_WRITE_FLAG:
        rop->subops = SUBOP_WRITE_MUST_EXIST;
        break;
    case GUARD_OBJECT_MAP_SKIP:
        rop->subops = object_map && obj->map_exists ? SUBOP_WRITE : SUBOP_STAT | SUBOP_WRITE;
        break;
    default:
        /* write_op.assert_exists() = CEPH_OSD_OP_STAT; set-alloc-hint without an object map */
        rop->subops = SUBOP_STAT | SUBOP_WRITE | (object_map ? 0 : SUBOP_SETALLOCHINT);
        break;
    }
    objecter_send(cl, rop);
}

static void librbd_dispatched(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct fio_io *io = obj;
    struct client *cl = io->w->cl;
    struct image *img = cl->ictx.img;
    /* exclusive_lock::ImageDispatch: a write waits for the lock */
    if (io->ddir == FIO_DDIR_WRITE && !exclusive_lock_admit_write(cl, io)) {
        cpu_thread_release(th);
        return;
    }
    /* Striper: one object request per object extent */
    uint64_t off = io->offset, end = io->offset + io->len;
    bool writearound = cl->c->spec.ceph.rbd_cache && !cl->c->spec.ceph.rbd_cache_writethrough_until_flush;
    while (off < end) {
        uint64_t objno = off / img->object_size;
        uint64_t obj_off = off % img->object_size;
        uint64_t len = img->object_size - obj_off;
        if (len > end - off)
            len = end - off;
        struct rados_op *rop = rop_new(cl, img, objno, io->ddir == FIO_DDIR_READ ? RADOS_READ : RADOS_WRITE);
        rop->off = obj_off;
        rop->len = len;
        rop->ios = io;
        off += len;
        if (rop->kind == RADOS_WRITE && writearound &&
            cl->writearound_bytes + len <= (uint64_t)cl->c->spec.ceph.rbd_cache_max_dirty) {
            /* WriteAroundObjectDispatch::handle_write: acknowledged now, sent anyway */
            cl->writearound_bytes += len;
            rop->acked_early = len;
            rop->ios = NULL;
            io_part_done(cl, io, rop);
        }
        if (rop->kind == RADOS_READ) {
            /* a clone object not copied up is read from the parent */
            if (in_parent_overlap(rop) && !rop->obj->exists) {
                rop->img = img->parent;
                rop->obj = image_object(cl->c, img->parent, objno);
                rop->cobj = NULL;
            } else if (exclusive_lock_object_map(cl) && !rop->obj->map_exists) {
                /* ObjectReadRequest: the object map says OBJECT_NONEXISTENT, so
                   the extent reads as zeros without an OSD op */
                rop_complete_ios(cl, rop);
                rop_free(cl, rop);
                continue;
            }
            rop->subops = SUBOP_READ;
            objecter_send(cl, rop);
        } else {
            exclusive_lock_write_started(cl);
            if (!scheduler_hold(cl, rop)) {
                rop->cobj->inflight_writes++;
                librbd_send_write(cl, rop);
            }
        }
    }
    if (io->ddir == FIO_DDIR_WRITE)
        exclusive_lock_write_dispatched(cl, io);
    cpu_thread_release(th);
}

void librbd_redispatch(struct client *cl, struct fio_io *io)
{
    /* ImageDispatchSpec restart: through the dispatch layers again, on the io_context */
    cpu_pool_submit(&cl->io_context, CPU_PRIO_NORMAL, librbd_dispatched, io, 0);
}

static void librbd_dispatch(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct fio_io *io = obj;
    struct cluster *c = io->w->cl->c;
    uint64_t osz = io->w->cl->ictx.img->object_size;
    /* the Striper's object extents: one rados op each (librbd_dispatched) */
    uint64_t parts = (io->offset % osz + io->len + osz - 1) / osz;
    io->parts = (uint32_t)parts;
    double cost = c->spec.cost.librbd_dispatch_us + parts * c->spec.cost.objecter_submit_us;
    /* the layers only a write passes: exclusive_lock::ImageDispatch, WriteBlockImageDispatch,
       the object map's pre-write check (ObjectWriteRequest::pre_write_object_map_update),
       the simple scheduler's in-flight tracking */
    if (io->ddir == FIO_DDIR_WRITE)
        cost += c->spec.cost.librbd_write_dispatch_us;
    cpu_exec(th, cost, librbd_dispatched, io, 0);
}

/* ---- Objecter ---- */

static uint32_t rop_request_bytes(const struct rados_op *rop)
{
    uint32_t b = MSG_HEADER_BYTES;
    if (rop->subops & (SUBOP_WRITE | SUBOP_WRITEFULL | SUBOP_WRITE_MUST_EXIST))
        b += (uint32_t)rop->len;
    if (rop->kind == RADOS_COPYUP)
        b += (uint32_t)(rop->copyup_bytes + rop->copyup_extra);
    if (rop->kind == RADOS_MAP_UPDATE)
        b += MAP_UPDATE_BYTES;
    return b;
}

static struct cpu_pool *client_worker(struct client *cl, uint32_t osd)
{
    return &cl->msgr[osd % (uint32_t)cl->c->spec.ceph.ms_async_op_threads];
}

/* The objecter_ops / objecter_bytes gauges after a get or put. */
static void objecter_gauges(struct client *cl)
{
    cl->operf.throttle_ops.val = cl->objecter.ops;
    cl->operf.throttle_bytes.val = cl->objecter.bytes;
}

/*
 * Objecter::_op_submit's counters: op, op_active, op_r / op_w / op_rmw by the
 * op's flags, oplen_avg and one osdop_* per OSD op code in the request (the
 * class calls, watch/notify ops by their kind).
 */
static void objecter_count_submit(struct client *cl, const struct rados_op *rop)
{
    struct objecter_perf *p = &cl->operf;
    uint32_t sub = rop->subops, n = 0;
    bool rd = false, wr = false;
    p->op++;
    p->op_active++;
    switch (rop->kind) {
    case RADOS_LOCK_GET_INFO: p->osdop_call++, n++, rd = true; break;
    case RADOS_LOCK_LOCK: case RADOS_LOCK_UNLOCK: case RADOS_MAP_LOCK: case RADOS_MAP_UPDATE:
        p->osdop_call++, n++, rd = wr = true; break;
    case RADOS_MAP_LOAD: p->osdop_call++, n++, rd = true; break;
    case RADOS_LIST_WATCHERS: p->osdop_other++, n++, rd = true; break;
    case RADOS_NOTIFY: p->osdop_notify++, n++, rd = true; break;
    case RADOS_NOTIFY_ACK: p->osdop_other++, n++, rd = true; break;
    default: {
        struct op_flags f = opinfo_classify(sub);
        rd = f.may_read, wr = f.may_write;
        if (sub & SUBOP_STAT)
            p->osdop_stat++, n++;
        if (sub & SUBOP_READ)
            p->osdop_read++, n++;
        if (sub & (SUBOP_WRITE | SUBOP_WRITE_MUST_EXIST))
            p->osdop_write++, n++;
        if (sub & SUBOP_WRITEFULL)
            p->osdop_writefull++, n++;
        if (sub & (SUBOP_CALL_RDWR | SUBOP_CALL_RD))
            p->osdop_call++, n++;
        for (uint32_t b = SUBOP_CMPEXT | SUBOP_ASSERT_VER | SUBOP_SETALLOCHINT; b; b &= b - 1)
            if (sub & b & -b)
                p->osdop_other++, n++;
        break;
    }
    }
    if (rd && wr)
        p->op_rmw++;
    else if (wr)
        p->op_w++;
    else
        p->op_r++;
    lat_sum_add(&p->oplen_avg, n);
}

static void objecter_go(struct client *cl, struct rados_op *rop)
{
    struct cluster *c = cl->c;
    cl->operf.op_send++; /* _send_op */
    cl->operf.op_send_bytes += rop_request_bytes(rop);
    objecter_gauges(cl);
    rop->primary = cluster_acting(c, rop->obj->pg)[0];
    rop->tid = ++cl->next_tid;
    rop->t_sent = sim_now(c->s);
    rop->result = 0;
    rop->t_initiated = rop->t_reached = rop->t_started = rop->t_subops = 0;
    rop->t_op_commit = rop->t_sub_commit = rop->t_commit_sent = 0;
    msgr_send(c, client_worker(cl, rop->primary), MSGR_RX(c, osd_client_worker(&c->osds[rop->primary], cl->id)),
              cl->host, c->osds[rop->primary].host, rop_request_bytes(rop), osd_client_op_delivered, rop, 0);
}

static void objecter_throttled(struct sim *s, void *obj, uint64_t arg)
{
    struct rados_op *rop = obj;
    objecter_go(rop->cl, rop);
}

/* Objecter::op_submit: the in-flight throttles, then the messenger. */
static void objecter_send(struct client *cl, struct rados_op *rop)
{
    objecter_count_submit(cl, rop);
    /* Objecter::_take_op_budget: both throttles' get() (blocking) */
    struct objecter_perf *p = &cl->operf;
    p->throttle_ops.get_started++, p->throttle_bytes.get_started++;
    p->throttle_ops.get++, p->throttle_ops.get_sum++;
    p->throttle_bytes.get++, p->throttle_bytes.get_sum += rop_request_bytes(rop);
    if (throttle_get(&cl->objecter, cl->c->s, rop_request_bytes(rop), objecter_throttled, rop, 0))
        objecter_go(cl, rop);
}

void librbd_objecter_send(struct client *cl, struct rados_op *rop)
{
    objecter_send(cl, rop);
}

/* ---- replies ---- */

static void librbd_completed(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *rop = obj;
    struct client *cl = rop->cl;
    switch (rop->kind) {
    case RADOS_READ:
        rop_complete_ios(cl, rop);
        rop_free(cl, rop);
        break;
    case RADOS_WRITE:
        if (rop->result == -ENOENT)
            copyup_start_or_join(cl, rop);
        else
            librbd_write_finished(cl, rop);
        break;
    case RADOS_STAT:
        if (rop->result == -ENOENT) {
            copyup_start_or_join(cl, rop);
        } else {
            rop->kind = RADOS_WRITE;
            rop->subops = SUBOP_WRITE;
            objecter_send(cl, rop);
        }
        break;
    case RADOS_PARENT_READ: {
        struct rados_op *w = rop->copyup_parent;
        struct image *img = w->img;
        rop_free(cl, rop);
        if (exclusive_lock_object_map(cl) && !w->obj->map_exists) {
            /* object map update to OBJECT_EXISTS on rbd_object_map.<id> */
            struct rados_op *mu = librbd_rop_new(cl, img, &img->map_obj, RADOS_MAP_UPDATE);
            mu->objno = w->objno;
            mu->subops = SUBOP_CALL_RDWR;
            mu->len = MAP_UPDATE_BYTES;
            mu->copyup_parent = w;
            objecter_send(cl, mu);
        } else {
            copyup_send(cl, w);
        }
        break;
    }
    case RADOS_MAP_UPDATE: {
        struct rados_op *w = rop->copyup_parent;
        w->obj->map_exists = true;
        rop_free(cl, rop);
        copyup_send(cl, w);
        break;
    }
    case RADOS_COPYUP: {
        struct rbd_obj *cobj = rop->cobj;
        rop->obj->map_exists = true;
        cobj->copyup_op = NULL;
        struct rados_op *waiters = cobj->copyup_waiters, *late = cobj->copyup_late;
        cobj->copyup_waiters = cobj->copyup_late = NULL;
        librbd_write_finished(cl, rop);
        while (waiters) {
            struct rados_op *next = waiters->next;
            waiters->next = NULL;
            librbd_write_finished(cl, waiters);
            waiters = next;
        }
        while (late) {
            struct rados_op *next = late->next;
            late->next = NULL;
            librbd_send_write(cl, late);
            late = next;
        }
        break;
    }
    default:
        exclusive_lock_completed(cl, rop);
        break;
    }
    cpu_thread_release(th);
}

static void librbd_complete(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *rop = obj;
    struct cluster *c = rop->cl->c;
    double cost = c->spec.cost.librbd_complete_us;
    if (rop->kind == RADOS_PARENT_READ)
        cost += c->spec.cost.copyup_client_us;
    cpu_exec(th, cost, librbd_completed, rop, 0);
}

static void client_rx_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *rop = obj;
    struct client *cl = rop->cl;
    throttle_put(&cl->objecter, s, rop_request_bytes(rop));
    /* handle_osd_op_reply: op_reply, op_active; _finish_op puts the budget */
    struct objecter_perf *p = &cl->operf;
    p->op_reply++;
    p->op_active--;
    p->throttle_ops.put++, p->throttle_ops.put_sum++;
    p->throttle_bytes.put++, p->throttle_bytes.put_sum += rop_request_bytes(rop);
    objecter_gauges(cl);
    /* neorados posts the completion to the io_context (Pacific+); before,
       librados queued the AioCompletion callback to its finisher thread */
    cpu_pool_submit(cl->completes_on_finisher ? &cl->rados_finisher : &cl->io_context, CPU_PRIO_NORMAL,
                    librbd_complete, rop, 0);
    cpu_thread_release(th);
}

static void client_rx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *rop = obj;
    struct cluster *c = rop->cl->c;
    rop->t_reply_rx = sim_now(s);
    uint32_t bytes = REPLY_BYTES + (rop->subops & SUBOP_READ && rop->result == 0 ? (uint32_t)rop->len : 0);
    cpu_exec(th, msgr_rx_cost(c, bytes) + c->spec.cost.objecter_complete_us, client_rx_done, rop, 0);
}

static void librbd_reply_delivered(struct sim *s, void *obj, uint64_t arg)
{
    struct rados_op *rop = obj;
    cpu_pool_submit(client_worker(rop->cl, rop->primary), CPU_PRIO_NORMAL, client_rx, rop, 0);
}

/* ---- watch/notify: MWatchNotify and NOTIFY_COMPLETE ---- */

/* The watcher (arg) or the notifier (arg 0) of the notify rop; on its io_context. */
static void notify_handled(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *n = obj;
    if (arg)
        exclusive_lock_handle_notify((struct client *)(uintptr_t)arg, n);
    else
        exclusive_lock_notify_complete(n->cl, n);
    cpu_thread_release(th);
}

static void notify_queued(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *n = obj;
    cpu_exec(th, n->cl->c->spec.cost.librbd_complete_us, notify_handled, obj, arg);
}

static void notify_rx_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *n = obj;
    struct client *cl = arg ? (struct client *)(uintptr_t)arg : n->cl;
    /* the Objecter's linger op hands it to the image's watcher (ImageWatcher::handle_notify) */
    cpu_pool_submit(&cl->io_context, CPU_PRIO_NORMAL, notify_queued, n, arg);
    cpu_thread_release(th);
}

static void notify_rx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *n = obj;
    struct cluster *c = n->cl->c;
    cpu_exec(th, msgr_rx_cost(c, REPLY_BYTES) + c->spec.cost.objecter_complete_us, notify_rx_done, n, arg);
}

static void librbd_watch_notify_delivered(struct sim *s, void *obj, uint64_t arg)
{
    struct rados_op *n = obj;
    struct client *w = (struct client *)(uintptr_t)arg;
    cpu_pool_submit(client_worker(w, n->primary), CPU_PRIO_NORMAL, notify_rx, n, arg);
}

static void librbd_notify_complete_delivered(struct sim *s, void *obj, uint64_t arg)
{
    struct rados_op *n = obj;
    cpu_pool_submit(client_worker(n->cl, n->primary), CPU_PRIO_NORMAL, notify_rx, n, 0);
}

/* ---- set-up ---- */

static void librbd_init(struct client *cl, struct cluster *c, uint32_t id, uint32_t host)
{
    memset(cl, 0, sizeof *cl);
    cl->ops = &librbd_client_ops;
    cl->c = c;
    cl->id = id;
    cl->host = host;
    struct cpu_host *h = &c->hosts[host];
    /* librbd's IO path moved to neorados/asio in Pacific (ceph PR 35629, 16.0);
       12.2-15.2 complete on librados' finisher */
    cl->completes_on_finisher = !release_librbd_on_asio(&c->spec.rel);
    /* from 16.2 the I/O path runs on librados' io_context_pool, which
       RadosClient::connect starts with librados_thread_count threads and
       AsioEngine's constructor raises to rbd_op_threads when that is larger
       (librbd/AsioEngine.cc; ceph's qa/workunits/rbd/rbd-nbd.sh counts
       librados_thread_count io_context_pool threads in an rbd-nbd process);
       before, librbd's op work queue of rbd_op_threads */
    int64_t io_threads = c->spec.ceph.rbd_op_threads;
    if (!cl->completes_on_finisher && c->spec.ceph.librados_thread_count > io_threads)
        io_threads = c->spec.ceph.librados_thread_count;
    cpu_pool_init(&cl->io_context, h, "io_context_pool", (uint32_t)io_threads);
    cpu_pool_init(&cl->rados_finisher, h, "fn-radosclient", 1);
    uint32_t nm = (uint32_t)c->spec.ceph.ms_async_op_threads;
    cl->msgr = sim_xcalloc(nm, sizeof *cl->msgr);
    for (uint32_t i = 0; i < nm; i++)
        cpu_pool_init(&cl->msgr[i], h, "msgr-worker", 1);
    throttle_init(&cl->objecter, (uint64_t)c->spec.ceph.objecter_inflight_ops,
                  (uint64_t)c->spec.ceph.objecter_inflight_op_bytes);
    cl->operf.throttle_ops.max = (uint64_t)c->spec.ceph.objecter_inflight_ops;
    cl->operf.throttle_bytes.max = (uint64_t)c->spec.ceph.objecter_inflight_op_bytes;
    idmap_init(&cl->ictx.objs, sizeof(struct rbd_obj), 256);
}

static void librbd_fini(struct client *cl)
{
    cpu_pool_fini(&cl->io_context);
    cpu_pool_fini(&cl->rados_finisher);
    for (uint32_t i = 0; i < (uint32_t)cl->c->spec.ceph.ms_async_op_threads; i++)
        cpu_pool_fini(&cl->msgr[i]);
    free(cl->msgr);
    for (uint32_t i = 0; i < cl->n_workers; i++)
        cpu_pool_fini(&cl->workers[i].thread);
    free(cl->workers);
    idmap_fini(&cl->ictx.objs);
}

static void worker_start(struct sim *s, void *obj, uint64_t arg)
{
    struct fio_worker *w = obj;
    w->t_start = w->think_last_t = sim_now(s);
    cpu_pool_submit(&w->thread, CPU_PRIO_NORMAL, fio_issue_item, w, 0);
}

/* startdelay=A-B: each job clone draws its own delay in [A, B] (fio's
   fixup_options: rand_between(&td->delay_state, start_delay, start_delay_high),
   from the job's own seeded stream) */
static sim_time_t worker_start_delay(struct sim *s, const struct fio_worker *w)
{
    const struct workload_job *j = w->job;
    if (j->startdelay_max_ns <= j->startdelay_ns)
        return (sim_time_t)j->startdelay_ns;
    struct sim_taus2 t;
    sim_rng_inline(s, "fio", w->index, "start_delay", &t);
    uint64_t span = j->startdelay_max_ns - j->startdelay_ns + 1;
    return (sim_time_t)(j->startdelay_ns + (uint64_t)((double)span * (sim_taus2_get(&t) / 4294967296.0)));
}

void client_start_workers(struct client *cl)
{
    for (uint32_t i = 0; i < cl->n_workers; i++) {
        struct fio_worker *w = &cl->workers[i];
        sim_schedule(cl->c->s, worker_start_delay(cl->c->s, w), worker_start, w, 0);
    }
}

/* fio's threads: every client kind has them */
double client_workers_cpu_ns(const struct client *cl)
{
    double ns = 0;
    for (uint32_t i = 0; i < cl->n_workers; i++)
        ns += cpu_pool_busy_ns(&cl->workers[i].thread);
    return ns;
}

static double librbd_cpu_ns(const struct client *cl)
{
    double ns = client_workers_cpu_ns(cl) + cpu_pool_busy_ns(&cl->io_context) + cpu_pool_busy_ns(&cl->rados_finisher);
    for (uint32_t i = 0; i < (uint32_t)cl->c->spec.ceph.ms_async_op_threads; i++)
        ns += cpu_pool_busy_ns(&cl->msgr[i]);
    return ns;
}

const struct client_ops librbd_client_ops = {
    .name = "librbd",
    .init = librbd_init,
    .fini = librbd_fini,
    .start = client_start_workers,
    .reply_delivered = librbd_reply_delivered,
    .rx_worker = client_worker,
    .watch_notify_delivered = librbd_watch_notify_delivered,
    .notify_complete_delivered = librbd_notify_complete_delivered,
    .cpu_ns = librbd_cpu_ns,
};

/* ---- trace replay (replay.h): I/Os handed in by a port instead of a job ---- */

static void replay_issue_item(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct fio_io *io = obj;
    cpu_exec(th, fio_submit_cost(io->w), fio_submitted, io, 0);
}

struct fio_io *client_issue_io(struct fio_worker *w, int ddir, uint64_t offset, uint64_t len)
{
    SIM_ASSERT(!w->job && len > 0);
    struct fio_io *io = io_start(w, ddir, len, sim_now(w->cl->c->s));
    io->offset = offset;
    cpu_pool_submit(&w->thread, CPU_PRIO_NORMAL, replay_issue_item, io, 0);
    return io;
}
