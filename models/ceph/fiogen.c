/*
 * fiogen.c - fio's choice of the next I/O of a job: direction, offset, block
 * size, written from fio's documented semantics (HOWTO) and the algorithms of
 * its sources (fio 3.33, with the seed fixes of 3.35), not from its code.
 *
 * Mirrors:
 *  - io_u.c fill_io_u(): direction, then get_next_offset(), then
 *    get_next_buflen(); the last offset and end per direction (last_start,
 *    last_pos) feed the sequential paths.
 *  - get_next_offset()/get_next_block(): rw=randX:<nr> (ddir_seq_nr) draws a
 *    new random offset every nr-th I/O, the first one included, and the I/Os
 *    in between continue sequentially from the previous end
 *    (rw_sequencer=sequential) or repeat the previous offset (identical).
 *    Sequential offsets add rw=X:<skip> (ddir_seq_add) after the first I/O
 *    and start over at the region's start when the next block does not fit
 *    (time_based's loop); a negative skip reads backwards, wrapping to the
 *    region's end (fio's rewind of a job with an offset is not kept).
 *  - get_next_rand_offset(): random offsets are blocks of the direction's
 *    blockalign (= its minimum block size), uniform (__get_next_rand_offset:
 *    lastb * r / 2^32, 64-bit draws past 2^32 blocks as tausworthe64), or
 *    from the non-uniform generators, which are over ceil(region / min bs)
 *    ranges of the smaller minimum block size (filesetup.c
 *    __init_rand_distribution) and hash the rank to a block:
 *      zipf (lib/zipf.c zipf_init/zipf_next): Gray et al.'s generator, zeta(n)
 *        summed over at most 10M terms as zipf_update (here the first 4096
 *        terms exactly and the rest by Euler-Maclaurin: the same sum, O(1));
 *      pareto (pareto_next): rank = (n - 1) * u^(log h / log(1 - h));
 *      normal (lib/gauss.c gauss_next): the mean of 12 uniform draws over
 *        [0, n] plus a uniform deviation of width ceil(n * dev / 100), halved
 *        until inside; so dev=0 still spreads with sd n/12;
 *    then rank -> (__hash_u64(rank) + rand_off) % n: the golden-ratio
 *    multiplicative hash spreads the hot ranks over the whole region (and so
 *    over many RADOS objects), a bijection when n is a power of two.
 *    rand_off is the generator's first draw, or n * center (gauss: the centre
 *    shifts by n * (center - 0.5), taken modulo n here, where fio converts a
 *    negative double to unsigned).
 *      zoned / zoned_abs (__get_next_rand_offset_zoned[_abs], zone-dist.c):
 *        a percentile 1..100 from zone_state picks the zone, the block is
 *        uniform inside it.
 *  - the random map (axmap, lib/axmap.c; on unless norandommap, for uniform
 *    offsets only, as fio): a drawn block already done this pass is replaced
 *    by the next free one (axmap_next_free, wrapping), an I/O marks the
 *    blocks it covers and is cut at the first one already done
 *    (mark_random_map), and a full map starts a new pass (fio_file_reset).
 *    The bitmap has summary levels like axmap's and is kept up to
 *    FIOGEN_MAP_MAX_BLOCKS (8 MiB); while few blocks are done (under half
 *    the bitmap's bytes) a hash set of them stands in for it, with the same
 *    answers (a short run on a large image touches a few thousand of its
 *    millions of blocks); a larger region, or
 *    random_generator=lfsr, instead walks a keyed permutation of its blocks
 *    (a bijection on the next power of two, cycle-walked into range): no
 *    block repeats within a pass, in O(1) memory, as fio's LFSR gives.  Its
 *    order is not fio's: tausworthe+axmap picks random blocks and, late in a
 *    pass, the free neighbours of done ones; the permutation stays uniform
 *    to the end (lfsr passes repeat the same order, as fio's LFSR restarts
 *    from its seed).
 *  - get_next_buflen(): bsrange draws minbs + maxbs * r / 2^32, rounded down
 *    to a multiple of minbs and capped at maxbs (uniform over the multiples
 *    when maxbs is one, more weight on maxbs otherwise); bssplit picks by
 *    cumulative percentage; both draw again until the block fits the region.
 *  - init.c setup_random_seeds()/td_fill_rand_seeds(): separate streams for
 *    offsets, block sizes per direction, rwmix, the distribution and the
 *    zones.  With randrepeat=1 (default) or an explicit randseed they derive
 *    from randseed and the thread number only (fio >= 3.35: rand_seeds[i] =
 *    f(randseed) * thread_number + i; 3.33 ignored randseed for offsets, a bug
 *    fixed there), so a job repeats its offsets run after run whatever the
 *    scenario seed; with randrepeat=0 and no randseed fio seeds from the OS,
 *    here from the scenario seed.
 * Simplified: zoned offsets ignore the random map (fio checks it at the
 * zone-relative block, a quirk); a distribution's rank is taken modulo the
 * direction's blocks when its minimum block size is the larger one (fio
 * fails that I/O); rwmix is a draw per I/O (fio keeps runs to hold the ratio).
 */
