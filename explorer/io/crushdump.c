/*
 * crushdump.c - Ceph's JSON dumps (CrushWrapper::dump, pg_pool_t::dump,
 * OSDMap::dump) into placement.h's structs.
 *
 * The readers are strict about what placement needs (ids, weights, items,
 * steps) and ignore everything else, so a dump of a newer or older release
 * still loads as long as those fields mean the same.  Where releases differ:
 * Quincy and later dump rules without ruleset/min_size/max_size (then
 * ruleset = rule id and sizes 1..100, as they encode them).
 */
#include "crushdump.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonu.h"

/* One reader's state: where we are, for messages. */
struct rd {
    const char *file;
    struct sim_err *err;
};

static int fail(const struct rd *rd, const char *path, const char *what)
{
    return sim_errf(rd->err, -EINVAL, "%s: %s: %s", rd->file, path, what);
}

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* obj.key as an integer in [lo, hi]; absent: *out = def when !required. */
static int get_int(const struct rd *rd, const cJSON *obj, const char *path, const char *key,
                   int64_t lo, int64_t hi, bool required, int64_t def, int64_t *out)
{
    char p[256];
    snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
    const cJSON *v = member(obj, key);
    *out = def;  /* written on every path: callers read it only when rc == 0 */
    if (!v)
        return required ? fail(rd, p, "missing") : 0;
    if (!cJSON_IsNumber(v))
        return fail(rd, p, "expected an integer");
    double d = v->valuedouble;
    if (d != floor(d) || d < (double)lo || d > (double)hi) {
        char msg[128];
        snprintf(msg, sizeof msg, "%.17g is not an integer in %lld..%lld", d, (long long)lo,
                 (long long)hi);
        return fail(rd, p, msg);
    }
    *out = (int64_t)d;
    return 0;
}

static int get_i32(const struct rd *rd, const cJSON *obj, const char *path, const char *key,
                   int64_t lo, int64_t hi, bool required, int64_t def, int32_t *out)
{
    int64_t v;
    int rc = get_int(rd, obj, path, key, lo, hi, required, def, &v);
    *out = (int32_t)v;
    return rc;
}

/* obj.key as a string; absent: NULL when !required. */
static int get_str(const struct rd *rd, const cJSON *obj, const char *path, const char *key,
                   bool required, const char **out)
{
    char p[256];
    snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
    const cJSON *v = member(obj, key);
    *out = NULL;
    if (!v)
        return required ? fail(rd, p, "missing") : 0;
    if (!cJSON_IsString(v))
        return fail(rd, p, "expected a string");
    *out = v->valuestring;
    return 0;
}

/* obj.key as an array (required). */
static int get_array(const struct rd *rd, const cJSON *obj, const char *path, const char *key,
                     const cJSON **out)
{
    char p[256];
    snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
    const cJSON *v = member(obj, key);
    if (!v)
        return fail(rd, p, "missing");
    if (!cJSON_IsArray(v))
        return fail(rd, p, "expected an array");
    *out = v;
    return 0;
}

static int need_object(const struct rd *rd, const cJSON *v, const char *path)
{
    return cJSON_IsObject(v) ? 0 : fail(rd, path, "expected an object");
}

/* Parse text as JSON; the message names the file and the byte offset. */
static cJSON *parse_text(const char *text, const char *file, struct sim_err *err)
{
    const char *end = NULL;
    if (jsonu_check_nul(file, text, strlen(text), err) < 0)
        return NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, true);
    if (!root)
        sim_errf(err, -EINVAL, "%s: not JSON (error near byte %ld)", file,
                 end ? (long)(end - text) : 0L);
    return root;
}

static cJSON *load(const char *path, struct sim_err *err)
{
    char *text = NULL;
    if (jsonu_slurp(path, &text, NULL, err) < 0)
        return NULL;
    cJSON *root = parse_text(text, path, err);
    free(text);
    return root;
}

