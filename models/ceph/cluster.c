/*
 * cluster.c - builds a cluster from its spec, places PGs and objects, runs
 * warm-up and measurement, and exposes the results.
 *
 * Placement stands in for CRUSH (straw2 with equal weights): each PG ranks
 * the failure domains (hosts, or OSDs when there are too few hosts, like
 * osd_crush_chooseleaf_type 0) by a hash of (pgid, domain) and takes the top
 * pool.size; the primary is the first.  Objects map to PGs as Ceph maps
 * them: ceph_str_hash_rjenkins of the name (rbd_data.<id>.<objno>), then
 * ceph_stable_mod by pg_num (pg_pool_t::raw_hash_to_pg), so the PG ids in
 * the dumps are the ones a tool would compute from the object names.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cluster-internal.h"
#include "err.h"
#include "librbd.h"
#include "msgr.h"
#include "osd.h"

const char *const image_kind_names[] = {"plain", "clone", "flattened", NULL};
const char *const guard_design_names[] = {"assert_exists", "none", "stat_roundtrip", "write_flag",
                                          "object_map_skip", NULL};
const char *const stage_names[STAGE_COUNT] = {
    "client submit", "net to primary", "primary queue", "do_op + lock wait", "primary prepare",
    "local commit", "replica commit", "primary reply", "net to client", "client complete"};

const char *const replica_stage_names[REPLICA_STAGE_COUNT] = {
    "to replica", "replica queue", "replica commit", "back to primary"};

const uint32_t *cluster_acting(const struct cluster *c, uint32_t pg)
{
    return &c->acting[(size_t)pg * c->spec.pool_size];
}

const char *cluster_subops_event(const struct cluster *c, uint32_t pg)
{
    return c->subops_event[pg];
}

/* pg_pool_t::raw_hash_to_pg: ceph_stable_mod(hash, pg_num, pg_num_mask) */
static uint32_t name_pg(const struct cluster *c, const char *name)
{
    uint32_t n = c->spec.pg_num, mask = 1;
    while (mask < n)
        mask <<= 1;
    return optrack_stable_mod(optrack_str_hash_rjenkins(name, strlen(name)), n, mask - 1);
}

uint32_t cluster_object_pg(const struct cluster *c, const struct image *img, uint64_t objno)
{
    char name[64];
    snprintf(name, sizeof name, "rbd_data.%" PRIx64 ".%016" PRIx64, img->spec.id, objno);
    return name_pg(c, name);
}

/* Rank candidates by hash(pg, candidate), highest first (straw2 with equal weights). */
static void place_pgs(struct cluster *c)
{
    const struct cluster_spec *sp = &c->spec;
    uint32_t size = sp->pool_size, n_osd_hosts = sp->hosts;
    c->acting = sim_xcalloc((size_t)sp->pg_num * size, sizeof *c->acting);
    c->subops_event = sim_xcalloc(sp->pg_num, sizeof *c->subops_event);
    bool by_host = sp->failure_domain_host && n_osd_hosts >= size;
    uint32_t n_dom = by_host ? n_osd_hosts : c->n_osds;
    uint64_t *score = sim_xcalloc(n_dom, sizeof *score);
    uint8_t *taken = sim_xcalloc(n_dom, 1);
    for (uint32_t pg = 0; pg < sp->pg_num; pg++) {
        memset(taken, 0, n_dom);
        for (uint32_t d = 0; d < n_dom; d++)
            score[d] = sim_fmix64(((uint64_t)pg << 32) ^ (d * 0x9E3779B97F4A7C15ull));
        uint32_t *acting = &c->acting[(size_t)pg * size];
        for (uint32_t r = 0; r < size; r++) {
            uint32_t best = UINT32_MAX;
            for (uint32_t d = 0; d < n_dom; d++)
                if (!taken[d] && (best == UINT32_MAX || score[d] > score[best]))
                    best = d;
            taken[best] = 1;
            if (by_host) {
                /* the host's OSD with the highest straw */
                uint32_t first = best * sp->osds_per_host, pick = first;
                uint64_t top = 0;
                for (uint32_t k = 0; k < sp->osds_per_host; k++) {
                    uint64_t h = sim_fmix64(((uint64_t)pg << 32) ^ ((first + k) * 0xC2B2AE3D27D4EB4Full));
                    if (k == 0 || h > top) {
                        top = h;
                        pick = first + k;
                    }
                }
                acting[r] = pick;
            } else {
                acting[r] = best;
            }
        }
        /* Ceph prints the replicas as a sorted set ("waiting for subops from 1,2") */
        uint32_t rep[16];
        SIM_ASSERT(size - 1 <= 16); /* pool.size is at most 10 */
        uint32_t nr = size - 1;
        for (uint32_t r = 0; r < nr; r++)
            rep[r] = acting[r + 1];
        for (uint32_t a = 1; a < nr; a++)
            for (uint32_t b = a; b > 0 && rep[b - 1] > rep[b]; b--) {
                uint32_t t = rep[b];
                rep[b] = rep[b - 1];
                rep[b - 1] = t;
            }
        int n = snprintf(c->subops_event[pg], sizeof c->subops_event[pg], "waiting for subops from ");
        for (uint32_t r = 0; r < nr && n < (int)sizeof c->subops_event[pg]; r++)
            n += snprintf(c->subops_event[pg] + n, sizeof c->subops_event[pg] - (size_t)n, "%s%u",
                          r ? "," : "", rep[r]);
    }
    free(score);
    free(taken);
}

