/*
 * validate.c - real capture vs simulation (API and method in validate.h).
 *
 * The per-stage intervals are those of trace_op_stages() (trace.h) on primary
 * osd_op writes whose events include every stage from queued_for_pg to
 * commit_sent, so each sample is one op's gap between consecutive stages in
 * Ceph's own order (PrimaryLogPG: queued_for_pg, reached_pg, started, waiting
 * for subops, op_commit, sub_op_commit_rec, commit_sent).
 */
#include "validate.h"

#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster.h"
#include "fioout.h"
#include "files.h"
#include "gnuplot.h"
#include "jsonu.h"
#include "historicops.h"
#include "optracker.h"
#include "runner.h"
#include "scenario.h"
#include "stats.h"
#include "trace.h"

static const char *const dist_names[VALIDATE_N_DISTS] = {
    "initiated->queued_for_pg", "->reached_pg", "->started", "->waiting for subops",
    "->op_commit", "->sub_op_commit_rec", "->commit_sent", "initiated->commit_sent"};
static const char *const dist_keys[VALIDATE_N_DISTS] = {
    "queued_for_pg", "reached_pg", "started", "subops", "op_commit", "sub_op_commit_rec",
    "commit_sent", "total"};
static const char *const metric_keys[VALIDATE_N_METRICS] = {
    "iops", "lat_mean", "lat_p50", "lat_p99", "op_w", "op_rw", "lock_waits", "osd_cpu", "osd_wakeups"};
static const char *const metric_names[VALIDATE_N_METRICS] = {
    "IOPS", "clat mean", "clat p50", "clat p99", "op_w per fio I/O", "op_rw per fio I/O",
    "lock-wait share", "OSD CPU per fio I/O", "OSD wake-ups per fio I/O"};
static const char *const metric_units[VALIDATE_N_METRICS] = {"", "us", "us", "us", "", "", "", "us", ""};

const char *const validate_window_sets[VALIDATE_N_WINDOW_SETS] = {
    "ceph.osd_op_history_size=20000", "ceph.osd_op_history_duration=1"};

const char *validate_dist_name(int d)
{
    return d >= 0 && d < VALIDATE_N_DISTS ? dist_names[d] : "?";
}

const char *validate_metric_key(enum validate_metric m)
{
    return (int)m >= 0 && m < VALIDATE_N_METRICS ? metric_keys[m] : "?";
}

/* ------------------------------------------------------------------ statistics */

double validate_rel_error(double sim, double real)
{
    if (real == 0)
        return sim == 0 ? 0 : copysign(INFINITY, sim);
    return (sim - real) / fabs(real);
}

double validate_ks_distance(const double *a, size_t na, const double *b, size_t nb)
{
    if (!na || !nb)
        return NAN;
    size_t i = 0, j = 0;
    double d = 0;
    while (i < na && j < nb) {
        double x = a[i] < b[j] ? a[i] : b[j];
        while (i < na && a[i] <= x)
            i++;
        while (j < nb && b[j] <= x)
            j++;
        double g = fabs((double)i / (double)na - (double)j / (double)nb);
        if (g > d)
            d = g;
    }
    return d;
}

double validate_ks_pvalue(double d, size_t na, size_t nb)
{
    if (!na || !nb || isnan(d))
        return NAN;
    double en = sqrt((double)na * (double)nb / (double)(na + nb));
    double lambda = (en + 0.12 + 0.11 / en) * d;
    if (lambda < 0.2)
        return 1.0;
    double sum = 0, sign = 1;
    for (int k = 1; k <= 100; k++) {
        double term = sign * exp(-2.0 * k * k * lambda * lambda);
        sum += term;
        if (fabs(term) < 1e-12)
            break;
        sign = -sign;
    }
    double p = 2 * sum;
    return p < 0 ? 0 : p > 1 ? 1 : p;
}

