/*
 * rundata.c - reading a run directory and the studies' summaries for the
 * figures (see rundata.h).
 *
 * fio.json gives one CDF series per job and direction with completions: fio's
 * clat percentiles, with its min and max as 0 % and 100 %.  The client ops
 * (osd_op) kept in osd.N.historic_ops.json give one more: the OSD-side time of
 * a sample (Ceph keeps osd_op_history_size = 20 ops per OSD).  sim.json gives
 * the scenario's name, the mean latency and the mean per-stage write times
 * (summary.stages_us, the stages of cluster.h).
 */
#include "rundata.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fig_waterfall.h"
#include "fioout.h"
#include "jsonu.h"
#include "plotutil.h"
#include "trace.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void run_data_free(struct run_data *rd)
{
    for (int i = 0; i < rd->n_series; i++) {
        free(rd->series[i].us);
        free(rd->series[i].pct);
    }
    free(rd->series);
    memset(rd, 0, sizeof *rd);
}

static struct cdf_series *add_series(struct run_data *rd, int cap)
{
    rd->series = sim_xrealloc(rd->series, (size_t)rd->n_series + 1, sizeof *rd->series);
    struct cdf_series *s = &rd->series[rd->n_series++];
    memset(s, 0, sizeof *s);
    s->us = sim_xcalloc((size_t)cap, sizeof *s->us);
    s->pct = sim_xcalloc((size_t)cap, sizeof *s->pct);
    return s;
}

static const char *job_option(const cJSON *job, const cJSON *global, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(job, "job options"), key);
    if (!cJSON_IsString(v))
        v = cJSON_GetObjectItemCaseSensitive(global, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* fio.json: one CDF series per job and direction with completions. */
static int load_fio(const char *path, struct run_data *rd, struct sim_err *err)
{
    cJSON *j = jsonu_load_file(path, err);
    if (!j)
        return err && err->code ? err->code : -EINVAL;
    int rc = 0;
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(j, "jobs");
    const cJSON *global = cJSON_GetObjectItemCaseSensitive(j, "global options");
    if (!cJSON_IsArray(jobs)) {
        rc = sim_errf(err, -EINVAL, "%s: jobs: expected an array (not fio --output-format=json?)", path);
        goto out;
    }
    static const char *const ddirs[] = {"read", "write"};
    int k = 0;
    const cJSON *job;
    cJSON_ArrayForEach(job, jobs) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(job, "jobname");
        char jobname[64];
        snprintf(jobname, sizeof jobname, "%s", cJSON_IsString(name) ? name->valuestring : "job");
        for (int d = 0; d < 2; d++) {
            const cJSON *clat = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(job, ddirs[d]),
                                                                 "clat_ns");
            double n = fioout_num(cJSON_GetObjectItemCaseSensitive(clat, "N"));
            const cJSON *pcts = cJSON_GetObjectItemCaseSensitive(clat, "percentile");
            if (!(n > 0) || !cJSON_IsObject(pcts))
                continue;
            struct cdf_series *s = add_series(rd, cJSON_GetArraySize(pcts) + 2);
            snprintf(s->title, sizeof s->title, "%s %s: fio clat percentiles (%.0f I/Os)", jobname, ddirs[d], n);
            double mn = fioout_num(cJSON_GetObjectItemCaseSensitive(clat, "min"));
            double mx = fioout_num(cJSON_GetObjectItemCaseSensitive(clat, "max"));
            if (isfinite(mn)) {
                s->us[s->n] = mn / 1e3;
                s->pct[s->n++] = 0;
            }
            const cJSON *p;
            cJSON_ArrayForEach(p, pcts) {
                char *end;
                double pc = strtod(p->string, &end);
                double v = fioout_num(p);
                if (end == p->string || *end || !(pc >= 0 && pc <= 100) || !isfinite(v)) {
                    rc = sim_errf(err, -EINVAL, "%s: jobs[%d].%s.clat_ns.percentile.%s: expected a percentile "
                                  "key and a number of ns", path, k, ddirs[d], p->string);
                    goto out;
                }
                s->us[s->n] = v / 1e3;
                s->pct[s->n++] = pc;
            }
            if (isfinite(mx)) {
                s->us[s->n] = mx / 1e3;
                s->pct[s->n++] = 100;
            }
            if (!rd->job_desc[0]) {
                const char *rw = job_option(job, global, "rw"), *bs = job_option(job, global, "bs");
                const char *qd = job_option(job, global, "iodepth");
                snprintf(rd->job_desc, sizeof rd->job_desc, "%s: %s%s%s%s%s", jobname, rw ? rw : ddirs[d],
                         bs ? ", bs " : "", bs ? bs : "", qd ? ", iodepth " : "", qd ? qd : "");
            }
        }
        k++;
    }
out:
    cJSON_Delete(j);
    return rc;
}

