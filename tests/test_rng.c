/*
 * test_rng.c - random streams (sim_rng, sim_rng_state in sim/sim.c) and the
 * distributions drawn from them (sim/dist.c): reproducibility, independence
 * of a stream from the order others are created in, the abort on a repeated
 * identity, the taus2 state the hash writes, distinct states for every stream
 * of 1,000- to 64,000-OSD clusters, independence of neighbouring streams,
 * sample moments against dist_mean inside the 99.9 % CI over independent
 * replications, empirical quantiles, and distjson_parse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

#include "dist.h"
#include "distjson.h"
#include "sim.h"
#include "stats.h"

/* ---- streams ---- */

/* sim_rng_state(1, "nvme", 0, "service") and that stream's first output */
#define PIN_S1 0x0ebe0392u
#define PIN_S2 0xc25eccd0u
#define PIN_S3 0xa2aa57f0u
#define PIN_X1 0x6a230ba1u

static void test_rng_same_seed_and_identity_reproduce(void **state)
{
    struct sim *a = sim_create(42), *b = sim_create(42);
    gsl_rng *ra = sim_rng(a, "osd", 3, "service");
    (void)sim_rng(b, "osd", 2, "service"); /* unrelated stream first */
    gsl_rng *rb = sim_rng(b, "osd", 3, "service");
    for (int i = 0; i < 1000; i++)
        assert_int_equal(gsl_rng_get(ra), gsl_rng_get(rb));
    sim_destroy(a);
    sim_destroy(b);
}

/* First 8 outputs of a fresh stream, folded into one value. */
static uint64_t stream_fingerprint(uint64_t seed, const char *entity, uint32_t index,
                                   const char *purpose)
{
    struct sim *s = sim_create(seed);
    gsl_rng *r = sim_rng(s, entity, index, purpose);
    uint64_t h = 0;
    for (int i = 0; i < 8; i++)
        h = sim_fmix64(h ^ gsl_rng_get(r));
    sim_destroy(s);
    return h;
}

static void test_rng_other_identity_or_seed_changes_sequence(void **state)
{
    uint64_t base = stream_fingerprint(42, "osd", 3, "service");
    assert_int_equal(base, stream_fingerprint(42, "osd", 3, "service"));
    assert_int_not_equal(base, stream_fingerprint(43, "osd", 3, "service"));
    assert_int_not_equal(base, stream_fingerprint(42, "osd", 4, "service"));
    assert_int_not_equal(base, stream_fingerprint(42, "osd", 3, "servicf"));
    assert_int_not_equal(base, stream_fingerprint(42, "osc", 3, "service"));
    /* the fields are hashed separately: swapping entity and purpose differs */
    assert_int_not_equal(stream_fingerprint(42, "a", 0, "b"), stream_fingerprint(42, "b", 0, "a"));
    /* length-prefixed: moving bytes between entity and purpose differs */
    assert_int_not_equal(stream_fingerprint(42, "ab", 0, "c"), stream_fingerprint(42, "a", 0, "bc"));
    assert_int_not_equal(stream_fingerprint(42, "abcdefgh", 0, "i"), stream_fingerprint(42, "abcdefghi", 0, ""));
    /* all 64 bits of the seed and all 32 of the index count */
    assert_int_not_equal(base, stream_fingerprint(42 | 1ull << 32, "osd", 3, "service"));
    assert_int_not_equal(base, stream_fingerprint(42 | 1ull << 63, "osd", 3, "service"));
    assert_int_not_equal(base, stream_fingerprint(42, "osd", 3 | 1u << 31, "service"));
}

/*
 * One stream's draws do not depend on which other streams exist or the order
 * they were created in (hundreds of others also force the stream table to
 * grow and rehash in between, and b's generators to span two blocks).
 */
static void test_rng_stream_independent_of_creation_order(void **state)
{
    struct sim *a = sim_create(9), *b = sim_create(9);
    gsl_rng *ra = sim_rng(a, "client", 7, "think");
    for (uint32_t i = 0; i < 300; i++)
        (void)sim_rng(a, "osd", i, "service");
    for (uint32_t i = 0; i < 1500; i++)
        (void)sim_rng(b, "nic", i, "jitter");
    gsl_rng *rb = sim_rng(b, "client", 7, "think");
    for (uint32_t i = 300; i > 0; i--)
        (void)sim_rng(b, "osd", i - 1, "service");
    /* interleaved draws from other streams do not matter either */
    gsl_rng *other = sim_rng(a, "client", 8, "think");
    for (int i = 0; i < 1000; i++) {
        (void)gsl_rng_get(other);
        assert_int_equal(gsl_rng_get(ra), gsl_rng_get(rb));
    }
    sim_destroy(a);
    sim_destroy(b);
}

/* Run fn in a child with stderr silenced; return the wait status. */
static int run_in_child(void (*fn)(const void *), const void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, STDERR_FILENO);
        fn(arg);
        _exit(0);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return st;
}

static void child_same_identity_twice(const void *arg)
{
    struct sim *s = sim_create(1);
    (void)sim_rng(s, "osd", 0, "service");
    (void)sim_rng(s, "osd", 1, "service");
    /* the same identity in other storage: compared by content, not pointer */
    char ent[8], purp[16];
    strcpy(ent, "osd");
    strcpy(purp, "service");
    (void)sim_rng(s, ent, 0, purp);
}

static void test_rng_same_identity_twice_aborts(void **state)
{
    int st = run_in_child(child_same_identity_twice, NULL);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGABRT);
}

