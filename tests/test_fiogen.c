/*
 * test_fiogen.c - the offsets, block sizes and streams a fio job draws
 * (models/ceph/fiogen.c), checked against expectations computed here from
 * fio's documented semantics and the closed forms of its generators:
 *  - zipf: the hottest 1 % of the blocks (the images of the lowest 1 % of the
 *    ranks under fio's hash) get the mass of Gray et al.'s generator, which
 *    fio's zipf_next is, P(rank < k) = 1 + ((k/n)^(1-theta) - 1) / eta; that
 *    is within 1 % of the exact zipf mass H(k, theta) / H(n, theta), also
 *    computed here, and the hot blocks are spread over the objects;
 *  - pareto: P(rank < k) = (k / (n - 1))^(1 / p), p = log h / log(1 - h);
 *  - normal: the rank (undone hash) has mean n/2 and variance
 *    n^2/144 + s^2/12, the mean of 12 uniform draws plus a uniform deviation
 *    of width s = ceil(n * dev / 100);
 *  - the random map: K blocks, each exactly once per K I/Os; without it the
 *    distinct count of K draws has mean K(1 - (1 - 1/K)^K), variance about
 *    K(e^-1 - 2e^-2);
 *  - randseed/randrepeat: which seeds the streams follow;
 *  - rw=randwrite:8, rw_sequencer, bsrange's block sizes, zoned.
 * Statistical checks use 5 standard deviations (the runs are deterministic;
 * the margin is for changes of stream, not for flakiness).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fiogen.h"
#include "fiojob.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

struct gen {
    struct sim *s;
    struct fio_jobfile jf;
    struct fiogen g;
};

/* The first job of text, thread number tn, over a region of len bytes, in a sim of seed. */
static void gen_open(struct gen *x, const char *text, uint64_t seed, uint32_t tn, uint64_t len)
{
    struct sim_err err = {0};
    memset(x, 0, sizeof *x);
    if (fiojob_parse_string(text, "t.fio", NULL, NULL, &x->jf, &err) < 0)
        fail_msg("parse: %s", err.msg);
    x->s = sim_create(seed);
    fiogen_init(&x->g, x->s, &x->jf.jobs[0], tn, len);
}

static void gen_close(struct gen *x)
{
    sim_destroy(x->s);
    fiojob_free(&x->jf);
}

static uint64_t next_off(struct gen *x, uint64_t *len)
{
    int ddir;
    uint64_t off, l;
    fiogen_next(&x->g, &ddir, &off, &l);
    if (len)
        *len = l;
    return off;
}

static void check_z(const char *what, double got, double want, double sd)
{
    if (fabs(got - want) > 5 * sd)
        fail_msg("%s: %.6f, expected %.6f (5 sd = %.6f)", what, got, want, 5 * sd);
}

/* Inverse of fio's hash modulo 2^bits (the multiplier is odd). */
static uint64_t unhash(uint64_t v, int bits)
{
    uint64_t g = fiogen_hash_u64(1), inv = g;
    for (int i = 0; i < 6; i++)
        inv *= 2 - g * inv;
    return (v * inv) & ((1ull << bits) - 1);
}

/* ---- non-uniform distributions ---- */

#define NB_BITS 18
#define NB (1ull << NB_BITS) /* 1 GiB of 4k blocks: the hash is a bijection */
#define DRAWS 1000000

static uint32_t *counts_of(struct gen *x, int draws)
{
    uint32_t *cnt = calloc(NB, sizeof *cnt);
    for (int i = 0; i < draws; i++) {
        uint64_t off = next_off(x, NULL);
        assert_int_equal(off % 4096, 0);
        assert_true(off / 4096 < NB);
        cnt[off / 4096]++;
    }
    return cnt;
}

static uint64_t argmax(const uint32_t *cnt)
{
    uint64_t m = 0;
    for (uint64_t b = 1; b < NB; b++)
        if (cnt[b] > cnt[m])
            m = b;
    return m;
}

