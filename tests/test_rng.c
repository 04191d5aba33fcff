/*
 * test_rng.c - random streams (sim_rng, sim_rng_seed in sim/sim.c) and the
 * distributions drawn from them (sim/dist.c): reproducibility, independence
 * of a stream from the order others are created in, the abort on a repeated
 * identity, sample moments against dist_mean inside the 95 % CI over
 * independent replications, empirical quantiles, and distjson_parse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dist.h"
#include "distjson.h"
#include "sim.h"
#include "stats.h"

/* ---- streams ---- */

static void test_rng_same_seed_and_identity_reproduce(void **state)
{
    struct sim *a = sim_create(42), *b = sim_create(42);
    gsl_rng *ra = sim_rng(a, "osd", 3, "service");
    (void)sim_rng(b, "osd", 2, "service"); /* unrelated stream first */
    gsl_rng *rb = sim_rng(b, "osd", 3, "service");
    for (int i = 0; i < 1000; i++)
        assert_int_equal(gsl_rng_get(ra), gsl_rng_get(rb));
    sim_destroy(a);
    sim_destroy(b);
}

/* First 8 outputs of a fresh stream, folded into one value. */
static uint64_t stream_fingerprint(uint64_t seed, const char *entity, uint32_t index,
                                   const char *purpose)
{
    struct sim *s = sim_create(seed);
    gsl_rng *r = sim_rng(s, entity, index, purpose);
    uint64_t h = 0;
    for (int i = 0; i < 8; i++)
        h = sim_fmix64(h ^ gsl_rng_get(r));
    sim_destroy(s);
    return h;
}

static void test_rng_other_identity_or_seed_changes_sequence(void **state)
{
    uint64_t base = stream_fingerprint(42, "osd", 3, "service");
    assert_int_equal(base, stream_fingerprint(42, "osd", 3, "service"));
    assert_int_not_equal(base, stream_fingerprint(43, "osd", 3, "service"));
    assert_int_not_equal(base, stream_fingerprint(42, "osd", 4, "service"));
    assert_int_not_equal(base, stream_fingerprint(42, "osd", 3, "servicf"));
    assert_int_not_equal(base, stream_fingerprint(42, "osc", 3, "service"));
    /* the fields are hashed separately: swapping entity and purpose differs */
    assert_int_not_equal(stream_fingerprint(42, "a", 0, "b"), stream_fingerprint(42, "b", 0, "a"));
}

/*
 * One stream's draws do not depend on which other streams exist or the order
 * they were created in (several hundred others also force the stream table to
 * grow and rehash in between).
 */
static void test_rng_stream_independent_of_creation_order(void **state)
{
    struct sim *a = sim_create(9), *b = sim_create(9);
    gsl_rng *ra = sim_rng(a, "client", 7, "think");
    for (uint32_t i = 0; i < 300; i++)
        (void)sim_rng(a, "osd", i, "service");
    for (uint32_t i = 0; i < 500; i++)
        (void)sim_rng(b, "nic", i, "jitter");
    gsl_rng *rb = sim_rng(b, "client", 7, "think");
    for (uint32_t i = 300; i > 0; i--)
        (void)sim_rng(b, "osd", i - 1, "service");
    /* interleaved draws from other streams do not matter either */
    gsl_rng *other = sim_rng(a, "client", 8, "think");
    for (int i = 0; i < 1000; i++) {
        (void)gsl_rng_get(other);
        assert_int_equal(gsl_rng_get(ra), gsl_rng_get(rb));
    }
    sim_destroy(a);
    sim_destroy(b);
}

/* Run fn in a child with stderr silenced; return the wait status. */
static int run_in_child(void (*fn)(const void *), const void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, STDERR_FILENO);
        fn(arg);
        _exit(0);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return st;
}

static void child_same_identity_twice(const void *arg)
{
    struct sim *s = sim_create(1);
    (void)sim_rng(s, "osd", 0, "service");
    (void)sim_rng(s, "osd", 1, "service");
    (void)sim_rng(s, "osd", 0, "service");
}

static void test_rng_same_identity_twice_aborts(void **state)
{
    int st = run_in_child(child_same_identity_twice, NULL);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGABRT);
}

struct seed_id {
    unsigned long seed;
    uint32_t index;
};

static int seed_id_cmp(const void *a, const void *b)
{
    const struct seed_id *x = a, *y = b;
    return x->seed < y->seed ? -1 : x->seed > y->seed;
}

