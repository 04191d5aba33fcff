/*
 * test_fioout.c - fio JSON document against a real fio 3.33 capture (keys,
 * order, JSON types including int vs float text), values against hand
 * computations, group_reporting, and the text summary.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "fioout.h"
#include "jsonu.h"
#include "runner.h"
#include "scenario.h"
#include "testutil.h"
#include "trace.h"

#define REAL_FIO "../shared/data/lab/noparent_randw-qd1_sched-simple_rt_r1/fio.json"
#define MS 1000000ull

static cJSON *typed_of(const cJSON *doc)
{
    char *s = cJSON_Print(doc);
    cJSON *t = typed_parse(s);
    free(s);
    assert_non_null(t);
    return t;
}

/* Same keys, same order, same JSON types (and int/float text) at every level. */
static void assert_same_shape(const cJSON *real, const cJSON *ours, const char *path)
{
    if ((real->type & 0xff) != (ours->type & 0xff))
        fail_msg("%s: JSON type %d in real fio, %d in ours", path, real->type & 0xff, ours->type & 0xff);
    if (cJSON_IsString(real) && real->valuestring[0] == '#' && strcmp(real->valuestring, ours->valuestring))
        fail_msg("%s: %s in real fio, %s in ours", path, real->valuestring[1] == 'F' ? "float" : "int",
                 ours->valuestring[1] == 'F' ? "float" : "int");
    if (cJSON_IsObject(real)) {
        const cJSON *a = real->child, *b = ours->child;
        for (; a && b; a = a->next, b = b->next) {
            char p[256];
            if (strcmp(a->string, b->string))
                fail_msg("%s: real key '%s', ours '%s'", path, a->string, b->string);
            snprintf(p, sizeof p, "%s.%s", path, a->string);
            assert_same_shape(a, b, p);
        }
        if (a || b)
            fail_msg("%s: key '%s' only in %s", path, a ? a->string : b->string, a ? "real fio" : "ours");
    }
}

static double num(const cJSON *obj, const char *key)
{
    const cJSON *it = cJSON_GetObjectItem(obj, key);
    if (!it)
        fail_msg("missing key %s", key);
    return fioout_num(it);
}

static const char *raw_text(const cJSON *obj, const char *key)
{
    const cJSON *it = cJSON_GetObjectItem(obj, key);
    assert_true(cJSON_IsRaw(it));
    return it->valuestring;
}

/* clat values of the synthetic job and how many of each (away from bucket boundaries). */
static const struct {
    uint64_t ns;
    int count;
} clat_mix[] = {
    {800, 2}, {300 * 1000ull, 30}, {1500 * 1000ull, 8000}, {3 * MS, 1800}, {7 * MS, 500},
    {15 * MS, 100}, {30 * MS, 40}, {300 * MS, 1},
};

/*
 * The rusage and depth counts the model keeps for n I/Os of a QD=1 job on fio's
 * rbd engine: one sleep and wake-up per I/O (ctx), every I/O queued at depth 1,
 * one submit mark of 1 per I/O, one complete mark of 1 at queueing (no ->commit)
 * and one getevents of 1 event per I/O.
 */
static void set_qd1_counts(struct job_result *j, uint64_t n)
{
    memset(j->io_u_map, 0, sizeof j->io_u_map);
    memset(j->io_u_submit, 0, sizeof j->io_u_submit);
    memset(j->io_u_complete, 0, sizeof j->io_u_complete);
    j->ctx = n;
    j->io_u_map[0] = n;
    j->io_u_submit[1] = j->total_submit = n;
    j->io_u_complete[1] = j->total_complete = 2 * n;
}

static struct job_result *make_job(uint32_t iodepth)
{
    struct job_result *j = calloc(1, sizeof *j);
    snprintf(j->jobname, sizeof j->jobname, "randw-qd1");
    j->runtime_ns = 20001 * MS + 123;
    j->iodepth = iodepth;
    j->usr_cpu = 1.26;
    j->sys_cpu = 0.435;
    for (int d = 0; d < FIO_DDIR_NR; d++) {
        hist_reset(&j->dir[d].slat);
        hist_reset(&j->dir[d].clat);
        hist_reset(&j->dir[d].lat);
    }
    struct job_ddir_stats *w = &j->dir[FIO_DDIR_WRITE];
    for (size_t k = 0; k < sizeof clat_mix / sizeof clat_mix[0]; k++) {
        for (int i = 0; i < clat_mix[k].count; i++) {
            uint64_t slat = 7000 + (uint64_t)(i % 50) * 100;
            hist_add(&w->slat, slat);
            hist_add(&w->clat, clat_mix[k].ns);
            hist_add(&w->lat, clat_mix[k].ns + slat);
        }
    }
    w->total_ios = w->clat.n;
    w->io_bytes = w->total_ios * 4096;
    set_qd1_counts(j, w->total_ios);
    w->n_samples = 39;
    for (int i = 0; i < 39; i++) {
        w->bw_kib_samples[i] = i == 38 ? 2090 : 2097;
        w->iops_samples[i] = 500 + i;
    }
    return j;
}

static uint64_t mix_total(void)
{
    uint64_t n = 0;
    for (size_t k = 0; k < sizeof clat_mix / sizeof clat_mix[0]; k++)
        n += (uint64_t)clat_mix[k].count;
    return n;
}

static cJSON *load_real(char **text)
{
    if (access(REAL_FIO, R_OK) != 0)
        return NULL;
    struct sim_err err = {0};
    size_t len;
    if (jsonu_slurp(REAL_FIO, text, &len, &err) < 0)
        return NULL;
    return cJSON_Parse(*text);
}

/* ---- shape against real fio 3.33 ---- */

