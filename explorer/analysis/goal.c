/*
 * goal.c - cheapest combination reaching a target (see goal.h).
 *
 * Branch and bound over the lattice of per-dimension option ranks (options
 * sorted by cost, costs additive).  Known: the cheapest hit so far (the
 * bound) and the misses.  Under monotonicity (a pricier option is never
 * worse), a miss at f rules out every c with c[d] <= f[d] for all d, and only
 * open combinations cheaper than the bound matter.  Each round evaluates -j
 * of them, chosen at evenly spaced cost quantiles (one: the median), after a
 * first probe of the all-priciest combination: on a chain this is bisection,
 * and the answer is exact once nothing cheaper than the bound is open.
 * --no-prune drops the assumption and scans in cost order instead: the first
 * hit is the cheapest.  Evaluations run on the sweep workers, one task per
 * replication, so a batch uses every core.
 */
#include "goal.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grid.h"
#include "scenario.h"
#include "stats.h"
#include "sweep.h"

static const char *const op_names[] = {"<=", "<", ">=", ">"};

int goal_parse_target(const char *text, struct goal_target *t, struct sim_err *err)
{
    const char *p = strpbrk(text, "<>");
    if (!p)
        return sim_errf(err, -EINVAL, "--target %s: expected METRIC<=VALUE (or <, >=, >)", text);
    char metric[64];
    size_t n = (size_t)(p - text);
    while (n > 0 && text[n - 1] == ' ')
        n--;
    snprintf(metric, sizeof metric, "%.*s", (int)n, text);
    bool eq = p[1] == '=';
    t->op = p[0] == '<' ? (eq ? GOAL_LE : GOAL_LT) : (eq ? GOAL_GE : GOAL_GT);
    char *end;
    t->value = strtod(p + 1 + eq, &end);
    while (*end == ' ')
        end++;
    if (end == p + 1 + eq || *end || !isfinite(t->value))
        return sim_errf(err, -EINVAL, "--target %s: '%s' is not a number", text, p + 1 + eq);
    if (!(t->metric = db_metric_find(metric)))
        return sim_errf(err, -EINVAL, "--target %s: unknown metric '%s' (e.g. iops, lat_mean_us, lat_p99_us)", text, metric);
    return 0;
}

void goal_dim_free(struct goal_dim *d)
{
    for (int i = 0; i < d->n; i++)
        free(d->values[i]);
    free(d->values);
    free(d->costs);
    memset(d, 0, sizeof *d);
}

/* Is value already one of d's options?  Numbers compare as numbers (4096 = 4096.0). */
static bool goal_dim_has_value(const struct goal_dim *d, const char *value)
{
    char *end;
    double x = strtod(value, &end);
    bool numeric = end != value && !*end;
    for (int i = 0; i < d->n; i++) {
        if (!strcmp(d->values[i], value))
            return true;
        double y = strtod(d->values[i], &end);
        if (numeric && end != d->values[i] && !*end && x == y)
            return true;
    }
    return false;
}

int goal_parse_cost(const char *text, struct goal_dim *d, struct sim_err *err)
{
    memset(d, 0, sizeof *d);
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || (size_t)(eq - text) >= sizeof d->path || !memchr(text, '.', (size_t)(eq - text)))
        return sim_errf(err, -EINVAL, "--cost %s: expected path=value:cost,value:cost (e.g. cluster.nic=10gbase-t:0,25gbe:1)",
                        text);
    snprintf(d->path, sizeof d->path, "%.*s", (int)(eq - text), text);
    char *list = sim_xstrdup(eq + 1), *save = NULL;
    int rc = 0;
    for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(item, ':'), *end;
        double c = colon ? strtod(colon + 1, &end) : NAN;
        if (!colon || colon == item || end == colon + 1 || *end || !isfinite(c)) {
            rc = sim_errf(err, -EINVAL, "--cost %s: '%s': expected value:cost", text, item);
            break;
        }
        /* the search adds costs and bisects on them: a negative one would make
           a combination cheaper by adding an option */
        if (c < 0) {
            rc = sim_errf(err, -EINVAL, "--cost %s: '%s': a cost cannot be negative", text, item);
            break;
        }
        *colon = '\0';
        if (goal_dim_has_value(d, item)) {
            rc = sim_errf(err, -EINVAL, "--cost %s: value '%s' given twice", text, item);
            break;
        }
        d->values = sim_xrealloc(d->values, (size_t)d->n + 1, sizeof *d->values);
        d->costs = sim_xrealloc(d->costs, (size_t)d->n + 1, sizeof *d->costs);
        /* insertion keeps equal costs in the given order */
        int k = d->n++;
        while (k > 0 && d->costs[k - 1] > c) {
            d->values[k] = d->values[k - 1];
            d->costs[k] = d->costs[k - 1];
            k--;
        }
        d->values[k] = sim_xstrdup(item);
        d->costs[k] = c;
    }
    free(list);
    if (rc == 0 && d->n == 0)
        rc = sim_errf(err, -EINVAL, "--cost %s: no options", text);
    if (rc < 0)
        goal_dim_free(d);
    return rc;
}