/* Sort n identities' seeds; true if all distinct, else the first colliding pair. */
static bool seeds_distinct(struct seed_id *v, size_t n, uint32_t *i1, uint32_t *i2)
{
    qsort(v, n, sizeof *v, seed_id_cmp);
    for (size_t i = 1; i < n; i++)
        if (v[i].seed == v[i - 1].seed) {
            *i1 = v[i - 1].index;
            *i2 = v[i].index;
            return false;
        }
    return true;
}

/*
 * 10,000 identities shaped like a cluster's (5 entity kinds x 4 purposes x 500
 * indices) get distinct 32-bit seeds.  (A collision among 10^4 random 32-bit
 * values has probability ~1.2 %, so this is a property of this fixed set, which
 * a change of the hash would re-roll.)
 */
static void test_rng_seed_distinct_over_10k_identities(void **state)
{
    static const char *const ents[] = {"osd", "client", "host", "nic", "nvme"};
    static const char *const purps[] = {"service", "think", "route", "arrival"};
    enum { N = 5 * 4 * 500 };
    struct seed_id *v = sim_xcalloc(N, sizeof *v);
    uint32_t n = 0;
    for (int e = 0; e < 5; e++)
        for (int p = 0; p < 4; p++)
            for (uint32_t i = 0; i < 500; i++) {
                v[n].seed = sim_rng_seed(42, ents[e], i, purps[p]);
                assert_true(v[n].seed != 0 && v[n].seed <= 0xffffffffu);
                v[n].index = n;
                n++;
            }
    uint32_t i1, i2;
    assert_true(seeds_distinct(v, n, &i1, &i2));
    free(v);
}

struct collide {
    uint32_t i1, i2;
};

static void child_colliding_identities(const void *arg)
{
    const struct collide *c = arg;
    struct sim *s = sim_create(42);
    (void)sim_rng(s, "client", c->i1, "think");
    (void)sim_rng(s, "client", c->i2, "think");
}

/*
 * Two different identities that derive the same 32-bit seed must abort rather
 * than silently share a sequence.  The pair is found by a birthday search over
 * 200,000 identities (expected ~4.7 colliding pairs).
 */
static void test_rng_seed_collision_aborts(void **state)
{
    enum { N = 200000 };
    struct seed_id *v = sim_xcalloc(N, sizeof *v);
    for (uint32_t i = 0; i < N; i++)
        v[i] = (struct seed_id){sim_rng_seed(42, "client", i, "think"), i};
    struct collide c;
    bool distinct = seeds_distinct(v, N, &c.i1, &c.i2);
    free(v);
    if (distinct)
        skip();
    assert_int_equal(sim_rng_seed(42, "client", c.i1, "think"), sim_rng_seed(42, "client", c.i2, "think"));
    int st = run_in_child(child_colliding_identities, &c);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGABRT);
}

/* ---- distributions: moments ---- */

enum { REPS = 10, DRAWS = 4000 };

/*
 * Mean of DRAWS samples in each of REPS replications, each from its own
 * stream; returns stats_ci95 of the replication means.
 */
static struct ci sample_mean_ci(const struct dist *d, uint64_t seed, const char *name)
{
    double m[REPS];
    struct sim *s = sim_create(seed);
    for (int r = 0; r < REPS; r++) {
        gsl_rng *g = sim_rng(s, "dist", (uint32_t)r, name);
        double sum = 0;
        for (int i = 0; i < DRAWS; i++) {
            double x = dist_sample(d, g);
            assert_true(x >= 0);
            sum += x;
        }
        m[r] = sum / DRAWS;
    }
    sim_destroy(s);
    return stats_ci95(m, REPS);
}

static void assert_mean_in_ci(const struct dist *d, const char *name)
{
    struct ci c = sample_mean_ci(d, 2024, name);
    double mu = dist_mean(d);
    if (fabs(c.mean - mu) > c.half)
        fail_msg("%s: dist_mean %g outside sample CI %g +- %g", name, mu, c.mean, c.half);
    assert_true(c.half > 0);
}

static void test_dist_exp_mean_in_ci(void **state)
{
    struct dist d = dist_exp(80.0);
    assert_true(fabs(dist_mean(&d) - 80.0) < 1e-12);
    assert_mean_in_ci(&d, "exp");
}

