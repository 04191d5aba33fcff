/*
 * runner.c - replications, outputs and summaries of one scenario.
 */
#include "runner.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cluster.h"
#include "clusterjson.h"
#include "fig_waterfall.h"
#include "fiolog.h"
#include "fioout.h"
#include "files.h"
#include "jsonu.h"
#include "historicops.h"
#include "optracker.h"
#include "perfcounters.h"
#include "perfdump.h"
#include "wallclock.h"

/* Output paths: the directory name plus a suffix fits. */
#define RUNNER_PATH_MAX 3072

struct progress_ctx {
    int rep, reps;
    double t0;
    bool enabled;
};

static void progress_cb(void *ctx, double done)
{
    struct progress_ctx *p = ctx;
    if (!p->enabled)
        return;
    double frac = (p->rep + done) / p->reps;
    double el = wallclock_s() - p->t0;
    if (el < 1.0)
        return;
    double eta = frac > 0 ? el * (1 - frac) / frac : 0;
    fprintf(stderr, "\rcephsim: replication %d/%d [%5.1f%%] [eta %02dm:%02ds]  ", p->rep + 1, p->reps,
            100 * frac, (int)eta / 60, (int)eta % 60);
    fflush(stderr);
}

int runner_write_json(const char *dir, const char *name, cJSON *j, struct sim_err *err)
{
    char path[RUNNER_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = jsonu_write_file(path, j, err);
    cJSON_Delete(j);
    return rc;
}

/* fio.txt: fio's normal report (what fio prints without --output-format). */
static int write_fio_text(const char *dir, const struct job_result *jr, int n, const struct fioout_opts *fo,
                          struct sim_err *err)
{
    char path[RUNNER_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/fio.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return sim_errf(err, -errno, "%s: cannot create: %s", path, strerror(errno));
    fioout_print(f, jr, n, fo);
    if (fclose(f) != 0)
        return sim_errf(err, -EIO, "%s: cannot write: %s", path, strerror(errno));
    return 0;
}

static void fio_opts_of(struct cluster *c, const struct scenario *sc, bool json_plus, struct fioout_opts *fo)
{
    int64_t epoch = cluster_wall_epoch_ns(c);
    *fo = (struct fioout_opts){.fio_version = "cephsim-" CEPHSIM_VERSION, .timestamp_s = epoch / 1000000000,
                               .percentiles = sc->jobs.n_jobs ? sc->jobs.jobs[0].percentile_list : NULL,
                               .n_percentiles = sc->jobs.n_jobs ? sc->jobs.jobs[0].n_percentiles : 0,
                               .group_reporting = sc->jobs.n_jobs && sc->jobs.jobs[0].group_reporting,
                               .global_options = sc->jobs.global_options,
                               .jobs = &sc->jobs,
                               .json_plus = json_plus};
}

static int write_cluster_outputs(struct cluster *c, const struct scenario *sc, const char *dir, bool json_plus,
                                 struct sim_err *err)
{
    int rc;
    int64_t epoch = cluster_wall_epoch_ns(c);
    struct fioout_opts fo;
    fio_opts_of(c, sc, json_plus, &fo);
    const struct job_result *jr = cluster_job_results(c);
    rc = runner_write_json(dir, "fio.json", fioout_json(jr, (int)cluster_n_jobs(c), &fo), err);
    if (rc == 0)
        rc = write_fio_text(dir, jr, (int)cluster_n_jobs(c), &fo, err);
    if (rc < 0)
        return rc;
    sim_time_t now = sim_now(cluster_sim(c));
    for (uint32_t i = 0; i < cluster_n_osds(c); i++) {
        char name[64];
        snprintf(name, sizeof name, "osd.%u.perf.json", i);
        const struct msgr_worker_perf *mw;
        uint64_t running[64];
        uint32_t nw = cluster_osd_msgr_workers(c, i, &mw, running, 64);
        nw = nw < 64 ? nw : 64;
        rc = runner_write_json(dir, name, perfdump_osd_msgr(cluster_osd_perf(c, i), cluster_bluestore_perf(c, i),
                                                            mw, running, nw), err);
        if (rc < 0)
            return rc;
        snprintf(name, sizeof name, "osd.%u.historic_ops.json", i);
        if ((rc = runner_write_json(dir, name, historicops_dump(cluster_optracker(c, i), now, epoch, 0), err)) < 0)
            return rc;
        snprintf(name, sizeof name, "osd.%u.historic_ops_by_duration.json", i);
        if ((rc = runner_write_json(dir, name, historicops_dump(cluster_optracker(c, i), now, epoch, 1), err)) < 0)
            return rc;
    }
    for (uint32_t i = 0; i < cluster_n_clients(c); i++) {
        /* a kernel client (krbd) has no admin socket and so no perf dump: its
           libceph osd_client shows only in debugfs, so nothing is invented here */
        if (strcmp(cluster_client_kind(c, i), "librbd") != 0)
            continue;
        char name[64];
        snprintf(name, sizeof name, "client.%u.perf.json", i);
        if ((rc = runner_write_json(dir, name, perfdump_client(cluster_client_objecter_perf(c, i)), err)) < 0)
            return rc;
    }
    return 0;
}

int runner_write_cluster_outputs(struct cluster *c, const struct scenario *sc, const char *dir,
                                 struct sim_err *err)
{
    return write_cluster_outputs(c, sc, dir, false, err);
}

static int write_outputs(struct cluster *c, const struct scenario *sc, const char *dir, bool json_plus,
                         cJSON *simjson, struct sim_err *err)
{
    int rc = write_cluster_outputs(c, sc, dir, json_plus, err);
    if (rc < 0)
        return rc;
    return runner_write_json(dir, "sim.json", cJSON_Duplicate(simjson, 1), err);
}

/* Open the fio logs c's jobs ask for (fio's write_*_log, write_iolog) in dir; *l NULL if none. */
static int open_fio_logs(struct cluster *c, const struct scenario *sc, const char *dir, struct fiolog **l,
                         struct sim_err *err)
{
    uint32_t n = cluster_n_jobs(c);
    const struct job_result *jr = cluster_job_results(c);
    const struct workload_job **jobs = sim_xcalloc(n ? n : 1, sizeof *jobs);
    const char **names = sim_xcalloc(n ? n : 1, sizeof *names);
    for (uint32_t i = 0; i < n; i++) {
        jobs[i] = jr[i].job_index < (uint32_t)sc->jobs.n_jobs ? &sc->jobs.jobs[jr[i].job_index] : NULL;
        names[i] = jr[i].jobname;
    }
    int rc = fiolog_open(l, dir, jobs, names, n, err);
    free(jobs);
    free(names);
    if (rc == 0 && *l) {
        struct cluster_io_observer o = fiolog_observer(*l, c);
        cluster_set_io_observer(c, &o);
    }
    return rc;
}

/* The headline numbers of one replication. */
struct rep_headline {
    double iops, bw_mib, mean_us, p50_us, p99_us, p999_us, ios;
};

struct rep_result {
    double iops, bw_mib, mean_us, p50_us, p99_us, p999_us;
    struct rep_headline dir[FIO_DDIR_NR]; /* each direction on its own (fio's "read" and "write") */
    double lock_waits, op_r, op_w, op_rw;
    double stage_us[STAGE_COUNT];
    double replica_stage_us[REPLICA_STAGE_COUNT];
    double busy_cores, device_util, wakeups, wake_us_total, ops;
    double client_cpu_us, osd_cpu_us;
    double events, wall_s;
    double lock_releases, lock_blocked, lock_wait_us;
    double cache_hit_bytes, cache_miss_bytes; /* BlueStore data cache, reads, all OSDs */
    double bg_queued, bg_done;  /* txcs of RocksDB background work queued / finished, all OSDs */
    struct run_thread_kind osd_threads[CLUSTER_THREAD_KINDS_MAX]; /* ceph-osd's, all hosts, totals */
    uint32_t n_osd_threads;
    struct run_thread_kind client_threads[CLUSTER_THREAD_KINDS_MAX]; /* fio's (with librbd), totals */
    uint32_t n_client_threads;
};

/* Add n of cpu_us and wakeups to the kind called name in kinds (appended if new). */
static void add_thread_kind(struct run_thread_kind *kinds, uint32_t *n, const char *name, double threads,
                            double cpu_us, double wakeups)
{
    uint32_t k = 0;
    while (k < *n && strcmp(kinds[k].name, name))
        k++;
    if (k == *n) {
        if (*n == CLUSTER_THREAD_KINDS_MAX)
            return;
        kinds[(*n)++] = (struct run_thread_kind){.name = name};
    }
    kinds[k].threads += threads;
    kinds[k].cpu_us_per_op += cpu_us;
    kinds[k].wakeups_per_op += wakeups;
}

/* IOPS, bandwidth and clat percentiles of I/Os counted in h over secs. */
static void headline(const struct hist *h, uint64_t ios, uint64_t bytes, double secs, struct rep_headline *o)
{
    o->iops = (double)ios / secs;
    o->bw_mib = (double)bytes / secs / 1048576.0;
    o->mean_us = hist_mean(h) / 1e3;
    o->p50_us = (double)hist_percentile(h, 50) / 1e3;
    o->p99_us = (double)hist_percentile(h, 99) / 1e3;
    o->p999_us = (double)hist_percentile(h, 99.9) / 1e3;
    o->ios = (double)ios;
}

/*
 * The replication's headline: every I/O of both directions together (for a
 * write-only or read-only run, that direction's), and each direction on its
 * own, as fio's "read" and "write" report them.
 */
static void collect(struct cluster *c, struct rep_result *r)
{
    struct hist all, h[FIO_DDIR_NR];
    hist_reset(&all);
    uint64_t ios[FIO_DDIR_NR] = {0}, bytes[FIO_DDIR_NR] = {0};
    sim_time_t runtime = 0;
    for (int d = 0; d < FIO_DDIR_NR; d++)
        hist_reset(&h[d]);
    for (uint32_t i = 0; i < cluster_n_jobs(c); i++) {
        const struct job_result *jr = &cluster_job_results(c)[i];
        for (int d = 0; d < FIO_DDIR_NR; d++) {
            hist_merge(&h[d], &jr->dir[d].clat);
            hist_merge(&all, &jr->dir[d].clat);
            ios[d] += jr->dir[d].total_ios;
            bytes[d] += jr->dir[d].io_bytes;
        }
        runtime = jr->runtime_ns;
    }
    double secs = runtime ? (double)runtime / 1e9 : 1;
    struct rep_headline tot;
    for (int d = 0; d < FIO_DDIR_NR; d++)
        headline(&h[d], ios[d], bytes[d], secs, &r->dir[d]);
    headline(&all, ios[0] + ios[1], bytes[0] + bytes[1], secs, &tot);
    r->iops = tot.iops;
    r->bw_mib = tot.bw_mib;
    r->mean_us = tot.mean_us;
    r->p50_us = tot.p50_us;
    r->p99_us = tot.p99_us;
    r->p999_us = tot.p999_us;
    r->ops = tot.ios;
    for (uint32_t i = 0; i < cluster_n_osds(c); i++) {
        const struct osd_perf *p = cluster_osd_perf(c, i);
        r->lock_waits += (double)p->rw_lock_waits;
        r->op_r += (double)p->op_r.count;
        r->op_w += (double)p->op_w.count;
        r->op_rw += (double)p->op_rw.count;
        const struct bluestore_perf *bp = cluster_bluestore_perf(c, i);
        if (bp) {
            r->cache_hit_bytes += (double)bp->bluestore_buffer_hit_bytes;
            r->cache_miss_bytes += (double)bp->bluestore_buffer_miss_bytes;
            r->bg_queued += (double)bp->rocksdb_bg_txcs_queued;
            r->bg_done += (double)bp->rocksdb_bg_txcs_done;
        }
    }
    uint64_t n;
    double st[STAGE_COUNT];
    cluster_stage_means(c, st, &n);
    for (int i = 0; i < STAGE_COUNT; i++)
        r->stage_us[i] = st[i] / 1e3;
    double rs[REPLICA_STAGE_COUNT];
    cluster_replica_stage_means(c, rs);
    for (int i = 0; i < REPLICA_STAGE_COUNT; i++)
        r->replica_stage_us[i] = rs[i] / 1e3;
    cJSON *stats = clusterjson_stats(c);
    const cJSON *it;
    int nh = 0, nd = 0;
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(stats, "hosts")) {
        double cpu_us = cJSON_GetObjectItem(it, "cpu_busy_us")->valuedouble;
        if (!strcmp(cJSON_GetObjectItem(it, "role")->valuestring, "osd")) {
            /* fio on an OSD host (the lab, clients_on_osd_hosts): its CPU is the clients' */
            double client_us = cJSON_GetObjectItem(it, "client_cpu_us")->valuedouble;
            r->busy_cores += cJSON_GetObjectItem(it, "busy_cores")->valuedouble;
            r->osd_cpu_us += cpu_us - client_us;
            r->client_cpu_us += client_us;
            nh++;
        } else {
            r->client_cpu_us += cpu_us;
        }
        double w = cJSON_GetObjectItem(it, "wakeups")->valuedouble;
        r->wakeups += w;
        r->wake_us_total += w * cJSON_GetObjectItem(it, "mean_wake_us")->valuedouble;
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(stats, "osds")) {
        r->device_util += cJSON_GetObjectItem(it, "device_utilisation")->valuedouble;
        nd++;
    }
    /* the OSD daemons' threads by name (fio and librbd on an OSD host are the clients') */
    struct cluster_thread_stats ts[CLUSTER_THREAD_KINDS_MAX];
    uint32_t nk = cluster_process_thread_stats(c, "ceph-osd", ts, CLUSTER_THREAD_KINDS_MAX);
    for (uint32_t k = 0; k < nk; k++)
        add_thread_kind(r->osd_threads, &r->n_osd_threads, ts[k].name, ts[k].threads, ts[k].cpu_ns / 1e3,
                        (double)ts[k].wakeups);
    nk = cluster_process_thread_stats(c, "fio", ts, CLUSTER_THREAD_KINDS_MAX);
    for (uint32_t k = 0; k < nk; k++)
        add_thread_kind(r->client_threads, &r->n_client_threads, ts[k].name, ts[k].threads, ts[k].cpu_ns / 1e3,
                        (double)ts[k].wakeups);
    r->busy_cores /= nh ? nh : 1;
    r->device_util /= nd ? nd : 1;
    r->events = (double)sim_events(cluster_sim(c));
    cJSON_Delete(stats);
    struct cluster_stats cst;
    cluster_stats(c, &cst);
    for (uint32_t i = 0; i < cst.n_clients; i++) {
        struct cluster_client_stats cs;
        cluster_client_stats(c, i, &cs);
        r->lock_releases += (double)cs.lock_releases;
        r->lock_blocked += (double)cs.writes_blocked;
        r->lock_wait_us += cs.lock_wait_ns / 1e3;
    }
}

/* Whether a job issues reads, writes: fio's rw and, for rw/randrw, rwmixread. */
static bool job_does(const struct workload_job *j, int ddir)
{
    switch (j->rw) {
    case FIO_RW_READ:
    case FIO_RW_RANDREAD: return ddir == FIO_DDIR_READ;
    case FIO_RW_WRITE:
    case FIO_RW_RANDWRITE: return ddir == FIO_DDIR_WRITE;
    default: return ddir == FIO_DDIR_READ ? j->rwmixread > 0 : j->rwmixread < 100;
    }
}

/* The direction(s) the jobs issue: FIO_DDIR_READ, FIO_DDIR_WRITE or RUN_DDIR_MIXED. */
static int summary_ddir(const struct scenario *sc)
{
    bool rd = false, wr = false;
    for (int i = 0; i < sc->jobs.n_jobs; i++) {
        rd |= job_does(&sc->jobs.jobs[i], FIO_DDIR_READ);
        wr |= job_does(&sc->jobs.jobs[i], FIO_DDIR_WRITE);
    }
    return rd && wr ? RUN_DDIR_MIXED : wr ? FIO_DDIR_WRITE : FIO_DDIR_READ;
}

const char *runner_ddir_name(int ddir)
{
    return ddir == RUN_DDIR_MIXED ? "mixed" : ddir == FIO_DDIR_WRITE ? "write" : "read";
}

static cJSON *rep_json(const struct rep_result *r)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "iops", r->iops);
    cJSON_AddNumberToObject(j, "lat_mean_us", r->mean_us);
    cJSON_AddNumberToObject(j, "lat_p50_us", r->p50_us);
    cJSON_AddNumberToObject(j, "lat_p99_us", r->p99_us);
    cJSON_AddNumberToObject(j, "lat_p999_us", r->p999_us);
    for (int d = 0; d < FIO_DDIR_NR; d++) {
        if (!r->dir[d].ios)
            continue;
        cJSON *o = cJSON_AddObjectToObject(j, d == FIO_DDIR_READ ? "read" : "write");
        cJSON_AddNumberToObject(o, "iops", r->dir[d].iops);
        cJSON_AddNumberToObject(o, "lat_mean_us", r->dir[d].mean_us);
        cJSON_AddNumberToObject(o, "lat_p99_us", r->dir[d].p99_us);
    }
    cJSON_AddNumberToObject(j, "rw_lock_waits", r->lock_waits);
    cJSON_AddNumberToObject(j, "events", r->events);
    cJSON_AddNumberToObject(j, "wall_s", r->wall_s);
    return j;
}

