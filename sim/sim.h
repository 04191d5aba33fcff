/*
 * sim.h - the simulator object: clock, event queue, random streams and the
 * waiter pool the queueing primitives share.
 *
 * One struct sim per run, passed explicitly; several can live in one process
 * (tests, sweeps).  The engine knows nothing of Ceph: models schedule plain
 * callbacks fn(sim, obj, arg) and compose the primitives in queueing.h.
 */
#ifndef CEPHSIM_SIM_SIM_H
#define CEPHSIM_SIM_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>

#include "evq.h"

#define SIM_NS_PER_US 1000ull
#define SIM_NS_PER_MS 1000000ull
#define SIM_NS_PER_S 1000000000ull

/*
 * A parked callback.  Queueing primitives keep FIFO lists of these; they come
 * from the simulator's free list so that waiting allocates nothing.
 */
struct sim_waiter {
    struct sim_waiter *next;
    sim_event_fn fn;
    void *obj;
    uint64_t arg;
    uint64_t aux;      /* primitive-specific: service time, lock mode, bytes */
    sim_time_t t_enq;  /* when it started waiting */
};

struct sim_rng_block;
struct sim_table;

struct sim {
    /* Elements below are read by inline helpers; treat as private. */
    sim_time_t now;
    struct evq q;
    uint64_t events;        /* events executed */
    uint64_t seed;
    bool stop;
    struct sim_waiter *waiter_free;
    struct sim_waiter **waiter_blocks;
    uint32_t n_waiter_blocks;
    uint64_t *rng_ids;          /* open-addressing set of issued identities (0 = empty) */
    uint32_t n_rngs, rng_cap;
    char **rng_names;           /* interned entity and purpose strings, id = position + 1 */
    uint32_t n_rng_names;
    struct sim_rng_block *rng_block; /* generators are carved from blocks in the arena */
    uint32_t rng_block_used;
    void **arena;               /* allocations freed by sim_destroy */
    uint32_t n_arena;
    struct sim_table *tables;   /* read-only tables shared by key (sim_shared_table) */
    uint32_t n_tables;
};

/* Create a simulator whose random streams derive from seed. */
struct sim *sim_create(uint64_t seed);
void sim_destroy(struct sim *s);

static inline sim_time_t sim_now(const struct sim *s) { return s->now; }

/* Schedule fn(s, obj, arg) after delay ns (0 = now, after already-queued events at now). */
static inline void sim_schedule(struct sim *s, sim_time_t delay, sim_event_fn fn, void *obj,
                                uint64_t arg)
{
    evq_push(&s->q, s->now + delay, fn, obj, arg);
}

/* Schedule at absolute time t (>= now). */
void sim_schedule_at(struct sim *s, sim_time_t t, sim_event_fn fn, void *obj, uint64_t arg);

/* An event that may never be needed: take its place in the order now
   (sim_take_seq), schedule it later only if it turns out to be
   (sim_schedule_seq, at the time it was meant for, >= now), and it runs exactly
   where it would have run had it been scheduled at once.  sim_current_seq: the
   place of the event running now. */
static inline uint64_t sim_take_seq(struct sim *s) { return evq_take_seq(&s->q); }
static inline void sim_schedule_seq(struct sim *s, sim_time_t t, uint64_t seq, sim_event_fn fn, void *obj,
                                    uint64_t arg)
{
    evq_push_seq(&s->q, t, seq, fn, obj, arg);
}
static inline uint64_t sim_current_seq(const struct sim *s) { return s->q.cur_seq; }

/* Schedule after delay and return a handle for sim_cancel (timers, timeouts). */
static inline struct sim_handle sim_schedule_cancellable(struct sim *s, sim_time_t delay,
                                                         sim_event_fn fn, void *obj, uint64_t arg)
{
    return evq_push_cancellable(&s->q, s->now + delay, fn, obj, arg);
}

/* Cancel a scheduled event; false if it already ran or was cancelled. */
static inline bool sim_cancel(struct sim *s, struct sim_handle h) { return evq_cancel(&s->q, h); }

