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

int runner_write_cluster_outputs(struct cluster *c, const struct scenario *sc, const char *dir,
                                 struct sim_err *err)
{
    int rc;
    int64_t epoch = cluster_wall_epoch_ns(c);
    struct fioout_opts fo = {.fio_version = "cephsim-" CEPHSIM_VERSION, .timestamp_s = epoch / 1000000000,
                             .percentiles = sc->jobs.n_jobs ? sc->jobs.jobs[0].percentile_list : NULL,
                             .n_percentiles = sc->jobs.n_jobs ? sc->jobs.jobs[0].n_percentiles : 0,
                             .group_reporting = sc->jobs.n_jobs && sc->jobs.jobs[0].group_reporting,
                             .global_options = sc->jobs.global_options,
                             .jobs = &sc->jobs};
    rc = runner_write_json(dir, "fio.json", fioout_json(cluster_job_results(c), (int)cluster_n_jobs(c), &fo), err);
    if (rc < 0)
        return rc;
    sim_time_t now = sim_now(cluster_sim(c));
    for (uint32_t i = 0; i < cluster_n_osds(c); i++) {
        char name[64];
        snprintf(name, sizeof name, "osd.%u.perf.json", i);
        rc = runner_write_json(dir, name, perfdump_osd(cluster_osd_perf(c, i), cluster_bluestore_perf(c, i)), err);
        if (rc < 0)
            return rc;
        snprintf(name, sizeof name, "osd.%u.historic_ops.json", i);
        if ((rc = runner_write_json(dir, name, historicops_dump(cluster_optracker(c, i), now, epoch, 0), err)) < 0)
            return rc;
        snprintf(name, sizeof name, "osd.%u.historic_ops_by_duration.json", i);
        if ((rc = runner_write_json(dir, name, historicops_dump(cluster_optracker(c, i), now, epoch, 1), err)) < 0)
            return rc;
    }
    return 0;
}

static int write_outputs(struct cluster *c, const struct scenario *sc, const char *dir,
                         cJSON *simjson, struct sim_err *err)
{
    int rc = runner_write_cluster_outputs(c, sc, dir, err);
    if (rc < 0)
        return rc;
    return runner_write_json(dir, "sim.json", cJSON_Duplicate(simjson, 1), err);
}

/* The headline numbers of one replication. */
struct rep_result {
    double iops, bw_mib, mean_us, p50_us, p99_us, p999_us, total_iops;
    double lock_waits, op_r, op_w, op_rw;
    double stage_us[STAGE_COUNT];
    double replica_stage_us[REPLICA_STAGE_COUNT];
    double busy_cores, device_util, wakeups, wake_us_total, ops;
    double client_cpu_us, osd_cpu_us;
    double events, wall_s;
    double lock_releases, lock_blocked, lock_wait_us;
};