int goal_add_cost(struct goal_dim *dims, int *n_dims, const char *text, struct sim_err *err)
{
    struct goal_dim *d = &dims[*n_dims];
    int rc = goal_parse_cost(text, d, err);
    if (rc < 0)
        return rc;
    /* two --cost options for one parameter would make two dimensions that
       set it in turn: the second would silently win in every combination */
    for (int i = 0; i < *n_dims; i++)
        if (!strcmp(dims[i].path, d->path)) {
            rc = sim_errf(err, -EINVAL, "--cost %s: %s has its options in an earlier --cost already: "
                                        "list them all in one --cost", text, d->path);
            goal_dim_free(d);
            return rc;
        }
    (*n_dims)++;
    return 0;
}

/* ---- the search ------------------------------------------------------------- */

enum cand_state { ST_OPEN, ST_MISS, ST_RULED_OUT, ST_MEETS, ST_ERROR };

struct search {
    const struct goal_opts *o;
    FILE *out;
    int64_t *stride;
    int64_t total;
    unsigned char *state; /* enum cand_state per combination */
    double *cost;
    int *idx;             /* scratch: ranks of one combination */
    struct sweep_transport *t;
    struct db *db;
    int64_t sweep_id;
    int reps;
    int *width;
    int64_t best;         /* cheapest combination known to meet, -1 */
    double best_miss;     /* closest miss on the first target, for the report */
    int64_t best_miss_k;
};

static void decode(const struct search *s, int64_t k, int *idx)
{
    for (int d = 0; d < s->o->n_dims; d++)
        idx[d] = (int)(k / s->stride[d] % s->o->dims[d].n);
}

static bool below(const struct search *s, int64_t a, int64_t b) /* a <= b in every dimension */
{
    for (int d = 0; d < s->o->n_dims; d++)
        if (a / s->stride[d] % s->o->dims[d].n > b / s->stride[d] % s->o->dims[d].n)
            return false;
    return true;
}