/* ---- crush dump ---- */

static int read_tunables(const struct rd *rd, const cJSON *root, struct placement_tunables *t)
{
    const cJSON *tun = member(root, "tunables");
    if (!tun)
        return 0;  /* a dump always has them; keep the defaults if not */
    if (need_object(rd, tun, "tunables") < 0)
        return rd->err ? rd->err->code : -EINVAL;
    const struct {
        const char *key;
        uint32_t *field;
    } f[] = {
        {"choose_local_tries", &t->choose_local_tries},
        {"choose_local_fallback_tries", &t->choose_local_fallback_tries},
        {"choose_total_tries", &t->choose_total_tries},
        {"chooseleaf_descend_once", &t->chooseleaf_descend_once},
        {"chooseleaf_vary_r", &t->chooseleaf_vary_r},
        {"chooseleaf_stable", &t->chooseleaf_stable},
        {"straw_calc_version", &t->straw_calc_version},
        {"allowed_bucket_algs", &t->allowed_bucket_algs},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        int64_t v;
        int rc = get_int(rd, tun, "tunables", f[i].key, 0, UINT32_MAX, false, *f[i].field, &v);
        if (rc < 0)
            return rc;
        *f[i].field = (uint32_t)v;
    }
    return 0;
}

static int read_devices(const struct rd *rd, const cJSON *root, struct placement_map *m)
{
    const cJSON *arr;
    int rc = get_array(rd, root, "", "devices", &arr), i = 0;
    if (rc < 0)
        return rc;
    const cJSON *d;
    cJSON_ArrayForEach(d, arr)
    {
        if (rc < 0)
            break;
        char p[64];
        snprintf(p, sizeof p, "devices[%d]", i++);
        int32_t id;
        const char *name, *cls;
        if ((rc = need_object(rd, d, p)) < 0 ||
            (rc = get_i32(rd, d, p, "id", 0, 1 << 24, true, 0, &id)) < 0 ||
            (rc = get_str(rd, d, p, "name", true, &name)) < 0 ||
            (rc = get_str(rd, d, p, "class", false, &cls)) < 0)
            break;
        /* CrushWrapper::dump names holes "deviceN": they are no device */
        char hole[32];
        snprintf(hole, sizeof hole, "device%d", id);
        if (strcmp(name, hole) == 0 && !cls)
            continue;
        struct sim_err e = {0};
        if ((rc = placement_add_device(m, id, name, cls, &e)) < 0)
            return sim_errf(rd->err, rc, "%s: %s: %s", rd->file, p, e.msg);
    }
    return rc < 0 ? rc : 0;
}

static int read_types(const struct rd *rd, const cJSON *root, struct placement_map *m)
{
    const cJSON *arr, *t;
    int rc = get_array(rd, root, "", "types", &arr), i = 0;
    if (rc < 0)
        return rc;
    cJSON_ArrayForEach(t, arr)
    {
        if (rc < 0)
            break;
        char p[64];
        snprintf(p, sizeof p, "types[%d]", i++);
        int32_t id;
        const char *name;
        if ((rc = need_object(rd, t, p)) < 0 ||
            (rc = get_i32(rd, t, p, "type_id", 0, 1 << 16, true, 0, &id)) < 0 ||
            (rc = get_str(rd, t, p, "name", true, &name)) < 0)
            break;
        struct sim_err e = {0};
        if ((rc = placement_add_type(m, id, name, &e)) < 0)
            return sim_errf(rd->err, rc, "%s: %s: %s", rd->file, p, e.msg);
    }
    return rc < 0 ? rc : 0;
}

static int alg_from_name(const char *s)
{
    static const char *const names[] = {"uniform", "list", "tree", "straw", "straw2"};
    for (int i = 0; i < 5; i++)
        if (strcmp(s, names[i]) == 0)
            return i + 1;
    return -1;
}