static void image_init(struct cluster *c, struct image *img, const struct image_spec *spec,
                       struct image *parent, gsl_rng *rng)
{
    memset(img, 0, sizeof *img);
    img->spec = *spec;
    img->object_size = 1ull << spec->order;
    img->n_objects = (spec->size_bytes + img->object_size - 1) / img->object_size;
    img->obj = sim_xcalloc(img->n_objects, sizeof *img->obj);
    img->parent = parent;
    for (uint64_t i = 0; i < img->n_objects; i++) {
        struct obj_state *o = &img->obj[i];
        o->pg = cluster_object_pg(c, img, i);
        rwlockq_init(&o->lock, osd_backend_for(&c->spec.rel)->obj_lock_policy);
        /* plain and flattened images were fully written before the run (as in the
           lab captures); a clone has copied_up of its objects copied up */
        bool exists = spec->kind != IMAGE_CLONE || gsl_rng_uniform(rng) < spec->copied_up;
        o->exists = o->map_exists = exists;
    }
    char name[64];
    snprintf(name, sizeof name, "rbd_object_map.%" PRIx64, spec->id);
    img->map_obj.pg = name_pg(c, name);
    img->map_obj.exists = img->map_obj.map_exists = true;
    rwlockq_init(&img->map_obj.lock, osd_backend_for(&c->spec.rel)->obj_lock_policy);
}

static void image_fini(struct image *img)
{
    free(img->obj);
}

/* Log entries gathered per stage cost CPU on every stage (debug_* levels). */
static double log_cost(const struct cluster_spec *sp)
{
    const struct ceph_options *o = &sp->ceph;
    double levels = (double)(o->debug_osd + o->debug_ms + o->debug_bluestore + o->debug_rocksdb / 4 +
                             o->debug_bdev / 3);
    return levels * sp->cost.log_entries_per_stage_per_level * sp->cost.log_entry_us / 3.0;
}

struct cluster *cluster_create(const struct cluster_spec *spec, struct sim_err *err)
{
    if (spec->pool_size < 1 || spec->pg_num < 1 || spec->hosts < 1 || spec->osds_per_host < 1) {
        sim_errf(err, -EINVAL, "cluster: hosts, osds_per_host, pool.size and pool.pg_num must be >= 1");
        return NULL;
    }
    if (spec->pool_size > spec->hosts * spec->osds_per_host) {
        sim_errf(err, -EINVAL, "pool.size: %u replicas need at least %u OSDs (the cluster has %u)",
                 spec->pool_size, spec->pool_size, spec->hosts * spec->osds_per_host);
        return NULL;
    }
    if (!spec->jobs.jobs || spec->jobs.n_jobs < 1) {
        sim_errf(err, -EINVAL, "clients: no fio job to run");
        return NULL;
    }
    struct cluster *c = sim_xcalloc(1, sizeof *c);
    c->spec = *spec;
    c->s = sim_create(spec->seed);
    c->lock_rule = ceph_rw_lock_rule(&spec->ceph, &spec->rel);
    c->log_cost_us = log_cost(spec);
    pool_init(&c->op_pool, sizeof(struct osd_op), 256);
    pool_init(&c->rados_pool, sizeof(struct rados_op), 256);
    pool_init(&c->io_pool, sizeof(struct fio_io), 256);
    pool_init(&c->msg_pool, sizeof(struct msgr_msg), 256);