static int cmp_by_cost(const void *a, const void *b, void *arg)
{
    const double *cost = arg;
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    if (cost[x] != cost[y])
        return cost[x] < cost[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static const char **cand_sets(const struct goal_opts *o, const int *idx, char **own)
{
    const char **sets = sim_xcalloc((size_t)(o->n_sets + o->n_dims) + 1, sizeof *sets);
    for (int i = 0; i < o->n_sets; i++)
        sets[i] = o->sets[i];
    for (int d = 0; d < o->n_dims; d++) {
        size_t n = strlen(o->dims[d].path) + strlen(o->dims[d].values[idx[d]]) + 2;
        own[d] = sim_xcalloc(n, 1);
        snprintf(own[d], n, "%s=%s", o->dims[d].path, o->dims[d].values[idx[d]]);
        sets[o->n_sets + d] = own[d];
    }
    return sets;
}

static void free_own(const struct goal_opts *o, char **own, const char **sets)
{
    for (int d = 0; d < o->n_dims; d++)
        free(own[d]);
    free(own);
    free(sets);
}

static cJSON *cand_axes(const struct goal_opts *o, const int *idx)
{
    cJSON *j = cJSON_CreateObject();
    for (int d = 0; d < o->n_dims; d++) {
        const char *v = o->dims[d].values[idx[d]];
        char *end;
        double x = strtod(v, &end);
        if (end != v && !*end)
            cJSON_AddNumberToObject(j, o->dims[d].path, x);
        else
            cJSON_AddStringToObject(j, o->dims[d].path, v);
    }
    return j;
}

/* A recorded run's summary (the --db cache), or NULL. */
static cJSON *cached_summary(struct search *s, const char *id, int rep)
{
    return s->db ? db_run_summary(s->db, id, rep) : NULL;
}

struct eval {
    int64_t k;
    struct grid_resolved res;
    cJSON **summary; /* per replication */
    int cached;
    char error[520];
};

static bool meets(const struct goal_target *t, const struct ci *c, bool confident)
{
    double lo = confident ? c->mean - c->half : c->mean, hi = confident ? c->mean + c->half : c->mean;
    switch (t->op) {
    case GOAL_LE: return hi <= t->value;
    case GOAL_LT: return hi < t->value;
    case GOAL_GE: return lo >= t->value;
    case GOAL_GT: return lo > t->value;
    }
    return false;
}

static void print_header(struct search *s)
{
    const struct goal_opts *o = s->o;
    fprintf(s->out, "%4s  %8s", "#", "cost");
    for (int d = 0; d < o->n_dims; d++)
        fprintf(s->out, "  %-*s", s->width[d], o->dims[d].path);
    for (int t = 0; t < o->n_targets; t++)
        fprintf(s->out, "  %-22s", o->targets[t].metric->name);
    fprintf(s->out, "  verdict\n");
}

static void print_row(struct search *s, int n, int64_t k, const struct ci *vals, const char *verdict)
{
    const struct goal_opts *o = s->o;
    decode(s, k, s->idx);
    fprintf(s->out, "%4d  %8.4g", n, s->cost[k]);
    for (int d = 0; d < o->n_dims; d++)
        fprintf(s->out, "  %-*s", s->width[d], o->dims[d].values[s->idx[d]]);
    for (int t = 0; t < o->n_targets; t++) {
        char v[64] = "-";
        if (vals)
            snprintf(v, sizeof v, "%.1f ± %.1f", vals[t].mean, vals[t].half);
        fprintf(s->out, "  %-22s", v);
    }
    fprintf(s->out, "  %s\n", verdict);
    fflush(s->out);
}

static int record(struct search *s, struct eval *e, struct sim_err *err)
{
    if (!s->db || !e->res.id[0])
        return 0;
    const struct goal_opts *o = s->o;
    const char **axes = sim_xcalloc((size_t)o->n_dims + 1, sizeof *axes);
    for (int d = 0; d < o->n_dims; d++)
        axes[d] = o->dims[d].path;
    decode(s, e->k, s->idx);
    char **own = sim_xcalloc((size_t)o->n_dims + 1, sizeof *own);
    const char **sets = cand_sets(o, s->idx, own);
    cJSON *sj = cJSON_CreateStringArray(sets, o->n_sets + o->n_dims);
    char *sets_json = cJSON_PrintUnformatted(sj);
    cJSON *aj = cand_axes(o, s->idx);
    struct db_point p = {.point_id = e->res.id, .seed = e->res.seed, .replications = s->reps, .base = o->base,
                         .sets_json = sets_json, .params_json = e->res.params_json, .axes = aj};
    int rc = db_begin(s->db, err);
    if (rc == 0)
        rc = db_add_points(s->db, s->sweep_id, axes, o->n_dims, &p, NULL, 1, err);
    for (int r = 0; r < s->reps && rc == 0; r++) {
        if (!e->summary[r] || db_run_done(s->db, e->res.id, r) == 1)
            continue;
        struct db_run run = {.point_id = e->res.id, .replication = r, .seed = grid_replication_seed(e->res.seed, r),
                             .ok = true, .summary = e->summary[r]};
        rc = db_add_run(s->db, &run, err);
    }
    if (rc == 0)
        rc = db_commit(s->db, err);
    else
        db_rollback(s->db);
    cJSON_Delete(aj);
    cJSON_Delete(sj);
    free(sets_json);
    free_own(o, own, sets);
    free(axes);
    return rc;
}

/* Evaluate a batch of combinations: every replication of every one, in parallel on the workers. */
static int evaluate(struct search *s, struct eval *ev, int nb, struct sim_err *err)
{
    const struct goal_opts *o = s->o;
    int rc = 0, n_tasks = 0;
    char **tasks = sim_xcalloc((size_t)nb * (size_t)s->reps + 1, sizeof *tasks);
    int *task_of = sim_xcalloc((size_t)nb * (size_t)s->reps + 1, sizeof *task_of);
    for (int i = 0; i < nb; i++) {
        decode(s, ev[i].k, s->idx);
        char **own = sim_xcalloc((size_t)o->n_dims + 1, sizeof *own);
        const char **sets = cand_sets(o, s->idx, own);
        ev[i].summary = sim_xcalloc((size_t)s->reps, sizeof *ev[i].summary);
        struct sim_err e2 = {0};
        if (grid_resolve_sets(o->base, sets, o->n_sets + o->n_dims, s->reps, &ev[i].res, &e2) < 0) {
            snprintf(ev[i].error, sizeof ev[i].error, "%s", e2.msg);
        } else {
            for (int r = 0; r < s->reps; r++) {
                if ((ev[i].summary[r] = cached_summary(s, ev[i].res.id, r))) {
                    ev[i].cached++;
                    continue;
                }
                task_of[n_tasks] = i * s->reps + r;
                tasks[n_tasks] = sweep_task_line(n_tasks, ev[i].res.id, r, grid_replication_seed(ev[i].res.seed, r),
                                                 o->base, sets, o->n_sets + o->n_dims);
                n_tasks++;
            }
        }
        free_own(o, own, sets);
    }
    char **results = sim_xcalloc((size_t)n_tasks + 1, sizeof *results);
    if (n_tasks > 0 && !s->t)
        rc = sweep_fork_transport_open(o->jobs > 0 ? o->jobs : 1, &s->t, err);
    if (rc == 0 && n_tasks > 0)
        rc = sweep_run_lines(s->t, tasks, n_tasks, results, err);
    for (int k = 0; k < n_tasks; k++) {
        int i = task_of[k] / s->reps, r = task_of[k] % s->reps;
        cJSON *res = results[k] ? cJSON_Parse(results[k]) : NULL;
        cJSON *sum = cJSON_GetObjectItemCaseSensitive(res, "summary");
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(res, "error");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "ok")) && cJSON_IsObject(sum))
            ev[i].summary[r] = cJSON_DetachItemViaPointer(res, sum);
        else if (!ev[i].error[0])
            snprintf(ev[i].error, sizeof ev[i].error, "%s",
                     cJSON_IsString(e) ? e->valuestring : s->t && s->t->death[0] ? s->t->death : "run failed");
        cJSON_Delete(res);
        free(results[k]);
        free(tasks[k]);
    }
    free(results);
    free(tasks);
    free(task_of);
    return rc;
}

