/*
 * replay.c - traces into the client model (API in replay.h).
 *
 * Mirrors fio's iolog replay (iolog.c read_iolog / ipo_special: each logged I/O is
 * issued in order; with timestamps fio waits until the recorded time, with
 * replay_no_stall it does not wait and keeps iodepth in flight), on the rbd engine:
 * the port's job-less fio_worker (cluster-internal.h) has its own fio thread on the
 * client's host, so submit/complete CPU, librbd's io_context, the simple scheduler,
 * the Objecter and the OSD path are the ones a fio job's I/O goes through.
 * An op-tracker dump is turned into image I/Os with the object number of its
 * rbd_data.<id>.<objno> name; it carries OSD arrival times (initiated_at), i.e. after
 * the client and the network, which shifts every arrival by about the same amount.
 *
 * librbd.c's part of the contract: a worker whose job is NULL never issues I/Os by
 * itself; client_issue_io() starts one now; when one completes, librbd.c records it
 * in the worker's job result slot and calls replay_io_done() before fio's completion
 * CPU, then releases the thread.
 */
#include "replay.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster-internal.h"
#include "librbd.h"

/* ------------------------------------------------------------------ traces */

void replay_trace_add(struct replay_trace *tr, int64_t t_ns, int ddir, uint64_t offset, uint64_t len)
{
    if (tr->n == tr->cap) {
        tr->cap = tr->cap ? 2 * tr->cap : 1024;
        tr->ios = sim_xrealloc(tr->ios, tr->cap, sizeof *tr->ios);
    }
    tr->ios[tr->n++] = (struct replay_io){.t_ns = t_ns, .ddir = ddir, .offset = offset, .len = len};
}

/* qsort is not stable: sort (time, recorded index) pairs */
struct tagged_io {
    struct replay_io io;
    size_t idx;
};

