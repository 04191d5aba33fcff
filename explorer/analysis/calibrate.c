/*
 * calibrate.c - least-squares fit of cost and latency scale factors to captures
 * (method in calibrate.h).
 */
#include "calibrate.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_vector.h>

#include "cluster.h"
#include "config.h"
#include "hwprofile.h"
#include "files.h"
#include "jsonu.h"
#include "scenario.h"

#define X_MAX 2.5            /* |log(scale)| bound: scales within 0.08 .. 12 */
#define STAGE_FLOOR_US 20.0  /* stage residuals: log((sim + f) / (real + f)) */
#define STAGE_MIN_N 20       /* fewer real samples: the stage is not fitted */

/* Defaults of calibrate_opts (documented in calibrate.h and the usage text).  Residual
   weights are relative to IOPS, clat mean and p50 (weight 1). */
#define DEF_PRIOR_W 0.1      /* a knob at 10x its base weighs as much as a 1.26x miss of one metric */
#define DEF_P99_W 0.2        /* p99 and each stage median count a fifth of a headline metric */
#define DEF_STAGE_W 0.2
#define DEF_FD_STEP 0.05     /* 5 % in scale: the simulator is noisy at smaller steps (gsl_df) */
/* Iteration budgets: a trust-region iteration costs 1 + 2 x knobs simulations of every capture. */
#define DEF_MAX_ITER 30
#define DEF_POLISH_PER_KNOB 30
/* Trust-region stopping tests (gsl_multifit_nlinear_driver): xtol 1e-3 is a 0.1 % step in
   a scale; gtol and ftol are set tight, so xtol or the iteration budget ends the fit. */
#define TR_XTOL 1e-3
#define TR_GTOL 1e-6
#define TR_FTOL 1e-6

static double clamp_x(double v)
{
    return v > X_MAX ? X_MAX : v < -X_MAX ? -X_MAX : v;
}

/* ------------------------------------------------------------------ knobs */

enum member_kind { M_COST, M_NIC, M_NVME_WRITE, M_NVME_FLUSH };

struct member {
    enum member_kind kind;
    const char *name;
};

static const struct member m_client[] = {
    {M_COST, "fio_submit_us"},      {M_COST, "fio_complete_us"},    {M_COST, "librbd_dispatch_us"},
    {M_COST, "librbd_write_dispatch_us"}, {M_COST, "librbd_complete_us"}, {M_COST, "objecter_submit_us"},
    {M_COST, "objecter_complete_us"}, {M_COST, "copyup_client_us"}, {0, NULL}};
static const struct member m_msgr[] = {
    {M_COST, "msgr_tx_us"}, {M_COST, "msgr_rx_us"}, {M_NIC, "tcp_tx_cpu_us"}, {M_NIC, "tcp_rx_cpu_us"},
    {0, NULL}};
static const struct member m_bytes[] = {{M_COST, "msgr_crc_us_per_kib"}, {M_NIC, "per_byte_cpu_ns"}, {0, NULL}};
static const struct member m_osd[] = {
    {M_COST, "osd_enqueue_us"},     {M_COST, "osd_dequeue_us"},       {M_COST, "osd_do_op_us"},
    {M_COST, "osd_execute_write_us"}, {M_COST, "osd_execute_read_us"}, {M_COST, "osd_issue_repop_us"},
    {M_COST, "osd_op_commit_us"},   {M_COST, "osd_repop_reply_us"},   {M_COST, "osd_reply_us"},
    {M_COST, "osd_redispatch_us"},  {M_COST, "osd_error_us"},         {M_COST, "osd_do_repop_us"},
    {M_COST, "osd_repop_commit_us"}, {M_COST, "osd_op_history_insert_us"}, {M_COST, "osd_op_history_write_us"},
    {0, NULL}};
static const struct member m_bluestore[] = {
    {M_COST, "bluestore_prepare_us"},   {M_COST, "bluestore_read_us"},   {M_COST, "bluestore_aio_us"},
    {M_COST, "bluestore_kv_submit_us"}, {M_COST, "bluestore_kv_sync_us"}, {M_COST, "bluestore_kv_final_us"},
    {M_COST, "bluestore_deferred_us"},  {M_COST, "bluestore_deferred_aio_us"}, {0, NULL}};
static const struct member m_wake[] = {{M_COST, "thread_wake_us"}, {0, NULL}};
static const struct member m_nvme_write[] = {{M_NVME_WRITE, "write_latency_us"}, {0, NULL}};
static const struct member m_nvme_flush[] = {{M_NVME_FLUSH, "flush_latency_us"}, {0, NULL}};

static const struct {
    const char *name;
    const struct member *m;
} knobs[CALIB_N_KNOBS] = {
    {"client", m_client}, {"msgr", m_msgr}, {"bytes", m_bytes}, {"osd", m_osd}, {"bluestore", m_bluestore},
    {"wake", m_wake},     {"nvme_write", m_nvme_write}, {"nvme_flush", m_nvme_flush},
};

const char *calibrate_knob_name(int k)
{
    return k >= 0 && k < CALIB_N_KNOBS ? knobs[k].name : NULL;
}

const char *calibrate_knob_members(int k, char *buf, size_t n)
{
    buf[0] = '\0';
    if (k < 0 || k >= CALIB_N_KNOBS)
        return buf;
    size_t used = 0;
    for (const struct member *m = knobs[k].m; m->name && used < n; m++) {
        const char *sec = m->kind == M_COST ? "cost" : m->kind == M_NIC ? "hw.nic" : "hw.nvme";
        const char *extra = m->kind == M_NVME_WRITE ? " (+ write_latency_pct_us)"
                            : m->kind == M_NVME_FLUSH ? " (+ flush_latency_pct_us)" : "";
        used += (size_t)snprintf(buf + used, n - used, "%s%s.%s%s", used ? " " : "", sec, m->name, extra);
    }
    return buf;
}

int calibrate_parse_knobs(const char *text, unsigned *mask, struct sim_err *err)
{
    *mask = 0;
    if (!strcmp(text, "all")) {
        *mask = (1u << CALIB_N_KNOBS) - 1;
        return 0;
    }
    char *buf = sim_xstrdup(text), *save = NULL;
    const char *names[CALIB_N_KNOBS];
    for (int k = 0; k < CALIB_N_KNOBS; k++)
        names[k] = knobs[k].name;
    int rc = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < CALIB_N_KNOBS && strcmp(t, knobs[k].name))
            k++;
        if (k == CALIB_N_KNOBS) {
            const char *dym = names_did_you_mean(t, names, CALIB_N_KNOBS);
            rc = sim_errf(err, -EINVAL, "--knobs: unknown knob '%s'%s%s%s (knobs: client, msgr, bytes, "
                                        "osd, bluestore, wake, nvme_write, nvme_flush, all)",
                          t, dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
            break;
        }
        *mask |= 1u << k;
    }
    free(buf);
    if (rc == 0 && !*mask)
        rc = sim_errf(err, -EINVAL, "--knobs: no knob given");
    return rc;
}

void calibrate_opts_defaults(struct calibrate_opts *o)
{
    memset(o, 0, sizeof *o);
    o->knobs = (1u << CALIB_N_KNOBS) - 1;
    o->prior_weight = o->p99_weight = o->stage_weight = -1;
    o->infer_workload = true;
}

/* ------------------------------------------------------------------ captures as simulations */

struct cap_ctx {
    struct calibrate_capture_result *out;
    struct scenario sc;          /* base scenario + the capture's workload */
    struct stage_costs cost0;    /* the values the scale factors multiply */
    struct hw_nic nic0;
    struct hw_nvme nvme0;
    struct validate_capture real;
    bool use_p99, use_stage[VALIDATE_N_DISTS];
    int n_resid;
};

struct fit_ctx {
    const struct calibrate_opts *o;
    struct cap_ctx *caps;
    int n_caps, n_fit;           /* the first n_fit are fitted */
    int pmap[CALIB_N_KNOBS];     /* fitted parameter index -> knob */
    int p;
    double fixed[CALIB_N_KNOBS]; /* log-scales of every knob (fitted ones overwritten) */
    double prior_w, p99_w, stage_w, fd_step;
    size_t n;
    int evaluations;
    struct sim_err *err;
    int failed;                  /* a simulation failed: stop */
};

static double *cost_field(struct stage_costs *c, const char *name)
{
    const struct param_def *d = param_find(stage_cost_params, name);
    SIM_ASSERT(d && d->type == PARAM_DOUBLE);
    return (double *)param_ptr(d, c);
}

