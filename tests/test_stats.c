/*
 * test_stats.c - the statistics layer (sim/stats.c): fio's plat bucket mapping
 * against an independent reference, percentiles against exact order
 * statistics, exact min/max/mean/stddev, merge, the time-weighted average and
 * the replication confidence interval.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "err.h"
#include "stats.h"

/*
 * Reference bucket mapping, written from the scheme (6 bits of precision, 29
 * groups of 64): values below 128 are their own bucket; above, a value with
 * its top bit at position m keeps its 7 leading bits, so group g = m - 5 holds
 * [2^m, 2^(m+1)) in 64 buckets of width 2^(m-6); bucket = 64 g + (the 6 bits
 * after the top bit); everything past the last bucket lands in it.  The value
 * of a bucket is its midpoint.
 */
static unsigned ref_val_to_idx(uint64_t v)
{
    if (v < 128)
        return (unsigned)v;
    unsigned m = 0;
    for (uint64_t x = v; x > 1; x >>= 1)
        m++;
    unsigned width_bits = m - 6;
    uint64_t group = m - 5;
    uint64_t lead = v >> width_bits; /* 64..127 */
    uint64_t idx = 64 * group + (lead - 64);
    return idx > 1855 ? 1855 : (unsigned)idx;
}

static uint64_t ref_idx_to_val(unsigned idx)
{
    if (idx < 128)
        return idx;
    unsigned group = idx / 64, k = idx % 64;
    unsigned width_bits = group - 1;
    uint64_t lo = (64ull + k) << width_bits;
    return lo + (1ull << width_bits) / 2;
}

static void check_val(uint64_t v)
{
    unsigned got = hist_val_to_idx(v), want = ref_val_to_idx(v);
    if (got != want)
        fail_msg("hist_val_to_idx(%llu) = %u, want %u", (unsigned long long)v, got, want);
}

static void test_hist_val_to_idx_matches_reference(void **state)
{
    for (uint64_t v = 0; v <= 200; v++)
        check_val(v);
    for (int b = 1; b < 64; b++) {
        uint64_t p = 1ull << b;
        check_val(p - 1);
        check_val(p);
        check_val(p + 1);
        check_val(p + p / 2);
    }
    check_val(UINT64_MAX);
    /* around the top of the range: 2^34 and beyond all land in bucket 1855 */
    for (uint64_t v = (1ull << 34) - 5000; v < (1ull << 34) + 5000; v++)
        check_val(v);
    assert_int_equal(hist_val_to_idx(1ull << 34), HIST_PLAT_NR - 1);
    assert_int_equal(hist_val_to_idx(1ull << 40), HIST_PLAT_NR - 1);
    /* and a dense sweep over typical latencies (ns) */
    for (uint64_t v = 201; v < 2000000; v += 7)
        check_val(v);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        check_val(x >> (x & 63));
    }
}

static void test_hist_idx_to_val_matches_reference(void **state)
{
    assert_int_equal(HIST_PLAT_NR, 1856);
    for (unsigned i = 0; i < HIST_PLAT_NR; i++) {
        uint64_t got = hist_idx_to_val(i), want = ref_idx_to_val(i);
        if (got != want)
            fail_msg("hist_idx_to_val(%u) = %llu, want %llu", i, (unsigned long long)got,
                     (unsigned long long)want);
        /* a bucket's value maps back to the bucket */
        assert_int_equal(hist_val_to_idx(got), i);
    }
    /* spot values by hand: bucket 128 = [128,130) -> 129; 1855 = [2^33 + 63*2^27, 2^34) */
    assert_int_equal(hist_idx_to_val(127), 127);
    assert_int_equal(hist_idx_to_val(128), 129);
    assert_int_equal(hist_idx_to_val(192), 258);
    assert_int_equal(hist_idx_to_val(1855), (1ull << 33) + 63 * (1ull << 27) + (1ull << 26));
}

/* Below 2^34 a value's bucket midpoint is within 1/128 of it, and buckets are monotone. */
static void test_hist_bucket_relative_error_bound(void **state)
{
    unsigned prev = 0;
    for (uint64_t v = 1; v < (1ull << 34); v += 1 + v / 97) {
        unsigned i = hist_val_to_idx(v);
        assert_true(i >= prev);
        prev = i;
        double mid = (double)hist_idx_to_val(i);
        assert_true(fabs(mid - (double)v) <= (double)v / 128);
    }
}