static int read_bucket(const struct rd *rd, const cJSON *b, const char *p, struct placement_map *m)
{
    int32_t id, type;
    int64_t weight;
    const char *name, *alg, *hash;
    const cJSON *items;
    int rc;
    if ((rc = need_object(rd, b, p)) < 0 ||
        (rc = get_i32(rd, b, p, "id", -(1 << 24), -1, true, 0, &id)) < 0 ||
        (rc = get_str(rd, b, p, "name", false, &name)) < 0 ||
        (rc = get_i32(rd, b, p, "type_id", 1, 1 << 16, true, 0, &type)) < 0 ||
        (rc = get_int(rd, b, p, "weight", 0, UINT32_MAX, true, 0, &weight)) < 0 ||
        (rc = get_str(rd, b, p, "alg", true, &alg)) < 0 ||
        (rc = get_str(rd, b, p, "hash", true, &hash)) < 0 ||
        (rc = get_array(rd, b, p, "items", &items)) < 0)
        return rc;
    char q[128];
    if (alg_from_name(alg) != PLACEMENT_ALG_STRAW2) {
        snprintf(q, sizeof q, "%s.alg", p);
        return sim_errf(rd->err, -ENOTSUP,
                        "%s: %s: bucket %d '%s' is %s; only straw2 is supported (ceph osd crush "
                        "set-all-straw-buckets-to-straw2)",
                        rd->file, q, id, name ? name : "", alg);
    }
    if (strcmp(hash, "rjenkins1") != 0) {
        snprintf(q, sizeof q, "%s.hash", p);
        return sim_errf(rd->err, -ENOTSUP, "%s: %s: bucket %d '%s': hash %s is not supported",
                        rd->file, q, id, name ? name : "", hash);
    }
    int n = cJSON_GetArraySize(items), j = 0;
    int32_t *ids = sim_xcalloc((size_t)n, sizeof *ids);
    uint32_t *ws = sim_xcalloc((size_t)n, sizeof *ws);
    uint64_t sum = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, items)
    {
        snprintf(q, sizeof q, "%s.items[%d]", p, j);
        int64_t w, pos;
        if ((rc = need_object(rd, it, q)) < 0 ||
            (rc = get_i32(rd, it, q, "id", -(1 << 24), 1 << 24, true, 0, &ids[j])) < 0 ||
            (rc = get_int(rd, it, q, "weight", 0, UINT32_MAX, true, 0, &w)) < 0 ||
            (rc = get_int(rd, it, q, "pos", 0, INT32_MAX, false, j, &pos)) < 0)
            goto out;
        if (pos != j) {
            /* straw2 breaks ties by position: the order must be Ceph's */
            snprintf(q, sizeof q, "%s.items[%d].pos", p, j);
            rc = fail(rd, q, "items are not in pos order");
            goto out;
        }
        ws[j++] = (uint32_t)w;
        sum += (uint64_t)w;
    }
    if (sum != (uint64_t)weight) {
        snprintf(q, sizeof q, "%s.weight", p);
        char msg[128];
        snprintf(msg, sizeof msg, "%lld is not the sum of the item weights (%llu)",
                 (long long)weight, (unsigned long long)sum);
        rc = fail(rd, q, msg);
        goto out;
    }
    struct sim_err e = {0};
    rc = placement_add_bucket(m, id, name, type, PLACEMENT_ALG_STRAW2, 0, (uint32_t)n, ids, ws, &e);
    if (rc < 0)
        sim_errf(rd->err, rc, "%s: %s: %s", rd->file, p, e.msg);
out:
    free(ids);
    free(ws);
    return rc;
}

static int read_buckets(const struct rd *rd, const cJSON *root, struct placement_map *m)
{
    const cJSON *arr, *b;
    int rc = get_array(rd, root, "", "buckets", &arr), i = 0;
    if (rc < 0)
        return rc;
    cJSON_ArrayForEach(b, arr)
    {
        if (rc < 0)
            break;
        char p[64];
        snprintf(p, sizeof p, "buckets[%d]", i++);
        rc = read_bucket(rd, b, p, m);
    }
    return rc < 0 ? rc : 0;
}