#include <math.h>
#include <string.h>

#include "fiogen.h"

#include "err.h"

#define NONE UINT64_MAX
#define ZIPF_MAX_GEN 10000000ull /* lib/zipf.c ZIPF_MAX_GEN */
#define GAUSS_ITERS 12           /* lib/gauss.c */
#define FRAND32_MAX 4294967295.0

/* ---- streams ---- */

enum { STREAM_OFF, STREAM_BS_READ, STREAM_BS_WRITE, STREAM_MIX, STREAM_DIST, STREAM_ZONE };
static const char *const stream_names[] = {"offsets", "bs.read", "bs.write", "rwmix", "dist", "zone"};

/* A taus2 stream in s's arena, seeded from (randseed, thread number, purpose) alone. */
static gsl_rng *seeded_rng(struct sim *s, uint64_t randseed, uint32_t thread_number, int purpose)
{
    uint64_t h = sim_fmix64(sim_fmix64(randseed + 0x9e3779b97f4a7c15ull) ^ ((uint64_t)thread_number << 8 | (uint64_t)purpose));
    unsigned long seed = (unsigned long)((h ^ (h >> 32)) & 0xffffffffu);
    gsl_rng *r = sim_alloc(s, 1, sizeof *r + gsl_rng_taus2->size);
    r->type = gsl_rng_taus2;
    r->state = r + 1;
    gsl_rng_set(r, seed ? seed : 0x9e3779b9u);
    return r;
}

static gsl_rng *job_rng(struct sim *s, const struct workload_job *j, uint32_t thread_number, int purpose)
{
    if (!j->randrepeat && !j->randseed_set)
        return sim_rng(s, "fio", thread_number - 1, stream_names[purpose]);
    return seeded_rng(s, j->randseed, thread_number, purpose);
}

static inline uint64_t rand32(gsl_rng *r) { return (uint64_t)gsl_rng_get(r) & 0xffffffffu; }

static inline uint64_t rand64(gsl_rng *r)
{
    uint64_t hi = rand32(r);
    return hi << 32 | rand32(r); /* the high word drawn first, in a fixed order */
}

/* Uniform in [0, n): fio's lastb * (r / (max + 1)), 64-bit when n needs it. */
static uint64_t rand_below(gsl_rng *r, uint64_t n)
{
    if (n <= 1)
        return 0;
    if (n <= 0xffffffffull)
        return (rand32(r) * n) >> 32;
    return (uint64_t)(((unsigned __int128)rand64(r) * n) >> 64);
}

/* fio's __rand / FRAND32_MAX: [0, 1] */
static inline double rand_01(gsl_rng *r) { return (double)rand32(r) / FRAND32_MAX; }