/* What runner_write_cluster_outputs writes: a run's and a replay's common files. */
static const char *const cluster_output_entries[] = {
    "fio.json", "fio.txt", "osd.[0-9]*.perf.json", "client.[0-9]*.perf.json", "osd.[0-9]*.historic_ops.json",
    "osd.[0-9]*.historic_ops_by_duration.json",
};

static bool matches_any(const char *const *patterns, size_t n, const char *name)
{
    for (size_t k = 0; k < n; k++)
        if (fnmatch(patterns[k], name, FNM_PERIOD) == 0)
            return true;
    return false;
}

bool runner_is_cluster_output(const char *name)
{
    return matches_any(cluster_output_entries, sizeof cluster_output_entries / sizeof cluster_output_entries[0],
                       name);
}

int runner_check_own_dir(const char *dir, const struct runner_own_dir *own, struct sim_err *err)
{
    struct stat st;
    if (lstat(dir, &st) != 0)
        return errno == ENOENT ? 0 : sim_errf(err, -errno, "%s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return sim_errf(err, -EEXIST, "%s: exists and is not a directory: not replacing it (choose another -o)", dir);
    DIR *d = opendir(dir);
    if (!d)
        return sim_errf(err, -errno, "%s: cannot read: %s", dir, strerror(errno));
    int rc = 0, n = 0;
    bool marker = false;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        n++;
        if (!runner_is_cluster_output(e->d_name) && !own->ours(e->d_name, own->ctx))
            rc = sim_errf(err, -EEXIST, "%s: holds '%s', which %s did not write: not replacing the directory "
                          "(choose another -o, or remove it yourself)", dir, e->d_name, own->tool);
        marker |= !strcmp(e->d_name, own->marker);
    }
    closedir(d);
    if (rc == 0 && n > 0 && !marker)
        rc = sim_errf(err, -EEXIST, "%s: not a %s directory (no %s): not replacing it", dir, own->kind, own->marker);
    return rc;
}

