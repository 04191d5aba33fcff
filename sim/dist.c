#include "dist.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>


struct dist dist_const(double v) { return (struct dist){.kind = DIST_CONST, .a = v}; }
struct dist dist_exp(double mean) { return (struct dist){.kind = DIST_EXP, .a = mean}; }
struct dist dist_normal(double mean, double sd) { return (struct dist){.kind = DIST_NORMAL, .a = mean, .b = sd}; }
struct dist dist_uniform(double lo, double hi) { return (struct dist){.kind = DIST_UNIFORM, .a = lo, .b = hi}; }

struct dist dist_lognormal(double mean, double cv)
{
    /* E = exp(mu + s^2/2), CV^2 = exp(s^2) - 1 */
    double s2 = log1p(cv * cv);
    return (struct dist){.kind = DIST_LOGNORMAL, .a = mean, .b = cv,
                         .sigma = sqrt(s2), .mu = log(mean > 0 ? mean : 1e-300) - s2 / 2};
}

int dist_empirical(struct dist *d, const double *pct, const double *val, int n, struct sim_err *err)
{
    if (n < 1 || n > DIST_EMPIRICAL_MAX - 2)
        return sim_errf(err, -EINVAL, "empirical distribution needs 1..%d points", DIST_EMPIRICAL_MAX - 2);
    memset(d, 0, sizeof *d);
    d->kind = DIST_EMPIRICAL;
    for (int i = 0; i < n; i++) {
        if (pct[i] <= 0 || pct[i] >= 100 || val[i] < 0)
            return sim_errf(err, -ERANGE, "point %d: percentile must be in (0,100) and value >= 0", i);
        if (i && (pct[i] <= pct[i - 1] || val[i] < val[i - 1]))
            return sim_errf(err, -EINVAL, "point %d: percentiles and values must increase", i);
    }
    /* Extend to p=0 and p=1.  With one point: a symmetric +-10 % band. */
    double lo, hi;
    if (n == 1) {
        lo = val[0] * 0.9;
        hi = val[0] * 1.1;
    } else {
        double s0 = (val[1] - val[0]) / (pct[1] - pct[0]);
        double s1 = (val[n - 1] - val[n - 2]) / (pct[n - 1] - pct[n - 2]);
        lo = fmax(0, val[0] - s0 * pct[0]);
        hi = val[n - 1] + s1 * (100 - pct[n - 1]);
    }
    d->p[0] = 0;
    d->v[0] = lo;
    for (int i = 0; i < n; i++) {
        d->p[i + 1] = pct[i] / 100;
        d->v[i + 1] = val[i];
    }
    d->p[n + 1] = 1;
    d->v[n + 1] = hi;
    d->n = n + 2;
    return 0;
}

struct dist dist_shifted(const struct dist *d, double delta, double floor)
{
    struct dist r = *d;
    switch (d->kind) {
    case DIST_EMPIRICAL:
        for (int i = 0; i < r.n; i++)
            r.v[i] = fmax(floor, r.v[i] + delta);
        return r;
    case DIST_LOGNORMAL: return dist_lognormal(fmax(floor, d->a + delta), d->b);
    case DIST_NORMAL: return dist_normal(fmax(floor, d->a + delta), d->b);
    case DIST_EXP: return dist_exp(fmax(floor, d->a + delta));
    case DIST_UNIFORM: return dist_uniform(fmax(floor, d->a + delta), fmax(floor, d->b + delta));
    case DIST_CONST: return dist_const(fmax(floor, d->a + delta));
    }
    return r;
}

double dist_quantile(const struct dist *d, double q)
{
    switch (d->kind) {
    case DIST_CONST: return d->a;
    case DIST_EXP: return -d->a * log1p(-q);
    case DIST_UNIFORM: return d->a + q * (d->b - d->a);
    case DIST_NORMAL: return fmax(0, d->a + d->b * gsl_cdf_ugaussian_Pinv(q));
    case DIST_LOGNORMAL: return exp(d->mu + d->sigma * gsl_cdf_ugaussian_Pinv(q));
    case DIST_EMPIRICAL: {
        int i = 1;
        while (i < d->n - 1 && d->p[i] < q)
            i++;
        double f = (q - d->p[i - 1]) / (d->p[i] - d->p[i - 1]);
        return d->v[i - 1] + f * (d->v[i] - d->v[i - 1]);
    }
    }
    return 0;
}

double dist_sample(const struct dist *d, gsl_rng *r)
{
    double x = 0;
    switch (d->kind) {
    case DIST_CONST: return d->a;
    case DIST_EXP: x = gsl_ran_exponential(r, d->a); break;
    case DIST_NORMAL: x = d->a + gsl_ran_gaussian_ziggurat(r, d->b); break;
    case DIST_LOGNORMAL: x = d->b > 0 ? exp(d->mu + d->sigma * gsl_ran_gaussian_ziggurat(r, 1.0)) : d->a; break;
    case DIST_UNIFORM: x = gsl_ran_flat(r, d->a, d->b); break;
    case DIST_EMPIRICAL: x = dist_quantile(d, gsl_rng_uniform(r)); break;
    }
    return x > 0 ? x : 0;
}

double dist_mean(const struct dist *d)
{
    switch (d->kind) {
    case DIST_CONST:
    case DIST_EXP:
    case DIST_LOGNORMAL: return d->a;
    case DIST_NORMAL: {
        /* mean of max(0, N(a, b)) */
        if (d->b <= 0)
            return fmax(0, d->a);
        double z = d->a / d->b;
        return d->a * gsl_cdf_ugaussian_P(z) + d->b * gsl_ran_ugaussian_pdf(z);
    }
    case DIST_UNIFORM: return (d->a + d->b) / 2;
    case DIST_EMPIRICAL: {
        double m = 0;
        for (int i = 1; i < d->n; i++)
            m += (d->p[i] - d->p[i - 1]) * (d->v[i] + d->v[i - 1]) / 2;
        return m;
    }
    }
    return 0;
}
