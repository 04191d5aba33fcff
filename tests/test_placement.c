/*
 * test_placement.c - Ceph placement (models/ceph/placement.c) and the crush
 * dump reader (explorer/io/crushdump.c) against Ceph's own tools.
 *
 * The references in tests/data/crush/ were made by generate.sh with Ceph
 * 16.2.15 (a throw-away monitor, crushtool, osdmaptool): for every map, every
 * x of `crushtool --test --show-mappings` and every PG of `osdmaptool
 * --test-map-pgs-dump` must come out the same, and placement_build must
 * rebuild the monitor's map bucket for bucket.  When crushtool/osdmaptool are
 * on PATH the maps are also run through them live; otherwise those tests
 * skip, the committed references are always checked.
 *
 * Hash, ln and stable_mod values were computed independently: the hashes by
 * a separate Python rjenkins1, the weights and bucket sums from the
 * monitor's own dumps, crush_ln's tables read out of libceph-common.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cluster-internal.h"
#include "crushdump.h"
#include "scenario.h"
#include "placement.h"

#define DATA "tests/data/crush/"

/* ---------------------------------------------------------------- helpers */

static void load_map(const char *name, struct placement_map *m)
{
    char path[256];
    struct sim_err err = {0};
    snprintf(path, sizeof path, DATA "%s.crush.json", name);
    int rc = crushdump_load_crush(path, m, &err);
    if (rc < 0)
        fail_msg("%s", err.msg);
}

static struct placement_pool load_pool(const char *name, int64_t id)
{
    char path[256];
    struct sim_err err = {0};
    struct placement_pool *pools, out;
    size_t n;
    snprintf(path, sizeof path, DATA "%s.pools.json", name);
    if (crushdump_load_pools(path, &pools, &n, &err) < 0)
        fail_msg("%s", err.msg);
    const struct placement_pool *p = crushdump_pool_find(pools, n, id);
    if (!p)
        fail_msg("%s: no pool %" PRId64, path, id);
    out = *p;
    free(pools);
    return out;
}

/* Parse "[1,2,3]" at s into v; returns the count, -1 on bad text; *end past ']'. */
static int parse_set(const char *s, int32_t *v, int max, const char **end)
{
    if (*s != '[')
        return -1;
    s++;
    int n = 0;
    while (*s && *s != ']') {
        char *e;
        long x = strtol(s, &e, 10);
        if (e == s || n >= max)
            return -1;
        v[n++] = (int32_t)x;
        s = *e == ',' ? e + 1 : e;
    }
    if (*s != ']')
        return -1;
    *end = s + 1;
    return n;
}

/*
 * Compare `crushtool --test --show-mappings` output in file fp with
 * placement_do_rule on m with reweights weight[]; returns the lines checked.
 */
static int check_crushtool(FILE *fp, const char *what, const struct placement_map *m,
                           const uint32_t *weight, int32_t weight_max, int numrep)
{
    char line[512];
    int lines = 0;
    while (fgets(line, sizeof line, fp)) {
        int rule;
        unsigned x;
        int off = 0;
        if (sscanf(line, "CRUSH rule %d x %u %n", &rule, &x, &off) != 2 || !off)
            continue;
        int32_t want[PLACEMENT_MAX_SIZE], got[PLACEMENT_MAX_SIZE];
        const char *end;
        int nw = parse_set(line + off, want, PLACEMENT_MAX_SIZE, &end);
        if (nw < 0)
            fail_msg("%s: bad line '%s'", what, line);
        int ng = placement_do_rule(m, rule, x, got, numrep, weight, weight_max);
        if (ng != nw || memcmp(want, got, (size_t)nw * sizeof *got) != 0) {
            char g[256] = "";
            for (int i = 0, k = 0; i < ng; i++)
                k += snprintf(g + k, sizeof g - (size_t)k, "%s%d", i ? "," : "", got[i]);
            fail_msg("%s: rule %d x %u: crushtool %.*s, placement [%s]", what, rule, x,
                     (int)(end - (line + off)), line + off, g);
        }
        lines++;
    }
    return lines;
}

/* All-in weights for the devices of m, as CrushTester gives crushtool --test. */
static uint32_t *crushtool_weights(const struct placement_map *m)
{
    uint32_t *w = calloc((size_t)m->max_devices + 1, sizeof *w);
    for (int32_t i = 0; i < m->max_devices; i++)
        w[i] = m->devices[i].name ? 0x10000 : 0;
    return w;
}

/*
 * Compare `osdmaptool --test-map-pgs-dump` output ("1.1f\t[3,7,12]\t3") in fp
 * with placement_pg_map; returns the PGs checked.  The header "pool P pg_num N"
 * must match pool.
 */
static int check_osdmaptool(FILE *fp, const char *what, const struct placement_map *m,
                            const struct placement_osds *osds, const struct placement_pool *pool)
{
    char line[512];
    int pgs = 0;
    while (fgets(line, sizeof line, fp)) {
        long long pid;
        unsigned pgn;
        if (sscanf(line, "pool %lld pg_num %u", &pid, &pgn) == 2) {
            assert_int_equal(pid, pool->id);
            assert_int_equal(pgn, pool->pg_num);
            continue;
        }
        unsigned ps;
        int off = 0;
        if (sscanf(line, "%lld.%x %n", &pid, &ps, &off) != 2 || !off || line[off] != '[')
            continue;
        int32_t want[PLACEMENT_MAX_SIZE];
        const char *end;
        int nw = parse_set(line + off, want, PLACEMENT_MAX_SIZE, &end);
        long primary = strtol(end, NULL, 10);
        if (nw < 0)
            fail_msg("%s: bad line '%s'", what, line);
        struct placement_pg pg;
        placement_pg_map(m, osds, pool, ps, &pg);
        if ((int)pg.n_acting != nw || memcmp(want, pg.acting, (size_t)nw * sizeof *want) != 0 ||
            pg.acting_primary != primary) {
            char g[256] = "";
            for (uint32_t i = 0, k = 0; i < pg.n_acting; i++)
                k += (uint32_t)snprintf(g + k, sizeof g - k, "%s%d", i ? "," : "", pg.acting[i]);
            fail_msg("%s: pg %lld.%x: osdmaptool %.*s p%ld, placement [%s] p%d", what, pid, ps,
                     (int)(end - (line + off)), line + off, primary, g, pg.acting_primary);
        }
        pgs++;
    }
    return pgs;
}