static void search_free(struct search *s)
{
    free(s->state);
    free(s->cost);
    free(s->idx);
    free(s->stride);
    free(s->width);
    if (s->t)
        sweep_fork_transport_close(s->t, false);
    db_close(s->db);
}

static int validate(const struct goal_opts *o, int *reps, struct sim_err *err)
{
    struct scenario sc;
    struct sim_err e2 = {0};
    if (scenario_load(&sc, o->base, NULL, NULL, o->sets, o->n_sets, &e2) < 0)
        return sim_errf(err, e2.code, "--base %s: %s", o->base, e2.msg);
    *reps = o->replications > 0 ? o->replications : (int)sc.sim.replications;
    scenario_free(&sc);
    const char **sets = sim_xcalloc((size_t)o->n_sets + 2, sizeof *sets);
    for (int i = 0; i < o->n_sets; i++)
        sets[i] = o->sets[i];
    int rc = 0;
    for (int d = 0; d < o->n_dims && rc == 0; d++)
        for (int e = 0; e < d && rc == 0; e++)
            if (!strcmp(o->dims[e].path, o->dims[d].path))
                rc = sim_errf(err, -EINVAL, "--cost %s: given twice: list its options in one --cost", o->dims[d].path);
    for (int d = 0; d < o->n_dims && rc == 0; d++)
        for (int v = 0; v < o->dims[d].n && rc == 0; v++) {
            char set[512];
            snprintf(set, sizeof set, "%s=%s", o->dims[d].path, o->dims[d].values[v]);
            sets[o->n_sets] = set;
            if (scenario_load(&sc, o->base, NULL, NULL, sets, o->n_sets + 1, &e2) < 0)
                rc = sim_errf(err, e2.code, "--cost %s: option %s: %s", o->dims[d].path, o->dims[d].values[v], e2.msg);
            else
                scenario_free(&sc);
        }
    free(sets);
    return rc;
}