/* N(1, 1) truncated at 0 loses 16 % of its mass: dist_mean must follow the truncation. */
static void test_dist_normal_truncated_mean_in_ci(void **state)
{
    struct dist d = dist_normal(1.0, 1.0);
    /* E[max(0,X)] = mu*Phi(mu/sd) + sd*phi(mu/sd) = 0.8413447 + 0.2419707 */
    assert_true(fabs(dist_mean(&d) - 1.0833155) < 1e-6);
    assert_mean_in_ci(&d, "normal");
    struct dist wide = dist_normal(100.0, 15.0);
    assert_mean_in_ci(&wide, "normal_wide");
}

static void test_dist_lognormal_mean_in_ci(void **state)
{
    struct dist d = dist_lognormal(50.0, 0.5);
    assert_true(fabs(dist_mean(&d) - 50.0) < 1e-12);
    assert_mean_in_ci(&d, "lognormal");
    struct dist heavy = dist_lognormal(50.0, 1.0);
    assert_mean_in_ci(&heavy, "lognormal_heavy");
}

static void test_dist_uniform_mean_in_ci(void **state)
{
    struct dist d = dist_uniform(10.0, 30.0);
    assert_true(fabs(dist_mean(&d) - 20.0) < 1e-12);
    assert_mean_in_ci(&d, "uniform");
}

static void test_dist_const_exact(void **state)
{
    struct dist d = dist_const(7.25);
    struct ci c = sample_mean_ci(&d, 1, "const");
    assert_true(c.mean == 7.25 && c.half == 0);
    assert_true(dist_mean(&d) == 7.25);
    assert_true(dist_quantile(&d, 0.99) == 7.25);
}

/* Points of a device latency table (percentile, us); integers keep arithmetic exact. */
static const double emp_pct[] = {10, 50, 90, 99, 99.9};
static const double emp_val[] = {30, 40, 60, 120, 400};

static void test_dist_empirical_mean_in_ci(void **state)
{
    struct dist d;
    struct sim_err err = {0};
    assert_int_equal(dist_empirical(&d, emp_pct, emp_val, 5, &err), 0);
    /* trapezoid over the piecewise-linear inverse CDF, extension points included:
       p=0 -> 30-(10/40)*10 = 27.5, p=1 -> 400+(280/0.9)*0.1 = 431.11... */
    double hi = 400 + (400 - 120) / (99.9 - 99) * 0.1;
    double want = 0.10 * (27.5 + 30) / 2 + 0.40 * (30 + 40) / 2 + 0.40 * (40 + 60) / 2 +
                  0.09 * (60 + 120) / 2 + 0.009 * (120 + 400) / 2 + 0.001 * (400 + hi) / 2;
    assert_true(fabs(dist_mean(&d) - want) < 1e-9);
    assert_mean_in_ci(&d, "empirical");
}

/*
 * The lognormal's coefficient of variation: sample CV per replication, its CI
 * must contain the configured cv.  Also the analytic median: exp(mu) =
 * mean / sqrt(1 + cv^2).
 */
static void test_dist_lognormal_cv_matches(void **state)
{
    const double cvs[] = {0.3, 1.0};
    for (int k = 0; k < 2; k++) {
        struct dist d = dist_lognormal(100.0, cvs[k]);
        assert_true(fabs(dist_quantile(&d, 0.5) - 100.0 / sqrt(1 + cvs[k] * cvs[k])) < 1e-9);
        double cv[REPS];
        struct sim *s = sim_create(77);
        for (int r = 0; r < REPS; r++) {
            gsl_rng *g = sim_rng(s, "dist", (uint32_t)r, "lognormal_cv");
            double sum = 0, sumsq = 0;
            for (int i = 0; i < DRAWS; i++) {
                double x = dist_sample(&d, g);
                sum += x;
                sumsq += x * x;
            }
            double m = sum / DRAWS;
            cv[r] = sqrt((sumsq - DRAWS * m * m) / (DRAWS - 1)) / m;
        }
        sim_destroy(s);
        struct ci c = stats_ci95(cv, REPS);
        if (fabs(c.mean - cvs[k]) > c.half)
            fail_msg("cv %g outside sample CI %g +- %g", cvs[k], c.mean, c.half);
    }
}

/* ---- distributions: empirical quantiles ---- */

