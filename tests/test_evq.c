/*
 * test_evq.c - the pending-event set and the simulator loop (sim/evq.c,
 * sim/sim.c): order by time, FIFO ties (also for events scheduled at now from
 * a handler), cancellation by handle, the replace-top path, a randomised run
 * against a sorted reference, bounded memory under a bounded population,
 * sim_run(until), sim_stop and two simulators in one process.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "evq.h"
#include "pool.h"
#include "sim.h"

/* splitmix64: a test-local generator, independent of the code under test. */
static uint64_t mix_next(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t mix_below(uint64_t *st, uint64_t n) { return mix_next(st) % n; }

/* Events record (time, arg) into a trace; the handler is a no-op otherwise. */
struct trace {
    uint32_t n, cap;
    sim_time_t *t;
    uint64_t *arg;
};

static void trace_init(struct trace *tr, uint32_t cap)
{
    tr->n = 0;
    tr->cap = cap;
    tr->t = sim_xcalloc(cap, sizeof *tr->t);
    tr->arg = sim_xcalloc(cap, sizeof *tr->arg);
}

static void trace_fini(struct trace *tr)
{
    free(tr->t);
    free(tr->arg);
}

static void trace_add(struct trace *tr, sim_time_t t, uint64_t arg)
{
    SIM_ASSERT(tr->n < tr->cap);
    tr->t[tr->n] = t;
    tr->arg[tr->n] = arg;
    tr->n++;
}

static void ev_record(struct sim *s, void *obj, uint64_t arg)
{
    trace_add(obj, sim_now(s), arg);
}

/* evq handlers are never called by the evq tests themselves. */
static void ev_nop(struct sim *s, void *obj, uint64_t arg) {}

/* Pop everything (no time limit) into a trace. */
static void drain(struct evq *q, struct trace *tr)
{
    sim_time_t t;
    struct evq_event ev;
    while (evq_pop(q, SIM_TIME_MAX, &t, &ev))
        trace_add(tr, t, ev.arg);
}

/* ---- ordering ---- */

static void test_evq_orders_by_time(void **state)
{
    struct evq q;
    evq_init(&q);
    /* 5000 distinct times 0, 7, 14, ... pushed in a random permutation */
    enum { N = 5000 };
    uint32_t perm[N];
    for (uint32_t i = 0; i < N; i++)
        perm[i] = i;
    uint64_t rs = 1;
    for (uint32_t i = N - 1; i > 0; i--) {
        uint32_t j = (uint32_t)mix_below(&rs, i + 1);
        uint32_t x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    for (uint32_t i = 0; i < N; i++)
        evq_push(&q, 7 * (sim_time_t)perm[i], ev_nop, NULL, perm[i]);
    assert_int_equal(evq_size(&q), N);
    assert_int_equal(evq_peek_time(&q), 0);
    struct trace tr;
    trace_init(&tr, N);
    drain(&q, &tr);
    assert_int_equal(tr.n, N);
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(tr.arg[i], i);
        assert_int_equal(tr.t[i], 7 * (sim_time_t)i);
    }
    assert_int_equal(evq_size(&q), 0);
    assert_int_equal(evq_peek_time(&q), SIM_TIME_MAX);
    trace_fini(&tr);
    evq_fini(&q);
}

static void test_evq_ties_run_in_insertion_order(void **state)
{
    struct evq q;
    evq_init(&q);
    /* 3000 events over 3 time values, pushed interleaved with 2 other times;
       within each time the pops must follow insertion order. */
    enum { N = 3000 };
    for (uint64_t i = 0; i < N; i++) {
        sim_time_t t = (i % 3 == 0) ? 100 : (i % 3 == 1) ? 50 : 200;
        if (i % 2)
            evq_push(&q, t, ev_nop, NULL, i);
        else
            evq_push_cancellable(&q, t, ev_nop, NULL, i); /* slot bits must not disturb order */
    }
    struct trace tr;
    trace_init(&tr, N);
    drain(&q, &tr);
    assert_int_equal(tr.n, N);
    uint32_t k = 0;
    const uint64_t first[3] = {1, 0, 2}; /* t=50 group starts at 1, t=100 at 0, t=200 at 2 */
    for (int g = 0; g < 3; g++)
        for (uint64_t i = first[g]; i < N; i += 3, k++)
            assert_int_equal(tr.arg[k], i);
    trace_fini(&tr);
    evq_fini(&q);
}

struct chain {
    struct trace tr;
    int spawned;
};

/* arg 0 (run first) schedules 100 and 101 at now; 100 schedules 102 at now. */
static void ev_spawn_at_now(struct sim *s, void *obj, uint64_t arg)
{
    struct chain *c = obj;
    trace_add(&c->tr, sim_now(s), arg);
    if (arg == 0) {
        sim_schedule(s, 0, ev_spawn_at_now, c, 100);
        sim_schedule(s, 0, ev_spawn_at_now, c, 101);
    } else if (arg == 100) {
        sim_schedule(s, 0, ev_spawn_at_now, c, 102);
    }
}

static void test_sim_schedule_at_now_from_handler_runs_after_queued(void **state)
{
    struct sim *s = sim_create(1);
    struct chain c = {0};
    trace_init(&c.tr, 64);
    /* five events queued at t=10, then one at t=11 */
    for (uint64_t i = 0; i < 5; i++)
        sim_schedule_at(s, 10, ev_spawn_at_now, &c, i);
    sim_schedule_at(s, 11, ev_spawn_at_now, &c, 50);
    assert_int_equal(sim_run(s, SIM_TIME_MAX), 9);
    const uint64_t want[] = {0, 1, 2, 3, 4, 100, 101, 102, 50};
    const sim_time_t want_t[] = {10, 10, 10, 10, 10, 10, 10, 10, 11};
    assert_int_equal(c.tr.n, 9);
    for (int i = 0; i < 9; i++) {
        assert_int_equal(c.tr.arg[i], want[i]);
        assert_int_equal(c.tr.t[i], want_t[i]);
    }
    trace_fini(&c.tr);
    sim_destroy(s);
}

/* ---- handlers: many distinct ones, as ids in the 32-byte entries ---- */

/* 200 handlers h_10 .. h_209, each recording its own number with the event's arg. */
struct handler_log {
    uint32_t n;
    uint32_t which[4096];
    uint64_t arg[4096];
};
#define HANDLER(k)                                                                      \
    static void h_##k(struct sim *s, void *obj, uint64_t arg)                           \
    {                                                                                   \
        struct handler_log *l = obj;                                                    \
        l->which[l->n] = k;                                                              \
        l->arg[l->n++] = arg;                                                           \
    }
#define H10(d) HANDLER(d##0) HANDLER(d##1) HANDLER(d##2) HANDLER(d##3) HANDLER(d##4) \
               HANDLER(d##5) HANDLER(d##6) HANDLER(d##7) HANDLER(d##8) HANDLER(d##9)
H10(1) H10(2) H10(3) H10(4) H10(5) H10(6) H10(7) H10(8) H10(9) H10(10)
H10(11) H10(12) H10(13) H10(14) H10(15) H10(16) H10(17) H10(18) H10(19) H10(20)
#define R10(d) h_##d##0, h_##d##1, h_##d##2, h_##d##3, h_##d##4, h_##d##5, h_##d##6, h_##d##7, h_##d##8, h_##d##9
static const sim_event_fn handlers[] = {R10(1),  R10(2),  R10(3),  R10(4),  R10(5),
                                        R10(6),  R10(7),  R10(8),  R10(9),  R10(10),
                                        R10(11), R10(12), R10(13), R10(14), R10(15),
                                        R10(16), R10(17), R10(18), R10(19), R10(20)};
enum { N_HANDLERS = sizeof handlers / sizeof handlers[0] };

/*
 * Every event runs its own handler with its own object and argument, however
 * many distinct handlers the queue has seen (its table of ids grows past its
 * first size at 64) and whether the event is cancellable (then the slot holds
 * it): 4,000 events in random order of time, handler and kind, every fifth
 * cancellable and every third of those cancelled, against the list of what
 * was pushed sorted by (time, push order).
 */
static void test_evq_many_handlers_each_event_runs_its_own(void **state)
{
    enum { N = 4000 };
    struct sim *s = sim_create(1);
    static struct handler_log log;
    log.n = 0;
    static uint32_t want_k[N];
    static uint64_t want_arg[N], want_t[N];
    static bool cancelled[N];
    uint64_t rs = 42;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t h = (uint32_t)mix_below(&rs, N_HANDLERS);
        if (i < N_HANDLERS) /* the first 200 pushes meet every handler once, in a shuffled order */
            h = (i * 137 + 11) % N_HANDLERS;
        want_k[i] = h;
        want_arg[i] = (uint64_t)h * 1000 + i;
        want_t[i] = mix_below(&rs, 500);
        cancelled[i] = false;
        if (i % 5 == 0) {
            struct sim_handle hd = sim_schedule_cancellable(s, want_t[i], handlers[h], &log, want_arg[i]);
            if (i % 3 == 0)
                cancelled[i] = sim_cancel(s, hd);
        } else {
            sim_schedule(s, want_t[i], handlers[h], &log, want_arg[i]);
        }
    }
    sim_run(s, SIM_TIME_MAX);
    /* reference: stable order by time of the events not cancelled */
    static uint32_t order[N];
    uint32_t m = 0;
    for (sim_time_t t = 0; t < 500; t++)
        for (uint32_t i = 0; i < N; i++)
            if (want_t[i] == t && !cancelled[i])
                order[m++] = i;
    assert_int_equal(log.n, m);
    for (uint32_t j = 0; j < m; j++) {
        assert_int_equal(log.which[j], want_k[order[j]] + 10); /* handler h_10 is handlers[0] */
        assert_int_equal(log.arg[j], want_arg[order[j]]);
    }
    sim_destroy(s);
}

/* ---- cancellation ---- */

static void test_evq_cancel_before_run_never_runs(void **state)
{
    struct sim *s = sim_create(1);
    struct trace tr;
    trace_init(&tr, 16);
    sim_schedule(s, 5, ev_record, &tr, 1);
    struct sim_handle h = sim_schedule_cancellable(s, 10, ev_record, &tr, 2);
    sim_schedule(s, 15, ev_record, &tr, 3);
    assert_int_not_equal(h.slot, 0);
    assert_int_equal(sim_pending(s), 3);
    assert_true(sim_cancel(s, h));
    assert_int_equal(sim_pending(s), 2);
    assert_int_equal(sim_run(s, SIM_TIME_MAX), 2);
    assert_int_equal(tr.n, 2);
    assert_int_equal(tr.arg[0], 1);
    assert_int_equal(tr.arg[1], 3);
    trace_fini(&tr);
    sim_destroy(s);
}

static void test_evq_cancel_root_then_peek_skips_it(void **state)
{
    struct evq q;
    evq_init(&q);
    struct sim_handle h = evq_push_cancellable(&q, 3, ev_nop, NULL, 1);
    evq_push(&q, 9, ev_nop, NULL, 2);
    assert_true(evq_cancel(&q, h));
    assert_int_equal(evq_peek_time(&q), 9);
    assert_int_equal(evq_size(&q), 1);
    sim_time_t t;
    struct evq_event ev;
    assert_false(evq_pop(&q, 8, &t, &ev)); /* 9 > until */
    assert_true(evq_pop(&q, 9, &t, &ev));
    assert_int_equal(t, 9);
    assert_int_equal(ev.arg, 2);
    assert_false(evq_pop(&q, SIM_TIME_MAX, &t, &ev));
    evq_fini(&q);
}

static void test_evq_cancel_after_run_returns_false(void **state)
{
    struct sim *s = sim_create(1);
    struct trace tr;
    trace_init(&tr, 4);
    struct sim_handle h = sim_schedule_cancellable(s, 10, ev_record, &tr, 7);
    assert_int_equal(sim_run(s, SIM_TIME_MAX), 1);
    assert_int_equal(tr.n, 1);
    assert_false(sim_cancel(s, h));
    assert_int_equal(sim_pending(s), 0);
    trace_fini(&tr);
    sim_destroy(s);
}

static void test_evq_cancel_twice_returns_false(void **state)
{
    struct evq q;
    evq_init(&q);
    struct sim_handle h = evq_push_cancellable(&q, 10, ev_nop, NULL, 0);
    evq_push(&q, 20, ev_nop, NULL, 1);
    assert_true(evq_cancel(&q, h));
    assert_false(evq_cancel(&q, h));
    assert_int_equal(evq_size(&q), 1);
    struct trace tr;
    trace_init(&tr, 4);
    drain(&q, &tr);
    assert_false(evq_cancel(&q, h)); /* and still false once the dead entry surfaced */
    assert_int_equal(tr.n, 1);
    assert_int_equal(tr.arg[0], 1);
    trace_fini(&tr);
    evq_fini(&q);
}

static void test_evq_null_handle_cancel_returns_false(void **state)
{
    struct evq q;
    evq_init(&q);
    evq_push(&q, 1, ev_nop, NULL, 0);
    assert_false(evq_cancel(&q, (struct sim_handle){0, 0}));
    assert_false(evq_cancel(&q, (struct sim_handle){12345, 0})); /* never issued */
    assert_int_equal(evq_size(&q), 1);
    evq_fini(&q);
}

static void test_evq_stale_handle_after_slot_reuse(void **state)
{
    struct evq q;
    evq_init(&q);
    sim_time_t t;
    struct evq_event ev;

    /* run, then reuse: the slot of an executed event */
    struct sim_handle h1 = evq_push_cancellable(&q, 1, ev_nop, NULL, 1);
    assert_true(evq_pop(&q, SIM_TIME_MAX, &t, &ev));
    struct sim_handle h2 = evq_push_cancellable(&q, 2, ev_nop, NULL, 2);
    assert_int_equal(h2.slot, h1.slot); /* LIFO free list: the same slot comes back */
    assert_int_not_equal(h2.gen, h1.gen);
    assert_false(evq_cancel(&q, h1));
    assert_int_equal(evq_size(&q), 1);

    /* cancel, surface, then reuse: the slot of a cancelled event */
    assert_true(evq_cancel(&q, h2));
    assert_int_equal(evq_peek_time(&q), SIM_TIME_MAX); /* dead entry surfaces, slot freed */
    struct sim_handle h3 = evq_push_cancellable(&q, 3, ev_nop, NULL, 3);
    assert_int_equal(h3.slot, h2.slot);
    assert_false(evq_cancel(&q, h2));
    assert_false(evq_cancel(&q, h1));
    assert_true(evq_pop(&q, SIM_TIME_MAX, &t, &ev));
    assert_int_equal(ev.arg, 3); /* h3 was not hit by the stale cancels */
    evq_fini(&q);
}

/* ---- replace-top ---- */

static void test_evq_replace_top_fifo_against_root_peer(void **state)
{
    struct evq q;
    evq_init(&q);
    sim_time_t t;
    struct evq_event ev;
    evq_push(&q, 5, ev_nop, NULL, 1);
    evq_push(&q, 5, ev_nop, NULL, 2);
    evq_push(&q, 6, ev_nop, NULL, 3);
    assert_true(evq_pop(&q, SIM_TIME_MAX, &t, &ev)); /* leaves the root hole */
    assert_true(q.hole);
    evq_push(&q, 5, ev_nop, NULL, 4);                 /* fills it: replace-top */
    assert_false(q.hole);
    evq_push(&q, 4, ev_nop, NULL, 5);                 /* earlier than everything */
    struct trace tr;
    trace_init(&tr, 8);
    drain(&q, &tr);
    const uint64_t want[] = {5, 2, 4, 3};
    assert_int_equal(tr.n, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(tr.arg[i], want[i]);
    trace_fini(&tr);
    evq_fini(&q);
}

/*
 * The same random program of pops and pushes on two queues: q1 pushes right
 * after a pop (replace-top path), q2 calls evq_peek_time in between, which
 * refills the hole first so the push takes the plain sift-up path.  The two
 * must pop identical sequences.
 */
static void test_evq_replace_top_matches_plain_push(void **state)
{
    struct evq q1, q2;
    evq_init(&q1);
    evq_init(&q2);
    uint64_t rs = 7;
    uint64_t id = 0;
    for (int i = 0; i < 200; i++) {
        sim_time_t t0 = mix_below(&rs, 20);
        evq_push(&q1, t0, ev_nop, NULL, id);
        evq_push(&q2, t0, ev_nop, NULL, id);
        id++;
    }
    sim_time_t now = 0;
    for (int step = 0; step < 20000; step++) {
        sim_time_t t1, t2;
        struct evq_event e1, e2;
        bool ok1 = evq_pop(&q1, SIM_TIME_MAX, &t1, &e1);
        bool ok2 = evq_pop(&q2, SIM_TIME_MAX, &t2, &e2);
        assert_true(ok1 && ok2);
        assert_int_equal(t1, t2);
        assert_int_equal(e1.arg, e2.arg);
        assert_true(t1 >= now);
        now = t1;
        (void)evq_peek_time(&q2);
        int pushes = (int)mix_below(&rs, 3); /* 0, 1 or 2: population random-walks */
        if (evq_size(&q1) < 50)
            pushes = 2;
        for (int k = 0; k < pushes; k++) {
            sim_time_t t = now + mix_below(&rs, 4); /* many ties with the root */
            evq_push(&q1, t, ev_nop, NULL, id);
            evq_push(&q2, t, ev_nop, NULL, id);
            id++;
        }
    }
    evq_fini(&q1);
    evq_fini(&q2);
}

/*
 * Cancelled entries do not pile up: 1,000 cancellable events far ahead and
 * 20 near ones; cancelling 990 of the far ones rebuilds the heap whenever the
 * dead outnumber the live (and are over 64), so it never holds more than
 * twice its live events plus 64, and what is left pops in (time, push) order.
 */
static void test_evq_cancelled_entries_are_dropped(void **state)
{
    struct evq q;
    evq_init(&q);
    enum { FAR = 1000, NEAR = 20 };
    struct sim_handle h[FAR];
    for (uint64_t i = 0; i < FAR; i++)
        h[i] = evq_push_cancellable(&q, 1000000 + (i * 7919) % FAR, ev_nop, NULL, i);
    for (uint64_t i = 0; i < NEAR; i++)
        evq_push(&q, 10 + i % 3, ev_nop, NULL, FAR + i);
    for (int i = 0; i < FAR - 10; i++) {
        assert_true(evq_cancel(&q, h[i]));
        assert_true(q.n <= 2 * q.live + 64 + 1);
    }
    assert_int_equal(evq_size(&q), NEAR + 10);
    assert_true(q.n <= NEAR + 10 + 64);
    assert_false(evq_cancel(&q, h[0])); /* dropped in a rebuild: its slot's generation moved on */
    struct trace tr;
    trace_init(&tr, NEAR + 10);
    drain(&q, &tr);
    assert_int_equal(tr.n, NEAR + 10);
    for (uint32_t i = 1; i < tr.n; i++)
        assert_true(tr.t[i - 1] < tr.t[i] || (tr.t[i - 1] == tr.t[i] && tr.arg[i - 1] < tr.arg[i]));
    for (uint32_t i = NEAR; i < tr.n; i++)
        assert_true(tr.arg[i] >= FAR - 10 && tr.arg[i] < FAR);
    trace_fini(&tr);
    evq_fini(&q);
}

/* ---- randomised run against a sorted reference ---- */

struct ref_ev {
    sim_time_t t;
    uint64_t seq;    /* push order */
    bool cancellable, cancelled, popped;
    struct sim_handle h;
};

static int ref_cmp(const void *a, const void *b)
{
    const struct ref_ev *x = *(const struct ref_ev *const *)a, *y = *(const struct ref_ev *const *)b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * 100k random operations (push, cancellable push, cancel of a random earlier
 * event, peek, pop).  Pushes are never earlier than the last popped time, as in
 * a simulation, so the whole pop sequence must equal the list of pushed and not
 * cancelled events sorted by (t, push order).  Cancel results and the live
 * count are checked against the reference at every step.
 */
static void test_evq_random_ops_match_sorted_reference(void **state)
{
    enum { OPS = 100000 };
    struct ref_ev *ev = sim_xcalloc(OPS, sizeof *ev);
    uint64_t *popped = sim_xcalloc(OPS, sizeof *popped);
    uint32_t n_ev = 0, n_popped = 0, live = 0;
    struct evq q;
    evq_init(&q);
    uint64_t rs = 12345;
    sim_time_t now = 0, peeked = SIM_TIME_MAX;
    for (int op = 0; op < OPS; op++) {
        uint64_t r = mix_below(&rs, 100);
        if (r < 48) {
            struct ref_ev *e = &ev[n_ev];
            e->t = now + mix_below(&rs, 64);
            e->seq = n_ev;
            e->cancellable = r < 24;
            if (e->cancellable)
                e->h = evq_push_cancellable(&q, e->t, ev_nop, NULL, n_ev);
            else
                evq_push(&q, e->t, ev_nop, NULL, n_ev);
            n_ev++;
            live++;
            peeked = SIM_TIME_MAX;
        } else if (r < 58) {
            if (!n_ev)
                continue;
            struct ref_ev *e = &ev[mix_below(&rs, n_ev)];
            if (!e->cancellable)
                continue;
            bool want = !e->cancelled && !e->popped;
            assert_int_equal(evq_cancel(&q, e->h), want);
            if (want) {
                e->cancelled = true;
                live--;
                peeked = SIM_TIME_MAX;
            }
        } else if (r < 62) {
            peeked = evq_peek_time(&q);
            if (!live)
                assert_int_equal(peeked, SIM_TIME_MAX);
        } else {
            sim_time_t t;
            struct evq_event out;
            bool ok = evq_pop(&q, SIM_TIME_MAX, &t, &out);
            assert_int_equal(ok, live > 0);
            if (!ok)
                continue;
            if (peeked != SIM_TIME_MAX)
                assert_int_equal(t, peeked);
            peeked = SIM_TIME_MAX;
            struct ref_ev *e = &ev[out.arg];
            assert_int_equal(t, e->t);
            assert_false(e->cancelled);
            assert_false(e->popped);
            assert_true(t >= now);
            e->popped = true;
            popped[n_popped++] = out.arg;
            now = t;
            live--;
        }
        assert_int_equal(evq_size(&q), live);
    }
    sim_time_t t;
    struct evq_event out;
    while (evq_pop(&q, SIM_TIME_MAX, &t, &out))
        popped[n_popped++] = out.arg;

    struct ref_ev **sorted = sim_xcalloc(n_ev, sizeof *sorted);
    uint32_t n_sorted = 0;
    for (uint32_t i = 0; i < n_ev; i++)
        if (!ev[i].cancelled)
            sorted[n_sorted++] = &ev[i];
    qsort(sorted, n_sorted, sizeof *sorted, ref_cmp);
    assert_int_equal(n_popped, n_sorted);
    for (uint32_t i = 0; i < n_sorted; i++)
        assert_int_equal(popped[i], sorted[i]->seq);
    assert_true(n_sorted > 20000); /* the run did exercise the queue */
    free(sorted);
    free(popped);
    free(ev);
    evq_fini(&q);
}

/* ---- bounded memory ---- */

struct hold {
    uint64_t rs;
    uint64_t left;      /* events still to run */
    bool cancellable;
};

/* Each event re-schedules itself once (hold model): the population is constant. */
static void ev_hold(struct sim *s, void *obj, uint64_t arg)
{
    struct hold *h = obj;
    if (!h->left)
        return;
    h->left--;
    sim_time_t d = 1 + mix_below(&h->rs, 1000);
    if (h->cancellable)
        (void)sim_schedule_cancellable(s, d, ev_hold, h, arg);
    else
        sim_schedule(s, d, ev_hold, h, arg);
}

/*
 * 10^6 events with a population of 5000: the heap must not outgrow the smallest
 * capacity that holds the population (initial 1024, doubling: 8192), and the
 * cancellation slots are recycled the same way (64, doubling: 8192).
 */
static void test_evq_bounded_population_keeps_capacity(void **state)
{
    enum { POP = 5000, EVENTS = 1000000 };
    for (int c = 0; c < 2; c++) {
        struct sim *s = sim_create(1);
        struct hold h = {.rs = 99, .left = EVENTS - POP, .cancellable = c};
        for (uint64_t i = 0; i < POP; i++) {
            if (c)
                (void)sim_schedule_cancellable(s, mix_below(&h.rs, 1000), ev_hold, &h, i);
            else
                sim_schedule(s, mix_below(&h.rs, 1000), ev_hold, &h, i);
        }
        assert_int_equal(sim_run(s, SIM_TIME_MAX), EVENTS);
        assert_int_equal(s->q.cap, 8192);
        assert_true(s->q.n <= POP);
        if (c)
            assert_int_equal(s->q.slot_cap, 8192);
        else
            assert_int_equal(s->q.slot_cap, 0);
        sim_destroy(s);
    }
}

/* ---- sim_run ---- */

static void test_sim_run_until_stops_and_advances_clock(void **state)
{
    struct sim *s = sim_create(1);
    struct trace tr;
    trace_init(&tr, 8);
    sim_schedule(s, 10, ev_record, &tr, 1);
    sim_schedule(s, 20, ev_record, &tr, 2);
    sim_schedule(s, 30, ev_record, &tr, 3);
    assert_int_equal(sim_run(s, 20), 2); /* an event at exactly until runs */
    assert_int_equal(sim_now(s), 20);
    assert_int_equal(sim_pending(s), 1);
    assert_int_equal(sim_run(s, 25), 0);
    assert_int_equal(sim_now(s), 25);     /* no event, clock still advances */
    sim_schedule(s, 1, ev_record, &tr, 4); /* relative to the advanced clock: t = 26 */
    assert_int_equal(sim_run(s, SIM_TIME_MAX), 2);
    assert_int_equal(sim_now(s), 30);     /* runs dry: the clock stays at the last event */
    assert_int_equal(sim_events(s), 4);
    const uint64_t want[] = {1, 2, 4, 3};
    const sim_time_t want_t[] = {10, 20, 26, 30};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(tr.arg[i], want[i]);
        assert_int_equal(tr.t[i], want_t[i]);
    }
    assert_int_equal(sim_run(s, 1000), 0); /* empty queue: clock moves to until */
    assert_int_equal(sim_now(s), 1000);
    trace_fini(&tr);
    sim_destroy(s);
}

struct stopper {
    struct trace tr;
    uint64_t stop_at;
};

static void ev_maybe_stop(struct sim *s, void *obj, uint64_t arg)
{
    struct stopper *st = obj;
    trace_add(&st->tr, sim_now(s), arg);
    if (arg == st->stop_at)
        sim_stop(s);
}

static void test_sim_stop_returns_after_current_event(void **state)
{
    struct sim *s = sim_create(1);
    struct stopper st = {.stop_at = 3};
    trace_init(&st.tr, 8);
    for (uint64_t i = 1; i <= 5; i++)
        sim_schedule(s, 10 * i, ev_maybe_stop, &st, i);
    assert_int_equal(sim_run(s, 1000), 3);
    assert_int_equal(sim_now(s), 30);     /* stopped: the clock is not moved to until */
    assert_int_equal(sim_pending(s), 2);
    assert_int_equal(sim_run(s, 1000), 2); /* a new run resumes */
    assert_int_equal(sim_now(s), 1000);
    assert_int_equal(st.tr.n, 5);
    assert_int_equal(sim_events(s), 5);
    trace_fini(&st.tr);
    sim_destroy(s);
}

/* Self-perpetuating event with a per-simulator period. */
static void ev_tick(struct sim *s, void *obj, uint64_t period)
{
    struct trace *tr = obj;
    trace_add(tr, sim_now(s), period);
    sim_schedule(s, period, ev_tick, tr, period);
}

static void test_two_simulators_are_independent(void **state)
{
    struct sim *a = sim_create(5), *b = sim_create(5);
    struct trace ta, tb;
    trace_init(&ta, 256);
    trace_init(&tb, 256);
    sim_schedule(a, 3, ev_tick, &ta, 3);
    sim_schedule(b, 7, ev_tick, &tb, 7);
    /* interleave runs of the two */
    for (sim_time_t until = 10; until <= 210; until += 10) {
        sim_run(a, until);
        sim_run(b, until / 2);
    }
    assert_int_equal(sim_now(a), 210);
    assert_int_equal(sim_now(b), 105);
    assert_int_equal(ta.n, 70); /* 3, 6, ..., 210 */
    assert_int_equal(tb.n, 15); /* 7, 14, ..., 105 */
    for (uint32_t i = 0; i < ta.n; i++)
        assert_int_equal(ta.t[i], 3 * (i + 1));
    for (uint32_t i = 0; i < tb.n; i++)
        assert_int_equal(tb.t[i], 7 * (i + 1));
    assert_int_equal(sim_events(a), 70);
    assert_int_equal(sim_events(b), 15);
    assert_int_equal(sim_pending(a), 1);
    assert_int_equal(sim_pending(b), 1);
    /* the same stream identity in each: allowed, and identical for equal seeds */
    gsl_rng *ra = sim_rng(a, "client", 0, "think"), *rb = sim_rng(b, "client", 0, "think");
    for (int i = 0; i < 100; i++)
        assert_int_equal(gsl_rng_get(ra), gsl_rng_get(rb));
    sim_destroy(a);
    /* b keeps working after a is gone */
    sim_run(b, 140);
    assert_int_equal(tb.n, 20);
    trace_fini(&ta);
    trace_fini(&tb);
    sim_destroy(b);
}

/* pool_visit_in_use sees exactly the objects taken and not put back. */
/* sim_release frees one of the arena's tables early; the rest stay live
   and are freed by sim_destroy (the ASan build checks neither leaks nor
   double frees) */
static void test_sim_release_frees_one_table(void **state)
{
    struct sim *s = sim_create(1);
    uint64_t *a = sim_alloc(s, 16, sizeof *a), *b = sim_alloc(s, 32, sizeof *b), *c = sim_alloc(s, 8, sizeof *c);
    a[15] = 1;
    c[7] = 3;
    sim_release(s, b);
    uint64_t *d = sim_alloc(s, 64, sizeof *d); /* zeroed, as every sim_alloc */
    for (int i = 0; i < 64; i++)
        assert_int_equal(d[i], 0);
    sim_release(s, a);
    assert_int_equal(c[7], 3);
    sim_release(s, c);
    sim_release(s, d);
    d = sim_alloc(s, 4, sizeof *d);
    sim_destroy(s);
}

static void count_visit(void *obj, void *ctx)
{
    int *seen = ctx;
    seen[*(int *)obj]++;
}

static void test_pool_visits_live_objects(void **state)
{
    (void)state;
    struct pool p;
    pool_init(&p, sizeof(int) * 4, 7); /* several blocks */
    int *objs[100];
    for (int i = 0; i < 100; i++) {
        objs[i] = pool_get(&p);
        objs[i][0] = i;
    }
    for (int i = 0; i < 100; i += 3) /* put back every third */
        pool_put(&p, objs[i]);
    int seen[100] = {0};
    for (int i = 0; i < 100; i += 3) {
        int *o = pool_get(&p); /* reuse some slots: they are live again */
        *o = i;
        if (i % 2)
            pool_put(&p, o);
    }
    pool_visit_in_use(&p, count_visit, seen);
    for (int i = 0; i < 100; i++) {
        int want = i % 3 ? 1 : (i % 2 ? 0 : 1);
        if (seen[i] != want)
            fail_msg("object %d visited %d times, want %d", i, seen[i], want);
    }
    pool_fini(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_visits_live_objects),
        cmocka_unit_test(test_sim_release_frees_one_table),
        cmocka_unit_test(test_evq_orders_by_time),
        cmocka_unit_test(test_evq_ties_run_in_insertion_order),
        cmocka_unit_test(test_sim_schedule_at_now_from_handler_runs_after_queued),
        cmocka_unit_test(test_evq_cancel_before_run_never_runs),
        cmocka_unit_test(test_evq_cancel_root_then_peek_skips_it),
        cmocka_unit_test(test_evq_cancel_after_run_returns_false),
        cmocka_unit_test(test_evq_cancel_twice_returns_false),
        cmocka_unit_test(test_evq_null_handle_cancel_returns_false),
        cmocka_unit_test(test_evq_stale_handle_after_slot_reuse),
        cmocka_unit_test(test_evq_replace_top_fifo_against_root_peer),
        cmocka_unit_test(test_evq_replace_top_matches_plain_push),
        cmocka_unit_test(test_evq_random_ops_match_sorted_reference),
        cmocka_unit_test(test_evq_cancelled_entries_are_dropped),
        cmocka_unit_test(test_evq_many_handlers_each_event_runs_its_own),
        cmocka_unit_test(test_evq_bounded_population_keeps_capacity),
        cmocka_unit_test(test_sim_run_until_stops_and_advances_clock),
        cmocka_unit_test(test_sim_stop_returns_after_current_event),
        cmocka_unit_test(test_two_simulators_are_independent),
    };
    return cmocka_run_group_tests_name("evq", tests, NULL, NULL);
}