/* OSD states as `osdmaptool --mark-up-in [--mark-out N]...` leaves them. */
static void osds_up_in(struct placement_osds *o, int32_t max_osd, const int32_t *out, int n_out)
{
    placement_osds_init(o, max_osd);
    for (int i = 0; i < n_out; i++)
        o->weight[out[i]] = 0;
}

/* ------------------------------------------------------- fixed values */

static void hash_values(void **state)
{
    (void)state;
    /* from an independent Python rjenkins1 (src/crush/hash.c's mix, seed 1315423911) */
    assert_int_equal(placement_hash32_2(0, 0), 430787817u);
    assert_int_equal(placement_hash32_2(0, 1), 91478055u);
    assert_int_equal(placement_hash32_2(1, 1), 3308535608u);
    assert_int_equal(placement_hash32_2(12345, 1), 3620576177u);
    assert_int_equal(placement_hash32_2(0xffffffffu, 7), 2874985758u);
    assert_int_equal(placement_hash32_2(1023, 2), 485232788u);
    assert_int_equal(placement_hash32_3(0, 0, 0), 2050749362u);
    assert_int_equal(placement_hash32_3(1, 2, 3), 1935332395u);
    assert_int_equal(placement_hash32_3(1000, 0xffffffffu, 5), 2151192247u);
    assert_int_equal(placement_hash32_3(77, (uint32_t)-3, 0), 1852984370u);
}

/* Our generated tables equal the ones inside Ceph's library, all 514 entries. */
static void ln_tables_equal_ceph(void **state)
{
    (void)state;
    struct placement_ln_tables t;
    placement_ln_tables_init(&t);
    FILE *fp = fopen(DATA "crush_ln_tables.txt", "r");
    assert_non_null(fp);
    char line[128];
    int i = 0;
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#')
            continue;
        int64_t want = (int64_t)strtoull(line, NULL, 16);
        int64_t got = i < 258 ? t.rh_lh[i] : t.ll[i - 258];
        if (got != want)
            fail_msg("crush_ln table entry %d (%s[%d]): ceph %016" PRIx64 ", ours %016" PRIx64, i,
                     i < 258 ? "RH_LH" : "LL", i < 258 ? i : i - 258, (uint64_t)want,
                     (uint64_t)got);
        i++;
    }
    fclose(fp);
    assert_int_equal(i, 258 + 256);
}

/* When libceph-common is installed, read its tables and compare them too. */
static void ln_tables_live(void **state)
{
    (void)state;
    const char *lib = "/usr/lib/x86_64-linux-gnu/ceph/libceph-common.so.2";
    FILE *fp = fopen(lib, "rb");
    if (!fp)
        skip();
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    struct placement_ln_tables t;
    placement_ln_tables_init(&t);
    /* find each table by its first three entries (little-endian int64) */
    void *rh = memmem(buf, (size_t)n, t.rh_lh, 3 * sizeof(int64_t));
    void *ll = memmem(buf, (size_t)n, t.ll, 3 * sizeof(int64_t));
    assert_non_null(rh);
    assert_non_null(ll);
    assert_memory_equal(rh, t.rh_lh, sizeof t.rh_lh);
    assert_memory_equal(ll, t.ll, sizeof t.ll);
    free(buf);
}

static void ln_values(void **state)
{
    (void)state;
    struct placement_ln_tables t;
    placement_ln_tables_init(&t);
    /* log2(1) = 0; log2(65536) = 16 would be 2^48, Ceph's LH[128] makes it 2^48 - 2^28 */
    assert_int_equal(placement_ln(&t, 0), 0);
    assert_int_equal(placement_ln(&t, 0xffff), 0xfffff0000000ull);
    assert_int_equal(placement_ln(&t, 1), 1ull << 44);     /* log2(2) */
    assert_int_equal(placement_ln(&t, 3), 2ull << 44);     /* log2(4) */
    assert_int_equal(placement_ln(&t, 0x7fff), 15ull << 44);
    /* close to log2 everywhere; not monotonic: the LL errata put crush_ln(65534)
       above crush_ln(65535), among others, so do not rely on order */
    for (uint32_t x = 0; x <= 0xffff; x++) {
        double want = log2((double)x + 1.0);
        double got = (double)placement_ln(&t, x) / (double)(1ull << 44);
        if (fabs(got - want) > 1e-4)
            fail_msg("crush_ln(%u) = %.6f, log2 %.6f", x, got, want);
    }
}

static void stable_mod_and_masks(void **state)
{
    (void)state;
    /* ceph_stable_mod: x & mask if < b, else x & (mask >> 1) */
    assert_int_equal(placement_stable_mod(13, 12, 15), 5);
    assert_int_equal(placement_stable_mod(11, 12, 15), 11);
    assert_int_equal(placement_stable_mod(1023, 1000, 1023), 511);
    assert_int_equal(placement_stable_mod(999, 1000, 1023), 999);
    assert_int_equal(placement_stable_mod(5000, 1024, 1023), 5000 & 1023);
    assert_int_equal(placement_pg_mask(1), 0);
    assert_int_equal(placement_pg_mask(2), 1);
    assert_int_equal(placement_pg_mask(3), 3);
    assert_int_equal(placement_pg_mask(1000), 1023);
    assert_int_equal(placement_pg_mask(1024), 1023);
    assert_int_equal(placement_pg_mask(1025), 2047);
}