static double *nic_field(struct hw_nic *nic, const char *name)
{
    const struct param_def *d = param_find(hwprofile_params(HWPROFILE_NIC), name);
    SIM_ASSERT(d && d->type == PARAM_DOUBLE);
    return (double *)param_ptr(d, nic);
}

/* Set the scenario's costs and latencies to base x exp(x[k]). */
static void apply_scales(struct cap_ctx *c, const double *x)
{
    c->sc.cost = c->cost0;
    c->sc.nic = c->nic0;
    c->sc.nvme = c->nvme0;
    for (int k = 0; k < CALIB_N_KNOBS; k++) {
        double s = exp(x[k]);
        if (s == 1.0)
            continue;
        for (const struct member *m = knobs[k].m; m->name; m++) {
            switch (m->kind) {
            case M_COST: *cost_field(&c->sc.cost, m->name) *= s; break;
            case M_NIC: *nic_field(&c->sc.nic, m->name) *= s; break;
            case M_NVME_WRITE:
                c->sc.nvme.write_latency_us *= s;
                c->sc.nvme.seq_write_latency_us *= s;
                for (int i = 0; i < c->sc.nvme.n_write_pct; i++)
                    c->sc.nvme.write_pct[i].us *= s;
                break;
            case M_NVME_FLUSH:
                c->sc.nvme.flush_latency_us *= s;
                for (int i = 0; i < c->sc.nvme.n_flush_pct; i++)
                    c->sc.nvme.flush_pct[i].us *= s;
                break;
            }
        }
    }
}

static int simulate(struct cap_ctx *c, const double *x, struct validate_capture *out, struct sim_err *err)
{
    apply_scales(c, x);
    struct cluster_spec spec;
    int rc = scenario_to_spec(&c->sc, 0, &spec, err);
    if (rc < 0)
        return rc;
    struct cluster *cl = cluster_create(&spec, err);
    if (!cl)
        return err && err->code ? err->code : -EINVAL;
    cluster_run(cl, NULL, NULL);
    rc = validate_capture_from_cluster(cl, out, err);
    cluster_destroy(cl);
    return rc;
}

static double log_ratio(double sim, double real)
{
    if (!(sim > 0) || isnan(sim))
        sim = real * 1e-3; /* no result: a large, finite residual */
    return log(sim / real);
}

/* The residuals of one capture (c->n_resid values). */
static void capture_residuals(const struct fit_ctx *f, const struct cap_ctx *c, const struct validate_capture *s,
                              double *r)
{
    int i = 0;
    r[i++] = log_ratio(s->iops, c->real.iops);
    r[i++] = log_ratio(s->lat_mean_us, c->real.lat_mean_us);
    r[i++] = log_ratio(s->lat_p50_us, c->real.lat_p50_us);
    if (c->use_p99)
        r[i++] = f->p99_w * log_ratio(s->lat_p99_us, c->real.lat_p99_us);
    for (int d = 0; d < VALIDATE_N_DISTS; d++) {
        if (!c->use_stage[d])
            continue;
        double real = validate_median(c->real.dist_us[d], c->real.n_dist[d]);
        double sim = s->n_dist[d] ? validate_median(s->dist_us[d], s->n_dist[d]) : 0;
        r[i++] = f->stage_w * log((fmax(sim, 0) + STAGE_FLOOR_US) / (fmax(real, 0) + STAGE_FLOOR_US));
    }
    SIM_ASSERT(i == c->n_resid);
}

static double rms(const double *r, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += r[i] * r[i];
    return n ? sqrt(s / n) : 0;
}

static void record(struct cap_ctx *c, const struct validate_capture *s, double *dst_metrics)
{
    for (int m = 0; m < VALIDATE_N_METRICS; m++)
        dst_metrics[m] = validate_metric_value(s, m);
    for (int d = 0; d < VALIDATE_N_DISTS; d++)
        c->out->sim_stage[d] = s->n_dist[d] ? validate_median(s->dist_us[d], s->n_dist[d]) : NAN;
}

/* x (fitted log-scales) -> the full log-scale vector. */
static void full_x(const struct fit_ctx *f, const gsl_vector *x, double *xs)
{
    for (int k = 0; k < CALIB_N_KNOBS; k++)
        xs[k] = f->fixed[k];
    for (int j = 0; j < f->p; j++)
        xs[f->pmap[j]] = clamp_x(gsl_vector_get(x, (size_t)j));
}

enum rec { REC_NONE, REC_START, REC_FINAL };

/* Simulate capture c at the log-scales xs: its residuals into rr (c->n_resid); at the start or
   the solution, also its metrics and RMS into c->out. */
static int score_capture(const struct fit_ctx *f, struct cap_ctx *c, const double *xs, double *rr, enum rec which,
                         struct sim_err *err)
{
    struct validate_capture s;
    int rc = simulate(c, xs, &s, err);
    if (rc < 0)
        return rc;
    capture_residuals(f, c, &s, rr);
    if (which != REC_NONE) {
        bool start = which == REC_START;
        record(c, &s, start ? c->out->sim0 : c->out->sim);
        *(start ? &c->out->rms0 : &c->out->rms) = rms(rr, c->n_resid);
    }
    validate_capture_free(&s);
    return 0;
}

/* Residuals of the fitted captures at x, plus the priors. */
static int eval_f(struct fit_ctx *f, const gsl_vector *x, gsl_vector *r, enum rec which)
{
    double xs[CALIB_N_KNOBS];
    full_x(f, x, xs);
    size_t i = 0;
    f->evaluations++;
    for (int k = 0; k < f->n_fit; k++) {
        struct cap_ctx *c = &f->caps[k];
        double *rr = sim_xcalloc((size_t)c->n_resid, sizeof *rr);
        int rc = score_capture(f, c, xs, rr, which, f->err);
        for (int q = 0; q < c->n_resid && rc == 0; q++)
            gsl_vector_set(r, i++, rr[q]);
        free(rr);
        if (rc < 0) {
            f->failed = rc;
            return GSL_EFAILED;
        }
    }
    for (int j = 0; j < f->p; j++)
        gsl_vector_set(r, i++, f->prior_w * gsl_vector_get(x, (size_t)j));
    SIM_ASSERT(i == f->n);
    return GSL_SUCCESS;
}

static int gsl_f(const gsl_vector *x, void *params, gsl_vector *r)
{
    return eval_f(params, x, r, REC_NONE);
}

/* Central differences with a fixed step in log(scale): the simulator is noisy at small steps. */
static int gsl_df(const gsl_vector *x, void *params, gsl_matrix *J)
{
    struct fit_ctx *f = params;
    gsl_vector *xp = gsl_vector_alloc((size_t)f->p), *rp = gsl_vector_alloc(f->n),
               *rm = gsl_vector_alloc(f->n);
    int rc = GSL_SUCCESS;
    for (int j = 0; j < f->p && rc == GSL_SUCCESS; j++) {
        gsl_vector_memcpy(xp, x);
        gsl_vector_set(xp, (size_t)j, gsl_vector_get(x, (size_t)j) + f->fd_step);
        rc = eval_f(f, xp, rp, REC_NONE);
        if (rc != GSL_SUCCESS)
            break;
        gsl_vector_set(xp, (size_t)j, gsl_vector_get(x, (size_t)j) - f->fd_step);
        rc = eval_f(f, xp, rm, REC_NONE);
        for (size_t i = 0; i < f->n && rc == GSL_SUCCESS; i++)
            gsl_matrix_set(J, i, (size_t)j, (gsl_vector_get(rp, i) - gsl_vector_get(rm, i)) / (2 * f->fd_step));
    }
    gsl_vector_free(xp);
    gsl_vector_free(rp);
    gsl_vector_free(rm);
    return rc;
}

/* chi^2 at x for the simplex polish; a failed simulation is +inf (and remembered). */
static double chi2_of(const gsl_vector *x, void *params)
{
    struct fit_ctx *f = params;
    if (f->failed)
        return GSL_POSINF;
    gsl_vector *r = gsl_vector_alloc(f->n);
    double chi = GSL_POSINF;
    if (eval_f(f, x, r, REC_NONE) == GSL_SUCCESS)
        gsl_blas_ddot(r, r, &chi);
    gsl_vector_free(r);
    return chi;
}

/*
 * Nelder-Mead (nmsimplex2) from the trust-region solution: the objective is piecewise
 * flat at the scale of a histogram bucket or of one op moving past a median, where the
 * trust region stops early; the simplex keeps descending across such steps.
 */
