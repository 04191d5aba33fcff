/*
 * placement.c - CRUSH straw2 and the pool layer, written from Ceph's
 * algorithms (not its code) so that every PG maps where Ceph maps it.
 *
 * Pieces and the Ceph functions they mirror:
 *   placement_hash32_2/3      crush_hash32_rjenkins1_2/3      src/crush/hash.c
 *   placement_ln (+ tables)   crush_ln, crush_ln_table.h      src/crush/mapper.c
 *   straw2_choose             bucket_straw2_choose            src/crush/mapper.c
 *   choose_firstn/indep       crush_choose_firstn/indep       src/crush/mapper.c
 *   placement_do_rule         crush_do_rule                   src/crush/mapper.c
 *   placement_pool_pps        pg_pool_t::raw_pg_to_pps        src/osd/osd_types.cc
 *   placement_pg_map          OSDMap::_pg_to_up_acting_osds   src/osd/OSDMap.cc
 *   placement_build           OSDMap::build_simple_crush_map, CrushWrapper::
 *                             insert_item, update_device_class,
 *                             rebuild_roots_with_classes, device_class_clone
 *
 * Simplifications, all refused rather than approximated: only straw2 buckets
 * and the rjenkins1 hash, choose_local_fallback_tries 0 (so the permutation
 * fallback never runs), no weight sets, no pg_temp/upmap.
 */
#include "placement.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CRUSH_ITEM_UNDEF: a not-yet-chosen slot inside crush_choose_indep. */
#define ITEM_UNDEF 0x7ffffffe

/* ------------------------------------------------------------------------ */
/* rjenkins1 (Robert Jenkins' 96-bit mix, as CRUSH seeds and chains it)      */

#define HASH_SEED 1315423911u

static inline void hashmix(uint32_t *a, uint32_t *b, uint32_t *c)
{
    *a -= *b; *a -= *c; *a ^= *c >> 13;
    *b -= *c; *b -= *a; *b ^= *a << 8;
    *c -= *a; *c -= *b; *c ^= *b >> 13;
    *a -= *b; *a -= *c; *a ^= *c >> 12;
    *b -= *c; *b -= *a; *b ^= *a << 16;
    *c -= *a; *c -= *b; *c ^= *b >> 5;
    *a -= *b; *a -= *c; *a ^= *c >> 3;
    *b -= *c; *b -= *a; *b ^= *a << 10;
    *c -= *a; *c -= *b; *c ^= *b >> 15;
}

uint32_t placement_hash32_2(uint32_t a, uint32_t b)
{
    uint32_t h = HASH_SEED ^ a ^ b, x = 231232, y = 1232;
    hashmix(&a, &b, &h);
    hashmix(&x, &a, &h);
    hashmix(&b, &y, &h);
    return h;
}

uint32_t placement_hash32_3(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = HASH_SEED ^ a ^ b ^ c, x = 231232, y = 1232;
    hashmix(&a, &b, &h);
    hashmix(&c, &x, &h);
    hashmix(&y, &a, &h);
    hashmix(&b, &x, &h);
    hashmix(&y, &c, &h);
    return h;
}

/* ------------------------------------------------------------------------ */
/* crush_ln's tables                                                         */
/*
 * crush_ln_table.h states the formulas (RH = 2^48/(1+k/128), LH =
 * 2^48*log2(1+k/128), LL = 2^48*log2(1+k/2^15)) but ships values that do not
 * all follow them, and placement depends on every bit, so we generate from
 * the formulas and then apply the deviations of Ceph's copy, found by
 * comparing our values with the table inside libceph-common (16.2.15; the
 * test checks all 514 entries against tests/data/crush/crush_ln_tables.txt):
 *   RH[k]  = ceil(2^55 / (128+k))                          all 129 exact
 *   LH[k]  = floor(2^48 * log2(1+k/128))                   k < 128 exact;
 *            LH[128] is 0xffff00000000 (2^48 - 2^32), not 2^48
 *   LL[k]  = floor(2^48 * log2(1+k/2^15)) + 0x1477 << 20   for 2 <= k < 256,
 *            except 19 entries without the offset (ll_no_offset) and 23
 *            entries that follow no formula we could find (ll_irregular:
 *            their values are Ceph's, listed below).
 * The deviations have been in Ceph since straw2 appeared (2015) and cannot be
 * fixed there without moving data, so they are part of the algorithm.
 */

typedef unsigned __int128 u128;

/* ln(p/q) * 2^112 for q <= p < 2q, by ln(y) = 2 atanh((y-1)/(y+1)) in integers. */
static u128 ln_ratio_q112(uint64_t p, uint64_t q)
{
    const uint64_t num = p - q, den = p + q;
    u128 term = ((u128)1 << 112) * num / den, sum = 0;
    for (unsigned k = 1; term != 0; k += 2) {
        sum += term / k;
        term = term * num / den;
        term = term * num / den;
    }
    return 2 * sum;
}

/* floor(2^48 * log2(p/q)) by long division of ln(p/q) by ln 2, both in Q112. */
static int64_t log2_ratio_q48(uint64_t p, uint64_t q)
{
    const u128 ln2 = ln_ratio_q112(2, 1);
    u128 r = ln_ratio_q112(p, q);
    uint64_t v = (uint64_t)(r / ln2);
    r %= ln2;
    for (int i = 0; i < 48; i++) {
        r <<= 1;
        v <<= 1;
        if (r >= ln2) {
            r -= ln2;
            v |= 1;
        }
    }
    return (int64_t)v;
}

#define LL_OFFSET 0x147700000ll

static const uint8_t ll_no_offset[] = {203, 216, 222, 233, 237, 238, 239, 243, 244, 245,
                                       246, 248, 249, 250, 251, 252, 253, 254, 255};

static const struct {
    uint8_t k;
    int64_t v;
} ll_irregular[] = {
    {56, 0x000000a2b07f3458ll},  {127, 0x0000016df6ca19bdll}, {134, 0x00000182b07f3458ll},
    {181, 0x00000209c06e6212ll}, {184, 0x00000212b07f3458ll}, {188, 0x0000021d6a73a78fll},
    {193, 0x0000022c23679b4ell}, {198, 0x0000023a2c3b0ea4ll}, {199, 0x0000023d13ee805bll},
    {200, 0x0000024035e9221fll}, {207, 0x0000025492644d65ll}, {210, 0x0000025d13ee805bll},
    {212, 0x0000026296453882ll}, {225, 0x00000287bdbf5255ll}, {227, 0x0000028d13ee805bll},
    {228, 0x0000029035e9221fll}, {229, 0x0000029296453882ll}, {231, 0x0000029902a37aabll},
    {235, 0x000002a4c7605d61ll}, {236, 0x000002a7bdbf5255ll}, {240, 0x000002b296453882ll},
    {241, 0x000002b5d022d80fll}, {247, 0x000002c61a5e8f4cll},
};

void placement_ln_tables_init(struct placement_ln_tables *t)
{
    for (uint64_t k = 0; k <= 128; k++) {
        t->rh_lh[2 * k] = (int64_t)(((1ull << 55) + (128 + k) - 1) / (128 + k));
        t->rh_lh[2 * k + 1] = k < 128 ? log2_ratio_q48(128 + k, 128) : 0xffff00000000ll;
    }
    for (uint64_t k = 0; k < 256; k++)
        t->ll[k] = log2_ratio_q48((1u << 15) + k, 1u << 15) + (k >= 2 ? LL_OFFSET : 0);
    for (size_t i = 0; i < sizeof ll_no_offset; i++)
        t->ll[ll_no_offset[i]] -= LL_OFFSET;
    for (size_t i = 0; i < sizeof ll_irregular / sizeof ll_irregular[0]; i++)
        t->ll[ll_irregular[i].k] = ll_irregular[i].v;
}