static const struct {
    const char *name;
    int32_t op;
    int args;  /* 0: none, 1: num, 2: num + type, 3: item */
} step_ops[] = {
    {"noop", PLACEMENT_OP_NOOP, 0},
    {"take", PLACEMENT_OP_TAKE, 3},
    {"emit", PLACEMENT_OP_EMIT, 0},
    {"choose_firstn", PLACEMENT_OP_CHOOSE_FIRSTN, 2},
    {"choose_indep", PLACEMENT_OP_CHOOSE_INDEP, 2},
    {"chooseleaf_firstn", PLACEMENT_OP_CHOOSELEAF_FIRSTN, 2},
    {"chooseleaf_indep", PLACEMENT_OP_CHOOSELEAF_INDEP, 2},
    {"set_choose_tries", PLACEMENT_OP_SET_CHOOSE_TRIES, 1},
    {"set_chooseleaf_tries", PLACEMENT_OP_SET_CHOOSELEAF_TRIES, 1},
    {"set_choose_local_tries", PLACEMENT_OP_SET_CHOOSE_LOCAL_TRIES, 1},
    {"set_choose_local_fallback_tries", PLACEMENT_OP_SET_CHOOSE_LOCAL_FALLBACK_TRIES, 1},
    {"set_chooseleaf_vary_r", PLACEMENT_OP_SET_CHOOSELEAF_VARY_R, 1},
    {"set_chooseleaf_stable", PLACEMENT_OP_SET_CHOOSELEAF_STABLE, 1},
};

static int read_step(const struct rd *rd, const cJSON *s, const char *p,
                     const struct placement_map *m, struct placement_step *out)
{
    const char *op;
    int rc;
    if ((rc = need_object(rd, s, p)) < 0 || (rc = get_str(rd, s, p, "op", true, &op)) < 0)
        return rc;
    size_t k = 0;
    while (k < sizeof step_ops / sizeof step_ops[0] && strcmp(step_ops[k].name, op) != 0)
        k++;
    char q[160];
    if (k == sizeof step_ops / sizeof step_ops[0]) {
        snprintf(q, sizeof q, "%s.op", p);
        return sim_errf(rd->err, -ENOTSUP, "%s: %s: step '%s' is not supported", rd->file, q, op);
    }
    *out = (struct placement_step){step_ops[k].op, 0, 0};
    switch (step_ops[k].args) {
    case 1:
        return get_i32(rd, s, p, "num", INT32_MIN, INT32_MAX, true, 0, &out->arg1);
    case 3:
        return get_i32(rd, s, p, "item", -(1 << 24), 1 << 24, true, 0, &out->arg1);
    case 2: {
        if ((rc = get_i32(rd, s, p, "num", -(1 << 16), 1 << 16, true, 0, &out->arg1)) < 0)
            return rc;
        /* dump_rule prints the type by name when it has one */
        const cJSON *t = member(s, "type");
        snprintf(q, sizeof q, "%s.type", p);
        if (cJSON_IsNumber(t))
            return get_i32(rd, s, p, "type", 0, 1 << 16, true, 0, &out->arg2);
        if (!cJSON_IsString(t))
            return fail(rd, q, t ? "expected a type name" : "missing");
        for (uint32_t i = 0; i < m->n_types; i++)
            if (strcmp(m->types[i].name, t->valuestring) == 0) {
                out->arg2 = m->types[i].id;
                return 0;
            }
        char msg[96];
        snprintf(msg, sizeof msg, "unknown type '%.60s'", t->valuestring);
        return fail(rd, q, msg);
    }
    default:
        return 0;
    }
}

