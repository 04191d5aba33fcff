/*
 * fioout.c - fio's --output-format=json document and normal text summary.
 *
 * Mirrors fio 3.33 stat.c:
 * - show_run_stats/__show_run_stats: group_reporting merges the jobs of a
 *   groupid (sum_thread_stats) into one entry named after the first job; the
 *   group's rs: iobytes, min/max_run (ms), min/max_bw and agg = iobytes *
 *   1000 / max_run (B/s);
 * - show_thread_status_json: jobname, groupid, error, eta, elapsed, "job
 *   options", read/write/trim/sync, job_runtime, usr_cpu, sys_cpu, ctx, majf,
 *   minf, iodepth_level/submit/complete (stat_calc_dist of the io_u_map /
 *   io_u_submit / io_u_complete the model counts: percent, 0.1 floor),
 *   latency_ns/us/ms (stat_calc_lat: percent of ios, 0.01 floor, from the
 *   clat value io_u_mark_latency sees), latency_depth/target/percentile/window
 *   (latency_qd = iodepth, latency_percentile=100);
 * - add_ddir_status_json: bw_bytes = io_bytes * 1000 / runtime_ms, bw =
 *   bw_bytes / 1024, iops = 1000.0 * total_ios / runtime_ms, bw_agg =
 *   convert_agg_kbytes_percent ((int)mean * 100 / (agg / 1024.0), max 100);
 * - add_ddir_lat_json: min/max ints, mean/stddev (n-1) floats, N, and on
 *   clat_ns (clat_percentiles=1, lat_percentiles=0) "percentile" keyed "%f";
 * - json.c prints floats with "%f": such values are raw items here;
 * - show_thread_status_normal / show_ddir_status / display_lat /
 *   show_clat_percentiles / show_latencies / show_group_stats and
 *   lib/num2str.c for the text summary (sig_figs=4, kb_base=1024).
 */
#include "fioout.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "jsonu.h"

#define FIO_LIST_MAX 20 /* FIO_IO_U_LIST_MAX_LEN */
#define N2S_LEN 64      /* num2str output buffers */

/* ---- small helpers ---- */

static void add_int(cJSON *o, const char *key, uint64_t v)
{
    cJSON_AddNumberToObject(o, key, (double)v);
}

/* fio json_object_add_value_float: "%f" text, value kept in valuedouble. */
static void add_float(cJSON *o, const char *key, double v)
{
    jsonu_add_fixed(o, key, "%f", v)->valuedouble = v;
}

double fioout_num(const cJSON *item)
{
    if (cJSON_IsNumber(item))
        return item->valuedouble;
    if (cJSON_IsRaw(item) && item->valuestring) {
        char *end;
        double v = strtod(item->valuestring, &end);
        if (end != item->valuestring && *end == '\0')
            return v;
    }
    return NAN;
}