/*
 * crush_ln: normalise x+1 to [2^15, 2^16], split it into a top part looked up
 * in RH/LH (1/index and log2 index) and a residue x1 ~ x/index in [2^15,
 * 2^15+2^8) looked up in LL; the result is iexpon.LH+LL in 2^44 units.
 */
static inline uint64_t ln_inline(const struct placement_ln_tables *t, uint32_t xin)
{
    uint32_t x = xin + 1;  /* 1 .. 0x10000 */
    int iexpon = 15;
    if (!(x & 0x18000)) {
        /* crush_ln shifts left until bit 15 is set, one bit at a time */
        int shift = __builtin_clz(x) - 16;
        x <<= shift;
        iexpon -= shift;
    }
    unsigned index1 = (x >> 8) << 1;
    uint64_t rh = (uint64_t)t->rh_lh[index1 - 256];
    uint64_t lh = (uint64_t)t->rh_lh[index1 + 1 - 256];
    uint32_t x1 = (uint32_t)(((uint64_t)x * rh) >> 48);
    uint64_t ll = (uint64_t)t->ll[x1 & 0xff];
    return ((uint64_t)iexpon << 44) + ((lh + ll) >> 4);
}

uint64_t placement_ln(const struct placement_ln_tables *t, uint32_t xin)
{
    return ln_inline(t, xin);
}

/* ------------------------------------------------------------------------ */
/* small helpers                                                             */

uint32_t placement_stable_mod(uint32_t x, uint32_t b, uint32_t bmask)
{
    return (x & bmask) < b ? x & bmask : x & (bmask >> 1);
}

uint32_t placement_pg_mask(uint32_t n)
{
    uint32_t bits = 0;
    for (uint32_t v = n ? n - 1 : 0; v; v >>= 1)
        bits++;
    return (uint32_t)((1ull << bits) - 1);
}

uint32_t placement_weight_from_tib(double tib)
{
    /* CrushWrapper::insert_item/adjust_item_weightf take the weight as a
       float and store (int)(weight * (float)0x10000): float, then truncate */
    float w = (float)tib;
    float scaled = w * (float)0x10000;
    if (!(scaled >= 0.0f) || scaled >= 2147483648.0f)
        return 0;
    return (uint32_t)(int32_t)scaled;
}

uint32_t placement_weight_from_bytes(uint64_t bytes)
{
    /* OSD::update_crush_location: snprintf("%.4lf", max(.00001, total/2^40)) */
    double tib = (double)bytes / (double)(1ull << 40);
    char buf[64];
    snprintf(buf, sizeof buf, "%.4lf", tib > .00001 ? tib : .00001);
    return placement_weight_from_tib(strtod(buf, NULL));
}

static char *xstrdup_or_null(const char *s)
{
    return s ? sim_xstrdup(s) : NULL;
}

/*
 * Exact a / w for a < 2^49 by one multiply (Granlund & Montgomery 1994, thm
 * 4.2): with l = ceil(log2 w) and m = ceil(2^(49+l) / w), floor(a/w) =
 * floor(a*m / 2^(49+l)).  straw2 divides every draw by a weight that never
 * changes between map edits, and a 64-bit idiv costs as much as the rest of
 * the draw, so placement_map_finalize precomputes m and 49+l per item.
 */
#define RECIP_BITS 49

static inline uint64_t div_recip(uint64_t a, struct placement_recip r)
{
    return (uint64_t)(((u128)a * r.m) >> r.shift);
}

static struct placement_recip recip_of(uint32_t w)
{
    unsigned l = 0;
    while (l < 32 && (1ull << l) < w)
        l++;
    u128 num = (u128)1 << (RECIP_BITS + l);
    return (struct placement_recip){(uint64_t)((num + w - 1) / w), RECIP_BITS + l};
}

/* ------------------------------------------------------------------------ */
/* the map                                                                   */

void placement_map_init(struct placement_map *m)
{
    memset(m, 0, sizeof *m);
    /* CrushWrapper::set_tunables_jewel (Pacific's "default" profile) */
    m->tunables = (struct placement_tunables){
        .choose_local_tries = 0,
        .choose_local_fallback_tries = 0,
        .choose_total_tries = 50,
        .chooseleaf_descend_once = 1,
        .chooseleaf_vary_r = 1,
        .chooseleaf_stable = 1,
        .straw_calc_version = 1,
        .allowed_bucket_algs = 54,
    };
    placement_ln_tables_init(&m->ln);
}

static void bucket_free(struct placement_bucket *b)
{
    if (!b)
        return;
    free(b->items);
    free(b->item_weights);
    free(b->recip);
    free(b->name);
    free(b);
}

void placement_map_fini(struct placement_map *m)
{
    for (int32_t i = 0; i < m->max_devices; i++)
        free(m->devices[i].name);
    free(m->devices);
    for (int32_t i = 0; i < m->max_buckets; i++)
        bucket_free(m->buckets[i]);
    free(m->buckets);
    for (int32_t i = 0; i < m->max_rules; i++) {
        free(m->rules[i].name);
        free(m->rules[i].steps);
    }
    free(m->rules);
    for (uint32_t i = 0; i < m->n_types; i++)
        free(m->types[i].name);
    free(m->types);
    for (uint32_t i = 0; i < m->n_classes; i++)
        free(m->classes[i].name);
    free(m->classes);
    memset(m, 0, sizeof *m);
}

static const char *name_of(const struct placement_name *v, uint32_t n, int32_t id)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i].id == id)
            return v[i].name;
    return NULL;
}

int placement_add_type(struct placement_map *m, int32_t id, const char *name, struct sim_err *err)
{
    if (id < 0)
        return sim_errf(err, -EINVAL, "type '%s': negative id %d", name, id);
    if (name_of(m->types, m->n_types, id))
        return sim_errf(err, -EEXIST, "type %d: defined twice", id);
    m->types = sim_xrealloc(m->types, m->n_types + 1, sizeof *m->types);
    m->types[m->n_types++] = (struct placement_name){id, sim_xstrdup(name)};
    m->finalized = false;
    return 0;
}

int32_t placement_class_id(struct placement_map *m, const char *name)
{
    int32_t top = -1;
    for (uint32_t i = 0; i < m->n_classes; i++) {
        if (strcmp(m->classes[i].name, name) == 0)
            return m->classes[i].id;
        if (m->classes[i].id > top)
            top = m->classes[i].id;
    }
    /* CrushWrapper::_alloc_class_id: one past the largest id in use */
    m->classes = sim_xrealloc(m->classes, m->n_classes + 1, sizeof *m->classes);
    m->classes[m->n_classes++] = (struct placement_name){top + 1, sim_xstrdup(name)};
    return top + 1;
}

static void grow_devices(struct placement_map *m, int32_t max)
{
    if (max <= m->max_devices)
        return;
    m->devices = sim_xrealloc(m->devices, (size_t)max, sizeof *m->devices);
    for (int32_t i = m->max_devices; i < max; i++)
        m->devices[i] = (struct placement_device){NULL, -1};
    m->max_devices = max;
}