/* ---- the random map (axmap) ---- */

#define MAP_SPARSE_LOG2_MIN 8 /* 256 slots, 2 KiB per job to start */

static void map_dense_reset(struct fiogen_map *m)
{
    for (int l = 0; l < m->n_lvl; l++) {
        uint64_t words = (m->bits[l] + 63) / 64;
        memset(m->lvl[l], 0, words * sizeof m->lvl[l][0]);
        if (m->bits[l] % 64)
            m->lvl[l][words - 1] = ~0ull << (m->bits[l] % 64); /* past the end: never free */
    }
}

static void map_reset(struct fiogen_map *m)
{
    if (m->dense) {
        map_dense_reset(m);
        return;
    }
    memset(m->done, 0xff, ((size_t)1 << m->done_log2) * sizeof *m->done);
    m->n_done = 0;
}

static void map_init(struct fiogen_map *m, struct sim *s, uint64_t blocks)
{
    uint64_t bits = blocks;
    m->n_lvl = 0;
    m->s = s;
    m->dense_bytes = 0;
    for (;;) {
        SIM_ASSERT(m->n_lvl < FIOGEN_MAP_LEVELS);
        uint64_t words = (bits + 63) / 64;
        m->bits[m->n_lvl++] = bits;
        m->dense_bytes += words * sizeof(uint64_t);
        if (words == 1)
            break;
        bits = words;
    }
    m->dense = ((uint64_t)1 << MAP_SPARSE_LOG2_MIN) * sizeof(uint64_t) * 2 > m->dense_bytes;
    if (m->dense) { /* a small region: the bitmap is smaller than any set */
        for (int l = 0; l < m->n_lvl; l++)
            m->lvl[l] = sim_alloc(s, (m->bits[l] + 63) / 64, sizeof(uint64_t));
    } else {
        m->done_log2 = MAP_SPARSE_LOG2_MIN;
        m->done = sim_alloc(s, (size_t)1 << m->done_log2, sizeof *m->done);
    }
    map_reset(m);
}

/* sparse: the slot that holds b, or the empty slot where it would go */
static inline uint64_t *done_slot(const struct fiogen_map *m, uint64_t b)
{
    uint64_t mask = ((uint64_t)1 << m->done_log2) - 1;
    for (uint64_t i = fiogen_hash_u64(b) >> (64 - m->done_log2);; i = (i + 1) & mask)
        if (m->done[i] == b || m->done[i] == NONE)
            return &m->done[i];
}

static inline bool map_isset(const struct fiogen_map *m, uint64_t b)
{
    if (m->dense)
        return m->lvl[0][b / 64] >> (b % 64) & 1;
    return *done_slot(m, b) == b;
}

static void map_dense_set(struct fiogen_map *m, uint64_t b)
{
    for (int l = 0; l < m->n_lvl; l++) {
        uint64_t *w = &m->lvl[l][b / 64];
        *w |= 1ull << (b % 64);
        if (*w != ~0ull)
            return;
        b /= 64; /* the word is full: its bit one level up */
    }
}

/* The set at half load: twice the slots, or the bitmap once a set that size
   would take half its bytes; the old set is freed. */
static void map_grow(struct fiogen_map *m)
{
    uint64_t *old = m->done;
    size_t n_old = (size_t)1 << m->done_log2;
    if ((uint64_t)n_old * 2 * sizeof *old * 2 > m->dense_bytes) {
        for (int l = 0; l < m->n_lvl; l++)
            m->lvl[l] = sim_alloc(m->s, (m->bits[l] + 63) / 64, sizeof(uint64_t));
        map_dense_reset(m);
        m->dense = true;
        for (size_t i = 0; i < n_old; i++)
            if (old[i] != NONE)
                map_dense_set(m, old[i]);
        m->done = NULL;
        sim_release(m->s, old);
        return;
    }
    m->done_log2++;
    m->done = sim_alloc(m->s, n_old * 2, sizeof *m->done);
    memset(m->done, 0xff, n_old * 2 * sizeof *m->done);
    for (size_t i = 0; i < n_old; i++)
        if (old[i] != NONE)
            *done_slot(m, old[i]) = old[i];
    sim_release(m->s, old);
}