/* Share of the draws on the blocks of ranks [0, k): rank r sits at (hash(r) + off) mod n. */
static double rank_mass(const uint32_t *cnt, uint64_t off, uint64_t k, int draws)
{
    uint64_t sum = 0;
    for (uint64_t r = 0; r < k; r++)
        sum += cnt[(fiogen_hash_u64(r) + off) % NB];
    return (double)sum / draws;
}

static double harmonic(uint64_t n, double theta)
{
    double s = 0;
    for (uint64_t i = n; i >= 1; i--)
        s += pow((double)i, -theta);
    return s;
}

static void test_zipf_hot_blocks(void **state)
{
    const double theta = 1.2;
    struct gen x;
    gen_open(&x, "[z]\nrw=randwrite\nrandom_distribution=zipf:1.2\n", 1, 1, NB * 4096);
    uint32_t *cnt = counts_of(&x, DRAWS);
    uint64_t off = argmax(cnt); /* rank 0 hashes to 0: the hottest block is rand_off */
    uint64_t k = NB / 100;
    double got = rank_mass(cnt, off, k, DRAWS);
    /* Gray et al.'s CDF (zeta over all n < 10M terms) */
    double n = (double)NB, zetan = harmonic(NB, theta), zeta2 = 1 + pow(0.5, theta);
    double eta = (1 - pow(2 / n, 1 - theta)) / (1 - zeta2 / zetan);
    double want = 1 + (pow((double)k / n, 1 - theta) - 1) / eta;
    check_z("zipf:1.2 top 1% mass", got, want, sqrt(want * (1 - want) / DRAWS));
    double exact = harmonic(k, theta) / zetan;
    if (fabs(got - exact) > 0.01)
        fail_msg("zipf:1.2 top 1%% mass %.4f vs the exact zipf %.4f", got, exact);
    /* rank 0 alone: 1 / zeta(n) */
    check_z("zipf:1.2 hottest block", (double)cnt[off] / DRAWS, 1 / zetan, sqrt(1 / zetan / DRAWS));
    /* the 64 hottest ranks are spread over the 256 objects of 4 MiB, not packed in one */
    bool seen[256] = {false};
    int objects = 0;
    for (uint64_t r = 0; r < 64; r++) {
        uint64_t obj = (fiogen_hash_u64(r) + off) % NB * 4096 / (4 * MIB);
        objects += !seen[obj];
        seen[obj] = true;
    }
    if (objects < 40)
        fail_msg("the 64 hottest zipf blocks fall in %d objects", objects);
    free(cnt);
    gen_close(&x);

    /* zipf:1.2:0.25: the hottest block is the one at a quarter of the region */
    gen_open(&x, "[z]\nrw=randwrite\nrandom_distribution=zipf:1.2:0.25\n", 1, 1, NB * 4096);
    cnt = counts_of(&x, 200000);
    assert_int_equal(argmax(cnt), NB / 4);
    free(cnt);
    gen_close(&x);
}

static void test_pareto_hot_blocks(void **state)
{
    static const double hs[] = {0.2, 0.3};
    for (int t = 0; t < 2; t++) {
        char text[128];
        snprintf(text, sizeof text, "[p]\nrw=randread\nrandom_distribution=pareto:%g\n", hs[t]);
        struct gen x;
        gen_open(&x, text, 1, 1, NB * 4096);
        uint32_t *cnt = counts_of(&x, DRAWS);
        uint64_t off = argmax(cnt), k = NB / 100;
        double p = log(hs[t]) / log(1 - hs[t]);
        double want = pow((double)k / (double)(NB - 1), 1 / p);
        check_z("pareto top 1% mass", rank_mass(cnt, off, k, DRAWS), want, sqrt(want * (1 - want) / DRAWS));
        /* and h of the blocks get 1 - h of the I/Os */
        double w2 = 1 - hs[t];
        check_z("pareto h mass", rank_mass(cnt, off, (uint64_t)(hs[t] * (double)(NB - 1)), DRAWS), w2,
                sqrt(w2 * (1 - w2) / DRAWS));
        free(cnt);
        gen_close(&x);
    }
}