static bool historic_name(const char *name)
{
    static const char suffix[] = ".historic_ops.json";
    size_t n = strlen(name), ls = sizeof suffix - 1;
    if (strncmp(name, "osd.", 4) || n <= 4 + ls || strcmp(name + n - ls, suffix))
        return false;
    for (size_t i = 4; i < n - ls; i++)
        if (name[i] < '0' || name[i] > '9')
            return false;
    return true;
}

/* osd.N.historic_ops.json: the durations of the client ops the OSDs kept, as one series. */
static int load_historic(const char *dir, struct run_data *rd, struct sim_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return sim_errf(err, -errno, "%s: cannot read: %s", dir, strerror(errno));
    double *v = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) && rc == 0) {
        if (!historic_name(e->d_name))
            continue;
        char *path = plot_asprintf("%s/%s", dir, e->d_name);
        struct trace_ops t;
        rc = trace_ops_load(path, 0, &t, err);
        free(path);
        if (rc < 0)
            break;
        for (size_t i = 0; i < t.n; i++) {
            if (t.ops[i].desc.kind != TRACE_DESC_OSD_OP || t.ops[i].duration_ns == TRACE_NS_NONE)
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 256;
                v = sim_xrealloc(v, cap, sizeof *v);
            }
            v[n++] = (double)t.ops[i].duration_ns / 1e3;
        }
        trace_ops_free(&t);
    }
    closedir(d);
    if (rc == 0 && n >= 2) {
        qsort(v, n, sizeof *v, cmp_double);
        struct cdf_series *s = add_series(rd, (int)n);
        snprintf(s->title, sizeof s->title,
                 "OSD-side: client op durations in osd.N.historic_ops.json (a sample of %zu)", n);
        for (size_t i = 0; i < n; i++) {
            s->us[i] = v[i];
            s->pct[i] = 100.0 * (double)(i + 1) / (double)n;
        }
        s->n = (int)n;
    }
    free(v);
    return rc;
}

/* sim.json: the scenario's name, the mean latency and the write stages. */
static int load_sim(const char *path, struct run_data *rd, struct sim_err *err)
{
    cJSON *j = jsonu_load_file(path, err);
    if (!j)
        return err && err->code ? err->code : -EINVAL;
    int rc = jsonu_get_string(j, "scenario", rd->scenario, sizeof rd->scenario, false, path, "", err);
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(j, "summary");
    rd->lat_mean_us = NAN;
    if (rc == 0 && !cJSON_IsObject(sum))
        rc = sim_errf(err, -EINVAL, "%s: summary: missing (the run did not finish?)", path);
    char dir[16] = "write";
    if (rc == 0)
        rc = jsonu_get_string(sum, "direction", dir, sizeof dir, false, path, "summary", err);
    const cJSON *lm = cJSON_GetObjectItemCaseSensitive(sum, "lat_mean_us");
    if (rc == 0 && cJSON_IsObject(lm))
        rc = jsonu_get_double(lm, "mean", &rd->lat_mean_us, 0, 1e15, false, path, "summary.lat_mean_us", err);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(sum, "stages_us");
    /* the stages are the writes' (cluster_account_stages): a write or mixed run has them */
    if (rc == 0 && cJSON_IsObject(st) && strcmp(dir, "read")) {
        /* by name; a file from a build that named the stages differently: by position */
        bool by_name = true;
        for (int i = 0; i < STAGE_COUNT; i++)
            by_name = by_name && cJSON_GetObjectItemCaseSensitive(st, stage_names[i]);
        if (!by_name && cJSON_GetArraySize(st) != STAGE_COUNT)
            rc = sim_errf(err, -EINVAL, "%s: summary.stages_us: expected the %d stages of a write "
                          "(\"%s\" ... \"%s\")", path, STAGE_COUNT, stage_names[0], stage_names[STAGE_COUNT - 1]);
        double total = 0;
        const cJSON *it = st->child;
        for (int i = 0; i < STAGE_COUNT && rc == 0; i++, it = it ? it->next : NULL) {
            const char *key = by_name ? stage_names[i] : it->string;
            snprintf(rd->stage_label[i], sizeof rd->stage_label[i], "%s", key);
            rc = jsonu_get_double(st, key, &rd->stage_us[i], 0, 1e15, true, path, "summary.stages_us", err);
            total += rd->stage_us[i];
        }
        rd->have_stages = rc == 0 && total > 0;
        if (rc == 0 && !(total > 0)) {
            const cJSON *jw = cJSON_GetObjectItemCaseSensitive(sum, "op_w"),
                        *jrw = cJSON_GetObjectItemCaseSensitive(sum, "op_rw");
            plot_waterfall_why_none(cJSON_IsNumber(jw) ? jw->valuedouble : 0, cJSON_IsNumber(jrw) ? jrw->valuedouble : 0,
                                    rd->no_stages_why, sizeof rd->no_stages_why);
        }
    }
    cJSON_Delete(j);
    return rc;
}

