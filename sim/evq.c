#include "evq.h"

#include <string.h>

#include "err.h"

#define EVQ_LIVE 0xffffffffu
#define EVQ_DEAD 0xfffffffeu

static void slots_grow(struct evq *q)
{
    uint32_t old = q->slot_cap;
    SIM_ASSERT(old < EVQ_SLOT_MAX);
    uint32_t cap = old ? old * 2 : 64;
    if (cap > EVQ_SLOT_MAX + 1)
        cap = EVQ_SLOT_MAX + 1;
    q->slot = sim_xrealloc(q->slot, cap, sizeof *q->slot);
    memset(q->slot + old, 0, (cap - old) * sizeof *q->slot);
    uint32_t first = old ? old : 1; /* slot 0 is the null handle */
    for (uint32_t i = first; i < cap - 1; i++)
        q->slot[i].next_free = i + 1;
    q->slot[cap - 1].next_free = 0;
    q->free_head = first;
    q->slot_cap = cap;
}

void evq_init(struct evq *q)
{
    memset(q, 0, sizeof *q);
    q->cap = 1024;
    q->heap = sim_xcalloc(q->cap, sizeof *q->heap);
}

void evq_fini(struct evq *q)
{
    free(q->heap);
    free(q->slot);
    memset(q, 0, sizeof *q);
}

static inline bool entry_less(const struct evq_entry *a, const struct evq_entry *b)
{
    return a->t < b->t || (a->t == b->t && a->key < b->key);
}

/* (t, key) as one 128-bit number: comparing it compiles to a compare and a
 * subtract-with-borrow, so the child tournament below needs no branches
 * (mispredicted child comparisons were the heap's main cost). */
static inline unsigned __int128 entry_rank(const struct evq_entry *e)
{
    return (unsigned __int128)e->t << 64 | e->key;
}

/* The smallest of h[c .. c+3] (all present), without branches. */
static inline uint32_t min_of_four(const struct evq_entry *h, uint32_t c)
{
    unsigned __int128 r0 = entry_rank(&h[c]), r1 = entry_rank(&h[c + 1]);
    unsigned __int128 r2 = entry_rank(&h[c + 2]), r3 = entry_rank(&h[c + 3]);
    uint32_t a = r1 < r0 ? c + 1 : c, b = r3 < r2 ? c + 3 : c + 2;
    unsigned __int128 ra = r1 < r0 ? r1 : r0, rb = r3 < r2 ? r3 : r2;
    return rb < ra ? b : a;
}

/*
 * Fill the hole at the root with e.  Floyd's bottom-up order: the hole first
 * follows the smallest children down to a leaf, then e climbs back from
 * there.  A new or refilled entry is usually later than most pending ones,
 * so it belongs near the leaves: this skips the comparison with e at every
 * level on the way down (an unpredictable branch) for a short climb at the
 * end.  Ranks are unique (the insertion key), so any valid heap pops the
 * same sequence.
 */
static void sift_down_root(struct evq *q, const struct evq_entry *e)
{
    struct evq_entry *h = q->heap;
    uint32_t n = q->n, i = 0;
    for (;;) {
        uint32_t c = 4 * i + 1;
        if (c + 4 <= n) {
            uint32_t best = min_of_four(h, c);
            h[i] = h[best];
            i = best;
            continue;
        }
        if (c < n) { /* the last, partial group: its children are past n */
            uint32_t best = c;
            unsigned __int128 rb = entry_rank(&h[c]);
            for (uint32_t k = c + 1; k < n; k++) {
                unsigned __int128 rk = entry_rank(&h[k]);
                if (rk < rb) {
                    best = k;
                    rb = rk;
                }
            }
            h[i] = h[best];
            i = best;
        }
        break;
    }
    unsigned __int128 re = entry_rank(e);
    while (i > 0) {
        uint32_t p = (i - 1) / 4;
        if (re >= entry_rank(&h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = *e;
}

static void sift_up(struct evq *q, uint32_t i, const struct evq_entry *e)
{
    struct evq_entry *h = q->heap;
    while (i > 0) {
        uint32_t p = (i - 1) / 4;
        if (!entry_less(e, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = *e;
}

/* Refill a root hole left by evq_pop with the last entry. */
static void fill_hole(struct evq *q)
{
    q->hole = false;
    q->n--;
    if (q->n > 0)
        sift_down_root(q, &q->heap[q->n]);
}

static void insert(struct evq *q, const struct evq_entry *e)
{
    q->live++;
    if (q->hole) {
        /* replace-top: the new entry takes the popped root's place */
        q->hole = false;
        sift_down_root(q, e);
        return;
    }
    if (q->n == q->cap) {
        q->cap *= 2;
        q->heap = sim_xrealloc(q->heap, q->cap, sizeof *q->heap);
    }
    sift_up(q, q->n++, e);
}

void evq_push(struct evq *q, sim_time_t t, sim_event_fn fn, void *obj, uint64_t arg)
{
    SIM_ASSERT(q->seq < (1ull << (64 - EVQ_SLOT_BITS)));
    struct evq_entry e = {t, q->seq++ << EVQ_SLOT_BITS, {fn, obj, arg}};
    insert(q, &e);
}

struct sim_handle evq_push_cancellable(struct evq *q, sim_time_t t, sim_event_fn fn, void *obj,
                                       uint64_t arg)
{
    if (q->free_head == 0)
        slots_grow(q);
    uint32_t s = q->free_head;
    q->free_head = q->slot[s].next_free;
    q->slot[s].next_free = EVQ_LIVE;
    SIM_ASSERT(q->seq < (1ull << (64 - EVQ_SLOT_BITS)));
    struct evq_entry e = {t, (q->seq++ << EVQ_SLOT_BITS) | s, {fn, obj, arg}};
    insert(q, &e);
    return (struct sim_handle){s, q->slot[s].gen};
}

static inline void slot_free(struct evq *q, uint32_t s)
{
    q->slot[s].gen++;
    q->slot[s].next_free = q->free_head;
    q->free_head = s;
}

bool evq_cancel(struct evq *q, struct sim_handle h)
{
    if (h.slot == 0 || h.slot >= q->slot_cap)
        return false;
    struct evq_slot *sl = &q->slot[h.slot];
    if (sl->gen != h.gen || sl->next_free != EVQ_LIVE)
        return false;
    sl->next_free = EVQ_DEAD; /* freed when its heap entry surfaces */
    q->live--;
    return true;
}

/* Drop cancelled entries from the root; false when the queue is empty. */
static bool settle_root(struct evq *q)
{
    for (;;) {
        if (q->hole)
            fill_hole(q);
        if (q->n == 0)
            return false;
        uint32_t s = (uint32_t)(q->heap[0].key & EVQ_SLOT_MAX);
        if (!s || q->slot[s].next_free != EVQ_DEAD)
            return true;
        slot_free(q, s);
        q->hole = true;
    }
}

bool evq_pop(struct evq *q, sim_time_t until, sim_time_t *t, struct evq_event *out)
{
    if (!settle_root(q) || q->heap[0].t > until)
        return false;
    const struct evq_entry *top = &q->heap[0];
    uint32_t s = (uint32_t)(top->key & EVQ_SLOT_MAX);
    if (s)
        slot_free(q, s);
    *t = top->t;
    *out = top->ev;
    q->hole = true;
    q->live--;
    return true;
}

sim_time_t evq_peek_time(struct evq *q)
{
    return settle_root(q) ? q->heap[0].t : SIM_TIME_MAX;
}