static void test_normal_ranks(void **state)
{
    static const double devs[] = {0, 10, 30};
    for (int t = 0; t < 3; t++) {
        char text[128];
        snprintf(text, sizeof text, "[g]\nrw=randread\nrandom_distribution=normal:%g\n", devs[t]);
        struct gen x;
        gen_open(&x, text, 1, 1, NB * 4096);
        const int draws = 400000;
        double sum = 0, sum2 = 0;
        for (int i = 0; i < draws; i++) {
            double r = (double)unhash(next_off(&x, NULL) / 4096, NB_BITS);
            sum += r;
            sum2 += r * r;
        }
        double n = (double)NB, s = ceil(n * devs[t] / 100);
        double var = ((n + 1) * (n + 1) - 1) / 12 / 12 + s * s / 12;
        double mean = sum / draws, sd = sqrt(sum2 / draws - mean * mean);
        check_z("normal rank mean", mean, n / 2, sqrt(var / draws));
        if (fabs(sd / sqrt(var) - 1) > 0.01)
            fail_msg("normal:%g rank sd %.1f, expected %.1f", devs[t], sd, sqrt(var));
        gen_close(&x);
    }
}

/* ---- the random map ---- */

static void test_randommap_covers_once(void **state)
{
    const uint64_t K = 5000;
    struct gen x;
    gen_open(&x, "[r]\nrw=randwrite\nbs=4k\n", 1, 1, K * 4096);
    assert_true(x.g.map.n_lvl > 0);
    uint8_t *seen = calloc(K, 1);
    for (int pass = 0; pass < 3; pass++) {
        memset(seen, 0, K);
        for (uint64_t i = 0; i < K; i++) {
            uint64_t b = next_off(&x, NULL) / 4096;
            assert_true(b < K);
            if (seen[b]++)
                fail_msg("pass %d: block %llu twice within %llu I/Os", pass, (unsigned long long)b,
                         (unsigned long long)K);
        }
    }
    gen_close(&x);

    /* norandommap: K draws hit K(1 - (1 - 1/K)^K) distinct blocks */
    gen_open(&x, "[r]\nrw=randwrite\nbs=4k\nnorandommap\n", 1, 1, K * 4096);
    memset(seen, 0, K);
    uint64_t distinct = 0;
    for (uint64_t i = 0; i < K; i++) {
        uint64_t b = next_off(&x, NULL) / 4096;
        distinct += !seen[b]++;
    }
    double want = (double)K * (1 - pow(1 - 1.0 / (double)K, (double)K));
    check_z("norandommap distinct", (double)distinct, want, sqrt((double)K * (exp(-1) - 2 * exp(-2))));
    free(seen);
    gen_close(&x);
}

/* A region whose bitmap is larger than the first hash set: the map starts
   sparse (the blocks done in a set) and turns into the bitmap as it fills,
   with the same answers: still every block once per pass, I/Os still cut at
   a done block.  2^17 blocks: a 16.4 KiB bitmap; the set turns dense past
   512 blocks (2048 slots would take 16 KiB, half of it or more). */
static void test_randommap_sparse_then_dense(void **state)
{
    const uint64_t K = 1u << 17;
    struct gen x;
    gen_open(&x, "[r]\nrw=randwrite\nbs=4k\n", 1, 1, K * 4096);
    assert_true(x.g.map.n_lvl > 0 && !x.g.map.dense);
    uint8_t *seen = calloc(K, 1);
    for (int pass = 0; pass < 2; pass++) {
        memset(seen, 0, K);
        for (uint64_t i = 0; i < K; i++) {
            uint64_t b = next_off(&x, NULL) / 4096;
            if (i == 500 && pass == 0)
                assert_false(x.g.map.dense);
            if (i == 600 && pass == 0)
                assert_true(x.g.map.dense);
            assert_true(b < K);
            if (seen[b]++)
                fail_msg("pass %d: block %llu twice", pass, (unsigned long long)b);
        }
    }
    gen_close(&x);
    /* bsrange on the sparse map: no block twice before the map fills */
    gen_open(&x, "[r]\nrw=randwrite\nbsrange=4k-64k\n", 1, 1, K * 4096);
    memset(seen, 0, K);
    for (uint64_t covered = 0; covered < K;) {
        uint64_t len, off = next_off(&x, &len);
        for (uint64_t b = off / 4096; b < (off + len) / 4096; b++, covered++)
            if (seen[b]++)
                fail_msg("bsrange: block %llu done twice in one pass (%s map)", (unsigned long long)b,
                         x.g.map.dense ? "dense" : "sparse");
    }
    free(seen);
    gen_close(&x);
}