/* ctime() text without the newline, from UTC (deterministic). */
static void fmt_ctime(char *buf, size_t n, int64_t ts)
{
    static const char *const wday[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t t = (time_t)ts;
    struct tm tm;
    gmtime_r(&t, &tm);
    snprintf(buf, n, "%s %s %2d %02d:%02d:%02d %d", wday[tm.tm_wday], mon[tm.tm_mon], tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, tm.tm_year + 1900);
}

static uint64_t job_rt_ns(const struct job_result *j)
{
    return j->job_runtime_ns ? j->job_runtime_ns : j->runtime_ns;
}

/* ts->runtime[ddir] in ms: only directions that did I/O have one. */
static uint64_t ddir_runtime_ms(const struct job_result *j, int d)
{
    return j->dir[d].total_ios ? j->runtime_ns / 1000000u : 0;
}

static uint64_t total_ios(const struct job_result *j)
{
    return j->dir[FIO_DDIR_READ].total_ios + j->dir[FIO_DDIR_WRITE].total_ios;
}

/* fio calc_lat over sample arrays: false when there are none. */
static bool sample_stats(const double *x, uint32_t n, uint64_t *min, uint64_t *max, double *mean, double *dev)
{
    if (!n) {
        *min = *max = 0;
        *mean = *dev = 0;
        return false;
    }
    double lo = x[0], hi = x[0], s = 0;
    for (uint32_t i = 0; i < n; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
        s += x[i];
    }
    double m = s / n, ss = 0;
    for (uint32_t i = 0; i < n; i++)
        ss += (x[i] - m) * (x[i] - m);
    *min = (uint64_t)lo;
    *max = (uint64_t)hi;
    *mean = m;
    *dev = n > 1 ? sqrt(ss / (n - 1.0)) : 0;
    return true;
}

/* convert_agg_kbytes_percent: a job's mean KiB/s as % of its group's aggregate B/s (100 if tiny). */
static double agg_percent(double mean_kib, uint64_t agg)
{
    if (agg <= 1024)
        return 100.0;
    double p = (double)(int)mean_kib * 100.0 / ((double)agg / 1024.0);
    return p > 100.0 ? 100.0 : p;
}

/* ---- groups (show_run_stats) ---- */

struct group_rs {
    int groupid, members;
    uint64_t iobytes[FIO_DDIR_NR], min_run[FIO_DDIR_NR], max_run[FIO_DDIR_NR];
    uint64_t min_bw[FIO_DDIR_NR], max_bw[FIO_DDIR_NR], agg[FIO_DDIR_NR];
};

struct entries {
    int n;
    const struct job_result **e; /* the reported thread stats */
    struct job_result *owned;    /* merged groups (group_reporting) */
    int *members;
    int n_groups;
    struct group_rs *rs;
};

static struct group_rs *find_rs(struct entries *s, int groupid)
{
    for (int g = 0; g < s->n_groups; g++)
        if (s->rs[g].groupid == groupid)
            return &s->rs[g];
    return NULL;
}

static void entries_build(struct entries *s, const struct job_result *jobs, int n, bool group_reporting)
{
    memset(s, 0, sizeof *s);
    s->e = sim_xcalloc(n ? (size_t)n : 1, sizeof *s->e);
    s->members = sim_xcalloc(n ? (size_t)n : 1, sizeof *s->members);
    if (group_reporting) {
        s->owned = sim_xcalloc(n ? (size_t)n : 1, sizeof *s->owned);
        for (int i = 0; i < n; i++) {
            int k = 0;
            while (k < s->n && s->owned[k].groupid != jobs[i].groupid)
                k++;
            if (k == s->n) {
                s->owned[s->n] = jobs[i];
                s->members[s->n++] = 1;
            } else {
                fioout_merge(&s->owned[k], &jobs[i]);
                s->members[k]++;
            }
        }
        for (int k = 0; k < s->n; k++)
            s->e[k] = &s->owned[k];
    } else {
        for (int i = 0; i < n; i++) {
            s->e[i] = &jobs[i];
            s->members[i] = 1;
        }
        s->n = n;
    }
    s->rs = sim_xcalloc(s->n ? (size_t)s->n : 1, sizeof *s->rs);
    for (int k = 0; k < s->n; k++) {
        const struct job_result *j = s->e[k];
        struct group_rs *g = find_rs(s, j->groupid);
        if (!g) {
            g = &s->rs[s->n_groups++];
            g->groupid = j->groupid;
            for (int d = 0; d < FIO_DDIR_NR; d++)
                g->min_bw[d] = UINT64_MAX;
        }
        g->members += s->members[k];
        for (int d = 0; d < FIO_DDIR_NR; d++) {
            uint64_t rt = ddir_runtime_ms(j, d);
            uint64_t bw = rt ? j->dir[d].io_bytes * 1000 / rt : 0;
            g->min_bw[d] = bw < g->min_bw[d] ? bw : g->min_bw[d];
            g->max_bw[d] = bw > g->max_bw[d] ? bw : g->max_bw[d];
            if (rt && (!g->min_run[d] || rt < g->min_run[d]))
                g->min_run[d] = rt;
            g->max_run[d] = rt > g->max_run[d] ? rt : g->max_run[d];
            g->iobytes[d] += j->dir[d].io_bytes;
        }
    }
    for (int g = 0; g < s->n_groups; g++)
        for (int d = 0; d < FIO_DDIR_NR; d++)
            if (s->rs[g].max_run[d])
                s->rs[g].agg[d] = s->rs[g].iobytes[d] * 1000 / s->rs[g].max_run[d];
}

static void entries_free(struct entries *s)
{
    free(s->e);
    free(s->owned);
    free(s->members);
    free(s->rs);
}

void fioout_merge(struct job_result *a, const struct job_result *b)
{
    for (int d = 0; d < FIO_DDIR_NR; d++) {
        struct job_ddir_stats *x = &a->dir[d];
        const struct job_ddir_stats *y = &b->dir[d];
        x->io_bytes += y->io_bytes;
        x->total_ios += y->total_ios;
        hist_merge(&x->slat, &y->slat);
        hist_merge(&x->clat, &y->clat);
        hist_merge(&x->lat, &y->lat);
        for (uint32_t i = 0; i < y->n_samples; i++) {
            x->bw_kib_samples[i] += y->bw_kib_samples[i];
            x->iops_samples[i] += y->iops_samples[i];
        }
        x->n_samples = y->n_samples > x->n_samples ? y->n_samples : x->n_samples;
    }
    uint64_t ja = job_rt_ns(a), jb = job_rt_ns(b);
    if (ja + jb) {
        a->usr_cpu = (a->usr_cpu * (double)ja + b->usr_cpu * (double)jb) / (double)(ja + jb);
        a->sys_cpu = (a->sys_cpu * (double)ja + b->sys_cpu * (double)jb) / (double)(ja + jb);
    }
    a->job_runtime_ns = ja + jb;
    a->ctx += b->ctx; /* sum_thread_stats: ctx, io_u_map, io_u_submit/complete and their totals add */
    for (int i = 0; i < 7; i++) {
        a->io_u_map[i] += b->io_u_map[i];
        a->io_u_submit[i] += b->io_u_submit[i];
        a->io_u_complete[i] += b->io_u_complete[i];
    }
    a->total_submit += b->total_submit;
    a->total_complete += b->total_complete;
    a->runtime_ns = b->runtime_ns > a->runtime_ns ? b->runtime_ns : a->runtime_ns;
}

/* ---- distributions ---- */

/* stat_calc_dist: percent of total, with the 0.1 floor for non-empty buckets. */
static void calc_dist(const uint64_t *map, uint64_t total, double *out)
{
    for (int i = 0; i < 7; i++) {
        out[i] = 0;
        if (!total)
            continue;
        out[i] = (double)map[i] / (double)total * 100.0;
        if (out[i] < 0.1 && map[i])
            out[i] = 0.1;
    }
}

/* IO depths (io_u_map, of total_io_u: every I/O queued, each at the depth it made). */
static void iodepth_dist(const struct job_result *j, double *out)
{
    uint64_t total = 0;
    for (int i = 0; i < 7; i++)
        total += j->io_u_map[i];
    calc_dist(j->io_u_map, total, out);
}

static const char *const lat_keys[12] = {"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000",
                                         ">=2000"};
static const unsigned lat_thr[11] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};