double validate_median(const double *v, size_t n)
{
    if (!n)
        return NAN;
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double validate_metric_value(const struct validate_capture *c, enum validate_metric m)
{
    bool perf = c->n_perf > 0 && c->total_ios > 0;
    switch (m) {
    case VALIDATE_IOPS: return c->iops;
    case VALIDATE_LAT_MEAN: return c->lat_mean_us;
    case VALIDATE_LAT_P50: return c->lat_p50_us;
    case VALIDATE_LAT_P99: return c->lat_p99_us;
    case VALIDATE_OP_W: return perf ? c->op_w / (double)c->total_ios : NAN;
    case VALIDATE_OP_RW: return perf ? c->op_rw / (double)c->total_ios : NAN;
    case VALIDATE_LOCK_WAITS: return c->n_writes ? (double)c->n_lock_wait_ops / (double)c->n_writes : NAN;
    case VALIDATE_OSD_CPU: return c->osd_cpu_us_per_io;
    case VALIDATE_OSD_WAKEUPS: return c->osd_wakeups_per_io;
    default: return NAN;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ------------------------------------------------------------------ tolerances */

void validate_tolerance_defaults(struct validate_tolerance *t)
{
    /* the OSDs' CPU and wake-ups are shown, not checked, unless asked (--tolerance
       osd_cpu=25%): a capture's CPU includes what the host's other load cost it */
    static const double def[VALIDATE_N_METRICS] = {0.20, 0.25, 0.25, 0.50, 0.20, 0.20, 0.05, NAN, NAN};
    for (int i = 0; i < VALIDATE_N_METRICS; i++)
        t->metric[i] = def[i];
    /* stage medians are checked by default: a PASS with a stage 2x off (+100 % or -50 %)
       said the model was right for the wrong reasons */
    for (int i = 0; i < VALIDATE_N_DISTS; i++) {
        t->dist_median[i] = 0.40;
        t->dist_ks[i] = NAN;
    }
}

static int parse_tol_value(const char *key, const char *v, double *out, struct sim_err *err)
{
    if (!strcmp(v, "off") || !strcmp(v, "none")) {
        *out = NAN;
        return 0;
    }
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || errno)
        return sim_errf(err, -EINVAL, "--tolerance %s=%s: expected a percentage (20%%), a fraction (0.2) or off",
                        key, v);
    if (*end == '%') {
        x /= 100;
        end++;
    }
    if (*end || x < 0 || !isfinite(x))
        return sim_errf(err, -EINVAL, "--tolerance %s=%s: expected a percentage (20%%), a fraction (0.2) or off",
                        key, v);
    *out = x;
    return 0;
}

int validate_tolerance_parse(const char *text, struct validate_tolerance *t, struct sim_err *err)
{
    char *buf = sim_xstrdup(text), *save = NULL;
    int rc = 0;
    /* every accepted key, for the did-you-mean */
    const char *keys[VALIDATE_N_METRICS + 2 + 2 * VALIDATE_N_DISTS];
    char dotted[2 * VALIDATE_N_DISTS][40];
    int nk = 0;
    for (int i = 0; i < VALIDATE_N_METRICS; i++)
        keys[nk++] = metric_keys[i];
    keys[nk++] = "stage";
    keys[nk++] = "ks";
    for (int i = 0; i < VALIDATE_N_DISTS; i++) {
        snprintf(dotted[2 * i], sizeof dotted[0], "stage.%s", dist_keys[i]);
        snprintf(dotted[2 * i + 1], sizeof dotted[0], "ks.%s", dist_keys[i]);
        keys[nk++] = dotted[2 * i];
        keys[nk++] = dotted[2 * i + 1];
    }
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ')
            item++;
        if (!*item)
            continue;
        char *eq = strchr(item, '=');
        if (!eq) {
            rc = sim_errf(err, -EINVAL, "--tolerance %s: expected key=value (e.g. iops=20%%)", item);
            break;
        }
        *eq = '\0';
        const char *key = item, *val = eq + 1;
        double v = NAN;
        if ((rc = parse_tol_value(key, val, &v, err)) < 0)
            break;
        bool found = false;
        for (int i = 0; i < VALIDATE_N_METRICS && !found; i++)
            if (!strcmp(key, metric_keys[i])) {
                t->metric[i] = v;
                found = true;
            }
        if (!found && (!strcmp(key, "stage") || !strcmp(key, "ks"))) {
            for (int i = 0; i < VALIDATE_N_DISTS; i++)
                (key[0] == 's' ? t->dist_median : t->dist_ks)[i] = v;
            found = true;
        }
        for (int i = 0; i < VALIDATE_N_DISTS && !found; i++) {
            if (!strcmp(key, dotted[2 * i])) {
                t->dist_median[i] = v;
                found = true;
            } else if (!strcmp(key, dotted[2 * i + 1])) {
                t->dist_ks[i] = v;
                found = true;
            }
        }
        if (!found) {
            const char *dym = names_did_you_mean(key, keys, nk);
            rc = sim_errf(err, -EINVAL, "--tolerance: unknown key '%s'%s%s%s", key,
                          dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
            break;
        }
    }
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------ loading */

struct dist_acc {
    double *v[VALIDATE_N_DISTS];
    size_t n[VALIDATE_N_DISTS], cap[VALIDATE_N_DISTS];
};

static void acc_push(struct dist_acc *a, int d, double x)
{
    if (a->n[d] == a->cap[d]) {
        a->cap[d] = a->cap[d] ? 2 * a->cap[d] : 256;
        a->v[d] = sim_xrealloc(a->v[d], a->cap[d], sizeof *a->v[d]);
    }
    a->v[d][a->n[d]++] = x;
}

static bool is_primary_write(const struct trace_ops *t, const struct trace_op *op)
{
    if (op->desc.kind != TRACE_DESC_OSD_OP)
        return false;
    const struct trace_osdop *o = trace_desc_osdops(t, &op->desc);
    for (size_t i = 0; i < op->desc.n_osdops; i++)
        if (!strcmp(o[i].name, "write") || !strcmp(o[i].name, "writefull"))
            return true;
    return false;
}

/* Add the primary writes of one dump to cap / acc. */
static void add_ops(struct validate_capture *cap, struct dist_acc *acc, const struct trace_ops *t)
{
    for (size_t k = 0; k < t->n; k++) {
        const struct trace_op *op = &t->ops[k];
        if (op->truncated || !is_primary_write(t, op))
            continue;
        struct trace_stages st;
        trace_op_stages(t, op, &st);
        cap->n_writes++;
        if (st.rw_lock_waits) {
            cap->n_lock_wait_ops++;
            cap->lock_wait_events += (uint64_t)st.rw_lock_waits;
        }
        bool complete = true;
        for (int s = TRACE_ST_QUEUED_FOR_PG; s <= TRACE_ST_COMMIT_SENT; s++)
            complete &= st.gap_ns[s] != TRACE_NS_NONE;
        if (!complete)
            continue;
        for (int s = TRACE_ST_QUEUED_FOR_PG; s <= TRACE_ST_COMMIT_SENT; s++)
            acc_push(acc, s, (double)st.gap_ns[s] / 1e3);
        acc_push(acc, VALIDATE_N_DISTS - 1, (double)st.at_ns[TRACE_ST_COMMIT_SENT] / 1e3);
    }
    cap->n_dumps++;
}

static void acc_finish(struct validate_capture *cap, struct dist_acc *acc)
{
    for (int d = 0; d < VALIDATE_N_DISTS; d++) {
        if (acc->n[d])
            qsort(acc->v[d], acc->n[d], sizeof *acc->v[d], cmp_double);
        cap->dist_us[d] = acc->v[d];
        cap->n_dist[d] = acc->n[d];
    }
}

static double json_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static double pct_lookup(const struct validate_capture *cap, double pct)
{
    for (int i = 0; i < cap->n_pct; i++)
        if (fabs(cap->pct[i] - pct) < 1e-9)
            return cap->pct_us[i];
    /* interpolate between neighbours */
    for (int i = 1; i < cap->n_pct; i++)
        if (cap->pct[i - 1] < pct && pct < cap->pct[i]) {
            double f = (pct - cap->pct[i - 1]) / (cap->pct[i] - cap->pct[i - 1]);
            return cap->pct_us[i - 1] + f * (cap->pct_us[i] - cap->pct_us[i - 1]);
        }
    return NAN;
}

/*
 * The bounds a measured value must lie in to be compared as data: finite, not
 * negative, and below what no fio run reports (fio's counters are uint64_t;
 * IOPS above 10^9 or a mean latency above 10^6 s are damaged files, not
 * measurements).  0, or -EINVAL naming file and JSON path.
 */
#define VALIDATE_MAX_IOPS 1e9
#define VALIDATE_MAX_NS 1e15
#define VALIDATE_MAX_COUNT 18446744073709551615.0

static int check_measured(double v, double max, const char *file, const char *jpath, struct sim_err *err)
{
    if (isnan(v))
        return 0; /* missing: the callers say what a missing value means */
    if (!isfinite(v) || v < 0 || v > max)
        return sim_errf(err, -EINVAL, "%s: %s: %.6g is not a measured value (expected 0 .. %.6g)", file, jpath, v,
                        max);
    return 0;
}

static int load_fio(struct validate_capture *cap, struct sim_err *err)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/fio.json", cap->dir);
    cJSON *root = jsonu_load_file(path, err);
    if (!root)
        return err ? err->code : -EINVAL;
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(root, "jobs");
    int rc = 0;
    if (!cJSON_IsArray(jobs) || cJSON_GetArraySize(jobs) < 1) {
        rc = sim_errf(err, -EINVAL, "%s: jobs: expected a non-empty array", path);
        goto out;
    }
    double tot[2] = {0, 0};
    const cJSON *job;
    cJSON_ArrayForEach(job, jobs) {
        tot[0] += json_num(cJSON_GetObjectItemCaseSensitive(job, "read"), "total_ios");
        tot[1] += json_num(cJSON_GetObjectItemCaseSensitive(job, "write"), "total_ios");
    }
    if (isnan(tot[0]) || isnan(tot[1])) {
        rc = sim_errf(err, -EINVAL, "%s: jobs[].read/write.total_ios: missing", path);
        goto out;
    }
    if ((rc = check_measured(tot[0] + tot[1], VALIDATE_MAX_COUNT, path, "jobs[].total_ios", err)) < 0)
        goto out;
    cap->all_ios = (uint64_t)(tot[0] + tot[1]);
    cap->ddir = tot[1] > 0 ? 1 : 0;
    const char *dname = cap->ddir ? "write" : "read";
    double wsum = 0, msum = 0, best = -1;
    int i = 0;
    cJSON_ArrayForEach(job, jobs) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(job, dname);
        const cJSON *clat = cJSON_GetObjectItemCaseSensitive(d, "clat_ns");
        double ios = json_num(d, "total_ios"), iops = json_num(d, "iops"), mean = json_num(clat, "mean");
        double rt = json_num(d, "runtime");
        if (isnan(iops) || isnan(mean)) {
            rc = sim_errf(err, -EINVAL, "%s: jobs[%d].%s: iops or clat_ns.mean missing", path, i, dname);
            goto out;
        }
        char jp[96];
        snprintf(jp, sizeof jp, "jobs[%d].%s.", i, dname);
        size_t jl = strlen(jp);
        snprintf(jp + jl, sizeof jp - jl, "iops");
        if ((rc = check_measured(iops, VALIDATE_MAX_IOPS, path, jp, err)) < 0)
            goto out;
        snprintf(jp + jl, sizeof jp - jl, "clat_ns.mean");
        if ((rc = check_measured(mean, VALIDATE_MAX_NS, path, jp, err)) < 0)
            goto out;
        snprintf(jp + jl, sizeof jp - jl, "total_ios");
        if ((rc = check_measured(ios, VALIDATE_MAX_COUNT, path, jp, err)) < 0)
            goto out;
        snprintf(jp + jl, sizeof jp - jl, "runtime");
        if ((rc = check_measured(rt, VALIDATE_MAX_NS / 1e6, path, jp, err)) < 0)
            goto out;
        cap->iops += iops;
        cap->total_ios += (uint64_t)ios;
        if (rt / 1e3 > cap->runtime_s)
            cap->runtime_s = rt / 1e3;
        msum += mean * ios;
        wsum += ios;
        const cJSON *pct = cJSON_GetObjectItemCaseSensitive(clat, "percentile");
        if (cJSON_IsObject(pct) && ios > best) {
            best = ios;
            cap->n_pct = 0;
            const cJSON *p;
            cJSON_ArrayForEach(p, pct) {
                if (cap->n_pct < VALIDATE_MAX_PCT && cJSON_IsNumber(p)) {
                    /* fio's keys: "99.000000" (the percentile, 0 .. 100), values in ns */
                    char *end;
                    double at = strtod(p->string, &end);
                    snprintf(jp + jl, sizeof jp - jl, "clat_ns.percentile");
                    if (*end || !(at >= 0 && at <= 100)) {
                        rc = sim_errf(err, -EINVAL, "%s: %s: key '%.40s' is not a percentile (0 .. 100)", path,
                                      jp, p->string);
                        goto out;
                    }
                    if ((rc = check_measured(p->valuedouble, VALIDATE_MAX_NS, path, jp, err)) < 0)
                        goto out;
                    cap->pct[cap->n_pct] = at;
                    cap->pct_us[cap->n_pct] = p->valuedouble / 1e3;
                    cap->n_pct++;
                }
            }
        }
        i++;
    }
    cap->lat_mean_us = wsum > 0 ? msum / wsum / 1e3 : NAN;
    cap->lat_p50_us = pct_lookup(cap, 50);
    cap->lat_p99_us = pct_lookup(cap, 99);
    cap->has_fio = true;
out:
    cJSON_Delete(root);
    return rc;
}

/* visit(path, dump, ctx, err) for each osd.N.perf.json under dir (`ceph daemon
   osd.N perf dump`), in glob order, until one returns non-zero, which is
   returned (0 when none did or there are none).  A file that is there but is
   no JSON is an error naming it: skipping it would count fewer OSDs than the
   capture has. */
static int each_perf_dump(const char *dir,
                          int (*visit)(const char *path, const cJSON *dump, void *ctx, struct sim_err *err),
                          void *ctx, struct sim_err *err)
{
    char pat[1100];
    snprintf(pat, sizeof pat, "%s/osd.*.perf.json", dir);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0)
        return 0;
    int rc = 0;
    for (size_t i = 0; i < g.gl_pathc && rc == 0; i++) {
        cJSON *root = jsonu_load_file(g.gl_pathv[i], err);
        if (!root) {
            rc = err && err->code ? err->code : -EINVAL;
            break;
        }
        rc = visit(g.gl_pathv[i], root, ctx, err);
        cJSON_Delete(root);
    }
    globfree(&g);
    return rc;
}

/* One OSD's osd.op_w and osd.op_rw counters and its data cache's bytes. */
static int add_perf(const char *path, const cJSON *root, void *ctx, struct sim_err *err)
{
    struct validate_capture *cap = ctx;
    const cJSON *osd = cJSON_GetObjectItemCaseSensitive(root, "osd");
    double w = json_num(osd, "op_w"), rw = json_num(osd, "op_rw");
    int rc;
    if (isnan(w) || isnan(rw))
        return sim_errf(err, -EINVAL, "%s: osd.op_w, osd.op_rw: missing or not numbers (not a perf dump)", path);
    if ((rc = check_measured(w, VALIDATE_MAX_COUNT, path, "osd.op_w", err)) != 0 ||
        (rc = check_measured(rw, VALIDATE_MAX_COUNT, path, "osd.op_rw", err)) != 0)
        return rc;
    cap->op_w += w;
    cap->op_rw += rw;
    cap->n_perf++;
    /* absent before 15.2's perf counters or on another store: no figure */
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(root, "bluestore");
    double hit = json_num(bs, "bluestore_buffer_hit_bytes"), miss = json_num(bs, "bluestore_buffer_miss_bytes");
    if (isfinite(hit) && isfinite(miss) && hit >= 0 && miss >= 0) {
        cap->cache_hit_bytes += hit;
        cap->cache_miss_bytes += miss;
    }
    return 0;
}

/* Every osd.N.perf.json: its osd.op_w and osd.op_rw counters. */
static int load_perf(struct validate_capture *cap, struct sim_err *err)
{
    return each_perf_dump(cap->dir, add_perf, cap, err);
}