static void collect(struct cluster *c, const struct scenario *sc, int ddir, struct rep_result *r)
{
    struct hist h;
    hist_reset(&h);
    uint64_t ios = 0, bytes = 0, all_ios = 0;
    sim_time_t runtime = 0;
    for (uint32_t i = 0; i < cluster_n_jobs(c); i++) {
        const struct job_result *jr = &cluster_job_results(c)[i];
        hist_merge(&h, &jr->dir[ddir].clat);
        ios += jr->dir[ddir].total_ios;
        bytes += jr->dir[ddir].io_bytes;
        runtime = jr->runtime_ns;
        all_ios += jr->dir[FIO_DDIR_READ].total_ios + jr->dir[FIO_DDIR_WRITE].total_ios;
    }
    double secs = runtime ? (double)runtime / 1e9 : 1;
    r->iops = (double)ios / secs;
    r->total_iops = (double)all_ios / secs;
    r->bw_mib = (double)bytes / secs / 1048576.0;
    r->mean_us = hist_mean(&h) / 1e3;
    r->p50_us = (double)hist_percentile(&h, 50) / 1e3;
    r->p99_us = (double)hist_percentile(&h, 99) / 1e3;
    r->p999_us = (double)hist_percentile(&h, 99.9) / 1e3;
    r->ops = (double)ios;
    for (uint32_t i = 0; i < cluster_n_osds(c); i++) {
        const struct osd_perf *p = cluster_osd_perf(c, i);
        r->lock_waits += (double)p->rw_lock_waits;
        r->op_r += (double)p->op_r.count;
        r->op_w += (double)p->op_w.count;
        r->op_rw += (double)p->op_rw.count;
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
            r->busy_cores += cJSON_GetObjectItem(it, "busy_cores")->valuedouble;
            r->osd_cpu_us += cpu_us;
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

static int summary_ddir(const struct scenario *sc)
{
    for (int i = 0; i < sc->jobs.n_jobs; i++)
        if (sc->jobs.jobs[i].rw != FIO_RW_READ && sc->jobs.jobs[i].rw != FIO_RW_RANDREAD)
            return FIO_DDIR_WRITE;
    return FIO_DDIR_READ;
}

static cJSON *rep_json(const struct rep_result *r)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "iops", r->iops);
    cJSON_AddNumberToObject(j, "lat_mean_us", r->mean_us);
    cJSON_AddNumberToObject(j, "lat_p50_us", r->p50_us);
    cJSON_AddNumberToObject(j, "lat_p99_us", r->p99_us);
    cJSON_AddNumberToObject(j, "lat_p999_us", r->p999_us);
    cJSON_AddNumberToObject(j, "rw_lock_waits", r->lock_waits);
    cJSON_AddNumberToObject(j, "events", r->events);
    cJSON_AddNumberToObject(j, "wall_s", r->wall_s);
    return j;
}

/* The entries of a run directory: what runner_run and `cephsim plot` write there. */
static const char *const run_dir_entries[] = {
    "sim.json", "fio.json", "fio.txt", "osd.[0-9]*.perf.json", "osd.[0-9]*.historic_ops.json",
    "osd.[0-9]*.historic_ops_by_duration.json", "*_lat.[0-9]*.log", "*_clat.[0-9]*.log", "*_slat.[0-9]*.log",
    "*_bw.[0-9]*.log", "*_iops.[0-9]*.log", "plots",
};

int runner_check_output(const char *dir, struct sim_err *err)
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
        bool ours = false;
        for (size_t k = 0; k < sizeof run_dir_entries / sizeof run_dir_entries[0] && !ours; k++)
            ours = fnmatch(run_dir_entries[k], e->d_name, FNM_PERIOD) == 0;
        if (!ours)
            rc = sim_errf(err, -EEXIST, "%s: holds '%s', which cephsim did not write: not replacing the directory "
                          "(choose another -o, or remove it yourself)", dir, e->d_name);
        marker |= !strcmp(e->d_name, "sim.json");
    }
    closedir(d);
    if (rc == 0 && n > 0 && !marker)
        rc = sim_errf(err, -EEXIST, "%s: not a cephsim run directory (no sim.json): not replacing it", dir);
    return rc;
}

int runner_run(const struct scenario *sc, const char *out_dir, bool progress, struct run_summary *sum,
               struct sim_err *err)
{
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
        double t0 = wallclock_s();
        cluster_run(c, progress ? progress_cb : NULL, &pc);
        r[i].wall_s = wallclock_s() - t0;
        collect(c, sc, ddir, &r[i]);
        cJSON *rj = rep_json(&r[i]);
        jsonu_add_u64(rj, "seed", spec.seed);
        cJSON_AddItemToObject(rj, "engine", clusterjson_stats(c));
        cJSON_AddItemToArray(reps_json, rj);
        if (i == 0 && out_dir) {
            snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out_dir, (long)getpid());
            files_rm_tree(tmp);
            if ((rc = files_mkdir_p(tmp)) < 0) {
                sim_errf(err, rc, "%s: cannot create: %s", tmp, strerror(-rc));
                cluster_destroy(c);
                goto out;
            }
            /* sim.json is rewritten below once every replication is in */
            if ((rc = write_outputs(c, sc, tmp, simjson, err)) < 0) {
                cluster_destroy(c);
                goto out;
            }
        }
        cluster_destroy(c);
    }
    if (progress && wallclock_s() - pc.t0 >= 1.0)
        fprintf(stderr, "\r%60s\r", "");
    /* replications -> means and 95 % confidence intervals */
    double *x = sim_xcalloc((size_t)reps, sizeof *x);
