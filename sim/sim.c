#include "sim.h"

#include <string.h>
#include <gsl/gsl_errno.h>

#include "err.h"

struct sim_rng_entry {
    unsigned long seed; /* 0 = empty */
    uint64_t id;
    gsl_rng *rng;
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
    for (uint32_t i = 0; i < s->rng_cap; i++)
        if (s->rngs[i].rng)
            gsl_rng_free(s->rngs[i].rng);
    free(s->rngs);
    for (uint32_t i = 0; i < s->n_arena; i++)
        free(s->arena[i]);
    free(s->arena);
    free(s);
}

void *sim_alloc(struct sim *s, size_t n, size_t size)
{
    void *p = sim_xcalloc(n, size);
    s->arena = sim_xrealloc(s->arena, s->n_arena + 1, sizeof *s->arena);
    s->arena[s->n_arena++] = p;
    return p;
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

static uint64_t stream_id(const char *entity, uint32_t index, const char *purpose)
{
    return sim_fmix64(sim_hash_str(entity) ^ sim_fmix64(sim_hash_str(purpose) + index));
}

unsigned long sim_rng_seed(uint64_t seed, const char *entity, uint32_t index, const char *purpose)
{
    uint64_t h = sim_fmix64(seed ^ sim_fmix64(stream_id(entity, index, purpose)));
    unsigned long s32 = (unsigned long)(h ^ (h >> 32)) & 0xffffffffu;
    return s32 ? s32 : 0x9e3779b9u; /* taus2 treats 0 as "default seed" */
}

gsl_rng *sim_rng(struct sim *s, const char *entity, uint32_t index, const char *purpose)
{
    if (s->n_rngs * 2 >= s->rng_cap) {
        uint32_t cap = s->rng_cap ? s->rng_cap * 2 : 256;
        struct sim_rng_entry *t = sim_xcalloc(cap, sizeof *t);
        for (uint32_t i = 0; i < s->rng_cap; i++) {
            if (!s->rngs[i].seed)
                continue;
            uint32_t j = (uint32_t)sim_fmix64(s->rngs[i].seed) & (cap - 1);
            while (t[j].seed)
                j = (j + 1) & (cap - 1);
            t[j] = s->rngs[i];
        }
        free(s->rngs);
        s->rngs = t;
        s->rng_cap = cap;
    }
    uint64_t id = stream_id(entity, index, purpose);
    unsigned long seed = sim_rng_seed(s->seed, entity, index, purpose);
    uint32_t j = (uint32_t)sim_fmix64(seed) & (s->rng_cap - 1);
    while (s->rngs[j].seed) {
        if (s->rngs[j].seed == seed)
            sim_panic(__FILE__, __LINE__, "random stream %s[%u].%s %s", entity, index, purpose,
                      s->rngs[j].id == id ? "requested twice" : "shares its seed with another stream");
        j = (j + 1) & (s->rng_cap - 1);
    }
    gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(r, seed);
    s->rngs[j] = (struct sim_rng_entry){seed, id, r};
    s->n_rngs++;
    return r;
}