static void test_dist_empirical_quantile_exact_at_points(void **state)
{
    struct dist d;
    struct sim_err err = {0};
    assert_int_equal(dist_empirical(&d, emp_pct, emp_val, 5, &err), 0);
    for (int i = 0; i < 5; i++)
        assert_true(dist_quantile(&d, emp_pct[i] / 100) == emp_val[i]);
    /* linear in between, extended to p = 0 and 1 by the end segments' slopes */
    assert_true(fabs(dist_quantile(&d, 0.70) - 50.0) < 1e-9);
    assert_true(fabs(dist_quantile(&d, 0.0) - 27.5) < 1e-9);
    assert_true(fabs(dist_quantile(&d, 1.0) - (400 + 280 / 0.9 * 0.1)) < 1e-9);
    /* the low extension is clamped at 0 */
    const double p2[] = {50, 60}, v2[] = {10, 100};
    assert_int_equal(dist_empirical(&d, p2, v2, 2, &err), 0);
    assert_true(dist_quantile(&d, 0.0) == 0);
    /* one point: a +-10 % band around it */
    const double p1[] = {50}, v1[] = {200};
    assert_int_equal(dist_empirical(&d, p1, v1, 1, &err), 0);
    assert_true(fabs(dist_quantile(&d, 0.0) - 180) < 1e-9);
    assert_true(dist_quantile(&d, 0.5) == 200);
    assert_true(fabs(dist_quantile(&d, 1.0) - 220) < 1e-9);
}

/*
 * Sampling hits the percentile points: the fraction of n draws <= v_i is
 * Binomial(n, p_i)/n, so it must lie within 4 standard deviations
 * sqrt(p(1-p)/n) of p_i (two-sided false-alarm rate 6e-5 per point).
 */
static void test_dist_empirical_sample_quantiles_hit_points(void **state)
{
    enum { N = 40000 };
    struct dist d;
    struct sim_err err = {0};
    assert_int_equal(dist_empirical(&d, emp_pct, emp_val, 5, &err), 0);
    struct sim *s = sim_create(5);
    gsl_rng *g = sim_rng(s, "dist", 0, "empirical_q");
    int below[5] = {0};
    for (int i = 0; i < N; i++) {
        double x = dist_sample(&d, g);
        for (int k = 0; k < 5; k++)
            below[k] += x <= emp_val[k];
    }
    sim_destroy(s);
    for (int k = 0; k < 5; k++) {
        double p = emp_pct[k] / 100, f = (double)below[k] / N;
        double tol = 4 * sqrt(p * (1 - p) / N);
        if (fabs(f - p) > tol)
            fail_msg("point %d: fraction %g below %g, want %g +- %g", k, f, emp_val[k], p, tol);
    }
}

/* ---- distjson_parse ---- */

/* Parse text, run distjson_parse at path "ssd.lat" of file "hw.json". */
static int parse_dist(const char *text, struct dist *d, struct sim_err *err)
{
    cJSON *j = cJSON_Parse(text);
    if (!j)
        fail_msg("test JSON does not parse: %s", text);
    memset(err, 0, sizeof *err);
    int rc = distjson_parse(d, j, "hw.json", "ssd.lat", err);
    cJSON_Delete(j);
    return rc;
}

static void parse_ok(const char *text, struct dist *d)
{
    struct sim_err err;
    int rc = parse_dist(text, d, &err);
    if (rc)
        fail_msg("%s: unexpected error %d: %s", text, rc, err.msg);
}

/* Expect rc < 0 and a message starting with want_prefix and containing want. */
static void parse_bad(const char *text, const char *want_prefix, const char *want)
{
    struct dist d;
    struct sim_err err;
    int rc = parse_dist(text, &d, &err);
    if (rc >= 0)
        fail_msg("%s: accepted", text);
    assert_int_equal(err.code, rc);
    if (strncmp(err.msg, want_prefix, strlen(want_prefix)) || !strstr(err.msg, want))
        fail_msg("%s: message '%s' lacks '%s' ... '%s'", text, err.msg, want_prefix, want);
    assert_null(strchr(err.msg, '\n'));
}