static void test_shape_against_real_fio(void **state)
{
    (void)state;
    char *text = NULL;
    cJSON *real = load_real(&text);
    if (!real)
        skip();
    cJSON *real_t = typed_parse(text);
    assert_non_null(real_t);

    const cJSON *real_opts = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(real, "jobs"), 0),
                                                 "job options");
    struct job_result *j = make_job(1);
    /* the job's "job options" come from the job file beside the results (job_index 0) */
    cJSON *opts_dup = cJSON_Duplicate(real_opts, 1);
    struct fio_jobfile jf = {.n_jobs = 1, .job_options = &opts_dup};
    struct fioout_opts o = {.fio_version = "fio-3.33", .timestamp_s = 1796048512, .group_reporting = true,
                            .jobs = &jf};
    cJSON *doc = fioout_json(j, 1, &o);
    cJSON *ours_t = typed_of(doc);

    /* top level: same keys in the same order; the values' types */
    const cJSON *a = real_t->child, *b = ours_t->child;
    for (; a && b; a = a->next, b = b->next) {
        assert_string_equal(a->string, b->string);
        assert_int_equal(a->type & 0xff, b->type & 0xff);
    }
    assert_null(a);
    assert_null(b);
    assert_string_equal(cJSON_GetObjectItem(doc, "time")->valuestring,
                        cJSON_GetObjectItem(real, "time")->valuestring);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "disk_util")), 0);

    /* the job entry, recursively (write block, clat percentiles, distributions...) */
    const cJSON *rj = cJSON_GetArrayItem(cJSON_GetObjectItem(real_t, "jobs"), 0);
    const cJSON *oj = cJSON_GetArrayItem(cJSON_GetObjectItem(ours_t, "jobs"), 0);
    assert_same_shape(rj, oj, "jobs[0]");
    /* and the write block on its own, for a clearer message if it ever breaks */
    assert_same_shape(cJSON_GetObjectItem(rj, "write"), cJSON_GetObjectItem(oj, "write"), "write");

    cJSON_Delete(ours_t);
    cJSON_Delete(doc);
    cJSON_Delete(real_t);
    cJSON_Delete(real);
    free(text);
    free(j);
    cJSON_Delete(opts_dup);
}

/* The real capture's own totals give back its derived fields, digit for digit. */
static void test_real_values_reproduced(void **state)
{
    (void)state;
    struct job_result *j = make_job(1);
    struct job_ddir_stats *w = &j->dir[FIO_DDIR_WRITE];
    w->io_bytes = 42983424; /* real: io_bytes, total_ios, runtime 20001 ms, bw_mean 2096.820513 */
    w->total_ios = 10494;
    j->runtime_ns = 20001 * MS + 999999;
    j->job_runtime_ns = 20000 * MS;
    cJSON *doc = fioout_json(j, 1, NULL);
    const cJSON *job = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "jobs"), 0);
    const cJSON *wr = cJSON_GetObjectItem(job, "write");
    assert_int_equal((int)num(wr, "io_kbytes"), 41976);
    assert_int_equal((int)num(wr, "bw_bytes"), 2149063);
    assert_int_equal((int)num(wr, "bw"), 2098);
    assert_string_equal(raw_text(wr, "iops"), "524.673766");
    assert_int_equal((int)num(wr, "runtime"), 20001);
    assert_string_equal(raw_text(wr, "bw_agg"), "99.871618");
    assert_string_equal(raw_text(wr, "bw_mean"), "2096.820513");
    assert_int_equal((int)num(job, "job_runtime"), 20000);
    assert_int_equal((int)num(job, "elapsed"), 21);
    assert_string_equal(raw_text(job, "usr_cpu"), "1.260000");
    assert_string_equal(raw_text(job, "sys_cpu"), "0.435000");
    assert_string_equal(cJSON_GetObjectItem(doc, "fio version")->valuestring, "cephsim");
    cJSON_Delete(doc);

    /* QD=128 counted from the start (no ramp_time): the queue's fill puts 1, 2, 4 ... 32 I/Os in the
       low buckets and 33442 at >=64, as in the real QD=128 run (99.811968 % of 33505); one getevents
       of the final drain reaped more than 64 (0.1 %, floored) among 33505 + 33384 of 1-4 */
    w->total_ios = 33505;
    j->iodepth = 128;
    static const uint64_t map128[7] = {1, 2, 4, 8, 16, 32, 33442};
    memcpy(j->io_u_map, map128, sizeof map128);
    memset(j->io_u_complete, 0, sizeof j->io_u_complete);
    j->io_u_complete[1] = 33505 + 33384;
    j->io_u_complete[6] = 1;
    j->total_complete = 33505 + 33385;
    doc = fioout_json(j, 1, NULL);
    job = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "jobs"), 0);
    const cJSON *lvl = cJSON_GetObjectItem(job, "iodepth_level");
    assert_string_equal(raw_text(lvl, ">=64"), "99.811968");
    static const char *const low[] = {"1", "2", "4", "8", "16", "32"};
    for (int i = 0; i < 6; i++)
        assert_string_equal(raw_text(lvl, low[i]), "0.100000");
    const cJSON *cpl = cJSON_GetObjectItem(job, "iodepth_complete");
    assert_string_equal(raw_text(cpl, "4"), "99.998505"); /* the capture's figures */
    assert_string_equal(raw_text(cpl, ">=64"), "0.100000");
    assert_int_equal((int)num(job, "latency_depth"), 128);
    cJSON_Delete(doc);
    free(j);
}

/* ---- values against hand computations ---- */