/*
 * Histograms and sample buffers are large; a fixture allocates them so that a
 * failed assertion (which longjmps out of the test) leaks nothing: cmocka runs
 * the teardown either way.
 */
enum { MAX_SAMPLES = 200000 };

struct fixture {
    struct hist h, all, part[3], merged, empty;
    uint64_t x[MAX_SAMPLES];
};

static int fixture_setup(void **state)
{
    *state = sim_xcalloc(1, sizeof(struct fixture));
    return 0;
}

static int fixture_teardown(void **state)
{
    free(*state);
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * Percentiles of lognormal samples (median 20 us; sigma 0.1, 1 and 2.5) against
 * the exact order statistic taken fio's way: the first sorted value whose rank
 * (1-based) reaches p/100 * N.  The histogram reports that value's bucket
 * midpoint: equal to the reference's bucket midpoint and within 1 % of it.
 */
static void test_hist_percentiles_match_exact_order_statistics(void **state)
{
    enum { N = 20011 };
    struct fixture *f = *state;
    struct hist *h = &f->h;
    uint64_t *x = f->x;
    const double sigmas[] = {0.1, 1.0, 2.5};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(r, 31337);
    for (int k = 0; k < 3; k++) {
        hist_reset(h);
        for (int i = 0; i < N; i++) {
            x[i] = (uint64_t)llround(gsl_ran_lognormal(r, log(20000.0), sigmas[k]));
            hist_add(h, x[i]);
        }
        qsort(x, N, sizeof *x, cmp_u64);
        uint64_t got[HIST_FIO_NPCT];
        hist_percentiles(h, hist_fio_percentiles, HIST_FIO_NPCT, got);
        for (int j = 0; j < HIST_FIO_NPCT; j++) {
            long double need = (long double)hist_fio_percentiles[j] / 100.0L * (long double)N;
            size_t rank = 1;
            while ((long double)rank < need)
                rank++;
            uint64_t exact = x[rank - 1];
            if (fabs((double)got[j] - (double)exact) > 0.01 * (double)exact)
                fail_msg("sigma %g p%g: %llu vs exact %llu", sigmas[k], hist_fio_percentiles[j],
                         (unsigned long long)got[j], (unsigned long long)exact);
            assert_int_equal(got[j], hist_idx_to_val(hist_val_to_idx(exact)));
            assert_int_equal(hist_percentile(h, hist_fio_percentiles[j]), got[j]);
        }
        assert_int_equal(hist_percentile(h, 100), hist_idx_to_val(hist_val_to_idx(x[N - 1])));
    }
    gsl_rng_free(r);
}

/* Two-pass reference moments in long double. */
static void ref_moments(const uint64_t *x, size_t n, double *mean, double *sd)
{
    long double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    long double m = s / n, v = 0;
    for (size_t i = 0; i < n; i++)
        v += ((long double)x[i] - m) * ((long double)x[i] - m);
    *mean = (double)m;
    *sd = n > 1 ? (double)sqrtl(v / (n - 1)) : 0;
}

static void check_moments(const struct hist *h, const uint64_t *x, size_t n, const char *what)
{
    double m, sd;
    ref_moments(x, n, &m, &sd);
    uint64_t mn = UINT64_MAX, mx = 0;
    for (size_t i = 0; i < n; i++) {
        mn = x[i] < mn ? x[i] : mn;
        mx = x[i] > mx ? x[i] : mx;
    }
    assert_int_equal(h->n, n);
    assert_int_equal(h->min, mn);
    assert_int_equal(h->max, mx);
    if (fabs(hist_mean(h) - m) > 1e-12 * m)
        fail_msg("%s: mean %.17g, want %.17g", what, hist_mean(h), m);
    /* "exact": within 1e-9 relative, or 1e-6 ns when the true spread is 0 */
    if (fabs(hist_stddev(h) - sd) > 1e-9 * sd + 1e-6)
        fail_msg("%s: stddev %.17g, want %.17g", what, hist_stddev(h), sd);
}

static void test_hist_exact_min_max_mean_stddev(void **state)
{
    enum { N = 50000 };
    struct fixture *f = *state;
    struct hist *h = &f->h;
    uint64_t *x = f->x;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(r, 7);
    hist_reset(h);
    for (int i = 0; i < N; i++) {
        x[i] = (uint64_t)llround(gsl_ran_lognormal(r, log(150000.0), 0.8));
        hist_add(h, x[i]);
    }
    check_moments(h, x, N, "lognormal");
    /* small integers by hand: {1,2,3,4} mean 2.5, sample sd sqrt(5/3) */
    hist_reset(h);
    for (uint64_t v = 1; v <= 4; v++)
        hist_add(h, v);
    assert_true(fabs(hist_mean(h) - 2.5) < 1e-15);
    assert_true(fabs(hist_stddev(h) - sqrt(5.0 / 3.0)) < 1e-15);
    assert_int_equal(h->min, 1);
    assert_int_equal(h->max, 4);
    /* one sample: stddev 0 as fio prints it */
    hist_reset(h);
    hist_add(h, 42);
    assert_true(hist_stddev(h) == 0 && hist_mean(h) == 42);
    gsl_rng_free(r);
}

/*
 * Large values with a small spread (a constant 1 s latency; 10 ms +- a few ns):
 * the moments must stay exact, as fio's (Welford) accumulation keeps them.
 */
static void test_hist_stddev_exact_for_large_values_small_spread(void **state)
{
    enum { N = MAX_SAMPLES };
    struct fixture *f = *state;
    struct hist *h = &f->h;
    uint64_t *x = f->x;
    hist_reset(h);
    for (int i = 0; i < N; i++) {
        x[i] = 999999937;
        hist_add(h, x[i]);
    }
    check_moments(h, x, N, "constant 999999937 ns");
    hist_reset(h);
    for (int i = 0; i < N; i++) {
        x[i] = 10000000 + (uint64_t)(i % 11);
        hist_add(h, x[i]);
    }
    check_moments(h, x, N, "10 ms + 0..10 ns");
}

static void test_hist_merge_equals_adding_all(void **state)
{
    enum { N = 30000 };
    struct fixture *f = *state;
    struct hist *all = &f->all, *part = f->part, *merged = &f->merged, *empty = &f->empty;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(r, 99);
    hist_reset(all);
    for (int k = 0; k < 3; k++)
        hist_reset(&part[k]);
    for (int i = 0; i < N; i++) {
        /* the parts have different ranges, so min and max come from different parts */
        int k = i % 3;
        uint64_t v = (uint64_t)llround(gsl_ran_exponential(r, 1000.0 * (k + 1))) + 100 * (uint64_t)k;
        hist_add(all, v);
        hist_add(&part[k], v);
    }
    hist_reset(merged);
    hist_reset(empty);
    hist_merge(merged, empty);
    for (int k = 0; k < 3; k++)
        hist_merge(merged, &part[k]);
    hist_merge(merged, empty);
    assert_int_equal(merged->n, all->n);
    assert_int_equal(merged->min, all->min);
    assert_int_equal(merged->max, all->max);
    assert_memory_equal(merged->bucket, all->bucket, sizeof all->bucket);
    assert_true(fabs(hist_mean(merged) - hist_mean(all)) <= 1e-12 * hist_mean(all));
    assert_true(fabs(hist_stddev(merged) - hist_stddev(all)) <= 1e-9 * hist_stddev(all));
    uint64_t a[HIST_FIO_NPCT], b[HIST_FIO_NPCT];
    hist_percentiles(all, hist_fio_percentiles, HIST_FIO_NPCT, a);
    hist_percentiles(merged, hist_fio_percentiles, HIST_FIO_NPCT, b);
    assert_memory_equal(a, b, sizeof a);
    gsl_rng_free(r);
}

static void test_hist_empty(void **state)
{
    struct fixture *f = *state;
    struct hist *h = &f->h;
    hist_reset(h);
    assert_int_equal(h->n, 0);
    assert_true(hist_mean(h) == 0 && hist_stddev(h) == 0);
    uint64_t out[HIST_FIO_NPCT];
    memset(out, 0xff, sizeof out);
    hist_percentiles(h, hist_fio_percentiles, HIST_FIO_NPCT, out);
    for (int j = 0; j < HIST_FIO_NPCT; j++)
        assert_int_equal(out[j], 0);
    /* fio's list as documented (stat.c def_percentile_list) */
    const double want[HIST_FIO_NPCT] = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
    assert_memory_equal(hist_fio_percentiles, want, sizeof want);
}

/*
 * Piecewise-constant signal by hand: 2 on [100,150), 5 for no time at 150,
 * 1 on [150,200), 0 on [200,300):  area 2*50 + 1*50 = 150 over 200 -> 0.75.
 * After a reset at 300 (value 0 kept), 4 on [400,500): 400 / 200 = 2.
 */
static void test_tavg_piecewise_constant_by_hand(void **state)
{
    struct tavg a;
    tavg_init(&a, 100, 2);
    assert_true(tavg_mean(&a, 100) == 2); /* empty interval: the current value */
    tavg_set(&a, 150, 5);
    tavg_set(&a, 150, 1);
    tavg_set(&a, 200, 0);
    assert_true(fabs(tavg_mean(&a, 300) - 0.75) < 1e-12);
    assert_true(fabs(tavg_mean(&a, 200) - 1.5) < 1e-12); /* (100+50)/100 */
    tavg_reset(&a, 300);
    tavg_set(&a, 400, 4);
    assert_true(fabs(tavg_mean(&a, 500) - 2.0) < 1e-12);
    /* tavg_add moves the value by a delta */
    tavg_add(&a, 500, -1); /* 3 from 500 */
    assert_true(fabs(tavg_mean(&a, 700) - (400.0 + 600.0) / 400.0) < 1e-12);
}

static void test_lat_sum_accumulates(void **state)
{
    struct lat_sum l = {0};
    lat_sum_add(&l, 1500);
    lat_sum_add(&l, 2500);
    assert_int_equal(l.avgcount, 2);
    assert_int_equal(l.sum_ns, 4000);
}

/*
 * {2, 4, 4, 5, 10}: mean 5, squared deviations 9+1+1+0+25 = 36, sample sd
 * sqrt(36/4) = 3, and with t_{0.975,4} = 2.776 the half-width is
 * 2.776 * 3 / sqrt 5 = 3.7244.
 * The table's t is rounded to 3 decimals (exact 2.77645), so allow 1e-3.
 */
static void test_stats_ci95_matches_hand_t_interval(void **state)
{
    const double x[] = {2, 4, 4, 5, 10};
    struct ci c = stats_ci95(x, 5);
    assert_int_equal(c.n, 5);
    assert_true(fabs(c.mean - 5.0) < 1e-12);
    assert_true(fabs(c.sd - 3.0) < 1e-12);
    assert_true(fabs(c.half - 3.7244) < 1e-3);
    /* one replication: no interval; none: all zero */
    struct ci one = stats_ci95(x, 1);
    assert_true(one.n == 1 && one.mean == 2 && one.half == 0);
    struct ci none = stats_ci95(x, 0);
    assert_true(none.n == 0 && none.mean == 0 && none.half == 0);
    /* large n tends to the normal 1.96 */
    double y[1000];
    for (int i = 0; i < 1000; i++)
        y[i] = i % 2;
    struct ci big = stats_ci95(y, 1000);
    assert_true(fabs(big.half - 1.9623 * big.sd / sqrt(1000.0)) < 1e-4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hist_val_to_idx_matches_reference),
        cmocka_unit_test(test_hist_idx_to_val_matches_reference),
        cmocka_unit_test(test_hist_bucket_relative_error_bound),
        cmocka_unit_test_setup_teardown(test_hist_percentiles_match_exact_order_statistics, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_hist_exact_min_max_mean_stddev, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_hist_stddev_exact_for_large_values_small_spread, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_hist_merge_equals_adding_all, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_hist_empty, fixture_setup, fixture_teardown),
        cmocka_unit_test(test_tavg_piecewise_constant_by_hand),
        cmocka_unit_test(test_lat_sum_accumulates),
        cmocka_unit_test(test_stats_ci95_matches_hand_t_interval),
    };
    return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
