/*
 * grid.c - grid files, their expansion into points and point ids (see grid.h).
 *
 * Sampling mirrors the usual design-of-experiments tools: a Sobol sequence
 * (GSL gsl_qrng_sobol, Bratley & Fox algorithm 659, up to 40 dimensions) or
 * uniform draws (gsl_rng_mt19937 seeded with sample.seed) over the unit cube,
 * mapped onto each range axis linearly or logarithmically.
 */
#include "grid.h"

#include <errno.h>
#include <gsl/gsl_qrng.h>
#include <gsl/gsl_rng.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cbt.h"
#include "config.h"
#include "jsonu.h"
#include "runner.h"
#include "scenario.h"
#include "sim.h"

static const char *const top_keys[] = {"name", "description", "base", "set", "axes", "zip", "sample",
                                       "replications"};
static const char *const range_keys[] = {"from", "to", "steps", "step", "scale", "integer"};
static const char *const sample_keys[] = {"method", "n", "seed"};

/* ---- SHA-256 (FIPS 180-4) ---------------------------------------------- */

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror32(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static void sha_block(uint32_t h[8], const uint8_t *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = hh + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) + ((e & f) ^ (~e & g)) + sha_k[i] + w[i];
        uint32_t t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void grid_sha256(const void *data, size_t n, uint8_t out[32])
{
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const uint8_t *p = data;
    size_t left = n;
    for (; left >= 64; left -= 64, p += 64)
        sha_block(h, p);
    uint8_t tail[128] = {0};
    memcpy(tail, p, left);
    tail[left] = 0x80;
    size_t tl = left < 56 ? 64 : 128;
    uint64_t bits = (uint64_t)n * 8;
    for (int i = 0; i < 8; i++)
        tail[tl - 1 - i] = (uint8_t)(bits >> (8 * i));
    sha_block(h, tail);
    if (tl == 128)
        sha_block(h, tail + 64);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = (uint8_t)(h[i] >> (24 - 8 * j));
}

/* ---- canonical JSON and ids -------------------------------------------- */

static int cmp_item_keys(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    return strcmp(x->string, y->string);
}

static void sort_keys(cJSON *j)
{
    int n = 0;
    for (cJSON *c = j->child; c; c = c->next) {
        sort_keys(c);
        n++;
    }
    if (!cJSON_IsObject(j) || n < 2)
        return;
    cJSON **v = sim_xcalloc((size_t)n, sizeof *v);
    int i = 0;
    for (cJSON *c = j->child; c; c = c->next)
        v[i++] = c;
    qsort(v, (size_t)n, sizeof *v, cmp_item_keys);
    for (i = 0; i < n; i++) {
        v[i]->next = i + 1 < n ? v[i + 1] : NULL;
        v[i]->prev = i > 0 ? v[i - 1] : v[n - 1]; /* cJSON: the head's prev is the tail */
    }
    j->child = v[0];
    free(v);
}

char *grid_canonical_json(const cJSON *j)
{
    cJSON *d = cJSON_Duplicate(j, 1);
    SIM_ASSERT(d);
    sort_keys(d);
    char *s = cJSON_PrintUnformatted(d);
    cJSON_Delete(d);
    SIM_ASSERT(s);
    return s;
}

/* The identity of a point: everything but the seed and the replication count. */
static cJSON *identity_json(const cJSON *resolved)
{
    cJSON *d = cJSON_Duplicate(resolved, 1);
    SIM_ASSERT(d);
    cJSON *simj = cJSON_GetObjectItemCaseSensitive(d, "sim");
    if (simj) {
        cJSON_DeleteItemFromObjectCaseSensitive(simj, "seed");
        cJSON_DeleteItemFromObjectCaseSensitive(simj, "replications");
    }
    return d;
}

static void id_of_canonical(const char *canon, int64_t seed, const char *version, char out[GRID_ID_LEN + 1])
{
    size_t n = strlen(canon) + strlen(version) + 64;
    char *buf = sim_xcalloc(n, 1);
    int len = snprintf(buf, n, "%s\nseed=%lld\nversion=%s", canon, (long long)seed, version);
    uint8_t h[32];
    grid_sha256(buf, (size_t)len, h);
    free(buf);
    for (int i = 0; i < GRID_ID_LEN / 2; i++)
        snprintf(out + 2 * i, 3, "%02x", h[i]);
}

void grid_point_id(const cJSON *resolved, int64_t seed, const char *version, char out[GRID_ID_LEN + 1])
{
    cJSON *d = identity_json(resolved);
    char *canon = grid_canonical_json(d);
    id_of_canonical(canon, seed, version, out);
    free(canon);
    cJSON_Delete(d);
}

int64_t grid_replication_seed(int64_t s, int replication)
{
    return scenario_replication_seed(s, (uint64_t)replication);
}

/* ---- values ------------------------------------------------------------- */

int grid_value_text(const cJSON *v, char *buf, size_t n)
{
    if (cJSON_IsNumber(v)) {
        double x = v->valuedouble;
        if (x == floor(x) && fabs(x) < 1e15) {
            snprintf(buf, n, "%.0f", x);
            return 0;
        }
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(buf, n, "%.*g", prec, x);
            if (strtod(buf, NULL) == x)
                break;
        }
        return 0;
    }
    if (cJSON_IsString(v)) {
        if (strlen(v->valuestring) >= n)
            return -ENAMETOOLONG;
        snprintf(buf, n, "%s", v->valuestring);
        return 0;
    }
    if (cJSON_IsBool(v)) {
        snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
        return 0;
    }
    return -EINVAL;
}