static void map_set(struct fiogen_map *m, uint64_t b)
{
    if (m->dense) {
        map_dense_set(m, b);
        return;
    }
    uint64_t *slot = done_slot(m, b);
    if (*slot == b)
        return;
    *slot = b;
    if (++m->n_done * 2 > (1u << m->done_log2))
        map_grow(m);
}

/* The first free block at or after b, NONE if there is none. */
static uint64_t map_find_free(const struct fiogen_map *m, uint64_t b)
{
    if (!m->dense) { /* at most n_done blocks in a row are done */
        for (uint64_t pos = b; pos < m->bits[0]; pos++)
            if (*done_slot(m, pos) != pos)
                return pos;
        return NONE;
    }
    int l = 0;
    uint64_t pos = b;
    for (;;) {
        if (pos >= m->bits[l])
            return NONE;
        uint64_t w = pos / 64, word = m->lvl[l][w] | ((1ull << (pos % 64)) - 1);
        if (~word) {
            pos = w * 64 + (uint64_t)__builtin_ctzll(~word);
            break;
        }
        if (l == m->n_lvl - 1)
            return NONE;
        l++;
        pos = w + 1; /* the next word of level l - 1 is bit w + 1 of level l */
    }
    while (l > 0) {
        l--;
        pos = pos * 64 + (uint64_t)__builtin_ctzll(~m->lvl[l][pos]);
    }
    return pos;
}

/* axmap_next_free: after b, wrapping to the start. */
static uint64_t map_next_free(const struct fiogen_map *m, uint64_t b)
{
    uint64_t r = map_find_free(m, b);
    return r == NONE && b ? map_find_free(m, 0) : r;
}

/* axmap_set_nr: mark up to nr blocks from b, stopping at one already done. */
static uint64_t map_set_nr(struct fiogen_map *m, uint64_t b, uint64_t nr)
{
    uint64_t k = 0;
    while (k < nr && b + k < m->bits[0] && !map_isset(m, b + k))
        map_set(m, b + k++);
    return k;
}

/* ---- the permutation (no-repeat offsets in O(1) memory) ---- */

static void perm_new_pass(struct fiogen *g)
{
    g->perm_next = 0;
    if (g->perm_same_each_pass && (g->perm_key[0] | g->perm_key[1]))
        return;
    g->perm_key[0] = rand64(g->rng_off);
    g->perm_key[1] = rand64(g->rng_off);
}

/* A bijection on [0, 2^bits): odd multiplications and right xorshifts, keyed. */
static uint64_t perm_mix(const struct fiogen *g, uint64_t x)
{
    uint64_t m = g->perm_mask;
    uint32_t h = g->perm_shift;
    x = (x ^ g->perm_key[0]) & m;
    x = (x * 0xbf58476d1ce4e5b9ull) & m;
    x ^= x >> h;
    x = (x + g->perm_key[1]) & m;
    x = (x * 0x94d049bb133111ebull) & m;
    x ^= x >> h;
    x = (x * 0xd6e8feb86659fd93ull) & m;
    x ^= x >> h;
    return x;
}

static uint64_t perm_draw(struct fiogen *g)
{
    if (g->perm_next == g->map_blocks)
        perm_new_pass(g);
    uint64_t y = perm_mix(g, g->perm_next++);
    while (y >= g->map_blocks) /* cycle-walk: a bijection of [0, map_blocks) */
        y = perm_mix(g, y);
    return y;
}

/* ---- non-uniform generators (lib/zipf.c, lib/gauss.c) ---- */