int placement_add_device(struct placement_map *m, int32_t id, const char *name, const char *cls,
                         struct sim_err *err)
{
    if (id < 0 || id > (1 << 24))
        return sim_errf(err, -EINVAL, "device %d: id out of range", id);
    grow_devices(m, id + 1);
    struct placement_device *d = &m->devices[id];
    if (d->name)
        return sim_errf(err, -EEXIST, "device %d: defined twice", id);
    char buf[32];
    if (!name) {
        snprintf(buf, sizeof buf, "osd.%d", id);
        name = buf;
    }
    d->name = sim_xstrdup(name);
    d->class_id = cls ? placement_class_id(m, cls) : -1;
    m->finalized = false;
    return 0;
}

static struct placement_bucket *bucket_at(const struct placement_map *m, int32_t id)
{
    if (id >= 0 || -1 - (int64_t)id >= m->max_buckets)
        return NULL;
    return m->buckets[-1 - id];
}

const struct placement_bucket *placement_bucket_get(const struct placement_map *m, int32_t id)
{
    return bucket_at(m, id);
}

static const char *alg_name(int32_t alg)
{
    static const char *const names[] = {"none", "uniform", "list", "tree", "straw", "straw2"};
    return alg >= 0 && alg <= 5 ? names[alg] : "unknown";
}

int placement_add_bucket(struct placement_map *m, int32_t id, const char *name, int32_t type,
                         int32_t alg, int32_t hash, uint32_t n, const int32_t *items,
                         const uint32_t *weights, struct sim_err *err)
{
    const char *label = name ? name : "(unnamed)";
    if (alg != PLACEMENT_ALG_STRAW2)
        return sim_errf(err, -ENOTSUP,
                        "bucket %d '%s': alg %s is not supported (only straw2; see "
                        "'ceph osd crush set-all-straw-buckets-to-straw2')",
                        id, label, alg_name(alg));
    if (hash != 0)
        return sim_errf(err, -ENOTSUP, "bucket %d '%s': hash %d is not supported (only rjenkins1)",
                        id, label, hash);
    if (id >= 0 || id < -(1 << 24))
        return sim_errf(err, -EINVAL, "bucket '%s': id %d is not a bucket id (< 0)", label, id);
    int32_t slot = -1 - id;
    if (slot >= m->max_buckets) {
        m->buckets = sim_xrealloc(m->buckets, (size_t)slot + 1, sizeof *m->buckets);
        for (int32_t i = m->max_buckets; i <= slot; i++)
            m->buckets[i] = NULL;
        m->max_buckets = slot + 1;
    }
    if (m->buckets[slot])
        return sim_errf(err, -EEXIST, "bucket %d '%s': id already used by '%s'", id, label,
                        m->buckets[slot]->name ? m->buckets[slot]->name : "");
    struct placement_bucket *b = sim_xcalloc(1, sizeof *b);
    b->id = id;
    b->type = type;
    b->alg = alg;
    b->hash = hash;
    b->size = n;
    b->items = sim_xcalloc(n, sizeof *b->items);
    b->item_weights = sim_xcalloc(n, sizeof *b->item_weights);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        b->items[i] = items[i];
        b->item_weights[i] = weights[i];
        sum += weights[i];
    }
    b->weight = (uint32_t)sum;
    b->name = xstrdup_or_null(name);
    b->class_id = -1;
    const char *tilde = name ? strchr(name, '~') : NULL;
    if (tilde)
        b->class_id = placement_class_id(m, tilde + 1);
    m->buckets[slot] = b;
    m->finalized = false;
    return 0;
}

int placement_add_rule(struct placement_map *m, int32_t id, const char *name, int32_t type,
                       int32_t min_size, int32_t max_size, uint32_t n_steps,
                       const struct placement_step *steps, struct sim_err *err)
{
    if (id < 0 || id > 255)
        return sim_errf(err, -EINVAL, "rule '%s': id %d out of range", name, id);
    if (id >= m->max_rules) {
        m->rules = sim_xrealloc(m->rules, (size_t)id + 1, sizeof *m->rules);
        memset(m->rules + m->max_rules, 0, (size_t)(id + 1 - m->max_rules) * sizeof *m->rules);
        m->max_rules = id + 1;
    }
    struct placement_rule *r = &m->rules[id];
    if (r->name)
        return sim_errf(err, -EEXIST, "rule %d '%s': id already used by '%s'", id, name, r->name);
    r->name = sim_xstrdup(name);
    r->ruleset = id;
    r->type = type;
    r->min_size = min_size;
    r->max_size = max_size;
    r->n_steps = n_steps;
    r->steps = sim_xcalloc(n_steps, sizeof *r->steps);
    memcpy(r->steps, steps, n_steps * sizeof *steps);
    m->finalized = false;
    return 0;
}

int32_t placement_item_id(const struct placement_map *m, const char *name, bool *found)
{
    *found = true;
    for (int32_t i = 0; i < m->max_buckets; i++)
        if (m->buckets[i] && m->buckets[i]->name && strcmp(m->buckets[i]->name, name) == 0)
            return m->buckets[i]->id;
    for (int32_t i = 0; i < m->max_devices; i++)
        if (m->devices[i].name && strcmp(m->devices[i].name, name) == 0)
            return i;
    *found = false;
    return 0;
}

int placement_rule_id(const struct placement_map *m, const char *name)
{
    for (int32_t i = 0; i < m->max_rules; i++)
        if (m->rules[i].name && strcmp(m->rules[i].name, name) == 0)
            return i;
    return -ENOENT;
}

static bool item_valid(const struct placement_map *m, int32_t item)
{
    if (item >= 0)
        return item < m->max_devices && m->devices[item].name;
    return bucket_at(m, item) != NULL;
}