static void test_values(void **state)
{
    (void)state;
    struct job_result *j = make_job(1);
    const struct job_ddir_stats *w = &j->dir[FIO_DDIR_WRITE];
    cJSON *doc = fioout_json(j, 1, NULL);
    const cJSON *job = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "jobs"), 0);
    const cJSON *wr = cJSON_GetObjectItem(job, "write");
    uint64_t n = mix_total();
    assert_int_equal((uint64_t)num(wr, "total_ios"), n);
    assert_int_equal((uint64_t)num(wr, "io_bytes"), n * 4096);
    assert_int_equal((uint64_t)num(wr, "runtime"), 20001);
    /* iops = total_ios / runtime, bw = io_bytes / 1024 / runtime_s (fio's integer arithmetic) */
    assert_true(fabs(num(wr, "iops") - (double)n / 20.001) < 1e-6);
    assert_int_equal((uint64_t)num(wr, "bw_bytes"), n * 4096 * 1000 / 20001);
    assert_int_equal((uint64_t)num(wr, "bw"), n * 4096 * 1000 / 20001 / 1024);
    assert_true(fabs(num(wr, "bw") - (double)(n * 4096) / 1024.0 / 20.001) < 1.0);

    /* latency objects */
    const cJSON *clat = cJSON_GetObjectItem(wr, "clat_ns");
    assert_int_equal((uint64_t)num(clat, "min"), 800);
    assert_int_equal((uint64_t)num(clat, "max"), 300 * MS);
    assert_int_equal((uint64_t)num(clat, "N"), n);
    double sum = 0, sumsq = 0;
    for (size_t k = 0; k < sizeof clat_mix / sizeof clat_mix[0]; k++) {
        sum += (double)clat_mix[k].ns * clat_mix[k].count;
        sumsq += (double)clat_mix[k].ns * (double)clat_mix[k].ns * clat_mix[k].count;
    }
    double mean = sum / (double)n;
    assert_true(fabs(num(clat, "mean") - mean) < 1e-3);
    assert_true(fabs(num(clat, "stddev") - sqrt((sumsq - (double)n * mean * mean) / (double)(n - 1))) < 1e-3);
    /* percentiles: fio's default list, keyed "%f", = hist_percentiles */
    const cJSON *pct = cJSON_GetObjectItem(clat, "percentile");
    assert_int_equal(cJSON_GetArraySize(pct), HIST_FIO_NPCT);
    uint64_t want[HIST_FIO_NPCT];
    hist_percentiles(&w->clat, hist_fio_percentiles, HIST_FIO_NPCT, want);
    const cJSON *it = pct->child;
    for (int i = 0; i < HIST_FIO_NPCT; i++, it = it->next) {
        char key[32];
        snprintf(key, sizeof key, "%f", hist_fio_percentiles[i]);
        assert_string_equal(it->string, key);
        assert_int_equal((uint64_t)fioout_num(it), want[i]);
    }
    assert_string_equal(pct->child->string, "1.000000");
    /* 8032 of 10473 I/Os are below 1.5 ms + a bit: p50 is the 1.5 ms bucket value */
    assert_true(labs((long)num(pct, "50.000000") - 1500000) < 1500000 / 64);
    assert_int_equal((uint64_t)num(pct, "99.990000"), hist_percentile(&w->clat, 99.99));
    /* slat/lat carry no percentile map (slat_percentiles=0, lat_percentiles=0) */
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(wr, "slat_ns"), "percentile"));
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(wr, "lat_ns"), "percentile"));
    assert_int_equal((uint64_t)num(cJSON_GetObjectItem(wr, "slat_ns"), "min"), 7000);
    assert_int_equal((uint64_t)num(cJSON_GetObjectItem(wr, "lat_ns"), "max"), 300 * MS + 7000);
    /* an empty direction: zeros and no percentile map */
    const cJSON *rd = cJSON_GetObjectItem(job, "read");
    assert_int_equal((int)num(rd, "runtime"), 0);
    assert_string_equal(raw_text(rd, "iops"), "0.000000");
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(rd, "clat_ns"), "percentile"));
    assert_int_equal((int)num(cJSON_GetObjectItem(cJSON_GetObjectItem(job, "sync"), "lat_ns"), "N"), 0);

    /* bw/iops sample statistics (n-1 stddev) and bw_agg = (int)mean*100/(agg/1024) */
    assert_int_equal((int)num(wr, "bw_min"), 2090);
    assert_int_equal((int)num(wr, "bw_max"), 2097);
    double bmean = (38 * 2097.0 + 2090) / 39;
    assert_true(fabs(num(wr, "bw_mean") - bmean) < 1e-6);
    double bvar = (38 * (2097 - bmean) * (2097 - bmean) + (2090 - bmean) * (2090 - bmean)) / 38;
    assert_true(fabs(num(wr, "bw_dev") - sqrt(bvar)) < 1e-6);
    double agg_kib = (double)(n * 4096 * 1000 / 20001) / 1024.0;
    double p_of_agg = (int)bmean * 100.0 / agg_kib;
    assert_true(fabs(num(wr, "bw_agg") - (p_of_agg > 100 ? 100 : p_of_agg)) < 1e-6);
    assert_int_equal((int)num(wr, "iops_min"), 500);
    assert_int_equal((int)num(wr, "iops_max"), 538);
    assert_true(fabs(num(wr, "iops_mean") - 519.0) < 1e-6); /* "%f" text: 6 decimals */
    assert_true(fabs(num(wr, "iops_stddev") - sqrt(39 * 40 / 12.0)) < 1e-6); /* sd of 0..38 (n-1) */
    assert_int_equal((int)num(wr, "iops_samples"), 39);

    /* latency distributions: percent of all I/Os by clat bucket */
    const cJSON *lns = cJSON_GetObjectItem(job, "latency_ns"), *lus = cJSON_GetObjectItem(job, "latency_us"),
                *lms = cJSON_GetObjectItem(job, "latency_ms");
    double N = (double)n;
    assert_true(fabs(num(lns, "1000") - 2 / N * 100) < 1e-6); /* 800 ns in [750, 1000) */
    assert_true(fabs(num(lus, "500") - 30 / N * 100) < 1e-6); /* 300 µs in [250, 500) */
    assert_true(fabs(num(lms, "2") - 8000 / N * 100) < 1e-6);
    assert_true(fabs(num(lms, "4") - 1800 / N * 100) < 1e-6);
    assert_true(fabs(num(lms, "10") - 500 / N * 100) < 1e-6);
    assert_true(fabs(num(lms, "20") - 100 / N * 100) < 1e-6);
    assert_true(fabs(num(lms, "50") - 40 / N * 100) < 1e-6);
    assert_string_equal(raw_text(lms, "500"), "0.010000"); /* 1 of 10473: fio's 0.01 floor */
    assert_string_equal(raw_text(lms, ">=2000"), "0.000000");
    double total = 0;
    const cJSON *maps[3] = {lns, lus, lms};
    for (int m = 0; m < 3; m++)
        cJSON_ArrayForEach(it, maps[m]) total += fioout_num(it);
    assert_true(fabs(total - 100.0 - (0.01 - 100.0 / N)) < 1e-6);

    /* depths: all at QD 1 */
    assert_string_equal(raw_text(cJSON_GetObjectItem(job, "iodepth_level"), "1"), "100.000000");
    assert_string_equal(raw_text(cJSON_GetObjectItem(job, "iodepth_submit"), "4"), "100.000000");
    assert_string_equal(raw_text(cJSON_GetObjectItem(job, "iodepth_complete"), "0"), "0.000000");
    assert_int_equal((uint64_t)num(job, "ctx"), n);
    assert_int_equal((int)num(job, "latency_depth"), 1);
    assert_string_equal(raw_text(job, "latency_percentile"), "100.000000");

    /* no job options given: no "job options" key; global options when given */
    assert_null(cJSON_GetObjectItem(job, "job options"));
    assert_null(cJSON_GetObjectItem(doc, "global options"));
    cJSON_Delete(doc);
    cJSON *g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "ioengine", "rbd");
    double plist[3] = {99.9, 50, 99.999};
    struct fioout_opts o = {.timestamp_s = 0, .global_options = g, .percentiles = plist, .n_percentiles = 3};
    doc = fioout_json(j, 1, &o);
    const cJSON *k = doc->child;
    assert_string_equal(k->next->next->next->next->string, "global options");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "global options"), "ioengine")->valuestring,
                        "rbd");
    assert_string_equal(cJSON_GetObjectItem(doc, "time")->valuestring, "Thu Jan  1 00:00:00 1970");
    pct = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(
                                                      cJSON_GetObjectItem(doc, "jobs"), 0), "write"), "clat_ns"),
                              "percentile");
    assert_int_equal(cJSON_GetArraySize(pct), 3);
    assert_string_equal(pct->child->string, "50.000000"); /* sorted */
    assert_string_equal(pct->child->next->next->string, "99.999000");
    cJSON_Delete(doc);
    cJSON_Delete(g);
    free(j);
}