static void test_dist_json_parses_each_form(void **state)
{
    struct dist d;
    parse_ok("12.5", &d);
    assert_true(d.kind == DIST_CONST && d.a == 12.5);
    parse_ok("{\"dist\": \"const\", \"value\": 5}", &d);
    assert_true(d.kind == DIST_CONST && d.a == 5);
    parse_ok("{\"dist\": \"exp\", \"mean\": 40}", &d);
    assert_true(d.kind == DIST_EXP && d.a == 40);
    parse_ok("{\"dist\": \"normal\", \"mean\": 40, \"sd\": 4}", &d);
    assert_true(d.kind == DIST_NORMAL && d.a == 40 && d.b == 4);
    parse_ok("{\"dist\": \"lognormal\", \"mean\": 50, \"cv\": 0.3}", &d);
    struct dist ref = dist_lognormal(50, 0.3);
    assert_true(d.kind == DIST_LOGNORMAL && d.a == 50 && d.b == 0.3);
    assert_true(d.mu == ref.mu && d.sigma == ref.sigma);
    parse_ok("{\"dist\": \"uniform\", \"min\": 1, \"max\": 3}", &d);
    assert_true(d.kind == DIST_UNIFORM && d.a == 1 && d.b == 3);
    parse_ok("{\"dist\": \"empirical\", \"pct\": [[50, 40], [99, 90], [99.9, 200]]}", &d);
    assert_true(d.kind == DIST_EMPIRICAL);
    assert_int_equal(d.n, 5);
    assert_true(dist_quantile(&d, 0.5) == 40 && dist_quantile(&d, 0.99) == 90);
    assert_true(dist_quantile(&d, 99.9 / 100) == 200); /* the point as stored: 99.9/100 != 0.999 */
    assert_true(fabs(dist_quantile(&d, 0.999) - 200) < 1e-9);
}

static void test_dist_json_unknown_kind_did_you_mean(void **state)
{
    parse_bad("{\"dist\": \"lognormall\", \"mean\": 5}", "hw.json: ssd.lat.dist: ",
              "unknown distribution 'lognormall' (did you mean 'lognormal'?)");
    parse_bad("{\"dist\": \"expo\", \"mean\": 5}", "hw.json: ssd.lat.dist: ", "(did you mean 'exp'?)");
    /* nothing close: no suggestion */
    struct dist d;
    struct sim_err err;
    assert_true(parse_dist("{\"dist\": \"weibull\", \"mean\": 5}", &d, &err) < 0);
    assert_non_null(strstr(err.msg, "unknown distribution 'weibull'"));
    assert_null(strstr(err.msg, "did you mean"));
    parse_bad("{\"mean\": 5}", "hw.json: ssd.lat.dist: ", "missing required key");
}

/*
 * A distribution at the top of a file (empty path) is named like every other
 * jsonu message: "file: dist: ...", the path joined by jsonu_path.
 */
static void test_dist_json_unknown_kind_at_top_level_path(void **state)
{
    cJSON *j = cJSON_Parse("{\"dist\": \"lognormall\"}");
    struct dist d;
    struct sim_err err = {0};
    assert_true(distjson_parse(&d, j, "lat.json", "", &err) < 0);
    cJSON_Delete(j);
    if (strncmp(err.msg, "lat.json: dist: unknown distribution", 36))
        fail_msg("message '%s' does not name the path 'dist'", err.msg);
}

static void test_dist_json_rejects_negative_values(void **state)
{
    parse_bad("-3", "hw.json: ssd.lat: ", "must be >= 0");
    parse_bad("{\"dist\": \"exp\", \"mean\": -5}", "hw.json: ssd.lat.mean: ", "out of range");
    parse_bad("{\"dist\": \"const\", \"value\": -1}", "hw.json: ssd.lat.value: ", "out of range");
    parse_bad("{\"dist\": \"normal\", \"mean\": 5, \"sd\": -1}", "hw.json: ssd.lat.sd: ", "out of range");
    parse_bad("{\"dist\": \"lognormal\", \"mean\": 5, \"cv\": -0.1}", "hw.json: ssd.lat.cv: ", "out of range");
    parse_bad("{\"dist\": \"uniform\", \"min\": -2, \"max\": 3}", "hw.json: ssd.lat.min: ", "out of range");
    parse_bad("{\"dist\": \"uniform\", \"min\": 5, \"max\": 3}", "hw.json: ssd.lat.max: ", "out of range");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, -40]]}", "hw.json: ssd.lat.pct: ", "value >= 0");
}

static void test_dist_json_rejects_unknown_key_and_type(void **state)
{
    parse_bad("{\"dist\": \"exp\", \"mean\": 5, \"meen\": 6}", "hw.json: ssd.lat.meen: ",
              "unknown key (did you mean 'mean'?)");
    parse_bad("{\"dist\": \"lognormal\", \"mean\": 5, \"sd\": 1}", "hw.json: ssd.lat.sd: ", "unknown key");
    parse_bad("{\"dist\": \"exp\", \"mean\": \"5\"}", "hw.json: ssd.lat.mean: ", "expected a number");
    parse_bad("{\"dist\": 3}", "hw.json: ssd.lat.dist: ", "expected a string");
}