/*
 * stat_calc_lat_n/u/m: io_u_mark_latency buckets of the clat of every I/O, taken
 * from the clat histograms (each plat bucket counted at its reported value).
 */
static void latency_dists(const struct job_result *j, double *ns, double *us, double *ms)
{
    uint64_t cn[10] = {0}, cu[10] = {0}, cm[12] = {0}, total = total_ios(j);
    for (unsigned i = 0; i < HIST_PLAT_NR; i++) {
        uint64_t c = j->dir[FIO_DDIR_READ].clat.bucket[i] + j->dir[FIO_DDIR_WRITE].clat.bucket[i];
        if (!c)
            continue;
        uint64_t v = hist_idx_to_val(i);
        uint64_t *map;
        uint64_t x;
        int nr;
        if (v < 1000) {
            map = cn, x = v, nr = 10;
        } else if (v < 1000000) {
            map = cu, x = v / 1000, nr = 10;
        } else {
            map = cm, x = v / 1000000, nr = 12;
        }
        int b = 0;
        while (b < nr - 1 && x >= lat_thr[b])
            b++;
        map[b] += c;
    }
    uint64_t *maps[3] = {cn, cu, cm};
    double *outs[3] = {ns, us, ms};
    for (int m = 0; m < 3; m++) {
        int nr = m == 2 ? 12 : 10;
        for (int i = 0; i < nr; i++) {
            outs[m][i] = total ? (double)maps[m][i] / (double)total * 100.0 : 0;
            if (outs[m][i] < 0.01 && maps[m][i])
                outs[m][i] = 0.01;
        }
    }
}

/* ---- percentile list ---- */

