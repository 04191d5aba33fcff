/*
 * fiogen.h - what one fio job clone issues next: data direction, offset and
 * block size, with fio's random streams (io_u.c fill_io_u and the generators
 * it draws from; fiogen.c says what each piece mirrors).
 *
 * The fio worker (librbd.c) keeps one struct fiogen; the pacing (iodepth,
 * rate_iops, thinktime) stays with the worker.
 */
#ifndef CEPHSIM_MODELS_CEPH_FIOGEN_H
#define CEPHSIM_MODELS_CEPH_FIOGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>

#include "sim.h"
#include "workload.h"

/* The random map bitmap is kept up to this many blocks (8 MiB of bits, 256 GiB
   of 4k blocks); larger regions get the permutation instead (fiogen.c). */
#define FIOGEN_MAP_MAX_BLOCKS (1ull << 26)
#define FIOGEN_MAP_LEVELS 6

/* fio's axmap: a bitmap of the blocks done this pass, with summary levels
   (a bit of level k+1 is set when its word of level k is full).  Until the
   blocks done would fill half the bitmap's bytes the map holds them in a
   hash set instead (the same answers: a run touches a few thousand blocks of
   a 100 GiB image per job, whose bitmap is 3.3 MB). */
struct fiogen_map {
    uint64_t *lvl[FIOGEN_MAP_LEVELS]; /* allocated when the map turns dense */
    uint64_t bits[FIOGEN_MAP_LEVELS];
    int n_lvl;
    bool dense;
    uint64_t *done;                   /* sparse: open addressing, empty slots ~0 */
    uint32_t done_log2, n_done;       /* 2^done_log2 slots, n_done used */
    uint64_t dense_bytes;             /* the bitmap's size, every level */
    struct sim *s;                    /* for the bitmap and larger sets (the run's arena) */
};

/* One zone of zoned / zoned_abs, indexed by the percentile drawn (1..100). */
struct fiogen_zone {
    uint32_t lo_pct, hi_pct;      /* zoned: start and end, percent of the region */
    uint64_t lo_bytes, hi_bytes;  /* zoned_abs */
};

struct fiogen {
    const struct workload_job *job;
    uint64_t len;                 /* the job's region (fio io_size), from its start */
    uint32_t min_bs[FIO_DDIR_NR], max_bs[FIO_DDIR_NR];
    uint32_t rw_min_bs;           /* the smaller of the two: the unit of the map and distributions */
    bool random;                  /* td_random() */
    /* fio's td random states, one stream each */
    gsl_rng *rng_off;             /* random_state: uniform offsets, permutation keys */
    gsl_rng *rng_bs[FIO_DDIR_NR]; /* bsrange_state[] */
    gsl_rng *rng_mix;             /* rwmix_state */
    gsl_rng *rng_dist;            /* f->zipf.rand / f->gauss.r */
    gsl_rng *rng_zone;            /* zone_state */
    /* sequential position (f->last_pos, f->last_start), relative to the region */
    uint64_t last_pos[FIO_DDIR_NR], last_start[FIO_DDIR_NR];
    bool started[FIO_DDIR_NR];
    uint32_t seq_nr;              /* td->ddir_seq_nr: I/Os until the next random offset */
    /* zipf_state / gauss_state */
    uint64_t nranges, rand_off;
    int64_t gauss_off;
    uint64_t gauss_stddev;
    double theta, zetan, zeta2, pareto_pow;
    /* no-repeat uniform offsets: the map, or a keyed permutation of the blocks */
    uint64_t map_blocks;          /* 0 = offsets may repeat (norandommap or not uniform) */
    struct fiogen_map map;        /* n_lvl 0 = the permutation */
    uint64_t perm_next, perm_mask, perm_key[2];
    uint32_t perm_shift;
    bool perm_same_each_pass;     /* random_generator=lfsr: fio's LFSR restarts from its seed */
    /* zoned: percentile -> zone, per direction */
    struct fiogen_zone *zones[FIO_DDIR_NR];
};

/*
 * Set up the generators of the job clone with fio thread number
 * thread_number (1-based, numjobs clones included) over the region of len
 * bytes.  Streams: with randrepeat=1 or an explicit randseed they derive from
 * (randseed, thread_number) alone, as fio's rand_seeds; otherwise from s's
 * seed ("fio", thread_number - 1, purpose).  Memory comes from s's arena.
 */
void fiogen_init(struct fiogen *g, struct sim *s, const struct workload_job *j, uint32_t thread_number,
                 uint64_t len);

/*
 * fill_io_u: the next I/O's direction (FIO_DDIR_*), offset from the region's
 * start and length.  Never fails: a random map exhausted starts a new pass.
 */
void fiogen_next(struct fiogen *g, int *ddir, uint64_t *offset, uint64_t *len);

/* fio's __hash_u64: the multiplicative (golden ratio) hash spreading
   zipf/pareto/normal ranks over the blocks (exposed for tests). */
static inline uint64_t fiogen_hash_u64(uint64_t v) { return v * 0x61C8864680B583EBull; }

#endif