/* bsrange with the map: an I/O is cut at a block already done, so none overlaps within a pass. */
static void test_randommap_cuts_ios(void **state)
{
    const uint64_t K = 4096;
    struct gen x;
    gen_open(&x, "[r]\nrw=randwrite\nbsrange=4k-64k\n", 1, 1, K * 4096);
    uint8_t *seen = calloc(K, 1);
    uint64_t covered = 0, ios = 0;
    while (covered < K) {
        uint64_t len, off = next_off(&x, &len);
        ios++;
        for (uint64_t b = off / 4096; b < (off + len) / 4096; b++) {
            if (seen[b]++)
                fail_msg("block %llu done twice in one pass", (unsigned long long)b);
            covered++;
        }
    }
    assert_int_equal(covered, K);
    assert_true(ios < K / 2); /* the I/Os were mostly longer than one block */
    free(seen);
    gen_close(&x);
}

static int cmp_u64(const void *p, const void *q)
{
    uint64_t a = *(const uint64_t *)p, b = *(const uint64_t *)q;
    return a < b ? -1 : a > b;
}

/* Beyond FIOGEN_MAP_MAX_BLOCKS: no bitmap, still no repeats, still uniform. */
static void test_large_region_permutation(void **state)
{
    const uint64_t blocks = (1ull << 28) + 12345; /* 1 TiB of 4k blocks: a bitmap would be 32 MiB */
    struct gen x;
    gen_open(&x, "[r]\nrw=randread\nbs=4k\n", 1, 1, blocks * 4096);
    assert_int_equal(x.g.map.n_lvl, 0);
    assert_int_equal(x.g.map_blocks, blocks);
    const int draws = 200000; /* with replacement: about draws^2 / 2 blocks = 75 repeats */
    uint64_t *b = malloc(draws * sizeof *b);
    uint64_t bins[64] = {0};
    for (int i = 0; i < draws; i++) {
        b[i] = next_off(&x, NULL) / 4096;
        assert_true(b[i] < blocks);
        bins[b[i] * 64 / blocks]++;
    }
    qsort(b, draws, sizeof *b, cmp_u64);
    for (int i = 1; i < draws; i++)
        if (b[i] == b[i - 1])
            fail_msg("block %llu repeated", (unsigned long long)b[i]);
    double chi2 = 0, e = draws / 64.0;
    for (int i = 0; i < 64; i++)
        chi2 += (bins[i] - e) * (bins[i] - e) / e;
    if (chi2 > 120) /* 63 degrees of freedom: p < 1e-5 */
        fail_msg("permutation not uniform: chi2 %.1f", chi2);
    free(b);
    gen_close(&x);

    /* norandommap needs neither */
    gen_open(&x, "[r]\nrw=randread\nbs=4k\nnorandommap\n", 1, 1, blocks * 4096);
    assert_int_equal(x.g.map_blocks, 0);
    gen_close(&x);
}