struct plist {
    double p[FIO_LIST_MAX];
    int n;
    int precision; /* decimals for the text summary */
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void plist_make(struct plist *pl, const struct fioout_opts *o)
{
    const double *src = hist_fio_percentiles;
    int n = HIST_FIO_NPCT;
    if (o && o->percentiles && o->n_percentiles > 0) {
        src = o->percentiles;
        n = o->n_percentiles;
    }
    pl->n = n < FIO_LIST_MAX ? n : FIO_LIST_MAX;
    memcpy(pl->p, src, (size_t)pl->n * sizeof *src);
    qsort(pl->p, (size_t)pl->n, sizeof *pl->p, cmp_double);
    pl->precision = 2; /* fio's default list prints "99.95th" */
    if (src != hist_fio_percentiles) {
        pl->precision = 0;
        for (int i = 0; i < pl->n; i++) {
            int k = 0;
            while (k < 6 && fabs(pl->p[i] * pow(10, k) - round(pl->p[i] * pow(10, k))) > 1e-9)
                k++;
            pl->precision = k > pl->precision ? k : pl->precision;
        }
    }
}

/* ---- JSON ---- */

static void lat_json(cJSON *parent, const char *name, const struct hist *h, const struct plist *pl,
                     bool bins)
{
    cJSON *o = cJSON_AddObjectToObject(parent, name);
    add_int(o, "min", h->n ? h->min : 0);
    add_int(o, "max", h->n ? h->max : 0);
    add_float(o, "mean", hist_mean(h));
    add_float(o, "stddev", hist_stddev(h));
    add_int(o, "N", h->n);
    if (pl && h->n) {
        uint64_t v[FIO_LIST_MAX];
        char key[32];
        hist_percentiles(h, pl->p, pl->n, v);
        cJSON *p = cJSON_AddObjectToObject(o, "percentile");
        for (int i = 0; i < pl->n; i++) {
            snprintf(key, sizeof key, "%f", pl->p[i]);
            add_int(p, key, v[i]);
        }
        if (bins) { /* add_ddir_lat_json with FIO_OUTPUT_JSON_PLUS */
            cJSON *b = cJSON_AddObjectToObject(o, "bins");
            for (unsigned i = 0; i < HIST_PLAT_NR; i++)
                if (h->bucket[i]) {
                    snprintf(key, sizeof key, "%" PRIu64, hist_idx_to_val(i));
                    add_int(b, key, h->bucket[i]);
                }
        }
    }
}

/* Which latencies get percentiles (fio's slat_percentiles, clat_percentiles,
   lat_percentiles; defaults 0, 1, 0): the job's, or fio's defaults. */
struct pct_which {
    bool slat, clat, lat;
};

static struct pct_which job_pct_which(const struct job_result *j, const struct fio_jobfile *jobs)
{
    if (!jobs || !jobs->jobs || j->job_index >= (uint32_t)jobs->n_jobs)
        return (struct pct_which){.clat = true};
    const struct workload_job *w = &jobs->jobs[j->job_index];
    return (struct pct_which){w->slat_percentiles, w->clat_percentiles, w->lat_percentiles};
}

static void ddir_json(cJSON *parent, const char *name, const struct job_ddir_stats *d, uint64_t runtime_ms,
                      uint64_t agg, const struct plist *pl, struct pct_which which, bool bins)
{
    cJSON *o = cJSON_AddObjectToObject(parent, name);
    uint64_t bw_bytes = runtime_ms ? d->io_bytes * 1000 / runtime_ms : 0;
    double iops = runtime_ms ? 1000.0 * (double)d->total_ios / (double)runtime_ms : 0;
    add_int(o, "io_bytes", d->io_bytes);
    add_int(o, "io_kbytes", d->io_bytes >> 10);
    add_int(o, "bw_bytes", bw_bytes);
    add_int(o, "bw", bw_bytes / 1024);
    add_float(o, "iops", iops);
    add_int(o, "runtime", runtime_ms);
    add_int(o, "total_ios", d->total_ios);
    add_int(o, "short_ios", 0);
    add_int(o, "drop_ios", 0);
    /* stat.c add_ddir_status_json: each with its own flag */
    lat_json(o, "slat_ns", &d->slat, which.slat ? pl : NULL, bins);
    lat_json(o, "clat_ns", &d->clat, which.clat ? pl : NULL, bins);
    lat_json(o, "lat_ns", &d->lat, which.lat ? pl : NULL, bins);

    uint64_t min, max;
    double mean, dev, p_of_agg = 0;
    if (sample_stats(d->bw_kib_samples, d->n_samples, &min, &max, &mean, &dev))
        p_of_agg = agg_percent(mean, agg);
    add_int(o, "bw_min", min);
    add_int(o, "bw_max", max);
    add_float(o, "bw_agg", p_of_agg);
    add_float(o, "bw_mean", mean);
    add_float(o, "bw_dev", dev);
    add_int(o, "bw_samples", d->n_samples);
    sample_stats(d->iops_samples, d->n_samples, &min, &max, &mean, &dev);
    add_int(o, "iops_min", min);
    add_int(o, "iops_max", max);
    add_float(o, "iops_mean", mean);
    add_float(o, "iops_stddev", dev);
    add_int(o, "iops_samples", d->n_samples);
}

static void dist_json(cJSON *parent, const char *name, const char *const *keys, const double *v, int n)
{
    cJSON *o = cJSON_AddObjectToObject(parent, name);
    for (int i = 0; i < n; i++)
        add_float(o, keys[i], v[i]);
}

static const struct job_ddir_stats zero_ddir; /* trim and sync: the model issues none */

static cJSON *job_json(const struct job_result *j, const struct group_rs *rs, const struct plist *pl,
                       const struct fio_jobfile *jobs, bool bins)
{
    static const char *const depth_keys[7] = {"1", "2", "4", "8", "16", "32", ">=64"};
    static const char *const batch_keys[7] = {"0", "4", "8", "16", "32", "64", ">=64"};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "jobname", j->jobname);
    add_int(o, "groupid", (uint64_t)j->groupid);
    add_int(o, "error", 0);
    add_int(o, "eta", 0);
    add_int(o, "elapsed", (j->runtime_ns + 999999999u) / 1000000000u);
    const cJSON *job_options =
        jobs && jobs->job_options && j->job_index < (uint32_t)jobs->n_jobs ? jobs->job_options[j->job_index] : NULL;
    if (job_options)
        cJSON_AddItemToObject(o, "job options", cJSON_Duplicate(job_options, 1));
    struct pct_which which = job_pct_which(j, jobs);
    ddir_json(o, "read", &j->dir[FIO_DDIR_READ], ddir_runtime_ms(j, FIO_DDIR_READ), rs->agg[FIO_DDIR_READ], pl,
              which, bins);
    ddir_json(o, "write", &j->dir[FIO_DDIR_WRITE], ddir_runtime_ms(j, FIO_DDIR_WRITE), rs->agg[FIO_DDIR_WRITE],
              pl, which, bins);
    ddir_json(o, "trim", &zero_ddir, 0, 0, pl, which, bins);
    cJSON *sync = cJSON_AddObjectToObject(o, "sync");
    add_int(sync, "total_ios", 0);
    lat_json(sync, "lat_ns", &zero_ddir.lat, which.lat || which.clat ? pl : NULL, bins);