int placement_map_finalize(struct placement_map *m, struct sim_err *err)
{
    const struct placement_tunables *t = &m->tunables;
    if (t->choose_local_fallback_tries != 0)
        return sim_errf(err, -ENOTSUP,
                        "tunable choose_local_fallback_tries %u is not supported (only 0: "
                        "bobtail tunables or later)",
                        t->choose_local_fallback_tries);
    for (int32_t i = 0; i < m->max_buckets; i++) {
        struct placement_bucket *b = m->buckets[i];
        if (!b)
            continue;
        free(b->recip);  /* weights may have changed since the last finalize */
        b->recip = sim_xcalloc(b->size, sizeof *b->recip);
        for (uint32_t j = 0; j < b->size; j++)
            b->recip[j] = recip_of(b->item_weights[j] ? b->item_weights[j] : 1);
        if (b->type == 0 || !name_of(m->types, m->n_types, b->type))
            return sim_errf(err, -EINVAL, "bucket %d '%s': type %d is not a bucket type", b->id,
                            b->name ? b->name : "", b->type);
        for (uint32_t j = 0; j < b->size; j++)
            if (!item_valid(m, b->items[j]) || b->items[j] == b->id)
                return sim_errf(err, -EINVAL, "bucket %d '%s': item %d does not exist", b->id,
                                b->name ? b->name : "", b->items[j]);
    }
    for (int32_t i = 0; i < m->max_rules; i++) {
        const struct placement_rule *r = &m->rules[i];
        if (!r->name)
            continue;
        for (uint32_t j = 0; j < r->n_steps; j++) {
            const struct placement_step *s = &r->steps[j];
            switch (s->op) {
            case PLACEMENT_OP_TAKE:
                if (!item_valid(m, s->arg1))
                    return sim_errf(err, -EINVAL, "rule %d '%s': step %u takes item %d, which does not exist",
                                    i, r->name, j, s->arg1);
                break;
            case PLACEMENT_OP_CHOOSE_FIRSTN:
            case PLACEMENT_OP_CHOOSE_INDEP:
            case PLACEMENT_OP_CHOOSELEAF_FIRSTN:
            case PLACEMENT_OP_CHOOSELEAF_INDEP:
                if (s->arg2 != 0 && !name_of(m->types, m->n_types, s->arg2))
                    return sim_errf(err, -EINVAL, "rule %d '%s': step %u chooses unknown type %d", i,
                                    r->name, j, s->arg2);
                break;
            case PLACEMENT_OP_SET_CHOOSE_LOCAL_FALLBACK_TRIES:
                if (s->arg1 > 0)
                    return sim_errf(err, -ENOTSUP,
                                    "rule %d '%s': step %u: set_choose_local_fallback_tries %d is "
                                    "not supported (only 0)",
                                    i, r->name, j, s->arg1);
                break;
            case PLACEMENT_OP_NOOP:
            case PLACEMENT_OP_EMIT:
            case PLACEMENT_OP_SET_CHOOSE_TRIES:
            case PLACEMENT_OP_SET_CHOOSELEAF_TRIES:
            case PLACEMENT_OP_SET_CHOOSE_LOCAL_TRIES:
            case PLACEMENT_OP_SET_CHOOSELEAF_VARY_R:
            case PLACEMENT_OP_SET_CHOOSELEAF_STABLE:
                break;
            default:
                return sim_errf(err, -ENOTSUP, "rule %d '%s': step %u: opcode %d is not supported", i,
                                r->name, j, s->op);
            }
        }
    }
    m->finalized = true;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* crush_do_rule                                                             */

struct choose_ctx {
    const struct placement_map *m;
    const uint32_t *weight;
    int32_t weight_max;
    uint32_t x;
};

/*
 * crush_hash32_rjenkins1_3 on four b values at once.  The hash is one long
 * dependent chain (~180 operations), and straw2 hashes every item of a
 * bucket, so mapping time is hashing time; four independent lanes (SSE2 on
 * x86-64, plain scalar code elsewhere) cut it about threefold.  Same
 * arithmetic as placement_hash32_3, lane by lane.
 */
typedef uint32_t v4u __attribute__((vector_size(16)));

static inline void hashmix4(v4u *a, v4u *b, v4u *c)
{
    *a -= *b; *a -= *c; *a ^= *c >> 13;
    *b -= *c; *b -= *a; *b ^= *a << 8;
    *c -= *a; *c -= *b; *c ^= *b >> 13;
    *a -= *b; *a -= *c; *a ^= *c >> 12;
    *b -= *c; *b -= *a; *b ^= *a << 16;
    *c -= *a; *c -= *b; *c ^= *b >> 5;
    *a -= *b; *a -= *c; *a ^= *c >> 3;
    *b -= *c; *b -= *a; *b ^= *a << 10;
    *c -= *a; *c -= *b; *c ^= *b >> 15;
}

static inline v4u hash32_3_x4(uint32_t a1, v4u b, uint32_t c1)
{
    v4u a = {a1, a1, a1, a1}, c = {c1, c1, c1, c1};
    v4u h = HASH_SEED ^ a ^ b ^ c, x = {231232, 231232, 231232, 231232}, y = {1232, 1232, 1232, 1232};
    hashmix4(&a, &b, &h);
    hashmix4(&c, &x, &h);
    hashmix4(&y, &a, &h);
    hashmix4(&b, &x, &h);
    hashmix4(&y, &c, &h);
    return h;
}

/*
 * bucket_straw2_choose: every item draws ln(u)/w with u a 16-bit hash of
 * (x, item, r); the largest (least negative) draw wins, ties to the first.
 * That is the minimum of exponential variables of rate w, so an item wins in
 * proportion to its weight and changing one weight moves data only to or from
 * that item.
 */
static int32_t straw2_choose(const struct placement_map *m, const struct placement_bucket *b,
                             uint32_t x, int32_t r)
{
    uint32_t high = 0;
    int64_t high_draw = 0;
    for (uint32_t i0 = 0; i0 < b->size; i0 += 4) {
        v4u ids = {0, 0, 0, 0};
        uint32_t n = b->size - i0 < 4 ? b->size - i0 : 4;
        for (uint32_t k = 0; k < n; k++)
            ids[k] = (uint32_t)b->items[i0 + k];
        v4u u = hash32_3_x4(x, ids, (uint32_t)r);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t i = i0 + k, w = b->item_weights[i];
            int64_t draw = INT64_MIN;
            if (w) {
                int64_t ln = (int64_t)ln_inline(&m->ln, u[k] & 0xffff) - 0x1000000000000ll;
                /* div64_s64(ln, w), truncating toward zero; ln < 0 */
                draw = b->recip ? -(int64_t)div_recip((uint64_t)-ln, b->recip[i])
                                : ln / (int64_t)w;
            }
            if (i == 0 || draw > high_draw) {
                high = i;
                high_draw = draw;
            }
        }
    }
    return b->items[high];
}

/* is_out: a device reweighted to w < 1.0 rejects a hash-chosen (1 - w) of its inputs. */
static bool is_out(const struct choose_ctx *c, int32_t item)
{
    if (item >= c->weight_max)
        return true;
    uint32_t w = c->weight[item];
    if (w >= 0x10000)
        return false;
    if (w == 0)
        return true;
    return (placement_hash32_2(c->x, (uint32_t)item) & 0xffff) >= w;
}

/* The type of an item (0 for devices), or -1 for an id that names nothing. */
static int32_t item_type(const struct placement_map *m, int32_t item)
{
    if (item >= 0)
        return 0;
    const struct placement_bucket *b = bucket_at(m, item);
    return b ? b->type : -1;
}

struct firstn_args {
    unsigned tries, recurse_tries, local_retries;
    bool recurse_to_leaf;
    unsigned vary_r, stable;
};

/*
 * crush_choose_firstn: pick numrep distinct items of type `type` below
 * bucket, depth first.  A collision or an out device retries the whole
 * descent with r' = r + ftotal (after local_retries in the same bucket), up to
 * `tries` times.  With recurse_to_leaf each chosen bucket must also yield one
 * device (recursively, into out2), with r passed down per vary_r; stable makes
 * that inner choice start at rep 0 for every replica so earlier replicas do
 * not move when numrep grows.
 */
static int choose_firstn(const struct choose_ctx *c, const struct placement_bucket *bucket,
                         int numrep, int32_t type, int32_t *out, int outpos, int out_size,
                         const struct firstn_args *a, int32_t *out2, int parent_r)
{
    int count = out_size;
    for (int rep = a->stable ? 0 : outpos; rep < numrep && count > 0; rep++) {
        unsigned ftotal = 0;
        bool skip_rep = false, retry_descent;
        int32_t item = 0;
        do {
            const struct placement_bucket *in = bucket;
            unsigned flocal = 0;
            bool retry_bucket;
            retry_descent = false;
            do {
                bool collide = false, reject = false;
                int r = rep + parent_r + (int)ftotal;
                retry_bucket = false;
                if (in->size == 0) {
                    reject = true;
                } else {
                    item = straw2_choose(c->m, in, c->x, r);
                    if (item >= c->m->max_devices) {
                        skip_rep = true;
                        break;
                    }
                    int32_t itype = item_type(c->m, item);
                    if (itype < 0) {
                        skip_rep = true;
                        break;
                    }
                    if (itype != type) {
                        if (item >= 0) {
                            skip_rep = true;
                            break;
                        }
                        in = bucket_at(c->m, item);  /* keep descending, same r */
                        retry_bucket = true;
                        continue;
                    }
                    for (int i = 0; i < outpos; i++)
                        if (out[i] == item) {
                            collide = true;
                            break;
                        }
                    if (!collide && a->recurse_to_leaf) {
                        if (item < 0) {
                            struct firstn_args sub = *a;
                            sub.tries = a->recurse_tries;
                            sub.recurse_tries = 0;
                            sub.recurse_to_leaf = false;
                            int sub_r = a->vary_r ? r >> (a->vary_r - 1) : 0;
                            if (choose_firstn(c, bucket_at(c->m, item), a->stable ? 1 : outpos + 1, 0,
                                              out2, outpos, count, &sub, NULL, sub_r) <= outpos)
                                reject = true;  /* no leaf below it */
                        } else {
                            out2[outpos] = item;
                        }
                    }
                    if (!reject && !collide && itype == 0)
                        reject = is_out(c, item);
                }
                if (reject || collide) {
                    ftotal++;
                    flocal++;
                    if (collide && flocal <= a->local_retries)
                        retry_bucket = true;
                    else if (ftotal < a->tries)
                        retry_descent = true;
                    else
                        skip_rep = true;
                }
            } while (retry_bucket);
        } while (retry_descent);
        if (skip_rep)
            continue;
        out[outpos++] = item;
        count--;
    }
    return outpos;
}