/* random_generator=lfsr: no repeats, and every pass in the same order (fio's LFSR restarts). */
static void test_lfsr_passes_repeat(void **state)
{
    const uint64_t K = 1000;
    uint64_t first[1000];
    for (int lfsr = 0; lfsr < 2; lfsr++) {
        struct gen x;
        gen_open(&x, lfsr ? "[r]\nrw=randwrite\nrandom_generator=lfsr\nnorandommap\n" : "[r]\nrw=randwrite\n", 1, 1,
                 K * 4096);
        uint8_t seen[1000] = {0};
        for (uint64_t i = 0; i < K; i++) {
            first[i] = next_off(&x, NULL) / 4096;
            assert_int_equal(seen[first[i]]++, 0);
        }
        int same = 0;
        for (uint64_t i = 0; i < K; i++)
            same += next_off(&x, NULL) / 4096 == first[i];
        if (lfsr)
            assert_int_equal(same, K);
        else
            assert_true(same < 20);
        gen_close(&x);
    }
}

/* ---- seeds ---- */

static void sequence(const char *text, uint64_t seed, uint32_t tn, uint64_t *out, int n)
{
    struct gen x;
    gen_open(&x, text, seed, tn, 1024 * MIB);
    for (int i = 0; i < n; i++)
        out[i] = next_off(&x, NULL);
    gen_close(&x);
}

static bool same_seq(const uint64_t *a, const uint64_t *b, int n)
{
    return !memcmp(a, b, (size_t)n * sizeof *a);
}

static void test_randseed_randrepeat(void **state)
{
    enum { N = 64 };
    uint64_t a[N], b[N];
    const char *def = "[r]\nrw=randrw\nbsrange=4k-64k\n";
    /* randrepeat=1 (default): the scenario seed does not matter */
    sequence(def, 1, 1, a, N);
    sequence(def, 2, 1, b, N);
    assert_true(same_seq(a, b, N));
    /* ... the thread number does (fio: rand_seeds = f(randseed) * thread_number + i) */
    sequence(def, 1, 2, b, N);
    assert_false(same_seq(a, b, N));
    /* the default randseed is 0x89 */
    sequence("[r]\nrw=randrw\nbsrange=4k-64k\nrandseed=0x89\n", 7, 1, b, N);
    assert_true(same_seq(a, b, N));
    /* same randseed, same offsets whatever the scenario seed; another, others */
    sequence("[r]\nrw=randrw\nbsrange=4k-64k\nrandseed=42\n", 1, 3, a, N);
    sequence("[r]\nrw=randrw\nbsrange=4k-64k\nrandseed=42\n", 9, 3, b, N);
    assert_true(same_seq(a, b, N));
    sequence("[r]\nrw=randrw\nbsrange=4k-64k\nrandseed=43\n", 1, 3, b, N);
    assert_false(same_seq(a, b, N));
    /* randrepeat=0 with randseed: still the randseed's */
    sequence("[r]\nrw=randrw\nbsrange=4k-64k\nrandseed=42\nrandrepeat=0\n", 5, 3, b, N);
    assert_true(same_seq(a, b, N));
    /* randrepeat=0 alone: the scenario seed's (fio: the OS's), deterministic per seed */
    const char *norep = "[r]\nrw=randrw\nbsrange=4k-64k\nrandrepeat=0\n";
    sequence(norep, 1, 1, a, N);
    sequence(norep, 2, 1, b, N);
    assert_false(same_seq(a, b, N));
    sequence(norep, 1, 1, b, N);
    assert_true(same_seq(a, b, N));
    /* zipf draws follow the same rule */
    sequence("[r]\nrw=randwrite\nrandom_distribution=zipf:0.9\n", 1, 1, a, N);
    sequence("[r]\nrw=randwrite\nrandom_distribution=zipf:0.9\n", 2, 1, b, N);
    assert_true(same_seq(a, b, N));
    sequence("[r]\nrw=randwrite\nrandom_distribution=zipf:0.9\nrandrepeat=0\n", 2, 1, b, N);
    assert_false(same_seq(a, b, N));
}

/* ---- rw_seq_nr, rw_sequencer, sequential skips ---- */