    add_int(o, "job_runtime", job_rt_ns(j) / 1000000u);
    add_float(o, "usr_cpu", j->usr_cpu);
    add_float(o, "sys_cpu", j->sys_cpu);
    add_int(o, "ctx", j->ctx);
    add_int(o, "majf", 0);
    add_int(o, "minf", 0);
    double dist[7], ns[10], us[10], ms[12];
    iodepth_dist(j, dist);
    dist_json(o, "iodepth_level", depth_keys, dist, 7);
    calc_dist(j->io_u_submit, j->total_submit, dist);
    dist_json(o, "iodepth_submit", batch_keys, dist, 7);
    calc_dist(j->io_u_complete, j->total_complete, dist);
    dist_json(o, "iodepth_complete", batch_keys, dist, 7);
    latency_dists(j, ns, us, ms);
    dist_json(o, "latency_ns", lat_keys, ns, 10);
    dist_json(o, "latency_us", lat_keys, us, 10);
    dist_json(o, "latency_ms", lat_keys, ms, 12);
    add_int(o, "latency_depth", j->iodepth ? j->iodepth : 1);
    add_int(o, "latency_target", 0);
    add_float(o, "latency_percentile", 100.0);
    add_int(o, "latency_window", 0);
    return o;
}

cJSON *fioout_json(const struct job_result *jobs, int n, const struct fioout_opts *o)
{
    char tbuf[64];
    struct plist pl;
    struct entries s;
    int64_t ts = o ? o->timestamp_s : 0;
    plist_make(&pl, o);
    entries_build(&s, jobs, n, o && o->group_reporting);

    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "fio version", o && o->fio_version ? o->fio_version : "cephsim");
    add_int(root, "timestamp", (uint64_t)ts);
    add_int(root, "timestamp_ms", (uint64_t)ts * 1000);
    fmt_ctime(tbuf, sizeof tbuf, ts);
    cJSON_AddStringToObject(root, "time", tbuf);
    if (o && o->global_options && o->global_options->child)
        cJSON_AddItemToObject(root, "global options", cJSON_Duplicate(o->global_options, 1));
    cJSON *arr = cJSON_AddArrayToObject(root, "jobs");
    for (int k = 0; k < s.n; k++)
        cJSON_AddItemToArray(arr, job_json(s.e[k], find_rs(&s, s.e[k]->groupid), &pl, o ? o->jobs : NULL,
                                           o && o->json_plus));
    cJSON_AddArrayToObject(root, "disk_util");
    entries_free(&s);
    return root;
}

/* ---- text summary ---- */