static int read_rules(const struct rd *rd, const cJSON *root, struct placement_map *m)
{
    const cJSON *arr, *r;
    int rc = get_array(rd, root, "", "rules", &arr), i = 0;
    if (rc < 0)
        return rc;
    cJSON_ArrayForEach(r, arr)
    {
        if (rc < 0)
            break;
        char p[64];
        snprintf(p, sizeof p, "rules[%d]", i++);
        int32_t id, ruleset, type, min_size, max_size;
        const char *name;
        const cJSON *steps;
        if ((rc = need_object(rd, r, p)) < 0 ||
            (rc = get_i32(rd, r, p, "rule_id", 0, 255, true, 0, &id)) < 0 ||
            (rc = get_str(rd, r, p, "rule_name", true, &name)) < 0 ||
            (rc = get_i32(rd, r, p, "ruleset", 0, 255, false, id, &ruleset)) < 0 ||
            (rc = get_i32(rd, r, p, "type", 0, 255, true, 0, &type)) < 0 ||
            (rc = get_i32(rd, r, p, "min_size", 0, 255, false, 1, &min_size)) < 0 ||
            (rc = get_i32(rd, r, p, "max_size", 0, 255, false, 100, &max_size)) < 0 ||
            (rc = get_array(rd, r, p, "steps", &steps)) < 0)
            break;
        int n = cJSON_GetArraySize(steps), j = 0;
        struct placement_step *st = sim_xcalloc((size_t)n, sizeof *st);
        const cJSON *s;
        cJSON_ArrayForEach(s, steps)
        {
            char q[96];
            snprintf(q, sizeof q, "%s.steps[%d]", p, j);
            if ((rc = read_step(rd, s, q, m, &st[j++])) < 0)
                break;
        }
        if (rc == 0) {
            struct sim_err e = {0};
            rc = placement_add_rule(m, id, name, type, min_size, max_size, (uint32_t)n, st, &e);
            if (rc < 0)
                sim_errf(rd->err, rc, "%s: %s: %s", rd->file, p, e.msg);
            else
                m->rules[id].ruleset = ruleset;
        }
        free(st);
    }
    return rc < 0 ? rc : 0;
}

int crushdump_crush_from_json(const cJSON *root, const char *file, struct placement_map *m,
                              struct sim_err *err)
{
    const struct rd rd = {file, err};
    placement_map_init(m);
    int rc;
    if (!cJSON_IsObject(root)) {
        rc = sim_errf(err, -EINVAL, "%s: expected a crush dump object", file);
        goto fail;
    }
    const cJSON *ca = member(root, "choose_args");
    if (ca && cJSON_GetArraySize(ca) > 0) {
        rc = sim_errf(err, -ENOTSUP,
                      "%s: choose_args: weight sets are not supported (they change placement; "
                      "'ceph osd crush weight-set rm-compat' removes the balancer's)",
                      file);
        goto fail;
    }
    /* types before rules (steps name types), devices before buckets */
    if ((rc = read_tunables(&rd, root, &m->tunables)) < 0 || (rc = read_types(&rd, root, m)) < 0 ||
        (rc = read_devices(&rd, root, m)) < 0 || (rc = read_buckets(&rd, root, m)) < 0 ||
        (rc = read_rules(&rd, root, m)) < 0)
        goto fail;
    struct sim_err e = {0};
    if ((rc = placement_map_finalize(m, &e)) < 0) {
        sim_errf(err, rc, "%s: %s", file, e.msg);
        goto fail;
    }
    return 0;
fail:
    placement_map_fini(m);
    return rc;
}

int crushdump_load_crush(const char *path, struct placement_map *m, struct sim_err *err)
{
    cJSON *root = load(path, err);
    if (!root) {
        memset(m, 0, sizeof *m);
        return err ? err->code : -EINVAL;
    }
    int rc = crushdump_crush_from_json(root, path, m, err);
    cJSON_Delete(root);
    return rc;
}

/* ---- pools ---- */