static void weights(void **state)
{
    (void)state;
    /* as the monitor stored them (the *.crush.json dumps in tests/data/crush) */
    assert_int_equal(placement_weight_from_tib(3.4931), 228923);
    assert_int_equal(placement_weight_from_tib(0.8733), 57232);
    assert_int_equal(placement_weight_from_tib(7.2767), 476885);
    assert_int_equal(placement_weight_from_tib(1.0), 0x10000);
    /* a 3.84 TB drive: 3.49246 TiB, printed "3.4925" by the OSD at boot */
    assert_int_equal(placement_weight_from_bytes(3840000000000ull), 228884);
}

/* ------------------------------------------------- the big comparisons */

struct x_case {
    const char *map;
    int rule, numrep;
    const char *tag;        /* file suffix */
    int32_t rw_osd[4];      /* crushtool --weight overrides, -1 ends */
    double rw[4];
};

static const struct x_case x_cases[] = {
    {"h3x10", 0, 3, "", {-1}, {0}},
    {"h10x6", 0, 3, "", {-1}, {0}},
    {"h10x6", 0, 3, ".reweight", {5, 11, 40, -1}, {0.5, 0, 0.25}},
    {"unequal", 0, 3, "", {-1}, {0}},
    {"classes", 0, 3, "", {-1}, {0}},
    {"classes", 1, 3, "", {-1}, {0}},
    {"classes", 2, 4, "", {-1}, {0}},
    {"osddomain", 1, 3, "", {-1}, {0}},
    {"racks", 0, 3, "", {-1}, {0}},
    {"racks", 1, 2, "", {-1}, {0}},
    {"h100x10", 0, 3, "", {-1}, {0}},
    {"h10x6ec", 1, 6, "", {-1}, {0}},
};

static void crushtool_mappings(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof x_cases / sizeof x_cases[0]; c++) {
        const struct x_case *xc = &x_cases[c];
        struct placement_map m;
        load_map(xc->map, &m);
        uint32_t *w = crushtool_weights(&m);
        for (int i = 0; i < 4 && xc->rw_osd[i] >= 0; i++)
            w[xc->rw_osd[i]] = (uint32_t)(xc->rw[i] * 0x10000);
        char path[256];
        snprintf(path, sizeof path, DATA "%s.rule%d.rep%d%s.txt", xc->map, xc->rule, xc->numrep, xc->tag);
        FILE *fp = fopen(path, "r");
        if (!fp)
            fail_msg("%s: cannot open", path);
        int n = check_crushtool(fp, path, &m, w, m.max_devices, xc->numrep);
        fclose(fp);
        if (n < 256)
            fail_msg("%s: only %d mappings", path, n);
        free(w);
        placement_map_fini(&m);
    }
}

struct pg_case {
    const char *map;
    int64_t pool;
    const char *osd_dump;   /* reweights from this `ceph osd dump`, or NULL: all in */
    int32_t out[4];         /* --mark-out, -1 ends (cross-checked against osd_dump) */
    uint32_t pg_num;        /* 0: the pool's; else osdmaptool --pg_num */
};

static const struct pg_case pg_cases[] = {
    {"h3x10", 1, NULL, {-1}, 0},
    {"h10x6", 1, NULL, {23, -1}, 0},
    {"unequal", 1, NULL, {-1}, 0},
    {"classes", 1, "classes", {3, -1}, 0},
    {"classes", 2, "classes", {3, -1}, 0},
    {"osddomain", 1, NULL, {-1}, 0},
    {"racks", 1, NULL, {-1}, 0},
    {"racks", 2, NULL, {-1}, 0},
    {"h100x10", 1, NULL, {-1}, 4096},
    {"h10x6ec", 1, NULL, {-1}, 0},
};

static void pg_case_setup(const struct pg_case *pc, struct placement_map *m,
                          struct placement_osds *osds, struct placement_pool *pool)
{
    load_map(pc->map, m);
    *pool = load_pool(pc->map, pc->pool);
    if (pc->pg_num)
        pool->pg_num = pool->pgp_num = pc->pg_num;
    int n_out = 0;
    while (n_out < 4 && pc->out[n_out] >= 0)
        n_out++;
    if (pc->osd_dump) {
        char path[256];
        struct sim_err err = {0};
        snprintf(path, sizeof path, DATA "%s.osd-dump.json", pc->osd_dump);
        if (crushdump_load_osds(path, osds, &err) < 0)
            fail_msg("%s", err.msg);
        /* the monitor never saw an OSD boot: all down; osdmaptool --mark-up-in */
        for (int32_t i = 0; i < osds->max_osd; i++) {
            assert_true(osds->state[i] & PLACEMENT_OSD_EXISTS);
            assert_false(osds->state[i] & PLACEMENT_OSD_UP);
            osds->state[i] |= PLACEMENT_OSD_UP;
            bool is_out = false;
            for (int k = 0; k < n_out; k++)
                is_out |= pc->out[k] == i;
            assert_int_equal(osds->weight[i], is_out ? 0 : 0x10000);
        }
    } else {
        osds_up_in(osds, m->max_devices, pc->out, n_out);
    }
}

static void osdmaptool_pgs(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof pg_cases / sizeof pg_cases[0]; c++) {
        const struct pg_case *pc = &pg_cases[c];
        struct placement_map m;
        struct placement_osds osds;
        struct placement_pool pool;
        pg_case_setup(pc, &m, &osds, &pool);
        struct sim_err err = {0};
        if (placement_pool_check(&m, &pool, &err) < 0)
            fail_msg("%s", err.msg);
        char path[256];
        snprintf(path, sizeof path, DATA "%s.pool%" PRId64 ".txt", pc->map, pc->pool);
        FILE *fp = fopen(path, "r");
        if (!fp)
            fail_msg("%s: cannot open", path);
        int n = check_osdmaptool(fp, path, &m, &osds, &pool);
        fclose(fp);
        assert_int_equal(n, pool.pg_num);
        placement_osds_fini(&osds);
        placement_map_fini(&m);
    }
}

