/*
 * score.c - the scored validation set (format and method in score.h).
 *
 * Each case is an ordinary scenario run through runner_run, so a case's
 * prediction is exactly what `cephsim run SCENARIO` prints; the score adds
 * only the comparison.  The costs are the scenarios' defaults: no case may
 * carry a cost override (checked at load), so hardware differs only through
 * profiles and releases only through ceph.release.
 */
#include "score.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <limits.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "files.h"
#include "jsonu.h"
#include "runner.h"
#include "scenario.h"

static const char *const metric_names[] = {"iops", "lat_mean_us"};

static double now_s(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

void score_free(struct score_corpus *c)
{
    free(c->categories);
    free(c->cases);
    free(c->unexpressed);
    memset(c, 0, sizeof *c);
}

int score_find(const struct score_corpus *c, const char *id)
{
    for (int i = 0; i < c->n_cases; i++)
        if (!strcmp(c->cases[i].id, id))
            return i;
    return -1;
}

static int category_index(const struct score_corpus *c, const char *key)
{
    for (int k = 0; k < c->n_categories; k++)
        if (!strcmp(c->categories[k].key, key))
            return k;
    return -1;
}

/* A case's scenario may not override stage costs: one cost table for every case. */
static int check_no_costs(const char *path, const char *shown, struct sim_err *err)
{
    cJSON *j = jsonu_load_file(path, err);
    if (!j)
        return err->code ? err->code : -EINVAL;
    int rc = 0;
    if (cJSON_GetObjectItemCaseSensitive(j, "cost"))
        rc = sim_errf(err, -EINVAL, "%s: cost: a scored case may not override stage costs "
                                    "(one cost table for every case; hardware differs through profiles)", shown);
    cJSON_Delete(j);
    return rc;
}

static int load_run_spec(const cJSON *obj, const char *dir, const char *file, const char *path,
                         const char *default_scenario, struct score_run_spec *rs, struct sim_err *err)
{
    char sub[SCORE_STR], rel[SCORE_PATH] = "";
    int rc;
    if ((rc = jsonu_get_string(obj, "scenario", rel, sizeof rel, default_scenario == NULL, file, path, err)) < 0)
        return rc;
    if (!rel[0] && default_scenario)
        snprintf(rs->scenario, sizeof rs->scenario, "%s", default_scenario);
    else if (rel[0] == '/')
        return sim_errf(err, -EINVAL, "%s: %s: the scenario path must be relative to the corpus directory",
                        file, jsonu_path(sub, sizeof sub, path, "scenario"));
    else if (snprintf(rs->scenario, sizeof rs->scenario, "%s/%s", dir, rel) >= (int)sizeof rs->scenario)
        return sim_errf(err, -ENAMETOOLONG, "%s: %s: path too long", file,
                        jsonu_path(sub, sizeof sub, path, "scenario"));
    const cJSON *sets = cJSON_GetObjectItemCaseSensitive(obj, "set");
    rs->n_sets = 0;
    if (sets) {
        if (!cJSON_IsArray(sets))
            return sim_errf(err, -EINVAL, "%s: %s: expected an array of \"path=value\" strings", file,
                            jsonu_path(sub, sizeof sub, path, "set"));
        const cJSON *s;
        cJSON_ArrayForEach(s, sets) {
            if (!cJSON_IsString(s) || !strchr(s->valuestring, '='))
                return sim_errf(err, -EINVAL, "%s: %s[%d]: expected \"path=value\"", file,
                                jsonu_path(sub, sizeof sub, path, "set"), rs->n_sets);
            if (!strncmp(s->valuestring, "cost.", 5))
                return sim_errf(err, -EINVAL, "%s: %s[%d]: a scored case may not override stage costs "
                                "(one cost table for every case)", file,
                                jsonu_path(sub, sizeof sub, path, "set"), rs->n_sets);
            if (rs->n_sets == SCORE_MAX_SETS ||
                snprintf(rs->sets[rs->n_sets], SCORE_STR, "%s", s->valuestring) >= SCORE_STR)
                return sim_errf(err, -E2BIG, "%s: %s: at most %d overrides of %d characters", file,
                                jsonu_path(sub, sizeof sub, path, "set"), SCORE_MAX_SETS, SCORE_STR - 1);
            rs->n_sets++;
        }
    }
    return 0;
}

static int load_case(struct score_corpus *c, const cJSON *o, const char *file, int i, struct sim_err *err)
{
    static const char *const keys[] = {"id", "category", "corpus_id", "scenario", "set", "metric", "baseline",
                                       "published", "data_quality", "source", "note", "slow"};
    char path[64], sub[128], cat[32] = "", metric[32] = "";
    struct score_case *k = &c->cases[i];
    int rc;
    snprintf(path, sizeof path, "cases[%d]", i);
    if (!cJSON_IsObject(o))
        return sim_errf(err, -EINVAL, "%s: %s: expected an object", file, path);
    if ((rc = jsonu_check_keys(o, keys, (int)(sizeof keys / sizeof *keys), file, path, err)) < 0 ||
        (rc = jsonu_get_string(o, "id", k->id, sizeof k->id, true, file, path, err)) < 0 ||
        (rc = jsonu_get_string(o, "category", cat, sizeof cat, true, file, path, err)) < 0 ||
        (rc = jsonu_get_string(o, "corpus_id", k->corpus_id, sizeof k->corpus_id, false, file, path, err)) < 0 ||
        (rc = jsonu_get_string(o, "metric", metric, sizeof metric, true, file, path, err)) < 0 ||
        (rc = jsonu_get_double(o, "published", &k->published, 1e-9, 1e12, true, file, path, err)) < 0 ||
        (rc = jsonu_get_string(o, "data_quality", k->data_quality, sizeof k->data_quality, true, file, path,
                               err)) < 0)
        return rc;
    if ((rc = jsonu_get_bool(o, "slow", &k->slow, false, file, path, err)) < 0)
        return rc;
    if ((k->category = category_index(c, cat)) < 0)
        return sim_errf(err, -EINVAL, "%s: %s.category: '%s' is not one of the corpus's categories", file, path,
                        cat);
    int m = -1;
    for (int j = 0; j < (int)(sizeof metric_names / sizeof *metric_names); j++)
        if (!strcmp(metric, metric_names[j]))
            m = j;
    if (m < 0)
        return sim_errf(err, -EINVAL, "%s: %s.metric: '%s' is not iops or lat_mean_us", file, path,
                        metric);
    k->metric = (enum score_metric)m;
    if (score_find(c, k->id) >= 0 && score_find(c, k->id) < i)
        return sim_errf(err, -EINVAL, "%s: %s.id: '%s' twice", file, path, k->id);
    if ((rc = load_run_spec(o, c->dir, file, path, NULL, &k->run, err)) < 0)
        return rc;
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(o, "source");
    jsonu_path(sub, sizeof sub, path, "source");
    if (!cJSON_IsObject(src))
        return sim_errf(err, -EINVAL, "%s: %s: required object {title, url, section}", file, sub);
    static const char *const src_keys[] = {"title", "url", "section"};
    if ((rc = jsonu_check_keys(src, src_keys, 3, file, sub, err)) < 0 ||
        (rc = jsonu_get_string(src, "title", k->source_title, SCORE_STR, true, file, sub, err)) < 0 ||
        (rc = jsonu_get_string(src, "url", k->source_url, SCORE_STR, true, file, sub, err)) < 0 ||
        (rc = jsonu_get_string(src, "section", k->source_section, SCORE_STR, false, file, sub, err)) < 0)
        return rc;
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(o, "baseline");
    if (base) {
        jsonu_path(sub, sizeof sub, path, "baseline");
        static const char *const base_keys[] = {"scenario", "set"};
        if (!cJSON_IsObject(base))
            return sim_errf(err, -EINVAL, "%s: %s: expected an object {scenario, set}", file, sub);
        if ((rc = jsonu_check_keys(base, base_keys, 2, file, sub, err)) < 0 ||
            (rc = load_run_spec(base, c->dir, file, sub, k->run.scenario, &k->baseline, err)) < 0)
            return rc;
        k->ratio = true;
    }
    char shown[SCORE_PATH + 160];
    snprintf(shown, sizeof shown, "%s (%s.scenario)", k->run.scenario, path);
    if ((rc = check_no_costs(k->run.scenario, shown, err)) < 0)
        return rc;
    if (k->ratio && strcmp(k->baseline.scenario, k->run.scenario)) {
        snprintf(shown, sizeof shown, "%s (%s.baseline.scenario)", k->baseline.scenario, path);
        if ((rc = check_no_costs(k->baseline.scenario, shown, err)) < 0)
            return rc;
    }
    return 0;
}

int score_load(struct score_corpus *c, const char *dir, struct sim_err *err)
{
    memset(c, 0, sizeof *c);
    char file[SCORE_PATH + 16], sub[128];
    if (snprintf(c->dir, sizeof c->dir, "%s", dir) >= (int)sizeof c->dir)
        return sim_errf(err, -ENAMETOOLONG, "%s: path too long", dir);
    snprintf(file, sizeof file, "%s/corpus.json", dir);
    cJSON *root = jsonu_load_file(file, err);
    if (!root)
        return err->code ? err->code : -EINVAL;
    static const char *const top_keys[] = {"description", "categories", "cases", "not_expressible"};
    int rc = jsonu_check_keys(root, top_keys, 4, file, "", err);
    const cJSON *cats = cJSON_GetObjectItemCaseSensitive(root, "categories");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    const cJSON *unex = cJSON_GetObjectItemCaseSensitive(root, "not_expressible");
    if (rc == 0 && (!cJSON_IsArray(cats) || cJSON_GetArraySize(cats) < 1))
        rc = sim_errf(err, -EINVAL, "%s: categories: required, a non-empty array", file);
    if (rc == 0 && !cJSON_IsArray(cases))
        rc = sim_errf(err, -EINVAL, "%s: cases: required, an array", file);
    if (rc == 0 && unex && !cJSON_IsArray(unex))
        rc = sim_errf(err, -EINVAL, "%s: not_expressible: expected an array", file);
    if (rc == 0) {
        c->n_categories = cJSON_GetArraySize(cats);
        c->categories = calloc((size_t)c->n_categories, sizeof *c->categories);
        for (int k = 0; rc == 0 && k < c->n_categories; k++) {
            const cJSON *o = cJSON_GetArrayItem(cats, k);
            struct score_category *cat = &c->categories[k];
            static const char *const keys[] = {"key", "title", "band_pct"};
            snprintf(sub, sizeof sub, "categories[%d]", k);
            if (!cJSON_IsObject(o)) {
                rc = sim_errf(err, -EINVAL, "%s: %s: expected an object", file, sub);
                break;
            }
            if ((rc = jsonu_check_keys(o, keys, 3, file, sub, err)) < 0 ||
                (rc = jsonu_get_string(o, "key", cat->key, sizeof cat->key, true, file, sub, err)) < 0 ||
                (rc = jsonu_get_string(o, "title", cat->title, sizeof cat->title, true, file, sub, err)) < 0)
                break;
            const cJSON *band = cJSON_GetObjectItemCaseSensitive(o, "band_pct");
            if (!cJSON_IsArray(band) || cJSON_GetArraySize(band) != 2 ||
                !cJSON_IsNumber(cJSON_GetArrayItem(band, 0)) || !cJSON_IsNumber(cJSON_GetArrayItem(band, 1)) ||
                cJSON_GetArrayItem(band, 0)->valuedouble > cJSON_GetArrayItem(band, 1)->valuedouble) {
                rc = sim_errf(err, -EINVAL, "%s: %s.band_pct: required, [low, high] in %% with low <= high", file,
                              sub);
                break;
            }
            cat->band_lo_pct = cJSON_GetArrayItem(band, 0)->valuedouble;
            cat->band_hi_pct = cJSON_GetArrayItem(band, 1)->valuedouble;
            if (category_index(c, cat->key) < k)
                rc = sim_errf(err, -EINVAL, "%s: %s.key: '%s' twice", file, sub, cat->key);
        }
    }
    if (rc == 0) {
        c->n_cases = cJSON_GetArraySize(cases);
        c->cases = calloc((size_t)(c->n_cases ? c->n_cases : 1), sizeof *c->cases);
        for (int i = 0; rc == 0 && i < c->n_cases; i++)
            rc = load_case(c, cJSON_GetArrayItem(cases, i), file, i, err);
    }
    if (rc == 0 && unex) {
        c->n_unexpressed = cJSON_GetArraySize(unex);
        c->unexpressed = calloc((size_t)(c->n_unexpressed ? c->n_unexpressed : 1), sizeof *c->unexpressed);
        for (int i = 0; rc == 0 && i < c->n_unexpressed; i++) {
            const cJSON *o = cJSON_GetArrayItem(unex, i);
            struct score_unexpressed *u = &c->unexpressed[i];
            static const char *const keys[] = {"id", "category", "reason"};
            snprintf(sub, sizeof sub, "not_expressible[%d]", i);
            if (!cJSON_IsObject(o))
                rc = sim_errf(err, -EINVAL, "%s: %s: expected an object", file, sub);
            else if ((rc = jsonu_check_keys(o, keys, 3, file, sub, err)) == 0 &&
                     (rc = jsonu_get_string(o, "id", u->id, sizeof u->id, true, file, sub, err)) == 0 &&
                     (rc = jsonu_get_string(o, "category", u->category, sizeof u->category, false, file, sub,
                                            err)) == 0)
                rc = jsonu_get_string(o, "reason", u->reason, sizeof u->reason, true, file, sub, err);
        }
    }
    cJSON_Delete(root);
    if (rc < 0)
        score_free(c);
    return rc;
}

static int run_metric(const struct score_run_spec *rs, enum score_metric m, const char *const *extra, int n_extra,
                      struct ci *out, double *bg_behind, struct sim_err *err)
{
    const char *sets[SCORE_MAX_SETS + 64];
    int n = 0;
    for (int i = 0; i < rs->n_sets; i++)
        sets[n++] = rs->sets[i];
    for (int i = 0; i < n_extra && n < (int)(sizeof sets / sizeof *sets); i++)
        sets[n++] = extra[i];
    struct scenario sc;
    int rc = scenario_load(&sc, rs->scenario, NULL, NULL, sets, n, err);
    if (rc < 0)
        return rc;
    struct run_summary sum;
    rc = runner_run(&sc, NULL, false, &sum, err);
    scenario_free(&sc);
    if (rc < 0)
        return rc;
    /* iops: every I/O of the jobs, reads and writes together (fio's groups added) */
    *out = m == SCORE_IOPS ? sum.iops : sum.lat_mean_us;
    *bg_behind = fmax(*bg_behind, sum.rocksdb_bg_behind);
    return 0;
}

void score_judge(const struct score_corpus *c, int i, double predicted, double half, struct score_result *r)
{
    const struct score_case *k = &c->cases[i];
    const struct score_category *cat = &c->categories[k->category];
    r->done = true;
    r->predicted = predicted;
    r->half = half;
    r->error = (predicted - k->published) / k->published;
    r->in_band = r->error * 100 >= cat->band_lo_pct && r->error * 100 <= cat->band_hi_pct;
}

int score_run_case(const struct score_corpus *c, int i, const char *const *extra_sets, int n_extra,
                   struct score_result *r, struct sim_err *err)
{
    const struct score_case *k = &c->cases[i];
    double t0 = now_s();
    struct ci a, b;
    double bg_behind = -1;
    int rc = run_metric(&k->run, k->metric, extra_sets, n_extra, &a, &bg_behind, err);
    if (rc == 0 && k->ratio)
        rc = run_metric(&k->baseline, k->metric, extra_sets, n_extra, &b, &bg_behind, err);
    if (rc < 0)
        return rc;
    double pred = a.mean, half = a.half;
    if (k->ratio) {
        if (b.mean <= 0)
            return sim_errf(err, -EDOM, "the baseline's %s is 0 (nothing completed in the measured time): no ratio",
                            metric_names[k->metric]);
        pred = a.mean / b.mean;
        /* first-order propagation of the two independent relative half-widths */
        double ra = a.mean > 0 ? a.half / a.mean : 0, rb = b.half / b.mean;
        half = pred * sqrt(ra * ra + rb * rb);
    }
    score_judge(c, i, pred, half, r);
    r->wall_s = now_s() - t0;
    r->bg_behind = bg_behind;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void score_summarise(const struct score_corpus *c, const struct score_result *res, int k,
                     struct score_summary *out)
{
    memset(out, 0, sizeof *out);
    double *abs_err = calloc((size_t)(c->n_cases ? c->n_cases : 1), sizeof *abs_err);
    for (int i = 0; i < c->n_cases; i++) {
        if (c->cases[i].category != k || !res[i].done)
            continue;
        double e = res[i].error;
        if (out->n == 0 || e < out->min_err)
            out->min_err = e;
        if (out->n == 0 || e > out->max_err)
            out->max_err = e;
        abs_err[out->n++] = fabs(e);
        if (!res[i].in_band)
            out->out_of_band++;
    }
    if (out->n > 0) {
        qsort(abs_err, (size_t)out->n, sizeof *abs_err, cmp_double);
        out->median_abs_err = out->n % 2 ? abs_err[out->n / 2]
                                         : (abs_err[out->n / 2 - 1] + abs_err[out->n / 2]) / 2;
        out->max_abs_err = abs_err[out->n - 1];
    }
    free(abs_err);
}

static void print_value(FILE *f, const struct score_case *k, double v, double half, bool with_ci)
{
    char buf[64];
    if (k->ratio)
        snprintf(buf, sizeof buf, with_ci ? "%.3f ± %.3f" : "%.3f", v, half);
    else if (k->metric == SCORE_LAT_MEAN)
        snprintf(buf, sizeof buf, with_ci ? "%.0f ± %.0f us" : "%.0f us", v, half);
    else
        snprintf(buf, sizeof buf, with_ci ? "%.0f ± %.0f" : "%.0f", v, half);
    fprintf(f, " %20s", buf);
}

void score_print(FILE *f, const struct score_corpus *c, const struct score_result *res)
{
    fprintf(f, "%-34s %-11s %-11s %20s %20s %8s\n", "case", "category", "metric", "published",
            "predicted (95% CI)", "error");
    for (int i = 0; i < c->n_cases; i++) {
        const struct score_case *k = &c->cases[i];
        if (!res[i].done)
            continue;
        fprintf(f, "%-34s %-11s %-11s", k->id, c->categories[k->category].key,
                k->ratio ? "ratio" : metric_names[k->metric]);
        print_value(f, k, k->published, 0, false);
        print_value(f, k, res[i].predicted, res[i].half, true);
        fprintf(f, " %+7.1f%%%s\n", res[i].error * 100, res[i].in_band ? "" : "  OUT OF BAND");
    }
    fprintf(f, "\n%-22s %3s %14s %14s %18s %16s\n", "category", "n", "median |error|", "max |error|",
            "band (signed, %)", "out of band");
    for (int k = 0; k < c->n_categories; k++) {
        struct score_summary s;
        score_summarise(c, res, k, &s);
        if (s.n == 0)
            continue;
        char band[40];
        snprintf(band, sizeof band, "[%+.0f, %+.0f]", c->categories[k].band_lo_pct, c->categories[k].band_hi_pct);
        fprintf(f, "%-22s %3d %13.1f%% %13.1f%% %18s %16d\n", c->categories[k].title, s.n, s.median_abs_err * 100,
                s.max_abs_err * 100, band, s.out_of_band);
    }
    /* the model's own caveat (runner_print_summary's note), gathered */
    int n_behind = 0;
    for (int i = 0; i < c->n_cases; i++)
        if (res[i].done && res[i].bg_behind >= RUNNER_BG_BEHIND_NOTE) {
            if (!n_behind++)
                fprintf(f, "\nRocksDB's background work fell behind (share of its charge still queued at the end; "
                           "the model's writes there are an upper bound: docs/fidelity.md):\n");
            fprintf(f, "  %-52s %3.0f%%\n", c->cases[i].id, 100 * res[i].bg_behind);
        }
    if (c->n_unexpressed > 0) {
        fprintf(f, "\nnot expressible yet (%d):\n", c->n_unexpressed);
        for (int i = 0; i < c->n_unexpressed; i++)
            fprintf(f, "  %-40s %s\n", c->unexpressed[i].id, c->unexpressed[i].reason);
    }
}

static cJSON *results_json(const struct score_corpus *c, const struct score_result *res)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(j, "cases");
    for (int i = 0; i < c->n_cases; i++) {
        if (!res[i].done)
            continue;
        const struct score_case *k = &c->cases[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", k->id);
        cJSON_AddStringToObject(o, "category", c->categories[k->category].key);
        cJSON_AddStringToObject(o, "metric", k->ratio ? "ratio" : metric_names[k->metric]);
        cJSON_AddNumberToObject(o, "published", k->published);
        cJSON_AddNumberToObject(o, "predicted", res[i].predicted);
        cJSON_AddNumberToObject(o, "ci95_half", res[i].half);
        cJSON_AddNumberToObject(o, "error", res[i].error);
        cJSON_AddBoolToObject(o, "in_band", res[i].in_band);
        if (res[i].bg_behind >= 0)
            cJSON_AddNumberToObject(o, "rocksdb_bg_behind", res[i].bg_behind);
        cJSON_AddItemToArray(arr, o);
    }
    cJSON *cats = cJSON_AddArrayToObject(j, "categories");
    for (int k = 0; k < c->n_categories; k++) {
        struct score_summary s;
        score_summarise(c, res, k, &s);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "key", c->categories[k].key);
        cJSON_AddNumberToObject(o, "n", s.n);
        cJSON_AddNumberToObject(o, "median_abs_error", s.median_abs_err);
        cJSON_AddNumberToObject(o, "max_abs_error", s.max_abs_err);
        cJSON_AddNumberToObject(o, "out_of_band", s.out_of_band);
        cJSON_AddItemToArray(cats, o);
    }
    return j;
}

static void score_usage(FILE *f)
{
    fprintf(f, "usage: cephsim score [DIR] [--check] [--all] [--only ID,...] [--set PATH=VALUE]... [--json FILE] [-q]\n"
               "  runs every case of DIR/corpus.json (default validation/published) and prints case,\n"
               "  published, predicted (95%% CI) and error, then per category n, median and max |error|;\n"
               "  --check: exit 1 when a case leaves its category's band; --all: the slow cases too\n");
}

int cmd_score(int argc, char **argv)
{
    static const struct option opts[] = {{"check", no_argument, NULL, 'c'},    {"only", required_argument, NULL, 'O'},
                                         {"set", required_argument, NULL, 'S'}, {"json", required_argument, NULL, 'J'},
                                         {"quiet", no_argument, NULL, 'q'},     {"help", no_argument, NULL, 'h'},
                                         {"all", no_argument, NULL, 'a'},
                                         {0}};
    bool check = false, quiet = false, all = false;
    const char *only = NULL, *json_out = NULL;
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    int n_sets = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (ch) {
        case 'c': check = true; break;
        case 'O': only = optarg; break;
        case 'S': sets[n_sets++] = optarg; break;
        case 'J': json_out = optarg; break;
        case 'q': quiet = true; break;
        case 'a': all = true; break;
        case 'h': score_usage(stdout); free(sets); return 0;
        default: score_usage(stderr); free(sets); return 2;
        }
    }
    if (optind + 1 < argc) {
        score_usage(stderr);
        free(sets);
        return 2;
    }
    /* the default corpus: the working directory's tree, else the tree the
       binary was built in (out/bin/cephsim -> ../../validation/published) */
    char near_exe[PATH_MAX];
    const char *dir = optind < argc ? argv[optind] : "validation/published";
    if (optind == argc && access("validation/published/corpus.json", R_OK) != 0 &&
        files_exe_dir(near_exe, sizeof near_exe - 32) == 0) {
        strcat(near_exe, "/../../validation/published");
        dir = near_exe;
    }
    struct score_corpus c;
    struct sim_err err = {0};
    if (score_load(&c, dir, &err) < 0) {
        fprintf(stderr, "cephsim score: %s\n", err.msg);
        free(sets);
        return 1;
    }
    bool *selected = calloc((size_t)(c.n_cases ? c.n_cases : 1), sizeof *selected);
    for (int i = 0; i < c.n_cases; i++)
        selected[i] = only == NULL && (all || !c.cases[i].slow);
    if (only) {
        char *list = strdup(only), *save = NULL;
        for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int i = score_find(&c, t);
            if (i < 0) {
                fprintf(stderr, "cephsim score: --only: no case '%s' in %s/corpus.json\n", t, dir);
                free(list);
                free(selected);
                free(sets);
                score_free(&c);
                return 1;
            }
            selected[i] = true;
        }
        free(list);
    }
    struct score_result *res = calloc((size_t)(c.n_cases ? c.n_cases : 1), sizeof *res);
    int rc = 0;
    for (int i = 0; i < c.n_cases && rc == 0; i++) {
        if (!selected[i])
            continue;
        if (!quiet)
            fprintf(stderr, "score: %s ...\n", c.cases[i].id);
        if (score_run_case(&c, i, sets, n_sets, &res[i], &err) < 0) {
            fprintf(stderr, "cephsim score: case %s: %s\n", c.cases[i].id, err.msg);
            rc = 1;
        }
    }
    if (rc == 0) {
        score_print(stdout, &c, res);
        if (json_out) {
            cJSON *j = results_json(&c, res);
            if (jsonu_write_file(json_out, j, &err) < 0) {
                fprintf(stderr, "cephsim score: %s\n", err.msg);
                rc = 1;
            }
            cJSON_Delete(j);
        }
        int out = 0;
        for (int i = 0; i < c.n_cases; i++)
            out += res[i].done && !res[i].in_band;
        if (check && out > 0) {
            fprintf(stderr, "cephsim score: %d case(s) outside their category's band\n", out);
            rc = 1;
        }
    }
    free(res);
    free(selected);
    free(sets);
    score_free(&c);
    return rc;
}