/* "path=text" of a scalar, malloc'd; NULL when v is not a scalar. */
static char *set_string(const char *path, const cJSON *v)
{
    char text[1024];
    if (grid_value_text(v, text, sizeof text) < 0)
        return NULL;
    size_t n = strlen(path) + strlen(text) + 2;
    char *s = sim_xcalloc(n, 1);
    snprintf(s, n, "%s=%s", path, text);
    return s;
}

/* Twelve significant digits: 8 log steps from 1 to 128 give 2, 4, ... not 3.9999999999999996. */
static double tidy(double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.12g", x);
    return strtod(buf, NULL);
}

static void add_entry(struct grid_axis *a, cJSON *value, char **sets, int n_sets)
{
    a->entries = sim_xrealloc(a->entries, (size_t)a->n_entries + 1, sizeof *a->entries);
    a->entries[a->n_entries++] = (struct grid_entry){.value = value, .sets = sets, .n_sets = n_sets};
}

/* The power of two nearest x in log terms, within [lo, hi]'s powers of two. */
static double nearest_pow2(double x, double lo, double hi)
{
    double p = exp2(round(log2(x)));
    return fmin(fmax(p, exp2(ceil(log2(lo)))), exp2(floor(log2(hi))));
}

static void add_number_entry(struct grid_axis *a, double x)
{
    if (a->pow2)
        x = nearest_pow2(x, fmin(a->from, a->to), fmax(a->from, a->to));
    else if (a->integer)
        x = (double)llround(x);
    else
        x = tidy(x);
    if (a->n_entries > 0 && !a->sampled && a->entries[a->n_entries - 1].value->valuedouble == x)
        return; /* integer rounding of close steps */
    cJSON *v = cJSON_CreateNumber(x);
    char **sets = sim_xcalloc(1, sizeof *sets);
    sets[0] = set_string(a->name, v);
    add_entry(a, v, sets, 1);
}

static double range_at(const struct grid_axis *a, double u)
{
    if (a->log)
        return exp(log(a->from) + u * (log(a->to) - log(a->from)));
    return a->from + u * (a->to - a->from);
}

/* ---- parsing -------------------------------------------------------------- */

static int parse_list(struct grid *g, struct grid_axis *a, const cJSON *arr, const char *jp, struct sim_err *err)
{
    a->kind = GRID_AXIS_LIST;
    if (cJSON_GetArraySize(arr) == 0)
        return sim_errf(err, -EINVAL, "%s: %s: an axis needs at least one value", g->path, jp);
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, arr) {
        char *s = set_string(a->name, v);
        if (!s)
            return sim_errf(err, -EINVAL, "%s: %s[%d]: expected a number, string or bool", g->path, jp, i);
        char **sets = sim_xcalloc(1, sizeof *sets);
        sets[0] = s;
        add_entry(a, cJSON_Duplicate(v, 0), sets, 1);
        i++;
    }
    return 0;
}

