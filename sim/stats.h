/*
 * stats.h - the statistics layer every model reports through.
 *
 * - struct hist: fio's log-linear "plat" latency histogram (stat.h:
 *   FIO_IO_U_PLAT_BITS 6, 29 groups, 1856 buckets, values in ns up to ~2^34).
 *   Fixed memory; a percentile is reported as its bucket midpoint, so the
 *   relative error is at most 1/128 (< 1 %), and percentiles match fio's
 *   calc_clat_percentiles exactly.  min/max/mean/stddev are exact.
 * - struct tavg: time-weighted average (utilisation, queue length).
 * - struct lat_sum: Ceph's {avgcount, sum} time counter.
 * - stats_ci95: mean and 95 % confidence half-width over independent
 *   replications (Student t quantile from GSL).
 * Every accumulator has a reset for the warm-up cut.
 */
#ifndef CEPHSIM_SIM_STATS_H
#define CEPHSIM_SIM_STATS_H

#include <stdint.h>

#include "evq.h"

#define HIST_PLAT_BITS 6
#define HIST_PLAT_VAL (1 << HIST_PLAT_BITS)
#define HIST_PLAT_GROUP_NR 29
#define HIST_PLAT_NR (HIST_PLAT_GROUP_NR * HIST_PLAT_VAL)

struct hist {
    uint64_t n;
    uint64_t min, max;
    double mean, m2;    /* Welford's running mean and sum of squared deviations */
    uint64_t bucket[HIST_PLAT_NR];
};

/* fio's default percentile_list. */
#define HIST_FIO_NPCT 17
extern const double hist_fio_percentiles[HIST_FIO_NPCT];

void hist_reset(struct hist *h);
void hist_add(struct hist *h, uint64_t ns);
/* Add the counts of src into dst. */
void hist_merge(struct hist *dst, const struct hist *src);
double hist_mean(const struct hist *h);
/* Sample standard deviation as fio prints it (n-1 denominator; 0 for n < 2). */
double hist_stddev(const struct hist *h);
/* Percentiles as fio computes them (pct in 0..100, sorted ascending), into out[]. */
void hist_percentiles(const struct hist *h, const double *pct, int n, uint64_t *out);
uint64_t hist_percentile(const struct hist *h, double pct);

/* Bucket mapping, exposed for tests (mirrors fio's plat_val_to_idx/plat_idx_to_val). */
unsigned hist_val_to_idx(uint64_t val);
uint64_t hist_idx_to_val(unsigned idx);

struct tavg {
    sim_time_t t_start, t_last;
    double value, area;
};

void tavg_init(struct tavg *a, sim_time_t t, double v);
void tavg_set(struct tavg *a, sim_time_t t, double v);
static inline void tavg_add(struct tavg *a, sim_time_t t, double dv) { tavg_set(a, t, a->value + dv); }
/* Average of the value over [t_start, t]. */
double tavg_mean(const struct tavg *a, sim_time_t t);
/* Forget the past (warm-up cut); keeps the current value. */
void tavg_reset(struct tavg *a, sim_time_t t);

/* Ceph-style time counter: {avgcount, sum}, dumped as seconds. */
struct lat_sum {
    uint64_t avgcount;
    uint64_t sum_ns;
};

static inline void lat_sum_add(struct lat_sum *l, uint64_t ns)
{
    l->avgcount++;
    l->sum_ns += ns;
}

struct ci {
    int n;
    double mean, sd, half; /* half = 95 % confidence half-width (0 when n < 2) */
};

/* Mean and 95 % CI of n independent replication results. */
struct ci stats_ci95(const double *x, int n);

#endif