/* One step of GSL 2.7.1's taus_get (rng/taus.c) on the words (s1, s2, s3). */
static uint32_t taus2_step(uint32_t w[3])
{
#define TAUSWORTHE(s, a, b, c, d) ((((s) & (c)) << (d)) ^ ((((s) << (a)) ^ (s)) >> (b)))
    w[0] = TAUSWORTHE(w[0], 13, 19, 4294967294u, 12);
    w[1] = TAUSWORTHE(w[1], 2, 25, 4294967288u, 4);
    w[2] = TAUSWORTHE(w[2], 3, 11, 4294967280u, 17);
#undef TAUSWORTHE
    return w[0] ^ w[1] ^ w[2];
}

/*
 * sim_rng_state is the state the stream starts from, written where GSL keeps
 * it (taus_state_t: three unsigned longs), within taus2's constraints: the
 * Tausworthe recurrence run by hand on the triple reproduces gsl_rng_get.
 * The low bits of each word never reach the output, which is why
 * sim_rng_state zeroes them: a stream has exactly one triple.
 */
static void test_rng_state_is_the_generators_state(void **state)
{
    static const char *const ents[] = {"osd", "cpu-thread", "a-much-longer-entity-name", "x"};
    struct sim *s = sim_create(2718);
    for (int e = 0; e < 4; e++)
        for (uint32_t i = 0; i < 50; i++) {
            uint32_t w[3];
            sim_rng_state(2718, ents[e], i * 977u, "work", w);
            assert_true(w[0] >= 2 && w[1] >= 8 && w[2] >= 16);
            assert_true((w[0] & 1) == 0 && (w[1] & 7) == 0 && (w[2] & 15) == 0);
            gsl_rng *r = sim_rng(s, ents[e], i * 977u, "work");
            assert_string_equal(gsl_rng_name(r), "taus2");
            assert_int_equal(gsl_rng_size(r), 3 * sizeof(unsigned long));
            const unsigned long *st = gsl_rng_state(r);
            for (int k = 0; k < 3; k++)
                assert_true(st[k] == w[k]);
            /* the low bits taus2 ignores: setting them changes nothing */
            gsl_rng *c = gsl_rng_clone(r);
            unsigned long *cs = gsl_rng_state(c);
            cs[0] |= 1;
            cs[1] |= 7;
            cs[2] |= 15;
            for (int k = 0; k < 200; k++) {
                uint32_t x = taus2_step(w);
                assert_true(gsl_rng_get(r) == x);
                assert_true(gsl_rng_get(c) == x);
            }
            gsl_rng_free(c);
        }
    sim_destroy(s);
}

/*
 * sim_rng_inline (the stream a CPU thread holds in its own struct) draws
 * exactly what GSL's generator of the same identity draws: two simulators of
 * one seed, one through each API, agree for 10,000 draws on every identity.
 */
static void test_rng_inline_stream_is_gsls(void **state)
{
    struct sim *a = sim_create(31337), *b = sim_create(31337);
    for (uint32_t i = 0; i < 40; i++) {
        struct sim_taus2 t;
        sim_rng_inline(a, "cpu-thread", i * 4099u, "work", &t);
        gsl_rng *r = sim_rng(b, "cpu-thread", i * 4099u, "work");
        for (int k = 0; k < 10000; k++)
            assert_true(sim_taus2_get(&t) == gsl_rng_get(r));
    }
    sim_destroy(a);
    sim_destroy(b);
}

static void child_inline_then_gsl_same_identity(const void *arg)
{
    struct sim *s = sim_create(1);
    struct sim_taus2 t;
    sim_rng_inline(s, "cpu-thread", 5, "work", &t);
    (void)sim_rng(s, "cpu-thread", 5, "work");
}

/* One identity is one stream whichever API hands it out. */
static void test_rng_inline_identity_repeat_aborts(void **state)
{
    int st = run_in_child(child_inline_then_gsl_same_identity, NULL);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGABRT);
}

/*
 * Determinism byte for byte across runs, builds and platforms: the hash uses
 * only 64-bit integer arithmetic on explicitly packed bytes.  Pinned values:
 * a change here changes every simulated result (update the golden outputs).
 */
static void test_rng_state_pinned(void **state)
{
    uint32_t w[3];
    sim_rng_state(1, "nvme", 0, "service", w);
    if (w[0] != PIN_S1 || w[1] != PIN_S2 || w[2] != PIN_S3)
        fail_msg("state of nvme[0].service under seed 1 is {%#x, %#x, %#x}", w[0], w[1], w[2]);
    struct sim *s = sim_create(1);
    gsl_rng *r = sim_rng(s, "nvme", 0, "service");
    assert_true(gsl_rng_get(r) == PIN_X1);
    sim_destroy(s);
}

/* The 32-bit seed the previous sim_rng_seed derived (FNV-1a + fmix64, folded). */
static unsigned long old_seed32(uint64_t seed, const char *entity, uint32_t index, const char *purpose)
{
    uint64_t id = sim_fmix64(sim_hash_str(entity) ^ sim_fmix64(sim_hash_str(purpose) + index));
    uint64_t h = sim_fmix64(seed ^ sim_fmix64(id));
    unsigned long s32 = (unsigned long)(h ^ (h >> 32)) & 0xffffffffu;
    return s32 ? s32 : 0x9e3779b9u;
}