/* zipf_update: sum_{i=1}^{min(n, 10M)} i^-theta. */
static double zeta_sum(uint64_t n, double theta)
{
    if (n > ZIPF_MAX_GEN)
        n = ZIPF_MAX_GEN;
    uint64_t k = n < 4096 ? n : 4096;
    double s = 0;
    for (uint64_t i = k; i >= 1; i--)
        s += pow((double)i, -theta);
    if (n > k) {
        /* Euler-Maclaurin for sum_{i=k+1}^{n} f(i), f(x) = x^-theta */
        double a = (double)k, b = (double)n;
        double integral = (pow(b, 1 - theta) - pow(a, 1 - theta)) / (1 - theta);
        double d1 = -theta * (pow(b, -theta - 1) - pow(a, -theta - 1));
        double d3 = -theta * (theta + 1) * (theta + 2) * (pow(b, -theta - 3) - pow(a, -theta - 3));
        s += integral + (pow(b, -theta) - pow(a, -theta)) / 2 + d1 / 12 - d3 / 720;
    }
    return s;
}

/* zipf_next: Gray et al. (SIGMOD 1994), 0-based rank. */
static uint64_t zipf_rank(struct fiogen *g)
{
    double n = (double)g->nranges, theta = g->theta;
    double alpha = 1.0 / (1.0 - theta);
    double eta = (1.0 - pow(2.0 / n, 1.0 - theta)) / (1.0 - g->zeta2 / g->zetan);
    double u = rand_01(g->rng_dist), uz = u * g->zetan;
    uint64_t v;
    if (uz < 1.0)
        v = 1;
    else if (uz < 1.0 + pow(0.5, theta))
        v = 2;
    else
        v = 1 + (uint64_t)(n * pow(eta * u - eta + 1.0, alpha));
    return v - 1;
}

static uint64_t pareto_rank(struct fiogen *g)
{
    return (uint64_t)((double)(g->nranges - 1) * pow(rand_01(g->rng_dist), g->pareto_pow));
}

static uint64_t gauss_rank(struct fiogen *g)
{
    uint64_t n = g->nranges, sum = 0;
    for (int i = 0; i < GAUSS_ITERS; i++)
        sum += n < 0xffffffffull ? rand32(g->rng_dist) % (n + 1) : rand_below(g->rng_dist, n + 1);
    sum = (sum + GAUSS_ITERS - 1) / GAUSS_ITERS;
    if (g->gauss_stddev) {
        int64_t sd = (int64_t)g->gauss_stddev;
        int64_t dev = (int64_t)((double)sd * ((double)rand32(g->rng_dist) / 4294967296.0)) - sd / 2;
        while ((int64_t)sum + dev < 0 || (uint64_t)((int64_t)sum + dev) >= n)
            dev /= 2;
        sum = (uint64_t)((int64_t)sum + dev);
    }
    return sum;
}

/* The block of a non-uniform draw, in units of rw_min_bs. */
static uint64_t dist_block(struct fiogen *g)
{
    uint64_t n = g->nranges;
    switch (g->job->random_distribution) {
    case FIO_DIST_ZIPF:
        return (fiogen_hash_u64(zipf_rank(g)) + g->rand_off) % n;
    case FIO_DIST_PARETO:
        return (fiogen_hash_u64(pareto_rank(g)) + g->rand_off) % n;
    default: {
        int64_t off = g->gauss_off % (int64_t)n;
        uint64_t h = fiogen_hash_u64(gauss_rank(g)) % n;
        return (h + (uint64_t)(off < 0 ? off + (int64_t)n : off)) % n;
    }
    }
}

/* ---- offsets ---- */

/* last_block: blocks of the direction's blockalign that fit the region. */
static inline uint64_t last_block(const struct fiogen *g, int ddir)
{
    uint64_t b = g->len / g->min_bs[ddir];
    return b ? b : 1;
}