static void test_rw_seq_nr(void **state)
{
    struct gen x;
    gen_open(&x, "[r]\nrw=randwrite:8\nbs=4k\nnorandommap\n", 1, 1, 1024 * MIB);
    uint64_t prev = 0;
    int jumps = 0;
    for (int i = 0; i < 8000; i++) {
        uint64_t off = next_off(&x, NULL);
        if (i % 8) /* the 7 after a random one continue from its end */
            assert_int_equal(off, prev + 4096);
        else
            jumps += off != prev + 4096;
        prev = off;
    }
    assert_true(jumps > 990); /* every 8th is random (a random one may, rarely, be adjacent) */
    gen_close(&x);

    gen_open(&x, "[r]\nrw=randread:4\nrw_sequencer=identical\nbs=8k\n", 1, 1, 1024 * MIB);
    for (int i = 0; i < 400; i++) {
        uint64_t off = next_off(&x, NULL);
        if (i % 4)
            assert_int_equal(off, prev);
        prev = off;
    }
    gen_close(&x);

    /* rw=write:8k with 4k blocks: 12k steps, back to the start when the next does not fit */
    gen_open(&x, "[s]\nrw=write:8k\nbs=4k\n", 1, 1, 64 * KIB);
    static const uint64_t want[] = {0, 12, 24, 36, 48, 60, 0, 12};
    for (int i = 0; i < 8; i++)
        assert_int_equal(next_off(&x, NULL), want[i] * KIB);
    gen_close(&x);

    /* rw=read:-8k (fio's examples/backwards-read.fio) with 4k blocks: 4k back
       after each read; from 0 the next step passes the start and wraps to the
       end, size - 8k (io_u.c get_next_seq_offset) */
    gen_open(&x, "[b]\nrw=read:-8k\nbs=4k\n", 1, 1, 64 * KIB);
    static const uint64_t back[] = {0, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0, 56};
    for (int i = 0; i < 17; i++)
        assert_int_equal(next_off(&x, NULL), back[i] * KIB);
    gen_close(&x);
}

/* ---- block sizes ---- */

static void check_bsrange(const char *text, const uint64_t *sizes, const double *p, int k)
{
    struct gen x;
    gen_open(&x, text, 1, 1, 1024 * MIB);
    const int draws = 200000;
    uint64_t cnt[8] = {0};
    for (int i = 0; i < draws; i++) {
        uint64_t len, off = next_off(&x, &len);
        assert_int_equal(off % 4096, 0); /* offsets align to the minimum block size */
        int v = 0;
        while (v < k && sizes[v] != len)
            v++;
        if (v == k)
            fail_msg("%s: block size %llu", text, (unsigned long long)len);
        cnt[v]++;
    }
    double chi2 = 0;
    for (int v = 0; v < k; v++)
        chi2 += (cnt[v] - draws * p[v]) * (cnt[v] - draws * p[v]) / (draws * p[v]);
    if (chi2 > 20) /* at most 3 degrees of freedom: p < 2e-4 */
        fail_msg("%s: chi2 %.1f", text, chi2);
    gen_close(&x);
}

static void test_bsrange_sizes(void **state)
{
    /* minbs + maxbs * u rounded down to a multiple of minbs, capped at maxbs */
    static const uint64_t s1[] = {4096, 8192, 12288, 16384};
    static const double p1[] = {0.25, 0.25, 0.25, 0.25};
    check_bsrange("[b]\nrw=randwrite\nbsrange=4k-16k\nnorandommap\n", s1, p1, 4);
    /* maxbs not a multiple: [4k, 14k) rounds to 4k (4/10), 8k (4/10), 12k -> 10k (2/10) */
    static const uint64_t s2[] = {4096, 8192, 10240};
    static const double p2[] = {0.4, 0.4, 0.2};
    check_bsrange("[b]\nrw=randwrite\nbsrange=4k-10k\nnorandommap\n", s2, p2, 3);
    /* sequential too; and block sizes never cross the region's end */
    struct gen x;
    gen_open(&x, "[b]\nrw=write\nbsrange=4k-64k\n", 1, 1, 200 * KIB);
    uint64_t expect = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t len, off = next_off(&x, &len);
        if (off != expect)
            assert_int_equal(off, 0);
        assert_true(off + len <= 200 * KIB);
        expect = off + len;
    }
    gen_close(&x);
}