/* Dump files of one kind; a .json.gz is skipped when the plain .json is there too. */
static int load_dumps(struct validate_capture *cap, struct dist_acc *acc, const char *suffix,
                      struct sim_err *err)
{
    char pat[1100];
    snprintf(pat, sizeof pat, "%s/osd.*.%s.json*", cap->dir, suffix);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0)
        return 0;
    int found = 0, rc = 0;
    for (size_t i = 0; i < g.gl_pathc && rc == 0; i++) {
        const char *p = g.gl_pathv[i];
        size_t n = strlen(p);
        bool gz = n > 8 && !strcmp(p + n - 8, ".json.gz");
        if (!gz && !(n > 5 && !strcmp(p + n - 5, ".json")))
            continue;
        if (gz) {
            char plain[1100];
            snprintf(plain, sizeof plain, "%.*s", (int)(n - 3), p);
            if (access(plain, R_OK) == 0)
                continue;
        }
        /* no TRACE_LOAD_SALVAGE: the ops left in a cut-off dump are a handful, and stages
           scored on them would pass for a comparison; refused as replay refuses it */
        struct trace_ops t;
        if ((rc = trace_ops_load(p, 0, &t, err)) < 0)
            break;
        add_ops(cap, acc, &t);
        trace_ops_free(&t);
        found++;
    }
    globfree(&g);
    return rc < 0 ? rc : found;
}

/* cap's kind called name (the thread name without its trailing number), added if new. */
static struct validate_thread_kind *thread_kind(struct validate_capture *cap, const char *comm)
{
    char name[32];
    snprintf(name, sizeof name, "%s", comm);
    size_t n = strlen(name);
    while (n > 0 && name[n - 1] >= '0' && name[n - 1] <= '9')
        n--;
    if (n > 0 && n < strlen(name) && name[n - 1] == '-')
        n--;
    name[n] = '\0';
    for (int k = 0; k < cap->n_threads; k++)
        if (!strcmp(cap->threads[k].name, name))
            return &cap->threads[k];
    if (cap->n_threads == VALIDATE_MAX_THREAD_KINDS)
        return NULL;
    struct validate_thread_kind *t = &cap->threads[cap->n_threads++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    return t;
}

/* One thread of cpu_snap.py's "threads": [comm, cpu_ns, voluntary, nonvoluntary]. */
static int thread_entry(const char *path, const char *daemon, const cJSON *t, const char **comm, double *cpu_ns,
                        double *sleeps, struct sim_err *err)
{
    const cJSON *c = cJSON_GetArrayItem(t, 0), *cpu = cJSON_GetArrayItem(t, 1), *vol = cJSON_GetArrayItem(t, 2);
    if (!cJSON_IsArray(t) || !cJSON_IsString(c) || !cJSON_IsNumber(cpu) || !cJSON_IsNumber(vol) ||
        !(cpu->valuedouble >= 0) || !(vol->valuedouble >= 0))
        return sim_errf(err, -EINVAL, "%s: threads.%s.%s: expected [comm, cpu_ns, voluntary, nonvoluntary]", path,
                        daemon, t->string);
    *comm = c->valuestring;
    *cpu_ns = cpu->valuedouble;
    *sleeps = vol->valuedouble;
    return 0;
}

/*
 * The ceph-osd daemons (osd.N) between two cpu_snap.py snapshots: per thread
 * of the second, what it used since the first (all of it when it started in
 * between), summed per thread kind into cap (ns and switches, totals), the
 * CPU alone from the daemons' utime + stime ticks when the snapshots have no
 * per-thread figures (*sleeps then -1).  A malformed file is an error naming
 * it and the JSON path.
 */
static int osd_cpu_between(struct validate_capture *cap, const char *pa, const cJSON *a, const char *pb,
                           const cJSON *b, double *cpu_ns, double *sleeps, struct sim_err *err)
{
    const cJSON *ta = cJSON_GetObjectItemCaseSensitive(a, "threads"), *tb = cJSON_GetObjectItemCaseSensitive(b, "threads");
    *cpu_ns = 0;
    *sleeps = -1;
    if (!cJSON_IsObject(ta) || !cJSON_IsObject(tb)) {
        const cJSON *da = cJSON_GetObjectItemCaseSensitive(a, "daemons"), *db = cJSON_GetObjectItemCaseSensitive(b, "daemons");
        double tck = json_num(a, "clk_tck");
        if (!cJSON_IsObject(da) || !cJSON_IsObject(db) || !(tck > 0))
            return sim_errf(err, -EINVAL, "%s: daemons and clk_tck: expected cpu_snap.py's snapshot",
                            cJSON_IsObject(da) && tck > 0 ? pb : pa);
        const cJSON *d;
        cJSON_ArrayForEach(d, db) {
            const cJSON *d0 = cJSON_GetObjectItemCaseSensitive(da, d->string);
            if (strncmp(d->string, "osd.", 4) || !cJSON_IsNumber(d) || !cJSON_IsNumber(d0))
                continue; /* not an OSD, or it was not running at one end (null) */
            *cpu_ns += (d->valuedouble - d0->valuedouble) / tck * 1e9;
        }
        return 0;
    }
    *sleeps = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, tb) {
        if (strncmp(d->string, "osd.", 4))
            continue;
        const cJSON *d0 = cJSON_GetObjectItemCaseSensitive(ta, d->string), *t;
        cJSON_ArrayForEach(t, d) {
            const char *comm, *comm0;
            double c1, s1, c0 = 0, s0 = 0;
            int rc = thread_entry(pb, d->string, t, &comm, &c1, &s1, err);
            const cJSON *t0 = cJSON_IsObject(d0) ? cJSON_GetObjectItemCaseSensitive(d0, t->string) : NULL;
            if (rc == 0 && t0)
                rc = thread_entry(pa, d->string, t0, &comm0, &c0, &s0, err);
            if (rc < 0)
                return rc;
            if (c1 < c0 || s1 < s0) /* a thread id used again by a new thread */
                c0 = s0 = 0;
            *cpu_ns += c1 - c0;
            *sleeps += s1 - s0;
            struct validate_thread_kind *k = thread_kind(cap, comm);
            if (k) {
                k->cpu_us += (c1 - c0) / 1e3;
                k->wakeups += s1 - s0;
            }
        }
    }
    return 0;
}

/* The kernel's own threads (children of kthreadd; by name, as cpu_snap.py
   records no parent): per-CPU workers, softirq, block and journal threads do
   the cluster's I/O, not someone else's work. */
static bool kernel_thread_comm(const char *comm)
{
    static const char *const prefix[] = {"kworker", "ksoftirqd", "irq/", "rcu", "migration", "cpuhp", "kthreadd",
                                         "jbd2", "kswapd", "kcompactd", "khugepaged", "kdamond", "watchdog",
                                         "idle_inject", "pool_workqueue", "kblockd", "writeback", "oom_reaper",
                                         "kauditd", "khungtaskd", "ksmd", "kthrotld", "scsi_", "loop"};
    for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++)
        if (!strncmp(comm, prefix[i], strlen(prefix[i])))
            return true;
    return false;
}

/*
 * Other processes' CPU over the run (cpu_snap.py's "others": pid -> [comm,
 * utime + stime ticks]): processes alive at both snapshots under the same
 * name, in cores; the busiest named in foreign_top.  Processes started and
 * ended within the run are not seen, so this is a lower bound.
 */
static void foreign_between(struct validate_capture *cap, const cJSON *a, const cJSON *b)
{
    const cJSON *oa = cJSON_GetObjectItemCaseSensitive(a, "others");
    const cJSON *ob = cJSON_GetObjectItemCaseSensitive(b, "others");
    double tck = json_num(a, "clk_tck"), dt = json_num(b, "time") - json_num(a, "time");
    if (!cJSON_IsObject(oa) || !cJSON_IsObject(ob) || !(tck > 0) || !(dt > 0))
        return;
    double total = 0, top = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, ob) {
        const cJSON *p0 = cJSON_GetObjectItemCaseSensitive(oa, p->string);
        const cJSON *comm = cJSON_GetArrayItem(p, 0), *comm0 = cJSON_GetArrayItem(p0, 0);
        const cJSON *t = cJSON_GetArrayItem(p, 1), *t0 = cJSON_GetArrayItem(p0, 1);
        if (!cJSON_IsString(comm) || !cJSON_IsString(comm0) || strcmp(comm->valuestring, comm0->valuestring) ||
            !cJSON_IsNumber(t) || !cJSON_IsNumber(t0) || t->valuedouble < t0->valuedouble ||
            kernel_thread_comm(comm->valuestring))
            continue;
        double cores = (t->valuedouble - t0->valuedouble) / tck / dt;
        total += cores;
        if (cores > top && cores >= 0.01) { /* named only if it did run */
            top = cores;
            snprintf(cap->foreign_top, sizeof cap->foreign_top, "%s", comm->valuestring);
        }
    }
    cap->foreign_cores = total;
    /* /proc/stat's busy time less the daemons': what ran beside Ceph's own */
    static const char *const idle_keys[] = {"idle", "iowait", "steal", "guest", "guest_nice"};
    const cJSON *sa = cJSON_GetObjectItemCaseSensitive(a, "proc_stat_cpu");
    const cJSON *sb = cJSON_GetObjectItemCaseSensitive(b, "proc_stat_cpu");
    const cJSON *da = cJSON_GetObjectItemCaseSensitive(a, "daemons");
    const cJSON *db = cJSON_GetObjectItemCaseSensitive(b, "daemons");
    /* no daemon of the cluster on this machine (capture.sh EXTERNAL=1 on a client
       host): its busy time is fio's and the machine's own, not beside Ceph's */
    if (!cJSON_IsObject(sa) || !cJSON_IsObject(sb) || !cJSON_IsObject(da) || !cJSON_IsObject(db) ||
        cJSON_GetArraySize(db) == 0)
        return;
    double busy = 0, daemons = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, sb) {
        bool idle = false;
        for (size_t k = 0; k < sizeof idle_keys / sizeof idle_keys[0]; k++)
            idle |= !strcmp(f->string, idle_keys[k]);
        const cJSON *f0 = cJSON_GetObjectItemCaseSensitive(sa, f->string);
        if (!idle && cJSON_IsNumber(f) && cJSON_IsNumber(f0))
            busy += f->valuedouble - f0->valuedouble;
    }
    cJSON_ArrayForEach(f, db) {
        const cJSON *f0 = cJSON_GetObjectItemCaseSensitive(da, f->string);
        if (cJSON_IsNumber(f) && cJSON_IsNumber(f0))
            daemons += f->valuedouble - f0->valuedouble;
    }
    cap->outside_daemons_cores = (busy - daemons) / tck / dt;
    double ncpu = json_num(a, "ncpu");
    cap->machine_cpus = ncpu > 0 && ncpu < 1e6 ? (int)ncpu : 0;
}