/*
 * Run events in time order until the queue is empty, sim_stop is called, or
 * the next event is later than until (the clock then advances to until).
 * Returns the number of events executed by this call.
 */
uint64_t sim_run(struct sim *s, sim_time_t until);

/* Make sim_run return after the current event. */
static inline void sim_stop(struct sim *s) { s->stop = true; }

static inline uint64_t sim_events(const struct sim *s) { return s->events; }
static inline uint32_t sim_pending(const struct sim *s) { return evq_size(&s->q); }

/* Zeroed memory that lives until sim_destroy (per-run tables of the models). */
void *sim_alloc(struct sim *s, size_t n, size_t size);
/* Free p (from sim_alloc) before sim_destroy: for tables that a model replaces
   with larger ones a few times in a run (a search of the arena: rare calls). */
void sim_release(struct sim *s, void *p);

/*
 * A read-only table that every model object of this run asking with the same
 * (kind, param) shares, e.g. one CPU jitter table per distinct work_cv rather
 * than one per host.  kind is kept by pointer (a string literal); *fresh is
 * true for the first caller, which must fill it; the memory is zeroed and
 * lives until sim_destroy.
 */
void *sim_shared_table(struct sim *s, const char *kind, double param, size_t bytes, bool *fresh);

/* Waiter pool (used by queueing.c, and by models for small fixed-size
   records that fit a waiter: net messages, CPU work items). */
struct sim_waiter *sim_waiter_get(struct sim *s);
static inline void sim_waiter_put(struct sim *s, struct sim_waiter *w)
{
    w->next = s->waiter_free;
    s->waiter_free = w;
}

/*
 * Random streams.  One GSL generator (taus2) per (entity, index, purpose).
 * Its whole state (three words, 88 significant bits) is a 128-bit hash of the
 * scenario seed and the exact identity, so a stream depends on nothing else:
 * adding a client never perturbs an OSD's draws, and two identities share a
 * state with probability < n^2 / 2^89 for n streams (< 1e-14 at 2 million).
 * Asking for the same identity twice is a model bug and aborts.
 * The stream is owned by s (never gsl_rng_free it); valid until sim_destroy.
 */
gsl_rng *sim_rng(struct sim *s, const char *entity, uint32_t index, const char *purpose);

/*
 * The same stream held inline by its owner: GSL's taus2 recurrence on three
 * 32-bit words (rng/taus.c, taus_get), so sim_taus2_get returns exactly what
 * gsl_rng_get returns on the sim_rng of the same identity, without an
 * allocation per stream or a call through GSL's type table per draw.  The
 * identity is registered like sim_rng's (a repeat aborts).
 */
struct sim_taus2 {
    uint32_t s1, s2, s3;
};
void sim_rng_inline(struct sim *s, const char *entity, uint32_t index, const char *purpose,
                    struct sim_taus2 *out);

static inline uint32_t sim_taus2_get(struct sim_taus2 *t)
{
    /* TAUSWORTHE(s, a, b, c, d) = ((s & c) << d) ^ (((s << a) ^ s) >> b), mod 2^32 */
    t->s1 = ((t->s1 & 4294967294u) << 12) ^ (((t->s1 << 13) ^ t->s1) >> 19);
    t->s2 = ((t->s2 & 4294967288u) << 4) ^ (((t->s2 << 2) ^ t->s2) >> 25);
    t->s3 = ((t->s3 & 4294967280u) << 17) ^ (((t->s3 << 3) ^ t->s3) >> 11);
    return t->s1 ^ t->s2 ^ t->s3;
}

/*
 * The taus2 state words (s1, s2, s3) sim_rng starts the identity's stream
 * from (exposed for tests).  Each word's low bits, which taus2 ignores, are
 * zero, so distinct triples are distinct streams; s1 >= 2, s2 >= 8, s3 >= 16.
 */
void sim_rng_state(uint64_t seed, const char *entity, uint32_t index, const char *purpose,
                   uint32_t out[3]);

/* 64-bit finaliser (MurmurHash3 fmix64): seeds and stable ids. */
static inline uint64_t sim_fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/* FNV-1a of a string, for stable hashes. */
uint64_t sim_hash_str(const char *str);

#endif
