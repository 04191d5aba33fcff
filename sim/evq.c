#include "evq.h"

#include <string.h>

#include "err.h"

#define EVQ_LIVE 0xffffffffu
#define EVQ_DEAD 0xfffffffeu

static void slots_grow(struct evq *q)
{
    uint32_t old = q->slot_cap;
    SIM_ASSERT(old < EVQ_SLOT_MAX);
    uint64_t want = old ? (uint64_t)old * 2 : 64;
    uint32_t cap = want > EVQ_SLOT_MAX + 1ull ? EVQ_SLOT_MAX + 1 : (uint32_t)want;
    q->slot = sim_xrealloc(q->slot, cap, sizeof *q->slot);
    memset(q->slot + old, 0, (cap - old) * sizeof *q->slot);
    uint32_t first = old ? old : 1; /* slot 0 is the null handle */
    for (uint32_t i = first; i < cap - 1; i++)
        q->slot[i].next_free = i + 1;
    q->slot[cap - 1].next_free = 0;
    q->free_head = first;
    q->slot_cap = cap;
}

_Static_assert(sizeof(struct evq_entry) == 32, "two heap entries per cache line");

/* (Re)allocate the heap for cap entries, keeping the first n: the memory is
   64-byte aligned and heap = memory + 1 entry, so the children 4i+1 .. 4i+4
   of any node start on a line and fill exactly two. */
static void heap_alloc(struct evq *q, uint32_t cap)
{
    struct evq_entry *mem = sim_xcalloc_aligned((size_t)cap + 1, sizeof *mem, 64);
    if (q->heap)
        memcpy(mem + 1, q->heap, (size_t)q->n * sizeof *mem);
    free(q->heap_mem);
    q->heap_mem = mem;
    q->heap = mem + 1;
    q->cap = cap;
}

void evq_init(struct evq *q)
{
    memset(q, 0, sizeof *q);
    heap_alloc(q, 1024);
    q->n_fns = 1; /* id 0 is EVQ_FN_SLOT */
    q->fn_hash_bits = 8;
    q->fn_hash = sim_xcalloc(1u << q->fn_hash_bits, sizeof *q->fn_hash);
}

void evq_fini(struct evq *q)
{
    free(q->heap_mem);
    free(q->slot);
    free(q->fns);
    free(q->fn_hash);
    memset(q, 0, sizeof *q);
}

