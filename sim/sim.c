#include "sim.h"

#include <string.h>
#include <gsl/gsl_errno.h>

#include "err.h"

/*
 * Generators are carved from blocks in the sim's arena rather than
 * gsl_rng_alloc'd one by one (two mallocs each): a 1,000-OSD cluster has
 * 25,000 streams, a 64,000-OSD one 1.6 million.
 */
enum { SIM_RNG_BLOCK = 1024 };
struct sim_rng_block {
    gsl_rng rng[SIM_RNG_BLOCK];
    unsigned long state[SIM_RNG_BLOCK][3]; /* GSL's taus_state_t: s1, s2, s3 */
};

struct sim_table {
    const char *kind;
    double param;
    void *data;
};

struct sim *sim_create(uint64_t seed)
{
    struct sim *s = sim_xcalloc(1, sizeof *s);
    evq_init(&s->q);
    s->seed = seed;
    /* GSL's default handler aborts; models check return codes instead. */
    gsl_set_error_handler_off();
    return s;
}

void sim_destroy(struct sim *s)
{
    if (!s)
        return;
    evq_fini(&s->q);
    for (uint32_t i = 0; i < s->n_waiter_blocks; i++)
        free(s->waiter_blocks[i]);
    free(s->waiter_blocks);
    free(s->rng_ids);
    for (uint32_t i = 0; i < s->n_rng_names; i++)
        free(s->rng_names[i]);
    free(s->rng_names);
    for (uint32_t i = 0; i < s->n_arena; i++)
        free(s->arena[i]);
    free(s->arena);
    free(s->tables);
    free(s);
}

void *sim_shared_table(struct sim *s, const char *kind, double param, size_t bytes, bool *fresh)
{
    for (uint32_t i = 0; i < s->n_tables; i++)
        if (!strcmp(s->tables[i].kind, kind) && s->tables[i].param == param) {
            *fresh = false;
            return s->tables[i].data;
        }
    s->tables = sim_xrealloc(s->tables, s->n_tables + 1, sizeof *s->tables);
    struct sim_table *t = &s->tables[s->n_tables++];
    *t = (struct sim_table){.kind = kind, .param = param, .data = sim_alloc(s, 1, bytes)};
    *fresh = true;
    return t->data;
}

void *sim_alloc(struct sim *s, size_t n, size_t size)
{
    void *p = sim_xcalloc(n, size);
    s->arena = sim_xrealloc(s->arena, s->n_arena + 1, sizeof *s->arena);
    s->arena[s->n_arena++] = p;
    return p;
}

void sim_release(struct sim *s, void *p)
{
    for (uint32_t i = s->n_arena; i-- > 0;) /* the latest first: a replaced table is usually recent */
        if (s->arena[i] == p) {
            free(p);
            s->arena[i] = s->arena[--s->n_arena];
            return;
        }
    SIM_ASSERT(!"sim_release: not from sim_alloc");
}

void sim_schedule_at(struct sim *s, sim_time_t t, sim_event_fn fn, void *obj, uint64_t arg)
{
    SIM_ASSERT(t >= s->now);
    evq_push(&s->q, t, fn, obj, arg);
}

uint64_t sim_run(struct sim *s, sim_time_t until)
{
    uint64_t n = 0;
    struct evq_event ev;
    sim_time_t t;
    s->stop = false;
    while (!s->stop && evq_pop(&s->q, until, &t, &ev)) {
        s->now = t;
        ev.fn(s, ev.obj, ev.arg);
        n++;
    }
    s->events += n;
    if (!s->stop && until != SIM_TIME_MAX && s->now < until)
        s->now = until;
    return n;
}

struct sim_waiter *sim_waiter_get(struct sim *s)
{
    if (__builtin_expect(!s->waiter_free, 0)) {
        enum { BLOCK = 1024 };
        struct sim_waiter *b = sim_xcalloc(BLOCK, sizeof *b);
        s->waiter_blocks = sim_xrealloc(s->waiter_blocks, s->n_waiter_blocks + 1, sizeof *s->waiter_blocks);
        s->waiter_blocks[s->n_waiter_blocks++] = b;
        for (int i = 0; i < BLOCK - 1; i++)
            b[i].next = &b[i + 1];
        b[BLOCK - 1].next = NULL;
        s->waiter_free = b;
    }
    struct sim_waiter *w = s->waiter_free;
    s->waiter_free = w->next;
    w->next = NULL;
    return w;
}

uint64_t sim_hash_str(const char *str)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *str; str++) {
        h ^= (unsigned char)*str;
        h *= 0x100000001b3ull;
    }
    return h;
}

/*
 * Stream state.  A 128-bit sponge keyed by the seed absorbs the identity as
 * 64-bit words: [strlen(entity) << 32 | index], entity bytes, [strlen(purpose)],
 * purpose bytes (little-endian, zero-padded; the lengths make the encoding
 * injective and prefix-free).  Nothing is folded to 32 or 64 bits on the way.
 * Each absorb XORs a word into lane a and applies mix128, a 4-round Feistel
 * network with fmix64 round functions, which is a permutation of the 128 bits;
 * so identities differing only in the index (or in any one word) always reach
 * different 128-bit states.  88 bits of the final state become the three taus2
 * words; two of n streams share them with probability < n^2 / 2^89.
 */
static const uint64_t sim_rng_round[4] = {0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull,
                                          0x94d049bb133111ebull, 0xd6e8feb86659fd93ull};