/* PGs x size per OSD, as `osdmaptool --test-map-pgs` counts them, for the seed cluster. */
static void seed_cluster_counts(void **state)
{
    (void)state;
    struct placement_map m;
    struct placement_osds osds;
    struct placement_pool pool;
    const struct pg_case pc = {"h3x10", 1, NULL, {-1}, 0};
    pg_case_setup(&pc, &m, &osds, &pool);
    uint32_t count[64] = {0}, first[64] = {0};
    int32_t *acting = calloc((size_t)pool.pg_num * pool.size, sizeof *acting);
    int32_t *primary = calloc(pool.pg_num, sizeof *primary);
    struct sim_err err = {0};
    assert_int_equal(placement_map_pool(&m, &osds, &pool, acting, primary, &err), 0);
    for (size_t i = 0; i < (size_t)pool.pg_num * pool.size; i++)
        count[acting[i]]++;
    for (uint32_t ps = 0; ps < pool.pg_num; ps++)
        first[primary[ps]]++;
    FILE *fp = fopen(DATA "h3x10.pool1.counts.txt", "r");
    assert_non_null(fp);
    char line[256];
    int seen = 0;
    while (fgets(line, sizeof line, fp)) {
        int osd;
        unsigned cnt, fst, pri;
        if (sscanf(line, "osd.%d %u %u %u", &osd, &cnt, &fst, &pri) != 4)
            continue;
        assert_in_range(osd, 0, 29);
        assert_int_equal(count[osd], cnt);
        assert_int_equal(first[osd], fst);
        seen++;
    }
    fclose(fp);
    assert_int_equal(seen, 30);
    free(acting);
    free(primary);
    placement_osds_fini(&osds);
    placement_map_fini(&m);
}

/* The cluster model places its PGs through this module: the seed cluster (3
   hosts x 10 PM983, size 3, 1024 PGs) has, PG for PG, the acting sets
   osdmaptool prints for the same map (pool id 1, as in the reference). */
static void cluster_uses_crush(void **state)
{
    (void)state;
    static const char json[] =
        "{\"cluster\": {\"hosts\": 3, \"osds_per_host\": 10, \"nvme\": \"pm983\"},"
        " \"pool\": {\"size\": 3, \"pg_num\": 1024},"
        " \"clients\": {\"jobs\": \"[w]\\nioengine=rbd\\nrw=randwrite\\nbs=4k\\n\"},"
        " \"sim\": {\"duration_s\": 0.01, \"warmup_s\": 0}}";
    struct scenario sc;
    struct sim_err err = {0};
    if (scenario_load(&sc, NULL, json, "seed.json", NULL, 0, &err) < 0)
        fail_msg("%s", err.msg);
    struct cluster_spec spec;
    assert_int_equal(scenario_to_spec(&sc, 0, &spec, &err), 0);
    spec.pool_id = 1;
    struct cluster *c = cluster_create(&spec, &err);
    if (!c)
        fail_msg("%s", err.msg);
    FILE *fp = fopen(DATA "h3x10.pool1.txt", "r");
    assert_non_null(fp);
    char line[256];
    uint32_t seen = 0, primaries[30] = {0};
    while (fgets(line, sizeof line, fp)) {
        unsigned ps, a, b, d;
        int pri;
        if (sscanf(line, "1.%x\t[%u,%u,%u]\t%d", &ps, &a, &b, &d, &pri) != 5)
            continue;
        const uint32_t *acting = cluster_acting(c, ps);
        if (acting[0] != a || acting[1] != b || acting[2] != d)
            fail_msg("PG 1.%x: cluster [%u,%u,%u], osdmaptool [%u,%u,%u]", ps, acting[0], acting[1], acting[2], a, b,
                     d);
        primaries[acting[0]]++;
        seen++;
    }
    fclose(fp);
    assert_int_equal(seen, 1024);
    /* no OSD is primary for much more than its share (the old hash gave osd.0 2.4x) */
    for (int i = 0; i < 30; i++)
        assert_true(primaries[i] < 1024 / 30 * 1.5);
    cluster_destroy(c);
    scenario_free(&sc);
}

/* A user's own map (cluster.crush_map = `ceph osd crush dump` JSON, with the
   pool's id, pg_num and crush_rule as `ceph osd pool ls detail` prints them):
   the simulated cluster's acting sets equal osdmaptool's on that map. */
static void check_cluster_on_dump(const char *name, const char *crush_json, int pool_id, int pg_num, int rule,
                                  const char *ref)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"cluster\": {\"crush_map\": \"%s\", \"nvme\": \"pm983\", \"client_hosts\": 1},"
             " \"pool\": {\"size\": 3, \"pg_num\": %d, \"id\": %d, \"crush_rule\": %d},"
             " \"clients\": {\"jobs\": \"[w]\\nioengine=rbd\\nrw=randwrite\\nbs=4k\\n\"},"
             " \"sim\": {\"duration_s\": 0.01, \"warmup_s\": 0}}",
             crush_json, pg_num, pool_id, rule);
    struct scenario sc;
    struct sim_err err = {0};
    if (scenario_load(&sc, NULL, json, "user.json", NULL, 0, &err) < 0)
        fail_msg("%s", err.msg);
    struct cluster_spec spec;
    assert_int_equal(scenario_to_spec(&sc, 0, &spec, &err), 0);
    struct cluster *c = cluster_create(&spec, &err);
    if (!c)
        fail_msg("%s: %s", name, err.msg);
    FILE *fp = fopen(ref, "r");
    assert_non_null(fp);
    char line[256], want[64], got[64];
    int seen = 0;
    while (fgets(line, sizeof line, fp)) {
        unsigned pool, ps;
        char set[64];
        if (sscanf(line, "%u.%x\t%63s", &pool, &ps, set) != 3 || (int)pool != pool_id)
            continue;
        const uint32_t *acting = cluster_acting(c, ps);
        snprintf(got, sizeof got, "[%u,%u,%u]", acting[0], acting[1], acting[2]);
        snprintf(want, sizeof want, "%s", set);
        if (strcmp(got, want))
            fail_msg("%s PG %d.%x: cluster %s, osdmaptool %s", name, pool_id, ps, got, want);
        seen++;
    }
    fclose(fp);
    assert_int_equal(seen, pg_num);
    cluster_destroy(c);
    scenario_free(&sc);
}