static int read_pool(const struct rd *rd, const cJSON *o, const char *p, struct placement_pool *pool)
{
    int64_t id, flags, size, min_size, pg_num, pgp_num;
    int32_t type, rule;
    const char *name;
    int rc;
    if ((rc = need_object(rd, o, p)) < 0 ||
        /* `osd dump` says "pool", `osd pool ls detail` says "pool_id" */
        (rc = get_int(rd, o, p, member(o, "pool_id") ? "pool_id" : "pool", 0, INT64_MAX / 2, true, 0,
                      &id)) < 0 ||
        (rc = get_str(rd, o, p, "pool_name", false, &name)) < 0 ||
        (rc = get_i32(rd, o, p, "type", 1, 3, true, 0, &type)) < 0 ||
        (rc = get_int(rd, o, p, "size", 1, 255, true, 0, &size)) < 0 ||
        (rc = get_int(rd, o, p, "min_size", 0, 255, false, size - size / 2, &min_size)) < 0 ||
        (rc = get_i32(rd, o, p, "crush_rule", 0, 255, true, 0, &rule)) < 0 ||
        (rc = get_int(rd, o, p, "pg_num", 1, UINT32_MAX, true, 0, &pg_num)) < 0 ||
        (rc = get_int(rd, o, p, "flags", 0, INT64_MAX / 2, false, 1, &flags)) < 0)
        return rc;
    /* pg_pool_t::dump calls pgp_num "pg_placement_num" */
    const char *pgp_key = member(o, "pg_placement_num") ? "pg_placement_num" : "pgp_num";
    if ((rc = get_int(rd, o, p, pgp_key, 1, pg_num, false, pg_num, &pgp_num)) < 0)
        return rc;
    if (type != PLACEMENT_POOL_REPLICATED && type != PLACEMENT_POOL_ERASURE) {
        char q[96];
        snprintf(q, sizeof q, "%s.type", p);
        return fail(rd, q, "neither replicated (1) nor erasure (3)");
    }
    memset(pool, 0, sizeof *pool);
    pool->id = id;
    pool->type = type;
    pool->size = (uint32_t)size;
    pool->min_size = (uint32_t)min_size;
    pool->pg_num = (uint32_t)pg_num;
    pool->pgp_num = (uint32_t)pgp_num;
    pool->crush_rule = rule;
    pool->flags = (uint64_t)flags;
    snprintf(pool->name, sizeof pool->name, "%s", name ? name : "");
    return 0;
}

int crushdump_pools_from_json(const cJSON *root, const char *file, struct placement_pool **pools,
                              size_t *n, struct sim_err *err)
{
    const struct rd rd = {file, err};
    const cJSON *arr = root;
    const char *base = "";
    *pools = NULL;
    *n = 0;
    if (cJSON_IsObject(root)) {  /* ceph osd dump */
        int rc = get_array(&rd, root, "", "pools", &arr);
        if (rc < 0)
            return rc;
        base = "pools";
    } else if (!cJSON_IsArray(root)) {
        return sim_errf(err, -EINVAL, "%s: expected a pool list or an osd dump", file);
    }
    size_t cnt = (size_t)cJSON_GetArraySize(arr), i = 0;
    struct placement_pool *v = sim_xcalloc(cnt, sizeof *v);
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        char p[64];
        snprintf(p, sizeof p, "%s[%zu]", base, i);
        int rc = read_pool(&rd, o, p, &v[i++]);
        if (rc < 0) {
            free(v);
            return rc;
        }
    }
    *pools = v;
    *n = cnt;
    return 0;
}

int crushdump_load_pools(const char *path, struct placement_pool **pools, size_t *n,
                         struct sim_err *err)
{
    *pools = NULL;
    *n = 0;
    cJSON *root = load(path, err);
    if (!root)
        return err ? err->code : -EINVAL;
    int rc = crushdump_pools_from_json(root, path, pools, n, err);
    cJSON_Delete(root);
    return rc;
}

const struct placement_pool *crushdump_pool_find(const struct placement_pool *pools, size_t n,
                                                 int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (pools[i].id == id)
            return &pools[i];
    return NULL;
}