/*
 * Seed 42 of a 1,000-OSD cluster aborted ("cpu-thread[93329665].work shares
 * its seed with another stream", issue 11): thread 0 of pool 24 on host 49
 * (tp_osd_tp shard 6 of osd.491) and thread 1 of pool 25 on host 89 (shard 7
 * of osd.891) folded to the same 32-bit seed 36292806.  Now both streams
 * exist side by side and differ.
 */
static void child_old_colliding_pair(const void *arg)
{
    struct sim *s = sim_create(42);
    gsl_rng *a = sim_rng(s, "cpu-thread", 49u << 20 | 24u << 8, "work");
    gsl_rng *b = sim_rng(s, "cpu-thread", 89u << 20 | 25u << 8 | 1, "work");
    int same = 0;
    for (int i = 0; i < 1000; i++)
        same += gsl_rng_get(a) == gsl_rng_get(b);
    sim_destroy(s);
    _exit(same > 2 ? 3 : 0);
}

static void test_rng_old_seed_collision_is_gone(void **state)
{
    const uint32_t i1 = 51386368, i2 = 93329665;
    assert_int_equal(i1, 49u << 20 | 24u << 8);
    assert_int_equal(i2, 89u << 20 | 25u << 8 | 1);
    assert_int_equal(old_seed32(42, "cpu-thread", i1, "work"), 36292806);
    assert_int_equal(old_seed32(42, "cpu-thread", i2, "work"), 36292806);
    uint32_t w1[3], w2[3];
    sim_rng_state(42, "cpu-thread", i1, "work", w1);
    sim_rng_state(42, "cpu-thread", i2, "work", w2);
    assert_true(memcmp(w1, w2, sizeof w1) != 0);
    int st = run_in_child(child_old_colliding_pair, NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/*
 * The streams a cluster of hosts x per_host OSDs plus one client host running
 * one fio job asks for, as the models do at this commit: per OSD (osd_init,
 * bluestore_init) 3 msgr-worker pools of 1 thread, 8 tp_osd_tp shards of 2,
 * bstore_aio, bstore_kv_sync, bstore_kv_final (1 each) and rocksdb:low (2) =
 * 24 "cpu-thread" streams, id host << 20 | pool_seq << 8 | thread (cpu_pool_init),
 * and "nvme" [osd].service; the client host runs io_context_pool (1 thread),
 * 3 msgr-worker and the fio thread; plus "image" 0 and "fio" 0.  Returns the
 * number of streams.  (Host ids >= 4096 would overflow cpu_pool_init's 32-bit
 * id; scenarios allow 1,000 hosts.)
 */
typedef void stream_fn(void *ctx, const char *entity, uint32_t index, const char *purpose);

static uint32_t cluster_streams(uint32_t hosts, uint32_t per_host, stream_fn *fn, void *ctx)
{
    static const uint32_t osd_pools[] = {1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2};
    static const uint32_t client_pools[] = {1, 1, 1, 1, 1};
    uint32_t n = 0;
    assert_true(hosts < 4096);
    for (uint32_t h = 0; h <= hosts; h++) {
        const uint32_t *pools = h < hosts ? osd_pools : client_pools;
        uint32_t n_pools = h < hosts ? 15 : 5, reps = h < hosts ? per_host : 1, seq = 0;
        for (uint32_t o = 0; o < reps; o++) {
            for (uint32_t p = 0; p < n_pools; p++, seq++)
                for (uint32_t t = 0; t < pools[p]; t++, n++)
                    fn(ctx, "cpu-thread", h << 20 | seq << 8 | t, "work");
            if (h < hosts) {
                fn(ctx, "nvme", h * per_host + o, "service");
                n++;
            }
        }
    }
    fn(ctx, "image", 0, "copied_up");
    fn(ctx, "fio", 0, "offsets");
    return n + 2;
}

/* A state triple packed for sorting: hi = s1 << 32 | s2, lo = s3. */
struct triple {
    uint64_t hi, lo;
};

static int triple_cmp(const void *a, const void *b)
{
    const struct triple *x = a, *y = b;
    if (x->hi != y->hi)
        return x->hi < y->hi ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

struct collect {
    struct sim *s;
    struct triple *v;
    uint32_t n;
};

/* Create the stream in the sim and record the state it starts from. */
static void collect_stream(void *ctx, const char *entity, uint32_t index, const char *purpose)
{
    struct collect *c = ctx;
    const unsigned long *st = gsl_rng_state(sim_rng(c->s, entity, index, purpose));
    c->v[c->n++] = (struct triple){(uint64_t)st[0] << 32 | st[1], st[2]};
}

static void count_stream(void *ctx, const char *entity, uint32_t index, const char *purpose) {}

/*
 * Every stream of the cluster, for seeds first..last: no abort, and all
 * start states distinct (the low bits taus2 ignores are zero, so distinct
 * triples are distinct streams).
 */
static void assert_cluster_streams_distinct(uint32_t hosts, uint32_t per_host, uint64_t first,
                                            uint64_t last)
{
    uint32_t n = cluster_streams(hosts, per_host, count_stream, NULL);
    assert_int_equal(n, hosts * per_host * 25 + 7);
    struct collect c = {.v = sim_xcalloc(n, sizeof *c.v)};
    for (uint64_t seed = first; seed <= last; seed++) {
        c.s = sim_create(seed);
        c.n = 0;
        cluster_streams(hosts, per_host, collect_stream, &c);
        assert_int_equal(c.n, n);
        qsort(c.v, n, sizeof *c.v, triple_cmp);
        for (uint32_t i = 1; i < n; i++)
            if (!triple_cmp(&c.v[i - 1], &c.v[i]))
                fail_msg("seed %llu, %u OSDs: two streams start from {%#llx, %#llx, %#llx}",
                         (unsigned long long)seed, hosts * per_host, (unsigned long long)(c.v[i].hi >> 32),
                         (unsigned long long)(c.v[i].hi & 0xffffffffu), (unsigned long long)c.v[i].lo);
        sim_destroy(c.s);
    }
    free(c.v);
}

/*
 * 1,000 OSDs (25,007 streams): 14 of seeds 1..200 aborted on a 32-bit seed
 * collision (issue 11).
 */
static void test_rng_1000_osd_cluster_streams_distinct_200_seeds(void **state)
{
    assert_cluster_streams_distinct(100, 10, 1, 200);
}

/*
 * 4,800 OSDs (480 hosts x 10) and 64,000 OSDs (1,000 x 64, the largest
 * scenario: 1.6 million streams): every size from 4,800 up aborted with
 * seed 1 (issue 16).
 */
static void test_rng_64000_osd_cluster_streams_distinct(void **state)
{
    assert_cluster_streams_distinct(480, 10, 1, 5);
    assert_cluster_streams_distinct(1000, 64, 1, 1);
}

/*
 * Neighbouring identities (index i and i+1 of the same entity and purpose,
 * neighbouring hosts, or the same identity under seeds s and s+1) give
 * independent-looking streams.  N = 10^4 uniforms from each of a pair:
 * - each mean is 1/2 within 5 standard errors sqrt(1/12/N);
 * - the cross-correlation at lags -2..2 is within 5/sqrt(N) (a stream that is
 *   a shifted copy of its neighbour would show r = 1 at some lag);
 * - at most 3 of the 32-bit outputs of one appear among the other's
 *   (expected N^2/2^32 = 0.02; catches overlap at any lag below N);
 * - the mean lag-0 correlation over all pairs is within 4/sqrt(N * pairs).
 * Seeds are fixed, so this is deterministic; the bounds are loose enough that
 * a fresh hash would fail them with probability < 1e-3.
 */
enum { IND_N = 10000, IND_LAG = 2 };

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static double draw_uniforms(gsl_rng *r, double *u, uint32_t *raw)
{
    double sum = 0;
    for (int i = 0; i < IND_N; i++) {
        raw[i] = (uint32_t)gsl_rng_get(r);
        u[i] = raw[i] / 4294967296.0;
        sum += u[i];
    }
    return sum / IND_N;
}

/* Check one pair; returns its lag-0 correlation. */
static double check_pair(gsl_rng *a, gsl_rng *b, const char *what)
{
    static double x[IND_N], y[IND_N];
    static uint32_t rx[IND_N], ry[IND_N];
    double mx = draw_uniforms(a, x, rx), my = draw_uniforms(b, y, ry);
    double se = sqrt(1.0 / 12 / IND_N);
    if (fabs(mx - 0.5) > 5 * se || fabs(my - 0.5) > 5 * se)
        fail_msg("%s: means %g, %g, want 0.5 +- %g", what, mx, my, 5 * se);
    double r0 = 0;
    for (int lag = -IND_LAG; lag <= IND_LAG; lag++) {
        double sxy = 0, sxx = 0, syy = 0;
        for (int i = 0; i < IND_N; i++) {
            int j = i + lag;
            if (j < 0 || j >= IND_N)
                continue;
            sxy += (x[i] - mx) * (y[j] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
            syy += (y[j] - my) * (y[j] - my);
        }
        double r = sxy / sqrt(sxx * syy);
        if (fabs(r) > 5 / sqrt(IND_N))
            fail_msg("%s: correlation %g at lag %d, want |r| < %g", what, r, lag, 5 / sqrt(IND_N));
        if (lag == 0)
            r0 = r;
    }
    qsort(rx, IND_N, sizeof *rx, u32_cmp);
    int common = 0;
    for (int i = 0; i < IND_N; i++)
        common += bsearch(&ry[i], rx, IND_N, sizeof *rx, u32_cmp) != NULL;
    if (common > 3)
        fail_msg("%s: %d of %d outputs shared", what, common, IND_N);
    return r0;
}

static void test_rng_neighbour_streams_independent(void **state)
{
    enum { PAIRS = 48 };
    double r[PAIRS];
    char what[96];
    int n = 0;
    struct sim *s = sim_create(1), *s2 = sim_create(2);
    for (uint32_t k = 0; k < 16; k++) {
        uint32_t id = (k % 4) << 20 | (k / 4) << 8; /* threads 0 and 1 of one pool */
        snprintf(what, sizeof what, "cpu-thread[%#x] and [%#x]", id, id + 1);
        r[n++] = check_pair(sim_rng(s, "cpu-thread", id, "work"), sim_rng(s, "cpu-thread", id + 1, "work"), what);
        snprintf(what, sizeof what, "nvme[%u] and [%u]", 2 * k, 2 * k + 1);
        r[n++] = check_pair(sim_rng(s, "nvme", 2 * k, "service"), sim_rng(s, "nvme", 2 * k + 1, "service"), what);
        /* the same identity under seeds 1 and 2 */
        snprintf(what, sizeof what, "osd[%u] under seeds 1 and 2", k);
        r[n++] = check_pair(sim_rng(s, "osd", k, "service"), sim_rng(s2, "osd", k, "service"), what);
    }
    sim_destroy(s);
    sim_destroy(s2);
    assert_int_equal(n, PAIRS);
    double mean = 0;
    for (int i = 0; i < n; i++)
        mean += r[i] / n;
    double bound = 4 / sqrt((double)IND_N * n);
    if (fabs(mean) > bound)
        fail_msg("mean lag-0 correlation %g over %d pairs, want |r| < %g", mean, n, bound);
}

/* ---- distributions: moments ---- */

enum { REPS = 10, DRAWS = 4000 };

/*
 * Mean of DRAWS samples in each of REPS replications, each from its own
 * stream; returns stats_ci95 of the replication means.
 */
static struct ci sample_mean_ci(const struct dist *d, uint64_t seed, const char *name)
{
    double m[REPS];
    struct sim *s = sim_create(seed);
    for (int r = 0; r < REPS; r++) {
        gsl_rng *g = sim_rng(s, "dist", (uint32_t)r, name);
        double sum = 0;
        for (int i = 0; i < DRAWS; i++) {
            double x = dist_sample(d, g);
            assert_true(x >= 0);
            sum += x;
        }
        m[r] = sum / DRAWS;
    }
    sim_destroy(s);
    return stats_ci95(m, REPS);
}

/*
 * The 99.9 % half-width of c.  A fixed-seed check is one draw of a random
 * pass/fail: against the 95 % interval one in 20 stream sets fails it (the
 * lognormal cv check below fails for 19 of seeds 1..400 at cv 0.3), so any
 * change of the streams would re-roll these tests.  At 99.9 % a change fails
 * a check with probability ~1e-3, and the interval is still ~1 % of the
 * value: far tighter than any formula error it is there to catch.
 */
static double half999(const struct ci *c)
{
    return c->half * gsl_cdf_tdist_Pinv(0.9995, c->n - 1) / gsl_cdf_tdist_Pinv(0.975, c->n - 1);
}

static void assert_mean_in_ci(const struct dist *d, const char *name)
{
    struct ci c = sample_mean_ci(d, 2024, name);
    double mu = dist_mean(d);
    if (fabs(c.mean - mu) > half999(&c))
        fail_msg("%s: dist_mean %g outside sample 99.9 %% CI %g +- %g", name, mu, c.mean, half999(&c));
    assert_true(c.half > 0);
}

static void test_dist_exp_mean_in_ci(void **state)
{
    struct dist d = dist_exp(80.0);
    assert_true(fabs(dist_mean(&d) - 80.0) < 1e-12);
    assert_mean_in_ci(&d, "exp");
}

/* N(1, 1) truncated at 0 loses 16 % of its mass: dist_mean must follow the truncation. */
static void test_dist_normal_truncated_mean_in_ci(void **state)
{
    struct dist d = dist_normal(1.0, 1.0);
    /* E[max(0,X)] = mu*Phi(mu/sd) + sd*phi(mu/sd) = 0.8413447 + 0.2419707 */
    assert_true(fabs(dist_mean(&d) - 1.0833155) < 1e-6);
    assert_mean_in_ci(&d, "normal");
    struct dist wide = dist_normal(100.0, 15.0);
    assert_mean_in_ci(&wide, "normal_wide");
}

static void test_dist_lognormal_mean_in_ci(void **state)
{
    struct dist d = dist_lognormal(50.0, 0.5);
    assert_true(fabs(dist_mean(&d) - 50.0) < 1e-12);
    assert_mean_in_ci(&d, "lognormal");
    struct dist heavy = dist_lognormal(50.0, 1.0);
    assert_mean_in_ci(&heavy, "lognormal_heavy");
}

static void test_dist_uniform_mean_in_ci(void **state)
{
    struct dist d = dist_uniform(10.0, 30.0);
    assert_true(fabs(dist_mean(&d) - 20.0) < 1e-12);
    assert_mean_in_ci(&d, "uniform");
}

static void test_dist_const_exact(void **state)
{
    struct dist d = dist_const(7.25);
    struct ci c = sample_mean_ci(&d, 1, "const");
    assert_true(c.mean == 7.25 && c.half == 0);
    assert_true(dist_mean(&d) == 7.25);
    assert_true(dist_quantile(&d, 0.99) == 7.25);
}

/* Points of a device latency table (percentile, us); integers keep arithmetic exact. */
static const double emp_pct[] = {10, 50, 90, 99, 99.9};
static const double emp_val[] = {30, 40, 60, 120, 400};

static void test_dist_empirical_mean_in_ci(void **state)
{
    struct dist d;
    struct sim_err err = {0};
    assert_int_equal(dist_empirical(&d, emp_pct, emp_val, 5, &err), 0);
    /* trapezoid over the piecewise-linear inverse CDF, extension points included:
       p=0 -> 30-(10/40)*10 = 27.5, p=1 -> 400+(280/0.9)*0.1 = 431.11... */
    double hi = 400 + (400 - 120) / (99.9 - 99) * 0.1;
    double want = 0.10 * (27.5 + 30) / 2 + 0.40 * (30 + 40) / 2 + 0.40 * (40 + 60) / 2 +
                  0.09 * (60 + 120) / 2 + 0.009 * (120 + 400) / 2 + 0.001 * (400 + hi) / 2;
    assert_true(fabs(dist_mean(&d) - want) < 1e-9);
    assert_mean_in_ci(&d, "empirical");
}

/*
 * The lognormal's coefficient of variation.  The sample CV of a heavy-tailed
 * lognormal is a poor statistic for a CI (at cv 1 its 10 replications are
 * skewed and the t interval undercovers: 27 of seeds 1..400 miss at 95 %,
 * 2 at 99.9 %), so the check is on ln X, which is normal: the sample sd of
 * ln x per replication, whose 99.9 % CI must contain sigma = sqrt(ln(1 +
 * cv^2)), the value that makes the CV cv.  The CV itself over all draws must
 * be within 10 % of cv (taking cv for sigma would be 31 % off at cv 1).
 * Also the analytic median: exp(mu) = mean / sqrt(1 + cv^2).
 */
static void test_dist_lognormal_cv_matches(void **state)
{
    const double cvs[] = {0.3, 1.0};
    for (int k = 0; k < 2; k++) {
        struct dist d = dist_lognormal(100.0, cvs[k]);
        assert_true(fabs(dist_quantile(&d, 0.5) - 100.0 / sqrt(1 + cvs[k] * cvs[k])) < 1e-9);
        double lsd[REPS], sum = 0, sumsq = 0;
        struct sim *s = sim_create(77);
        for (int r = 0; r < REPS; r++) {
            gsl_rng *g = sim_rng(s, "dist", (uint32_t)r, "lognormal_cv");
            double lsum = 0, lsumsq = 0;
            for (int i = 0; i < DRAWS; i++) {
                double x = dist_sample(&d, g);
                sum += x;
                sumsq += x * x;
                lsum += log(x);
                lsumsq += log(x) * log(x);
            }
            double lm = lsum / DRAWS;
            lsd[r] = sqrt((lsumsq - DRAWS * lm * lm) / (DRAWS - 1));
        }
        sim_destroy(s);
        double sigma = sqrt(log(1 + cvs[k] * cvs[k]));
        struct ci c = stats_ci95(lsd, REPS);
        if (fabs(c.mean - sigma) > half999(&c))
            fail_msg("cv %g: sigma %g outside sample 99.9 %% CI %g +- %g", cvs[k], sigma, c.mean, half999(&c));
        double n = (double)REPS * DRAWS, m = sum / n;
        double cv = sqrt((sumsq - n * m * m) / (n - 1)) / m;
        if (fabs(cv - cvs[k]) > 0.1 * cvs[k])
            fail_msg("cv %g: sample cv %g over %g draws", cvs[k], cv, n);
    }
}

/* ---- distributions: empirical quantiles ---- */

static void test_dist_empirical_quantile_exact_at_points(void **state)
{
    struct dist d;
    struct sim_err err = {0};
    assert_int_equal(dist_empirical(&d, emp_pct, emp_val, 5, &err), 0);
    for (int i = 0; i < 5; i++)
        assert_true(dist_quantile(&d, emp_pct[i] / 100) == emp_val[i]);
    /* linear in between, extended to p = 0 and 1 by the end segments' slopes */
    assert_true(fabs(dist_quantile(&d, 0.70) - 50.0) < 1e-9);
    assert_true(fabs(dist_quantile(&d, 0.0) - 27.5) < 1e-9);
    assert_true(fabs(dist_quantile(&d, 1.0) - (400 + 280 / 0.9 * 0.1)) < 1e-9);
    /* the low extension is clamped at 0 */
    const double p2[] = {50, 60}, v2[] = {10, 100};
    assert_int_equal(dist_empirical(&d, p2, v2, 2, &err), 0);
    assert_true(dist_quantile(&d, 0.0) == 0);
    /* one point: a +-10 % band around it */
    const double p1[] = {50}, v1[] = {200};
    assert_int_equal(dist_empirical(&d, p1, v1, 1, &err), 0);
    assert_true(fabs(dist_quantile(&d, 0.0) - 180) < 1e-9);
    assert_true(dist_quantile(&d, 0.5) == 200);
    assert_true(fabs(dist_quantile(&d, 1.0) - 220) < 1e-9);
}

/*
 * Sampling hits the percentile points: the fraction of n draws <= v_i is
 * Binomial(n, p_i)/n, so it must lie within 4 standard deviations
 * sqrt(p(1-p)/n) of p_i (two-sided false-alarm rate 6e-5 per point).
 */
static void test_dist_empirical_sample_quantiles_hit_points(void **state)
{
    enum { N = 40000 };
    struct dist d;
    struct sim_err err = {0};
    assert_int_equal(dist_empirical(&d, emp_pct, emp_val, 5, &err), 0);
    struct sim *s = sim_create(5);
    gsl_rng *g = sim_rng(s, "dist", 0, "empirical_q");
    int below[5] = {0};
    for (int i = 0; i < N; i++) {
        double x = dist_sample(&d, g);
        for (int k = 0; k < 5; k++)
            below[k] += x <= emp_val[k];
    }
    sim_destroy(s);
    for (int k = 0; k < 5; k++) {
        double p = emp_pct[k] / 100, f = (double)below[k] / N;
        double tol = 4 * sqrt(p * (1 - p) / N);
        if (fabs(f - p) > tol)
            fail_msg("point %d: fraction %g below %g, want %g +- %g", k, f, emp_val[k], p, tol);
    }
}

/* ---- distjson_parse ---- */

/* Parse text, run distjson_parse at path "ssd.lat" of file "hw.json". */
static int parse_dist(const char *text, struct dist *d, struct sim_err *err)
{
    cJSON *j = cJSON_Parse(text);
    if (!j)
        fail_msg("test JSON does not parse: %s", text);
    memset(err, 0, sizeof *err);
    int rc = distjson_parse(d, j, "hw.json", "ssd.lat", err);
    cJSON_Delete(j);
    return rc;
}

static void parse_ok(const char *text, struct dist *d)
{
    struct sim_err err;
    int rc = parse_dist(text, d, &err);
    if (rc)
        fail_msg("%s: unexpected error %d: %s", text, rc, err.msg);
}

/* Expect rc < 0 and a message starting with want_prefix and containing want. */
static void parse_bad(const char *text, const char *want_prefix, const char *want)
{
    struct dist d;
    struct sim_err err;
    int rc = parse_dist(text, &d, &err);
    if (rc >= 0)
        fail_msg("%s: accepted", text);
    assert_int_equal(err.code, rc);
    if (strncmp(err.msg, want_prefix, strlen(want_prefix)) || !strstr(err.msg, want))
        fail_msg("%s: message '%s' lacks '%s' ... '%s'", text, err.msg, want_prefix, want);
    assert_null(strchr(err.msg, '\n'));
}

static void test_dist_json_parses_each_form(void **state)
{
    struct dist d;
    parse_ok("12.5", &d);
    assert_true(d.kind == DIST_CONST && d.a == 12.5);
    parse_ok("{\"dist\": \"const\", \"value\": 5}", &d);
    assert_true(d.kind == DIST_CONST && d.a == 5);
    parse_ok("{\"dist\": \"exp\", \"mean\": 40}", &d);
    assert_true(d.kind == DIST_EXP && d.a == 40);
    parse_ok("{\"dist\": \"normal\", \"mean\": 40, \"sd\": 4}", &d);
    assert_true(d.kind == DIST_NORMAL && d.a == 40 && d.b == 4);
    parse_ok("{\"dist\": \"lognormal\", \"mean\": 50, \"cv\": 0.3}", &d);
    struct dist ref = dist_lognormal(50, 0.3);
    assert_true(d.kind == DIST_LOGNORMAL && d.a == 50 && d.b == 0.3);
    assert_true(d.mu == ref.mu && d.sigma == ref.sigma);
    parse_ok("{\"dist\": \"uniform\", \"min\": 1, \"max\": 3}", &d);
    assert_true(d.kind == DIST_UNIFORM && d.a == 1 && d.b == 3);
    parse_ok("{\"dist\": \"empirical\", \"pct\": [[50, 40], [99, 90], [99.9, 200]]}", &d);
    assert_true(d.kind == DIST_EMPIRICAL);
    assert_int_equal(d.n, 5);
    assert_true(dist_quantile(&d, 0.5) == 40 && dist_quantile(&d, 0.99) == 90);
    assert_true(dist_quantile(&d, 99.9 / 100) == 200); /* the point as stored: 99.9/100 != 0.999 */
    assert_true(fabs(dist_quantile(&d, 0.999) - 200) < 1e-9);
}

static void test_dist_json_unknown_kind_did_you_mean(void **state)
{
    parse_bad("{\"dist\": \"lognormall\", \"mean\": 5}", "hw.json: ssd.lat.dist: ",
              "unknown distribution 'lognormall' (did you mean 'lognormal'?)");
    parse_bad("{\"dist\": \"expo\", \"mean\": 5}", "hw.json: ssd.lat.dist: ", "(did you mean 'exp'?)");
    /* nothing close: no suggestion */
    struct dist d;
    struct sim_err err;
    assert_true(parse_dist("{\"dist\": \"weibull\", \"mean\": 5}", &d, &err) < 0);
    assert_non_null(strstr(err.msg, "unknown distribution 'weibull'"));
    assert_null(strstr(err.msg, "did you mean"));
    parse_bad("{\"mean\": 5}", "hw.json: ssd.lat.dist: ", "missing required key");
}

/*
 * A distribution at the top of a file (empty path) is named like every other
 * jsonu message: "file: dist: ...", the path joined by jsonu_path.
 */
static void test_dist_json_unknown_kind_at_top_level_path(void **state)
{
    cJSON *j = cJSON_Parse("{\"dist\": \"lognormall\"}");
    struct dist d;
    struct sim_err err = {0};
    assert_true(distjson_parse(&d, j, "lat.json", "", &err) < 0);
    cJSON_Delete(j);
    if (strncmp(err.msg, "lat.json: dist: unknown distribution", 36))
        fail_msg("message '%s' does not name the path 'dist'", err.msg);
}

static void test_dist_json_rejects_negative_values(void **state)
{
    parse_bad("-3", "hw.json: ssd.lat: ", "must be >= 0");
    parse_bad("{\"dist\": \"exp\", \"mean\": -5}", "hw.json: ssd.lat.mean: ", "out of range");
    parse_bad("{\"dist\": \"const\", \"value\": -1}", "hw.json: ssd.lat.value: ", "out of range");
    parse_bad("{\"dist\": \"normal\", \"mean\": 5, \"sd\": -1}", "hw.json: ssd.lat.sd: ", "out of range");
    parse_bad("{\"dist\": \"lognormal\", \"mean\": 5, \"cv\": -0.1}", "hw.json: ssd.lat.cv: ", "out of range");
    parse_bad("{\"dist\": \"uniform\", \"min\": -2, \"max\": 3}", "hw.json: ssd.lat.min: ", "out of range");
    parse_bad("{\"dist\": \"uniform\", \"min\": 5, \"max\": 3}", "hw.json: ssd.lat.max: ", "out of range");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, -40]]}", "hw.json: ssd.lat.pct: ", "value >= 0");
}

static void test_dist_json_rejects_unknown_key_and_type(void **state)
{
    parse_bad("{\"dist\": \"exp\", \"mean\": 5, \"meen\": 6}", "hw.json: ssd.lat.meen: ",
              "unknown key (did you mean 'mean'?)");
    parse_bad("{\"dist\": \"lognormal\", \"mean\": 5, \"sd\": 1}", "hw.json: ssd.lat.sd: ", "unknown key");
    parse_bad("{\"dist\": \"exp\", \"mean\": \"5\"}", "hw.json: ssd.lat.mean: ", "expected a number");
    parse_bad("{\"dist\": 3}", "hw.json: ssd.lat.dist: ", "expected a string");
}

static void test_dist_json_rejects_bad_pct_tables(void **state)
{
    const char *pre = "hw.json: ssd.lat.pct";
    parse_bad("{\"dist\": \"empirical\", \"pct\": {\"50\": 40}}", pre, "expected an array");
    char needs[32];
    snprintf(needs, sizeof needs, "needs 1..%d points", DIST_EMPIRICAL_MAX - 2);
    parse_bad("{\"dist\": \"empirical\", \"pct\": []}", pre, needs);
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, 40], [40, 50]]}", pre, "must increase");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, 40], [50, 50]]}", pre, "must increase");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, 40], [90, 30]]}", pre, "must increase");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, 40], [100, 90]]}", pre, "percentile must be in (0,100)");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[0, 10], [50, 90]]}", pre, "percentile must be in (0,100)");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, 40], [90]]}", "hw.json: ssd.lat.pct[1]: ",
              "expected [percentile, value]");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [[50, 40], [90, \"x\"]]}", "hw.json: ssd.lat.pct[1]: ",
              "expected [percentile, value]");
    parse_bad("{\"dist\": \"empirical\", \"pct\": [50, 40]}", "hw.json: ssd.lat.pct[0]: ",
              "expected [percentile, value]");
}