bool validate_foreign_note(double foreign_cores, double outside_daemons_cores, int machine_cpus)
{
    return foreign_cores >= VALIDATE_FOREIGN_NOTE ||
           (machine_cpus > 0 && outside_daemons_cores >= VALIDATE_OUTSIDE_NOTE * machine_cpus);
}

void validate_print_foreign_note(FILE *f, const char *lead, double foreign_cores, const char *foreign_top,
                                 double outside_daemons_cores, int machine_cpus)
{
    fprintf(f, "%s%.2f of the machine's %d cores ran outside Ceph's daemons (fio, the kernel, other processes: "
               "%.2f cores in processes that lasted the run%s%s; cpu_before/after.json): the model has the cores "
               "to itself (tests/data/lab10)\n",
            lead, outside_daemons_cores, machine_cpus, foreign_cores, foreign_top[0] ? ", busiest " : "",
            foreign_top);
}

/*
 * The OSDs' CPU and wake-ups per fio I/O, in total and per thread kind: from
 * the lab kit's cpu_before/after.json, else from a cephsim run's sim.json
 * summary (osd_cpu_us_per_op, osd_threads_per_op).  NAN where neither says.
 */
static int load_osd_cpu(struct validate_capture *cap, struct sim_err *err)
{
    cap->osd_cpu_us_per_io = cap->osd_wakeups_per_io = NAN;
    cap->foreign_cores = cap->outside_daemons_cores = NAN;
    cap->machine_cpus = 0;
    cap->n_threads = 0;
    char pa[1100], pb[1100];
    snprintf(pa, sizeof pa, "%s/cpu_before.json", cap->dir);
    snprintf(pb, sizeof pb, "%s/cpu_after.json", cap->dir);
    struct stat st;
    if (stat(pa, &st) == 0 && stat(pb, &st) == 0) {
        cJSON *a = jsonu_load_file(pa, err);
        if (!a)
            return err ? err->code : -EINVAL;
        cJSON *b = jsonu_load_file(pb, err);
        if (!b) {
            cJSON_Delete(a);
            return err ? err->code : -EINVAL;
        }
        double cpu_ns, sleeps;
        foreign_between(cap, a, b);
        int rc = osd_cpu_between(cap, pa, a, pb, b, &cpu_ns, &sleeps, err);
        cJSON_Delete(a);
        cJSON_Delete(b);
        if (rc < 0)
            return rc;
        double ios = (double)cap->all_ios;
        if (ios > 0 && cpu_ns >= 0) {
            cap->osd_cpu_us_per_io = cpu_ns / 1e3 / ios;
            if (sleeps >= 0)
                cap->osd_wakeups_per_io = sleeps / ios;
        }
        for (int k = 0; k < cap->n_threads; k++) {
            cap->threads[k].cpu_us = ios > 0 ? cap->threads[k].cpu_us / ios : NAN;
            cap->threads[k].wakeups = ios > 0 ? cap->threads[k].wakeups / ios : NAN;
        }
        return 0;
    }
    snprintf(pa, sizeof pa, "%s/sim.json", cap->dir);
    if (stat(pa, &st) != 0)
        return 0;
    cJSON *j = jsonu_load_file(pa, err);
    if (!j)
        return err ? err->code : -EINVAL;
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(j, "summary");
    double cpu = json_num(sum, "osd_cpu_us_per_op");
    const cJSON *threads = cJSON_GetObjectItemCaseSensitive(sum, "osd_threads_per_op");
    if (isfinite(cpu) && cpu >= 0)
        cap->osd_cpu_us_per_io = cpu;
    if (cJSON_IsArray(threads) && cJSON_GetArraySize(threads) > 0) {
        double w = 0;
        const cJSON *t;
        cJSON_ArrayForEach(t, threads) {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(t, "name");
            double tc = json_num(t, "cpu_us"), tw = json_num(t, "wakeups");
            w += tw;
            struct validate_thread_kind *k = cJSON_IsString(name) ? thread_kind(cap, name->valuestring) : NULL;
            if (k) {
                k->cpu_us += tc;
                k->wakeups += tw;
            }
        }
        if (isfinite(w) && w >= 0)
            cap->osd_wakeups_per_io = w;
    }
    cJSON_Delete(j);
    return 0;
}

int validate_capture_load(const char *dir, struct validate_capture *cap, struct sim_err *err)
{
    memset(cap, 0, sizeof *cap);
    snprintf(cap->dir, sizeof cap->dir, "%s", dir);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return sim_errf(err, -ENOENT, "%s: not a directory", dir);
    int rc = load_fio(cap, err);
    if (rc < 0)
        return rc;
    if ((rc = load_perf(cap, err)) < 0)
        return rc;
    if ((rc = load_osd_cpu(cap, err)) < 0)
        return rc;
    struct dist_acc acc = {0};
    static const char *const kinds[] = {"historic_window", "historic_ops", "historic"};
    for (int k = 0; k < 3; k++) {
        rc = load_dumps(cap, &acc, kinds[k], err);
        if (rc < 0) {
            acc_finish(cap, &acc);
            validate_capture_free(cap);
            return rc;
        }
        if (rc > 0) {
            snprintf(cap->ops_source, sizeof cap->ops_source, "%s%s", kinds[k],
                     k == 2 ? " (slowest ops)" : "");
            cap->ops_biased = k == 2;
            break;
        }
    }
    acc_finish(cap, &acc);
    return 0;
}

int validate_capture_from_cluster(struct cluster *c, struct validate_capture *cap, struct sim_err *err)
{
    memset(cap, 0, sizeof *cap);
    snprintf(cap->dir, sizeof cap->dir, "(simulation)");
    const struct job_result *jr = cluster_job_results(c);
    uint32_t nj = cluster_n_jobs(c);
    uint64_t tot[2] = {0, 0};
    for (uint32_t i = 0; i < nj; i++)
        for (int d = 0; d < 2; d++)
            tot[d] += jr[i].dir[d].total_ios;
    cap->ddir = tot[1] > 0 ? 1 : 0;
    struct hist *h = sim_xcalloc(1, sizeof *h);
    hist_reset(h);
    double runtime = 0;
    for (uint32_t i = 0; i < nj; i++) {
        hist_merge(h, &jr[i].dir[cap->ddir].clat);
        if ((double)jr[i].runtime_ns / 1e9 > runtime)
            runtime = (double)jr[i].runtime_ns / 1e9;
    }
    cap->total_ios = tot[cap->ddir];
    cap->all_ios = tot[0] + tot[1];
    cap->runtime_s = runtime;
    cap->iops = runtime > 0 ? (double)cap->total_ios / runtime : 0;
    cap->lat_mean_us = h->n ? hist_mean(h) / 1e3 : NAN;
    uint64_t pv[HIST_FIO_NPCT];
    if (h->n) {
        hist_percentiles(h, hist_fio_percentiles, HIST_FIO_NPCT, pv);
        _Static_assert(HIST_FIO_NPCT <= VALIDATE_MAX_PCT, "fio's percentile list fits the table");
        for (int i = 0; i < HIST_FIO_NPCT; i++) {
            cap->pct[i] = hist_fio_percentiles[i];
            cap->pct_us[i] = (double)pv[i] / 1e3;
        }
        cap->n_pct = HIST_FIO_NPCT;
    }
    free(h);
    cap->lat_p50_us = pct_lookup(cap, 50);
    cap->lat_p99_us = pct_lookup(cap, 99);
    cap->has_fio = true;
    struct dist_acc acc = {0};
    int rc = 0;
    sim_time_t now = sim_now(cluster_sim(c));
    for (uint32_t i = 0; i < cluster_n_osds(c) && rc == 0; i++) {
        const struct osd_perf *p = cluster_osd_perf(c, i);
        cap->op_w += (double)p->op_w.count;
        cap->op_rw += (double)p->op_rw.count;
        cap->n_perf++;
        const struct bluestore_perf *bp = cluster_bluestore_perf(c, i);
        if (bp) {
            cap->cache_hit_bytes += (double)bp->bluestore_buffer_hit_bytes;
            cap->cache_miss_bytes += (double)bp->bluestore_buffer_miss_bytes;
        }
        cJSON *dump = historicops_dump(cluster_optracker(c, i), now, cluster_wall_epoch_ns(c), 0);
        char *text = cJSON_PrintUnformatted(dump);
        cJSON_Delete(dump);
        struct trace_ops t;
        char name[64];
        snprintf(name, sizeof name, "(simulated osd.%u dump_historic_ops)", i);
        rc = trace_ops_parse(name, text, strlen(text), 0, &t, err);
        free(text);
        if (rc == 0) {
            add_ops(cap, &acc, &t);
            trace_ops_free(&t);
        }
    }
    snprintf(cap->ops_source, sizeof cap->ops_source, "historic_ops");
    acc_finish(cap, &acc);
    if (rc < 0) {
        validate_capture_free(cap);
        return rc;
    }
    /* the ceph-osd threads' CPU and wake-ups over the measured period */
    struct cluster_thread_stats ts[CLUSTER_THREAD_KINDS_MAX];
    uint32_t nk = cluster_process_thread_stats(c, "ceph-osd", ts, CLUSTER_THREAD_KINDS_MAX);
    double cpu_ns = 0, wakes = 0, ios = (double)cap->all_ios;
    for (uint32_t k = 0; k < nk; k++) {
        cpu_ns += ts[k].cpu_ns;
        wakes += (double)ts[k].wakeups;
        struct validate_thread_kind *t = thread_kind(cap, ts[k].name);
        if (t && ios > 0) {
            t->cpu_us += ts[k].cpu_ns / 1e3 / ios;
            t->wakeups += (double)ts[k].wakeups / ios;
        }
    }
    cap->osd_cpu_us_per_io = ios > 0 ? cpu_ns / 1e3 / ios : NAN;
    cap->osd_wakeups_per_io = ios > 0 ? wakes / ios : NAN;
    return 0;
}