static int parse_range(struct grid *g, struct grid_axis *a, const cJSON *o, const char *jp, struct sim_err *err)
{
    int rc;
    a->kind = GRID_AXIS_RANGE;
    if ((rc = jsonu_check_keys(o, range_keys, 6, g->path, jp, err)) < 0)
        return rc;
    if ((rc = jsonu_get_double(o, "from", &a->from, -1e300, 1e300, true, g->path, jp, err)) < 0 ||
        (rc = jsonu_get_double(o, "to", &a->to, -1e300, 1e300, true, g->path, jp, err)) < 0)
        return rc;
    char scale[16] = "linear";
    if ((rc = jsonu_get_string(o, "scale", scale, sizeof scale, false, g->path, jp, err)) < 0)
        return rc;
    if (strcmp(scale, "linear") && strcmp(scale, "log") && strcmp(scale, "log2"))
        return sim_errf(err, -EINVAL, "%s: %s.scale: '%s' is not linear, log or log2", g->path, jp, scale);
    /* log2: a log range whose values are powers of two (BlueStore's allocation units must be) */
    a->pow2 = !strcmp(scale, "log2");
    a->log = a->pow2 || !strcmp(scale, "log");
    if (a->log && (a->from <= 0 || a->to <= 0))
        return sim_errf(err, -EINVAL, "%s: %s: a log range needs from and to > 0", g->path, jp);
    if (a->pow2 && exp2(ceil(log2(fmin(a->from, a->to)))) > fmax(a->from, a->to))
        return sim_errf(err, -EINVAL, "%s: %s: no power of two between from and to", g->path, jp);
    const struct param_def *d = scenario_param_for_path(a->name);
    a->integer = d && d->type == PARAM_INT;
    if ((rc = jsonu_get_bool(o, "integer", &a->integer, false, g->path, jp, err)) < 0)
        return rc;
    int64_t steps = 0;
    double step = 0;
    if ((rc = jsonu_get_int(o, "steps", &steps, 1, 100000, false, g->path, jp, err)) < 0 ||
        (rc = jsonu_get_double(o, "step", &step, 1e-300, 1e300, false, g->path, jp, err)) < 0)
        return rc;
    if (steps && step)
        return sim_errf(err, -EINVAL, "%s: %s: give steps or step, not both", g->path, jp);
    if (step && a->log)
        return sim_errf(err, -EINVAL, "%s: %s: step is for linear ranges (use steps with scale log)", g->path, jp);
    if (g->sample != GRID_SAMPLE_NONE) {
        a->sampled = true; /* entries are drawn later */
        return 0;
    }
    if (!steps && !step)
        return sim_errf(err, -EINVAL, "%s: %s: give steps (or step), or sample the range axes with \"sample\"",
                        g->path, jp);
    if (step) {
        double span = fabs(a->to - a->from);
        if (span / step > 100000)
            return sim_errf(err, -EINVAL, "%s: %s.step: more than 100000 values", g->path, jp);
        steps = (int64_t)floor(span / step + 1e-9) + 1;
        double dir = a->to >= a->from ? 1 : -1;
        for (int64_t i = 0; i < steps; i++)
            add_number_entry(a, a->from + dir * step * (double)i);
        return 0;
    }
    for (int64_t i = 0; i < steps; i++)
        add_number_entry(a, steps == 1 ? a->from : range_at(a, (double)i / (double)(steps - 1)));
    return 0;
}

static int parse_alternatives(struct grid *g, struct grid_axis *a, const cJSON *alts, const char *jp,
                              struct sim_err *err)
{
    a->kind = GRID_AXIS_ALTERNATIVES;
    if (!cJSON_IsObject(alts) || !alts->child)
        return sim_errf(err, -EINVAL, "%s: %s.alternatives: expected {\"label\": {\"path\": value, ...}, ...}",
                        g->path, jp);
    for (const cJSON *alt = alts->child; alt; alt = alt->next) {
        char p[512];
        snprintf(p, sizeof p, "%s.alternatives.%s", jp, alt->string);
        if (!alt->string[0] || !cJSON_IsObject(alt))
            return sim_errf(err, -EINVAL, "%s: %s: expected an object of overrides {\"path\": value}", g->path, p);
        int n = cJSON_GetArraySize(alt), i = 0;
        char **sets = sim_xcalloc((size_t)n + 1, sizeof *sets);
        for (const cJSON *v = alt->child; v; v = v->next) {
            sets[i] = set_string(v->string, v);
            if (!sets[i] || !strchr(v->string, '.')) {
                for (int k = 0; k <= i; k++)
                    free(sets[k]);
                free(sets);
                return sim_errf(err, -EINVAL, "%s: %s.%s: expected a scenario path with a number, string or bool",
                                g->path, p, v->string);
            }
            i++;
        }
        add_entry(a, cJSON_CreateString(alt->string), sets, n);
    }
    return 0;
}

static int parse_axis(struct grid *g, struct grid_axis *a, const cJSON *spec, struct sim_err *err)
{
    char jp[GRID_NAME_MAX + 8];
    snprintf(jp, sizeof jp, "axes.%s", a->name);
    a->zip = -1;
    if (strchr(a->name, '=') || strchr(a->name, '"') || !a->name[0])
        return sim_errf(err, -EINVAL, "%s: %s: bad axis name", g->path, jp);
    if (cJSON_IsObject(spec) && cJSON_GetObjectItemCaseSensitive(spec, "alternatives")) {
        if (cJSON_GetArraySize(spec) != 1)
            return sim_errf(err, -EINVAL, "%s: %s: an alternatives axis has only the key \"alternatives\"",
                            g->path, jp);
        return parse_alternatives(g, a, cJSON_GetObjectItemCaseSensitive(spec, "alternatives"), jp, err);
    }
    if (!strchr(a->name, '.'))
        return sim_errf(err, -EINVAL, "%s: %s: expected a scenario path (section.key, e.g. fio.iodepth) "
                        "or {\"alternatives\": {...}}", g->path, jp);
    if (cJSON_IsObject(spec))
        return parse_range(g, a, spec, jp, err);
    if (cJSON_IsArray(spec))
        return parse_list(g, a, spec, jp, err);
    /* a single value: an axis of one */
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToArray(arr, cJSON_Duplicate(spec, 0));
    int rc = parse_list(g, a, arr, jp, err);
    cJSON_Delete(arr);
    return rc;
}

static struct grid_axis *find_axis(struct grid *g, const char *name)
{
    for (int i = 0; i < g->n_axes; i++)
        if (!strcmp(g->axes[i].name, name))
            return &g->axes[i];
    return NULL;
}