/*
 * One point more than DIST_EMPIRICAL_MAX - 2 is one too many: the message
 * must say so, not claim the last pair is malformed.
 */
static void test_dist_json_too_many_pct_points_says_so(void **state)
{
    const int max = DIST_EMPIRICAL_MAX - 2;
    char text[4096], limit[32];
    int n = snprintf(text, sizeof text, "{\"dist\": \"empirical\", \"pct\": [");
    for (int i = 0; i < max + 1; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s[%d, %d]", i ? ", " : "", 1 + 3 * i, 10 + i);
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    struct dist d;
    struct sim_err err;
    assert_true(parse_dist(text, &d, &err) < 0);
    assert_true(strncmp(err.msg, "hw.json: ssd.lat.pct", 20) == 0);
    snprintf(limit, sizeof limit, "%d points", max);
    if (!strstr(err.msg, limit) || strstr(err.msg, "expected [percentile, value]"))
        fail_msg("message '%s' does not state the limit of %d points", err.msg, max);
    /* max points are fine */
    n = snprintf(text, sizeof text, "{\"dist\": \"empirical\", \"pct\": [");
    for (int i = 0; i < max; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s[%d, %d]", i ? ", " : "", 1 + 3 * i, 10 + i);
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    parse_ok(text, &d);
    assert_int_equal(d.n, max + 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng_same_seed_and_identity_reproduce),
        cmocka_unit_test(test_rng_other_identity_or_seed_changes_sequence),
        cmocka_unit_test(test_rng_stream_independent_of_creation_order),
        cmocka_unit_test(test_rng_same_identity_twice_aborts),
        cmocka_unit_test(test_rng_state_is_the_generators_state),
        cmocka_unit_test(test_rng_inline_stream_is_gsls),
        cmocka_unit_test(test_rng_inline_identity_repeat_aborts),
        cmocka_unit_test(test_rng_state_pinned),
        cmocka_unit_test(test_rng_old_seed_collision_is_gone),
        cmocka_unit_test(test_rng_1000_osd_cluster_streams_distinct_200_seeds),
        cmocka_unit_test(test_rng_64000_osd_cluster_streams_distinct),
        cmocka_unit_test(test_rng_neighbour_streams_independent),
        cmocka_unit_test(test_dist_exp_mean_in_ci),
        cmocka_unit_test(test_dist_normal_truncated_mean_in_ci),
        cmocka_unit_test(test_dist_lognormal_mean_in_ci),
        cmocka_unit_test(test_dist_uniform_mean_in_ci),
        cmocka_unit_test(test_dist_const_exact),
        cmocka_unit_test(test_dist_empirical_mean_in_ci),
        cmocka_unit_test(test_dist_lognormal_cv_matches),
        cmocka_unit_test(test_dist_empirical_quantile_exact_at_points),
        cmocka_unit_test(test_dist_empirical_sample_quantiles_hit_points),
        cmocka_unit_test(test_dist_json_parses_each_form),
        cmocka_unit_test(test_dist_json_unknown_kind_did_you_mean),
        cmocka_unit_test(test_dist_json_unknown_kind_at_top_level_path),
        cmocka_unit_test(test_dist_json_rejects_negative_values),
        cmocka_unit_test(test_dist_json_rejects_unknown_key_and_type),
        cmocka_unit_test(test_dist_json_rejects_bad_pct_tables),
        cmocka_unit_test(test_dist_json_too_many_pct_points_says_so),
    };
    return cmocka_run_group_tests_name("rng", tests, NULL, NULL);
}