static int open_db(struct search *s, struct sim_err *err)
{
    const struct goal_opts *o = s->o;
    int rc = db_open(o->db_path, &s->db, err);
    if (rc < 0)
        return rc;
    const char *b = strrchr(o->base, '/') ? strrchr(o->base, '/') + 1 : o->base;
    char name[256];
    snprintf(name, sizeof name, "goal:%.*s", (int)strcspn(b, "."), b);
    cJSON *spec = cJSON_CreateObject();
    cJSON_AddStringToObject(spec, "base", o->base);
    cJSON *costs = cJSON_AddObjectToObject(spec, "costs");
    const char **axes = sim_xcalloc((size_t)o->n_dims + 1, sizeof *axes);
    for (int d = 0; d < o->n_dims; d++) {
        cJSON *dj = cJSON_AddObjectToObject(costs, o->dims[d].path);
        for (int v = 0; v < o->dims[d].n; v++)
            cJSON_AddNumberToObject(dj, o->dims[d].values[v], o->dims[d].costs[v]);
        axes[d] = o->dims[d].path;
    }
    cJSON_AddItemToObject(spec, "set", cJSON_CreateStringArray(o->sets, o->n_sets));
    char *js = cJSON_PrintUnformatted(spec);
    if ((rc = db_begin(s->db, err)) == 0) {
        if ((rc = db_add_sweep(s->db, name, js, axes, o->n_dims, s->reps, &s->sweep_id, err)) == 0)
            rc = db_commit(s->db, err);
        else
            db_rollback(s->db);
    }
    if (rc == 0)
        rc = db_update_views(s->db, err);
    free(js);
    free(axes);
    cJSON_Delete(spec);
    return rc;
}

/*
 * The next batch.  Without pruning: the cheapest open combinations (an exact
 * scan in cost order).  With it: first the priciest combination (if it misses,
 * nothing can meet), then open combinations at evenly spaced cost quantiles
 * of those cheaper than the best known hit: a hit lowers that bound, a miss
 * rules out everything below it (a bisection on each chain of the lattice).
 */
static int pick_batch(struct search *s, bool first, int64_t *batch, int max)
{
    int64_t *open = sim_xcalloc((size_t)s->total, sizeof *open);
    int64_t m = 0;
    double ub = s->best >= 0 ? s->cost[s->best] : INFINITY;
    for (int64_t k = 0; k < s->total; k++)
        if (s->state[k] == ST_OPEN && s->cost[k] < ub)
            open[m++] = k;
    int nb = 0;
    if (m > 0) {
        qsort_r(open, (size_t)m, sizeof *open, cmp_by_cost, s->cost);
        if (!s->o->prune) {
            for (; nb < max && nb < m; nb++)
                batch[nb] = open[nb];
        } else {
            if (first)
                batch[nb++] = s->total - 1; /* every dimension at its priciest option */
            int want = max - nb;
            for (int i = 0; i < want; i++) {
                int64_t pos = (int64_t)((double)(i + 1) * (double)m / (want + 1));
                int64_t k = open[pos < m ? pos : m - 1];
                bool dup = false;
                for (int j = 0; j < nb; j++)
                    dup |= batch[j] == k;
                if (!dup)
                    batch[nb++] = k;
            }
        }
    }
    free(open);
    return nb;
}

/* A miss at f: every open combination no pricier in any dimension misses too. */
static int rule_out_below(struct search *s, int64_t f)
{
    int n = 0;
    for (int64_t k = 0; k < s->total; k++)
        if (s->state[k] == ST_OPEN && below(s, k, f)) {
            s->state[k] = ST_RULED_OUT;
            n++;
        }
    return n;
}

