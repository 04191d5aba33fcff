/*
 * dist.h - service-time and delay distributions the models draw from.
 *
 * Parameterised the way hardware facts are published: a mean and a
 * coefficient of variation (lognormal, normal), or a table of percentiles
 * (empirical, e.g. a device's measured latency p50/p99/p99.9).
 */
#ifndef CEPHSIM_SIM_DIST_H
#define CEPHSIM_SIM_DIST_H

#include <gsl/gsl_rng.h>

#include "err.h"

enum dist_kind {
    DIST_CONST,     /* a */
    DIST_EXP,       /* mean a */
    DIST_NORMAL,    /* mean a, sd b; truncated at 0 */
    DIST_LOGNORMAL, /* mean a, coefficient of variation b */
    DIST_UNIFORM,   /* [a, b) */
    DIST_EMPIRICAL, /* inverse CDF by linear interpolation of (p, value) points */
};

#define DIST_EMPIRICAL_MAX 32

struct dist {
    enum dist_kind kind;
    double a, b;
    double mu, sigma;                 /* derived lognormal parameters */
    int n;                            /* empirical points */
    double p[DIST_EMPIRICAL_MAX];     /* cumulative probabilities, increasing, 0..1 */
    double v[DIST_EMPIRICAL_MAX];     /* values at p[i] */
};

struct dist dist_const(double v);
struct dist dist_exp(double mean);
struct dist dist_normal(double mean, double sd);
struct dist dist_lognormal(double mean, double cv);
struct dist dist_uniform(double lo, double hi);
/* Points are (percentile 0..100, value), increasing in both; 0 and 100 are implied
   by extending the first and last segments' slopes, clamped at 0. */
int dist_empirical(struct dist *d, const double *pct, const double *val, int n, struct sim_err *err);

/* d with every value moved by delta and floored at floor (empirical: its
   points; others: a constant shift of the mean).  Used to split a measured
   total latency between two stages. */
struct dist dist_shifted(const struct dist *d, double delta, double floor);

/* Draw one value (never negative). */
double dist_sample(const struct dist *d, gsl_rng *r);
/* The distribution's mean (numerically for empirical). */
double dist_mean(const struct dist *d);
/* Quantile q in [0,1]. */
double dist_quantile(const struct dist *d, double q);


#endif