/* ---- group_reporting ---- */

static void test_group_reporting(void **state)
{
    (void)state;
    struct job_result *a = make_job(4), *b = make_job(4), *c = make_job(1);
    snprintf(a->jobname, sizeof a->jobname, "first");
    snprintf(b->jobname, sizeof b->jobname, "second");
    snprintf(c->jobname, sizeof c->jobname, "other");
    c->groupid = 1;
    /* b: slower, shorter run, different CPU */
    struct job_ddir_stats *bw = &b->dir[FIO_DDIR_WRITE];
    for (int i = 0; i < 1000; i++)
        hist_add(&bw->clat, 50 * MS);
    bw->total_ios += 1000;
    bw->io_bytes += 1000 * 4096;
    b->runtime_ns = 10000 * MS;
    b->usr_cpu = 3.0;
    for (int i = 0; i < 39; i++)
        bw->bw_kib_samples[i] = 1000;
    struct job_result *arr = calloc(3, sizeof *arr);
    arr[0] = *a;
    arr[1] = *c;
    arr[2] = *b;

    struct fioout_opts o = {.group_reporting = true};
    cJSON *doc = fioout_json(arr, 3, &o);
    const cJSON *jobs = cJSON_GetObjectItem(doc, "jobs");
    assert_int_equal(cJSON_GetArraySize(jobs), 2); /* group 0 (2 jobs), group 1 */
    const cJSON *g0 = cJSON_GetArrayItem(jobs, 0), *g1 = cJSON_GetArrayItem(jobs, 1);
    assert_string_equal(cJSON_GetObjectItem(g0, "jobname")->valuestring, "first");
    assert_int_equal((int)num(g0, "groupid"), 0);
    assert_string_equal(cJSON_GetObjectItem(g1, "jobname")->valuestring, "other");
    const cJSON *wr = cJSON_GetObjectItem(g0, "write");
    uint64_t n = mix_total();
    assert_int_equal((uint64_t)num(wr, "total_ios"), 2 * n + 1000);
    assert_int_equal((uint64_t)num(wr, "io_bytes"), (2 * n + 1000) * 4096);
    assert_int_equal((uint64_t)num(wr, "runtime"), 20001); /* max */
    assert_int_equal((uint64_t)num(g0, "job_runtime"), 30001); /* sum */
    /* merged histogram == one histogram fed both jobs' latencies */
    struct hist *h = malloc(sizeof *h);
    hist_reset(h);
    hist_merge(h, &a->dir[FIO_DDIR_WRITE].clat);
    hist_merge(h, &bw->clat);
    const cJSON *clat = cJSON_GetObjectItem(wr, "clat_ns");
    assert_int_equal((uint64_t)num(clat, "N"), h->n);
    assert_int_equal((uint64_t)num(clat, "max"), 300 * MS);
    assert_true(fabs(num(clat, "mean") - hist_mean(h)) < 1e-6);
    assert_int_equal((uint64_t)num(cJSON_GetObjectItem(clat, "percentile"), "99.000000"), hist_percentile(h, 99));
    assert_int_equal((uint64_t)num(cJSON_GetObjectItem(clat, "percentile"), "90.000000"), hist_percentile(h, 90));
    /* per-interval group bandwidth: samples add */
    assert_true(fabs(num(wr, "bw_mean") - ((38 * 2097.0 + 2090) / 39 + 1000)) < 1e-6);
    assert_int_equal((int)num(wr, "bw_max"), 3097);
    assert_int_equal((int)num(wr, "bw_samples"), 39);
    /* CPU weighted by job runtime: (1.26 * 20001 + 3.0 * 10000) / 30001 */
    assert_true(fabs(num(g0, "usr_cpu") - (1.26 * 20001.000000123 + 3.0 * 10000) / 30001.000000123) < 1e-6);
    cJSON_Delete(doc);

    /* without group_reporting: one entry per job; bw_agg against the group's aggregate */
    o.group_reporting = false;
    doc = fioout_json(arr, 3, &o);
    jobs = cJSON_GetObjectItem(doc, "jobs");
    assert_int_equal(cJSON_GetArraySize(jobs), 3);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(jobs, 2), "jobname")->valuestring, "second");
    const cJSON *w0 = cJSON_GetObjectItem(cJSON_GetArrayItem(jobs, 0), "write");
    uint64_t agg = ((2 * n + 1000) * 4096) * 1000 / 20001; /* group 0: iobytes * 1000 / max_run */
    double bmean = (38 * 2097.0 + 2090) / 39;
    assert_true(fabs(num(w0, "bw_agg") - (int)bmean * 100.0 / ((double)agg / 1024.0)) < 1e-6);
    assert_true(num(w0, "bw_agg") < 100.0);
    /* job 1 (groupid 1) is alone in its group */
    const cJSON *w1 = cJSON_GetObjectItem(cJSON_GetArrayItem(jobs, 1), "write");
    double p1 = (int)bmean * 100.0 / ((double)(n * 4096 * 1000 / 20001) / 1024.0);
    assert_true(p1 > 100.0);
    assert_string_equal(raw_text(w1, "bw_agg"), "100.000000"); /* capped, as fio does */
    cJSON_Delete(doc);

    /* fioout_merge directly: jobname and options stay the first job's */
    fioout_merge(a, b);
    assert_string_equal(a->jobname, "first");
    assert_int_equal(a->dir[FIO_DDIR_WRITE].clat.n, h->n);
    assert_int_equal(a->job_runtime_ns, 20001 * MS + 123 + 10000 * MS);
    free(h);
    free(arr);
    free(a);
    free(b);
    free(c);
}