    c->n_hosts = spec->hosts + spec->client_hosts;
    c->hosts = sim_xcalloc(c->n_hosts, sizeof *c->hosts);
    for (uint32_t h = 0; h < c->n_hosts; h++) {
        struct cpu_params cp = spec->cpu;
        cp.index = h;
        cpu_host_init(&c->hosts[h], c->s, &cp);
    }
    net_init(&c->net, c->s, &spec->net, c->n_hosts);

    c->n_osds = spec->hosts * spec->osds_per_host;
    place_pgs(c);
    c->osds = sim_xcalloc(c->n_osds, sizeof *c->osds);
    for (uint32_t i = 0; i < c->n_osds; i++)
        osd_init(&c->osds[i], c, i, i / spec->osds_per_host);

    gsl_rng *img_rng = sim_rng(c->s, "image", 0, "copied_up");
    if (spec->image.kind == IMAGE_CLONE) {
        struct image_spec ps = spec->image;
        ps.kind = IMAGE_PLAIN;
        ps.id = spec->image.id ^ 0x5a5a5a5a5aull;
        image_init(c, &c->parent, &ps, NULL, img_rng);
        image_init(c, &c->image, &spec->image, &c->parent, img_rng);
    } else {
        image_init(c, &c->image, &spec->image, NULL, img_rng);
    }

    /* fio's rbd engine opens its own rados connection and image in every job
       thread (numjobs clones included): one client (librbd instance) each */
    const struct workload *jf = &spec->jobs;
    for (int j = 0; j < jf->n_jobs; j++)
        c->n_results += jf->jobs[j].numjobs;
    c->n_clients = c->n_results;
    c->clients = sim_xcalloc(c->n_clients, sizeof *c->clients);
    c->results = sim_xcalloc(c->n_results, sizeof *c->results);
    uint64_t img_size = c->image.n_objects * c->image.object_size;
    uint32_t slot = 0;
    for (int j = 0; j < jf->n_jobs; j++) {
        const struct workload_job *job = &jf->jobs[j];
        for (uint32_t k = 0; k < job->numjobs; k++, slot++) {
            uint32_t host = spec->client_hosts ? spec->hosts + slot % spec->client_hosts : 0;
            struct client *cl = &c->clients[slot];
            librbd_client_ops.init(cl, c, slot, host); /* fio ioengine=rbd; init sets cl->ops */
            cl->n_workers = 1;
            cl->workers = sim_xcalloc(1, sizeof *cl->workers);
            struct fio_worker *w = &cl->workers[0];
            w->cl = cl;
            w->job = job;
            w->index = slot;
            cpu_pool_init(&w->thread, &c->hosts[host], "fio", 1);
            uint64_t off = job->offset_pct > 0 ? (uint64_t)(job->offset_pct / 100.0 * img_size) : job->offset;
            uint64_t len = job->size ? job->size
                           : job->size_pct > 0 ? (uint64_t)(job->size_pct / 100.0 * img_size) : img_size;
            if (off >= img_size)
                off = 0;
            if (off + len > img_size)
                len = img_size - off;
            w->region_off = off;
            w->region_len = len;
            fiogen_init(&w->gen, c->s, job, slot + 1, len); /* fio's thread_number is 1-based */
            struct job_result *r = &c->results[slot];
            snprintf(r->jobname, sizeof r->jobname, "%s", job->name);
            r->groupid = job->groupid;
            r->job_index = (uint32_t)j;
            r->iodepth = job->iodepth;
            for (int d = 0; d < FIO_DDIR_NR; d++) {
                hist_reset(&r->dir[d].slat);
                hist_reset(&r->dir[d].clat);
                hist_reset(&r->dir[d].lat);
            }
        }
    }
    return c;
}