static int polish(struct fit_ctx *f, gsl_vector *x, int max_iter, int *iters)
{
    gsl_multimin_function fn = {.f = chi2_of, .n = (size_t)f->p, .params = f};
    gsl_vector *step = gsl_vector_alloc((size_t)f->p);
    gsl_vector_set_all(step, 2 * f->fd_step);
    gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, (size_t)f->p);
    gsl_multimin_fminimizer_set(m, &fn, x, step);
    int status = GSL_CONTINUE, it = 0;
    while (status == GSL_CONTINUE && it < max_iter && !f->failed) {
        it++;
        if (gsl_multimin_fminimizer_iterate(m))
            break;
        /* converged: the simplex is a tenth of the Jacobian's step across */
        status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), 0.1 * f->fd_step);
    }
    if (!f->failed)
        gsl_vector_memcpy(x, gsl_multimin_fminimizer_x(m));
    if (f->o->log)
        fprintf(f->o->log, "calibrate: simplex polish: %d iterations, chi2 %.5g\n", it, gsl_multimin_fminimizer_minimum(m));
    *iters = it;
    gsl_multimin_fminimizer_free(m);
    gsl_vector_free(step);
    return f->failed;
}

static void iter_cb(const size_t iter, void *params, const gsl_multifit_nlinear_workspace *w)
{
    struct fit_ctx *f = params;
    if (!f->o->log)
        return;
    gsl_vector *r = gsl_multifit_nlinear_residual(w);
    gsl_vector *x = gsl_multifit_nlinear_position(w);
    double chi = gsl_blas_dnrm2(r);
    fprintf(f->o->log, "calibrate: iteration %zu: chi2 %.5g  evaluations %d  scales", iter, chi * chi,
            f->evaluations);
    for (int j = 0; j < f->p; j++)
        fprintf(f->o->log, " %s %.3f", knobs[f->pmap[j]].name, exp(gsl_vector_get(x, (size_t)j)));
    fprintf(f->o->log, "\n");
    fflush(f->o->log);
}

static int cap_load(struct fit_ctx *f, struct cap_ctx *c, const char *dir, bool fitted, struct sim_err *err)
{
    const struct calibrate_opts *o = f->o;
    struct calibrate_capture_result *out = c->out;
    snprintf(out->dir, sizeof out->dir, "%s", dir);
    out->fitted = fitted;
    int rc = validate_capture_load(dir, &c->real, err);
    if (rc < 0)
        return rc;
    if (!(c->real.iops > 0) || !(c->real.lat_mean_us > 0) || !(c->real.lat_p50_us > 0))
        return sim_errf(err, -EINVAL, "%s: fio.json has no IOPS or latency to fit", dir);
    char (*inf)[VALIDATE_SET_LEN] = sim_xcalloc(VALIDATE_MAX_SETS, sizeof *inf);
    int n_inf = 0;
    if (o->infer_workload && (n_inf = validate_capture_sets(dir, o->scenario, inf, VALIDATE_MAX_SETS, err)) < 0) {
        free(inf);
        return n_inf;
    }
    const char **sets = sim_xcalloc((size_t)(VALIDATE_N_WINDOW_SETS + n_inf + o->n_sets + 1), sizeof *sets);
    char dur[64];
    int n = 0;
    for (int i = 0; i < VALIDATE_N_WINDOW_SETS; i++)
        sets[n++] = validate_window_sets[i];
    size_t used = 0;
    out->sets[0] = '\0';
    for (int i = 0; i < n_inf; i++) {
        sets[n++] = inf[i];
        used += (size_t)snprintf(out->sets + used, used < sizeof out->sets ? sizeof out->sets - used : 0, "%s%s",
                                 i ? " " : "", inf[i]);
    }
    for (int i = 0; i < o->n_sets; i++)
        sets[n++] = o->sets[i];
    if (o->duration_s > 0) {
        snprintf(dur, sizeof dur, "sim.duration_s=%.17g", o->duration_s);
        sets[n++] = dur;
    }
    rc = scenario_load(&c->sc, o->scenario, NULL, NULL, sets, n, err);
    free(sets);
    free(inf);
    if (rc < 0)
        return rc;
    if ((rc = scenario_check_unreduced(&c->sc, "calibrate", err)) < 0) {
        scenario_free(&c->sc);
        return rc;
    }
    c->cost0 = c->sc.cost;
    c->nic0 = c->sc.nic;
    if (o->drop_flush_table)
        c->sc.nvme.n_flush_pct = 0;
    c->nvme0 = c->sc.nvme;
    c->sc.sim.replications = 1;
    /* which residuals this capture contributes */
    c->use_p99 = f->p99_w > 0 && c->real.lat_p99_us > 0;
    c->n_resid = 3 + c->use_p99;
    for (int d = 0; d < VALIDATE_N_DISTS; d++) {
        c->use_stage[d] = f->stage_w > 0 && c->real.n_dist[d] >= STAGE_MIN_N && !c->real.ops_biased;
        c->n_resid += c->use_stage[d];
        out->real_stage[d] = validate_median(c->real.dist_us[d], c->real.n_dist[d]);
    }
    for (int m = 0; m < VALIDATE_N_METRICS; m++)
        out->real[m] = validate_metric_value(&c->real, m);
    return 0;
}

static void fit_free(struct fit_ctx *f)
{
    for (int i = 0; i < f->n_caps; i++) {
        if (f->caps[i].sc.json)
            scenario_free(&f->caps[i].sc);
        validate_capture_free(&f->caps[i].real);
    }
    free(f->caps);
}