/* ---- text summary ---- */

static void test_print(void **state)
{
    (void)state;
    struct job_result *j = make_job(1);
    struct job_ddir_stats *w = &j->dir[FIO_DDIR_WRITE];
    w->io_bytes = 42983424;
    w->total_ios = 10494;
    set_qd1_counts(j, 10494);
    j->runtime_ns = 20001 * MS;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct fioout_opts o = {.timestamp_s = 1796048512, .group_reporting = true};
    fioout_print(f, j, 1, &o);
    fclose(f);
    /* lines in fio 3.33's format (values from the real run's totals where they apply) */
    static const char *const want[] = {
        "randw-qd1: (groupid=0, jobs=1): err= 0: pid=0: Mon Nov 30 14:21:52 2026\n",
        "  write: IOPS=524, BW=2099KiB/s (2149kB/s)(41.0MiB/20001msec); 0 zone resets\n",
        /* display_lat: usec when min, max, mean and stdev all exceed 1000 ns, else nsec */
        "    slat (usec): min=7, max=11, avg= 9.44, stdev= 1.44\n",
        "    clat (nsec): min=800, max=300000k, avg=2282918.13, stdev=3817609.36\n",
        "     lat (usec): min=7, max=300007, avg=2292.36, stdev=3817.58\n",
        /* bucket values (1499136 ns...) scaled up to µs, 4 per line, width 5 */
        "    clat percentiles (usec):\n     |  1.00th=[ 1500],  5.00th=[ 1500], 10.00th=[ 1500], 20.00th=[ 1500],\n",
        "     | 70.00th=[ 1500], 80.00th=[ 2999], 90.00th=[ 2999], 95.00th=[ 6980],\n",
        "     | 99.00th=[15008], 99.50th=[15008], 99.90th=[30016], 99.95th=[30016],\n     | 99.99th=[30016]\n",
        "   bw (  KiB/s): min= 2090, max= 2097, per=99.87%, avg=2096.82, stdev= 1.12, samples=39\n",
        "   iops        : min=  500, max=  538, avg=519.00, stdev=11.40, samples=39\n",
        "  lat (nsec)   : 1000=0.02%\n",
        "  lat (usec)   : 500=0.29%\n",
        /* of total_ios (10494): 8000 -> 76.23 %, 1 -> 0.0095 % floored to 0.01 %, 5 per line */
        "  lat (msec)   : 2=76.23%, 4=17.15%, 10=4.76%, 20=0.95%, 50=0.38%\n  lat (msec)   : 500=0.01%\n",
        "  cpu          : usr=1.26%, sys=0.43%, ctx=10494, majf=0, minf=0\n",
        "  IO depths    : 1=100.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%\n",
        "     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n",
        "     complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n",
        "     issued rwts: total=0,10494,0,0 short=0,0,0,0 dropped=0,0,0,0\n",
        "     latency   : target=0, window=0, percentile=100.00%, depth=1\n",
        "\nRun status group 0 (all jobs):\n"
        "  WRITE: bw=2099KiB/s (2149kB/s), 2099KiB/s-2099KiB/s (2149kB/s-2149kB/s), io=41.0MiB (43.0MB), "
        "run=20001-20001msec\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(buf, want[i]))
            fail_msg("missing in the summary:\n%s\n--- summary ---\n%s", want[i], buf);
    assert_null(strstr(buf, "  read:"));
    assert_null(strstr(buf, "Starting")); /* no job file given: no preamble */
    free(buf);

    /* with the job file: add_job's line per job ("..." for numjobs clones), the version, "Starting",
       then the results with the job's description */
    struct workload_job wj = {.rw = FIO_RW_RANDWRITE, .bs = {4096, 131072}, .kb_base = 1024, .iodepth = 1,
                              .numjobs = 2};
    snprintf(wj.name, sizeof wj.name, "randw-qd1");
    snprintf(wj.ioengine, sizeof wj.ioengine, "rbd");
    snprintf(wj.description, sizeof wj.description, "the QD=1 job");
    struct fio_jobfile jf = {.jobs = &wj, .n_jobs = 1};
    o.jobs = &jf;
    o.fio_version = "fio-3.33";
    f = open_memstream(&buf, &len);
    fioout_print(f, j, 1, &o);
    fclose(f);
    static const char *const head =
        "randw-qd1: (g=0): rw=randwrite, bs=(R) 4096B-4096B, (W) 128KiB-128KiB, (T) 128KiB-128KiB, ioengine=rbd, "
        "iodepth=1\n...\nfio-3.33\nStarting 2 processes\n\n"
        "randw-qd1: (groupid=0, jobs=1): err= 0: pid=0: Mon Nov 30 14:21:52 2026\n  Description  : [the QD=1 job]\n"
        "  write: IOPS=524";
    if (strncmp(buf, head, strlen(head)))
        fail_msg("preamble:\n%s\n--- got ---\n%.400s", head, buf);
    free(buf);
    free(j);
}

/* ---- json+ ---- */

/* clat_ns "bins": every non-empty plat bucket, keyed by its value (plat_idx_to_val), counts adding
   up to N; none on slat/lat, none without json+. */
static void test_json_plus_bins(void **state)
{
    (void)state;
    struct job_result *j = make_job(1);
    struct fioout_opts o = {.json_plus = true};
    cJSON *doc = fioout_json(j, 1, &o);
    const cJSON *wr = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "jobs"), 0), "write");
    const cJSON *bins = cJSON_GetObjectItem(cJSON_GetObjectItem(wr, "clat_ns"), "bins");
    assert_non_null(bins);
    uint64_t total = 0;
    int nonzero = 0;
    for (unsigned i = 0; i < HIST_PLAT_NR; i++)
        nonzero += j->dir[FIO_DDIR_WRITE].clat.bucket[i] != 0;
    const cJSON *b;
    uint64_t prev = 0;
    cJSON_ArrayForEach(b, bins) {
        char *end;
        uint64_t v = strtoull(b->string, &end, 10);
        assert_true(*end == '\0' && v >= prev); /* ascending values, as fio prints them */
        prev = v;
        unsigned idx = hist_val_to_idx(v);
        assert_int_equal(hist_idx_to_val(idx), v);
        assert_int_equal((uint64_t)b->valuedouble, j->dir[FIO_DDIR_WRITE].clat.bucket[idx]);
        total += (uint64_t)b->valuedouble;
    }
    assert_int_equal(cJSON_GetArraySize(bins), nonzero);
    assert_int_equal(total, mix_total());
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(wr, "slat_ns"), "bins"));
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(wr, "lat_ns"), "bins"));
    const cJSON *rd = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "jobs"), 0), "read");
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(rd, "clat_ns"), "bins")); /* no samples */
    cJSON_Delete(doc);
    doc = fioout_json(j, 1, NULL);
    wr = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "jobs"), 0), "write");
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(wr, "clat_ns"), "bins"));
    cJSON_Delete(doc);
    free(j);
}