static int parse_zip(struct grid *g, const cJSON *zip, int *n_groups, struct sim_err *err)
{
    if (!cJSON_IsArray(zip))
        return sim_errf(err, -EINVAL, "%s: zip: expected a list of lists of axis names", g->path);
    int gi = 0;
    const cJSON *grp;
    cJSON_ArrayForEach(grp, zip) {
        if (!cJSON_IsArray(grp) || cJSON_GetArraySize(grp) < 2)
            return sim_errf(err, -EINVAL, "%s: zip[%d]: expected a list of two or more axis names", g->path, gi);
        const cJSON *nm;
        struct grid_axis *first = NULL;
        cJSON_ArrayForEach(nm, grp) {
            struct grid_axis *a = cJSON_IsString(nm) ? find_axis(g, nm->valuestring) : NULL;
            if (!a)
                return sim_errf(err, -EINVAL, "%s: zip[%d]: '%s' is not an axis", g->path, gi,
                                cJSON_IsString(nm) ? nm->valuestring : "?");
            if (a->zip >= 0)
                return sim_errf(err, -EINVAL, "%s: zip[%d]: axis %s is already in a zip group", g->path, gi, a->name);
            if (a->sampled)
                return sim_errf(err, -EINVAL, "%s: zip[%d]: axis %s is sampled (\"sample\" draws range axes together)",
                                g->path, gi, a->name);
            if (first && first->n_entries != a->n_entries)
                return sim_errf(err, -EINVAL, "%s: zip[%d]: %s has %d values but %s has %d", g->path, gi,
                                first->name, first->n_entries, a->name, a->n_entries);
            a->zip = gi;
            if (!first)
                first = a;
        }
        gi++;
    }
    *n_groups = gi;
    return 0;
}

static int parse_sample(struct grid *g, const cJSON *s, struct sim_err *err)
{
    int rc;
    if (!cJSON_IsObject(s))
        return sim_errf(err, -EINVAL, "%s: sample: expected {\"method\": \"sobol\"|\"random\", \"n\": N}", g->path);
    if ((rc = jsonu_check_keys(s, sample_keys, 3, g->path, "sample", err)) < 0)
        return rc;
    char method[16];
    if ((rc = jsonu_get_string(s, "method", method, sizeof method, true, g->path, "sample", err)) < 0)
        return rc;
    if (!strcmp(method, "sobol"))
        g->sample = GRID_SAMPLE_SOBOL;
    else if (!strcmp(method, "random"))
        g->sample = GRID_SAMPLE_RANDOM;
    else
        return sim_errf(err, -EINVAL, "%s: sample.method: '%s' is not sobol or random", g->path, method);
    int64_t n = 0, seed = 1;
    if ((rc = jsonu_get_int(s, "n", &n, 1, 1000000, true, g->path, "sample", err)) < 0 ||
        (rc = jsonu_get_int(s, "seed", &seed, 0, INT64_MAX, false, g->path, "sample", err)) < 0)
        return rc;
    g->sample_n = (int)n;
    g->sample_seed = seed;
    return 0;
}

/* Draw sample_n points over the range axes: entries of a zip group of their own. */
static int draw_samples(struct grid *g, int zip_group, struct sim_err *err)
{
    int dims = 0;
    for (int i = 0; i < g->n_axes; i++)
        dims += g->axes[i].sampled;
    if (dims == 0)
        return sim_errf(err, -EINVAL, "%s: sample: there is no range axis to sample", g->path);
    if (g->sample == GRID_SAMPLE_SOBOL && dims > 40)
        return sim_errf(err, -EINVAL, "%s: sample: Sobol sampling takes at most 40 range axes (got %d)", g->path, dims);
    gsl_qrng *q = NULL;
    gsl_rng *r = NULL;
    if (g->sample == GRID_SAMPLE_SOBOL) {
        q = gsl_qrng_alloc(gsl_qrng_sobol, (unsigned)dims);
    } else {
        r = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(r, (unsigned long)g->sample_seed);
    }
    SIM_ASSERT(q || r);
    double *u = sim_xcalloc((size_t)dims, sizeof *u);
    for (int k = 0; k < g->sample_n; k++) {
        if (q)
            gsl_qrng_get(q, u);
        else
            for (int d = 0; d < dims; d++)
                u[d] = gsl_rng_uniform(r);
        int d = 0;
        for (int i = 0; i < g->n_axes; i++) {
            struct grid_axis *a = &g->axes[i];
            if (!a->sampled)
                continue;
            double x = range_at(a, u[d++]);
            double lo = fmin(a->from, a->to), hi = fmax(a->from, a->to);
            if (a->pow2) {
                x = nearest_pow2(x, lo, hi);
            } else if (a->integer) {
                x = (double)llround(x);
                x = fmin(fmax(x, ceil(lo)), floor(hi));
            }
            add_number_entry(a, x);
        }
    }
    for (int i = 0; i < g->n_axes; i++)
        if (g->axes[i].sampled)
            g->axes[i].zip = zip_group;
    free(u);
    if (q)
        gsl_qrng_free(q);
    if (r)
        gsl_rng_free(r);
    return 0;
}