void validate_capture_free(struct validate_capture *cap)
{
    for (int d = 0; d < VALIDATE_N_DISTS; d++)
        free(cap->dist_us[d]);
    memset(cap, 0, sizeof *cap);
}

/* ------------------------------------------------------------------ workload of a capture */

static const char *json_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* dir/name parsed, NULL and *rc 0 when the capture has no such file; a file
   that is there but not JSON is an error (*rc < 0, err names it): read as
   absent, a broken meta.json would have run a clone's capture as a plain image. */
static cJSON *load_optional(const char *dir, const char *name, int *rc, struct sim_err *err)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    *rc = 0;
    if (access(path, F_OK) != 0)
        return NULL;
    cJSON *j = jsonu_load_file(path, err);
    if (!j)
        *rc = err && err->code ? err->code : -EINVAL;
    return j;
}

/*
 * Did RocksDB flush a memtable during the capture?  BlueFS counts the bytes it
 * writes to SST files (`bluefs.bytes_written_sst`, BlueFS::_flush_range on a
 * non-WAL file): a memtable flush (FlushJob) or a compaction writes them, and
 * nothing else does.  The lab kit resets the counters before each run (`perf
 * reset all`), so 0 on every OSD means none ran: the run was shorter than a
 * memtable's fill (Pacific's 256 MiB at a lab's 1 k writes/s take minutes),
 * and the model's steady-state charge (cost.rocksdb_background_us_per_txc on
 * every txc) would spend CPU the real OSDs did not.  Returns 1 when every
 * OSD's dump says 0, 0 when one says more or a dump lacks the counter (no
 * BlueFS, a release without it), < 0 on a file that is no JSON.
 */
static int sst_written(const char *path, const cJSON *root, void *ctx, struct sim_err *err)
{
    ++*(int *)ctx;
    const cJSON *sst = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "bluefs"),
                                                        "bytes_written_sst");
    return !cJSON_IsNumber(sst) || sst->valuedouble != 0;
}

static int capture_without_flushes(const char *dir, struct sim_err *err)
{
    int dumps = 0, rc = each_perf_dump(dir, sst_written, &dumps, err);
    return rc < 0 ? rc : rc == 0 && dumps > 0;
}

/* Does the scenario file at path give section.key itself?  (An unreadable file
   says no: scenario_load reports it.) */
static bool scenario_file_gives(const char *path, const char *section, const char *key)
{
    if (!path)
        return false;
    cJSON *j = jsonu_load_file(path, NULL);
    bool given = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, section), key) != NULL;
    cJSON_Delete(j);
    return given;
}

int validate_capture_sets(const char *dir, const char *scenario, char sets[][VALIDATE_SET_LEN], int max,
                          struct sim_err *err)
{
    int n = 0;
    char path[1100];
    snprintf(path, sizeof path, "%s/fio.json", dir);
    cJSON *fio = jsonu_load_file(path, err);
    if (!fio)
        return err ? err->code : -EINVAL;
    const cJSON *job0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(fio, "jobs"), 0);
    const cJSON *jo = cJSON_GetObjectItemCaseSensitive(job0, "job options");
    const cJSON *go = cJSON_GetObjectItemCaseSensitive(fio, "global options");
    static const char *const fio_keys[][2] = {
        {"rw", "readwrite"}, {"bs", "blocksize"}, {"iodepth", NULL}, {"numjobs", NULL}, {"rwmixread", NULL}};
    for (size_t k = 0; k < sizeof fio_keys / sizeof fio_keys[0]; k++) {
        const char *v = NULL;
        for (int alias = 0; alias < 2 && !v; alias++) {
            const char *key = fio_keys[k][alias];
            if (!key)
                continue;
            v = json_str(jo, key);
            if (!v)
                v = json_str(go, key);
        }
        if (v && n < max)
            snprintf(sets[n++], VALIDATE_SET_LEN, "fio.%s=%s", fio_keys[k][0], v);
    }
    cJSON_Delete(fio);
    /* a scenario that says how its RocksDB flushes keeps its word (the lab profiles:
       docs/fidelity.md); else the capture's perf dumps say */
    int rc = scenario_file_gives(scenario, "cluster", "rocksdb_flushes") ? 0 : capture_without_flushes(dir, err);
    if (rc < 0)
        return rc;
    if (rc == 1 && n < max)
        snprintf(sets[n++], VALIDATE_SET_LEN, "cluster.rocksdb_flushes=on_fill");
    cJSON *meta = load_optional(dir, "meta.json", &rc, err);
    if (rc < 0)
        return rc;
    if (meta) {
        const char *kind = json_str(meta, "image_kind");
        const char *sched = json_str(meta, "rbd_io_scheduler");
        /* capture.sh's image kinds (setup_images.sh) */
        static const char *const kinds[][3] = {
            {"noparent", "plain", NULL}, {"clone-flat", "flattened", NULL},
            {"clone-written", "clone", "1"}, {"clone-fresh", "clone", "0"}};
        bool known = !kind;
        for (size_t k = 0; kind && k < 4; k++)
            known = known || !strcmp(kind, kinds[k][0]);
        if (!known) {
            sim_errf(err, -EINVAL, "%s/meta.json: image_kind: '%s' is not one of the lab kit's (noparent, "
                     "clone-flat, clone-written, clone-fresh)", dir, kind);
            cJSON_Delete(meta);
            return -EINVAL;
        }
        for (size_t k = 0; kind && k < 4; k++)
            if (!strcmp(kind, kinds[k][0])) {
                if (n < max)
                    snprintf(sets[n++], VALIDATE_SET_LEN, "image.kind=%s", kinds[k][1]);
                if (kinds[k][2] && n < max)
                    snprintf(sets[n++], VALIDATE_SET_LEN, "image.copied_up=%s", kinds[k][2]);
            }
        if (sched && n < max)
            snprintf(sets[n++], VALIDATE_SET_LEN, "ceph.rbd_io_scheduler=%s", sched);
        /* several images (the kit's "label=kind@img1,img2"): one fio job per image */
        const cJSON *images = cJSON_GetObjectItemCaseSensitive(meta, "images");
        int n_images = cJSON_IsArray(images) ? cJSON_GetArraySize(images) : 0;
        if (n_images > 1 && n + 1 < max) {
            snprintf(sets[n++], VALIDATE_SET_LEN, "clients.volumes_per_client=%d", n_images);
            snprintf(sets[n++], VALIDATE_SET_LEN, "fio.numjobs=%d", n_images);
        }
        cJSON_Delete(meta);
        /* the image's features (`rbd info --format json`): exclusive-lock and object-map off
           when the capture's image had them disabled */
        cJSON *info = load_optional(dir, "rbd_info.json", &rc, err);
        if (rc < 0)
            return rc;
        const cJSON *feat = cJSON_GetObjectItemCaseSensitive(info, "features");
        if (cJSON_IsArray(feat)) {
            bool lock = false, map = false;
            const cJSON *f;
            cJSON_ArrayForEach(f, feat) {
                if (cJSON_IsString(f)) {
                    lock |= !strcmp(f->valuestring, "exclusive-lock");
                    map |= !strcmp(f->valuestring, "object-map");
                }
            }
            if (!lock && n < max)
                snprintf(sets[n++], VALIDATE_SET_LEN, "image.exclusive_lock=false");
            if (!map && n < max)
                snprintf(sets[n++], VALIDATE_SET_LEN, "image.object_map=false");
        }
        cJSON_Delete(info);
        return n;
    }
    cJSON *simj = load_optional(dir, "sim.json", &rc, err);
    if (rc < 0)
        return rc;
    if (simj) {
        const cJSON *par = cJSON_GetObjectItemCaseSensitive(simj, "parameters");
        const cJSON *img = cJSON_GetObjectItemCaseSensitive(par, "image");
        const char *kind = json_str(img, "kind");
        double cu = json_num(img, "copied_up");
        const char *sched = json_str(cJSON_GetObjectItemCaseSensitive(par, "ceph"), "rbd_io_scheduler");
        if (kind && n < max)
            snprintf(sets[n++], VALIDATE_SET_LEN, "image.kind=%s", kind);
        if (kind && !strcmp(kind, "clone") && !isnan(cu) && n < max)
            snprintf(sets[n++], VALIDATE_SET_LEN, "image.copied_up=%.17g", cu);
        if (sched && n < max)
            snprintf(sets[n++], VALIDATE_SET_LEN, "ceph.rbd_io_scheduler=%s", sched);
        cJSON_Delete(simj);
    }
    return n;
}

/* ------------------------------------------------------------------ comparison */

/* fio's size text ("4k", "4096", "1M": fio's kb_base 1024) in bytes; -1 if not a size. */
static double fio_size_bytes(const char *v)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v)
        return -1;
    static const char units[] = "kmgt";
    const char *u = strchr(units, *end | 0x20);
    if (*end && u) {
        x *= pow(1024, (double)(u - units + 1));
        end++;
        if ((*end | 0x20) == 'i')
            end++;
        if ((*end | 0x20) == 'b')
            end++;
    } else if ((*end | 0x20) == 'b') {
        end++;
    }
    return *end ? -1 : x;
}

/* fio's defaults for what a capture may leave out (options.c), and the scenario's. */
static const char *workload_default(const char *path)
{
    static const char *const d[][2] = {{"fio.rw", "read"},     {"fio.bs", "4096"},        {"fio.iodepth", "1"},
                                       {"fio.numjobs", "1"},   {"fio.rwmixread", "50"},   {"image.kind", "plain"}};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (!strcmp(d[i][0], path))
            return d[i][1];
    return NULL;
}