/* A block of the map's unit for uniform no-repeat offsets; *mapped if the bitmap holds it. */
static uint64_t norepeat_block(struct fiogen *g, bool *mapped)
{
    if (!g->map.n_lvl)
        return perm_draw(g);
    *mapped = true;
    uint64_t b = rand_below(g->rng_off, g->map_blocks);
    if (!map_isset(&g->map, b))
        return b;
    b = map_next_free(&g->map, b);
    if (b == NONE) { /* every block done: a new pass */
        map_reset(&g->map);
        b = rand_below(g->rng_off, g->map_blocks);
    }
    return b;
}

static uint64_t zoned_offset(struct fiogen *g, int ddir)
{
    uint64_t lastb = last_block(g, ddir), ba = g->min_bs[ddir];
    const struct fiogen_zone *z = &g->zones[ddir][rand_below(g->rng_zone, 100)]; /* percentile 1..100 */
    uint64_t lo, n;
    if (g->job->random_distribution == FIO_DIST_ZONED) {
        lo = z->lo_pct * lastb / 100;
        n = lastb * (z->hi_pct - z->lo_pct) / 100;
    } else {
        lo = z->lo_bytes / ba;
        uint64_t hi = z->hi_bytes / ba;
        if (hi > lastb) /* fio: "zoned_abs sizes exceed file size"; here cut at the region's end */
            hi = lastb;
        if (lo >= hi)
            lo = hi - 1;
        n = hi - lo;
    }
    uint64_t b = lo + rand_below(g->rng_off, n);
    return (b < lastb ? b : lastb - 1) * ba;
}

/* get_next_rand_offset; *mapped and *block when the I/O is to be marked in the map. */
static uint64_t rand_offset(struct fiogen *g, int ddir, bool *mapped, uint64_t *block)
{
    const struct workload_job *j = g->job;
    uint64_t lastb = last_block(g, ddir), ba = g->min_bs[ddir];
    switch (j->random_distribution) {
    case FIO_DIST_RANDOM:
        if (g->map_blocks) {
            uint64_t off = norepeat_block(g, mapped) * g->rw_min_bs;
            off -= off % ba; /* the direction's alignment when its minimum is the larger */
            off = off + ba <= g->len ? off : (lastb - 1) * ba;
            *block = off / g->rw_min_bs;
            return off;
        }
        return rand_below(g->rng_off, lastb) * ba;
    case FIO_DIST_ZONED:
    case FIO_DIST_ZONED_ABS:
        return g->zones[ddir] ? zoned_offset(g, ddir) : rand_below(g->rng_off, lastb) * ba;
    default:
        return dist_block(g) % lastb * ba;
    }
}

/* get_next_seq_offset: after the last I/O of the direction (+ skip), from the
   start when past the end; a negative skip (backwards I/O) that passes the
   start wraps to the end (pos = size + skip), as fio's does. */
static uint64_t seq_offset(struct fiogen *g, int ddir)
{
    uint64_t pos = g->last_pos[ddir];
    int64_t add = g->job->rw_seq_add;
    if (pos && add) {
        pos += (uint64_t)add; /* modulo 2^64, as fio's unsigned pos */
        if (pos >= g->len)
            pos = add > 0 || (uint64_t)-add > g->len ? 0 : g->len - (uint64_t)-add;
    }
    if (pos + g->min_bs[ddir] > g->len)
        pos = 0;
    return pos;
}

/* ---- block sizes ---- */

static uint64_t buflen(struct fiogen *g, int ddir, uint64_t off)
{
    const struct workload_job *j = g->job;
    uint64_t minbs = g->min_bs[ddir], maxbs = g->max_bs[ddir], room = g->len - off;
    if (minbs == maxbs)
        return minbs;
    for (int tries = 0; tries < 64; tries++) {
        uint64_t bl = 0;
        if (j->n_bssplit[ddir]) {
            uint64_t u = rand_below(g->rng_bs[ddir], 100), acc = 0;
            for (int i = 0; i < j->n_bssplit[ddir]; i++) {
                const struct fio_bssplit *e = &j->bssplit[ddir][i];
                if (!e->pct)
                    continue;
                acc += e->pct;
                bl = e->bs;
                if (u < acc && bl <= room)
                    break;
            }
        } else {
            bl = minbs + (uint64_t)((double)maxbs * ((double)rand32(g->rng_bs[ddir]) / 4294967296.0));
            if (!(minbs & (minbs - 1)))
                bl &= ~(minbs - 1);
            else
                bl -= bl % minbs;
            if (bl > maxbs)
                bl = maxbs;
        }
        if (bl && bl <= room)
            return bl;
    }
    return minbs;
}