/* Cartesian product of the factors (single axes and zip groups), first slowest. */
static int expand(struct grid *g, int n_groups, struct sim_err *err)
{
    int n_f = 0;
    int *f_len = sim_xcalloc((size_t)g->n_axes + 1, sizeof *f_len);
    int *axis_f = sim_xcalloc((size_t)g->n_axes + 1, sizeof *axis_f);
    int *group_f = sim_xcalloc((size_t)n_groups + 1, sizeof *group_f);
    for (int i = 0; i < n_groups; i++)
        group_f[i] = -1;
    for (int i = 0; i < g->n_axes; i++) {
        struct grid_axis *a = &g->axes[i];
        if (a->zip >= 0 && group_f[a->zip] >= 0) {
            axis_f[i] = group_f[a->zip];
            continue;
        }
        axis_f[i] = n_f;
        f_len[n_f++] = a->n_entries;
        if (a->zip >= 0)
            group_f[a->zip] = axis_f[i];
    }
    double total = 1;
    for (int f = 0; f < n_f; f++)
        total *= f_len[f];
    int rc = 0;
    if (total > GRID_MAX_POINTS) {
        rc = sim_errf(err, -E2BIG, "%s: the grid has %.0f points (at most %d): sample it or shrink the axes",
                      g->path, total, GRID_MAX_POINTS);
        goto out;
    }
    g->n_points = (int)total;
    g->points = sim_xcalloc((size_t)g->n_points, sizeof *g->points);
    g->entry_store = sim_xcalloc((size_t)g->n_points * (size_t)(g->n_axes ? g->n_axes : 1), sizeof *g->entry_store);
    int *digit = sim_xcalloc((size_t)n_f + 1, sizeof *digit);
    for (int p = 0; p < g->n_points; p++) {
        struct grid_point *pt = &g->points[p];
        pt->index = p;
        pt->entry = g->entry_store + (size_t)p * (size_t)g->n_axes;
        for (int i = 0; i < g->n_axes; i++)
            pt->entry[i] = digit[axis_f[i]];
        for (int f = n_f - 1; f >= 0; f--) {
            if (++digit[f] < f_len[f])
                break;
            digit[f] = 0;
        }
    }
    free(digit);
out:
    free(f_len);
    free(axis_f);
    free(group_f);
    return rc;
}

static bool file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int resolve_base(struct grid *g, const cJSON *root, bool from_file, struct sim_err *err)
{
    char base[1024];
    int rc;
    if ((rc = jsonu_get_string(root, "base", base, sizeof base, true, g->path, "", err)) < 0)
        return rc;
    if (base[0] == '/' || !from_file) {
        if (!file_exists(base))
            return sim_errf(err, -ENOENT, "%s: base: '%s' not found", g->path, base);
        snprintf(g->base, sizeof g->base, "%s", base);
        return 0;
    }
    char dirbuf[1024];
    snprintf(dirbuf, sizeof dirbuf, "%s", g->path);
    char cand[2100];
    snprintf(cand, sizeof cand, "%s/%s", dirname(dirbuf), base);
    if (file_exists(cand)) {
        if (strlen(cand) >= sizeof g->base)
            return sim_errf(err, -ENAMETOOLONG, "%s: base: path too long", g->path);
        memcpy(g->base, cand, strlen(cand) + 1);
        return 0;
    }
    if (file_exists(base)) {
        snprintf(g->base, sizeof g->base, "%s", base);
        return 0;
    }
    return sim_errf(err, -ENOENT, "%s: base: '%s' not found (relative to the grid file or the working directory)",
                    g->path, base);
}

/* A relative clients.jobfile of the grid is the grid file's, as its base is
   (else the working directory's, as --set clients.jobfile is). */
static void resolve_jobfile(const struct grid *g, char **set)
{
    static const char key[] = "clients.jobfile=";
    if (strncmp(*set, key, sizeof key - 1) || (*set)[sizeof key - 1] == '/')
        return;
    const char *file = *set + sizeof key - 1;
    char dirbuf[1024], cand[2200];
    snprintf(dirbuf, sizeof dirbuf, "%s", g->path);
    snprintf(cand, sizeof cand, "%s/%s", dirname(dirbuf), file);
    if (!file_exists(cand))
        return;
    size_t n = sizeof key + strlen(cand);
    char *s = sim_xcalloc(n, 1);
    snprintf(s, n, "%s%s", key, cand);
    free(*set);
    *set = s;
}

static void resolve_jobfiles(struct grid *g)
{
    for (int i = 0; i < g->n_sets; i++)
        resolve_jobfile(g, &g->sets[i]);
    for (int a = 0; a < g->n_axes; a++)
        for (int e = 0; e < g->axes[a].n_entries; e++)
            for (int k = 0; k < g->axes[a].entries[e].n_sets; k++)
                resolve_jobfile(g, &g->axes[a].entries[e].sets[k]);
}