static const char *set_value(char sets[][VALIDATE_SET_LEN], int n, const char *path)
{
    size_t pl = strlen(path);
    for (int i = 0; i < n; i++)
        if (!strncmp(sets[i], path, pl) && sets[i][pl] == '=')
            return sets[i] + pl + 1;
    return NULL;
}

static bool same_value(const char *path, const char *a, const char *b)
{
    if (!strcmp(a, b))
        return true;
    if (!strcmp(path, "fio.rw")) { /* fio's aliases of rw */
        bool ra = !strcmp(a, "rw") || !strcmp(a, "readwrite"), rb = !strcmp(b, "rw") || !strcmp(b, "readwrite");
        return ra && rb;
    }
    double x = fio_size_bytes(a), y = fio_size_bytes(b);
    return x >= 0 && x == y;
}

void validate_workload_mismatch(const char *real_dir, const char *sim_dir, struct validate_report *rep)
{
    char (*rs)[VALIDATE_SET_LEN] = sim_xcalloc(VALIDATE_MAX_SETS, sizeof *rs);
    char (*ss)[VALIDATE_SET_LEN] = sim_xcalloc(VALIDATE_MAX_SETS, sizeof *ss);
    struct sim_err e2 = {0};
    rep->n_mismatch = 0;
    int nr = validate_capture_sets(real_dir, NULL, rs, VALIDATE_MAX_SETS, &e2);
    int ns = nr < 0 ? -1 : validate_capture_sets(sim_dir, NULL, ss, VALIDATE_MAX_SETS, &e2);
    static const char *const paths[] = {"fio.rw", "fio.bs", "fio.iodepth", "fio.numjobs", "fio.rwmixread",
                                        "image.kind", "image.copied_up", "ceph.rbd_io_scheduler"};
    for (size_t i = 0; nr >= 0 && ns >= 0 && i < sizeof paths / sizeof paths[0]; i++) {
        const char *a = set_value(rs, nr, paths[i]), *b = set_value(ss, ns, paths[i]);
        if (!a && !b)
            continue;
        if (!a || !b) {
            /* a side that does not say: fio's default if there is one, else not comparable */
            const char *d = workload_default(paths[i]);
            if (!d)
                continue;
            a = a ? a : d;
            b = b ? b : d;
        }
        if (!strcmp(paths[i], "fio.rwmixread")) {
            const char *rw = set_value(rs, nr, "fio.rw");
            if (!rw || (strcmp(rw, "randrw") && strcmp(rw, "rw") && strcmp(rw, "readwrite")))
                continue; /* meaningless for a pure read or write job */
        }
        if (!same_value(paths[i], a, b) && rep->n_mismatch < VALIDATE_MAX_SETS)
            snprintf(rep->mismatch[rep->n_mismatch++], sizeof rep->mismatch[0], "%s: real %.100s, sim %.100s",
                     paths[i], a, b);
    }
    free(rs);
    free(ss);
}

/* A row with a tolerance on its value or its KS distance. */
static bool row_checked(const struct validate_row *r)
{
    return !isnan(r->tol) || !isnan(r->ks_tol);
}

void validate_compare(const struct validate_capture *real, const struct validate_capture *sim,
                      const struct validate_tolerance *tol, struct validate_report *rep)
{
    memset(rep, 0, sizeof *rep);
    for (int m = 0; m < VALIDATE_N_METRICS; m++) {
        struct validate_row *r = &rep->rows[rep->n++];
        snprintf(r->name, sizeof r->name, "%s", metric_names[m]);
        snprintf(r->unit, sizeof r->unit, "%s", metric_units[m]);
        r->ks = r->ks_p = r->ks_tol = NAN;
        r->tol = tol->metric[m];
        r->real = validate_metric_value(real, m);
        r->sim = validate_metric_value(sim, m);
        if (m == VALIDATE_LOCK_WAITS) {
            r->abs_err = true;
            r->n_real = real->n_writes;
            r->n_sim = sim->n_writes;
        } else if (m == VALIDATE_OP_W || m == VALIDATE_OP_RW) {
            if (isnan(r->real) || isnan(r->sim)) /* perf dumps on one side only: show neither */
                r->real = r->sim = NAN;
            /* rare op kinds (under 1 per 100 fio I/Os) are compared in absolute terms */
            else if (fabs(r->real) < 0.01)
                r->abs_err = true;
        }
        r->available = real->has_fio && sim->has_fio && !isnan(r->real) && !isnan(r->sim);
        r->err = !r->available ? NAN : r->abs_err ? r->sim - r->real : validate_rel_error(r->sim, r->real);
    }
    for (int d = 0; d < VALIDATE_N_DISTS; d++) {
        struct validate_row *r = &rep->rows[rep->n++];
        snprintf(r->name, sizeof r->name, "%s", dist_names[d]);
        snprintf(r->unit, sizeof r->unit, "us");
        r->n_real = real->n_dist[d];
        r->n_sim = sim->n_dist[d];
        r->real = validate_median(real->dist_us[d], r->n_real);
        r->sim = validate_median(sim->dist_us[d], r->n_sim);
        r->available = r->n_real > 0 && r->n_sim > 0;
        r->err = r->available ? validate_rel_error(r->sim, r->real) : NAN;
        r->ks = validate_ks_distance(real->dist_us[d], r->n_real, sim->dist_us[d], r->n_sim);
        r->ks_p = validate_ks_pvalue(r->ks, r->n_real, r->n_sim);
        r->tol = tol->dist_median[d];
        r->ks_tol = tol->dist_ks[d];
    }
    if (real->dir[0] && sim->dir[0])
        validate_workload_mismatch(real->dir, sim->dir, rep);
    rep->pass = true;
    for (int i = 0; i < rep->n; i++) {
        struct validate_row *r = &rep->rows[i];
        r->pass = true;
        if (!row_checked(r) || !r->available)
            continue;
        rep->n_checked++;
        if (!isnan(r->tol) && !(fabs(r->err) <= r->tol))
            r->pass = false;
        if (!isnan(r->ks_tol) && !(r->ks <= r->ks_tol))
            r->pass = false;
        if (!r->pass) {
            rep->n_failed++;
            rep->pass = false;
        }
    }
}

/* ------------------------------------------------------------------ output */

static void fmt_val(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (fabs(v) >= 100 || v == 0)
        snprintf(buf, n, "%.0f", v);
    else if (fabs(v) >= 1)
        snprintf(buf, n, "%.1f", v);
    else
        snprintf(buf, n, "%.4f", v);
}

static void fmt_err(char *buf, size_t n, const struct validate_row *r)
{
    if (isnan(r->err))
        snprintf(buf, n, "-");
    else if (isinf(r->err))
        snprintf(buf, n, "%cinf", r->err > 0 ? '+' : '-');
    else if (r->abs_err)
        snprintf(buf, n, "%+.3f", r->err);
    else
        snprintf(buf, n, "%+.1f%%", 100 * r->err);
}

static void fmt_tol(char *buf, size_t n, const struct validate_row *r)
{
    char a[16] = "", b[16] = "";
    if (!isnan(r->tol))
        snprintf(a, sizeof a, r->abs_err ? "%.3g" : "%.0f%%", r->abs_err ? r->tol : 100 * r->tol);
    if (!isnan(r->ks_tol))
        snprintf(b, sizeof b, "D<=%.2g", r->ks_tol);
    if (!a[0] && !b[0])
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%s%s%s", a, a[0] && b[0] ? " " : "", b);
}

static void describe(FILE *f, const char *what, const struct validate_capture *c)
{
    fprintf(f, "  %s %s: %s %.0f IOPS, %" PRIu64 " ios over %.1f s; %d perf dump%s; ", what, c->dir,
            c->ddir ? "write" : "read", c->iops, c->total_ios, c->runtime_s, c->n_perf,
            c->n_perf == 1 ? "" : "s");
    if (c->n_dumps)
        fprintf(f, "%d op dump%s (%s), %zu primary writes\n", c->n_dumps, c->n_dumps == 1 ? "" : "s",
                c->ops_source, c->n_writes);
    else
        fprintf(f, "no op-tracker dumps\n");
}

/* The thread kinds of either side, real's first, then sim's others. */
static int thread_kinds_union(const struct validate_capture *real, const struct validate_capture *sim,
                              const char *names[2 * VALIDATE_MAX_THREAD_KINDS])
{
    int n = 0;
    for (int side = 0; side < 2; side++) {
        const struct validate_capture *c = side ? sim : real;
        for (int k = 0; k < c->n_threads; k++) {
            int i = 0;
            while (i < n && strcmp(names[i], c->threads[k].name))
                i++;
            if (i == n)
                names[n++] = c->threads[k].name;
        }
    }
    return n;
}

static const struct validate_thread_kind *find_kind(const struct validate_capture *c, const char *name)
{
    for (int k = 0; k < c->n_threads; k++)
        if (!strcmp(c->threads[k].name, name))
            return &c->threads[k];
    return NULL;
}

static double kind_cpu_max(const struct validate_capture *real, const struct validate_capture *sim,
                           const char *name)
{
    const struct validate_thread_kind *r = find_kind(real, name), *s = find_kind(sim, name);
    double a = r ? r->cpu_us : 0, b = s ? s->cpu_us : 0;
    return a > b ? a : b;
}

/* Per OSD thread kind, when both sides have the figures: CPU and wake-ups per fio I/O. */
static void print_threads(FILE *f, const struct validate_capture *real, const struct validate_capture *sim)
{
    if (!real->n_threads || !sim->n_threads)
        return;
    const char *names[2 * VALIDATE_MAX_THREAD_KINDS];
    int n = thread_kinds_union(real, sim, names);
    /* the busiest first (either side's CPU), insertion sort: a few dozen kinds */
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && kind_cpu_max(real, sim, names[k]) > kind_cpu_max(real, sim, names[k - 1]); k--) {
            const char *t = names[k];
            names[k] = names[k - 1];
            names[k - 1] = t;
        }
    fprintf(f, "OSD threads per fio I/O:                CPU us real        sim    wake-ups real        sim\n");
    for (int i = 0; i < n; i++) {
        const struct validate_thread_kind *r = find_kind(real, names[i]), *s = find_kind(sim, names[i]);
        double rc = r ? r->cpu_us : 0, sc = s ? s->cpu_us : 0, rw = r ? r->wakeups : 0, sw = s ? s->wakeups : 0;
        if (rc < 0.5 && sc < 0.5 && rw < 0.01 && sw < 0.01)
            continue; /* idle on both sides (admin socket, timers...) */
        fprintf(f, "  %-34s %14.1f %10.1f %15.2f %10.2f%s\n", names[i], rc, sc, rw, sw,
                !s ? "  (not modelled)" : !r ? "  (not in the capture)" : "");
    }
}