/* A run's own entries beyond the cluster outputs: what runner_run and `cephsim plot` write. */
static const char *const run_dir_entries[] = {
    "sim.json", "*_lat.[0-9]*.log", "*_clat.[0-9]*.log", "*_slat.[0-9]*.log", "*_bw.[0-9]*.log",
    "*_iops.[0-9]*.log", "plots",
    "validate", /* cephsim validate's report, by default in the run it compared */
};

/* ctx: the fio logs the run wrote (its sim.json's outputs_from.fio_logs: write_iolog names any file) */
static bool run_dir_entry(const char *name, void *ctx)
{
    if (matches_any(run_dir_entries, sizeof run_dir_entries / sizeof run_dir_entries[0], name))
        return true;
    const cJSON *it;
    cJSON_ArrayForEach(it, (const cJSON *)ctx) if (cJSON_IsString(it) && !strcmp(it->valuestring, name)) return true;
    return false;
}

int runner_check_output(const char *dir, struct sim_err *err)
{
    char sim_path[RUNNER_PATH_MAX + 64];
    snprintf(sim_path, sizeof sim_path, "%s/sim.json", dir);
    cJSON *simj = access(sim_path, R_OK) == 0 ? jsonu_load_file(sim_path, NULL) : NULL;
    const cJSON *logs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(simj, "outputs_from"),
                                                         "fio_logs");
    struct runner_own_dir own = {.marker = "sim.json", .tool = "cephsim", .kind = "cephsim run",
                                 .ours = run_dir_entry, .ctx = (void *)logs};
    int rc = runner_check_own_dir(dir, &own, err);
    cJSON_Delete(simj);
    return rc;
}