/* Fibonacci hashing of the handler's address onto the table's 2^bits slots. */
static inline uint32_t fn_hash(sim_event_fn fn, uint32_t bits)
{
    return (uint32_t)(((uint64_t)(uintptr_t)fn * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

static void fn_hash_put(struct evq *q, sim_event_fn fn, uint32_t id)
{
    uint32_t mask = (1u << q->fn_hash_bits) - 1, h = fn_hash(fn, q->fn_hash_bits);
    while (q->fn_hash[h].fn)
        h = (h + 1) & mask;
    q->fn_hash[h] = (struct evq_fn_entry){fn, id};
}

/* The handler's id when it is not in its home slot: further probes, or a new id. */
static __attribute__((noinline)) uint32_t fn_id_slow(struct evq *q, sim_event_fn fn)
{
    uint32_t mask = (1u << q->fn_hash_bits) - 1;
    for (uint32_t h = fn_hash(fn, q->fn_hash_bits);; h = (h + 1) & mask) {
        if (q->fn_hash[h].fn == fn)
            return q->fn_hash[h].id;
        if (!q->fn_hash[h].fn)
            break;
    }
    SIM_ASSERT(q->n_fns <= EVQ_FN_MASK);
    if (q->n_fns >= q->fns_cap) {
        q->fns_cap = q->fns_cap ? q->fns_cap * 2 : 64;
        q->fns = sim_xrealloc(q->fns, q->fns_cap, sizeof *q->fns);
    }
    uint32_t id = q->n_fns++;
    q->fns[id] = fn;
    /* at most a quarter full, so that nearly every handler sits in its home
       slot (one probe on the push path): rebuild at twice the size */
    if (4 * (q->n_fns - 1) > 1u << q->fn_hash_bits) {
        q->fn_hash_bits++;
        free(q->fn_hash);
        q->fn_hash = sim_xcalloc(1u << q->fn_hash_bits, sizeof *q->fn_hash);
        for (uint32_t k = 1; k < q->n_fns; k++)
            fn_hash_put(q, q->fns[k], k);
    } else {
        fn_hash_put(q, fn, id);
    }
    return id;
}

/* The handler's id, registering it on first sight. */
static inline uint32_t fn_id(struct evq *q, sim_event_fn fn)
{
    const struct evq_fn_entry *e = &q->fn_hash[fn_hash(fn, q->fn_hash_bits)];
    return __builtin_expect(e->fn == fn, 1) ? e->id : fn_id_slow(q, fn);
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

/* The offset (0..3) of the smallest of g[0 .. 3], without branches.  g points
   at the group so that the four loads are displacements off one register (an
   index into the heap had the compiler rebuild each child's address). */
static inline size_t min_of_four(const struct evq_entry *g)
{
    unsigned __int128 r0 = entry_rank(&g[0]), r1 = entry_rank(&g[1]);
    unsigned __int128 r2 = entry_rank(&g[2]), r3 = entry_rank(&g[3]);
    size_t a = r1 < r0, b = 2 + (r3 < r2);
    unsigned __int128 ra = r1 < r0 ? r1 : r0, rb = r3 < r2 ? r3 : r2;
    /* a mask, not ?: - the compiler turned that last choice into a branch */
    size_t take_b = -(size_t)(rb < ra);
    return a ^ ((a ^ b) & take_b);
}

/* The smallest of h[c .. end - 1] (end > c), by a plain scan; its rank in *rank. */
static inline size_t min_child(const struct evq_entry *h, size_t c, size_t end, unsigned __int128 *rank)
{
    size_t best = c;
    unsigned __int128 rb = entry_rank(&h[c]);
    for (size_t k = c + 1; k < end; k++) {
        unsigned __int128 rk = entry_rank(&h[k]);
        if (rk < rb) {
            best = k;
            rb = rk;
        }
    }
    *rank = rb;
    return best;
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
    size_t n = q->n, i = 0;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c + 4 <= n) {
            size_t best = c + min_of_four(h + c);
            h[i] = h[best];
            i = best;
            continue;
        }
        if (c < n) { /* the last, partial group: its children are past n */
            unsigned __int128 rb;
            size_t best = min_child(h, c, n, &rb);
            h[i] = h[best];
            i = best;
        }
        break;
    }
    unsigned __int128 re = entry_rank(e);
    while (i > 0) {
        size_t p = (i - 1) / 4;
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
        SIM_ASSERT(q->cap < UINT32_MAX / 2);
        heap_alloc(q, q->cap * 2);
    }
    sift_up(q, q->n++, e);
}

void evq_push(struct evq *q, sim_time_t t, sim_event_fn fn, void *obj, uint64_t arg)
{
    SIM_ASSERT(q->seq < EVQ_SEQ_MAX);
    struct evq_entry e = {t, q->seq++ << EVQ_FN_BITS | fn_id(q, fn), obj, arg};
    insert(q, &e);
}

uint64_t evq_take_seq(struct evq *q)
{
    SIM_ASSERT(q->seq < EVQ_SEQ_MAX);
    return q->seq++;
}

void evq_push_seq(struct evq *q, sim_time_t t, uint64_t seq, sim_event_fn fn, void *obj, uint64_t arg)
{
    SIM_ASSERT(seq < q->seq);
    struct evq_entry e = {t, seq << EVQ_FN_BITS | fn_id(q, fn), obj, arg};
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
    q->slot[s].ev = (struct evq_event){fn, obj, arg};
    SIM_ASSERT(q->seq < EVQ_SEQ_MAX);
    struct evq_entry e = {t, q->seq++ << EVQ_FN_BITS | EVQ_FN_SLOT, NULL, s};
    insert(q, &e);
    return (struct sim_handle){s, q->slot[s].gen};
}

static inline void slot_free(struct evq *q, uint32_t s)
{
    q->slot[s].gen++;
    q->slot[s].next_free = q->free_head;
    q->free_head = s;
}

static inline bool entry_dead(const struct evq *q, const struct evq_entry *e)
{
    return (e->key & EVQ_FN_MASK) == EVQ_FN_SLOT && q->slot[(uint32_t)e->arg].next_free == EVQ_DEAD;
}

/* Sift h[i] down to its place (top-down: from anywhere, for the rebuild). */
static void sift_down_at(struct evq *q, size_t i)
{
    struct evq_entry *h = q->heap;
    size_t n = q->n;
    struct evq_entry e = h[i];
    unsigned __int128 re = entry_rank(&e);
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        unsigned __int128 rb;
        size_t best = min_child(h, c, c + 4 < n ? c + 4 : n, &rb);
        if (re <= rb)
            break;
        h[i] = h[best];
        i = best;
    }
    h[i] = e;
}

/* Drop every cancelled entry and rebuild the heap bottom-up (Floyd).  Ranks
   are unique, so the pops that follow are the same as without it. */
static void compact(struct evq *q)
{
    if (q->hole)
        fill_hole(q);
    uint32_t w = 0;
    for (uint32_t i = 0; i < q->n; i++) {
        if (entry_dead(q, &q->heap[i])) {
            slot_free(q, (uint32_t)q->heap[i].arg);
            continue;
        }
        q->heap[w++] = q->heap[i];
    }
    q->n = w;
    q->dead = 0;
    if (w > 1)
        for (size_t i = (w - 2) / 4 + 1; i-- > 0;)
            sift_down_at(q, i);
}

bool evq_cancel(struct evq *q, struct sim_handle h)
{
    if (h.slot == 0 || h.slot >= q->slot_cap)
        return false;
    struct evq_slot *sl = &q->slot[h.slot];
    if (sl->gen != h.gen || sl->next_free != EVQ_LIVE)
        return false;
    sl->next_free = EVQ_DEAD; /* freed when its heap entry surfaces, or in a rebuild */
    q->live--;
    if (++q->dead > 64 && q->dead > q->live) /* a heap this small is not worth a rebuild */
        compact(q);
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
        if ((q->heap[0].key & EVQ_FN_MASK) != EVQ_FN_SLOT)
            return true;
        uint32_t s = (uint32_t)q->heap[0].arg;
        if (q->slot[s].next_free != EVQ_DEAD)
            return true;
        slot_free(q, s);
        q->dead--;
        q->hole = true;
    }
}

bool evq_pop(struct evq *q, sim_time_t until, sim_time_t *t, struct evq_event *out)
{
    if (!settle_root(q) || q->heap[0].t > until)
        return false;
    const struct evq_entry *top = &q->heap[0];
    uint32_t id = (uint32_t)(top->key & EVQ_FN_MASK);
    *t = top->t;
    q->cur_seq = top->key >> EVQ_FN_BITS;
    if (id != EVQ_FN_SLOT) {
        *out = (struct evq_event){q->fns[id], top->obj, top->arg};
    } else {
        uint32_t s = (uint32_t)top->arg;
        *out = q->slot[s].ev;
        slot_free(q, s);
    }
    /* The next event is most likely one of the root's children: start
       fetching their objects now, while this one's handler runs (at 1,000
       OSDs an event's object is an L2 miss more often than not). */
    for (int c = 1; c <= 4; c++)
        __builtin_prefetch(q->heap[c].obj);
    q->hole = true;
    q->live--;
    return true;
}

sim_time_t evq_peek_time(struct evq *q)
{
    return settle_root(q) ? q->heap[0].t : SIM_TIME_MAX;
}