void validate_print(FILE *f, const struct validate_capture *real, const struct validate_capture *sim,
                    const struct validate_report *rep)
{
    fprintf(f, "cephsim validate\n");
    describe(f, "real", real);
    describe(f, "sim ", sim);
    if (real->ops_biased || sim->ops_biased)
        fprintf(f, "  note: a tail dump holds only the slowest ops: its stage distributions are biased\n");
    if (validate_foreign_note(real->foreign_cores, real->outside_daemons_cores, real->machine_cpus))
        validate_print_foreign_note(f, "  note: during the real run ", real->foreign_cores, real->foreign_top,
                                    real->outside_daemons_cores, real->machine_cpus);
    for (int i = 0; i < rep->n_mismatch; i++)
        fprintf(f, "  WARNING: the two sides ran different workloads: %s\n", rep->mismatch[i]);
    fprintf(f, "\n%-38s %10s %10s %9s %17s %10s  %s\n", "metric (stages: median us)", "real", "sim",
            "error", "KS D (p)", "tolerance", "result");
    for (int i = 0; i < rep->n; i++) {
        const struct validate_row *r = &rep->rows[i];
        char name[80], rv[24], sv[24], ev[24], ks[32], tv[48];
        if (i == VALIDATE_N_METRICS)
            fprintf(f, "primary osd_op writes, per-stage intervals (n real/sim):\n");
        if (i >= VALIDATE_N_METRICS)
            snprintf(name, sizeof name, "  %s (%zu/%zu)", r->name, r->n_real, r->n_sim);
        else if (r->unit[0])
            snprintf(name, sizeof name, "%s (%s)", r->name, r->unit);
        else
            snprintf(name, sizeof name, "%s", r->name);
        fmt_val(rv, sizeof rv, r->real);
        fmt_val(sv, sizeof sv, r->sim);
        fmt_err(ev, sizeof ev, r);
        if (isnan(r->ks))
            snprintf(ks, sizeof ks, "-");
        else
            snprintf(ks, sizeof ks, "%.3f (%.2g)", r->ks, r->ks_p);
        fmt_tol(tv, sizeof tv, r);
        const char *res = !r->available ? "n/a" : !row_checked(r) ? "" : r->pass ? "ok" : "FAIL";
        fprintf(f, "%-38s %10s %10s %9s %17s %10s  %s\n", name, rv, sv, ev, ks, tv, res);
    }
    print_threads(f, real, sim);
    fprintf(f, "\n%s: %d of %d checked metrics outside tolerance%s\n", rep->pass ? "PASS" : "FAIL",
            rep->n_failed, rep->n_checked,
            rep->n_mismatch ? " -- but the workloads differ (WARNING above): the comparison is not like for like" : "");
}

static void add_num(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else if (isinf(v))
        cJSON_AddStringToObject(o, k, v > 0 ? "inf" : "-inf");
    else
        cJSON_AddNullToObject(o, k);
}

cJSON *validate_report_json(const struct validate_capture *real, const struct validate_capture *sim,
                            const struct validate_report *rep)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "real", real->dir);
    cJSON_AddStringToObject(j, "sim", sim->dir);
    cJSON_AddBoolToObject(j, "pass", rep->pass);
    add_num(j, "real_foreign_cores", real->foreign_cores);
    add_num(j, "real_outside_daemons_cores", real->outside_daemons_cores);
    cJSON_AddNumberToObject(j, "checked", rep->n_checked);
    cJSON_AddNumberToObject(j, "failed", rep->n_failed);
    cJSON *mm = cJSON_AddArrayToObject(j, "workload_mismatch");
    for (int i = 0; i < rep->n_mismatch; i++)
        cJSON_AddItemToArray(mm, cJSON_CreateString(rep->mismatch[i]));
    cJSON *rows = cJSON_AddArrayToObject(j, "rows");
    for (int i = 0; i < rep->n; i++) {
        const struct validate_row *r = &rep->rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", r->name);
        cJSON_AddStringToObject(o, "key", i < VALIDATE_N_METRICS ? metric_keys[i] : dist_keys[i - VALIDATE_N_METRICS]);
        cJSON_AddStringToObject(o, "kind", i < VALIDATE_N_METRICS ? "metric" : "stage_median_us");
        add_num(o, "real", r->real);
        add_num(o, "sim", r->sim);
        add_num(o, r->abs_err ? "abs_error" : "rel_error", r->err);
        if (i >= VALIDATE_N_METRICS) {
            add_num(o, "ks", r->ks);
            add_num(o, "ks_p", r->ks_p);
            cJSON_AddNumberToObject(o, "n_real", (double)r->n_real);
            cJSON_AddNumberToObject(o, "n_sim", (double)r->n_sim);
        }
        add_num(o, "tolerance", r->tol);
        add_num(o, "ks_tolerance", r->ks_tol);
        cJSON_AddBoolToObject(o, "available", r->available);
        cJSON_AddBoolToObject(o, "pass", r->pass);
        cJSON_AddItemToArray(rows, o);
    }
    const char *names[2 * VALIDATE_MAX_THREAD_KINDS];
    int n = thread_kinds_union(real, sim, names);
    cJSON *th = cJSON_AddArrayToObject(j, "osd_threads_per_io");
    for (int i = 0; i < n; i++) {
        const struct validate_thread_kind *r = find_kind(real, names[i]), *s = find_kind(sim, names[i]);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", names[i]);
        add_num(o, "real_cpu_us", r ? r->cpu_us : NAN);
        add_num(o, "sim_cpu_us", s ? s->cpu_us : NAN);
        add_num(o, "real_wakeups", r ? r->wakeups : NAN);
        add_num(o, "sim_wakeups", s ? s->wakeups : NAN);
        cJSON_AddItemToArray(th, o);
    }
    return j;
}

/* ------------------------------------------------------------------ plots */

static int write_cdf(const char *path, const double *v, size_t n, struct sim_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return sim_errf(err, -errno, "%s: cannot create: %s", path, strerror(errno));
    /* at most ~2000 points: every k-th sample plus the last */
    size_t step = n > 2000 ? n / 2000 : 1;
    for (size_t i = 0; i < n; i += step)
        fprintf(f, "%.3f %.6f\n", v[i], (double)(i + 1) / (double)n);
    if (n && (n - 1) % step)
        fprintf(f, "%.3f %.6f\n", v[n - 1], 1.0);
    if (fclose(f) != 0)
        return sim_errf(err, -EIO, "%s: write error", path);
    return 0;
}

static int write_pct(const char *path, const struct validate_capture *c, struct sim_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return sim_errf(err, -errno, "%s: cannot create: %s", path, strerror(errno));
    for (int i = 0; i < c->n_pct; i++)
        fprintf(f, "%.3f %.6f\n", c->pct_us[i], c->pct[i] / 100);
    fclose(f);
    return 0;
}

int validate_plot(const struct validate_capture *real, const struct validate_capture *sim,
                  const char *out_dir, struct sim_err *err)
{
    int rc;
    if ((rc = files_mkdir_p(out_dir)) < 0)
        return sim_errf(err, rc, "%s: cannot create: %s", out_dir, strerror(-rc));
    char script[1200], path[1200];
    snprintf(script, sizeof script, "%s/cdf.gp", out_dir);
    snprintf(path, sizeof path, "%s/cdf.png", out_dir);
    FILE *gp = fopen(script, "w");
    if (!gp)
        return sim_errf(err, -errno, "%s: cannot create: %s", script, strerror(errno));
    fprintf(gp, "# CDFs of real vs simulated per-stage intervals (cephsim validate)\n"
                "set terminal pngcairo size 1800,1100 font ',9'\n"
                "set output ");
    plot_gp_str(gp, '\'', path);
    char title[2 * sizeof real->dir + 16];
    snprintf(title, sizeof title, "real: %s   sim: %s", real->dir, sim->dir);
    fprintf(gp, "\nset multiplot layout 3,3 title ");
    plot_gp_str(gp, '\'', title);
    fprintf(gp, " noenhanced\n"
                "set key bottom right noenhanced\nset ylabel 'CDF'\nset xlabel 'us'\nset grid\n"
                "set yrange [0:1]\n");
    for (int d = 0; d < VALIDATE_N_DISTS; d++) {
        const struct validate_capture *side[2] = {real, sim};
        static const char *const tag[2] = {"real", "sim"};
        char files[2][1200];
        bool have[2], positive = true;
        for (int k = 0; k < 2; k++) {
            have[k] = side[k]->n_dist[d] > 0;
            if (!have[k])
                continue;
            positive &= side[k]->dist_us[d][0] > 0;
            snprintf(files[k], sizeof files[k], "%s/cdf_%s.%s.dat", out_dir, dist_keys[d], tag[k]);
            if ((rc = write_cdf(files[k], side[k]->dist_us[d], side[k]->n_dist[d], err)) < 0) {
                fclose(gp);
                return rc;
            }
        }
        fprintf(gp, "set title '%s' noenhanced\n%s\n", dist_names[d],
                positive && (have[0] || have[1]) ? "set logscale x" : "unset logscale x");
        if (!have[0] && !have[1]) {
            fprintf(gp, "set label 1 'no data' at graph 0.45,0.5\nplot [0:1] NaN notitle\nunset label 1\n");
            continue;
        }
        fprintf(gp, "plot ");
        for (int k = 0, first = 1; k < 2; k++)
            if (have[k]) {
                fputs(first ? "" : ", ", gp);
                plot_gp_str(gp, '\'', files[k]);
                fprintf(gp, " using 1:2 with lines lw 2 title '%s (n=%zu)'", tag[k], side[k]->n_dist[d]);
                first = 0;
            }
        fprintf(gp, "\n");
    }
    /* fio clat percentiles */
    fprintf(gp, "set title 'fio clat (percentiles)'\nset logscale x\n");
    const char *pf[2] = {"real", "sim"};
    const struct validate_capture *ps[2] = {real, sim};
    bool any = false;
    char pfiles[2][1200];
    for (int k = 0; k < 2; k++) {
        if (!ps[k]->n_pct)
            continue;
        snprintf(pfiles[k], sizeof pfiles[k], "%s/clat_pct.%s.dat", out_dir, pf[k]);
        if ((rc = write_pct(pfiles[k], ps[k], err)) < 0) {
            fclose(gp);
            return rc;
        }
        fputs(any ? ", " : "plot ", gp);
        plot_gp_str(gp, '\'', pfiles[k]);
        fprintf(gp, " using 1:2 with linespoints lw 2 title '%s'", pf[k]);
        any = true;
    }
    if (!any)
        fprintf(gp, "unset logscale x\nplot [0:1] NaN notitle\n");
    else
        fprintf(gp, "\n");
    fprintf(gp, "unset multiplot\n");
    if (fclose(gp) != 0)
        return sim_errf(err, -EIO, "%s: write error", script);
    rc = plot_gnuplot(NULL, NULL, script, path, err);
    return rc == -ENOENT ? 0 : rc < 0 ? rc : 1;
}