int runner_run(const struct scenario *sc, const char *out_dir, bool progress, struct run_summary *sum,
               struct sim_err *err)
{
    struct runner_opts o = {.progress = progress};
    return runner_run_opts(sc, out_dir, &o, sum, err);
}

int runner_run_opts(const struct scenario *sc, const char *out_dir, const struct runner_opts *ro,
                    struct run_summary *sum, struct sim_err *err)
{
    bool progress = ro && ro->progress;
    int reps = (int)sc->sim.replications, rc = 0;
    int ddir = summary_ddir(sc);
    /* refuse before simulating: only a directory of our own is ever replaced */
    if (out_dir && (rc = runner_check_output(out_dir, err)) < 0)
        return rc;
    struct rep_result *r = sim_xcalloc((size_t)reps, sizeof *r);
    struct progress_ctx pc = {.reps = reps, .t0 = wallclock_s(), .enabled = progress};
    char tmp[RUNNER_PATH_MAX] = "";
    cJSON *simjson = cJSON_CreateObject();
    cJSON_AddStringToObject(simjson, "cephsim_version", CEPHSIM_VERSION);
    cJSON_AddStringToObject(simjson, "model_id", CEPHSIM_MODEL_ID);
    cJSON_AddStringToObject(simjson, "scenario", sc->path);
    jsonu_add_u64(simjson, "seed", (uint64_t)sc->sim.seed);
    /* fio.json, fio.txt, fio's logs and the OSDs' dumps are one replication's: say which */
    cJSON *from = cJSON_AddObjectToObject(simjson, "outputs_from");
    cJSON_AddNumberToObject(from, "replication", 0);
    cJSON *from_files = cJSON_AddArrayToObject(from, "fio_logs");
    cJSON *reps_json = cJSON_AddArrayToObject(simjson, "replications");
    memset(sum, 0, sizeof *sum);
    for (int i = 0; i < reps; i++) {
        struct cluster_spec spec;
        if ((rc = scenario_to_spec(sc, (uint64_t)i, &spec, err)) < 0)
            goto out;
        struct cluster *c = cluster_create(&spec, err);
        if (!c) {
            rc = err ? err->code : -EINVAL;
            goto out;
        }
        pc.rep = i;
        struct fiolog *logs = NULL;
        if (i == 0 && out_dir) {
            snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out_dir, (long)getpid());
            files_rm_tree(tmp);
            if ((rc = files_mkdir_p(tmp)) < 0) {
                sim_errf(err, rc, "%s: cannot create: %s", tmp, strerror(-rc));
                cluster_destroy(c);
                goto out;
            }
            jsonu_add_u64(from, "seed", spec.seed);
            if ((rc = open_fio_logs(c, sc, tmp, &logs, err)) < 0) {
                cluster_destroy(c);
                goto out;
            }
        }
        double t0 = wallclock_s();
        cluster_run(c, progress ? progress_cb : NULL, &pc);
        r[i].wall_s = wallclock_s() - t0;
        if (logs) {
            char *names = NULL;
            cluster_set_io_observer(c, NULL);
            rc = fiolog_close(logs, sim_now(cluster_sim(c)), &names, err);
            for (char *p = names, *e; p && (e = strchr(p, '\n')); p = e + 1) {
                *e = '\0';
                cJSON_AddItemToArray(from_files, cJSON_CreateString(p));
            }
            free(names);
            if (rc < 0) {
                cluster_destroy(c);
                goto out;
            }
        }
        collect(c, &r[i]);
        cJSON *rj = rep_json(&r[i]);
        jsonu_add_u64(rj, "seed", spec.seed);
        cJSON_AddItemToObject(rj, "engine", clusterjson_stats(c));
        cJSON_AddItemToArray(reps_json, rj);
        if (i == 0 && out_dir) {
            /* sim.json is rewritten below once every replication is in */
            if ((rc = write_outputs(c, sc, tmp, ro && ro->json_plus, simjson, err)) < 0) {
                cluster_destroy(c);
                goto out;
            }
        }
        cluster_destroy(c);
    }
    if (progress && wallclock_s() - pc.t0 >= 1.0)
        fprintf(stderr, "\r%60s\r", "");
    /* the symmetric-cluster reduction: totals for the whole cluster (each
       simulated host stands for scale of them); per-op figures and latencies
       are the simulated cluster's */
    if (sc->reduction.on) {
        double k = sc->reduction.scale;
        for (int i = 0; i < reps; i++) {
            r[i].iops *= k;
            r[i].bw_mib *= k;
            for (int d = 0; d < FIO_DDIR_NR; d++) {
                r[i].dir[d].iops *= k;
                r[i].dir[d].bw_mib *= k;
            }
            r[i].op_r *= k;
            r[i].op_w *= k;
            r[i].op_rw *= k;
            r[i].lock_waits *= k;
        }
        sum->reduction_scale = k;
        sum->reduced_hosts = sc->cluster.hosts;
        sum->full_hosts = sc->reduction.hosts;
    }
    /* replications -> means and 95 % confidence intervals */
    double *x = sim_xcalloc((size_t)reps, sizeof *x);