int calibrate_run(const struct calibrate_opts *o, struct calibrate_result *res, struct sim_err *err)
{
    memset(res, 0, sizeof *res);
    if (!o->scenario)
        return sim_errf(err, -EINVAL, "calibrate: no base scenario");
    if (o->n_fit < 1)
        return sim_errf(err, -EINVAL, "calibrate: no capture to fit (--real DIR)");
    if (o->n_fit + o->n_check > CALIB_MAX_CAPTURES)
        return sim_errf(err, -E2BIG, "calibrate: at most %d captures", CALIB_MAX_CAPTURES);
    if (!o->knobs)
        return sim_errf(err, -EINVAL, "calibrate: no knob to fit");
    struct fit_ctx f = {.o = o, .err = err};
    f.prior_w = o->prior_weight < 0 ? DEF_PRIOR_W : o->prior_weight;
    f.p99_w = o->p99_weight < 0 ? DEF_P99_W : o->p99_weight;
    f.stage_w = o->stage_weight < 0 ? DEF_STAGE_W : o->stage_weight;
    f.fd_step = o->fd_step > 0 ? o->fd_step : DEF_FD_STEP;
    f.n_caps = o->n_fit + o->n_check;
    f.n_fit = o->n_fit;
    f.caps = sim_xcalloc((size_t)f.n_caps, sizeof *f.caps);
    for (int k = 0; k < CALIB_N_KNOBS; k++) {
        f.fixed[k] = o->start[k] > 0 ? log(o->start[k]) : 0;
        if (o->knobs & (1u << k))
            f.pmap[f.p++] = k;
    }
    res->knobs = o->knobs;
    res->n_caps = f.n_caps;
    int rc = 0;
    for (int i = 0; i < f.n_caps && rc == 0; i++) {
        f.caps[i].out = &res->caps[i];
        rc = cap_load(&f, &f.caps[i], i < o->n_fit ? o->fit_dirs[i] : o->check_dirs[i - o->n_fit],
                      i < o->n_fit, err);
        const struct validate_capture *r = &f.caps[i].real;
        /* a capture taken beside other load is not the unloaded host simulated: the
           fitted scales would absorb what the other work cost it (tests/data/lab10) */
        if (rc == 0 && o->log && validate_foreign_note(r->foreign_cores, r->outside_daemons_cores, r->machine_cpus))
            fprintf(o->log,
                    "calibrate: warning: %s was taken beside other load (%.2f of the machine's %d cores outside "
                    "Ceph's daemons, %.2f in processes that lasted the run): %s\n",
                    res->caps[i].dir, r->outside_daemons_cores, r->machine_cpus, r->foreign_cores,
                    res->caps[i].fitted ? "the fit will take that cost for the model's"
                                        : "its check is not like for like");
    }
    if (rc < 0) {
        fit_free(&f);
        return rc;
    }
    for (int i = 0; i < f.n_fit; i++)
        f.n += (size_t)f.caps[i].n_resid;
    f.n += (size_t)f.p;
    res->n_resid = (int)f.n;
    res->n_params = f.p;

    gsl_error_handler_t *old_handler = gsl_set_error_handler_off();
    gsl_multifit_nlinear_fdf fdf = {.f = gsl_f, .df = gsl_df, .fvv = NULL, .n = f.n, .p = (size_t)f.p,
                                    .params = &f};
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, f.n, (size_t)f.p);
    gsl_vector *x = gsl_vector_alloc((size_t)f.p), *r = gsl_vector_alloc(f.n);
    gsl_matrix *J = gsl_matrix_alloc(f.n, (size_t)f.p), *cov = gsl_matrix_alloc((size_t)f.p, (size_t)f.p);
    for (int j = 0; j < f.p; j++)
        gsl_vector_set(x, (size_t)j, f.fixed[f.pmap[j]]);
    /* the start: every capture's errors before fitting */
    if (eval_f(&f, x, r, REC_START) != GSL_SUCCESS) {
        rc = f.failed;
        goto out;
    }
    double chi;
    gsl_blas_ddot(r, r, &chi);
    res->chi2_start = chi;
    if (o->log)
        fprintf(o->log, "calibrate: %d fitted capture(s), %zu residuals, %d knob(s); start chi2 %.5g\n", f.n_fit,
                f.n, f.p, chi);
    int info = 0;
    gsl_multifit_nlinear_init(x, &fdf, w);
    res->gsl_status = gsl_multifit_nlinear_driver((size_t)(o->max_iter > 0 ? o->max_iter : DEF_MAX_ITER), TR_XTOL,
                                                  TR_GTOL, TR_FTOL, iter_cb, &f, &info, w);
    if (f.failed) {
        rc = f.failed;
        goto out;
    }
    res->iterations = (int)gsl_multifit_nlinear_niter(w);
    gsl_vector_memcpy(x, gsl_multifit_nlinear_position(w));
    if (o->polish_iter >= 0 &&
        polish(&f, x, o->polish_iter ? o->polish_iter : DEF_POLISH_PER_KNOB * f.p, &res->polish_iterations)) {
        rc = f.failed;
        goto out;
    }
    for (int j = 0; j < f.p; j++) /* clamp to what the residuals saw */
        gsl_vector_set(x, (size_t)j, clamp_x(gsl_vector_get(x, (size_t)j)));
    /* the solution: residuals, Jacobian, covariance */
    if (eval_f(&f, x, r, REC_FINAL) != GSL_SUCCESS || gsl_df(x, &f, J) != GSL_SUCCESS) {
        rc = f.failed;
        goto out;
    }
    gsl_blas_ddot(r, r, &chi);
    res->chi2 = chi;
    gsl_multifit_nlinear_covar(J, 0.0, cov);
    double s2 = f.n > (size_t)f.p ? chi / (double)(f.n - (size_t)f.p) : 1.0;
    double xs[CALIB_N_KNOBS];
    full_x(&f, x, xs);
    for (int k = 0; k < CALIB_N_KNOBS; k++) {
        res->scale[k] = exp(xs[k]);
        res->sigma_log[k] = NAN;
        for (int l = 0; l < CALIB_N_KNOBS; l++)
            res->corr[k][l] = NAN;
    }
    for (int a = 0; a < f.p; a++) {
        double va = gsl_matrix_get(cov, (size_t)a, (size_t)a);
        res->sigma_log[f.pmap[a]] = sqrt(s2 * va);
        for (int b = 0; b < f.p; b++) {
            double vb = gsl_matrix_get(cov, (size_t)b, (size_t)b);
            res->corr[f.pmap[a]][f.pmap[b]] = gsl_matrix_get(cov, (size_t)a, (size_t)b) / sqrt(va * vb);
        }
    }
    /* held-out captures at the solution */
    for (int i = f.n_fit; i < f.n_caps && rc == 0; i++) {
        struct cap_ctx *c = &f.caps[i];
        double *rr = sim_xcalloc((size_t)c->n_resid, sizeof *rr);
        rc = score_capture(&f, c, f.fixed, rr, REC_START, err);
        if (rc == 0)
            rc = score_capture(&f, c, xs, rr, REC_FINAL, err);
        free(rr);
    }
    if (rc < 0)
        goto out;
    res->evaluations = f.evaluations;
out:
    gsl_vector_free(x);
    gsl_vector_free(r);
    gsl_matrix_free(J);
    gsl_matrix_free(cov);
    gsl_multifit_nlinear_free(w);
    gsl_set_error_handler(old_handler);
    fit_free(&f);
    return rc;
}

/* ------------------------------------------------------------------ reporting */

static const char *short_dir(const char *dir)
{
    const char *s = strrchr(dir, '/');
    while (s && !s[1] && s > dir) { /* trailing slash */
        const char *t = s - 1;
        while (t > dir && *t != '/')
            t--;
        return *t == '/' ? t + 1 : t;
    }
    return s ? s + 1 : dir;
}

void calibrate_print(FILE *f, const struct calibrate_opts *o, const struct calibrate_result *res)
{
    fprintf(f, "cephsim calibrate: %s, %d residuals, %d knobs, %d trust-region + %d simplex iterations, "
               "%d evaluations (x %d captures), chi2 %.4g -> %.4g\n",
            o->scenario, res->n_resid, res->n_params, res->iterations, res->polish_iterations, res->evaluations,
            o->n_fit, res->chi2_start, res->chi2);
    fprintf(f, "\nfitted scale factors (x base scenario; 68 %% interval from the Jacobian at the solution):\n");
    for (int k = 0; k < CALIB_N_KNOBS; k++) {
        char mem[600];
        calibrate_knob_members(k, mem, sizeof mem);
        if (res->knobs & (1u << k))
            fprintf(f, "  %-11s %6.3f  [%.3f, %.3f]  %s\n", knobs[k].name, res->scale[k],
                    res->scale[k] * exp(-res->sigma_log[k]), res->scale[k] * exp(res->sigma_log[k]), mem);
        else
            fprintf(f, "  %-11s %6.3f  (fixed)          %s\n", knobs[k].name, res->scale[k], mem);
    }
    fprintf(f, "\n%-44s %-8s %-34s %-40s %-26s %s\n", "capture", "role", "IOPS real / sim (err)",
            "clat mean us real / sim (err)", "clat p99 us real / sim", "rms resid start -> fit");
    for (int i = 0; i < res->n_caps; i++) {
        const struct calibrate_capture_result *c = &res->caps[i];
        char a[64], b[64], d[64];
        snprintf(a, sizeof a, "%.0f / %.0f (%+.1f%%)", c->real[VALIDATE_IOPS], c->sim[VALIDATE_IOPS],
                 100 * validate_rel_error(c->sim[VALIDATE_IOPS], c->real[VALIDATE_IOPS]));
        snprintf(b, sizeof b, "%.0f / %.0f (%+.1f%%)", c->real[VALIDATE_LAT_MEAN], c->sim[VALIDATE_LAT_MEAN],
                 100 * validate_rel_error(c->sim[VALIDATE_LAT_MEAN], c->real[VALIDATE_LAT_MEAN]));
        snprintf(d, sizeof d, "%.0f / %.0f (%+.0f%%)", c->real[VALIDATE_LAT_P99], c->sim[VALIDATE_LAT_P99],
                 100 * validate_rel_error(c->sim[VALIDATE_LAT_P99], c->real[VALIDATE_LAT_P99]));
        fprintf(f, "%-44s %-8s %-34s %-40s %-26s %.3f -> %.3f\n", short_dir(c->dir), c->fitted ? "fit" : "held-out",
                a, b, d, c->rms0, c->rms);
    }
}