/* lib/num2str.c: num to at most maxlen digits with a unit prefix. */
static void num2str(char *buf, size_t bn, uint64_t num, int maxlen, int pow2, const char *unit)
{
    static const char *const sistr[] = {"", "k", "M", "G", "T", "P"};
    static const char *const iecstr[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
    const char *const *prefix = pow2 ? iecstr : sistr;
    const unsigned thousand = pow2 ? 1024 : 1000;
    unsigned modulo = UINT32_MAX;
    int post = 0, carry = 0;
    char tmp[32];
    while (post < 6) {
        snprintf(tmp, sizeof tmp, "%" PRIu64, num);
        if ((int)strlen(tmp) <= maxlen)
            break;
        modulo = (unsigned)(num % thousand);
        num /= thousand;
        carry = modulo >= thousand / 2;
        post++;
    }
    if (post >= 6)
        post = 0;
    if (modulo == UINT32_MAX) {
        snprintf(buf, bn, "%" PRIu64 "%s%s", num, prefix[post], unit);
        return;
    }
    snprintf(tmp, sizeof tmp, "%" PRIu64, num);
    int room = maxlen - (int)strlen(tmp);
    if (room <= 1) {
        snprintf(buf, bn, "%" PRIu64 "%s%s", num + (carry ? 1 : 0), prefix[post], unit);
        return;
    }
    char frac[16];
    snprintf(frac, sizeof frac, "%.*f", room - 1, (double)modulo / (double)thousand);
    if (frac[0] == '1')
        num++;
    snprintf(buf, bn, "%" PRIu64 ".%s%s%s", num, &frac[2], prefix[post], unit);
}

/* display_lat: pick nsec/usec/msec like fio, then "min=, max=, avg=, stdev=". */
static void display_lat(FILE *f, const char *name, const struct hist *h)
{
    if (!h->n)
        return;
    uint64_t min = h->min, max = h->max;
    double mean = hist_mean(h), dev = hist_stddev(h);
    const char *base = "(nsec)";
    if (min > 1000000 && max > 1000000 && mean > 1e6 && dev > 1e6) {
        min /= 1000000, max /= 1000000, mean /= 1e6, dev /= 1e6;
        base = "(msec)";
    } else if (min > 1000 && max > 1000 && mean > 1e3 && dev > 1e3) {
        min /= 1000, max /= 1000, mean /= 1e3, dev /= 1e3;
        base = "(usec)";
    }
    char minp[N2S_LEN], maxp[N2S_LEN];
    num2str(minp, sizeof minp, min, 6, 0, "");
    num2str(maxp, sizeof maxp, max, 6, 0, "");
    fprintf(f, "    %s %s: min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n", name, base, minp, maxp, mean, dev);
}

static void show_percentiles(FILE *f, const struct hist *h, const struct plist *pl, const char *kind)
{
    if (!h->n || !pl->n)
        return;
    uint64_t v[FIO_LIST_MAX], minv = UINT64_MAX, maxv = 0;
    hist_percentiles(h, pl->p, pl->n, v);
    for (int i = 0; i < pl->n; i++) {
        minv = v[i] < minv ? v[i] : minv;
        maxv = v[i] > maxv ? v[i] : maxv;
    }
    int scale_down;
    uint64_t divisor;
    if (minv > 2000000 && maxv > 99999999ull) {
        scale_down = 2, divisor = 1000000;
        fprintf(f, "    %s percentiles (msec):\n", kind);
    } else if (minv > 2000 && maxv > 99999) {
        scale_down = 1, divisor = 1000;
        fprintf(f, "    %s percentiles (usec):\n", kind);
    } else {
        scale_down = 0, divisor = 1;
        fprintf(f, "    %s percentiles (nsec):\n", kind);
    }
    int time_width = maxv / divisor ? (int)(log10((double)(maxv / divisor)) + 1) : 1;
    time_width = time_width > 5 ? time_width : 5;
    int per_line = (80 - 7) / (pl->precision + 10 + time_width);
    for (int j = 0; j < pl->n; j++) {
        if (j % per_line == 0)
            fprintf(f, "     |");
        uint64_t x = v[j];
        for (int i = 0; i < scale_down; i++)
            x = (x + 999) / 1000;
        int last = j == pl->n - 1;
        fprintf(f, " %*.*fth=[%*" PRIu64 "]%c", pl->precision + 3, pl->precision, pl->p[j], time_width, x,
                last ? '\n' : ',');
        if (!last && j % per_line == per_line - 1)
            fprintf(f, "\n");
    }
}

static void show_ddir(FILE *f, const struct job_result *j, int d, const struct group_rs *rs,
                      const struct plist *pl, struct pct_which which)
{
    const struct job_ddir_stats *s = &j->dir[d];
    uint64_t runt = ddir_runtime_ms(j, d);
    if (!runt)
        return;
    uint64_t bw = s->io_bytes * 1000 / runt, iops = 1000 * s->total_ios / runt;
    char io_p[N2S_LEN], bw_p[N2S_LEN], bw_alt[N2S_LEN], iops_p[N2S_LEN];
    num2str(io_p, sizeof io_p, s->io_bytes, 4, 1, "B");
    num2str(bw_p, sizeof bw_p, bw, 4, 1, "B/s");
    num2str(bw_alt, sizeof bw_alt, bw, 4, 0, "B/s");
    num2str(iops_p, sizeof iops_p, iops, 4, 0, "");
    fprintf(f, "  %s: IOPS=%s, BW=%s (%s)(%s/%" PRIu64 "msec)%s\n", d == FIO_DDIR_READ ? "read" : "write", iops_p,
            bw_p, bw_alt, io_p, runt, d == FIO_DDIR_WRITE ? "; 0 zone resets" : "");
    display_lat(f, "slat", &s->slat);
    display_lat(f, "clat", &s->clat);
    display_lat(f, " lat", &s->lat);
    /* stat.c show_ddir_status: slat, clat, lat, each with its own flag */
    if (which.slat)
        show_percentiles(f, &s->slat, pl, "slat");
    if (which.clat)
        show_percentiles(f, &s->clat, pl, "clat");
    if (which.lat)
        show_percentiles(f, &s->lat, pl, "lat");

    uint64_t min, max;
    double mean, dev;
    if (sample_stats(s->bw_kib_samples, s->n_samples, &min, &max, &mean, &dev)) {
        const char *unit = "KiB";
        double p_of_agg = agg_percent(mean, rs->agg[d]);
        if (mean > 1024.0 * 1024.0) {
            min /= 1024, max /= 1024, mean /= 1024.0, dev /= 1024.0;
            unit = "MiB";
        }
        fprintf(f, "   bw (%5s/s): min=%5" PRIu64 ", max=%5" PRIu64 ", per=%3.2f%%, avg=%5.02f, stdev=%5.02f, "
                   "samples=%" PRIu32 "\n", unit, min, max, p_of_agg, mean, dev, s->n_samples);
    }
    if (sample_stats(s->iops_samples, s->n_samples, &min, &max, &mean, &dev))
        fprintf(f, "   iops        : min=%5" PRIu64 ", max=%5" PRIu64 ", avg=%5.02f, stdev=%5.02f, samples=%" PRIu32
                   "\n", min, max, mean, dev, s->n_samples);
}

static void show_lat(FILE *f, const double *v, int nr, const char *msg)
{
    int line = 0, shown = 0, new_line = 1;
    for (int i = 0; i < nr; i++) {
        if (v[i] <= 0.0)
            continue;
        shown = 1;
        if (new_line) {
            if (line)
                fprintf(f, "\n");
            fprintf(f, "  lat (%s)   : ", msg);
            new_line = 0;
            line = 0;
        }
        if (line)
            fprintf(f, ", ");
        fprintf(f, "%s=%3.2f%%", lat_keys[i], v[i]);
        if (++line == 5)
            new_line = 1;
    }
    if (shown)
        fprintf(f, "\n");
}

static void show_job(FILE *f, const struct job_result *j, int members, const struct group_rs *rs,
                     const struct plist *pl, const char *when, const struct fio_jobfile *jobs)
{
    if (!total_ios(j))
        return;
    fprintf(f, "%s: (groupid=%d, jobs=%d): err= 0: pid=0: %s\n", j->jobname, j->groupid, members, when);
    const struct workload_job *wj = jobs && j->job_index < (uint32_t)jobs->n_jobs ? &jobs->jobs[j->job_index] : NULL;
    if (wj && wj->description[0])
        fprintf(f, "  Description  : [%s]\n", wj->description);
    struct pct_which which = job_pct_which(j, jobs);
    show_ddir(f, j, FIO_DDIR_READ, rs, pl, which);
    show_ddir(f, j, FIO_DDIR_WRITE, rs, pl, which);
    double ns[10], us[10], ms[12], dist[7];
    latency_dists(j, ns, us, ms);
    show_lat(f, ns, 10, "nsec");
    show_lat(f, us, 10, "usec");
    show_lat(f, ms, 12, "msec");
    fprintf(f, "  cpu          : usr=%3.2f%%, sys=%3.2f%%, ctx=%" PRIu64 ", majf=0, minf=0\n", j->usr_cpu, j->sys_cpu,
            j->ctx);
    iodepth_dist(j, dist);
    fprintf(f, "  IO depths    : 1=%3.1f%%, 2=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%, 16=%3.1f%%, 32=%3.1f%%, >=64=%3.1f%%\n",
            dist[0], dist[1], dist[2], dist[3], dist[4], dist[5], dist[6]);
    for (int k = 0; k < 2; k++) {
        if (k)
            calc_dist(j->io_u_complete, j->total_complete, dist);
        else
            calc_dist(j->io_u_submit, j->total_submit, dist);
        fprintf(f, "     %s: 0=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%, 16=%3.1f%%, 32=%3.1f%%, 64=%3.1f%%, >=64=%3.1f%%\n",
                k ? "complete  " : "submit    ", dist[0], dist[1], dist[2], dist[3], dist[4], dist[5], dist[6]);
    }
    fprintf(f, "     issued rwts: total=%" PRIu64 ",%" PRIu64 ",0,0 short=0,0,0,0 dropped=0,0,0,0\n",
            j->dir[FIO_DDIR_READ].total_ios, j->dir[FIO_DDIR_WRITE].total_ios);
    fprintf(f, "     latency   : target=0, window=0, percentile=100.00%%, depth=%" PRIu32 "\n",
            j->iodepth ? j->iodepth : 1);
}

static void show_group(FILE *f, const struct group_rs *g)
{
    static const char *const str[] = {"   READ", "  WRITE"};
    fprintf(f, "\nRun status group %d (all jobs):\n", g->groupid);
    for (int d = 0; d < FIO_DDIR_NR; d++) {
        if (!g->max_run[d])
            continue;
        char io[N2S_LEN], ioalt[N2S_LEN], agg[N2S_LEN], aggalt[N2S_LEN], mn[N2S_LEN], mnalt[N2S_LEN], mx[N2S_LEN],
            mxalt[N2S_LEN];
        num2str(io, sizeof io, g->iobytes[d], 4, 1, "B");
        num2str(ioalt, sizeof ioalt, g->iobytes[d], 4, 0, "B");
        num2str(agg, sizeof agg, g->agg[d], 4, 1, "B/s");
        num2str(aggalt, sizeof aggalt, g->agg[d], 4, 0, "B/s");
        num2str(mn, sizeof mn, g->min_bw[d], 4, 1, "B/s");
        num2str(mnalt, sizeof mnalt, g->min_bw[d], 4, 0, "B/s");
        num2str(mx, sizeof mx, g->max_bw[d], 4, 1, "B/s");
        num2str(mxalt, sizeof mxalt, g->max_bw[d], 4, 0, "B/s");
        fprintf(f, "%s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), run=%" PRIu64 "-%" PRIu64 "msec\n", str[d], agg,
                aggalt, mn, mx, mnalt, mxalt, io, ioalt, g->min_run[d], g->max_run[d]);
    }
}

/* fio's ddir_str of a job's rw. */
static const char *rw_name(enum fio_rw rw)
{
    static const char *const names[] = {"read", "write", "randread", "randwrite", "rw", "randrw"};
    return (unsigned)rw < sizeof names / sizeof names[0] ? names[rw] : "?";
}

/* A direction's block size range as add_job prints it: num2str(min)-num2str(max) (bsrange or
   bssplit bounds, else bs). */
static void bs_range(const struct workload_job *j, int d, char *lo, char *hi, size_t n)
{
    uint32_t a = j->bs[d], b = j->bs[d];
    if (j->bsrange[d][1]) {
        a = j->bsrange[d][0];
        b = j->bsrange[d][1];
    }
    for (int i = 0; i < j->n_bssplit[d]; i++) {
        uint32_t v = j->bssplit[d][i].bs;
        if (i == 0 || v < a)
            a = v;
        if (i == 0 || v > b)
            b = v;
    }
    num2str(lo, n, a, 4, j->kb_base == 1024, "B");
    num2str(hi, n, b, 4, j->kb_base == 1024, "B");
}

/* What fio prints before the results: init.c add_job's line per job (and "..." for its
   numjobs clones), the version, backend.c's "Starting N process(es)". */
static void show_preamble(FILE *f, const struct fio_jobfile *jobs, const char *version)
{
    uint32_t procs = 0;
    for (int i = 0; jobs && i < jobs->n_jobs; i++) {
        const struct workload_job *j = &jobs->jobs[i];
        char r0[N2S_LEN], r1[N2S_LEN], w0[N2S_LEN], w1[N2S_LEN];
        bs_range(j, FIO_DDIR_READ, r0, r1, N2S_LEN);
        bs_range(j, FIO_DDIR_WRITE, w0, w1, N2S_LEN);
        /* trim takes the write sizes unless set (fio: bs= sets all three) */
        fprintf(f, "%s: (g=%d): rw=%s, bs=(R) %s-%s, (W) %s-%s, (T) %s-%s, ioengine=%s, iodepth=%u\n", j->name,
                j->groupid, rw_name(j->rw), r0, r1, w0, w1, w0, w1, j->ioengine, j->iodepth);
        if (j->numjobs > 1)
            fprintf(f, "...\n");
        procs += j->numjobs;
    }
    if (!jobs)
        return;
    fprintf(f, "%s\nStarting %u process%s\n\n", version, procs, procs == 1 ? "" : "es");
}

void fioout_print(FILE *f, const struct job_result *jobs, int n, const struct fioout_opts *o)
{
    char when[64];
    struct plist pl;
    struct entries s;
    plist_make(&pl, o);
    entries_build(&s, jobs, n, o && o->group_reporting);
    fmt_ctime(when, sizeof when, o ? o->timestamp_s : 0);
    show_preamble(f, o ? o->jobs : NULL, o && o->fio_version ? o->fio_version : "cephsim");
    for (int k = 0; k < s.n; k++)
        show_job(f, s.e[k], s.members[k], find_rs(&s, s.e[k]->groupid), &pl, when, o ? o->jobs : NULL);
    for (int g = 0; g < s.n_groups; g++)
        show_group(f, &s.rs[g]);
    entries_free(&s);
}