#define CI_OF(field, dst)                 \
    do {                                  \
        for (int k = 0; k < reps; k++)    \
            x[k] = r[k].field;            \
        sum->dst = stats_ci95(x, reps);   \
    } while (0)
    CI_OF(iops, iops);
    CI_OF(bw_mib, bw_mib);
    CI_OF(mean_us, lat_mean_us);
    CI_OF(p50_us, lat_p50_us);
    CI_OF(p99_us, lat_p99_us);
    CI_OF(p999_us, lat_p999_us);
    for (int d = 0; d < FIO_DDIR_NR; d++) {
        struct run_dir_summary *o = &sum->dir[d];
        for (int k = 0; k < reps; k++)
            o->present |= r[k].dir[d].ios > 0;
        CI_OF(dir[d].iops, dir[d].iops);
        CI_OF(dir[d].bw_mib, dir[d].bw_mib);
        CI_OF(dir[d].mean_us, dir[d].lat_mean_us);
        CI_OF(dir[d].p50_us, dir[d].lat_p50_us);
        CI_OF(dir[d].p99_us, dir[d].lat_p99_us);
        CI_OF(dir[d].p999_us, dir[d].lat_p999_us);
    }
#undef CI_OF
    free(x);
    sum->replications = reps;
    sum->ddir = ddir;
    double ops = 0, wakeups = 0, wake_us = 0, client_cpu = 0, osd_cpu = 0, blocked = 0, blocked_us = 0;
    double cache_hit = 0, cache_read = 0, bg_queued = 0, bg_done = 0;
    for (int k = 0; k < reps; k++) {
        sum->lock_handovers += r[k].lock_releases / reps;
        blocked += r[k].lock_blocked;
        blocked_us += r[k].lock_wait_us;
        sum->rw_lock_waits += r[k].lock_waits / reps;
        sum->op_r += r[k].op_r / reps;
        sum->op_w += r[k].op_w / reps;
        sum->op_rw += r[k].op_rw / reps;
        for (int s = 0; s < STAGE_COUNT; s++)
            sum->stage_us[s] += r[k].stage_us[s] / reps;
        for (int s = 0; s < REPLICA_STAGE_COUNT; s++)
            sum->replica_stage_us[s] += r[k].replica_stage_us[s] / reps;
        sum->osd_busy_cores += r[k].busy_cores / reps;
        sum->device_util += r[k].device_util / reps;
        sum->events += r[k].events;
        sum->wall_s += r[k].wall_s;
        ops += r[k].ops;
        wakeups += r[k].wakeups;
        wake_us += r[k].wake_us_total;
        client_cpu += r[k].client_cpu_us;
        osd_cpu += r[k].osd_cpu_us;
        cache_hit += r[k].cache_hit_bytes;
        for (uint32_t t = 0; t < r[k].n_osd_threads; t++) {
            const struct run_thread_kind *tk = &r[k].osd_threads[t];
            add_thread_kind(sum->osd_threads, &sum->n_osd_threads, tk->name, tk->threads / reps,
                            tk->cpu_us_per_op, tk->wakeups_per_op);
        }
        for (uint32_t t = 0; t < r[k].n_client_threads; t++) {
            const struct run_thread_kind *tk = &r[k].client_threads[t];
            add_thread_kind(sum->client_threads, &sum->n_client_threads, tk->name, tk->threads / reps,
                            tk->cpu_us_per_op, tk->wakeups_per_op);
        }
        cache_read += r[k].cache_hit_bytes + r[k].cache_miss_bytes;
        bg_queued += r[k].bg_queued;
        bg_done += r[k].bg_done;
    }
    sum->read_cache_hit = cache_read ? cache_hit / cache_read : -1;
    /* the backlog's growth over the window (done counts work queued before it
       too); steady's charge only: on_fill's flushes come in bursts, one of
       which may just be under way at the end */
    sum->rocksdb_bg_behind = bg_queued > 0 && sc->cluster.rocksdb_flushes != SCENARIO_ROCKSDB_ON_FILL
                             ? fmax(0, bg_queued - bg_done) / bg_queued : -1;
    sum->client_cpu_us_per_op = ops ? client_cpu / ops : 0;
    sum->osd_cpu_us_per_op = ops ? osd_cpu / ops : 0;
    sum->wakeups_per_op = ops ? wakeups / ops : 0;
    for (uint32_t t = 0; t < sum->n_osd_threads; t++) {
        sum->osd_threads[t].cpu_us_per_op = ops ? sum->osd_threads[t].cpu_us_per_op / ops : 0;
        sum->osd_threads[t].wakeups_per_op = ops ? sum->osd_threads[t].wakeups_per_op / ops : 0;
    }
    for (uint32_t t = 0; t < sum->n_client_threads; t++) {
        sum->client_threads[t].cpu_us_per_op = ops ? sum->client_threads[t].cpu_us_per_op / ops : 0;
        sum->client_threads[t].wakeups_per_op = ops ? sum->client_threads[t].wakeups_per_op / ops : 0;
    }
    sum->mean_wake_us = wakeups ? wake_us / wakeups : 0;
    sum->events_per_op = ops ? sum->events / ops : 0;
    sum->lock_wait_mean_us = blocked ? blocked_us / blocked : 0;
    if (out_dir) {
        cJSON_AddItemToObject(simjson, "summary", runner_summary_json(sum));
        cJSON_AddItemToObject(simjson, "parameters", scenario_resolved_json(sc));
        char path[RUNNER_PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/sim.json", tmp);
        if ((rc = jsonu_write_file(path, simjson, err)) < 0)
            goto out;
        /* swap the finished directory into place */
        char old[RUNNER_PATH_MAX + 64];
        snprintf(old, sizeof old, "%s.old.%ld", out_dir, (long)getpid());
        struct stat st;
        bool had = lstat(out_dir, &st) == 0;
        if (had && (rc = runner_check_output(out_dir, err)) < 0) /* it may have changed meanwhile */
            goto out;
        if (had && rename(out_dir, old) != 0) {
            rc = sim_errf(err, -errno, "%s: cannot replace: %s", out_dir, strerror(errno));
            goto out;
        }
        if (rename(tmp, out_dir) != 0) {
            rc = sim_errf(err, -errno, "%s: cannot create: %s", out_dir, strerror(errno));
            if (had)
                rename(old, out_dir);
            goto out;
        }
        tmp[0] = '\0';
        if (had)
            files_rm_tree(old);
    }
out:
    if (tmp[0])
        files_rm_tree(tmp);
    cJSON_Delete(simjson);
    free(r);
    return rc;
}