/* bs=4k,64k: offsets align to each direction's own block size and fit the region (fio blockalign). */
static void test_per_direction_block_sizes(void **state)
{
    static const char *const jobs[] = {"[m]\nrw=randrw\nbs=4k,64k\n", "[m]\nrw=randrw\nbs=4k,64k\nnorandommap\n",
                                       "[m]\nrw=randrw\nbs=4k,64k\nrandom_distribution=zipf:1.1\n"};
    for (int t = 0; t < 3; t++) {
        struct gen x;
        gen_open(&x, jobs[t], 1, 1, 10 * MIB + 4096);
        uint64_t n[2] = {0};
        for (int i = 0; i < 20000; i++) {
            int ddir;
            uint64_t off, len;
            fiogen_next(&x.g, &ddir, &off, &len);
            uint64_t bs = ddir == FIO_DDIR_READ ? 4096 : 65536;
            assert_int_equal(off % bs, 0);
            assert_true(len <= bs && len % 4096 == 0 && off + len <= 10 * MIB + 4096);
            n[ddir]++;
        }
        assert_true(n[0] > 9000 && n[1] > 9000);
        gen_close(&x);
    }
}

/* ---- zoned ---- */

static void test_zoned(void **state)
{
    struct gen x;
    const uint64_t len = 1000 * MIB;
    gen_open(&x, "[z]\nrw=randread\nrandom_distribution=zoned:60/10:30/20:10/70\n", 1, 1, len);
    const int draws = 200000;
    uint64_t in[3] = {0}, halves[2] = {0};
    for (int i = 0; i < draws; i++) {
        uint64_t off = next_off(&x, NULL);
        int z = off < len / 10 ? 0 : off < len * 3 / 10 ? 1 : 2;
        in[z]++;
        if (z == 0)
            halves[off < len / 20]++;
    }
    static const double p[] = {0.6, 0.3, 0.1};
    for (int z = 0; z < 3; z++)
        check_z("zoned share", (double)in[z] / draws, p[z], sqrt(p[z] * (1 - p[z]) / draws));
    check_z("uniform inside a zone", (double)halves[0] / (double)in[0], 0.5, sqrt(0.25 / (double)in[0]));
    gen_close(&x);

    /* zoned_abs: 50% to the first 1m, 50% to the next 99m; reads and writes apart */
    gen_open(&x, "[z]\nrw=randrw\nrandom_distribution=zoned_abs:50/1m:50/99m,100/1m\n", 1, 1, len);
    uint64_t rd_first = 0, rd = 0;
    for (int i = 0; i < draws; i++) {
        int ddir;
        uint64_t off, l;
        fiogen_next(&x.g, &ddir, &off, &l);
        if (ddir == FIO_DDIR_WRITE) {
            assert_true(off < MIB);
        } else {
            rd++;
            rd_first += off < MIB;
            assert_true(off < 100 * MIB);
        }
    }
    check_z("zoned_abs share", (double)rd_first / (double)rd, 0.5, sqrt(0.25 / (double)rd));
    gen_close(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zipf_hot_blocks),
        cmocka_unit_test(test_pareto_hot_blocks),
        cmocka_unit_test(test_normal_ranks),
        cmocka_unit_test(test_randommap_covers_once),
        cmocka_unit_test(test_randommap_sparse_then_dense),
        cmocka_unit_test(test_randommap_cuts_ios),
        cmocka_unit_test(test_large_region_permutation),
        cmocka_unit_test(test_lfsr_passes_repeat),
        cmocka_unit_test(test_randseed_randrepeat),
        cmocka_unit_test(test_rw_seq_nr),
        cmocka_unit_test(test_bsrange_sizes),
        cmocka_unit_test(test_per_direction_block_sizes),
        cmocka_unit_test(test_zoned),
    };
    return cmocka_run_group_tests_name("fiogen", tests, NULL, NULL);
}