/* ------------------------------------------------------------------ command */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cephsim validate --real DIR (--sim DIR | --run SCENARIO [--set PATH=VALUE]...)\n"
            "                        [--tolerance KEY=VALUE,...] [-o DIR] [--no-plot] [--json] [-q]\n"
            "\n"
            "Compare a real capture (fio.json, osd.N.perf.json, op-tracker dumps) with a simulation of\n"
            "the same workload.  --run simulates SCENARIO first (into --sim DIR, default\n"
            "out/validate/<capture>), with the capture's workload (fio rw/bs/iodepth/numjobs, image kind,\n"
            "rbd_io_scheduler from fio.json and meta.json) and a large op history\n"
            "(ceph.osd_op_history_size=20000, ceph.osd_op_history_duration=1) set before your --set's.\n"
            "\n"
            "  -r, --real DIR         the real capture\n"
            "  -s, --sim DIR          the simulation output (cephsim run -o DIR)\n"
            "  -R, --run SCENARIO     simulate SCENARIO now\n"
            "  -S, --set PATH=VALUE   scenario override for --run (repeatable)\n"
            "      --no-infer         do not take the workload from the capture (--run)\n"
            "  -t, --tolerance LIST   e.g. iops=20%%,lat_mean=25%%,lat_p99=off,stage=50%%,ks=0.3\n"
            "                         keys: iops lat_mean lat_p50 lat_p99 op_w op_rw lock_waits\n"
            "                         stage ks stage.<s> ks.<s> (s: queued_for_pg reached_pg started\n"
            "                         subops op_commit sub_op_commit_rec commit_sent total)\n"
            "                         defaults: iops=20%%,lat_mean=25%%,lat_p50=25%%,lat_p99=50%%,\n"
            "                         op_w=20%%,op_rw=20%%,lock_waits=0.05 (absolute share), stage=40%%\n"
            "                         (each stage's median), ks off\n"
            "  -o, --output DIR       validate.json, CDF data and cdf.png (default SIMDIR/validate)\n"
            "      --no-plot          no gnuplot\n"
            "      --json             print the JSON report instead of the table\n"
            "  -q, --quiet            print nothing; the exit status tells\n"
            "exit status: 0 within tolerance, 1 outside, 2 trouble\n");
}

int cmd_validate(int argc, char **argv)
{
    enum { OPT_NO_PLOT = 256, OPT_JSON, OPT_NO_INFER };
    static const struct option opts[] = {
        {"real", required_argument, NULL, 'r'},      {"sim", required_argument, NULL, 's'},
        {"run", required_argument, NULL, 'R'},       {"set", required_argument, NULL, 'S'},
        {"tolerance", required_argument, NULL, 't'}, {"output", required_argument, NULL, 'o'},
        {"no-plot", no_argument, NULL, OPT_NO_PLOT}, {"json", no_argument, NULL, OPT_JSON},
        {"no-infer", no_argument, NULL, OPT_NO_INFER}, {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},            {0}};
    const char *real_dir = NULL, *sim_dir = NULL, *scen = NULL, *out = NULL;
    const char **user_sets = sim_xcalloc((size_t)argc + 1, sizeof *user_sets);
    int n_user = 0, c, rc = 2;
    bool plot = true, json = false, quiet = false, infer = true;
    struct validate_tolerance tol;
    struct sim_err err = {0};
    validate_tolerance_defaults(&tol);
    optind = 1;
    while ((c = getopt_long(argc, argv, "r:s:R:S:t:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'r': real_dir = optarg; break;
        case 's': sim_dir = optarg; break;
        case 'R': scen = optarg; break;
        case 'S': user_sets[n_user++] = optarg; break;
        case 't':
            if (validate_tolerance_parse(optarg, &tol, &err) < 0) {
                fprintf(stderr, "cephsim validate: %s\n", err.msg);
                free(user_sets);
                return 2;
            }
            break;
        case 'o': out = optarg; break;
        case OPT_NO_PLOT: plot = false; break;
        case OPT_JSON: json = true; break;
        case OPT_NO_INFER: infer = false; break;
        case 'q': quiet = true; break;
        case 'h': usage(stdout); free(user_sets); return 0;
        default: usage(stderr); free(user_sets); return 2;
        }
    }
    if (optind < argc || !real_dir || (!sim_dir && !scen) || (n_user && !scen)) {
        fprintf(stderr, "cephsim validate: %s\n",
                optind < argc ? "unexpected argument" : !real_dir ? "--real DIR is required"
                : n_user      ? "--set needs --run"
                              : "give --sim DIR or --run SCENARIO");
        usage(stderr);
        free(user_sets);
        return 2;
    }
    struct validate_capture real = {0}, sim = {0};
    char simbuf[1200], outbuf[1300];
    if (validate_capture_load(real_dir, &real, &err) < 0) {
        fprintf(stderr, "cephsim validate: %s\n", err.msg);
        goto done;
    }
    if (scen) {
        char (*inferred)[VALIDATE_SET_LEN] = sim_xcalloc(VALIDATE_MAX_SETS, sizeof *inferred);
        int n_inf = 0;
        if (infer && (n_inf = validate_capture_sets(real_dir, scen, inferred, VALIDATE_MAX_SETS, &err)) < 0) {
            fprintf(stderr, "cephsim validate: %s\n", err.msg);
            free(inferred);
            goto done;
        }
        const char **sets = sim_xcalloc((size_t)(VALIDATE_N_WINDOW_SETS + n_inf + n_user), sizeof *sets);
        int n = 0;
        for (int i = 0; i < VALIDATE_N_WINDOW_SETS; i++)
            sets[n++] = validate_window_sets[i];
        for (int i = 0; i < n_inf; i++)
            sets[n++] = inferred[i];
        for (int i = 0; i < n_user; i++)
            sets[n++] = user_sets[i];
        if (!sim_dir) {
            char tmp[1100];
            snprintf(tmp, sizeof tmp, "%s", real_dir);
            size_t l = strlen(tmp);
            while (l > 1 && tmp[l - 1] == '/')
                tmp[--l] = '\0';
            snprintf(simbuf, sizeof simbuf, "out/validate/%s", basename(tmp));
            sim_dir = simbuf;
        }
        if (!quiet && !json) {
            fprintf(stderr, "cephsim validate: simulating %s into %s with", scen, sim_dir);
            for (int i = 0; i < n; i++)
                fprintf(stderr, " --set %s", sets[i]);
            fprintf(stderr, "\n");
        }
        struct scenario sc;
        int r2 = scenario_load(&sc, scen, NULL, NULL, sets, n, &err);
        if (r2 == 0 && (r2 = scenario_check_unreduced(&sc, "validate", &err)) < 0)
            scenario_free(&sc);
        if (r2 == 0) {
            struct run_summary sum;
            r2 = runner_run(&sc, sim_dir, !quiet && isatty(2), &sum, &err);
            scenario_free(&sc);
        }
        free(sets);
        free(inferred);
        if (r2 < 0) {
            fprintf(stderr, "cephsim validate: %s\n", err.msg);
            goto done;
        }
    }
    if (validate_capture_load(sim_dir, &sim, &err) < 0) {
        fprintf(stderr, "cephsim validate: %s\n", err.msg);
        goto done;
    }
    struct validate_report rep;
    validate_compare(&real, &sim, &tol, &rep);
    if (!out) {
        snprintf(outbuf, sizeof outbuf, "%s/validate", sim_dir);
        out = outbuf;
    }
    cJSON *rj = validate_report_json(&real, &sim, &rep);
    int mk = files_mkdir_p(out);
    char jpath[1400];
    snprintf(jpath, sizeof jpath, "%s/validate.json", out);
    if (mk < 0 || jsonu_write_file(jpath, rj, &err) < 0) {
        fprintf(stderr, "cephsim validate: %s\n", mk < 0 ? strerror(-mk) : err.msg);
        cJSON_Delete(rj);
        goto done;
    }
    if (json && !quiet) {
        char *text = cJSON_Print(rj);
        printf("%s\n", text);
        free(text);
    } else if (!quiet) {
        validate_print(stdout, &real, &sim, &rep);
    }
    cJSON_Delete(rj);
    if (plot) {
        int pr = validate_plot(&real, &sim, out, &err);
        if (pr < 0)
            fprintf(stderr, "cephsim validate: plots: %s\n", err.msg);
        else if (!quiet && !json && pr)
            printf("report and CDF plot: %s/validate.json, %s/cdf.png\n", out, out);
        else if (!quiet && !json)
            printf("report: %s/validate.json (gnuplot not found: no plot)\n", out);
    }
    rc = rep.pass ? 0 : 1;
done:
    validate_capture_free(&real);
    validate_capture_free(&sim);
    free(user_sets);
    return rc;
}