bool run_data_is_run(const char *dir)
{
    return plot_file_in(dir, "fio.json") || plot_file_in(dir, "sim.json");
}

int run_data_load(const char *dir, const char *prefix, struct run_data *rd, struct sim_err *err)
{
    *rd = (struct run_data){.dir = dir, .prefix = prefix, .lat_mean_us = NAN};
    int rc = 0;
    char *fio = plot_asprintf("%s/fio.json", dir), *sim = plot_asprintf("%s/sim.json", dir);
    if (plot_is_file(sim))
        rc = load_sim(sim, rd, err);
    if (rc == 0 && plot_is_file(fio) && (rc = load_fio(fio, rd, err)) == 0)
        rc = load_historic(dir, rd, err);
    free(fio);
    free(sim);
    return rc;
}

bool run_data_has_summary(const struct run_data *rd, const char *file)
{
    return !rd->prefix && plot_file_in(rd->dir, file);
}

void run_data_label(const struct run_data *rd, char *out, size_t n)
{
    const char *s = rd->scenario[0] ? rd->scenario : rd->dir;
    size_t len = strlen(s);
    while (len > 1 && s[len - 1] == '/')
        len--;
    const char *b = s;
    for (size_t i = 0; i + 1 < len; i++)
        if (s[i] == '/')
            b = s + i + 1;
    size_t bl = (size_t)(s + len - b);
    const char *dot = memchr(b, '.', bl);
    if (rd->scenario[0] && dot)
        bl = (size_t)(dot - b);
    snprintf(out, n, "%.*s", (int)bl, b);
}

/* ------------------------------------------------------------------ study summaries */

static int get_ci(const cJSON *el, const char *key, double *mean, double *ci, int *n, const char *file,
                  const char *path, struct sim_err *err)
{
    char p[128];
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(el, key);
    jsonu_path(p, sizeof p, path, key);
    if (!cJSON_IsObject(o))
        return sim_errf(err, -EINVAL, "%s: %s: expected an object {mean, ci95, n}", file, p);
    int rc = jsonu_get_double(o, "mean", mean, -1e15, 1e15, true, file, p, err);
    if (rc == 0 && ci)
        rc = jsonu_get_double(o, "ci95", ci, 0, 1e15, true, file, p, err);
    int64_t nn = 0;
    if (rc == 0 && n && (rc = jsonu_get_int(o, "n", &nn, 0, 1000000, false, file, p, err)) == 0)
        *n = (int)nn;
    return rc;
}

int run_data_load_study(const struct run_data *rd, const char *name, bool want_workload, struct study_table *s,
                        struct sim_err *err)
{
    char *path = plot_asprintf("%s/%s", rd->dir, name);
    memset(s, 0, sizeof *s);
    snprintf(s->file, sizeof s->file, "%s", name);
    snprintf(s->direction, sizeof s->direction, "write");
    cJSON *j = jsonu_load_file(path, err);
    int rc = 0;
    if (!j) {
        rc = err && err->code ? err->code : -EINVAL;
        goto out;
    }
    if (!cJSON_IsArray(j) || cJSON_GetArraySize(j) == 0) {
        rc = sim_errf(err, -EINVAL, "%s: expected a non-empty array of variants (a study summary)", path);
        goto out;
    }
    s->rows = sim_xcalloc((size_t)cJSON_GetArraySize(j), sizeof *s->rows);
    const cJSON *el;
    cJSON_ArrayForEach(el, j) {
        struct study_row *r = &s->rows[s->n];
        char p[32];
        snprintf(p, sizeof p, "[%d]", s->n);
        if (!cJSON_IsObject(el)) {
            rc = sim_errf(err, -EINVAL, "%s: %s: expected an object", path, p);
            goto out;
        }
        if ((rc = jsonu_get_string(el, "variant", r->variant, sizeof r->variant, true, path, p, err)) < 0 ||
            (want_workload &&
             (rc = jsonu_get_string(el, "workload", r->workload, sizeof r->workload, true, path, p, err)) < 0) ||
            (s->n == 0 &&
             (rc = jsonu_get_string(el, "direction", s->direction, sizeof s->direction, false, path, p, err)) < 0) ||
            (rc = get_ci(el, "lat_mean_us", &r->lat_mean, &r->lat_ci, &r->n, path, p, err)) < 0 ||
            (rc = get_ci(el, "lat_p99_us", &r->lat_p99, NULL, NULL, path, p, err)) < 0 ||
            (rc = get_ci(el, "iops", &r->iops, &r->iops_ci, NULL, path, p, err)) < 0)
            goto out;
        s->n++;
    }
out:
    cJSON_Delete(j);
    free(path);
    return rc;
}

void run_data_free_study(struct study_table *t)
{
    free(t->rows);
    t->rows = NULL;
    t->n = 0;
}