static int parse_set(struct grid *g, const cJSON *set, struct sim_err *err)
{
    if (!cJSON_IsObject(set))
        return sim_errf(err, -EINVAL, "%s: set: expected an object {\"path\": value}", g->path);
    g->sets = sim_xcalloc((size_t)cJSON_GetArraySize(set) + 1, sizeof *g->sets);
    for (const cJSON *v = set->child; v; v = v->next) {
        char *s = strchr(v->string, '.') ? set_string(v->string, v) : NULL;
        if (!s)
            return sim_errf(err, -EINVAL, "%s: set.%s: expected a scenario path with a number, string or bool",
                            g->path, v->string);
        g->sets[g->n_sets++] = s;
    }
    return 0;
}

int grid_load(struct grid *g, const char *path, const char *json_text, struct sim_err *err)
{
    int rc;
    memset(g, 0, sizeof *g);
    snprintf(g->path, sizeof g->path, "%s", path ? path : "(inline)");
    if (path) {
        g->json = jsonu_load_file(path, err);
        if (!g->json)
            return err ? err->code : -EINVAL;
    } else if (!(g->json = cJSON_Parse(json_text))) {
        return sim_errf(err, -EINVAL, "%s: malformed JSON", g->path);
    }
    const cJSON *root = g->json;
    if (!cJSON_IsObject(root)) {
        rc = sim_errf(err, -EINVAL, "%s: expected a JSON object", g->path);
        goto fail;
    }
    /* an axis given twice would reach the database as one column added twice */
    if ((rc = jsonu_check_duplicates(root, g->path, err)) < 0)
        goto fail;
    if ((rc = jsonu_check_keys(root, top_keys, (int)(sizeof top_keys / sizeof top_keys[0]), g->path, "", err)) < 0)
        goto fail;
    if (cJSON_GetObjectItemCaseSensitive(root, "name")) {
        if ((rc = jsonu_get_string(root, "name", g->name, sizeof g->name, true, g->path, "", err)) < 0)
            goto fail;
    } else if (!path) {
        snprintf(g->name, sizeof g->name, "inline");
    } else {
        const char *b = strrchr(g->path, '/') ? strrchr(g->path, '/') + 1 : g->path;
        size_t len = strlen(b);
        if (len > 5 && !strcmp(b + len - 5, ".json"))
            len -= 5;
        snprintf(g->name, sizeof g->name, "%.*s", (int)len, b);
    }
    if ((rc = resolve_base(g, root, path != NULL, err)) < 0)
        goto fail;
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(root, "set");
    if (set && (rc = parse_set(g, set, err)) < 0)
        goto fail;
    int64_t reps = 0;
    if ((rc = jsonu_get_int(root, "replications", &reps, 1, 1000, false, g->path, "", err)) < 0)
        goto fail;
    g->replications = (int)reps;
    const cJSON *sample = cJSON_GetObjectItemCaseSensitive(root, "sample");
    if (sample && (rc = parse_sample(g, sample, err)) < 0)
        goto fail;
    const cJSON *axes = cJSON_GetObjectItemCaseSensitive(root, "axes");
    if (axes && !cJSON_IsObject(axes)) {
        rc = sim_errf(err, -EINVAL, "%s: axes: expected an object {\"path\": values}", g->path);
        goto fail;
    }
    g->axes = sim_xcalloc((size_t)cJSON_GetArraySize(axes) + 1, sizeof *g->axes);
    for (const cJSON *ax = axes ? axes->child : NULL; ax; ax = ax->next) {
        struct grid_axis *a = &g->axes[g->n_axes];
        if (strlen(ax->string) >= GRID_NAME_MAX) {
            rc = sim_errf(err, -ENAMETOOLONG, "%s: axes: name too long: %.40s...", g->path, ax->string);
            goto fail;
        }
        snprintf(a->name, sizeof a->name, "%s", ax->string);
        g->n_axes++;
        if ((rc = parse_axis(g, a, ax, err)) < 0)
            goto fail;
    }
    if (path)
        resolve_jobfiles(g);
    int n_groups = 0;
    const cJSON *zip = cJSON_GetObjectItemCaseSensitive(root, "zip");
    if (zip && (rc = parse_zip(g, zip, &n_groups, err)) < 0)
        goto fail;
    if (g->sample != GRID_SAMPLE_NONE) {
        if ((rc = draw_samples(g, n_groups, err)) < 0)
            goto fail;
        n_groups++;
    }
    if ((rc = expand(g, n_groups, err)) < 0)
        goto fail;
    return 0;
fail:
    grid_free(g);
    return rc;
}