/*
 * crush_choose_indep: breadth first and positional (for EC): each of the
 * `left` slots keeps its index, a failed slot is retried with r' = r +
 * numrep * ftotal and becomes PLACEMENT_ITEM_NONE if it never fills, so one
 * lost device changes one shard, not the order of all of them.
 */
static void choose_indep(const struct choose_ctx *c, const struct placement_bucket *bucket, int left,
                         int numrep, int32_t type, int32_t *out, int outpos, unsigned tries,
                         unsigned recurse_tries, bool recurse_to_leaf, int32_t *out2, int parent_r)
{
    const int endpos = outpos + left;
    for (int rep = outpos; rep < endpos; rep++) {
        out[rep] = ITEM_UNDEF;
        if (out2)
            out2[rep] = ITEM_UNDEF;
    }
    for (unsigned ftotal = 0; left > 0 && ftotal < tries; ftotal++) {
        for (int rep = outpos; rep < endpos; rep++) {
            if (out[rep] != ITEM_UNDEF)
                continue;
            const struct placement_bucket *in = bucket;
            for (;;) {
                /* straw2 only: crush's uniform-bucket variant of r' never applies */
                int r = rep + parent_r + numrep * (int)ftotal;
                if (in->size == 0)
                    break;
                int32_t item = straw2_choose(c->m, in, c->x, r);
                int32_t itype = item < c->m->max_devices ? item_type(c->m, item) : -1;
                if (itype < 0 || (itype != type && item >= 0)) {
                    out[rep] = PLACEMENT_ITEM_NONE;
                    if (out2)
                        out2[rep] = PLACEMENT_ITEM_NONE;
                    left--;
                    break;
                }
                if (itype != type) {
                    in = bucket_at(c->m, item);
                    continue;
                }
                bool collide = false;
                for (int i = outpos; i < endpos; i++)
                    if (out[i] == item) {
                        collide = true;
                        break;
                    }
                if (collide)
                    break;
                if (recurse_to_leaf) {
                    if (item < 0) {
                        choose_indep(c, bucket_at(c->m, item), 1, numrep, 0, out2, rep, recurse_tries,
                                     0, false, NULL, r);
                        if (out2 && out2[rep] == PLACEMENT_ITEM_NONE)
                            break;
                    } else if (out2) {
                        out2[rep] = item;
                    }
                }
                if (itype == 0 && is_out(c, item))
                    break;
                out[rep] = item;
                left--;
                break;
            }
        }
    }
    for (int rep = outpos; rep < endpos; rep++) {
        if (out[rep] == ITEM_UNDEF)
            out[rep] = PLACEMENT_ITEM_NONE;
        if (out2 && out2[rep] == ITEM_UNDEF)
            out2[rep] = PLACEMENT_ITEM_NONE;
    }
}

int placement_do_rule(const struct placement_map *m, int32_t ruleno, uint32_t x, int32_t *result,
                      int result_max, const uint32_t *weight, int32_t weight_max)
{
    if (ruleno < 0 || ruleno >= m->max_rules || !m->rules[ruleno].name || result_max <= 0)
        return 0;
    if (result_max > PLACEMENT_MAX_SIZE)
        result_max = PLACEMENT_MAX_SIZE;
    const struct placement_rule *rule = &m->rules[ruleno];
    const struct choose_ctx c = {m, weight, weight_max, x};
    int32_t a[PLACEMENT_MAX_SIZE], b[PLACEMENT_MAX_SIZE], leaf[PLACEMENT_MAX_SIZE];
    int32_t *w = a, *o = b;
    int wsize = 0, result_len = 0;
    /* choose_total_tries counted retries, not tries: crush_do_rule adds one */
    unsigned choose_tries = m->tunables.choose_total_tries + 1, choose_leaf_tries = 0;
    unsigned local_retries = m->tunables.choose_local_tries;
    unsigned vary_r = m->tunables.chooseleaf_vary_r, stable = m->tunables.chooseleaf_stable;

    for (uint32_t step = 0; step < rule->n_steps; step++) {
        const struct placement_step *s = &rule->steps[step];
        bool firstn = false;
        switch (s->op) {
        case PLACEMENT_OP_TAKE:
            if ((s->arg1 >= 0 && s->arg1 < m->max_devices) || bucket_at(m, s->arg1)) {
                w[0] = s->arg1;
                wsize = 1;
            }
            break;
        case PLACEMENT_OP_SET_CHOOSE_TRIES:
            if (s->arg1 > 0)
                choose_tries = (unsigned)s->arg1;
            break;
        case PLACEMENT_OP_SET_CHOOSELEAF_TRIES:
            if (s->arg1 > 0)
                choose_leaf_tries = (unsigned)s->arg1;
            break;
        case PLACEMENT_OP_SET_CHOOSE_LOCAL_TRIES:
            if (s->arg1 >= 0)
                local_retries = (unsigned)s->arg1;
            break;
        case PLACEMENT_OP_SET_CHOOSELEAF_VARY_R:
            if (s->arg1 >= 0)
                vary_r = (unsigned)s->arg1;
            break;
        case PLACEMENT_OP_SET_CHOOSELEAF_STABLE:
            if (s->arg1 >= 0)
                stable = (unsigned)s->arg1;
            break;
        case PLACEMENT_OP_CHOOSELEAF_FIRSTN:
        case PLACEMENT_OP_CHOOSE_FIRSTN:
            firstn = true;
            /* fall through */
        case PLACEMENT_OP_CHOOSELEAF_INDEP:
        case PLACEMENT_OP_CHOOSE_INDEP: {
            if (wsize == 0)
                break;
            bool to_leaf = s->op == PLACEMENT_OP_CHOOSELEAF_FIRSTN ||
                           s->op == PLACEMENT_OP_CHOOSELEAF_INDEP;
            int osize = 0;
            for (int i = 0; i < wsize; i++) {
                int numrep = s->arg1;
                if (numrep <= 0) {  /* CRUSH_CHOOSE_N(_MINUS): relative to the pool size */
                    numrep += result_max;
                    if (numrep <= 0)
                        continue;
                }
                const struct placement_bucket *from = bucket_at(m, w[i]);
                if (!from)
                    continue;
                if (firstn) {
                    struct firstn_args fa = {
                        .tries = choose_tries,
                        .recurse_tries = choose_leaf_tries ? choose_leaf_tries
                                         : m->tunables.chooseleaf_descend_once ? 1
                                                                              : choose_tries,
                        .local_retries = local_retries,
                        .recurse_to_leaf = to_leaf,
                        .vary_r = vary_r,
                        .stable = stable,
                    };
                    osize += choose_firstn(&c, from, numrep, s->arg2, o + osize, 0, result_max - osize,
                                           &fa, leaf + osize, 0);
                } else {
                    int out_size = numrep < result_max - osize ? numrep : result_max - osize;
                    choose_indep(&c, from, out_size, numrep, s->arg2, o + osize, 0, choose_tries,
                                 choose_leaf_tries ? choose_leaf_tries : 1, to_leaf, leaf + osize, 0);
                    osize += out_size;
                }
            }
            if (to_leaf)
                memcpy(o, leaf, (size_t)osize * sizeof *o);
            int32_t *t = o;
            o = w;
            w = t;
            wsize = osize;
            break;
        }
        case PLACEMENT_OP_EMIT:
            for (int i = 0; i < wsize && result_len < result_max; i++)
                result[result_len++] = w[i];
            wsize = 0;
            break;
        default:
            break;
        }
    }
    return result_len;
}