static void num(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

cJSON *calibrate_result_json(const struct calibrate_opts *o, const struct calibrate_result *res)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "scenario", o->scenario);
    cJSON_AddNumberToObject(j, "residuals", res->n_resid);
    cJSON_AddNumberToObject(j, "iterations", res->iterations);
    cJSON_AddNumberToObject(j, "polish_iterations", res->polish_iterations);
    cJSON_AddNumberToObject(j, "evaluations", res->evaluations);
    cJSON_AddNumberToObject(j, "chi2_start", res->chi2_start);
    cJSON_AddNumberToObject(j, "chi2", res->chi2);
    cJSON_AddStringToObject(j, "gsl_status", gsl_strerror(res->gsl_status));
    cJSON *kn = cJSON_AddObjectToObject(j, "knobs");
    for (int k = 0; k < CALIB_N_KNOBS; k++) {
        cJSON *e = cJSON_AddObjectToObject(kn, knobs[k].name);
        char mem[600];
        cJSON_AddBoolToObject(e, "fitted", (res->knobs >> k) & 1);
        num(e, "scale", res->scale[k]);
        num(e, "sigma_log", res->sigma_log[k]);
        num(e, "lo68", res->scale[k] * exp(-res->sigma_log[k]));
        num(e, "hi68", res->scale[k] * exp(res->sigma_log[k]));
        cJSON_AddStringToObject(e, "members", calibrate_knob_members(k, mem, sizeof mem));
        cJSON *cr = cJSON_AddObjectToObject(e, "correlation");
        for (int l = 0; l < CALIB_N_KNOBS; l++)
            if (isfinite(res->corr[k][l]))
                cJSON_AddNumberToObject(cr, knobs[l].name, res->corr[k][l]);
    }
    cJSON *caps = cJSON_AddArrayToObject(j, "captures");
    for (int i = 0; i < res->n_caps; i++) {
        const struct calibrate_capture_result *c = &res->caps[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "dir", c->dir);
        cJSON_AddStringToObject(e, "role", c->fitted ? "fit" : "held-out");
        cJSON_AddStringToObject(e, "sets", c->sets);
        for (int m = 0; m < VALIDATE_N_METRICS; m++) {
            cJSON *mm = cJSON_AddObjectToObject(e, validate_metric_key(m));
            num(mm, "real", c->real[m]);
            num(mm, "sim_start", c->sim0[m]);
            num(mm, "sim", c->sim[m]);
            num(mm, "rel_error", validate_rel_error(c->sim[m], c->real[m]));
        }
        cJSON *st = cJSON_AddObjectToObject(e, "stage_medians_us");
        for (int d = 0; d < VALIDATE_N_DISTS; d++) {
            cJSON *sd = cJSON_AddObjectToObject(st, validate_dist_name(d));
            num(sd, "real", c->real_stage[d]);
            num(sd, "sim", c->sim_stage[d]);
        }
        num(e, "rms_start", c->rms0);
        num(e, "rms", c->rms);
        cJSON_AddItemToArray(caps, e);
    }
    return j;
}

/* ------------------------------------------------------------------ writing the result */

static double round_sig(double v, int digits)
{
    if (v == 0 || !isfinite(v))
        return v;
    double m = pow(10, digits - 1 - (int)floor(log10(fabs(v))));
    return round(v * m) / m;
}

static cJSON *object_at(cJSON *parent, const char *key)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (!cJSON_IsObject(o)) {
        cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
        o = cJSON_AddObjectToObject(parent, key);
    }
    return o;
}