void grid_free(struct grid *g)
{
    for (int i = 0; i < g->n_axes; i++) {
        struct grid_axis *a = &g->axes[i];
        for (int e = 0; e < a->n_entries; e++) {
            cJSON_Delete(a->entries[e].value);
            for (int s = 0; s < a->entries[e].n_sets; s++)
                free(a->entries[e].sets[s]);
            free(a->entries[e].sets);
        }
        free(a->entries);
    }
    for (int i = 0; i < g->n_sets; i++)
        free(g->sets[i]);
    free(g->sets);
    free(g->axes);
    free(g->points);
    free(g->entry_store);
    cJSON_Delete(g->json);
    for (int i = 0; i < g->n_notes; i++)
        free(g->notes[i]);
    free(g->notes);
    memset(g, 0, sizeof *g);
}

/* ---- cbt files ------------------------------------------------------------ */

static bool same_in_every_row(const cJSON *rows, const char *key)
{
    const cJSON *first = cJSON_GetObjectItemCaseSensitive(rows->child, key);
    for (const cJSON *r = rows->child; r; r = r->next)
        if (!cJSON_Compare(first, cJSON_GetObjectItemCaseSensitive(r, key), true))
            return false;
    return true;
}

int grid_load_cbt(struct grid *g, const char *cbt_path, const char *base, struct sim_err *err)
{
    struct cbt_plan pl;
    int rc;
    memset(g, 0, sizeof *g);
    snprintf(g->path, sizeof g->path, "%s", cbt_path);
    const char *b = strrchr(cbt_path, '/') ? strrchr(cbt_path, '/') + 1 : cbt_path;
    size_t len = strlen(b);
    if (len > 5 && !strcmp(b + len - 5, ".yaml"))
        len -= 5;
    else if (len > 4 && !strcmp(b + len - 4, ".yml"))
        len -= 4;
    snprintf(g->name, sizeof g->name, "%.*s", (int)len, b);
    if (!file_exists(base))
        return sim_errf(err, -ENOENT, "%s: the base scenario '%s' not found", cbt_path, base);
    if (strlen(base) >= sizeof g->base)
        return sim_errf(err, -ENAMETOOLONG, "%s: the base scenario's path is too long", cbt_path);
    snprintf(g->base, sizeof g->base, "%s", base);
    if ((rc = cbt_plan_load(cbt_path, &pl, err)) < 0)
        return rc;
    const cJSON *rows = pl.rows;
    int n_rows = cJSON_GetArraySize(rows), n_keys = cJSON_GetArraySize(rows->child);
    g->sets = sim_xcalloc((size_t)n_keys + 1, sizeof *g->sets);
    g->axes = sim_xcalloc((size_t)n_keys + 2, sizeof *g->axes);
    cJSON *set_json = cJSON_CreateObject();
    for (const cJSON *k = rows->child->child; k; k = k->next) {
        if (same_in_every_row(rows, k->string)) {
            g->sets[g->n_sets++] = set_string(k->string, k);
            cJSON_AddItemToObject(set_json, k->string, cJSON_Duplicate(k, 0));
            continue;
        }
        struct grid_axis *a = &g->axes[g->n_axes++];
        snprintf(a->name, sizeof a->name, "%s", k->string);
        a->kind = GRID_AXIS_LIST;
        a->zip = 0;
        for (const cJSON *r = rows->child; r; r = r->next) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, k->string);
            char **sets = sim_xcalloc(1, sizeof *sets);
            sets[0] = set_string(a->name, v);
            add_entry(a, cJSON_Duplicate(v, 0), sets, 1);
        }
    }
    if (pl.labels) {
        /* the workload's name: a column of its own, no override (its options are in the other axes) */
        struct grid_axis *a = &g->axes[g->n_axes++];
        snprintf(a->name, sizeof a->name, "workload");
        a->kind = GRID_AXIS_ALTERNATIVES;
        a->zip = 0;
        for (const cJSON *l = pl.labels->child; l; l = l->next)
            add_entry(a, cJSON_CreateString(l->valuestring), sim_xcalloc(1, sizeof(char *)), 0);
    }
    g->replications = pl.iterations;
    g->json = cJSON_CreateObject();
    cJSON_AddStringToObject(g->json, "cbt", cbt_path);
    cJSON_AddStringToObject(g->json, "base", base);
    cJSON_AddItemToObject(g->json, "set", set_json);
    cJSON_AddItemToObject(g->json, "runs", cJSON_Duplicate(rows, 1));
    if (pl.labels)
        cJSON_AddItemToObject(g->json, "workloads", cJSON_Duplicate(pl.labels, 1));
    cJSON_AddItemToObject(g->json, "yaml", cJSON_Duplicate(pl.yaml, 1));
    g->n_notes = pl.n_notes;
    g->notes = pl.notes;
    pl.notes = NULL;
    pl.n_notes = 0;
    cbt_plan_free(&pl);
    if (n_rows > GRID_MAX_POINTS) {
        rc = sim_errf(err, -E2BIG, "%s: %d runs (at most %d)", cbt_path, n_rows, GRID_MAX_POINTS);
        goto fail;
    }
    if ((rc = expand(g, g->n_axes ? 1 : 0, err)) < 0)
        goto fail;
    return 0;
fail:
    grid_free(g);
    return rc;
}

/* ---- points -------------------------------------------------------------- */