void cluster_destroy(struct cluster *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; i < c->n_clients; i++)
        c->clients[i].ops->fini(&c->clients[i]);
    free(c->clients);
    for (uint32_t i = 0; i < c->n_osds; i++)
        osd_fini(&c->osds[i]);
    free(c->osds);
    image_fini(&c->image);
    if (c->parent.obj)
        image_fini(&c->parent);
    net_fini(&c->net);
    free(c->hosts);
    free(c->acting);
    free(c->subops_event);
    free(c->results);
    pool_fini(&c->op_pool);
    pool_fini(&c->rados_pool);
    pool_fini(&c->io_pool);
    pool_fini(&c->msg_pool);
    sim_destroy(c->s);
    free(c);
}

void cluster_account_stages(struct cluster *c, const struct fio_io *io)
{
    const sim_time_t *st = io->st;
    sim_time_t now = sim_now(c->s);
    sim_time_t commit = st[STAGE_LOCAL_COMMIT] > st[STAGE_REPLICA_COMMIT] ? st[STAGE_LOCAL_COMMIT]
                                                                           : st[STAGE_REPLICA_COMMIT];
    sim_time_t mark[STAGE_COUNT + 1] = {
        io->t_issue, st[STAGE_CLIENT_SUBMIT], st[STAGE_NET_TO_PRIMARY], st[STAGE_PRIMARY_QUEUE],
        st[STAGE_PRIMARY_LOCK_WAIT], st[STAGE_PRIMARY_PREPARE], st[STAGE_PRIMARY_PREPARE], commit,
        st[STAGE_PRIMARY_REPLY], st[STAGE_NET_TO_CLIENT], now};
    /* stage i runs from mark[i] to its end; local and replica commits overlap */
    sim_time_t end[STAGE_COUNT] = {mark[1], mark[2], mark[3], mark[4], mark[5],
                                   st[STAGE_LOCAL_COMMIT], st[STAGE_REPLICA_COMMIT], mark[8], mark[9], mark[10]};
    for (int i = 0; i < STAGE_COUNT; i++)
        if (end[i] >= mark[i])
            c->stage_sum[i] += (double)(end[i] - mark[i]);
    c->stage_n++;
    const sim_time_t *r = io->rep;
    sim_time_t sub = st[STAGE_PRIMARY_PREPARE], back = st[STAGE_REPLICA_COMMIT];
    if (r[0] >= sub && r[1] >= r[0] && r[2] >= r[1] && back >= r[2]) {
        c->replica_sum[REPLICA_NET_IN] += (double)(r[0] - sub);
        c->replica_sum[REPLICA_QUEUE] += (double)(r[1] - r[0]);
        c->replica_sum[REPLICA_COMMIT] += (double)(r[2] - r[1]);
        c->replica_sum[REPLICA_NET_BACK] += (double)(back - r[2]);
        c->replica_n++;
    }
}

void cluster_replica_stage_means(const struct cluster *c, double out_ns[REPLICA_STAGE_COUNT])
{
    for (int i = 0; i < REPLICA_STAGE_COUNT; i++)
        out_ns[i] = c->replica_n ? c->replica_sum[i] / (double)c->replica_n : 0;
}

void cluster_stage_means(const struct cluster *c, double out_ns[STAGE_COUNT], uint64_t *n)
{
    for (int i = 0; i < STAGE_COUNT; i++)
        out_ns[i] = c->stage_n ? c->stage_sum[i] / (double)c->stage_n : 0;
    *n = c->stage_n;
}

static void start_measuring(struct sim *s, void *obj, uint64_t arg)
{
    struct cluster *c = obj;
    c->measuring = true;
    c->t_measure_start = sim_now(s);
    for (uint32_t h = 0; h < c->n_hosts; h++)
        cpu_host_reset_stats(&c->hosts[h]);
    net_reset_stats(&c->net);
    for (uint32_t i = 0; i < c->n_osds; i++)
        osd_reset_stats(&c->osds[i]);
    memset(c->stage_sum, 0, sizeof c->stage_sum);
    c->stage_n = 0;
    memset(c->replica_sum, 0, sizeof c->replica_sum);
    c->replica_n = 0;
}