/* ------------------------------------------------------------------------ */
/* OSDs, pools, PGs                                                          */

void placement_osds_init(struct placement_osds *osds, int32_t max_osd)
{
    osds->max_osd = max_osd;
    osds->state = sim_xcalloc((size_t)max_osd, sizeof *osds->state);
    osds->weight = sim_xcalloc((size_t)max_osd, sizeof *osds->weight);
    osds->primary_affinity = NULL;
    for (int32_t i = 0; i < max_osd; i++) {
        osds->state[i] = PLACEMENT_OSD_EXISTS | PLACEMENT_OSD_UP;
        osds->weight[i] = PLACEMENT_WEIGHT_ONE;
    }
}

void placement_osds_fini(struct placement_osds *osds)
{
    free(osds->state);
    free(osds->weight);
    free(osds->primary_affinity);
    memset(osds, 0, sizeof *osds);
}

void placement_pool_init(struct placement_pool *pool, int64_t id, uint32_t size, uint32_t pg_num,
                         int32_t crush_rule)
{
    memset(pool, 0, sizeof *pool);
    pool->id = id;
    pool->type = PLACEMENT_POOL_REPLICATED;
    pool->size = size;
    pool->min_size = size - size / 2;  /* osd_pool_default_min_size 0: size - size/2 */
    pool->pg_num = pool->pgp_num = pg_num;
    pool->crush_rule = crush_rule;
    pool->flags = PLACEMENT_POOL_FLAG_HASHPSPOOL;
}

uint32_t placement_pool_pps(const struct placement_pool *pool, uint32_t ps)
{
    uint32_t s = placement_stable_mod(ps, pool->pgp_num, placement_pg_mask(pool->pgp_num));
    if (pool->flags & PLACEMENT_POOL_FLAG_HASHPSPOOL)
        return placement_hash32_2(s, (uint32_t)pool->id);
    /* legacy: pools overlap (1.5 == 2.4 == ...) */
    return s + (uint32_t)pool->id;
}

/* CrushWrapper::find_rule as in Pacific: ruleset, type and size must match. */
static int32_t find_rule(const struct placement_map *m, const struct placement_pool *pool)
{
    for (int32_t i = 0; i < m->max_rules; i++) {
        const struct placement_rule *r = &m->rules[i];
        if (r->name && r->ruleset == pool->crush_rule && r->type == pool->type &&
            r->min_size <= (int32_t)pool->size && r->max_size >= (int32_t)pool->size)
            return i;
    }
    return -1;
}

int placement_pool_check(const struct placement_map *m, const struct placement_pool *pool,
                         struct sim_err *err)
{
    if (!m->finalized)
        return sim_errf(err, -EINVAL, "pool %lld: crush map not finalized", (long long)pool->id);
    if (pool->size == 0 || pool->size > PLACEMENT_MAX_SIZE)
        return sim_errf(err, -EINVAL, "pool %lld '%s': size %u out of range 1..%d",
                        (long long)pool->id, pool->name, pool->size, PLACEMENT_MAX_SIZE);
    if (pool->pg_num == 0 || pool->pgp_num == 0 || pool->pgp_num > pool->pg_num)
        return sim_errf(err, -EINVAL, "pool %lld '%s': pg_num %u / pgp_num %u invalid",
                        (long long)pool->id, pool->name, pool->pg_num, pool->pgp_num);
    if (pool->type != PLACEMENT_POOL_REPLICATED && pool->type != PLACEMENT_POOL_ERASURE)
        return sim_errf(err, -EINVAL, "pool %lld '%s': type %d is neither replicated (1) nor erasure (3)",
                        (long long)pool->id, pool->name, pool->type);
    if (find_rule(m, pool) < 0)
        return sim_errf(err, -ENOENT,
                        "pool %lld '%s': no crush rule %d of type %d for size %u",
                        (long long)pool->id, pool->name, pool->crush_rule, pool->type, pool->size);
    return 0;
}

static bool osd_exists(const struct placement_osds *o, int32_t osd)
{
    return osd >= 0 && osd < o->max_osd && (o->state[osd] & PLACEMENT_OSD_EXISTS);
}

static bool osd_up(const struct placement_osds *o, int32_t osd)
{
    return osd_exists(o, osd) && (o->state[osd] & PLACEMENT_OSD_UP);
}

/* OSDMap::_apply_primary_affinity: an OSD of affinity a < 1 declines a hash-chosen (1-a) of its PGs. */
static void apply_primary_affinity(const struct placement_osds *o, const struct placement_pool *pool,
                                   uint32_t pps, int32_t *osds, uint32_t n, int32_t *primary)
{
    if (!o->primary_affinity)
        return;
    bool any = false;
    for (uint32_t i = 0; i < n; i++)
        if (osds[i] != PLACEMENT_ITEM_NONE && o->primary_affinity[osds[i]] != 0x10000)
            any = true;
    if (!any)
        return;
    int pos = -1;
    for (uint32_t i = 0; i < n; i++) {
        int32_t osd = osds[i];
        if (osd == PLACEMENT_ITEM_NONE)
            continue;
        uint32_t aff = o->primary_affinity[osd];
        if (aff < 0x10000 && (placement_hash32_2(pps, (uint32_t)osd) >> 16) >= aff) {
            if (pos < 0)
                pos = (int)i;  /* declined, but the fallback if nobody accepts */
        } else {
            pos = (int)i;
            break;
        }
    }
    if (pos < 0)
        return;
    *primary = osds[pos];
    if (pool->type == PLACEMENT_POOL_REPLICATED && pos > 0) {
        for (int i = pos; i > 0; i--)
            osds[i] = osds[i - 1];
        osds[0] = *primary;
    }
}

void placement_pg_map(const struct placement_map *m, const struct placement_osds *osds,
                      const struct placement_pool *pool, uint32_t ps, struct placement_pg *out)
{
    const bool shift = pool->type == PLACEMENT_POOL_REPLICATED;  /* pg_pool_t::can_shift_osds */
    int32_t raw[PLACEMENT_MAX_SIZE];
    uint32_t pps = placement_pool_pps(pool, ps);
    uint32_t size = pool->size < PLACEMENT_MAX_SIZE ? pool->size : PLACEMENT_MAX_SIZE;
    int32_t rule = find_rule(m, pool);
    int n = rule >= 0 ? placement_do_rule(m, rule, pps, raw, (int)size, osds->weight, osds->max_osd) : 0;

    /* _remove_nonexistent_osds, then _raw_to_up_osds (both: shift, or NONE holes) */
    uint32_t nu = 0;
    for (int i = 0; i < n; i++) {
        if (osd_up(osds, raw[i]))
            out->up[nu++] = raw[i];
        else if (!shift)
            out->up[nu++] = PLACEMENT_ITEM_NONE;
    }
    out->n_up = nu;
    out->up_primary = -1;
    for (uint32_t i = 0; i < nu; i++)
        if (out->up[i] != PLACEMENT_ITEM_NONE) {
            out->up_primary = out->up[i];
            break;
        }
    apply_primary_affinity(osds, pool, pps, out->up, nu, &out->up_primary);
    /* no pg_temp: acting is up */
    out->n_acting = nu;
    memcpy(out->acting, out->up, nu * sizeof *out->up);
    out->acting_primary = out->up_primary;
}