/* slat_percentiles, clat_percentiles, lat_percentiles each decide their own
   "percentile" object and text block (stat.c add_ddir_status_json,
   show_ddir_status): lat's median is clat's plus the submission latency. */
static void test_percentile_flags(void **state)
{
    (void)state;
    struct job_result *j = make_job(1);
    struct workload_job wj = {.rw = FIO_RW_RANDWRITE, .bs = {4096, 4096}, .kb_base = 1024, .iodepth = 1,
                              .numjobs = 1, .slat_percentiles = true, .clat_percentiles = false,
                              .lat_percentiles = true};
    snprintf(wj.name, sizeof wj.name, "randw-qd1");
    struct fio_jobfile jf = {.jobs = &wj, .n_jobs = 1};
    struct fioout_opts o = {.jobs = &jf};
    cJSON *doc = fioout_json(j, 1, &o);
    const cJSON *wr = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "jobs"), 0), "write");
    const cJSON *sp = cJSON_GetObjectItem(cJSON_GetObjectItem(wr, "slat_ns"), "percentile");
    const cJSON *lp = cJSON_GetObjectItem(cJSON_GetObjectItem(wr, "lat_ns"), "percentile");
    assert_non_null(sp);
    assert_non_null(lp);
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(wr, "clat_ns"), "percentile"));
    /* slat is 7.0-11.9 us in make_job; lat's median is above clat's by about that */
    double s50 = cJSON_GetNumberValue(cJSON_GetObjectItem(sp, "50.000000"));
    assert_true(s50 >= 6900 && s50 <= 12100);
    cJSON_Delete(doc);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fioout_print(f, j, 1, &o);
    fclose(f);
    assert_non_null(strstr(buf, "    slat percentiles ("));
    assert_non_null(strstr(buf, "    lat percentiles ("));
    assert_null(strstr(buf, "clat percentiles"));
    free(buf);
    free(j);
}

/* ---- whole runs: mixed directions, fio's logs, rusage ---- */

/* A small cluster running jobs (fio job file text), into dir/run; the summary in *sum. */
static void run_jobs(const char *dir, const char *jobs, double warmup_s, struct run_summary *sum)
{
    cJSON *scen = cJSON_Parse("{\"cluster\": {\"hosts\": 3, \"osds_per_host\": 1}, \"pool\": {\"pg_num\": 32},"
                              " \"image\": {\"size_gib\": 1},"
                              " \"sim\": {\"duration_s\": 0.5, \"replications\": 2}}");
    cJSON_AddNumberToObject(cJSON_GetObjectItem(scen, "sim"), "warmup_s", warmup_s);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(scen, "clients"), "jobs", jobs);
    char *text = cJSON_PrintUnformatted(scen);
    cJSON_Delete(scen);
    struct scenario sc;
    struct sim_err err = {0};
    if (scenario_load(&sc, NULL, text, "inline.json", NULL, 0, &err) < 0)
        fail_msg("scenario_load: %s", err.msg);
    free(text);
    char out[600];
    snprintf(out, sizeof out, "%s/run", dir);
    if (runner_run(&sc, out, false, sum, &err) < 0)
        fail_msg("runner_run: %s", err.msg);
    scenario_free(&sc);
}

static cJSON *load_json(const char *dir, const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/run/%s", dir, name);
    struct sim_err err = {0};
    cJSON *j = jsonu_load_file(path, &err);
    if (!j)
        fail_msg("%s", err.msg);
    return j;
}

static void load_latlog(const char *dir, const char *name, struct trace_latlog *l)
{
    char path[700];
    snprintf(path, sizeof path, "%s/run/%s", dir, name);
    struct sim_err err = {0};
    memset(l, 0, sizeof *l);
    if (trace_latlog_load(path, TRACE_LAT_OFFSET, l, &err) < 0)
        fail_msg("%s", err.msg);
}

static const char mixed_jobs[] =
    "[global]\nioengine=rbd\npool=rbd\nrbdname=img\nbs=4k\niodepth=4\ntime_based=1\n"
    "[mix]\nrw=randrw\nrwmixread=70\nwrite_lat_log=mixlat\nwrite_bw_log\nwrite_iops_log\nlog_offset=1\n"
    "write_iolog=mix.iolog\n";

/*
 * A 70/30 randrw: the summary, sim.json and the database's flat keys keep
 * both directions (their IOPS add up to all, reads are 70 % within 4 sigma
 * of a binomial); fio's per-I/O logs hold one line per completion of
 * fio.json, with fio.json's clat mean, bw = bytes * 10^6 / clat; the iolog
 * v3 every issued I/O between add/open and close; sim.json names the logs
 * and the replication they come from, and a rerun into the directory may
 * replace it.
 */