static void mix128(uint64_t *a, uint64_t *b)
{
    for (int r = 0; r < 4; r += 2) {
        *b ^= sim_fmix64(*a + sim_rng_round[r]);
        *a ^= sim_fmix64(*b + sim_rng_round[r + 1]);
    }
}

static void absorb(uint64_t *a, uint64_t *b, uint64_t w)
{
    *a ^= w;
    mix128(a, b);
}

static void absorb_bytes(uint64_t *a, uint64_t *b, const char *str, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8 && i + k < n; k++)
            w |= (uint64_t)(unsigned char)str[i + k] << (8 * k);
        absorb(a, b, w);
    }
}

void sim_rng_state(uint64_t seed, const char *entity, uint32_t index, const char *purpose,
                   uint32_t out[3])
{
    size_t ne = strlen(entity), np = strlen(purpose);
    SIM_ASSERT(ne < 1u << 31 && np < 1u << 31);
    uint64_t a = seed, b = 0x6a09e667f3bcc908ull; /* an arbitrary IV: sqrt(2) */
    mix128(&a, &b);
    absorb(&a, &b, (uint64_t)ne << 32 | index);
    absorb_bytes(&a, &b, entity, ne);
    absorb(&a, &b, np);
    absorb_bytes(&a, &b, purpose, np);
    /*
     * GSL 2.7.1 taus2 (rng/taus.c): each word's recurrence reads only its top
     * 31, 29 and 28 bits (s1 & ~1, s2 & ~7, s3 & ~15), and taus2_set keeps
     * s1 >= 2, s2 >= 8, s3 >= 16 so that none of those parts is zero (a zero
     * part stays zero).  Take 31 + 29 + 28 = 88 bits, leave the ignored low
     * bits zero so that one stream has one triple, and permute again in the
     * (p < 2^-27) case of a zero part.  taus2_set's six warm-up steps only
     * decorrelate its LCG-derived words and are a bijection of the state;
     * hashed words need none.
     */
    for (;;) {
        mix128(&a, &b);
        out[0] = (uint32_t)(a >> 32) & ~1u;
        out[1] = (uint32_t)a & ~7u;
        out[2] = (uint32_t)(b >> 32) & ~15u;
        if (out[0] && out[1] && out[2])
            return;
    }
}

/* The interned id (>= 1) of a stream's entity or purpose string. */
static uint64_t rng_name_id(struct sim *s, const char *name)
{
    for (uint32_t i = 0; i < s->n_rng_names; i++)
        if (!strcmp(s->rng_names[i], name))
            return i + 1;
    SIM_ASSERT(s->n_rng_names < UINT16_MAX);
    s->rng_names = sim_xrealloc(s->rng_names, s->n_rng_names + 1, sizeof *s->rng_names);
    s->rng_names[s->n_rng_names++] = sim_xstrdup(name);
    return s->n_rng_names;
}

static uint32_t rng_slot(uint64_t id, uint32_t cap)
{
    return (uint32_t)sim_fmix64(id) & (cap - 1);
}

/* Record the identity's stream as issued; a repeat is a model bug. */
static void rng_register(struct sim *s, const char *entity, uint32_t index, const char *purpose)
{
    if (s->n_rngs * 2 >= s->rng_cap) {
        uint32_t cap = s->rng_cap ? s->rng_cap * 2 : 256;
        uint64_t *t = sim_xcalloc(cap, sizeof *t);
        for (uint32_t i = 0; i < s->rng_cap; i++) {
            if (!s->rng_ids[i])
                continue;
            uint32_t j = rng_slot(s->rng_ids[i], cap);
            while (t[j])
                j = (j + 1) & (cap - 1);
            t[j] = s->rng_ids[i];
        }
        free(s->rng_ids);
        s->rng_ids = t;
        s->rng_cap = cap;
    }
    /* the exact identity, not a hash of it: only a true duplicate can match */
    uint64_t id = rng_name_id(s, entity) << 48 | rng_name_id(s, purpose) << 32 | index;
    uint32_t j = rng_slot(id, s->rng_cap);
    while (s->rng_ids[j]) {
        if (s->rng_ids[j] == id)
            sim_panic(__FILE__, __LINE__, "random stream %s[%u].%s requested twice", entity, index,
                      purpose);
        j = (j + 1) & (s->rng_cap - 1);
    }
    s->rng_ids[j] = id;
    s->n_rngs++;
}

void sim_rng_inline(struct sim *s, const char *entity, uint32_t index, const char *purpose,
                    struct sim_taus2 *out)
{
    rng_register(s, entity, index, purpose);
    uint32_t w[3];
    sim_rng_state(s->seed, entity, index, purpose, w);
    *out = (struct sim_taus2){w[0], w[1], w[2]};
}

gsl_rng *sim_rng(struct sim *s, const char *entity, uint32_t index, const char *purpose)
{
    rng_register(s, entity, index, purpose);
    if (!s->rng_block || s->rng_block_used == SIM_RNG_BLOCK) {
        SIM_ASSERT(gsl_rng_taus2->size == sizeof s->rng_block->state[0]);
        s->rng_block = sim_alloc(s, 1, sizeof *s->rng_block);
        s->rng_block_used = 0;
    }
    uint32_t k = s->rng_block_used++;
    gsl_rng *r = &s->rng_block->rng[k];
    r->type = gsl_rng_taus2;
    r->state = s->rng_block->state[k];
    uint32_t w[3];
    sim_rng_state(s->seed, entity, index, purpose, w);
    unsigned long *st = gsl_rng_state(r);
    for (int i = 0; i < 3; i++)
        st[i] = w[i];
    return r;
}