/* Set key (in place when it exists, so the file keeps its order). */
static void set_item(cJSON *o, const char *key, cJSON *v)
{
    if (cJSON_GetObjectItemCaseSensitive(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, v);
    else
        cJSON_AddItemToObject(o, key, v);
}

static void set_num(cJSON *o, const char *key, double v)
{
    set_item(o, key, cJSON_CreateNumber(round_sig(v, 4)));
}

static void scale_pct_json(cJSON *arr, double s)
{
    cJSON *pair;
    cJSON_ArrayForEach(pair, arr) {
        cJSON *us = cJSON_GetArrayItem(pair, 1);
        if (cJSON_IsNumber(us))
            cJSON_SetNumberValue(us, round_sig(us->valuedouble * s, 4));
    }
}

/* How the calibrated scenario at scenario_out names the profile written at
   profile_path: by its short name when it lies in the profiles directory the
   scenario will search (hw-profiles/nvme/NAME.json), else by its path relative
   to the scenario's directory, never an absolute path: the tree stays
   relocatable. */
static int profile_reference(const char *profile_path, const char *scenario_out, char *out, size_t n,
                             struct sim_err *err)
{
    char pdir[PATH_MAX], sdir[PATH_MAX], kind_dir[PATH_MAX + 8], real_kind[PATH_MAX], real_pdir[PATH_MAX];
    files_dir_of(profile_path, pdir, sizeof pdir);
    files_dir_of(scenario_out, sdir, sizeof sdir);
    if (hwprofile_find_dir_for(scenario_out, kind_dir, PATH_MAX, NULL) == 0) {
        strcat(kind_dir, "/nvme");
        const char *base = strrchr(profile_path, '/') ? strrchr(profile_path, '/') + 1 : profile_path;
        size_t bl = strlen(base);
        if (realpath(kind_dir, real_kind) && realpath(pdir, real_pdir) && !strcmp(real_kind, real_pdir) &&
            bl > 5 && !strcmp(base + bl - 5, ".json") && bl - 5 < n) {
            snprintf(out, n, "%.*s", (int)(bl - 5), base);
            return 0;
        }
    }
    int rc = files_relative_to(profile_path, sdir, out, n);
    if (rc < 0)
        return sim_errf(err, rc, "%s: cannot name it relative to %s: %s", profile_path, sdir, strerror(-rc));
    return 0;
}

int calibrate_write_scenario(const struct calibrate_opts *o, const struct calibrate_result *res,
                             const char *out_path, const char *profile_out, struct sim_err *err)
{
    /* base values: the scenario with the user's --set, without any capture's workload */
    struct scenario sc;
    int rc = scenario_load(&sc, o->scenario, NULL, NULL, o->sets, o->n_sets, err);
    if (rc < 0)
        return rc;
    cJSON *root = jsonu_load_file(o->scenario, err);
    if (!root) {
        scenario_free(&sc);
        return err ? err->code : -EINVAL;
    }
    cJSON *cost = NULL, *hw = NULL;
    bool nvme_tables = false;
    for (int k = 0; k < CALIB_N_KNOBS; k++) {
        double s = res->scale[k];
        if (s == 1.0 && !(res->knobs & (1u << k)))
            continue;
        for (const struct member *m = knobs[k].m; m->name; m++) {
            switch (m->kind) {
            case M_COST:
                if (!cost)
                    cost = object_at(root, "cost");
                set_num(cost, m->name, *cost_field(&sc.cost, m->name) * s);
                break;
            case M_NIC:
                if (!hw)
                    hw = object_at(root, "hw");
                set_num(object_at(hw, "nic"), m->name, *nic_field(&sc.nic, m->name) * s);
                break;
            case M_NVME_WRITE:
            case M_NVME_FLUSH: {
                /* a latency set in the scenario replaces the profile's measured shape (scenario.c):
                   a scaled table can only be kept in a profile */
                bool w = m->kind == M_NVME_WRITE;
                bool table = w ? sc.nvme.n_write_pct > 0 : sc.nvme.n_flush_pct > 0 && !o->drop_flush_table;
                if (table) {
                    nvme_tables = true;
                    break;
                }
                if (!hw)
                    hw = object_at(root, "hw");
                cJSON *nv = object_at(hw, "nvme");
                set_num(nv, m->name, (w ? sc.nvme.write_latency_us : sc.nvme.flush_latency_us) * s);
                if (w)
                    set_num(nv, "seq_write_latency_us", sc.nvme.seq_write_latency_us * s);
                break;
            }
            }
        }
    }
    /* a dropped flush table: the constant flush_latency_us, set in the scenario */
    bool drop = o->drop_flush_table && sc.nvme.n_flush_pct > 0;
    if (drop) {
        if (!hw)
            hw = object_at(root, "hw");
        set_num(object_at(hw, "nvme"), "flush_latency_us", sc.nvme.flush_latency_us * res->scale[CALIB_NVME_FLUSH]);
    }
    char pbuf[PATH_MAX];
    if (nvme_tables) {
        /* the tables only live in profiles: write the scaled profile, point at it */
        if (!profile_out) {
            snprintf(pbuf, sizeof pbuf, "%.*s.nvme.json",
                     (int)(strlen(out_path) > 5 && !strcmp(out_path + strlen(out_path) - 5, ".json")
                               ? strlen(out_path) - 5 : strlen(out_path)),
                     out_path);
            profile_out = pbuf;
        }
        cJSON *prof = jsonu_load_file(sc.nvme.path, err);
        if (!prof) {
            rc = err ? err->code : -EINVAL;
            goto out;
        }
        double sw = res->scale[CALIB_NVME_WRITE], sf = res->scale[CALIB_NVME_FLUSH];
        scale_pct_json(cJSON_GetObjectItemCaseSensitive(prof, "write_latency_pct_us"), sw);
        if (!drop)
            scale_pct_json(cJSON_GetObjectItemCaseSensitive(prof, "flush_latency_pct_us"), sf);
        set_num(prof, "write_latency_us", sc.nvme.write_latency_us * sw);
        if (cJSON_GetObjectItemCaseSensitive(prof, "seq_write_latency_us"))
            set_num(prof, "seq_write_latency_us", sc.nvme.seq_write_latency_us * sw);
        set_num(prof, "flush_latency_us", sc.nvme.flush_latency_us * sf);
        char src[HWPROFILE_SOURCE_MAX + 200];
        if (drop)
            snprintf(src, sizeof src, "%s Calibrated by cephsim calibrate against %s: write latencies x%.3f.",
                     sc.nvme.source, o->scenario, sw);
        else
            snprintf(src, sizeof src, "%s Calibrated by cephsim calibrate against %s: write latencies x%.3f, "
                                      "flush latencies x%.3f.", sc.nvme.source, o->scenario, sw, sf);
        set_item(prof, "source", cJSON_CreateString(src));
        rc = jsonu_write_file(profile_out, prof, err);
        cJSON_Delete(prof);
        if (rc < 0)
            goto out;
        char ref[PATH_MAX];
        if ((rc = profile_reference(profile_out, out_path, ref, sizeof ref, err)) < 0)
            goto out;
        set_item(object_at(root, "cluster"), "nvme", cJSON_CreateString(ref));
    }
    /* a relative job file is relative to its scenario: keep it so from the output's directory */
    char d_base[PATH_MAX], d_out[PATH_MAX];
    files_dir_of(o->scenario, d_base, sizeof d_base);
    files_dir_of(out_path, d_out, sizeof d_out);
    cJSON *clients = cJSON_GetObjectItemCaseSensitive(root, "clients");
    cJSON *jf = cJSON_GetObjectItemCaseSensitive(clients, "jobfile");
    if (cJSON_IsString(jf) && jf->valuestring[0] != '/') {
        char p[PATH_MAX * 2], rel[PATH_MAX];
        if (files_join(d_base, jf->valuestring, p, sizeof p) == 0 && files_relative_to(p, d_out, rel, sizeof rel) == 0)
            cJSON_SetValuestring(jf, rel);
    }
    /* provenance in the description (replacing an earlier calibration note) */
    cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    char text[4096] = "";
    if (cJSON_IsString(desc)) {
        snprintf(text, sizeof text, "%s", desc->valuestring);
        char *cut = strstr(text, " [calibrated");
        if (cut)
            *cut = '\0';
    }
    size_t used = strlen(text);
    used += (size_t)snprintf(text + used, sizeof text - used, " [calibrated by cephsim calibrate on %d capture(s):",
                             o->n_fit);
    for (int k = 0; k < CALIB_N_KNOBS && used < sizeof text; k++)
        if (res->knobs & (1u << k))
            used += (size_t)snprintf(text + used, sizeof text - used, " %s x%.3f", knobs[k].name, res->scale[k]);
    if (used < sizeof text)
        snprintf(text + used, sizeof text - used, "]");
    set_item(root, "description", cJSON_CreateString(text));
    rc = jsonu_write_file(out_path, root, err);
out:
    cJSON_Delete(root);
    scenario_free(&sc);
    return rc;
}

/* ------------------------------------------------------------------ command */

/* ------------------------------------------------------------------ compare */

/* "noparent_randw-qd1_sched-none_rt_r2" -> "noparent_randw-qd1_sched-none_rt" (the kit's
   repetitions); a name without _r<N> is a group of its own. */
static void group_name(const char *run, char *out, size_t n)
{
    snprintf(out, n, "%s", run);
    char *r = strrchr(out, '_');
    if (r && r[1] == 'r' && r[2]) {
        for (const char *p = r + 2; *p; p++)
            if (*p < '0' || *p > '9')
                return;
        *r = '\0';
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int calibrate_compare_dir(const struct calibrate_opts *o, const char *dir, struct calibrate_group **groups,
                          int *n_groups, struct sim_err *err)
{
    *groups = NULL;
    *n_groups = 0;
    DIR *d = opendir(dir);
    if (!d)
        return sim_errf(err, -errno, "%s: %s", dir, strerror(errno));
    char **runs = NULL;
    size_t n_runs = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s/fio.json", dir, e->d_name);
        if (e->d_name[0] == '.' || access(path, R_OK) != 0)
            continue;
        if (n_runs == cap) {
            cap = cap ? 2 * cap : 64;
            runs = sim_xrealloc(runs, cap, sizeof *runs);
        }
        runs[n_runs++] = sim_xstrdup(e->d_name);
    }
    closedir(d);
    if (n_runs)
        qsort(runs, n_runs, sizeof *runs, cmp_str);
    struct calibrate_group *g = sim_xcalloc(n_runs ? n_runs : 1, sizeof *g);
    int ng = 0, rc = 0;
    struct fit_ctx f = {.o = o, .err = err};
    for (size_t i = 0; i < n_runs && rc == 0; i++) {
        char name[256], path[PATH_MAX];
        group_name(runs[i], name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", dir, runs[i]);
        struct validate_capture real;
        if ((rc = validate_capture_load(path, &real, err)) < 0)
            break;
        struct calibrate_group *cur = ng && !strcmp(g[ng - 1].name, name) ? &g[ng - 1] : NULL;
        if (!cur) {
            /* a new group: simulate it once, with its first repetition's workload */
            cur = &g[ng++];
            snprintf(cur->name, sizeof cur->name, "%s", name);
            cur->ddir = real.ddir;
            cur->real_iops_min = cur->real_lat_min = INFINITY;
            struct calibrate_capture_result out = {0};
            struct cap_ctx c = {.out = &out};
            validate_capture_free(&real);
            if ((rc = cap_load(&f, &c, path, false, err)) < 0) {
                if (c.sc.json)
                    scenario_free(&c.sc);
                break;
            }
            real = c.real;
            memset(&c.real, 0, sizeof c.real);
            double x[CALIB_N_KNOBS] = {0};
            struct validate_capture sim;
            rc = simulate(&c, x, &sim, err);
            scenario_free(&c.sc);
            if (rc < 0) {
                validate_capture_free(&real);
                break;
            }
            cur->sim_iops = sim.iops;
            cur->sim_lat = sim.lat_mean_us;
            double sim_read = sim.cache_hit_bytes + sim.cache_miss_bytes;
            cur->sim_cache_hit = sim_read > 0 ? sim.cache_hit_bytes / sim_read : -1;
            snprintf(cur->sets, sizeof cur->sets, "%s", out.sets);
            validate_capture_free(&sim);
        }
        cur->reps++;
        cur->real_iops += real.iops;
        cur->real_lat += real.lat_mean_us;
        cur->real_iops_min = fmin(cur->real_iops_min, real.iops);
        cur->real_iops_max = fmax(cur->real_iops_max, real.iops);
        cur->real_lat_min = fmin(cur->real_lat_min, real.lat_mean_us);
        cur->real_lat_max = fmax(cur->real_lat_max, real.lat_mean_us);
        cur->real_hit_bytes += real.cache_hit_bytes;
        cur->real_read_bytes += real.cache_hit_bytes + real.cache_miss_bytes;
        if (isfinite(real.foreign_cores)) {
            cur->foreign_cores += real.foreign_cores;
            cur->outside_daemons_cores += isfinite(real.outside_daemons_cores) ? real.outside_daemons_cores : 0;
            cur->machine_cpus = real.machine_cpus;
            if (!cur->foreign_reps++ || real.foreign_cores > cur->foreign_max) {
                cur->foreign_max = real.foreign_cores;
                snprintf(cur->foreign_top, sizeof cur->foreign_top, "%s", real.foreign_top);
            }
        }
        validate_capture_free(&real);
    }
    for (int k = 0; k < ng; k++) {
        g[k].real_iops /= g[k].reps;
        g[k].real_lat /= g[k].reps;
        g[k].err_iops = validate_rel_error(g[k].sim_iops, g[k].real_iops);
        g[k].err_lat = validate_rel_error(g[k].sim_lat, g[k].real_lat);
        g[k].real_cache_hit = g[k].real_read_bytes > 0 ? g[k].real_hit_bytes / g[k].real_read_bytes : -1;
        g[k].foreign_cores = g[k].foreign_reps ? g[k].foreign_cores / g[k].foreign_reps : NAN;
        g[k].outside_daemons_cores = g[k].foreign_reps ? g[k].outside_daemons_cores / g[k].foreign_reps : NAN;
    }
    for (size_t i = 0; i < n_runs; i++)
        free(runs[i]);
    free(runs);
    if (rc < 0) {
        free(g);
        return rc;
    }
    if (ng == 0) {
        free(g);
        return sim_errf(err, -ENOENT, "%s: no capture (a directory with fio.json) in it", dir);
    }
    *groups = g;
    *n_groups = ng;
    return 0;
}

void calibrate_compare_summary(const struct calibrate_group *g, int n, double *mean_abs_iops, double *mean_abs_lat)
{
    double si = 0, sl = 0;
    for (int i = 0; i < n; i++) {
        si += fabs(g[i].err_iops);
        sl += fabs(g[i].err_lat);
    }
    *mean_abs_iops = n ? si / n : NAN;
    *mean_abs_lat = n ? sl / n : NAN;
}

/* A read capture that found its data in the cache is not the cold run simulated
   (fio's randrepeat=1 re-reads the offsets of the run before); write runs read a
   little too (the counters see BlueStore's own reads), so only read groups. */
bool calibrate_group_cache_warm(const struct calibrate_group *g)
{
    return g->ddir == 0 && g->real_cache_hit >= CALIBRATE_CACHE_NOTE &&
           g->real_cache_hit - fmax(g->sim_cache_hit, 0) >= CALIBRATE_CACHE_NOTE;
}

void calibrate_compare_print(FILE *fp, const char *scenario, const char *dir, const struct calibrate_group *g, int n)
{
    fprintf(fp, "%s against the captures of %s (real: mean of the repetitions, spread = (max - min) / mean)\n",
            scenario, dir);
    fprintf(fp, "%-44s %4s %5s %9s %6s %9s %7s %10s %6s %10s %7s\n", "capture group", "reps", "dir", "real IOPS",
            "spread", "sim IOPS", "error", "real clat", "spread", "sim clat", "error");
    for (int i = 0; i < n; i++)
        fprintf(fp, "%-44s %4d %5s %9.0f %5.0f%% %9.0f %+6.1f%% %9.0fus %5.0f%% %8.0fus %+6.1f%%\n", g[i].name,
                g[i].reps, g[i].ddir ? "write" : "read", g[i].real_iops,
                100 * (g[i].real_iops_max - g[i].real_iops_min) / g[i].real_iops, g[i].sim_iops, 100 * g[i].err_iops,
                g[i].real_lat, 100 * (g[i].real_lat_max - g[i].real_lat_min) / g[i].real_lat, g[i].sim_lat,
                100 * g[i].err_lat);
    double ei, el;
    calibrate_compare_summary(g, n, &ei, &el);
    fprintf(fp, "mean |error| over %d groups: IOPS %.1f%%, clat mean %.1f%%\n", n, 100 * ei, 100 * el);
    /* the same over the groups taken without other load, which the model expresses */
    double qi = 0, ql = 0;
    int nq = 0;
    for (int i = 0; i < n; i++)
        if (!validate_foreign_note(g[i].foreign_cores, g[i].outside_daemons_cores, g[i].machine_cpus)) {
            qi += fabs(g[i].err_iops);
            ql += fabs(g[i].err_lat);
            nq++;
        }
    if (nq < n && nq > 0)
        fprintf(fp, "mean |error| over the %d group%s taken without other load (notes below): IOPS %.1f%%, clat mean "
                    "%.1f%%\n",
                nq, nq == 1 ? "" : "s", 100 * qi / nq, 100 * ql / nq);
    for (int i = 0; i < n; i++)
        if (calibrate_group_cache_warm(&g[i]))
            fprintf(fp, "  %s: the real reads found %.0f%% of their bytes in BlueStore's data cache, the simulated %.0f%% "
                        "(bluestore_buffer_hit_bytes; fio's randrepeat=1 re-reads the previous run's offsets: drop the "
                        "OSDs' caches or use randrepeat=0 for a cold capture)\n",
                    g[i].name, 100 * g[i].real_cache_hit, 100 * fmax(g[i].sim_cache_hit, 0));
    /* a capture taken while other work ran on the machine is not the unloaded
       host simulated (tests/data/lab10) */
    for (int i = 0; i < n; i++)
        if (validate_foreign_note(g[i].foreign_cores, g[i].outside_daemons_cores, g[i].machine_cpus)) {
            char lead[sizeof g[i].name + 8];
            snprintf(lead, sizeof lead, "  %s: ", g[i].name);
            validate_print_foreign_note(fp, lead, g[i].foreign_cores, g[i].foreign_top, g[i].outside_daemons_cores,
                                        g[i].machine_cpus);
        }
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cephsim calibrate --profile SCENARIO --real DIR [--real DIR]... [--check DIR]...\n"
            "       cephsim calibrate --profile SCENARIO --compare DIR [--compare DIR]... [--max-error PCT]\n"
            "                         [-o OUT.json] [--knobs LIST] [--set PATH=VALUE]... [--duration S]\n"
            "                         [--max-iter N] [--polish N] [--start KNOB=S,...] [--prior W]\n"
            "                         [--stage-weight W] [--p99-weight W] [--report FILE]\n"
            "                         [--nvme-profile-out FILE] [--flush-table keep|drop] [-q]\n"
            "\n"
            "Fit scale factors of SCENARIO's per-stage CPU costs and device latencies to real captures\n"
            "(fio.json, osd.N.perf.json, op-tracker dumps: the tests/lab kit's run directories).  Every\n"
            "evaluation simulates each --real capture with its workload (fio rw/bs/iodepth/numjobs, image\n"
            "kind, rbd_io_scheduler from fio.json and meta.json); --check captures are only predicted.\n"
            "  -p, --profile, --scenario SCENARIO   the base scenario whose cost.* / hw.* are fitted\n"
            "  -r, --real DIR         a capture to fit (repeatable)\n"
            "  -c, --check DIR        a held-out capture (repeatable)\n"
            "  -o, --output FILE      the calibrated scenario (base + fitted cost.* / hw.* values)\n"
            "  -k, --knobs LIST       client,msgr,bytes,osd,bluestore,wake,nvme_write,nvme_flush or all\n"
            "                         (default all)\n"
            "  -S, --set PATH=VALUE   override for every simulation (repeatable)\n"
            "      --duration S       simulated seconds per evaluation (default: the scenario's)\n"
            "      --max-iter N       trust-region iterations (default 30)\n"
            "      --polish N         Nelder-Mead iterations after it (default 30 x knobs; 0 or -1: none)\n"
            "      --start LIST       starting scale factors, e.g. osd=1.2,wake=2\n"
            "      --prior W          pull of each log(scale) towards 0 (default 0.1)\n"
            "      --stage-weight W   weight of the per-stage median residuals (default 0.2, 0 = none)\n"
            "      --p99-weight W     weight of the clat p99 residual (default 0.2)\n"
            "      --report FILE      the fit as JSON\n"
            "      --nvme-profile-out FILE  where a scaled NVMe profile goes when it has latency tables\n"
            "      --compare DIR      no fit: simulate SCENARIO once per capture group under DIR (runs\n"
            "                         <group>_r<N>) and print it against the mean and spread of its\n"
            "                         repetitions, with the mean |error| of IOPS and clat mean\n"
            "      --max-error PCT    with --compare: exit 1 when a mean |error| is above PCT\n"
            "      --flush-table keep|drop  keep: nvme_flush scales the profile's flush percentile table\n"
            "                         (default); drop: flushes cost the constant flush_latency_us\n"
            "      --no-infer         do not take the workload from the captures\n"
            "  -q, --quiet            no progress\n");
}

static int parse_start(const char *text, double *start, struct sim_err *err)
{
    char *buf = sim_xstrdup(text), *save = NULL;
    int rc = 0;
    for (char *t = strtok_r(buf, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        unsigned mask;
        if (!eq) {
            rc = sim_errf(err, -EINVAL, "--start %s: expected knob=scale", t);
            break;
        }
        *eq = '\0';
        struct sim_err bad = {0};
        if ((rc = calibrate_parse_knobs(t, &mask, &bad)) < 0) {
            /* its message names --knobs: say --start, the option given */
            const char *why = strncmp(bad.msg, "--knobs: ", 9) ? bad.msg : bad.msg + 9;
            rc = sim_errf(err, rc, "--start %s=%s: %s", t, eq + 1, why);
            break;
        }
        char *end;
        double v = strtod(eq + 1, &end);
        if (*end || !(v > 0) || !isfinite(v))
            rc = sim_errf(err, -EINVAL, "--start %s=%s: expected a positive, finite scale", t, eq + 1);
        for (int k = 0; k < CALIB_N_KNOBS && rc == 0; k++)
            if (mask & (1u << k))
                start[k] = v;
    }
    free(buf);
    return rc;
}

static int parse_weight(const char *opt, const char *v, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (*end || !(x >= 0) || !isfinite(x)) {
        fprintf(stderr, "cephsim calibrate: %s %s: expected a number >= 0\n", opt, v);
        return -1;
    }
    *out = x;
    return 0;
}

/* Whether the fit's result can be written to path (opt names the option): checked
   before the fit, which takes minutes, so that a typo does not lose it afterwards. */
static bool output_writable(const char *path, const char *opt)
{
    struct stat st;
    char dir[PATH_MAX];
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fprintf(stderr, "cephsim calibrate: %s %s: is a directory, not a file to write\n", opt, path);
            return false;
        }
        if (access(path, W_OK) != 0) {
            fprintf(stderr, "cephsim calibrate: %s %s: cannot write: %s\n", opt, path, strerror(errno));
            return false;
        }
        return true;
    }
    if (files_dir_of(path, dir, sizeof dir) < 0 || access(dir, W_OK) != 0) {
        fprintf(stderr, "cephsim calibrate: %s %s: cannot write into %s: %s\n", opt, path, dir,
                strerror(errno ? errno : ENAMETOOLONG));
        return false;
    }
    return true;
}

int cmd_calibrate(int argc, char **argv)
{
    enum { OPT_DURATION = 256, OPT_MAX_ITER, OPT_START, OPT_PRIOR, OPT_STAGE_W, OPT_P99_W, OPT_REPORT,
           OPT_NVME_OUT, OPT_NO_INFER, OPT_FLUSH, OPT_POLISH, OPT_COMPARE, OPT_MAX_ERROR };
    static const struct option opts[] = {
        {"profile", required_argument, NULL, 'p'},     {"scenario", required_argument, NULL, 'p'},
        {"real", required_argument, NULL, 'r'},        {"check", required_argument, NULL, 'c'},
        {"output", required_argument, NULL, 'o'},      {"knobs", required_argument, NULL, 'k'},
        {"set", required_argument, NULL, 'S'},         {"duration", required_argument, NULL, OPT_DURATION},
        {"max-iter", required_argument, NULL, OPT_MAX_ITER}, {"start", required_argument, NULL, OPT_START},
        {"prior", required_argument, NULL, OPT_PRIOR}, {"stage-weight", required_argument, NULL, OPT_STAGE_W},
        {"p99-weight", required_argument, NULL, OPT_P99_W}, {"report", required_argument, NULL, OPT_REPORT},
        {"nvme-profile-out", required_argument, NULL, OPT_NVME_OUT},
        {"no-infer", no_argument, NULL, OPT_NO_INFER}, {"flush-table", required_argument, NULL, OPT_FLUSH},
        {"polish", required_argument, NULL, OPT_POLISH},
        {"compare", required_argument, NULL, OPT_COMPARE}, {"max-error", required_argument, NULL, OPT_MAX_ERROR},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},              {0}};
    struct calibrate_opts o;
    calibrate_opts_defaults(&o);
    o.log = stderr;
    const char **fit = sim_xcalloc((size_t)argc + 1, sizeof *fit);
    const char **check = sim_xcalloc((size_t)argc + 1, sizeof *check);
    const char **sets = sim_xcalloc((size_t)argc + 1, sizeof *sets);
    const char **compare = sim_xcalloc((size_t)argc + 1, sizeof *compare);
    int n_compare = 0;
    double max_error = NAN;
    const char *out = NULL, *report = NULL, *nvme_out = NULL;
    int c, rc = 2;
    struct sim_err err = {0};
    char *end;
    optind = 1;
    while ((c = getopt_long(argc, argv, "p:r:c:o:k:S:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'p': o.scenario = optarg; break;
        case 'r': fit[o.n_fit++] = optarg; break;
        case 'c': check[o.n_check++] = optarg; break;
        case 'o': out = optarg; break;
        case 'k':
            if (calibrate_parse_knobs(optarg, &o.knobs, &err) < 0) {
                fprintf(stderr, "cephsim calibrate: %s\n", err.msg);
                goto done;
            }
            break;
        case 'S': sets[o.n_sets++] = optarg; break;
        case OPT_DURATION:
            o.duration_s = strtod(optarg, &end);
            if (*end || !(o.duration_s > 0)) {
                fprintf(stderr, "cephsim calibrate: --duration %s: expected seconds > 0\n", optarg);
                goto done;
            }
            break;
        case OPT_MAX_ITER:
            o.max_iter = (int)strtol(optarg, &end, 10);
            if (*end || o.max_iter < 1) {
                fprintf(stderr, "cephsim calibrate: --max-iter %s: expected a count >= 1\n", optarg);
                goto done;
            }
            break;
        case OPT_START:
            if (parse_start(optarg, o.start, &err) < 0) {
                fprintf(stderr, "cephsim calibrate: %s\n", err.msg);
                goto done;
            }
            break;
        case OPT_PRIOR:
            if (parse_weight("--prior", optarg, &o.prior_weight) < 0)
                goto done;
            break;
        case OPT_STAGE_W:
            if (parse_weight("--stage-weight", optarg, &o.stage_weight) < 0)
                goto done;
            break;
        case OPT_P99_W:
            if (parse_weight("--p99-weight", optarg, &o.p99_weight) < 0)
                goto done;
            break;
        case OPT_REPORT: report = optarg; break;
        case OPT_NVME_OUT: nvme_out = optarg; break;
        case OPT_NO_INFER: o.infer_workload = false; break;
        case OPT_POLISH:
            o.polish_iter = (int)strtol(optarg, &end, 10);
            if (!optarg[0] || *end || o.polish_iter < -1) {
                fprintf(stderr, "cephsim calibrate: --polish %s: expected iterations (0 or -1: none)\n", optarg);
                goto done;
            }
            /* 0 in the options is "the default"; on the command line it means none */
            if (o.polish_iter == 0)
                o.polish_iter = -1;
            break;
        case OPT_FLUSH:
            if (strcmp(optarg, "keep") && strcmp(optarg, "drop")) {
                fprintf(stderr, "cephsim calibrate: --flush-table %s: expected keep or drop\n", optarg);
                goto done;
            }
            o.drop_flush_table = !strcmp(optarg, "drop");
            break;
        case OPT_COMPARE: compare[n_compare++] = optarg; break;
        case OPT_MAX_ERROR:
            max_error = strtod(optarg, &end) / 100;
            if ((*end && strcmp(end, "%")) || !(max_error > 0)) {
                fprintf(stderr, "cephsim calibrate: --max-error %s: expected a percentage > 0\n", optarg);
                goto done;
            }
            break;
        case 'q': o.log = NULL; break;
        case 'h': usage(stdout); rc = 0; goto done;
        default: usage(stderr); goto done;
        }
    }
    if (n_compare && !o.n_fit && optind == argc && o.scenario) {
        o.sets = sets;
        rc = 0;
        for (int i = 0; i < n_compare && rc != 2; i++) {
            struct calibrate_group *g;
            int n;
            if (calibrate_compare_dir(&o, compare[i], &g, &n, &err) < 0) {
                fprintf(stderr, "cephsim calibrate: %s\n", err.msg);
                rc = 2;
                break;
            }
            calibrate_compare_print(stdout, o.scenario, compare[i], g, n);
            double ei, el;
            calibrate_compare_summary(g, n, &ei, &el);
            if (!isnan(max_error) && (ei > max_error || el > max_error)) {
                printf("over --max-error %.1f%%\n", 100 * max_error);
                rc = 1;
            }
            free(g);
        }
        goto done;
    }
    if (optind < argc || !o.scenario || !o.n_fit) {
        fprintf(stderr, "cephsim calibrate: %s\n", optind < argc ? "unexpected argument"
                                                    : !o.scenario ? "--profile SCENARIO is required"
                                                                  : "give at least one --real DIR");
        usage(stderr);
        goto done;
    }
    if ((out && !output_writable(out, "-o")) || (report && !output_writable(report, "--report")) ||
        (nvme_out && !output_writable(nvme_out, "--nvme-profile-out")))
        goto done;
    o.fit_dirs = fit;
    o.check_dirs = check;
    o.sets = sets;
    struct calibrate_result *res = sim_xcalloc(1, sizeof *res);
    if (calibrate_run(&o, res, &err) < 0) {
        fprintf(stderr, "cephsim calibrate: %s\n", err.msg);
        rc = err.code == -EINVAL || err.code == -ENOENT ? 2 : 1;
        free(res);
        goto done;
    }
    calibrate_print(stdout, &o, res);
    rc = 0;
    if (report) {
        cJSON *j = calibrate_result_json(&o, res);
        if (jsonu_write_file(report, j, &err) < 0) {
            fprintf(stderr, "cephsim calibrate: %s\n", err.msg);
            rc = 1;
        }
        cJSON_Delete(j);
    }
    if (out && rc == 0) {
        if (calibrate_write_scenario(&o, res, out, nvme_out, &err) < 0) {
            fprintf(stderr, "cephsim calibrate: %s\n", err.msg);
            rc = 1;
        } else {
            printf("calibrated scenario: %s\n", out);
        }
    }
    free(res);
done:
    free(fit);
    free(check);
    free(sets);
    free(compare);
    return rc;
}