int placement_map_pool(const struct placement_map *m, const struct placement_osds *osds,
                       const struct placement_pool *pool, int32_t *acting, int32_t *primary,
                       struct sim_err *err)
{
    int rc = placement_pool_check(m, pool, err);
    if (rc < 0)
        return rc;
    struct placement_pg pg;
    for (uint32_t ps = 0; ps < pool->pg_num; ps++) {
        placement_pg_map(m, osds, pool, ps, &pg);
        int32_t *row = &acting[(size_t)ps * pool->size];
        for (uint32_t i = 0; i < pool->size; i++)
            row[i] = i < pg.n_acting ? pg.acting[i] : -1;
        if (primary)
            primary[ps] = pg.acting_primary;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* the builder: replay what a monitor does as the OSDs of a cluster boot    */
/*
 * Bucket ids matter for placement (they are hashed), so the builder replays
 * the monitor's steps rather than numbering buckets in some tidy order:
 *   - the initial map (OSDMap::build_simple_crush_map with no OSDs): types
 *     0..11, root "default" = -1, rule 0 "replicated_rule";
 *   - per OSD, at boot (OSD::init: update_crush_device_class, then
 *     update_crush_location): `osd crush set-device-class` and `osd crush
 *     create-or-move`; the latter is CrushWrapper::insert_item, which creates
 *     missing ancestors bottom-up (host, then rack) and appends the item.
 *     Each ends with rebuild_roots_with_classes.
 * Ids come from one allocator: the lowest free id (crush_add_bucket with id
 * 0, and device_class_clone's search, which also skips the shadow ids of the
 * previous generation).  A rebuild keeps the id of every (bucket, class) pair
 * it has seen before, so only new pairs take new ids, in the order
 * populate_classes meets them: roots by ascending id, classes by id, then a
 * post-order walk (children before their parent).  Replaying that order on
 * the pairs alone gives the ids; the shadow buckets' contents are built once
 * at the end from the final tree, which is what the last rebuild leaves.
 */

struct shadow_pair {
    int32_t orig, cls, id;
};

struct builder {
    struct placement_map *m;
    struct shadow_pair *pairs;
    size_t n_pairs;
    int32_t *dev_class;      /* per device id: class id or -1 */
};

static bool id_reserved(const struct builder *bd, int32_t id)
{
    if (bucket_at(bd->m, id))
        return true;
    for (size_t i = 0; i < bd->n_pairs; i++)
        if (bd->pairs[i].id == id)
            return true;
    return false;
}

static int32_t alloc_bucket_id(const struct builder *bd)
{
    int32_t id = -1;
    while (id_reserved(bd, id))
        id--;
    return id;
}

static int32_t pair_find(const struct builder *bd, int32_t orig, int32_t cls)
{
    for (size_t i = 0; i < bd->n_pairs; i++)
        if (bd->pairs[i].orig == orig && bd->pairs[i].cls == cls)
            return bd->pairs[i].id;
    return 0;
}

static void pairs_visit(struct builder *bd, int32_t orig, int32_t cls)
{
    const struct placement_bucket *b = bucket_at(bd->m, orig);
    for (uint32_t i = 0; i < b->size; i++)
        if (b->items[i] < 0)
            pairs_visit(bd, b->items[i], cls);
    if (pair_find(bd, orig, cls))
        return;
    int32_t id = alloc_bucket_id(bd);
    bd->pairs = sim_xrealloc(bd->pairs, bd->n_pairs + 1, sizeof *bd->pairs);
    bd->pairs[bd->n_pairs++] = (struct shadow_pair){orig, cls, id};
}

/*
 * rebuild_roots_with_classes, as far as ids go.  populate_classes walks every
 * non-shadow root in ascending id order; the builder's only root is
 * "default" (-1), racks and hosts hang below it.
 */
static void builder_rebuild(struct builder *bd)
{
    for (uint32_t c = 0; c < bd->m->n_classes; c++)  /* classes are created in id order */
        pairs_visit(bd, -1, bd->m->classes[c].id);
}

/* Append item to bucket id with weight w, and add w to every ancestor's weight. */
static void builder_append(struct placement_map *m, int32_t id, int32_t item, uint32_t w)
{
    struct placement_bucket *b = bucket_at(m, id);
    b->items = sim_xrealloc(b->items, b->size + 1, sizeof *b->items);
    b->item_weights = sim_xrealloc(b->item_weights, b->size + 1, sizeof *b->item_weights);
    b->items[b->size] = item;
    b->item_weights[b->size] = w;
    b->size++;
    b->weight += w;
}

static void builder_add_weight(struct placement_map *m, int32_t item, uint32_t w)
{
    /* adjust_item_weight: the item's own entry, then its bucket's entry, upward */
    while (w) {
        struct placement_bucket *parent = NULL;
        uint32_t pos = 0;
        for (int32_t i = 0; i < m->max_buckets && !parent; i++) {
            struct placement_bucket *b = m->buckets[i];
            if (!b || b->class_id >= 0)
                continue;
            for (uint32_t j = 0; j < b->size; j++)
                if (b->items[j] == item) {
                    parent = b;
                    pos = j;
                    break;
                }
        }
        if (!parent)
            return;
        parent->item_weights[pos] += w;
        parent->weight += w;
        item = parent->id;
    }
}

static int builder_new_bucket(struct builder *bd, const char *name, int32_t type, int32_t child,
                              int32_t *id, struct sim_err *err)
{
    uint32_t zero = 0;
    *id = alloc_bucket_id(bd);
    return placement_add_bucket(bd->m, *id, name, type, PLACEMENT_ALG_STRAW2, 0, 1, &child, &zero,
                                err);
}

/* CrushWrapper::insert_item(osd, weight, loc = {host, [rack], root=default}) */
static int builder_insert_osd(struct builder *bd, int32_t osd, uint32_t weight, const char *host,
                              const char *rack, struct sim_err *err)
{
    struct placement_map *m = bd->m;
    const struct {
        int32_t type;
        const char *name;
    } levels[] = {{1, host}, {3, rack}, {11, "default"}};
    int32_t cur = osd;
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        if (!levels[l].name)
            continue;
        bool found;
        int32_t id = placement_item_id(m, levels[l].name, &found);
        if (!found) {
            int rc = builder_new_bucket(bd, levels[l].name, levels[l].type, cur, &id, err);
            if (rc < 0)
                return rc;
            cur = id;
            continue;
        }
        builder_append(m, id, cur, 0);
        break;
    }
    builder_add_weight(m, osd, weight);
    return 0;
}

/* device_class_clone, contents only: ids were fixed by the replay */
static uint32_t builder_clone(struct builder *bd, int32_t orig, int32_t cls, struct sim_err *err,
                              int *rc)
{
    struct placement_map *m = bd->m;
    int32_t id = pair_find(bd, orig, cls);
    const struct placement_bucket *shadow = bucket_at(m, id);
    if (shadow)
        return shadow->weight;
    const struct placement_bucket *b = bucket_at(m, orig);
    int32_t *items = sim_xcalloc(b->size, sizeof *items);
    uint32_t *weights = sim_xcalloc(b->size, sizeof *weights), n = 0;
    for (uint32_t i = 0; i < b->size && *rc == 0; i++) {
        int32_t item = b->items[i];
        if (item >= 0) {
            if (bd->dev_class[item] != cls)
                continue;
            weights[n] = b->item_weights[i];
        } else {
            weights[n] = builder_clone(bd, item, cls, err, rc);
            item = pair_find(bd, item, cls);
        }
        items[n++] = item;
    }
    if (*rc == 0) {
        char name[256];
        snprintf(name, sizeof name, "%s~%s", b->name, name_of(m->classes, m->n_classes, cls));
        *rc = placement_add_bucket(m, id, name, b->type, b->alg, b->hash, n, items, weights, err);
    }
    free(items);
    free(weights);
    shadow = bucket_at(m, id);
    return shadow ? shadow->weight : 0;
}

static int builder_rule(struct placement_map *m, int32_t id, const char *name, int32_t take,
                        int32_t domain, struct sim_err *err)
{
    /* CrushWrapper::add_simple_rule_at(mode "firstn"): min_size 1, max_size 10 */
    struct placement_step steps[3] = {
        {PLACEMENT_OP_TAKE, take, 0},
        {domain ? PLACEMENT_OP_CHOOSELEAF_FIRSTN : PLACEMENT_OP_CHOOSE_FIRSTN, 0, domain},
        {PLACEMENT_OP_EMIT, 0, 0},
    };
    return placement_add_rule(m, id, name, PLACEMENT_POOL_REPLICATED, 1, 10, 3, steps, err);
}

/* CrushWrapper::add_simple_rule_at(mode "indep"), as `ceph osd pool create
   NAME erasure` makes it through ErasureCode::create_rule: chooseleaf and
   choose tries 5 and 100, min_size 3, max_size the profile's k + m. */
static int builder_ec_rule(struct placement_map *m, int32_t id, const char *name, int32_t take,
                           int32_t domain, uint32_t size, struct sim_err *err)
{
    struct placement_step steps[5] = {
        {PLACEMENT_OP_SET_CHOOSELEAF_TRIES, 5, 0},
        {PLACEMENT_OP_SET_CHOOSE_TRIES, 100, 0},
        {PLACEMENT_OP_TAKE, take, 0},
        {domain ? PLACEMENT_OP_CHOOSELEAF_INDEP : PLACEMENT_OP_CHOOSE_INDEP, 0, domain},
        {PLACEMENT_OP_EMIT, 0, 0},
    };
    return placement_add_rule(m, id, name, PLACEMENT_POOL_ERASURE, 3, (int32_t)size, 5, steps, err);
}

int placement_build(struct placement_map *m, const struct placement_build_spec *spec,
                    int32_t *rule, struct sim_err *err)
{
    static const char *const type_names[] = {"osd", "host", "chassis", "rack", "row", "pdu",
                                             "pod", "room", "datacenter", "zone", "region", "root"};
    int rc = 0;
    if (spec->hosts == 0 || spec->osds_per_host == 0)
        return sim_errf(err, -EINVAL, "placement_build: need hosts >= 1 and osds_per_host >= 1");
    if (spec->racks > spec->hosts)
        return sim_errf(err, -EINVAL, "placement_build: %u racks for %u hosts", spec->racks,
                        spec->hosts);
    if (spec->domain != PLACEMENT_DOMAIN_OSD && spec->domain != PLACEMENT_DOMAIN_HOST &&
        (spec->domain != PLACEMENT_DOMAIN_RACK || spec->racks == 0))
        return sim_errf(err, -EINVAL, "placement_build: failure domain %d needs %s", spec->domain,
                        spec->domain == PLACEMENT_DOMAIN_RACK ? "racks" : "to be osd, host or rack");
    if (m->max_buckets || m->max_devices || m->n_types)
        return sim_errf(err, -EINVAL, "placement_build: the map is not empty");
    const uint32_t n_osd = spec->hosts * spec->osds_per_host;
    struct builder bd = {.m = m, .dev_class = sim_xcalloc(n_osd, sizeof(int32_t))};

    for (int32_t t = 0; t < 12 && rc == 0; t++)
        rc = placement_add_type(m, t, type_names[t], err);
    int32_t root = -1;
    if (rc == 0)
        rc = placement_add_bucket(m, root, "default", 11, PLACEMENT_ALG_STRAW2, 0, 0, NULL, NULL, err);
    if (rc == 0)
        rc = builder_rule(m, 0, "replicated_rule", root, spec->domain, err);

    for (uint32_t o = 0; o < n_osd && rc == 0; o++) {
        uint32_t h = o / spec->osds_per_host;
        char host[32], rack[32];
        snprintf(host, sizeof host, "host%u", h);
        snprintf(rack, sizeof rack, "rack%u", spec->racks ? h % spec->racks : 0);
        double tib = spec->weight_tib ? spec->weight_tib[o] : 1.0;
        uint32_t w = spec->weight ? spec->weight[o] : placement_weight_from_tib(tib);
        if (!spec->weight && (!(tib >= 0.0) || tib >= 32768.0)) {
            rc = sim_errf(err, -EINVAL, "placement_build: osd.%u: weight %g TiB out of range", o, tib);
            break;
        }
        const char *cls = spec->osd_class ? spec->osd_class[o] : NULL;
        bd.dev_class[o] = -1;
        if (cls) {
            /* `osd crush set-device-class`: names the device, then rebuilds */
            rc = placement_add_device(m, (int32_t)o, NULL, cls, err);
            bd.dev_class[o] = m->devices[o].class_id;
            if (rc == 0)
                builder_rebuild(&bd);
        } else {
            rc = placement_add_device(m, (int32_t)o, NULL, NULL, err);
        }
        if (rc == 0)
            rc = builder_insert_osd(&bd, (int32_t)o, w, host, spec->racks ? rack : NULL, err);
        if (rc == 0)
            builder_rebuild(&bd);
    }

    /* the shadow trees as the last rebuild leaves them */
    for (uint32_t c = 0; c < m->n_classes && rc == 0; c++)
        builder_clone(&bd, root, m->classes[c].id, err, &rc);

    int32_t use_rule = 0;
    if (rc == 0 && spec->rule_class) {
        int32_t cls = -1;
        for (uint32_t c = 0; c < m->n_classes; c++)
            if (strcmp(m->classes[c].name, spec->rule_class) == 0)
                cls = m->classes[c].id;
        if (cls < 0) {
            rc = sim_errf(err, -ENOENT, "placement_build: rule class '%s': no OSD has it",
                          spec->rule_class);
        } else {
            char name[96];
            snprintf(name, sizeof name, "replicated_%s", spec->rule_class);
            rc = builder_rule(m, 1, name, pair_find(&bd, root, cls), spec->domain, err);
            use_rule = 1;
        }
    }
    if (rc == 0 && spec->ec_size) {
        rc = builder_ec_rule(m, use_rule + 1, spec->ec_rule_name ? spec->ec_rule_name : "erasure_rule",
                             spec->rule_class ? m->rules[use_rule].steps[0].arg1 : root, spec->domain,
                             spec->ec_size, err);
        use_rule++;
    }
    if (rc == 0)
        rc = placement_map_finalize(m, err);
    if (rc == 0 && rule)
        *rule = use_rule;
    free(bd.pairs);
    free(bd.dev_class);
    return rc;
}