static int next_ddir(struct fiogen *g)
{
    switch (g->job->rw) {
    case FIO_RW_READ:
    case FIO_RW_RANDREAD: return FIO_DDIR_READ;
    case FIO_RW_WRITE:
    case FIO_RW_RANDWRITE: return FIO_DDIR_WRITE;
    default: return 1 + rand_below(g->rng_mix, 100) <= g->job->rwmixread ? FIO_DDIR_READ : FIO_DDIR_WRITE;
    }
}

void fiogen_next(struct fiogen *g, int *ddir_out, uint64_t *off_out, uint64_t *len_out)
{
    const struct workload_job *j = g->job;
    int ddir = next_ddir(g);
    bool mapped = false;
    uint64_t off, block = 0;
    bool new_random = false;
    if (--g->seq_nr == 0) {
        new_random = true;
        g->seq_nr = j->rw_seq_nr ? j->rw_seq_nr : 1;
    }
    if (g->random && new_random)
        off = rand_offset(g, ddir, &mapped, &block);
    else if (g->random && j->rw_sequencer == FIO_RWSEQ_IDENTICAL)
        off = g->started[ddir] ? g->last_start[ddir] : 0;
    else
        off = seq_offset(g, ddir);
    uint64_t len = buflen(g, ddir, off);
    if (mapped) {
        /* none done only when a larger minimum block size moved the offset onto a done block */
        uint64_t done = map_set_nr(&g->map, block, (len + g->rw_min_bs - 1) / g->rw_min_bs);
        if (done && done * g->rw_min_bs < len)
            len = done * g->rw_min_bs;
    }
    g->started[ddir] = true;
    g->last_start[ddir] = off;
    g->last_pos[ddir] = off + len;
    *ddir_out = ddir;
    *off_out = off;
    *len_out = len;
}

/* ---- set-up ---- */

/* fixup_options: min_bs/max_bs from bssplit, bsrange or bs. */
static void block_sizes(struct fiogen *g, const struct workload_job *j)
{
    for (int d = 0; d < FIO_DDIR_NR; d++) {
        uint32_t lo = j->bs[d], hi = j->bs[d];
        if (j->n_bssplit[d]) {
            lo = UINT32_MAX;
            hi = 0;
            for (int i = 0; i < j->n_bssplit[d]; i++) {
                lo = j->bssplit[d][i].bs < lo ? j->bssplit[d][i].bs : lo;
                hi = j->bssplit[d][i].bs > hi ? j->bssplit[d][i].bs : hi;
            }
        } else if (j->bsrange[d][1]) {
            lo = j->bsrange[d][0];
            hi = j->bsrange[d][1];
        }
        g->min_bs[d] = lo;
        g->max_bs[d] = hi;
    }
    g->rw_min_bs = g->min_bs[0] < g->min_bs[1] ? g->min_bs[0] : g->min_bs[1];
}

/* shared_rand_init: the first draw, replaced by n * center when given (drawn in any case). */
static uint64_t rand_offset_init(struct fiogen *g, const struct workload_job *j)
{
    uint64_t off = rand32(g->rng_dist);
    return j->dist_center >= 0 ? (uint64_t)((double)g->nranges * j->dist_center) : off;
}