static cJSON *ci_json(cJSON *parent, const char *key, const struct ci *c)
{
    cJSON *j = cJSON_AddObjectToObject(parent, key);
    cJSON_AddNumberToObject(j, "mean", c->mean);
    cJSON_AddNumberToObject(j, "ci95", c->half);
    cJSON_AddNumberToObject(j, "n", c->n);
    return j;
}

/* Each thread kind's name, count, CPU and wake-ups per client op, as a JSON array's items. */
static void thread_kinds_json(cJSON *arr, const struct run_thread_kind *kinds, uint32_t n)
{
    for (uint32_t t = 0; t < n; t++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", kinds[t].name);
        cJSON_AddNumberToObject(e, "threads", kinds[t].threads);
        cJSON_AddNumberToObject(e, "cpu_us", kinds[t].cpu_us_per_op);
        cJSON_AddNumberToObject(e, "wakeups", kinds[t].wakeups_per_op);
        cJSON_AddItemToArray(arr, e);
    }
}

cJSON *runner_summary_json(const struct run_summary *s)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "direction", runner_ddir_name(s->ddir));
    ci_json(j, "iops", &s->iops);
    ci_json(j, "bw_mib", &s->bw_mib);
    ci_json(j, "lat_mean_us", &s->lat_mean_us);
    ci_json(j, "lat_p50_us", &s->lat_p50_us);
    ci_json(j, "lat_p99_us", &s->lat_p99_us);
    ci_json(j, "lat_p999_us", &s->lat_p999_us);
    /* each direction that did I/O on its own, flat ("read_iops", "write_lat_p99_us"): the sweep's columns */
    for (int d = 0; d < FIO_DDIR_NR; d++) {
        const struct run_dir_summary *o = &s->dir[d];
        if (!o->present)
            continue;
        static const char *const names[] = {"iops", "bw_mib", "lat_mean_us", "lat_p50_us", "lat_p99_us",
                                            "lat_p999_us"};
        const struct ci *v[] = {&o->iops, &o->bw_mib, &o->lat_mean_us, &o->lat_p50_us, &o->lat_p99_us,
                                &o->lat_p999_us};
        for (int k = 0; k < 6; k++) {
            char key[40];
            snprintf(key, sizeof key, "%s_%s", d == FIO_DDIR_READ ? "read" : "write", names[k]);
            ci_json(j, key, v[k]);
        }
    }
    if (s->reduction_scale > 0) {
        cJSON *rd = cJSON_AddObjectToObject(j, "reduction");
        cJSON_AddNumberToObject(rd, "hosts", s->full_hosts);
        cJSON_AddNumberToObject(rd, "simulated_hosts", s->reduced_hosts);
        cJSON_AddNumberToObject(rd, "scale", s->reduction_scale);
        cJSON_AddStringToObject(rd, "note", "iops, bw_mib and op counts are the whole cluster's (the simulated "
                                            "hosts' x scale); latencies and per-op figures the simulated hosts'; "
                                            "p99 and beyond read low; replications[] and fio.json are the simulated hosts' (docs/scaling.md)");
    }
    cJSON_AddNumberToObject(j, "rw_lock_waits", s->rw_lock_waits);
    cJSON_AddNumberToObject(j, "op_r", s->op_r);
    cJSON_AddNumberToObject(j, "op_w", s->op_w);
    cJSON_AddNumberToObject(j, "op_rw", s->op_rw);
    cJSON *st = cJSON_AddObjectToObject(j, "stages_us");
    for (int i = 0; i < STAGE_COUNT; i++)
        cJSON_AddNumberToObject(st, stage_names[i], s->stage_us[i]);
    cJSON *rs = cJSON_AddObjectToObject(j, "replica_stages_us");
    for (int i = 0; i < REPLICA_STAGE_COUNT; i++)
        cJSON_AddNumberToObject(rs, replica_stage_names[i], s->replica_stage_us[i]);
    cJSON_AddNumberToObject(j, "osd_host_busy_cores", s->osd_busy_cores);
    cJSON_AddNumberToObject(j, "device_utilisation", s->device_util);
    cJSON_AddNumberToObject(j, "wakeups_per_op", s->wakeups_per_op);
    cJSON_AddNumberToObject(j, "mean_wake_us", s->mean_wake_us);
    cJSON_AddNumberToObject(j, "events_per_op", s->events_per_op);
    cJSON_AddNumberToObject(j, "client_cpu_us_per_op", s->client_cpu_us_per_op);
    cJSON_AddNumberToObject(j, "osd_cpu_us_per_op", s->osd_cpu_us_per_op);
    thread_kinds_json(cJSON_AddArrayToObject(j, "osd_threads_per_op"), s->osd_threads, s->n_osd_threads);
    thread_kinds_json(cJSON_AddArrayToObject(j, "client_threads_per_op"), s->client_threads, s->n_client_threads);
    cJSON_AddNumberToObject(j, "lock_handovers", s->lock_handovers);
    cJSON_AddNumberToObject(j, "lock_wait_mean_us", s->lock_wait_mean_us);
    if (s->read_cache_hit >= 0)
        cJSON_AddNumberToObject(j, "read_cache_hit", s->read_cache_hit);
    if (s->rocksdb_bg_behind >= 0)
        cJSON_AddNumberToObject(j, "rocksdb_bg_behind", s->rocksdb_bg_behind);
    return j;
}