int goal_search(const struct goal_opts *o, FILE *out, struct goal_result *res, struct sim_err *err)
{
    struct search s = {.o = o, .out = out, .best = -1, .best_miss = NAN, .best_miss_k = -1};
    int rc;
    memset(res, 0, sizeof *res);
    if (o->n_dims < 1 || o->n_targets < 1)
        return sim_errf(err, -EINVAL, "goal: give at least one --target and one --cost");
    if ((rc = validate(o, &s.reps, err)) < 0)
        return rc;
    s.stride = sim_xcalloc((size_t)o->n_dims, sizeof *s.stride);
    s.width = sim_xcalloc((size_t)o->n_dims, sizeof *s.width);
    s.idx = sim_xcalloc((size_t)o->n_dims, sizeof *s.idx);
    s.total = 1;
    for (int d = 0; d < o->n_dims; d++) {
        s.stride[d] = s.total;
        s.total *= o->dims[d].n;
        if (s.total > 1000000) {
            search_free(&s);
            return sim_errf(err, -E2BIG, "goal: more than a million combinations; fix some options with --set");
        }
        s.width[d] = (int)strlen(o->dims[d].path);
        for (int v = 0; v < o->dims[d].n; v++)
            if ((int)strlen(o->dims[d].values[v]) > s.width[d])
                s.width[d] = (int)strlen(o->dims[d].values[v]);
    }
    s.state = sim_xcalloc((size_t)s.total, 1);
    s.cost = sim_xcalloc((size_t)s.total, sizeof *s.cost);
    for (int64_t k = 0; k < s.total; k++) {
        decode(&s, k, s.idx);
        for (int d = 0; d < o->n_dims; d++)
            s.cost[k] += o->dims[d].costs[s.idx[d]];
    }
    if (o->db_path && (rc = open_db(&s, err)) < 0) {
        search_free(&s);
        return rc;
    }
    res->combinations = (int)s.total;
    fprintf(out, "goal:");
    for (int t = 0; t < o->n_targets; t++)
        fprintf(out, "%s %s %s %g", t ? " and" : "", o->targets[t].metric->name, op_names[o->targets[t].op],
                o->targets[t].value);
    fprintf(out, "%s; %d replication%s per combination; %lld combinations of %d options\n",
            o->confident ? " (95 % CI bound)" : " (mean)", s.reps, s.reps == 1 ? "" : "s", (long long)s.total,
            o->n_dims);
    print_header(&s);
    int batch_n = o->jobs > 0 ? o->jobs : 1;
    int64_t *batch = sim_xcalloc((size_t)batch_n + 1, sizeof *batch);
    struct eval *ev = sim_xcalloc((size_t)batch_n + 1, sizeof *ev);
    struct ci *vals = sim_xcalloc((size_t)o->n_targets, sizeof *vals);
    double *x = sim_xcalloc((size_t)s.reps, sizeof *x);
    bool limit = false, first = true;
    while (rc == 0) {
        int max = batch_n;
        if (o->max_evals > 0 && res->evaluated + max > o->max_evals)
            max = o->max_evals - res->evaluated;
        int nb = max > 0 ? pick_batch(&s, first, batch, max) : 0;
        if (nb == 0) {
            limit = max <= 0 && pick_batch(&s, first, batch, 1) > 0;
            break;
        }
        first = false;
        memset(ev, 0, (size_t)nb * sizeof *ev);
        for (int i = 0; i < nb; i++)
            ev[i].k = batch[i];
        rc = evaluate(&s, ev, nb, err);
        for (int i = 0; i < nb; i++) /* decided by their own runs: no batch-mate's miss rules them out */
            s.state[ev[i].k] = ST_ERROR;
        for (int i = 0; i < nb; i++) {
            int64_t k = ev[i].k;
            bool ok = rc == 0 && !ev[i].error[0], pass = ok;
            for (int t = 0; t < o->n_targets && ok; t++) {
                for (int r = 0; r < s.reps; r++)
                    if (!db_metric_from_summary(o->targets[t].metric, ev[i].summary[r], &x[r]))
                        x[r] = NAN;
                vals[t] = stats_ci95(x, s.reps);
                pass &= meets(&o->targets[t], &vals[t], o->confident);
            }
            res->evaluated++;
            res->runs += s.reps - ev[i].cached;
            s.state[k] = !ok ? ST_ERROR : pass ? ST_MEETS : ST_MISS;
            char verdict[600];
            int ruled = 0;
            if (pass && (s.best < 0 || s.cost[k] < s.cost[s.best]))
                s.best = k;
            if (ok && !pass) {
                double v = vals[0].mean;
                if (isnan(s.best_miss) || (o->targets[0].op <= GOAL_LT ? v < s.best_miss : v > s.best_miss))
                    s.best_miss = v, s.best_miss_k = k;
                if (o->prune)
                    res->pruned += ruled = rule_out_below(&s, k);
            }
            if (!ok)
                snprintf(verdict, sizeof verdict, "error: %s", ev[i].error);
            else if (pass)
                snprintf(verdict, sizeof verdict, "meets%s", ev[i].cached ? " (recorded)" : "");
            else
                snprintf(verdict, sizeof verdict, "misses%s", ev[i].cached ? " (recorded)" : "");
            if (ok && !pass && ruled)
                snprintf(verdict + strlen(verdict), sizeof verdict - strlen(verdict), ", rules out %d cheaper", ruled);
            print_row(&s, res->evaluated, k, ok ? vals : NULL, verdict);
            if (rc == 0 && record(&s, &ev[i], err) < 0)
                rc = -EIO;
            grid_resolved_free(&ev[i].res);
            for (int r = 0; r < s.reps; r++)
                cJSON_Delete(ev[i].summary[r]);
            free(ev[i].summary);
        }
    }
    if (rc == 0) {
        res->found = s.best >= 0 && !limit;
        if (s.best >= 0) {
            decode(&s, s.best, s.idx);
            res->cost = s.cost[s.best];
            res->choice = sim_xcalloc((size_t)o->n_dims, sizeof *res->choice);
            memcpy(res->choice, s.idx, (size_t)o->n_dims * sizeof *s.idx);
            fprintf(out, "%s: cost %g:", limit ? "cheapest found before --max-evals (not proven cheapest)" : "cheapest",
                    res->cost);
            for (int d = 0; d < o->n_dims; d++)
                fprintf(out, " %s=%s", o->dims[d].path, o->dims[d].values[s.idx[d]]);
            fputc('\n', out);
        } else {
            fprintf(out, "no combination %s the target", limit ? "evaluated before --max-evals meets" : "meets");
            /* combinations ruled out by the assumption were never run: not a proof */
            if (o->prune && res->pruned > 0)
                fprintf(out, " (assuming a pricier option is never worse: %d combination%s ruled out without a run; "
                             "--no-prune runs them)", res->pruned, res->pruned == 1 ? "" : "s");
            if (s.best_miss_k >= 0) {
                decode(&s, s.best_miss_k, s.idx);
                fprintf(out, "; closest:");
                for (int d = 0; d < o->n_dims; d++)
                    fprintf(out, " %s=%s", o->dims[d].path, o->dims[d].values[s.idx[d]]);
                fprintf(out, " (%s %.1f)", o->targets[0].metric->name, s.best_miss);
            }
            fputc('\n', out);
        }
        fprintf(out, "evaluated %d of %d combinations (%d new runs)", res->evaluated, res->combinations, res->runs);
        if (o->prune)
            fprintf(out, "; %d ruled out without a run, assuming a pricier option is never worse (--no-prune: "
                         "exact scan in cost order)", res->pruned);
        fputc('\n', out);
    }
    free(batch);
    free(ev);
    free(vals);
    free(x);
    search_free(&s);
    return rc;
}