static void cluster_reads_crush_dump(void **state)
{
    (void)state;
    /* the references with no OSD marked out (the model runs every OSD in) */
    check_cluster_on_dump("h3x10", DATA "h3x10.crush.json", 1, 1024, 0, DATA "h3x10.pool1.txt");
    check_cluster_on_dump("unequal", DATA "unequal.crush.json", 1, 1024, 0, DATA "unequal.pool1.txt");
    /* the real lab cluster (16.2.15, 1 host, 3 OSDs, pool rbd = 2): its own
       `ceph osd crush dump` and `osdmaptool --test-map-pgs-dump` */
    check_cluster_on_dump("lab", "tests/data/lab2/cluster/osd_crush_dump.json", 2, 32, 0,
                          "tests/data/lab2/cluster/osdmaptool_test_map_pgs_dump_pool2.txt");
    /* a map the model cannot run is refused with the file and the path */
    struct scenario sc;
    struct sim_err err = {0};
    assert_true(scenario_load(&sc, NULL,
                              "{\"cluster\": {\"crush_map\": \"/nonexistent/crush.json\"},"
                              " \"clients\": {\"jobs\": \"[w]\\nioengine=rbd\\n\"}}",
                              "user.json", NULL, 0, &err) < 0);
    assert_non_null(strstr(err.msg, "user.json: cluster.crush_map: "));
    assert_non_null(strstr(err.msg, "/nonexistent/crush.json"));
}

/* ------------------------------------------------------------- builder */

/* Buckets, devices and the first n_rules rules of a and b are the same. */
static void assert_maps_equal(const char *what, const struct placement_map *a,
                              const struct placement_map *b, int n_rules)
{
    if (a->max_buckets != b->max_buckets)
        fail_msg("%s: %d buckets vs %d", what, a->max_buckets, b->max_buckets);
    for (int32_t i = 0; i < a->max_buckets; i++) {
        const struct placement_bucket *x = a->buckets[i], *y = b->buckets[i];
        if (!x || !y) {
            if (x != y)
                fail_msg("%s: bucket %d exists in one map only", what, -1 - i);
            continue;
        }
        if (strcmp(x->name, y->name) != 0 || x->type != y->type || x->weight != y->weight ||
            x->size != y->size)
            fail_msg("%s: bucket %d: '%s' type %d weight %u size %u vs '%s' type %d weight %u size %u",
                     what, x->id, x->name, x->type, x->weight, x->size, y->name, y->type, y->weight,
                     y->size);
        for (uint32_t j = 0; j < x->size; j++)
            if (x->items[j] != y->items[j] || x->item_weights[j] != y->item_weights[j])
                fail_msg("%s: bucket %d '%s' item %u: %d (%u) vs %d (%u)", what, x->id, x->name, j,
                         x->items[j], x->item_weights[j], y->items[j], y->item_weights[j]);
    }
    assert_int_equal(a->max_devices, b->max_devices);
    for (int32_t i = 0; i < a->max_devices; i++) {
        const char *ca = a->devices[i].class_id >= 0 ? a->classes[a->devices[i].class_id].name : "";
        const char *cb = b->devices[i].class_id >= 0 ? b->classes[b->devices[i].class_id].name : "";
        assert_string_equal(a->devices[i].name, b->devices[i].name);
        assert_string_equal(ca, cb);
    }
    for (int r = 0; r < n_rules; r++) {
        const struct placement_rule *x = &a->rules[r], *y = &b->rules[r];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->n_steps, y->n_steps);
        for (uint32_t s = 0; s < x->n_steps; s++) {
            assert_int_equal(x->steps[s].op, y->steps[s].op);
            assert_int_equal(x->steps[s].arg1, y->steps[s].arg1);
            assert_int_equal(x->steps[s].arg2, y->steps[s].arg2);
        }
        assert_int_equal(x->min_size, y->min_size);
        assert_int_equal(x->max_size, y->max_size);
    }
}

struct build_case {
    const char *map;
    struct placement_build_spec spec;
    int n_rules;              /* rules to compare with the monitor's */
    int64_t pool;             /* the reference pool whose PGs the built rule must map */
};