static void print_headline(FILE *f, const char *dir, const struct ci *iops, const struct ci *mean,
                           const struct ci *p50, const struct ci *p99)
{
    fprintf(f, "  %s: IOPS %.0f ± %.0f   lat mean %.1f ± %.1f us   p50 %.1f ± %.1f us   p99 %.1f ± %.1f us\n",
            dir, iops->mean, iops->half, mean->mean, mean->half, p50->mean, p50->half, p99->mean, p99->half);
}

/* "  WHO threads per client op (CPU us / wake-ups): name cpu / wakeups, ..." (nothing when none) */
static void print_thread_kinds(FILE *f, const char *who, const struct run_thread_kind *kinds, uint32_t n)
{
    if (n == 0)
        return;
    fprintf(f, "  %s threads per client op (CPU us / wake-ups):", who);
    for (uint32_t t = 0; t < n; t++)
        fprintf(f, "%s %s %.0f / %.2f", t ? "," : "", kinds[t].name, kinds[t].cpu_us_per_op, kinds[t].wakeups_per_op);
    fprintf(f, "\n");
}

void runner_print_summary(FILE *f, const struct scenario *sc, const struct run_summary *s)
{
    fprintf(f, "%s: %d replication%s, 95%% confidence intervals\n", sc->path, s->replications,
            s->replications > 1 ? "s" : "");
    if (s->reduction_scale > 0)
        fprintf(f, "  symmetric reduction: %u of %u hosts simulated (%.0f of %.0f fio clones, %.3f x the clones "
                   "per OSD); IOPS and op counts are the whole cluster's (x %.2f), latencies the simulated "
                   "hosts' (p99 reads low)\n",
                s->reduced_hosts, s->full_hosts, (double)sc->reduction.clones_simulated, (double)sc->reduction.clones,
                sc->reduction.clones_per_osd_ratio, s->reduction_scale);
    if (s->ddir == RUN_DDIR_MIXED) {
        for (int d = 0; d < FIO_DDIR_NR; d++)
            if (s->dir[d].present)
                print_headline(f, d == FIO_DDIR_READ ? " read" : "write", &s->dir[d].iops, &s->dir[d].lat_mean_us,
                               &s->dir[d].lat_p50_us, &s->dir[d].lat_p99_us);
        print_headline(f, "  all", &s->iops, &s->lat_mean_us, &s->lat_p50_us, &s->lat_p99_us);
    } else {
        print_headline(f, runner_ddir_name(s->ddir), &s->iops, &s->lat_mean_us, &s->lat_p50_us, &s->lat_p99_us);
    }
    fprintf(f, "  osd counters: op_w %.0f  op_rw %.0f  op_r %.0f   waiting for rw locks %.0f\n", s->op_w,
            s->op_rw, s->op_r, s->rw_lock_waits);
    fprintf(f, "  OSD host busy cores %.2f   NVMe utilisation %.1f%%   thread wake-ups per op %.1f (mean %.1f us)\n",
            s->osd_busy_cores, 100 * s->device_util, s->wakeups_per_op, s->mean_wake_us);
    fprintf(f, "  CPU per client op: client %.0f us, OSDs %.0f us (all threads, all replicas)\n",
            s->client_cpu_us_per_op, s->osd_cpu_us_per_op);
    print_thread_kinds(f, "OSD", s->osd_threads, s->n_osd_threads);
    print_thread_kinds(f, "client", s->client_threads, s->n_client_threads);
    if (s->read_cache_hit >= 0)
        fprintf(f, "  BlueStore data cache: %.1f%% of the bytes read found there (bluestore_buffer_hit_bytes)\n",
                100 * s->read_cache_hit);
    /* steady's charge per txc is a long run's average; a window that leaves a
       growing backlog behind was not paying it, and a real RocksDB there would
       stall writes (WriteController) where the model lets them run */
    if (s->rocksdb_bg_behind >= RUNNER_BG_BEHIND_NOTE)
        fprintf(f, "  note: RocksDB's background work fell behind: %.0f%% of this window's charge "
                   "(cost.rocksdb_background_us_per_txc on the rocksdb:low threads) is still queued at its end; "
                   "a long real run would stall writes until compaction caught up, which the model does not do, "
                   "so these write IOPS are an upper bound\n",
                100 * s->rocksdb_bg_behind);
    if (s->lock_handovers > 0)
        fprintf(f, "  exclusive lock: %.0f hand-overs between clients (whole run), a held-back write waited %.1f us\n",
                s->lock_handovers, s->lock_wait_mean_us);
    /* the stages are the writes' (cluster_account_stages) */
    if (s->ddir != FIO_DDIR_READ && s->stage_us[STAGE_LOCAL_COMMIT] > 0) {
        if (s->ddir == RUN_DDIR_MIXED)
            fprintf(f, "  (the waterfall: the writes)\n");
        plot_text_waterfall(f, s->stage_us);
        fprintf(f, "    replica commit, split (slowest replica):");
        for (int i = 0; i < REPLICA_STAGE_COUNT; i++)
            fprintf(f, "%s %s %.1f", i ? "," : "", replica_stage_names[i], s->replica_stage_us[i]);
        fprintf(f, "\n");
    } else if (s->ddir != FIO_DDIR_READ && s->op_rw > 0 && s->op_w == 0) {
        char why[200];
        plot_waterfall_why_none(s->op_w, s->op_rw, why, sizeof why);
        fprintf(f, "  no waterfall: %s\n", why);
    }
}