void cluster_run(struct cluster *c, void (*progress)(void *ctx, double done), void *ctx)
{
    struct sim *s = c->s;
    for (uint32_t i = 0; i < c->n_clients; i++)
        c->clients[i].ops->start(&c->clients[i]);
    sim_schedule(s, c->spec.warmup_ns, start_measuring, c, 0);
    c->t_end = c->spec.warmup_ns + c->spec.duration_ns;
    if (progress) {
        for (int i = 1; i <= 100; i++) {
            sim_run(s, c->t_end / 100 * (sim_time_t)i + (i == 100 ? c->t_end % 100 : 0));
            progress(ctx, i / 100.0);
        }
    } else {
        sim_run(s, c->t_end);
    }
    c->measuring = false;
    sim_time_t measured = sim_now(s) - c->t_measure_start;
    uint32_t secs = (uint32_t)(measured / SIM_NS_PER_S);
    for (uint32_t i = 0; i < c->n_results; i++) {
        struct job_result *r = &c->results[i];
        r->runtime_ns = measured;
        for (int d = 0; d < FIO_DDIR_NR; d++)
            r->dir[d].n_samples = secs < 1024 ? secs : 1024;
    }
    /* CPU of the fio threads as fio reports it; the model does not split user
       and kernel time, so all of it is reported as usr */
    for (uint32_t i = 0; i < c->n_clients; i++)
        for (uint32_t k = 0; k < c->clients[i].n_workers; k++) {
            struct fio_worker *w = &c->clients[i].workers[k];
            double pct = measured ? 100.0 * w->thread.threads[0].busy_ns / (double)measured : 0;
            c->results[w->index].usr_cpu = pct;
            c->results[w->index].sys_cpu = 0;
        }
}

struct sim *cluster_sim(struct cluster *c) { return c->s; }
uint32_t cluster_n_osds(const struct cluster *c) { return c->n_osds; }
int64_t cluster_wall_epoch_ns(const struct cluster *c) { return c->spec.wall_epoch_ns; }
const struct osd_perf *cluster_osd_perf(const struct cluster *c, uint32_t osd) { return &c->osds[osd].perf; }
const struct bluestore_perf *cluster_bluestore_perf(const struct cluster *c, uint32_t osd)
{
    const struct osd *o = &c->osds[osd];
    return o->store_ops->bluestore_perf ? o->store_ops->bluestore_perf(o->store) : NULL;
}
const struct optracker *cluster_optracker(const struct cluster *c, uint32_t osd) { return &c->osds[osd].tracker; }
uint32_t cluster_n_jobs(const struct cluster *c) { return c->n_results; }
const struct job_result *cluster_job_results(const struct cluster *c) { return c->results; }

void cluster_stats(const struct cluster *c, struct cluster_stats *out)
{
    *out = (struct cluster_stats){
        .events = sim_events(c->s),
        .measured_ns = sim_now(c->s) - c->t_measure_start,
        .rw_lock_rule = c->lock_rule == RW_LOCK_RULE_EXCL_IF_READ ? "excl_if_read" : "excl_if_read_data",
        .n_hosts = c->n_hosts,
        .n_osd_hosts = c->spec.hosts,
        .n_osds = c->n_osds,
        .peak_ops_in_flight = c->op_pool.peak,
    };
}

void cluster_host_stats(const struct cluster *c, uint32_t h, struct cluster_host_stats *out)
{
    const struct cpu_host *ch = &c->hosts[h];
    *out = (struct cluster_host_stats){
        .osd_host = h < c->spec.hosts,
        .busy_cores = cpu_host_busy_cores(ch),
        .cpu_busy_ns = ch->busy_ns_total,
        .cpu_utilisation = station_utilisation(&ch->cores),
        .wakeups = ch->wakeups,
        .wake_ns_total = ch->wake_ns_total,
    };
}

void cluster_osd_stats(const struct cluster *c, uint32_t osd, struct cluster_osd_stats *out)
{
    const struct osd *o = &c->osds[osd];
    *out = (struct cluster_osd_stats){
        .device_utilisation = nvme_utilisation(&o->dev),
        .device_writes = o->dev.writes,
        .device_flushes = o->dev.flushes,
    };
    const struct bluestore_perf *bp = o->store_ops->bluestore_perf ? o->store_ops->bluestore_perf(o->store) : NULL;
    if (bp) {
        out->txcs = bp->bluestore_txc;
        out->kv_batches = bp->kv_batches;
    }
}