/* ---- the command ---------------------------------------------------------------- */

static void goal_usage(FILE *f)
{
    fprintf(f,
            "usage: cephsim goal --base SCENARIO --target 'METRIC<=VALUE' --cost 'PATH=V:C,V:C,...' [options]\n"
            "  find the cheapest combination of options (costs add up) whose mean METRIC meets every target,\n"
            "  evaluating combinations in order of cost and skipping those a failure rules out\n"
            "\n"
            "  -b, --base SCENARIO     the scenario to start from\n"
            "  -t, --target EXPR       METRIC<=V, <V, >=V or >V (iops, lat_mean_us, lat_p99_us, ...); repeatable\n"
            "  -c, --cost SPEC         path=value:cost,... (e.g. cluster.nic=10gbase-t:0,25gbe:1,100gbe:2); costs >= 0;\n"
            "                          repeatable, one --cost per path\n"
            "  -S, --set PATH=VALUE    fixed override of the base scenario; repeatable\n"
            "  -r, --replications N    replications per combination (default: the scenario's sim.replications)\n"
            "  -j, --jobs N            combinations evaluated in parallel (default: the number of cores)\n"
            "      --confident         require the 95 %% CI bound, not just the mean, to meet each target\n"
            "      --no-prune          do not assume that a pricier option is never worse\n"
            "      --max-evals N       stop after N evaluated combinations\n"
            "      --db FILE           record evaluations in a sweep database and reuse recorded ones\n"
            "  -h, --help              this text\n");
}