static void test_mixed_run_and_logs(void **state)
{
    (void)state;
    char dir[] = "/tmp/cephsim_test_fioout.XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct run_summary sum;
    run_jobs(dir, mixed_jobs, 0.1, &sum);
    assert_int_equal(sum.ddir, RUN_DDIR_MIXED);
    assert_true(sum.dir[FIO_DDIR_READ].present && sum.dir[FIO_DDIR_WRITE].present);
    double r = sum.dir[FIO_DDIR_READ].iops.mean, w = sum.dir[FIO_DDIR_WRITE].iops.mean;
    assert_true(fabs(r + w - sum.iops.mean) < 1e-6 * sum.iops.mean);
    double ios = sum.iops.mean * 0.5 * 2, p = r / (r + w); /* 2 replications of 0.5 s */
    assert_true(fabs(p - 0.7) < 4 * sqrt(0.7 * 0.3 / ios));
    assert_true(sum.dir[FIO_DDIR_WRITE].lat_mean_us.mean > sum.dir[FIO_DDIR_READ].lat_mean_us.mean);
    assert_true(sum.lat_mean_us.mean > sum.dir[FIO_DDIR_READ].lat_mean_us.mean &&
                sum.lat_mean_us.mean < sum.dir[FIO_DDIR_WRITE].lat_mean_us.mean);

    cJSON *sim = load_json(dir, "sim.json");
    const cJSON *s = cJSON_GetObjectItem(sim, "summary");
    assert_string_equal(cJSON_GetObjectItem(s, "direction")->valuestring, "mixed");
    assert_true(fabs(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "read_iops"), "mean")->valuedouble - r) < 1e-9);
    assert_true(fabs(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "write_iops"), "mean")->valuedouble - w) < 1e-9);
    const cJSON *from = cJSON_GetObjectItem(sim, "outputs_from");
    assert_int_equal((int)cJSON_GetObjectItem(from, "replication")->valuedouble, 0);
    const cJSON *seed0 = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(sim, "replications"), 0), "seed");
    assert_true(cJSON_Compare(cJSON_GetObjectItem(from, "seed"), seed0, true));
    static const char *const want[] = {"mixlat_lat.1.log", "mixlat_slat.1.log", "mixlat_clat.1.log",
                                       "mix_bw.1.log", "mix_iops.1.log", "mix.iolog"};
    const cJSON *logs = cJSON_GetObjectItem(from, "fio_logs");
    assert_int_equal(cJSON_GetArraySize(logs), 6);
    for (int i = 0; i < 6; i++)
        assert_string_equal(cJSON_GetArrayItem(logs, i)->valuestring, want[i]);
    cJSON_Delete(sim);

    /* the logs against fio.json (the same replication) */
    cJSON *fio = load_json(dir, "fio.json");
    const cJSON *job = cJSON_GetArrayItem(cJSON_GetObjectItem(fio, "jobs"), 0);
    uint64_t n[2] = {(uint64_t)num(cJSON_GetObjectItem(job, "read"), "total_ios"),
                     (uint64_t)num(cJSON_GetObjectItem(job, "write"), "total_ios")};
    double clat_mean[2] = {num(cJSON_GetObjectItem(cJSON_GetObjectItem(job, "read"), "clat_ns"), "mean"),
                           num(cJSON_GetObjectItem(cJSON_GetObjectItem(job, "write"), "clat_ns"), "mean")};
    struct trace_latlog clat, lat, bw, iops;
    load_latlog(dir, "mixlat_clat.1.log", &clat);
    load_latlog(dir, "mixlat_lat.1.log", &lat);
    load_latlog(dir, "mix_bw.1.log", &bw);
    load_latlog(dir, "mix_iops.1.log", &iops);
    assert_int_equal(clat.n, n[0] + n[1]);
    assert_int_equal(lat.n, clat.n);
    assert_int_equal(bw.n, clat.n);
    assert_int_equal(iops.n, clat.n);
    uint64_t cnt[2] = {0, 0};
    double sumv[2] = {0, 0};
    for (size_t i = 0; i < clat.n; i++) {
        const struct trace_lat *c = &clat.s[i];
        assert_true(c->ddir == 0 || c->ddir == 1);
        cnt[c->ddir]++;
        sumv[c->ddir] += (double)c->lat_ns;
        assert_int_equal(c->bs, 4096);
        assert_true(c->offset >= 0 && c->offset % 4096 == 0 && c->offset < (int64_t)1 << 30);
        assert_true(c->t_ms <= 500 && (i == 0 || c->t_ms >= clat.s[i - 1].t_ms));
        assert_true(lat.s[i].lat_ns > c->lat_ns && lat.s[i].offset == c->offset); /* lat = slat + clat */
        assert_int_equal(bw.s[i].lat_ns, 4096 * 1000000ll / c->lat_ns);
        assert_int_equal(iops.s[i].lat_ns, 1);
    }
    for (int d = 0; d < 2; d++) {
        assert_int_equal(cnt[d], n[d]);
        assert_true(fabs(sumv[d] / (double)cnt[d] - clat_mean[d]) < 1e-6 * clat_mean[d]);
    }
    trace_latlog_free(&clat);
    trace_latlog_free(&lat);
    trace_latlog_free(&bw);
    trace_latlog_free(&iops);
    cJSON_Delete(fio);

    /* the iolog: v3, add and open first, close last, every I/O issued from t = 0 */
    char path[700];
    snprintf(path, sizeof path, "%s/run/mix.iolog", dir);
    struct trace_iolog il = {0};
    struct sim_err err = {0};
    if (trace_iolog_load(path, &il, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(il.version, 3);
    assert_true(il.n > n[0] + n[1]);
    assert_int_equal(il.ios[0].act, TRACE_IO_ADD);
    assert_int_equal(il.ios[1].act, TRACE_IO_OPEN);
    assert_int_equal(il.ios[il.n - 1].act, TRACE_IO_CLOSE);
    assert_true(il.ios[il.n - 1].t_ns == 600 * MS); /* warm-up + duration */
    for (size_t i = 2; i + 1 < il.n; i++) {
        assert_true(il.ios[i].act == TRACE_IO_READ || il.ios[i].act == TRACE_IO_WRITE);
        assert_int_equal(il.ios[i].length, 4096);
        assert_true(il.ios[i].t_ns >= il.ios[i - 1].t_ns);
    }
    trace_iolog_free(&il);

    /* a rerun replaces the directory, logs and all */
    run_jobs(dir, mixed_jobs, 0.1, &sum);
    files_rm_tree(dir);

    /* a log named like another output is refused before anything is written */
    char dir2[] = "/tmp/cephsim_test_fioout.XXXXXX";
    assert_non_null(mkdtemp(dir2));
    struct scenario sc;
    if (scenario_load(&sc, NULL, "{\"cluster\": {\"hosts\": 3, \"osds_per_host\": 1}, \"pool\": {\"pg_num\": 32},"
                      " \"sim\": {\"duration_s\": 0.1, \"replications\": 1}, \"clients\": {\"jobs\": "
                      "\"[w]\\nioengine=rbd\\npool=rbd\\nrbdname=img\\nrw=randwrite\\nwrite_iolog=fio.json\\n\"}}",
                      "inline.json", NULL, 0, &err) < 0)
        fail_msg("scenario_load: %s", err.msg);
    char out[600];
    snprintf(out, sizeof out, "%s/run", dir2);
    assert_true(runner_run(&sc, out, false, &sum, &err) < 0);
    assert_non_null(strstr(err.msg, "fio log 'fio.json'"));
    assert_int_equal(access(out, F_OK), -1);
    scenario_free(&sc);
    files_rm_tree(dir2);
}

/*
 * log_avg_msec=100: lat/clat lines are per-direction window means at
 * elapsed >= each 100 ms boundary; bw and iops lines at each boundary carry
 * the interval's KiB/s and IOPS, so they add back up to fio.json's bytes
 * and I/Os (up to the truncation and the unlogged tail after the last boundary).
 */
static void test_averaged_logs(void **state)
{
    (void)state;
    char dir[] = "/tmp/cephsim_test_fioout.XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct run_summary sum;
    run_jobs(dir, "[w]\nioengine=rbd\npool=rbd\nrbdname=img\nrw=randwrite\nbs=4k\niodepth=8\n"
                  "write_lat_log=w\nwrite_bw_log=w\nwrite_iops_log=w\nlog_avg_msec=100\n", 0.1, &sum);
    cJSON *fio = load_json(dir, "fio.json");
    const cJSON *wr = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(fio, "jobs"), 0), "write");
    uint64_t ios = (uint64_t)num(wr, "total_ios");
    struct trace_latlog bw, iops, clat;
    load_latlog(dir, "w_bw.1.log", &bw);
    load_latlog(dir, "w_iops.1.log", &iops);
    load_latlog(dir, "w_clat.1.log", &clat);
    assert_int_equal(bw.n, 5); /* 100, 200, ... 500 ms */
    assert_int_equal(iops.n, 5);
    uint64_t got = 0;
    for (size_t i = 0; i < iops.n; i++) {
        assert_int_equal(iops.s[i].t_ms, 100 * (int64_t)(i + 1));
        assert_int_equal(bw.s[i].t_ms, iops.s[i].t_ms);
        assert_int_equal(iops.s[i].bs, 0); /* __add_stat_to_log: averaged lines carry no block size */
        assert_int_equal(bw.s[i].lat_ns, iops.s[i].lat_ns * 4096 / 1024); /* KiB/s of 4 KiB I/Os */
        got += (uint64_t)iops.s[i].lat_ns / 10; /* IOPS over 100 ms */
    }
    assert_true(got <= ios && got + ios / 20 >= ios);
    /* clat windows: one line per 100 ms (the last at the end), means near fio's */
    assert_true(clat.n >= 5 && clat.n <= 6);
    double clat_mean = num(cJSON_GetObjectItem(wr, "clat_ns"), "mean");
    for (size_t i = 0; i < clat.n; i++) {
        assert_int_equal(clat.s[i].bs, 0);
        assert_true(fabs((double)clat.s[i].lat_ns / clat_mean - 1) < 0.2);
    }
    trace_latlog_free(&bw);
    trace_latlog_free(&iops);
    trace_latlog_free(&clat);
    cJSON_Delete(fio);
    files_rm_tree(dir);
}

