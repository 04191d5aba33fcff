#include "stats.h"

#include <math.h>
#include <string.h>
#include <gsl/gsl_cdf.h>

const double hist_fio_percentiles[HIST_FIO_NPCT] = {
    1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

void hist_reset(struct hist *h)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
}

unsigned hist_val_to_idx(uint64_t val)
{
    unsigned msb = val ? 63 - (unsigned)__builtin_clzll(val) : 0;
    if (msb <= HIST_PLAT_BITS)
        return (unsigned)val;
    unsigned error_bits = msb - HIST_PLAT_BITS;
    unsigned base = (error_bits + 1) << HIST_PLAT_BITS;
    unsigned offset = (HIST_PLAT_VAL - 1) & (unsigned)(val >> error_bits);
    unsigned idx = base + offset;
    return idx < HIST_PLAT_NR - 1 ? idx : HIST_PLAT_NR - 1;
}

uint64_t hist_idx_to_val(unsigned idx)
{
    if (idx < (HIST_PLAT_VAL << 1))
        return idx;
    unsigned error_bits = (idx >> HIST_PLAT_BITS) - 1;
    uint64_t base = 1ull << (error_bits + HIST_PLAT_BITS);
    uint64_t k = idx % HIST_PLAT_VAL;
    return base + (uint64_t)((k + 0.5) * (double)(1ull << error_bits));
}

void hist_add(struct hist *h, uint64_t ns)
{
    h->n++;
    if (ns < h->min)
        h->min = ns;
    if (ns > h->max)
        h->max = ns;
    /* Welford: no cancellation for large values with a small spread */
    double x = (double)ns, d = x - h->mean;
    h->mean += d / (double)h->n;
    h->m2 += d * (x - h->mean);
    h->bucket[hist_val_to_idx(ns)]++;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
    if (!src->n)
        return;
    /* Chan et al.'s pairwise combination of (n, mean, m2) */
    double na = (double)dst->n, nb = (double)src->n, n = na + nb;
    double d = src->mean - dst->mean;
    dst->mean += d * nb / n;
    dst->m2 += src->m2 + d * d * na * nb / n;
    dst->n += src->n;
    dst->min = src->min < dst->min ? src->min : dst->min;
    dst->max = src->max > dst->max ? src->max : dst->max;
    for (int i = 0; i < HIST_PLAT_NR; i++)
        dst->bucket[i] += src->bucket[i];
}

double hist_mean(const struct hist *h)
{
    return h->n ? h->mean : 0;
}

double hist_stddev(const struct hist *h)
{
    if (h->n < 2)
        return 0;
    double var = h->m2 / (double)(h->n - 1);
    return var > 0 ? sqrt(var) : 0;
}

void hist_percentiles(const struct hist *h, const double *pct, int n, uint64_t *out)
{
    /* fio stat.c calc_clat_percentiles: the first bucket whose running count
       reaches pct/100 * N gives the value. */
    uint64_t sum = 0;
    int j = 0;
    for (int i = 0; i < HIST_PLAT_NR && j < n; i++) {
        sum += h->bucket[i];
        while (j < n && (long double)sum >= (long double)pct[j] / 100.0L * (long double)h->n) {
            out[j++] = h->n ? hist_idx_to_val((unsigned)i) : 0;
        }
    }
    for (; j < n; j++)
        out[j] = 0;
}

uint64_t hist_percentile(const struct hist *h, double pct)
{
    uint64_t v;
    hist_percentiles(h, &pct, 1, &v);
    return v;
}

void tavg_init(struct tavg *a, sim_time_t t, double v)
{
    a->t_start = a->t_last = t;
    a->value = v;
    a->area = 0;
}

void tavg_set(struct tavg *a, sim_time_t t, double v)
{
    if (t > a->t_last) {
        a->area += a->value * (double)(t - a->t_last);
        a->t_last = t;
    }
    a->value = v;
}

double tavg_mean(const struct tavg *a, sim_time_t t)
{
    double area = a->area + (t > a->t_last ? a->value * (double)(t - a->t_last) : 0);
    return t > a->t_start ? area / (double)(t - a->t_start) : a->value;
}

void tavg_reset(struct tavg *a, sim_time_t t)
{
    a->t_start = a->t_last = t;
    a->area = 0;
}

struct ci stats_ci95(const double *x, int n)
{
    struct ci c = {.n = n};
    if (n <= 0)
        return c;
    double m = 0;
    for (int i = 0; i < n; i++)
        m += x[i];
    m /= n;
    c.mean = m;
    if (n < 2)
        return c;
    double v = 0;
    for (int i = 0; i < n; i++)
        v += (x[i] - m) * (x[i] - m);
    c.sd = sqrt(v / (n - 1));
    c.half = gsl_cdf_tdist_Pinv(0.975, n - 1) * c.sd / sqrt(n);
    return c;
}