/* ---- OSD states ---- */

/* obj.key as a number in [0, 1] (OSDMap::dump's reweight and primary affinity). */
static int get_unit(const struct rd *rd, const cJSON *obj, const char *path, const char *key,
                    double *out)
{
    char p[96];
    snprintf(p, sizeof p, "%s.%s", path, key);
    const cJSON *v = member(obj, key);
    if (!v) {
        *out = 1.0;
        return 0;
    }
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.0 && v->valuedouble <= 1.0))
        return fail(rd, p, "expected a number in 0..1");
    *out = v->valuedouble;
    return 0;
}

int crushdump_osds_from_json(const cJSON *root, const char *file, struct placement_osds *osds,
                             struct sim_err *err)
{
    const struct rd rd = {file, err};
    const cJSON *arr, *o;
    int rc;
    memset(osds, 0, sizeof *osds);
    if (!cJSON_IsObject(root))
        return sim_errf(err, -EINVAL, "%s: expected an osd dump object", file);
    if ((rc = get_array(&rd, root, "", "osds", &arr)) < 0)
        return rc;
    int64_t max_osd = 0;
    int i = 0;
    cJSON_ArrayForEach(o, arr)
    {
        char p[64];
        snprintf(p, sizeof p, "osds[%d]", i++);
        int64_t id;
        if ((rc = need_object(&rd, o, p)) < 0 ||
            (rc = get_int(&rd, o, p, "osd", 0, 1 << 24, true, 0, &id)) < 0)
            return rc;
        if (id + 1 > max_osd)
            max_osd = id + 1;
    }
    int64_t declared;
    if ((rc = get_int(&rd, root, "", "max_osd", 0, 1 << 24, false, max_osd, &declared)) < 0)
        return rc;
    if (declared < max_osd)
        return fail(&rd, "max_osd", "smaller than an OSD id in osds");
    placement_osds_init(osds, (int32_t)declared);
    for (int32_t k = 0; k < osds->max_osd; k++) {
        osds->state[k] = 0;
        osds->weight[k] = 0;
    }
    bool custom_affinity = false;
    uint32_t *aff = sim_xcalloc((size_t)osds->max_osd, sizeof *aff);
    for (int32_t k = 0; k < osds->max_osd; k++)
        aff[k] = 0x10000;
    i = 0;
    cJSON_ArrayForEach(o, arr)
    {
        char p[64];
        snprintf(p, sizeof p, "osds[%d]", i++);
        int64_t id, up;
        double w, a;
        if ((rc = get_int(&rd, o, p, "osd", 0, 1 << 24, true, 0, &id)) < 0 ||
            (rc = get_int(&rd, o, p, "up", 0, 1, true, 0, &up)) < 0 ||
            (rc = get_unit(&rd, o, p, "weight", &w)) < 0 ||
            (rc = get_unit(&rd, o, p, "primary_affinity", &a)) < 0)
            break;
        osds->state[id] = (uint8_t)(PLACEMENT_OSD_EXISTS | (up ? PLACEMENT_OSD_UP : 0));
        osds->weight[id] = (uint32_t)lround(w * 0x10000);
        aff[id] = (uint32_t)lround(a * 0x10000);
        if (aff[id] != 0x10000)
            custom_affinity = true;
    }
    if (rc < 0) {
        free(aff);
        placement_osds_fini(osds);
        return rc;
    }
    if (custom_affinity)
        osds->primary_affinity = aff;
    else
        free(aff);
    return 0;
}

int crushdump_load_osds(const char *path, struct placement_osds *osds, struct sim_err *err)
{
    memset(osds, 0, sizeof *osds);
    cJSON *root = load(path, err);
    if (!root)
        return err ? err->code : -EINVAL;
    int rc = crushdump_osds_from_json(root, path, osds, err);
    cJSON_Delete(root);
    return rc;
}