/* zone-dist.c __td_zone_gen_index: percentile -> zone. */
static void zones_init(struct fiogen *g, struct sim *s, const struct workload_job *j)
{
    for (int d = 0; d < FIO_DDIR_NR; d++) {
        if (!j->n_zones[d])
            continue;
        g->zones[d] = sim_alloc(s, 100, sizeof *g->zones[d]);
        uint32_t a = 0, sp = 0;
        uint64_t sz = 0;
        for (int i = 0; i < j->n_zones[d]; i++) {
            const struct fio_zone_split *z = &j->zones[d][i];
            for (uint32_t k = a; k < a + z->access_pct && k < 100; k++)
                g->zones[d][k] = (struct fiogen_zone){sp, sp + z->size_pct, sz, sz + z->size};
            a += z->access_pct;
            sp += z->size_pct;
            sz += z->size;
        }
    }
}

void fiogen_init(struct fiogen *g, struct sim *s, const struct workload_job *j, uint32_t thread_number,
                 uint64_t len)
{
    memset(g, 0, sizeof *g);
    SIM_ASSERT(thread_number >= 1);
    g->job = j;
    g->len = len;
    g->random = j->rw == FIO_RW_RANDREAD || j->rw == FIO_RW_RANDWRITE || j->rw == FIO_RW_RANDRW;
    g->seq_nr = 1; /* init.c: the first I/O draws a random offset */
    block_sizes(g, j);
    g->rng_off = job_rng(s, j, thread_number, STREAM_OFF);
    g->rng_bs[FIO_DDIR_READ] = job_rng(s, j, thread_number, STREAM_BS_READ);
    g->rng_bs[FIO_DDIR_WRITE] = job_rng(s, j, thread_number, STREAM_BS_WRITE);
    g->rng_mix = job_rng(s, j, thread_number, STREAM_MIX);
    g->rng_dist = job_rng(s, j, thread_number, STREAM_DIST);
    g->rng_zone = job_rng(s, j, thread_number, STREAM_ZONE);
    if (!g->random)
        return;
    uint64_t n = (len + g->rw_min_bs - 1) / g->rw_min_bs;
    g->nranges = n ? n : 1;
    switch (j->random_distribution) {
    case FIO_DIST_RANDOM: {
        bool lfsr = j->random_generator == FIO_RAND_GEN_LFSR;
        if (j->norandommap && !lfsr)
            break;
        g->map_blocks = len / g->rw_min_bs ? len / g->rw_min_bs : 1;
        if (!lfsr && g->map_blocks <= FIOGEN_MAP_MAX_BLOCKS) {
            map_init(&g->map, s, g->map_blocks);
            break;
        }
        uint32_t bits = 1;
        while (bits < 64 && (1ull << bits) < g->map_blocks)
            bits++;
        g->perm_mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
        g->perm_shift = (bits + 1) / 2;
        g->perm_same_each_pass = lfsr;
        perm_new_pass(g);
        break;
    }
    case FIO_DIST_ZIPF:
        g->theta = j->dist_param;
        g->zeta2 = 1.0 + pow(0.5, g->theta);
        g->zetan = zeta_sum(g->nranges, g->theta);
        g->rand_off = rand_offset_init(g, j);
        break;
    case FIO_DIST_PARETO:
        g->pareto_pow = log(j->dist_param) / log(1.0 - j->dist_param);
        g->rand_off = rand_offset_init(g, j);
        break;
    case FIO_DIST_NORMAL:
        if (j->dist_param != 0) {
            g->gauss_stddev = (uint64_t)ceil((double)g->nranges * j->dist_param / 100.0);
            if (g->gauss_stddev > g->nranges / 2)
                g->gauss_stddev = g->nranges / 2;
        }
        if (j->dist_center >= 0)
            g->gauss_off = (int64_t)((double)g->nranges * (j->dist_center - 0.5));
        break;
    case FIO_DIST_ZONED:
    case FIO_DIST_ZONED_ABS:
        zones_init(g, s, j);
        break;
    }
}