int cmd_goal(int argc, char **argv)
{
    static const struct option opts[] = {
        {"base", required_argument, NULL, 'b'},      {"target", required_argument, NULL, 't'},
        {"cost", required_argument, NULL, 'c'},      {"set", required_argument, NULL, 'S'},
        {"replications", required_argument, NULL, 'r'}, {"jobs", required_argument, NULL, 'j'},
        {"confident", no_argument, NULL, 'C'},       {"no-prune", no_argument, NULL, 'P'},
        {"max-evals", required_argument, NULL, 'm'}, {"db", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},            {0}};
    struct goal_opts o = {.prune = true};
    const char **sets = sim_xcalloc((size_t)argc + 1, sizeof *sets);
    struct goal_target *targets = sim_xcalloc((size_t)argc + 1, sizeof *targets);
    struct goal_dim *dims = sim_xcalloc((size_t)argc + 1, sizeof *dims);
    struct sim_err err = {0};
    int c, code = 0, n_sets = 0, n_targets = 0, n_dims = 0;
    long n;
    char *end;
    optind = 0;
    while (code == 0 && (c = getopt_long(argc, argv, "b:t:c:S:r:j:h", opts, NULL)) != -1) {
        switch (c) {
        case 'b': o.base = optarg; break;
        case 't':
            if (goal_parse_target(optarg, &targets[n_targets], &err) < 0)
                code = 2;
            else
                n_targets++;
            break;
        case 'c':
            if (goal_add_cost(dims, &n_dims, optarg, &err) < 0)
                code = 2;
            break;
        case 'S': sets[n_sets++] = optarg; break;
        case 'r':
        case 'j':
        case 'm':
            n = strtol(optarg, &end, 10);
            if (*end || n < 1 || n > 100000) {
                /* by the long name the help gives: --max-evals has no short one */
                snprintf(err.msg, sizeof err.msg, "--%s %s: expected a positive number",
                         c == 'r' ? "replications" : c == 'j' ? "jobs" : "max-evals", optarg);
                code = 2;
            } else if (c == 'r') {
                o.replications = (int)n;
            } else if (c == 'j') {
                o.jobs = (int)n;
            } else {
                o.max_evals = (int)n;
            }
            break;
        case 'C': o.confident = true; break;
        case 'P': o.prune = false; break;
        case 'd': o.db_path = optarg; break;
        case 'h': goal_usage(stdout); code = -1; break;
        default: snprintf(err.msg, sizeof err.msg, "try 'cephsim goal --help'"); code = 2; break;
        }
    }
    if (code == 0 && (!o.base || n_targets == 0 || n_dims == 0 || optind != argc)) {
        snprintf(err.msg, sizeof err.msg, "give --base, at least one --target and one --cost, and nothing else "
                                          "(try 'cephsim goal --help')");
        code = 2;
    }
    if (code == 0) {
        if (o.jobs == 0) {
            long nc = sysconf(_SC_NPROCESSORS_ONLN);
            o.jobs = nc > 0 ? (int)nc : 1;
        }
        o.sets = sets, o.n_sets = n_sets, o.targets = targets, o.n_targets = n_targets, o.dims = dims, o.n_dims = n_dims;
        struct sigaction ign = {.sa_handler = SIG_IGN}, old;
        sigaction(SIGPIPE, &ign, &old);
        struct goal_result res;
        if (goal_search(&o, stdout, &res, &err) < 0)
            code = 1;
        else
            code = res.found ? 0 : 1, err.msg[0] = '\0';
        free(res.choice);
        sigaction(SIGPIPE, &old, NULL);
    }
    if (code > 0 && err.msg[0])
        fprintf(stderr, "cephsim goal: %s\n", err.msg);
    for (int i = 0; i < n_dims; i++)
        goal_dim_free(&dims[i]);
    free(dims);
    free(targets);
    free(sets);
    return code < 0 ? 0 : code;
}