#define CI_OF(field, dst)                 \
    do {                                  \
        for (int k = 0; k < reps; k++)    \
            x[k] = r[k].field;            \
        sum->dst = stats_ci95(x, reps);   \
    } while (0)
    CI_OF(iops, iops);
    CI_OF(total_iops, total_iops);
    CI_OF(bw_mib, bw_mib);
    CI_OF(mean_us, lat_mean_us);
    CI_OF(p50_us, lat_p50_us);
    CI_OF(p99_us, lat_p99_us);
    CI_OF(p999_us, lat_p999_us);
#undef CI_OF
    free(x);
    sum->replications = reps;
    sum->ddir = ddir;
    double ops = 0, wakeups = 0, wake_us = 0, client_cpu = 0, osd_cpu = 0, blocked = 0, blocked_us = 0;
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
    }
    sum->client_cpu_us_per_op = ops ? client_cpu / ops : 0;
    sum->osd_cpu_us_per_op = ops ? osd_cpu / ops : 0;
    sum->wakeups_per_op = ops ? wakeups / ops : 0;
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

cJSON *runner_summary_json(const struct run_summary *s)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "direction", s->ddir == FIO_DDIR_WRITE ? "write" : "read");
    ci_json(j, "iops", &s->iops);
    ci_json(j, "bw_mib", &s->bw_mib);
    ci_json(j, "lat_mean_us", &s->lat_mean_us);
    ci_json(j, "lat_p50_us", &s->lat_p50_us);
    ci_json(j, "lat_p99_us", &s->lat_p99_us);
    ci_json(j, "lat_p999_us", &s->lat_p999_us);
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
    cJSON_AddNumberToObject(j, "lock_handovers", s->lock_handovers);
    cJSON_AddNumberToObject(j, "lock_wait_mean_us", s->lock_wait_mean_us);
    return j;
}

void runner_print_summary(FILE *f, const struct scenario *sc, const struct run_summary *s)
{
    const char *dir = s->ddir == FIO_DDIR_WRITE ? "write" : "read";
    fprintf(f, "%s: %d replication%s, 95%% confidence intervals\n", sc->path, s->replications,
            s->replications > 1 ? "s" : "");
    fprintf(f, "  %s: IOPS %.0f ± %.0f   lat mean %.1f ± %.1f us   p50 %.1f ± %.1f us   p99 %.1f ± %.1f us\n",
            dir, s->iops.mean, s->iops.half, s->lat_mean_us.mean, s->lat_mean_us.half, s->lat_p50_us.mean,
            s->lat_p50_us.half, s->lat_p99_us.mean, s->lat_p99_us.half);
    fprintf(f, "  osd counters: op_w %.0f  op_rw %.0f  op_r %.0f   waiting for rw locks %.0f\n", s->op_w,
            s->op_rw, s->op_r, s->rw_lock_waits);
    fprintf(f, "  OSD host busy cores %.2f   NVMe utilisation %.1f%%   thread wake-ups per op %.1f (mean %.1f us)\n",
            s->osd_busy_cores, 100 * s->device_util, s->wakeups_per_op, s->mean_wake_us);
    fprintf(f, "  CPU per client op: client %.0f us, OSDs %.0f us (all threads, all replicas)\n",
            s->client_cpu_us_per_op, s->osd_cpu_us_per_op);
    if (s->lock_handovers > 0)
        fprintf(f, "  exclusive lock: %.0f hand-overs between clients (whole run), a held-back write waited %.1f us\n",
                s->lock_handovers, s->lock_wait_mean_us);
    if (s->ddir == FIO_DDIR_WRITE && s->stage_us[STAGE_LOCAL_COMMIT] > 0) {
        plot_text_waterfall(f, s->stage_us);
        fprintf(f, "    replica commit, split (slowest replica):");
        for (int i = 0; i < REPLICA_STAGE_COUNT; i++)
            fprintf(f, "%s %s %.1f", i ? "," : "", replica_stage_names[i], s->replica_stage_us[i]);
        fprintf(f, "\n");
    }
}