static void builder_equals_monitor(void **state)
{
    (void)state;
    static const double unequal_w[20] = {1.7466, 1.7466, 1.7466, 1.7466, 1.7466, 3.4931, 3.4931,
                                         3.4931, 3.4931, 3.4931, 0.5,    1.0,    2.0,    4.0,
                                         8.0,    7.2767, 7.2767, 0.9,    7.2767, 13.9702};
    static double seed_w[30], class_w[24];
    static const char *classes[24];
    for (int i = 0; i < 30; i++)
        seed_w[i] = 3.4931;
    for (int i = 0; i < 24; i++) {
        classes[i] = i % 6 < 2 ? "ssd" : "hdd";
        class_w[i] = i % 6 < 2 ? 0.8733 : 7.2767;
    }
    const struct build_case cases[] = {
        {"h3x10", {.hosts = 3, .osds_per_host = 10, .weight_tib = seed_w, .domain = PLACEMENT_DOMAIN_HOST}, 1, 1},
        {"h10x6", {.hosts = 10, .osds_per_host = 6, .domain = PLACEMENT_DOMAIN_HOST}, 1, 0},
        {"h10x6ec", {.hosts = 10, .osds_per_host = 6, .domain = PLACEMENT_DOMAIN_HOST, .ec_size = 6,
                     .ec_rule_name = "ecpool"}, 2, 1},
        {"unequal", {.hosts = 4, .osds_per_host = 5, .weight_tib = unequal_w, .domain = PLACEMENT_DOMAIN_HOST}, 1, 1},
        {"classes", {.hosts = 4, .osds_per_host = 6, .weight_tib = class_w, .osd_class = classes,
                     .domain = PLACEMENT_DOMAIN_HOST, .rule_class = "ssd"}, 2, 1},
        {"osddomain", {.hosts = 2, .osds_per_host = 8, .domain = PLACEMENT_DOMAIN_OSD}, 0, 1},
        {"racks", {.racks = 2, .hosts = 6, .osds_per_host = 4, .domain = PLACEMENT_DOMAIN_HOST}, 1, 1},
        {"racks", {.racks = 2, .hosts = 6, .osds_per_host = 4, .domain = PLACEMENT_DOMAIN_RACK}, 0, 2},
        {"h100x10", {.hosts = 100, .osds_per_host = 10, .domain = PLACEMENT_DOMAIN_HOST}, 1, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const struct build_case *bc = &cases[c];
        struct placement_map ref, built;
        struct sim_err err = {0};
        int32_t rule = -1;
        load_map(bc->map, &ref);
        placement_map_init(&built);
        if (placement_build(&built, &bc->spec, &rule, &err) < 0)
            fail_msg("%s: %s", bc->map, err.msg);
        assert_maps_equal(bc->map, &built, &ref, bc->n_rules);
        if (bc->pool) {
            /* the built rule maps the reference pool's PGs exactly */
            struct placement_pool pool = load_pool(bc->map, bc->pool);
            pool.crush_rule = rule;
            struct placement_osds osds;
            osds_up_in(&osds, built.max_devices, NULL, 0);
            char path[256];
            snprintf(path, sizeof path, DATA "%s.pool%" PRId64 ".txt", bc->map, bc->pool);
            FILE *fp = fopen(path, "r");
            assert_non_null(fp);
            assert_int_equal(check_osdmaptool(fp, path, &built, &osds, &pool), pool.pg_num);
            fclose(fp);
            placement_osds_fini(&osds);
        }
        placement_map_fini(&ref);
        placement_map_fini(&built);
    }
}

/* 1,000 OSDs, 32k PGs: mapping all of them is cheap (the brief asks well under a second). */
static void speed_1000_osds(void **state)
{
    (void)state;
    struct placement_map m;
    struct placement_build_spec spec = {.hosts = 100, .osds_per_host = 10, .domain = PLACEMENT_DOMAIN_HOST};
    struct sim_err err = {0};
    int32_t rule;
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    placement_map_init(&m);
    assert_int_equal(placement_build(&m, &spec, &rule, &err), 0);
    struct placement_osds osds;
    placement_osds_init(&osds, m.max_devices);
    struct placement_pool pool;
    placement_pool_init(&pool, 2, 3, 32768, rule);
    int32_t *acting = calloc((size_t)pool.pg_num * pool.size, sizeof *acting);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* CPU time, not wall: a shared 2-core runner can be loaded several times over */
    struct timespec c1, c2;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    assert_int_equal(placement_map_pool(&m, &osds, &pool, acting, NULL, &err), 0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c2);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    double build_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    double wall_s = (double)(t2.tv_sec - t1.tv_sec) + (double)(t2.tv_nsec - t1.tv_nsec) * 1e-9;
    double map_s = (double)(c2.tv_sec - c1.tv_sec) + (double)(c2.tv_nsec - c1.tv_nsec) * 1e-9;
    print_message("placement: 1000 OSDs: build %.3f s, map 32768 PGs x 3 in %.3f s CPU (%.3f s wall)\n",
                  build_s, map_s, wall_s);
    /* every PG has 3 distinct OSDs on 3 distinct hosts */
    for (uint32_t ps = 0; ps < pool.pg_num; ps++) {
        const int32_t *a = &acting[ps * 3];
        assert_true(a[0] >= 0 && a[1] >= 0 && a[2] >= 0);
        assert_true(a[0] / 10 != a[1] / 10 && a[0] / 10 != a[2] / 10 && a[1] / 10 != a[2] / 10);
    }
    /* generous: sanitizer builds are several times slower than -O2 */
    assert_true(map_s < 5.0);
    free(acting);
    placement_osds_fini(&osds);
    placement_map_fini(&m);
}

/* ---------------------------------------------------------- errors */

static int crush_text_error(const char *text, char *msg, size_t n)
{
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    struct placement_map m;
    struct sim_err err = {0};
    int rc = crushdump_crush_from_json(root, "crush.json", &m, &err);
    cJSON_Delete(root);
    snprintf(msg, n, "%s", err.msg);
    if (rc == 0)
        placement_map_fini(&m);
    return rc;
}

static void dump_errors_name_the_path(void **state)
{
    (void)state;
    char msg[512];
    const char *types = "\"types\":[{\"type_id\":0,\"name\":\"osd\"},{\"type_id\":1,\"name\":\"host\"}],";
    const char *devs = "\"devices\":[{\"id\":0,\"name\":\"osd.0\"},{\"id\":1,\"name\":\"osd.1\"}],";
    char text[2048];

    snprintf(text, sizeof text,
             "{%s%s\"buckets\":[{\"id\":-1,\"name\":\"h\",\"type_id\":1,\"weight\":65536,"
             "\"alg\":\"straw2\",\"hash\":\"rjenkins1\",\"items\":[{\"id\":0,\"weight\":65536,\"pos\":0},"
             "{\"id\":1,\"weight\":\"x\",\"pos\":1}]}],\"rules\":[]}",
             types, devs);
    assert_true(crush_text_error(text, msg, sizeof msg) < 0);
    assert_string_equal(msg, "crush.json: buckets[0].items[1].weight: expected an integer");

    snprintf(text, sizeof text,
             "{%s%s\"buckets\":[{\"id\":-1,\"name\":\"old\",\"type_id\":1,\"weight\":0,"
             "\"alg\":\"straw\",\"hash\":\"rjenkins1\",\"items\":[]}],\"rules\":[]}",
             types, devs);
    assert_int_equal(crush_text_error(text, msg, sizeof msg), -ENOTSUP);
    assert_non_null(strstr(msg, "crush.json: buckets[0].alg: bucket -1 'old' is straw; only straw2"));

    snprintf(text, sizeof text,
             "{%s%s\"buckets\":[{\"id\":-1,\"name\":\"h\",\"type_id\":1,\"weight\":1,"
             "\"alg\":\"straw2\",\"hash\":\"rjenkins1\",\"items\":[{\"id\":0,\"weight\":2,\"pos\":0}]}],"
             "\"rules\":[]}",
             types, devs);
    assert_true(crush_text_error(text, msg, sizeof msg) < 0);
    assert_string_equal(msg, "crush.json: buckets[0].weight: 1 is not the sum of the item weights (2)");

    snprintf(text, sizeof text,
             "{%s%s\"buckets\":[{\"id\":-1,\"name\":\"h\",\"type_id\":1,\"weight\":0,"
             "\"alg\":\"straw2\",\"hash\":\"rjenkins1\",\"items\":[{\"id\":7,\"weight\":0,\"pos\":0}]}],"
             "\"rules\":[]}",
             types, devs);
    assert_true(crush_text_error(text, msg, sizeof msg) < 0);
    assert_string_equal(msg, "crush.json: bucket -1 'h': item 7 does not exist");

    snprintf(text, sizeof text,
             "{%s%s\"buckets\":[],\"rules\":[{\"rule_id\":0,\"rule_name\":\"r\",\"type\":1,"
             "\"steps\":[{\"op\":\"take\",\"item\":-1},{\"op\":\"chooseleaf_firstn\",\"num\":0,"
             "\"type\":\"rack\"},{\"op\":\"emit\"}]}]}",
             types, devs);
    assert_true(crush_text_error(text, msg, sizeof msg) < 0);
    assert_string_equal(msg, "crush.json: rules[0].steps[1].type: unknown type 'rack'");

    snprintf(text, sizeof text, "{%s%s\"buckets\":[],\"rules\":[],\"choose_args\":{\"1\":[]}}",
             types, devs);
    assert_int_equal(crush_text_error(text, msg, sizeof msg), -ENOTSUP);
    assert_non_null(strstr(msg, "crush.json: choose_args: weight sets are not supported"));

    snprintf(text, sizeof text, "{%s\"buckets\":[],\"rules\":[]}", types);
    assert_true(crush_text_error(text, msg, sizeof msg) < 0);
    assert_string_equal(msg, "crush.json: devices: missing");

    /* pools */
    struct placement_pool *pools;
    size_t n;
    struct sim_err err = {0};
    cJSON *root = cJSON_Parse("[{\"pool_id\":1,\"type\":1,\"size\":3,\"crush_rule\":0,\"pg_num\":\"8\"}]");
    assert_true(crushdump_pools_from_json(root, "pools.json", &pools, &n, &err) < 0);
    assert_string_equal(err.msg, "pools.json: [0].pg_num: expected an integer");
    cJSON_Delete(root);
    root = cJSON_Parse("{\"pools\":[{\"pool\":1,\"type\":2,\"size\":3,\"crush_rule\":0,\"pg_num\":8}]}");
    assert_true(crushdump_pools_from_json(root, "dump.json", &pools, &n, &err) < 0);
    assert_string_equal(err.msg, "dump.json: pools[0].type: neither replicated (1) nor erasure (3)");
    cJSON_Delete(root);

    /* files */
    struct placement_map m;
    assert_int_equal(crushdump_load_crush(DATA "no-such.json", &m, &err), -ENOENT);
    assert_non_null(strstr(err.msg, DATA "no-such.json: cannot open"));
    assert_true(crushdump_load_crush(DATA "generate.sh", &m, &err) < 0);
    assert_non_null(strstr(err.msg, DATA "generate.sh: not JSON (error near byte"));
}

static void refuses_what_it_cannot_map(void **state)
{
    (void)state;
    struct placement_map m;
    struct sim_err err = {0};
    int32_t item = 0;
    uint32_t w = 0x10000;
    placement_map_init(&m);
    assert_int_equal(placement_add_bucket(&m, -1, "rack1", 3, PLACEMENT_ALG_LIST, 0, 1, &item, &w, &err),
                     -ENOTSUP);
    assert_non_null(strstr(err.msg, "bucket -1 'rack1': alg list is not supported"));
    m.tunables.choose_local_fallback_tries = 5;
    assert_int_equal(placement_map_finalize(&m, &err), -ENOTSUP);
    assert_non_null(strstr(err.msg, "choose_local_fallback_tries 5"));
    placement_map_fini(&m);

    /* a pool whose size the rule does not allow maps nothing, as in Pacific */
    struct placement_build_spec spec = {.hosts = 3, .osds_per_host = 2, .domain = PLACEMENT_DOMAIN_HOST};
    int32_t rule;
    placement_map_init(&m);
    assert_int_equal(placement_build(&m, &spec, &rule, &err), 0);
    struct placement_pool pool;
    placement_pool_init(&pool, 1, 11, 8, rule);
    assert_int_equal(placement_pool_check(&m, &pool, &err), -ENOENT);
    assert_non_null(strstr(err.msg, "no crush rule 0 of type 1 for size 11"));
    placement_map_fini(&m);
}

/* Out and down OSDs: out moves data (CRUSH retries), down only shrinks the up set. */
static void out_and_down(void **state)
{
    (void)state;
    struct placement_map m;
    struct placement_build_spec spec = {.hosts = 4, .osds_per_host = 3, .domain = PLACEMENT_DOMAIN_HOST};
    struct sim_err err = {0};
    int32_t rule;
    placement_map_init(&m);
    assert_int_equal(placement_build(&m, &spec, &rule, &err), 0);
    struct placement_osds osds;
    placement_osds_init(&osds, m.max_devices);
    struct placement_pool rep, ec;
    placement_pool_init(&rep, 1, 3, 64, rule);
    ec = rep;
    ec.type = PLACEMENT_POOL_ERASURE;
    /* an EC pool needs a rule of its type: reuse the steps as an erasure rule */
    assert_int_equal(placement_add_rule(&m, 5, "ec", PLACEMENT_POOL_ERASURE, 1, 10, m.rules[0].n_steps,
                                        m.rules[0].steps, &err), 0);
    assert_int_equal(placement_map_finalize(&m, &err), 0);
    ec.crush_rule = 5;
    struct placement_pg before[64], pg;
    for (uint32_t ps = 0; ps < 64; ps++)
        placement_pg_map(&m, &osds, &rep, ps, &before[ps]);
    osds.state[4] &= (uint8_t)~PLACEMENT_OSD_UP;  /* osd.4 down, still in */
    for (uint32_t ps = 0; ps < 64; ps++) {
        placement_pg_map(&m, &osds, &rep, ps, &pg);
        uint32_t k = 0;
        for (uint32_t i = 0; i < before[ps].n_up; i++)
            if (before[ps].up[i] != 4)
                assert_int_equal(pg.up[k++], before[ps].up[i]);
        assert_int_equal(pg.n_up, k);
        placement_pg_map(&m, &osds, &ec, ps, &pg);
        assert_int_equal(pg.n_up, before[ps].n_up);
        for (uint32_t i = 0; i < pg.n_up; i++)
            assert_int_equal(pg.up[i], before[ps].up[i] == 4 ? PLACEMENT_ITEM_NONE : before[ps].up[i]);
    }
    osds.state[4] |= PLACEMENT_OSD_UP;
    osds.weight[4] = 0;  /* out: CRUSH picks a replacement */
    for (uint32_t ps = 0; ps < 64; ps++) {
        placement_pg_map(&m, &osds, &rep, ps, &pg);
        assert_int_equal(pg.n_up, 3);
        for (uint32_t i = 0; i < 3; i++)
            assert_int_not_equal(pg.up[i], 4);
    }
    placement_osds_fini(&osds);
    placement_map_fini(&m);
}

/* ------------------------------------------------------------- live */

static bool on_path(const char *tool)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    return system(cmd) == 0;
}