static void test_dist_json_rejects_bad_pct_tables(void **state)
{
    const char *pre = "hw.json: ssd.lat.pct";
    parse_bad("{\"dist\": \"empirical\", \"pct\": {\"50\": 40}}", pre, "expected an array");
    char needs[32];
    snprintf(needs, sizeof needs, "needs 1..%d points", DIST_EMPIRICAL_MAX - 2);
    parse_bad("{\"dist\": \"empirical\", \"pct\": []}", pre, needs);
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, 40], [40, 50]]}", pre, "must increase");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, 40], [50, 50]]}", pre, "must increase");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, 40], [90, 30]]}", pre, "must increase");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, 40], [100, 90]]}", pre, "percentile must be in (0,100)");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[0, 10], [50, 90]]}", pre, "percentile must be in (0,100)");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, 40], [90]]}", "hw.json: ssd.lat.pct[1]: ",
              "expected [percentile, value]");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, 40], [90, \"x\"]]}", "hw.json: ssd.lat.pct[1]: ",
              "expected [percentile, value]");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [50, 40]}", "hw.json: ssd.lat.pct[0]: ",
              "expected [percentile, value]");
}

/*
 * One point more than DIST_EMPIRICAL_MAX - 2 is one too many: the message
 * must say so, not claim the last pair is malformed.
 */
static void test_dist_json_too_many_pct_points_says_so(void **state)
{
    const int max = DIST_EMPIRICAL_MAX - 2;
    char text[4096], limit[32];
    int n = snprintf(text, sizeof text, "{\"dist\": \"empirical\", \"pct\": [");
    for (int i = 0; i < max + 1; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s[%d, %d]", i ? ", " : "", 1 + 3 * i, 10 + i);
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    struct dist d;
    struct sim_err err;
    assert_true(parse_dist(text, &d, &err) < 0);
    assert_true(strncmp(err.msg, "hw.json: ssd.lat.pct", 20) == 0);
    snprintf(limit, sizeof limit, "%d points", max);
    if (!strstr(err.msg, limit) || strstr(err.msg, "expected [percentile, value]"))
        fail_msg("message '%s' does not state the limit of %d points", err.msg, max);
    /* max points are fine */
    n = snprintf(text, sizeof text, "{\"dist\": \"empirical\", \"pct\": [");
    for (int i = 0; i < max; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s[%d, %d]", i ? ", " : "", 1 + 3 * i, 10 + i);
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    parse_ok(text, &d);
    assert_int_equal(d.n, max + 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng_same_seed_and_identity_reproduce),
        cmocka_unit_test(test_rng_other_identity_or_seed_changes_sequence),
        cmocka_unit_test(test_rng_stream_independent_of_creation_order),
        cmocka_unit_test(test_rng_same_identity_twice_aborts),
        cmocka_unit_test(test_rng_seed_distinct_over_10k_identities),
        cmocka_unit_test(test_rng_seed_collision_aborts),
        cmocka_unit_test(test_dist_exp_mean_in_ci),
        cmocka_unit_test(test_dist_normal_truncated_mean_in_ci),
        cmocka_unit_test(test_dist_lognormal_mean_in_ci),
        cmocka_unit_test(test_dist_uniform_mean_in_ci),
        cmocka_unit_test(test_dist_const_exact),
        cmocka_unit_test(test_dist_empirical_mean_in_ci),
        cmocka_unit_test(test_dist_lognormal_cv_matches),
        cmocka_unit_test(test_dist_empirical_quantile_exact_at_points),
        cmocka_unit_test(test_dist_empirical_sample_quantiles_hit_points),
        cmocka_unit_test(test_dist_json_parses_each_form),
        cmocka_unit_test(test_dist_json_unknown_kind_did_you_mean),
        cmocka_unit_test(test_dist_json_unknown_kind_at_top_level_path),
        cmocka_unit_test(test_dist_json_rejects_negative_values),
        cmocka_unit_test(test_dist_json_rejects_unknown_key_and_type),
        cmocka_unit_test(test_dist_json_rejects_bad_pct_tables),
        cmocka_unit_test(test_dist_json_too_many_pct_points_says_so),
    };
    return cmocka_run_group_tests_name("rng", tests, NULL, NULL);
}