/*
 * The fio thread's rusage covers the measured time only: the same job with
 * a warm-up 5x longer reports the same usr_cpu (it counted the warm-up
 * before: 7.00 vs 1.41); sys_cpu is ctx wake-ups at one cost each, so
 * sys/ctx is the same at every depth; at QD=1 the thread sleeps once per
 * I/O; every I/O is queued at depth iodepth after the warm-up.
 */
static void test_rusage_and_depths(void **state)
{
    (void)state;
    char dir[] = "/tmp/cephsim_test_fioout.XXXXXX";
    assert_non_null(mkdtemp(dir));
    static const char qd1[] = "[w]\nioengine=rbd\npool=rbd\nrbdname=img\nrw=randwrite\nbs=4k\niodepth=1\n";
    static const char qd8[] = "[w]\nioengine=rbd\npool=rbd\nrbdname=img\nrw=randwrite\nbs=4k\niodepth=8\n";
    double usr[2], per_ctx[2];
    struct run_summary sum;
    for (int k = 0; k < 3; k++) {
        run_jobs(dir, k == 2 ? qd8 : qd1, k == 1 ? 0.5 : 0.1, &sum);
        cJSON *fio = load_json(dir, "fio.json");
        const cJSON *job = cJSON_GetArrayItem(cJSON_GetObjectItem(fio, "jobs"), 0);
        uint64_t ios = (uint64_t)num(cJSON_GetObjectItem(job, "write"), "total_ios");
        double ctx = num(job, "ctx");
        if (k < 2) {
            usr[k] = num(job, "usr_cpu");
            per_ctx[k] = num(job, "sys_cpu") / ctx;
            assert_true(fabs(ctx - (double)ios) <= 2); /* one sleep per I/O (± those in flight at the cut) */
            assert_true(num(cJSON_GetObjectItem(job, "iodepth_level"), "1") == 100);
        } else {
            assert_true(fabs(num(job, "sys_cpu") / ctx / per_ctx[0] - 1) < 1e-4);
            assert_true(ctx < (double)ios);
            assert_true(num(cJSON_GetObjectItem(job, "iodepth_level"), "8") == 100);
        }
        assert_true(num(cJSON_GetObjectItem(job, "iodepth_submit"), "4") == 100);
        cJSON_Delete(fio);
    }
    assert_true(usr[0] > 0.1 && fabs(usr[1] / usr[0] - 1) < 0.05);
    assert_true(fabs(per_ctx[1] / per_ctx[0] - 1) < 1e-4);
    files_rm_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_against_real_fio),
        cmocka_unit_test(test_real_values_reproduced),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_group_reporting),
        cmocka_unit_test(test_print),
        cmocka_unit_test(test_json_plus_bins),
        cmocka_unit_test(test_percentile_flags),
        cmocka_unit_test(test_mixed_run_and_logs),
        cmocka_unit_test(test_averaged_logs),
        cmocka_unit_test(test_rusage_and_depths),
    };
    return cmocka_run_group_tests_name("fioout", tests, NULL, NULL);
}