const char **grid_point_sets(const struct grid *g, const struct grid_point *p, int *n)
{
    int total = g->n_sets;
    for (int i = 0; i < g->n_axes; i++)
        total += g->axes[i].entries[p->entry[i]].n_sets;
    const char **sets = sim_xcalloc((size_t)total + 1, sizeof *sets);
    int k = 0;
    for (int i = 0; i < g->n_sets; i++)
        sets[k++] = g->sets[i];
    for (int i = 0; i < g->n_axes; i++) {
        const struct grid_entry *e = &g->axes[i].entries[p->entry[i]];
        for (int s = 0; s < e->n_sets; s++)
            sets[k++] = e->sets[s];
    }
    *n = total;
    return sets;
}

cJSON *grid_point_axes_json(const struct grid *g, const struct grid_point *p)
{
    cJSON *j = cJSON_CreateObject();
    for (int i = 0; i < g->n_axes; i++)
        cJSON_AddItemToObject(j, g->axes[i].name, cJSON_Duplicate(g->axes[i].entries[p->entry[i]].value, 0));
    return j;
}

const char *grid_point_label(const struct grid *g, const struct grid_point *p, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < g->n_axes && len < n; i++) {
        char v[256];
        grid_value_text(g->axes[i].entries[p->entry[i]].value, v, sizeof v);
        len += (size_t)snprintf(buf + len, n - len, "%s%s=%s", i ? " " : "", g->axes[i].name, v);
    }
    return buf;
}

int grid_resolve_sets(const char *base, const char *const *sets, int n_sets, int replications,
                      struct grid_resolved *out, struct sim_err *err)
{
    struct scenario sc;
    int rc;
    memset(out, 0, sizeof *out);
    if ((rc = scenario_load(&sc, base, NULL, NULL, sets, n_sets, err)) < 0)
        return rc;
    cJSON *resolved = scenario_resolved_json(&sc);
    cJSON *ident = identity_json(resolved);
    out->params_json = grid_canonical_json(ident);
    out->seed = sc.sim.seed;
    out->replications = replications > 0 ? replications : (int)sc.sim.replications;
    id_of_canonical(out->params_json, out->seed, CEPHSIM_MODEL_VERSION, out->id);
    cJSON_Delete(ident);
    cJSON_Delete(resolved);
    scenario_free(&sc);
    return 0;
}

void grid_scenario_id(const struct scenario *sc, char out[GRID_ID_LEN + 1])
{
    cJSON *resolved = scenario_resolved_json(sc);
    grid_point_id(resolved, sc->sim.seed, CEPHSIM_MODEL_VERSION, out);
    cJSON_Delete(resolved);
}

void grid_resolved_free(struct grid_resolved *r)
{
    free(r->params_json);
    memset(r, 0, sizeof *r);
}

int grid_point_resolve(const struct grid *g, const struct grid_point *p, struct grid_resolved *out,
                       struct sim_err *err)
{
    int n;
    const char **sets = grid_point_sets(g, p, &n);
    struct sim_err e2 = {0};
    int rc = grid_resolve_sets(g->base, sets, n, g->replications, out, &e2);
    free(sets);
    if (rc < 0) {
        char label[300];
        grid_point_label(g, p, label, sizeof label);
        return sim_errf(err, rc, "%s: point %d (%s): %s", g->path, p->index, label, e2.msg);
    }
    return 0;
}

int grid_validate(const struct grid *g, struct sim_err *err)
{
    struct scenario sc;
    struct sim_err e2 = {0};
    int rc;
    if ((rc = scenario_load(&sc, g->base, NULL, NULL, (const char *const *)g->sets, g->n_sets, &e2)) < 0)
        return sim_errf(err, rc, "%s: base and set: %s", g->path, e2.msg);
    scenario_free(&sc);
    int most = 0;
    for (int i = 0; i < g->n_axes; i++)
        for (int e = 0; e < g->axes[i].n_entries; e++)
            most = g->axes[i].entries[e].n_sets > most ? g->axes[i].entries[e].n_sets : most;
    const char **sets = sim_xcalloc((size_t)g->n_sets + (size_t)most + 1, sizeof *sets);
    for (int i = 0; i < g->n_sets; i++)
        sets[i] = g->sets[i];
    for (int i = 0; i < g->n_axes && rc == 0; i++) {
        const struct grid_axis *a = &g->axes[i];
        for (int e = 0; e < a->n_entries && rc == 0; e++) {
            const struct grid_entry *en = &a->entries[e];
            for (int s = 0; s < en->n_sets; s++)
                sets[g->n_sets + s] = en->sets[s];
            if ((rc = scenario_load(&sc, g->base, NULL, NULL, sets, g->n_sets + en->n_sets, &e2)) < 0) {
                char v[256];
                grid_value_text(en->value, v, sizeof v);
                rc = sim_errf(err, rc, "%s: axes.%s: value %s: %s", g->path, a->name, v, e2.msg);
            } else {
                scenario_free(&sc);
            }
        }
    }
    free(sets);
    return rc;
}