static int cmp_tagged(const void *a, const void *b)
{
    const struct tagged_io *x = a, *y = b;
    if (x->io.t_ns != y->io.t_ns)
        return x->io.t_ns > y->io.t_ns ? 1 : -1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

void replay_trace_sort(struct replay_trace *tr)
{
    struct tagged_io *t = sim_xcalloc(tr->n ? tr->n : 1, sizeof *t);
    for (size_t i = 0; i < tr->n; i++)
        t[i] = (struct tagged_io){tr->ios[i], i};
    qsort(t, tr->n, sizeof *t, cmp_tagged);
    for (size_t i = 0; i < tr->n; i++)
        tr->ios[i] = t[i].io;
    free(t);
}

void replay_trace_free(struct replay_trace *tr)
{
    free(tr->ios);
    memset(tr, 0, sizeof *tr);
}

/* ------------------------------------------------------------------ the port */

struct replay_req {
    struct replay_port *p;
    uint64_t tag;
    int ddir;
    uint64_t offset, len;
};

struct replay_port {
    struct fio_worker w;     /* first: replay_io_done() gets it back from the worker */
    struct cluster *c;
    replay_done_fn done;
    void *ctx;
    struct pool reqs;
    uint64_t inflight;
};

struct replay_port *replay_port_open(struct cluster *c, uint32_t client, replay_done_fn done, void *ctx)
{
    SIM_ASSERT(client < c->n_clients && c->clients[client].n_workers > 0);
    struct replay_port *p = sim_xcalloc(1, sizeof *p);
    struct client *cl = &c->clients[client];
    p->c = c;
    p->done = done;
    p->ctx = ctx;
    p->w.cl = cl;
    p->w.job = NULL; /* job-less: librbd.c issues nothing on its own */
    p->w.index = cl->workers[0].index;
    cpu_pool_init(&p->w.thread, &c->hosts[cl->host], "fio", 1);
    p->w.thread.process = "fio";
    pool_init(&p->reqs, sizeof(struct replay_req), 256);
    return p;
}

void replay_port_close(struct replay_port *p)
{
    if (!p)
        return;
    cpu_pool_fini(&p->w.thread);
    pool_fini(&p->reqs);
    free(p);
}

uint64_t replay_port_inflight(const struct replay_port *p)
{
    return p->inflight;
}

static void req_issue(struct sim *s, void *obj, uint64_t arg)
{
    struct replay_req *r = obj;
    struct replay_port *p = r->p;
    client_issue_io(&p->w, r->ddir, r->offset, r->len)->owner = r; /* back in replay_io_done */
}

void replay_submit_io(struct replay_port *p, sim_time_t t, int ddir, uint64_t offset, uint64_t len,
                      uint64_t tag)
{
    struct sim *s = p->c->s;
    struct replay_req *r = pool_get(&p->reqs);
    r->p = p;
    r->tag = tag;
    r->ddir = ddir;
    r->offset = offset;
    r->len = len;
    p->inflight++;
    if (t <= sim_now(s))
        req_issue(s, r, 0);
    else
        sim_schedule_at(s, t, req_issue, r, 0);
}

void replay_io_done(struct fio_worker *w, struct fio_io *io, sim_time_t now)
{
    struct replay_port *p = (struct replay_port *)w; /* w is the port's first member */
    struct replay_req *r = io->owner;
    SIM_ASSERT(r && r->p == p);
    p->inflight--;
    uint64_t tag = r->tag;
    pool_put(&p->reqs, r);
    if (p->done)
        p->done(p->ctx, tag, io->t_issue, now); /* client_issue_io stamped it: the port's issue time */
}

/* ------------------------------------------------------------------ a whole replay */

struct run_ctx {
    struct cluster *c;
    struct replay_port *port;
    const struct replay_trace *tr;
    const struct replay_opts *o;
    struct replay_result *res;
    size_t next;             /* next trace I/O to submit */
    int64_t t0;              /* trace time of the first I/O */
};

static void submit_next(struct run_ctx *x, sim_time_t at)
{
    const struct replay_io *io = &x->tr->ios[x->next];
    replay_submit_io(x->port, at, io->ddir, io->offset, io->len, x->next);
    x->next++;
}

static sim_time_t arrival(const struct run_ctx *x, size_t i)
{
    double dt = (double)(x->tr->ios[i].t_ns - x->t0);
    if (x->o->speed > 0)
        dt /= x->o->speed;
    return (sim_time_t)llround(dt);
}

static void open_arrival(struct sim *s, void *obj, uint64_t arg)
{
    struct run_ctx *x = obj;
    /* every I/O due now, in recorded order; then wait for the next arrival */
    while (x->next < x->tr->n && arrival(x, x->next) <= sim_now(s))
        submit_next(x, sim_now(s));
    if (x->next < x->tr->n)
        sim_schedule_at(s, arrival(x, x->next), open_arrival, x, 0);
}

static void run_done(void *ctx, uint64_t tag, sim_time_t t_issue, sim_time_t t_done)
{
    struct run_ctx *x = ctx;
    struct replay_result *r = x->res;
    r->t_issue[tag] = t_issue;
    r->t_done[tag] = t_done;
    r->n_done++;
    if (x->o->mode == REPLAY_CLOSED && x->next < x->tr->n)
        submit_next(x, t_done);
    if (r->n_done == r->n)
        sim_stop(cluster_sim(x->c));
}

/* Runs at t = 0 after cluster_run's own t = 0 events (start of measurement included). */
static void run_begin(struct sim *s, void *obj, uint64_t arg)
{
    struct run_ctx *x = obj;
    if (x->o->mode == REPLAY_OPEN) {
        open_arrival(s, x, 0);
    } else {
        uint32_t depth = x->o->iodepth ? x->o->iodepth : 1;
        while (x->next < x->tr->n && x->next < depth)
            submit_next(x, sim_now(s));
    }
}

static void run_kick(struct sim *s, void *obj, uint64_t arg)
{
    sim_schedule(s, 0, run_begin, obj, 0);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void summarise(struct replay_result *r)
{
    int64_t *lat = sim_xcalloc(r->n ? r->n : 1, sizeof *lat);
    size_t k = 0;
    sim_time_t first = 0, last = 0;
    double sum = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (!r->t_done[i])
            continue;
        lat[k] = r->t_done[i] - r->t_issue[i];
        sum += (double)lat[k];
        if (!k || r->t_issue[i] < first)
            first = r->t_issue[i];
        if (r->t_done[i] > last)
            last = r->t_done[i];
        k++;
    }
    qsort(lat, k, sizeof *lat, cmp_i64);
    r->makespan = k ? last - first : 0;
    r->iops = r->makespan > 0 ? (double)k * 1e9 / (double)r->makespan : 0;
    r->lat_mean_us = k ? sum / (double)k / 1e3 : NAN;
    r->lat_p50_us = k ? (double)lat[(k - 1) / 2] / 1e3 : NAN;
    r->lat_p99_us = k ? (double)lat[(size_t)ceil(0.99 * (double)k) - 1] / 1e3 : NAN;
    free(lat);
}

int replay_run(const struct cluster_spec *spec_in, const struct replay_trace *tr, const struct replay_opts *o,
               struct replay_result *res, struct cluster **out, struct sim_err *err)
{
    memset(res, 0, sizeof *res);
    if (out)
        *out = NULL;
    if (!tr->n)
        return sim_errf(err, -EINVAL, "replay: the trace has no reads or writes");
    if (o->mode == REPLAY_CLOSED && o->iodepth < 1)
        return sim_errf(err, -EINVAL, "replay: closed loop needs iodepth >= 1");
    struct cluster_spec spec = *spec_in;
    int64_t t0 = tr->ios[0].t_ns;
    double span = (double)(tr->ios[tr->n - 1].t_ns - t0);
    if (o->mode == REPLAY_OPEN && o->speed > 0)
        span /= o->speed;
    double drain = (o->max_s > 0 ? o->max_s : 60.0) * 1e9;
    /* measure from t = 0; the run ends when the last I/O completes (sim_stop) */
    spec.warmup_ns = 0;
    spec.duration_ns = (sim_time_t)(o->mode == REPLAY_OPEN ? span + drain : drain * 1000.0);
    struct cluster *c = cluster_create(&spec, err);
    if (!c)
        return err ? err->code : -EINVAL;
    /* the scenario's jobs stay idle: their workers issue nothing */
    for (uint32_t i = 0; i < c->n_clients; i++)
        for (uint32_t k = 0; k < c->clients[i].n_workers; k++)
            c->clients[i].workers[k].stopped = true;
    res->n = tr->n;
    res->t_issue = sim_xcalloc(tr->n, sizeof *res->t_issue);
    res->t_done = sim_xcalloc(tr->n, sizeof *res->t_done);
    struct run_ctx x = {.c = c, .tr = tr, .o = o, .res = res, .t0 = t0};
    x.port = replay_port_open(c, 0, run_done, &x);
    sim_schedule(c->s, 0, run_kick, &x, 0);
    cluster_run(c, NULL, NULL);
    replay_port_close(x.port);
    summarise(res);
    if (out)
        *out = c;
    else
        cluster_destroy(c);
    if (res->n_done < res->n)
        return sim_errf(err, -ETIMEDOUT, "replay: %zu of %zu I/Os did not complete within the time limit",
                        res->n - res->n_done, res->n);
    return 0;
}

void replay_result_free(struct replay_result *res)
{
    free(res->t_issue);
    free(res->t_done);
    memset(res, 0, sizeof *res);
}