static void crushtool_live(void **state)
{
    (void)state;
    if (!on_path("crushtool"))
        skip();
    char dir[] = "/tmp/test_placement.XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *maps[] = {"h3x10", "unequal", "classes", "racks", "h100x10"};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        struct placement_map m;
        load_map(maps[i], &m);
        uint32_t *w = crushtool_weights(&m);
        for (int32_t r = 0; r < m.max_rules; r++) {
            if (!m.rules[r].name)
                continue;
            char cmd[512];
            snprintf(cmd, sizeof cmd,
                     "crushtool -c " DATA "%s.txt -o %s/map && crushtool -i %s/map --test "
                     "--show-mappings --rule %d --num-rep %d --min-x 0 --max-x 2047 2>/dev/null",
                     maps[i], dir, dir, r, r == 2 ? 4 : 3);
            FILE *fp = popen(cmd, "r");
            assert_non_null(fp);
            int n = check_crushtool(fp, cmd, &m, w, m.max_devices, r == 2 ? 4 : 3);
            assert_int_equal(pclose(fp), 0);
            assert_int_equal(n, 2048);
        }
        free(w);
        placement_map_fini(&m);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void osdmaptool_live(void **state)
{
    (void)state;
    if (!on_path("osdmaptool") || !on_path("crushtool"))
        skip();
    char dir[] = "/tmp/test_placement.XXXXXX";
    assert_non_null(mkdtemp(dir));
    /* createsimple makes pool 1 "rbd" (size 3, hashpspool, rule 0); import our map */
    const struct {
        const char *map;
        uint32_t pg_num;
    } cases[] = {{"h3x10", 1024}, {"h10x6", 1000}, {"unequal", 300}, {"h100x10", 32768}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct placement_map m;
        load_map(cases[i].map, &m);
        struct placement_osds osds;
        osds_up_in(&osds, m.max_devices, NULL, 0);
        struct placement_pool pool;
        placement_pool_init(&pool, 1, 3, cases[i].pg_num, 0);
        char cmd[768];
        snprintf(cmd, sizeof cmd,
                 "crushtool -c " DATA "%s.txt -o %s/map && osdmaptool %s/om --createsimple %d "
                 "--with-default-pool --clobber >/dev/null 2>&1 && osdmaptool %s/om --import-crush "
                 "%s/map >/dev/null 2>&1 && osdmaptool %s/om --mark-up-in --test-map-pgs-dump "
                 "--pool 1 --pg_num %u 2>/dev/null",
                 cases[i].map, dir, dir, m.max_devices, dir, dir, dir, cases[i].pg_num);
        FILE *fp = popen(cmd, "r");
        assert_non_null(fp);
        int n = check_osdmaptool(fp, cmd, &m, &osds, &pool);
        assert_int_equal(pclose(fp), 0);
        assert_int_equal(n, cases[i].pg_num);
        placement_osds_fini(&osds);
        placement_map_fini(&m);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hash_values),
        cmocka_unit_test(ln_tables_equal_ceph),
        cmocka_unit_test(ln_tables_live),
        cmocka_unit_test(ln_values),
        cmocka_unit_test(stable_mod_and_masks),
        cmocka_unit_test(weights),
        cmocka_unit_test(crushtool_mappings),
        cmocka_unit_test(osdmaptool_pgs),
        cmocka_unit_test(seed_cluster_counts),
        cmocka_unit_test(cluster_uses_crush),
        cmocka_unit_test(cluster_reads_crush_dump),
        cmocka_unit_test(builder_equals_monitor),
        cmocka_unit_test(speed_1000_osds),
        cmocka_unit_test(dump_errors_name_the_path),
        cmocka_unit_test(refuses_what_it_cannot_map),
        cmocka_unit_test(out_and_down),
        cmocka_unit_test(crushtool_live),
        cmocka_unit_test(osdmaptool_live),
    };
    return cmocka_run_group_tests_name("placement", tests, NULL, NULL);
}
