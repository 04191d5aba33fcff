/*
 * test_cpu.c - the host CPU model (models/hw/cpu.c) against expectations worked
 * out by hand or from queueing theory: the wake-up latency of a sleeping
 * thread with C1 only, with a deep C-state and with POLL (Linux cpuidle: the
 * deepest state whose target residency the idle period exceeded, its exit
 * latency added to the scheduler's wake cost); the thread pool's dispatch
 * order (private queue, FRONT, HIGH, NORMAL FIFO), one wake-up per sleeping
 * thread and none for a polling pool or a busy-polling thread still in its
 * spin (net.core.busy_poll); cpu_exec's clock scaling; the
 * ondemand/schedutil governor at low and sustained load; the boost limit by
 * active cores (boost -> all-core clock, never below base) and P0 = base as
 * the top of the governor's range; SMT siblings sharing a core; the extra
 * wake-up cost across CCXs; M/M/c (Erlang C) on the host's cores; and the
 * lognormal work jitter (mean = cost, CV = work_cv).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>

#include "cpu.h"
#include "err.h"
#include "sim.h"
#include "stats.h"
#include "testutil.h"

/* A host with no wake-up cost at all, running at the reference clock. */
static struct cpu_params base_params(void)
{
    return (struct cpu_params){
        .cores = 4,
        .max_clock_ghz = 3.0,
        .idle_clock_ghz = 3.0,
        .ref_clock_ghz = 3.0,
        .governor = CPU_GOV_PERFORMANCE,
        .governor_up_util = 0.8,
        .util_window_us = 1000,
        .wake_us = 0,
        .work_cv = 0,
        .n_cstates = 0,
    };
}

/* wake 5 us; C1: exit 1 us, residency 2 us (max_cstate=C1). */
static struct cpu_params c1_params(void)
{
    struct cpu_params p = base_params();
    p.wake_us = 5;
    p.n_cstates = 1;
    p.cstate_exit_us[0] = 1;
    p.cstate_residency_us[0] = 2;
    return p;
}

/* C1 as above plus a deep state: exit 25 us, residency 800 us (epyc-7302p's C2). */
static struct cpu_params deep_params(void)
{
    struct cpu_params p = c1_params();
    p.n_cstates = 2;
    p.cstate_exit_us[1] = 25;
    p.cstate_residency_us[1] = 800;
    return p;
}

/* ---- a log of items run, for the pool tests ---- */

struct run_log {
    struct cpu_pool *pool;
    int n;
    sim_time_t t[64];
    uint64_t arg[64];
    uint32_t thread[64];
    double work_us;       /* each item burns this much CPU, then releases */
};

static void item_released(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    cpu_thread_release(th);
}

/* Records when and on which thread it started, burns work_us, releases. */
static void log_item(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct run_log *l = obj;
    SIM_ASSERT(l->n < 64);
    l->t[l->n] = sim_now(s);
    l->arg[l->n] = arg;
    l->thread[l->n] = th->index;
    l->n++;
    if (l->work_us > 0)
        cpu_exec(th, l->work_us, item_released, l, arg);
    else
        cpu_thread_release(th);
}

/* Event: submit one NORMAL item of the log's pool (arg = the item's tag). */
static void submit_ev(struct sim *s, void *obj, uint64_t arg)
{
    struct run_log *l = obj;
    cpu_pool_submit(l->pool, CPU_PRIO_NORMAL, log_item, l, arg);
}

/* ---- wake-up latency ---- */

/*
 * By hand: C1 only -> wake 5 + (idle >= 2 us ? 1 : 0); with C2 -> 5 + 25 once
 * idle >= 800 us, 5 + 1 in between; POLL (no states) -> 5 whatever the idle.
 */
static void test_wake_latency_cstates(void **state)
{
    struct sim *s = sim_create(1);
    struct cpu_host h;
    struct cpu_params p = c1_params();
    cpu_host_init(&h, s, &p);
    assert_int_equal(cpu_wake_latency_ns(&h, 1000), 5000);          /* 1 us < C1 residency */
    assert_int_equal(cpu_wake_latency_ns(&h, 2000), 6000);          /* exactly the residency */
    assert_int_equal(cpu_wake_latency_ns(&h, 10000000), 6000);      /* 10 ms: still C1 */

    p = deep_params();
    p.index = 1; /* a second host of the same sim needs its own random stream */
    cpu_host_init(&h, s, &p);
    assert_int_equal(cpu_wake_latency_ns(&h, 1000), 5000);
    assert_int_equal(cpu_wake_latency_ns(&h, 500000), 6000);        /* shorter than C2's residency */
    assert_int_equal(cpu_wake_latency_ns(&h, 799999), 6000);
    assert_int_equal(cpu_wake_latency_ns(&h, 800000), 30000);       /* reaches C2 */
    assert_int_equal(cpu_wake_latency_ns(&h, 10000000), 30000);

    p = c1_params();
    p.n_cstates = 0; /* max_cstate=POLL */
    p.index = 2;
    cpu_host_init(&h, s, &p);
    assert_int_equal(cpu_wake_latency_ns(&h, 10000000), 5000);
    sim_destroy(s);
}

/*
 * The same through a pool: a thread asleep since t=0 gets an item at 1 ms
 * (idle 1 ms >= 800 us): it starts at 1 ms + 30 us with C2, + 6 us with C1
 * only.  Its next item arrives 100 us after it went back to sleep (idle
 * < 800 us): + 6 us in both cases.
 */
static void test_wake_latency_through_pool(void **state)
{
    for (int deep = 0; deep <= 1; deep++) {
        struct sim *s = sim_create(2);
        struct cpu_host h;
        struct cpu_params p = deep ? deep_params() : c1_params();
        cpu_host_init(&h, s, &p);
        struct cpu_pool pool;
        cpu_pool_init(&pool, &h, "t", 1);
        struct run_log l = {.pool = &pool, .work_us = 0};
        sim_schedule(s, 1000000, submit_ev, &l, 1);
        sim_run(s, SIM_TIME_MAX);
        assert_int_equal(l.n, 1);
        sim_time_t first = deep ? 1030000 : 1006000;
        assert_int_equal(l.t[0], first);
        /* the item released at once: the thread sleeps from l.t[0] */
        sim_schedule(s, 100000, submit_ev, &l, 2);
        sim_run(s, SIM_TIME_MAX);
        assert_int_equal(l.n, 2);
        assert_int_equal(l.t[1], first + 100000 + 6000);
        assert_int_equal(h.wakeups, 2);
        assert_true(fabs(h.wake_ns_total - (double)(first - 1000000 + 6000)) < 0.5);
        cpu_pool_fini(&pool);
        sim_destroy(s);
    }
}

/*
 * cost.thread_sleep_us: a worker whose queue empties burns S on its core on
 * the way to sleep, after its item and off the item's path.  By hand (wake
 * 5 us, C1 1 us, S = 4 us, items of 10 us, one thread):
 *  - item 1 submitted at 1000 us: woken at 1006, runs to 1016; sleeps 1016-1020;
 *  - item 2 at 1018 (during the sleep path): taken at 1020, no wake-up;
 *  - item 3 at 2000, long after: woken again, starts at 2006;
 *  - CPU: 3 x 10 + 2 sleeps of 4 (1016-1020 and after item 2, 1030-1034), then
 *    a third after item 3: 30 + 12 = 42 us; 2 wake-ups.
 * Without S the same items start at 1006, 1018 + 6 = 1024 (woken) and 2006.
 */
static void test_sleep_cpu_off_the_path(void **state)
{
    for (int with = 0; with <= 1; with++) {
        struct sim *s = sim_create(2);
        struct cpu_host h;
        struct cpu_params p = c1_params();
        p.sleep_us = with ? 4 : 0;
        cpu_host_init(&h, s, &p);
        struct cpu_pool pool;
        cpu_pool_init(&pool, &h, "t", 1);
        struct run_log l = {.pool = &pool, .work_us = 10};
        sim_schedule(s, 1000000, submit_ev, &l, 1);
        sim_schedule(s, 1018000, submit_ev, &l, 2);
        sim_schedule(s, 2000000, submit_ev, &l, 3);
        sim_run(s, SIM_TIME_MAX);
        assert_int_equal(l.n, 3);
        assert_int_equal(l.t[0], 1006000);
        assert_int_equal(l.t[1], with ? 1020000 : 1024000);
        assert_int_equal(l.t[2], 2006000);
        assert_int_equal(h.wakeups, with ? 2 : 3);
        assert_true(fabs(pool.threads[0].busy_ns - (with ? 42000.0 : 30000.0)) < 0.5);
        assert_false(pool.threads[0].busy);
        cpu_pool_fini(&pool);
        sim_destroy(s);
    }
}

/* ---- the kernel's scheduler on a saturated host ---- */

struct sched_run {
    struct cpu_pool *b;
    double lead_us; /* A's first stage */
    sim_time_t a_first_end, a_second_end, b_end;
};

static void a_second_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    ((struct sched_run *)obj)->a_second_end = sim_now(s);
    cpu_thread_release(th);
}

static void a_first_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    ((struct sched_run *)obj)->a_first_end = sim_now(s);
    cpu_exec(th, 1000, a_second_done, obj, 0); /* goes on: keeps its core */
}

static void a_item(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    cpu_exec(th, ((struct sched_run *)obj)->lead_us, a_first_done, obj, 0);
}

static void b_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    ((struct sched_run *)obj)->b_end = sim_now(s);
    cpu_thread_release(th);
}

static void b_item(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    cpu_exec(th, 100, b_done, obj, 0);
}

static void pool_submit_ev(struct sim *s, void *obj, uint64_t arg)
{
    struct sched_run *r = obj;
    cpu_pool_submit(r->b, CPU_PRIO_NORMAL, b_item, r, 0);
}

struct submit_a_arg {
    struct cpu_pool *a;
    struct sched_run *r;
};

static void submit_a(struct sim *s, void *obj, uint64_t arg)
{
    struct submit_a_arg *x = obj;
    cpu_pool_submit(x->a, CPU_PRIO_NORMAL, a_item, x->r, 0);
}

/*
 * cluster.cpu_scheduler on one core (wake 5 us + C1 1 us; one CPU: the
 * granularity 1 ms, a sleeper's credit half of sched_latency's 6 ms).  Thread
 * A, woken at 1,006 us, runs a stage of L us, then goes on with 1,000 more
 * (its core kept); thread B, asleep since the start, gets an item 494 us into
 * that second stage and, woken 5 us later (no C-state exit: the only core is
 * busy), wants 100 us.
 *  - FIFO: B waits for A's stage: A ends at 1,006 + L + 1,000, B 100 later.
 *  - L = 5,000: B is placed at min_vruntime (A's 5 ms) - 3 ms = 2 ms, 3 ms
 *    behind A, past either granularity: under CFS and EEVDF B preempts A,
 *    runs at once and ends at 1,006 + L + 599; A's stage, cut with 501 us
 *    left, ends at 1,006 + L + 1,100.  One preemption.
 *  - L = 500: B cannot be placed before 0, A leads it by 0.5 ms: under CFS
 *    (1 ms) A goes on as under FIFO; EEVDF preempts (any lead).
 */
static void test_scheduler_wakeup_preemption(void **state)
{
    for (int sched = CPU_SCHED_FIFO; sched <= CPU_SCHED_EEVDF; sched++)
        for (int shortlead = 0; shortlead <= 1; shortlead++) {
            struct sim *s = sim_create(4);
            struct cpu_host h;
            struct cpu_params p = c1_params();
            p.cores = 1;
            p.sched = (enum cpu_sched)sched;
            cpu_host_init(&h, s, &p);
            struct cpu_pool a, b;
            cpu_pool_init(&a, &h, "a", 1);
            cpu_pool_init(&b, &h, "b", 1);
            sim_time_t lead = shortlead ? 500 : 5000;
            struct sched_run r = {.b = &b, .lead_us = (double)lead};
            sim_time_t a_start = 1006, a2 = a_start + lead + 1000;
            sim_schedule(s, 1000000, submit_a, &(struct submit_a_arg){&a, &r}, 0);
            sim_schedule(s, (a_start + lead + 494) * 1000, pool_submit_ev, &r, 1);
            sim_run(s, SIM_TIME_MAX);
            bool preempts = sched == CPU_SCHED_EEVDF || (sched == CPU_SCHED_CFS && !shortlead);
            assert_int_equal(r.a_first_end, (a_start + lead) * 1000);
            if (preempts) {
                assert_int_equal(r.b_end, (a_start + lead + 599) * 1000);
                assert_int_equal(r.a_second_end, (a2 + 100) * 1000);
            } else {
                assert_int_equal(r.a_second_end, a2 * 1000);
                assert_int_equal(r.b_end, (a2 + 100) * 1000);
            }
            assert_int_equal(h.preemptions, preempts ? 1 : 0);
            cpu_pool_fini(&a);
            cpu_pool_fini(&b);
            sim_destroy(s);
        }
}

/* Two long stages, the second on the kept core; records when the second ends. */
struct victim_run {
    sim_time_t end[3];
};

static void v_second_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t tag)
{
    ((struct victim_run *)obj)->end[tag] = sim_now(s);
    cpu_thread_release(th);
}

static void v_first_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t tag)
{
    cpu_exec(th, 2000, v_second_done, obj, tag);
}

static void v_item(struct sim *s, struct cpu_thread *th, void *obj, uint64_t tag)
{
    if (tag == 2)
        cpu_exec(th, 100, v_second_done, obj, tag);
    else
        cpu_exec(th, 1000, v_first_done, obj, tag);
}

struct v_submit {
    struct cpu_pool *pool;
    struct victim_run *r;
    uint64_t tag;
};

static void v_submit_ev(struct sim *s, void *obj, uint64_t arg)
{
    struct v_submit *x = obj;
    cpu_pool_submit(x->pool, CPU_PRIO_NORMAL, v_item, x->r, x->tag);
}

/*
 * The victim of a preempting wake-up under EEVDF, on two cores: x and y
 * (pools made in that order), woken at 0 (5 us: their cores had not idled
 * past C1's residency), each run 1,000 us and go on with 2,000 on their kept
 * core, y started first; z, fresh (vruntime 0), is woken at 1,500 us and
 * wants 100 from 1,505.  x and y lead it by the same 1 ms, and of equals the
 * model takes the thread the host made first (as the scan over its pools in
 * creation order it replaces did): x, whose stage is cut with 1,500 us left
 * and ends at 1,605 + 1,500 = 3,105 us, while y's ends where it would have,
 * 5 + 3,000 = 3,005 us (the list of running threads holds y before x then).
 */
static void test_scheduler_victim_ties(void **state)
{
    struct sim *s = sim_create(4);
    struct cpu_host h;
    struct cpu_params p = c1_params();
    p.cores = 2;
    p.sched = CPU_SCHED_EEVDF;
    cpu_host_init(&h, s, &p);
    struct cpu_pool x, y, z;
    cpu_pool_init(&x, &h, "x", 1);
    cpu_pool_init(&y, &h, "y", 1);
    cpu_pool_init(&z, &h, "z", 1);
    struct victim_run r = {{0}};
    struct v_submit sy = {&y, &r, 1}, sx = {&x, &r, 0}, sz = {&z, &r, 2};
    sim_schedule(s, 0, v_submit_ev, &sy, 0);
    sim_schedule(s, 0, v_submit_ev, &sx, 0);
    sim_schedule(s, 1500000, v_submit_ev, &sz, 0);
    sim_run(s, SIM_TIME_MAX);
    assert_int_equal(h.preemptions, 1);
    assert_int_equal(r.end[2], 1605000);
    assert_int_equal(r.end[1], 3005000);
    assert_int_equal(r.end[0], 3105000);
    assert_int_equal(h.n_on_core, 0);
    cpu_pool_fini(&x);
    cpu_pool_fini(&y);
    cpu_pool_fini(&z);
    sim_destroy(s);
}

/* ---- pool dispatch order ---- */

/* A 1-thread pool busy with a 10 us blocker (tag 0) from t=0; returns at t=1 us. */
static void start_blocked(struct sim **s, struct cpu_host *h, struct cpu_pool *pool, struct run_log *l)
{
    *s = sim_create(3);
    struct cpu_params p = base_params();
    cpu_host_init(h, *s, &p);
    cpu_pool_init(pool, h, "t", 1);
    *l = (struct run_log){.pool = pool, .work_us = 10};
    cpu_pool_submit(pool, CPU_PRIO_NORMAL, log_item, l, 0);
    sim_run(*s, 1000);
    assert_int_equal(l->n, 1);
    assert_true(pool->threads[0].busy);
}

static void assert_order(const struct run_log *l, const uint64_t *want, int n)
{
    assert_int_equal(l->n, n);
    for (int i = 0; i < n; i++)
        if (l->arg[i] != want[i])
            fail_msg("item %d: ran tag %llu, expected %llu", i, (unsigned long long)l->arg[i],
                     (unsigned long long)want[i]);
}

static void test_pool_fifo(void **state)
{
    struct sim *s;
    struct cpu_host h;
    struct cpu_pool pool;
    struct run_log l;
    start_blocked(&s, &h, &pool, &l);
    for (uint64_t i = 1; i <= 5; i++)
        cpu_pool_submit(&pool, CPU_PRIO_NORMAL, log_item, &l, i);
    sim_run(s, SIM_TIME_MAX);
    const uint64_t want[] = {0, 1, 2, 3, 4, 5};
    assert_order(&l, want, 6);
    /* back to back on one thread: each starts when the previous 10 us ended */
    for (int i = 1; i < 6; i++)
        assert_int_equal(l.t[i], 10000 * i);
    cpu_pool_fini(&pool);
    sim_destroy(s);
}

/*
 * Submitted while the thread is busy, in this order: N1, H1, N2, H2, F1, F2.
 * Expected: FRONT items at the head of the high queue (the later one first,
 * like enqueue_front), then HIGH FIFO, then NORMAL FIFO.
 */
static void test_pool_priorities(void **state)
{
    struct sim *s;
    struct cpu_host h;
    struct cpu_pool pool;
    struct run_log l;
    start_blocked(&s, &h, &pool, &l);
    cpu_pool_submit(&pool, CPU_PRIO_NORMAL, log_item, &l, 11);
    cpu_pool_submit(&pool, CPU_PRIO_HIGH, log_item, &l, 21);
    cpu_pool_submit(&pool, CPU_PRIO_NORMAL, log_item, &l, 12);
    cpu_pool_submit(&pool, CPU_PRIO_HIGH, log_item, &l, 22);
    cpu_pool_submit(&pool, CPU_PRIO_FRONT, log_item, &l, 31);
    cpu_pool_submit(&pool, CPU_PRIO_FRONT, log_item, &l, 32);
    sim_run(s, SIM_TIME_MAX);
    const uint64_t want[] = {0, 32, 31, 21, 22, 11, 12};
    assert_order(&l, want, 7);
    cpu_pool_fini(&pool);
    sim_destroy(s);
}

/* The thread's private queue comes before FRONT, HIGH and NORMAL work. */
static void test_pool_private_first(void **state)
{
    struct sim *s;
    struct cpu_host h;
    struct cpu_pool pool;
    struct run_log l;
    start_blocked(&s, &h, &pool, &l);
    cpu_pool_submit(&pool, CPU_PRIO_NORMAL, log_item, &l, 11);
    cpu_pool_submit(&pool, CPU_PRIO_HIGH, log_item, &l, 21);
    cpu_pool_submit(&pool, CPU_PRIO_FRONT, log_item, &l, 31);
    cpu_thread_submit(&pool.threads[0], log_item, &l, 41);
    cpu_thread_submit(&pool.threads[0], log_item, &l, 42);
    sim_run(s, SIM_TIME_MAX);
    const uint64_t want[] = {0, 41, 42, 31, 21, 11};
    assert_order(&l, want, 6);
    cpu_pool_fini(&pool);
    sim_destroy(s);
}

/*
 * 10 items of 10 us submitted at once to 4 sleeping threads (C1 host: a wake
 * costs 6 us): exactly 4 wake-ups, the remaining 6 items are taken by threads
 * that are already awake.  2 items to 4 sleeping threads: 2 wake-ups.
 */
static void test_pool_one_wakeup_per_thread(void **state)
{
    for (int items = 2; items <= 10; items += 8) {
        struct sim *s = sim_create(4);
        struct cpu_host h;
        struct cpu_params p = c1_params();
        p.cores = 8;
        cpu_host_init(&h, s, &p);
        struct cpu_pool pool;
        cpu_pool_init(&pool, &h, "t", 4);
        struct run_log l = {.pool = &pool, .work_us = 10};
        sim_run(s, 1000000); /* everyone asleep for 1 ms */
        for (int i = 0; i < items; i++)
            cpu_pool_submit(&pool, CPU_PRIO_NORMAL, log_item, &l, (uint64_t)i);
        sim_run(s, SIM_TIME_MAX);
        assert_int_equal(l.n, items);
        uint64_t want_wakeups = items < 4 ? (uint64_t)items : 4;
        assert_int_equal(h.wakeups, want_wakeups);
        assert_true(fabs(h.wake_ns_total - 6000.0 * (double)want_wakeups) < 0.5);
        assert_int_equal(pool.items_run, items);
        /* the first min(items, 4) start after one wake; the rest follow 10 us items on awake threads */
        for (int i = 0; i < l.n; i++) {
            sim_time_t want_t = 1000000 + 6000 + (sim_time_t)(i / 4) * 10000;
            assert_int_equal(l.t[i], want_t);
        }
        cpu_pool_fini(&pool);
        sim_destroy(s);
    }
}

/*
 * wake_all (OSD::ShardedOpWQ::_enqueue's notify_all on an empty scheduler,
 * ContextQueue::queue's on an empty context queue), by hand on the C1 host
 * (wake 5 us, 6 us once idle >= 2 us), 3 threads, items of 10 us.  Every
 * woken thread but the first back sleeps once more on the condition's mutex
 * and is woken by its unlock: 2 wake-ups, back a wake (5 us) later.
 *  - A at t = 0 reaches an empty queue: all three wake; thread 0 is back at
 *    5 us and takes A (runs to 15 us), threads 1 and 2 at 10 us: 1 + 2 x 2 = 5;
 *  - B at 8 us: the queue is empty again, but no thread sleeps (1 and 2 are
 *    still on their way back): no wake-up; C at 9 us queues behind B;
 *  - at 10 us thread 1 takes B, thread 2 C (both run to 20 us);
 *  - a private item for thread 0 at 30 us (its queue empty, all asleep):
 *    all three wake again (idle >= 2 us: 6 us, the others 12 us), only
 *    thread 0 runs it (at 36 us): 5 more.
 * 10 wake-ups; without wake_all (one thread per item, no mutex) 4.  The
 * wake-ups that can find nothing are lazy (no event unless work comes first).
 */
static void test_pool_wake_all(void **state)
{
    for (int all = 0; all <= 1; all++) {
        struct sim *s = sim_create(11);
        struct cpu_host h;
        struct cpu_params p = c1_params();
        p.cores = 8;
        cpu_host_init(&h, s, &p);
        struct cpu_pool pool;
        cpu_pool_init(&pool, &h, "t", 3);
        pool.wake_all = all;
        struct run_log l = {.pool = &pool, .work_us = 10};
        sim_schedule(s, 0, submit_ev, &l, 1);
        sim_schedule(s, 8000, submit_ev, &l, 2);
        sim_schedule(s, 9000, submit_ev, &l, 3);
        sim_run(s, 30000);
        cpu_thread_submit(&pool.threads[0], log_item, &l, 4);
        sim_run(s, SIM_TIME_MAX);
        assert_int_equal(l.n, 4);
        if (all) {
            const sim_time_t want_t[] = {5000, 10000, 10000, 36000};
            const uint32_t want_th[] = {0, 1, 2, 0};
            for (int i = 0; i < 4; i++) {
                assert_int_equal(l.t[i], want_t[i]);
                assert_int_equal(l.thread[i], want_th[i]);
            }
            assert_int_equal(h.wakeups, 10);
            /* 3 submits + 4 stage completions + the wake-ups that found work or
               could have: thread 0 at A, threads 1 and 2 from A (B came while they
               were on their way back: their lazy wake-ups became events), thread 0
               at 30 us; threads 1 and 2 at 30 us ran as no event */
            assert_int_equal(sim_events(s), 3 + 4 + 4);
        } else {
            assert_int_equal(h.wakeups, 4);
        }
        cpu_pool_fini(&pool);
        sim_destroy(s);
    }
}

/*
 * Each pool's CPU and wake-ups since its host's last reset, and its process
 * label, as the per-thread figures of sim.json read them.  By hand, on the
 * base host (no wake cost, reference clock, 4 cores): pool "a" (1 thread)
 * runs items of 10 us at t = 0 and 100 us, pool "b" (2 threads) two items at
 * t = 0 (one each); every run starts with a wake-up (the threads sleep until
 * then).  Reset at t = 50 us, then a runs its second item and b nothing:
 * since the reset a has 10 us and 1 wake-up, b 0 and 0.  A pool created after
 * the reset counts from its creation; a finished pool leaves its host's list.
 */
static void test_pool_figures_since_reset(void **state)
{
    struct sim *s = sim_create(3);
    struct cpu_host h;
    struct cpu_params p = base_params();
    cpu_host_init(&h, s, &p);
    struct cpu_pool a, b, c;
    cpu_pool_init(&a, &h, "a", 1);
    struct cpu_pool *after_a = cpu_host_last_pool(&h);
    cpu_pool_init(&b, &h, "b", 2);
    cpu_host_label_pools(&h, after_a, "proc-b"); /* b only */
    assert_ptr_equal(a.process, NULL);
    assert_string_equal(b.process, "proc-b");
    struct run_log la = {.pool = &a, .work_us = 10}, lb = {.pool = &b, .work_us = 10};
    sim_schedule(s, 0, submit_ev, &la, 1);
    sim_schedule(s, 0, submit_ev, &lb, 1);
    sim_schedule(s, 0, submit_ev, &lb, 2);
    sim_run(s, 50000);
    assert_true(fabs(cpu_pool_busy_ns_since_reset(&a) - 10000) < 1e-6);
    assert_int_equal(cpu_pool_wakeups_since_reset(&b), 2);
    cpu_host_reset_stats(&h);
    sim_schedule(s, 100000, submit_ev, &la, 2);
    sim_run(s, SIM_TIME_MAX);
    assert_int_equal(la.n, 2);
    assert_true(fabs(cpu_pool_busy_ns_since_reset(&a) - 10000) < 1e-6);
    assert_int_equal(cpu_pool_wakeups_since_reset(&a), 1);
    assert_true(fabs(cpu_pool_busy_ns_since_reset(&b) - 0) < 1e-6);
    assert_int_equal(cpu_pool_wakeups_since_reset(&b), 0);
    assert_true(fabs(cpu_pool_busy_ns(&b) - 20000) < 1e-6); /* the total is kept */
    cpu_pool_init(&c, &h, "c", 1);
    assert_true(fabs(cpu_pool_busy_ns_since_reset(&c) - 0) < 1e-6);
    /* the host's list in creation order; b's fini unlinks it */
    const struct cpu_pool *q = cpu_host_first_pool(&h);
    assert_ptr_equal(q, &a);
    assert_ptr_equal(q->host_next, &b);
    assert_ptr_equal(q->host_next->host_next, &c);
    cpu_pool_fini(&b);
    assert_ptr_equal(cpu_host_first_pool(&h)->host_next, &c);
    assert_ptr_equal(c.host_prev, &a);
    cpu_pool_fini(&c);
    assert_ptr_equal(cpu_host_last_pool(&h), &a);
    assert_ptr_equal(a.host_next, NULL);
    cpu_pool_fini(&a);
    assert_ptr_equal(cpu_host_first_pool(&h), NULL);
    sim_destroy(s);
}

/*
 * A thread already waking claims the queued item it was woken for: no second
 * thread is woken for it.  3 threads, C1 host (wake 5 us, 6 us once idle >= 2 us):
 * A at t=0 wakes thread 0 (starts 5 us, runs to 15 us); B at 14 us wakes
 * thread 1 (ready at 20 us), but thread 0 frees at 15 us and takes B; C at
 * 16 us finds thread 1 still waking for one queued item: no wake-up, and
 * thread 1 runs C at 20 us.  Two wake-ups in all; thread 2 never wakes.
 */
static void test_pool_no_redundant_wakeup(void **state)
{
    struct sim *s = sim_create(9);
    struct cpu_host h;
    struct cpu_params p = c1_params();
    p.cores = 8;
    cpu_host_init(&h, s, &p);
    struct cpu_pool pool;
    cpu_pool_init(&pool, &h, "t", 3);
    struct run_log l = {.pool = &pool, .work_us = 10};
    sim_schedule(s, 0, submit_ev, &l, 1);
    sim_schedule(s, 14000, submit_ev, &l, 2);
    sim_schedule(s, 16000, submit_ev, &l, 3);
    sim_run(s, SIM_TIME_MAX);
    assert_int_equal(l.n, 3);
    const sim_time_t want_t[] = {5000, 15000, 20000};
    const uint32_t want_th[] = {0, 0, 1};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(l.arg[i], (uint64_t)i + 1);
        assert_int_equal(l.t[i], want_t[i]);
        assert_int_equal(l.thread[i], want_th[i]);
    }
    assert_int_equal(h.wakeups, 2);
    cpu_pool_fini(&pool);
    sim_destroy(s);
}

/* A polling pool (Seastar reactor) never pays a wake-up, even after a long idle with C2. */
static void test_pool_polling_no_wake_cost(void **state)
{
    struct sim *s = sim_create(5);
    struct cpu_host h;
    struct cpu_params p = deep_params();
    cpu_host_init(&h, s, &p);
    struct cpu_pool pool;
    cpu_pool_init(&pool, &h, "reactor", 2);
    pool.polling = true;
    struct run_log l = {.pool = &pool, .work_us = 0};
    sim_schedule(s, 10000000, submit_ev, &l, 1);
    sim_run(s, SIM_TIME_MAX);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.t[0], 10000000);
    assert_true(h.wake_ns_total == 0);
    cpu_pool_fini(&pool);
    sim_destroy(s);
}

/*
 * net.core.busy_poll 50 us, wake 5 us, C1 (exit 1, residency 2), cores at the
 * reference clock, thread_sleep_us 2.  By hand: item 1 at 0 wakes the thread
 * (idle 0 us: 5 us), runs 5 -> 15 and the thread spins 15 -> 65; item 2 at 30
 * finds it spinning: starts at 30 exactly, no wake-up; it runs to 40, the
 * spin 40 -> 90, then it sleeps; item 3 at 300 wakes it from 210 us of sleep:
 * 5 + 1 = 6 us, at 306.  Its CPU: 3 x 10 us of work + 15 us of spin + 50 us of
 * spin and its 2 us way to sleep = 97 us; 2 wake-ups.  The same pool whose
 * sockets never saw a NIC queue (napi_seen false: loopback) never spins: 3
 * wake-ups (item 2 at 30 + 5 + 1).
 */
static void test_pool_busy_poll(void **state)
{
    for (int napi = 1; napi >= 0; napi--) {
        struct sim *s = sim_create(5);
        struct cpu_host h;
        struct cpu_params p = c1_params();
        p.sleep_us = 2;
        p.busy_poll_us = 50;
        cpu_host_init(&h, s, &p);
        struct cpu_pool pool;
        cpu_pool_init(&pool, &h, "msgr-worker", 1);
        pool.napi_seen = napi;
        struct run_log l = {.pool = &pool, .work_us = 10};
        sim_schedule(s, 0, submit_ev, &l, 1);
        sim_schedule(s, 30000, submit_ev, &l, 2);
        sim_schedule(s, 300000, submit_ev, &l, 3);
        assert_false(cpu_pool_spinning(&pool));
        sim_run(s, SIM_TIME_MAX);
        assert_int_equal(l.n, 3);
        if (napi) {
            assert_int_equal(l.t[0], 5000);
            assert_int_equal(l.t[1], 30000);
            assert_int_equal(l.t[2], 306000);
            assert_int_equal(pool.threads[0].wakeups, 2);
            assert_true(fabs(pool.threads[0].busy_ns - 97000) < 1);
        } else {
            assert_int_equal(l.t[1], 36000);
            assert_int_equal(pool.threads[0].wakeups, 3);
        }
        cpu_pool_fini(&pool);
        sim_destroy(s);
    }
}

/*
 * cpu_thread_block / cpu_thread_resume (BlueStore's reader in aio_wait): a
 * one-thread pool, wake 5 us, C1 (exit 1, residency 2).  Item A at 0 wakes
 * the thread (5 us), blocks at 5; item B queued at 10 waits: the blocked
 * thread keeps A and takes nothing else.  At 100 another event resumes it:
 * 95 us asleep, so 5 + 1 = 6 us: A's rest runs at 106 and B starts at 106
 * when A releases.  Two wake-ups counted (A's start and the resume).
 */
struct block_probe {
    struct cpu_pool *pool;
    struct cpu_thread *blocked;
    sim_time_t resumed_at, b_at;
};

static void probe_resumed(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct block_probe *b = obj;
    b->resumed_at = sim_now(s);
    cpu_thread_release(th);
}

static void probe_blocks(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct block_probe *b = obj;
    b->blocked = th;
    cpu_thread_block(th);
}

static void probe_b(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct block_probe *b = obj;
    b->b_at = sim_now(s);
    cpu_thread_release(th);
}

static void submit_b(struct sim *s, void *obj, uint64_t arg)
{
    struct block_probe *b = obj;
    cpu_pool_submit(b->pool, CPU_PRIO_NORMAL, probe_b, b, 0);
}

static void resume_ev(struct sim *s, void *obj, uint64_t arg)
{
    struct block_probe *b = obj;
    cpu_thread_resume(b->blocked, probe_resumed, b, 0);
}

static void test_thread_block_resume(void **state)
{
    struct sim *s = sim_create(5);
    struct cpu_host h;
    struct cpu_params p = c1_params();
    cpu_host_init(&h, s, &p);
    struct cpu_pool pool;
    cpu_pool_init(&pool, &h, "tp_osd_tp", 1);
    struct block_probe b = {.pool = &pool};
    cpu_pool_submit(&pool, CPU_PRIO_NORMAL, probe_blocks, &b, 0);
    sim_schedule(s, 10000, submit_b, &b, 0);
    sim_schedule(s, 100000, resume_ev, &b, 0);
    sim_run(s, SIM_TIME_MAX);
    assert_int_equal(b.resumed_at, 106000);
    assert_int_equal(b.b_at, 106000);
    assert_int_equal(pool.threads[0].wakeups, 2);
    cpu_pool_fini(&pool);
    sim_destroy(s);
}

/* ---- cpu_exec ---- */

struct exec_probe {
    struct cpu_pool *pool;
    double work_us;
    int remaining;          /* execs still to run back to back */
    sim_time_t t0;
    double *dur_ns;         /* optional: each exec's duration */
    int n;
};

static void probe_step(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);

static void probe_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct exec_probe *e = obj;
    if (e->dur_ns)
        e->dur_ns[e->n] = (double)(sim_now(s) - e->t0);
    e->n++;
    probe_step(s, th, obj, arg);
}

static void probe_step(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct exec_probe *e = obj;
    if (e->remaining-- <= 0) {
        cpu_thread_release(th);
        return;
    }
    e->t0 = sim_now(s);
    cpu_exec(th, e->work_us, probe_done, e, 0);
}

/* Performance governor, work_cv 0: 33 us at ref 3.0 GHz on a 3.3 GHz core = 30 us; at 2.0 GHz, 49.5 us. */
static void test_exec_clock_scaling(void **state)
{
    const double clocks[] = {3.3, 2.0, 3.0};
    const sim_time_t want[] = {30000, 49500, 33000};
    for (int k = 0; k < 3; k++) {
        struct sim *s = sim_create(6);
        struct cpu_host h;
        struct cpu_params p = base_params();
        p.max_clock_ghz = p.idle_clock_ghz = clocks[k];
        cpu_host_init(&h, s, &p);
        assert_true(fabs(cpu_clock_ghz(&h) - clocks[k]) < 1e-12);
        struct cpu_pool pool;
        cpu_pool_init(&pool, &h, "t", 1);
        double dur[3];
        struct exec_probe e = {.pool = &pool, .work_us = 33, .remaining = 3, .dur_ns = dur};
        cpu_pool_submit(&pool, CPU_PRIO_NORMAL, probe_step, &e, 0);
        sim_run(s, SIM_TIME_MAX);
        assert_int_equal(e.n, 3);
        for (int i = 0; i < 3; i++)
            assert_true(dur[i] == (double)want[k]);
        assert_true(pool.threads[0].busy_ns == 3.0 * (double)want[k]);
        assert_true(h.busy_ns_total == 3.0 * (double)want[k]);
        assert_false(pool.threads[0].busy);
        cpu_pool_fini(&pool);
        sim_destroy(s);
    }
}

/* ---- governor ---- */

/* Event: one isolated 10 us exec every period on a 1-thread pool. */
struct sparse_load {
    struct cpu_pool *pool;
    struct exec_probe e;
    sim_time_t period;
    int left;
};

static void sparse_tick(struct sim *s, void *obj, uint64_t arg)
{
    struct sparse_load *sl = obj;
    sl->e.remaining = 1;
    cpu_pool_submit(sl->pool, CPU_PRIO_NORMAL, probe_step, &sl->e, 0);
    if (--sl->left > 0)
        sim_schedule(s, sl->period, sparse_tick, sl, 0);
}

/*
 * ondemand/schedutil (idle 1.5, max 3.3 GHz, ref 3.0, up_util 0.8, window
 * 1 ms), 4 cores.  Low load: one 10 us item per ms (20 us of 4 x 1000 us:
 * 0.5 % utilisation) runs at the idle clock: 10 x 3.0 / 1.5 = 20 us (down to
 * 19.7 us allowed: that utilisation / 0.8 may lift the clock by ~1 %).
 * Sustained load: 8 threads (> 4 cores) back to back: the clock converges
 * to 3.3 GHz (an exec's core time -> 10 x 3.0 / 3.3 = 9.09 us) within a few
 * windows and is not there yet during the first window (a ramp, not a jump).
 * Performance runs at max even at low load.
 */
static void test_governor(void **state)
{
    const enum cpu_governor govs[] = {CPU_GOV_ONDEMAND, CPU_GOV_SCHEDUTIL, CPU_GOV_PERFORMANCE};
    for (int g = 0; g < 3; g++) {
        struct cpu_params p = base_params();
        p.governor = govs[g];
        p.idle_clock_ghz = govs[g] == CPU_GOV_PERFORMANCE ? 3.3 : 1.5;
        p.max_clock_ghz = 3.3;

        /* low load */
        struct sim *s = sim_create(7);
        struct cpu_host h;
        cpu_host_init(&h, s, &p);
        struct cpu_pool pool;
        cpu_pool_init(&pool, &h, "t", 1);
        double dur[50];
        struct sparse_load sl = {.pool = &pool, .period = 1000000, .left = 50,
                                 .e = {.pool = &pool, .work_us = 10, .dur_ns = dur}};
        sim_schedule(s, 0, sparse_tick, &sl, 0);
        sim_run(s, SIM_TIME_MAX);
        assert_int_equal(sl.e.n, 50);
        for (int i = 0; i < 50; i++) {
            if (govs[g] == CPU_GOV_PERFORMANCE)
                assert_true(fabs(dur[i] - 10000 * 3.0 / 3.3) <= 1);
            else
                assert_true(dur[i] >= 19700 && dur[i] <= 20000 + 1);
        }
        cpu_pool_fini(&pool);
        sim_destroy(s);

        /* sustained load */
        s = sim_create(8);
        cpu_host_init(&h, s, &p);
        cpu_pool_init(&pool, &h, "t", 8);
        struct exec_probe e[8];
        for (int i = 0; i < 8; i++) {
            e[i] = (struct exec_probe){.pool = &pool, .work_us = 10, .remaining = 1 << 30};
            cpu_thread_submit(&pool.threads[i], probe_step, &e[i], 0);
        }
        double first_window_clock = 0;
        for (int ms = 1; ms <= 10; ms++) {
            double busy0 = pool.threads[0].busy_ns;
            int n0 = e[0].n;
            sim_run(s, (sim_time_t)ms * 1000000);
            double per_exec_ns = (pool.threads[0].busy_ns - busy0) / (e[0].n - n0);
            double clock = 10000 * 3.0 / per_exec_ns; /* clock the execs of this ms ran at */
            if (ms == 1)
                first_window_clock = clock;
            if (ms >= 5)
                assert_true(fabs(clock - 3.3) < 0.005);
        }
        if (govs[g] == CPU_GOV_PERFORMANCE)
            assert_true(fabs(first_window_clock - 3.3) < 1e-3);
        else
            assert_true(first_window_clock < 3.2);
        assert_true(fabs(cpu_clock_ghz(&h) - 3.3) < 1e-6);
        assert_true(cpu_host_busy_cores(&h) > 3.99); /* cores saturated */
        /* stop the loops: sim is destroyed with events pending */
        cpu_pool_fini(&pool);
        sim_destroy(s);
    }
}

/* ---- boost, P0, SMT, CCX ---- */

/*
 * The boost limit by hand (4 cores, boost 3.3, all-core 2.9, base 2.5): one
 * core active 3.3; n active 3.3 - 0.4 (n - 1) / 3: 3.1667, 3.0333, all four
 * 2.9.  With all-core 2.0 the line would cross base: 3.3 - 1.3 x 2/3 = 2.433
 * at n = 3, held at base 2.5; n = 2: 2.8667.  Without boost figures: no limit.
 */
static void test_boost_limit(void **state)
{
    struct cpu_params p = base_params();
    p.base_clock_ghz = 2.5;
    p.boost_clock_ghz = 3.3;
    p.all_core_clock_ghz = 2.9;
    assert_true(fabs(cpu_boost_limit_ghz(&p, 1) - 3.3) < 1e-12);
    assert_true(fabs(cpu_boost_limit_ghz(&p, 2) - (3.3 - 0.4 / 3)) < 1e-12);
    assert_true(fabs(cpu_boost_limit_ghz(&p, 3) - (3.3 - 0.8 / 3)) < 1e-12);
    assert_true(fabs(cpu_boost_limit_ghz(&p, 4) - 2.9) < 1e-12);
    p.all_core_clock_ghz = 2.0;
    assert_true(fabs(cpu_boost_limit_ghz(&p, 2) - 2.866666666666667) < 1e-12);
    assert_true(fabs(cpu_boost_limit_ghz(&p, 3) - 2.5) < 1e-12);
    assert_true(fabs(cpu_boost_limit_ghz(&p, 4) - 2.5) < 1e-12);
    p.boost_clock_ghz = 0;
    assert_true(isinf(cpu_boost_limit_ghz(&p, 4)));
}

/*
 * Performance governor (policy max 3.3) with that boost: four threads start
 * a 33 us (at 3.0 GHz) stage at t = 0, one after the other, then go on
 * computing.  By hand, duration = 33 x 3.0 / clock: the first runs alone at
 * 3.3 (30.000 us), the second with 2 cores active at 3.1667 (31.263 us), the
 * third at 3.0333 (32.637 us), the fourth at the all-core 2.9 (34.138 us);
 * every later stage runs with all four busy: 34.138 us.  A lone thread on the
 * same host stays at boost: 30 us each.
 */
static void test_boost_by_active_cores(void **state)
{
    const double want_first[4] = {30000, 99000 / (3.3 - 0.4 / 3), 99000 / (3.3 - 0.8 / 3), 99000 / 2.9};
    for (int lone = 0; lone < 2; lone++) {
        struct sim *s = sim_create(21);
        struct cpu_host h;
        struct cpu_params p = base_params();
        p.max_clock_ghz = p.idle_clock_ghz = 3.3;
        p.base_clock_ghz = 2.5;
        p.boost_clock_ghz = 3.3;
        p.all_core_clock_ghz = 2.9;
        cpu_host_init(&h, s, &p);
        int n = lone ? 1 : 4;
        struct cpu_pool pool;
        cpu_pool_init(&pool, &h, "t", (uint32_t)n);
        double dur[4][3];
        struct exec_probe e[4];
        for (int i = 0; i < n; i++) {
            e[i] = (struct exec_probe){.pool = &pool, .work_us = 33, .remaining = 3, .dur_ns = dur[i]};
            cpu_thread_submit(&pool.threads[i], probe_step, &e[i], 0);
        }
        sim_run(s, SIM_TIME_MAX);
        for (int i = 0; i < n; i++) {
            assert_int_equal(e[i].n, 3);
            if (fabs(dur[i][0] - want_first[i]) > 1)
                fail_msg("thread %d, first stage: %.0f ns, expected %.0f", i, dur[i][0], want_first[i]);
            double later = lone ? 30000 : 99000 / 2.9;
            if (fabs(dur[i][1] - later) > 1)
                fail_msg("thread %d, second stage: %.0f ns, expected %.0f", i, dur[i][1], later);
        }
        cpu_pool_fini(&pool);
        sim_destroy(s);
    }
}

/*
 * ondemand with P0 = base 3.0 below the policy max 3.3 (idle 1.5, up_util
 * 0.8, boost 3.3, all-core 3.0, 4 cores): at utilisation 0.4 the governor
 * asks for 1.5 + (3.0 - 1.5) x 0.4 / 0.8 = 2.25 GHz (without a base:
 * 1.5 + 1.8 x 0.5 = 2.4); at 0.79, 2.98125; at 0.8 it requests P0 and the
 * hardware boosts: 3.3 with one core active, 3.0 with all four.
 */
static void test_governor_p0_and_boost(void **state)
{
    struct sim *s = sim_create(22);
    struct cpu_host h;
    struct cpu_params p = base_params();
    p.governor = CPU_GOV_ONDEMAND;
    p.idle_clock_ghz = 1.5;
    p.max_clock_ghz = 3.3;
    p.base_clock_ghz = 3.0;
    p.boost_clock_ghz = 3.3;
    p.all_core_clock_ghz = 3.0;
    cpu_host_init(&h, s, &p); /* t = 0 = util_t: the estimate is not updated */
    h.util = 0.4;
    assert_true(fabs(cpu_stage_clock_ghz(&h, 1) - 2.25) < 1e-12);
    h.util = 0.79;
    assert_true(fabs(cpu_stage_clock_ghz(&h, 4) - 2.98125) < 1e-12);
    h.util = 0.8;
    assert_true(fabs(cpu_stage_clock_ghz(&h, 1) - 3.3) < 1e-12);
    assert_true(fabs(cpu_stage_clock_ghz(&h, 4) - 3.0) < 1e-12);
    h.p.base_clock_ghz = 0; /* no P0 figure: the ramp goes to the policy max */
    h.util = 0.4;
    assert_true(fabs(cpu_stage_clock_ghz(&h, 1) - 2.4) < 1e-12);
    sim_destroy(s);
}

/*
 * SMT: 2 cores, 4 hardware threads, a pair delivers 1.25.  By hand, with n
 * busy threads: n <= 2 full speed; n = 3: one paired core (1.25) and one
 * single (1), 2.25 / 3 = 0.75; n = 4: 2 x 1.25 / 4 = 0.625.  Four threads
 * start a 30 us stage at t = 0: 30, 30, 40 and 48 us; then, all four busy,
 * 48 us each (2.5 cores' worth of work per 30 us of one core).
 */
static void test_smt_siblings(void **state)
{
    struct cpu_params p = base_params();
    p.cores = 2;
    p.threads = 4;
    p.smt_pair_throughput = 1.25;
    assert_true(cpu_smt_speed(&p, 1) == 1 && cpu_smt_speed(&p, 2) == 1);
    assert_true(fabs(cpu_smt_speed(&p, 3) - 0.75) < 1e-12);
    assert_true(fabs(cpu_smt_speed(&p, 4) - 0.625) < 1e-12);
    struct sim *s = sim_create(23);
    struct cpu_host h;
    cpu_host_init(&h, s, &p);
    struct cpu_pool pool;
    cpu_pool_init(&pool, &h, "t", 4);
    double dur[4][2];
    struct exec_probe e[4];
    for (int i = 0; i < 4; i++) {
        e[i] = (struct exec_probe){.pool = &pool, .work_us = 30, .remaining = 2, .dur_ns = dur[i]};
        cpu_thread_submit(&pool.threads[i], probe_step, &e[i], 0);
    }
    sim_run(s, SIM_TIME_MAX);
    const double want[4] = {30000, 30000, 40000, 48000};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(e[i].n, 2);
        assert_true(fabs(dur[i][0] - want[i]) <= 1);
        assert_true(fabs(dur[i][1] - 48000) <= 1);
    }
    cpu_pool_fini(&pool);
    sim_destroy(s);
}

/* A waker that hands work to two sleeping threads. */
struct handoff {
    struct cpu_pool *a;
    struct run_log *b, *c;
};

static void handoff_item(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct handoff *ho = obj;
    cpu_pool_submit(ho->b->pool, CPU_PRIO_NORMAL, log_item, ho->b, 1);
    cpu_pool_submit(ho->c->pool, CPU_PRIO_NORMAL, log_item, ho->c, 2);
    cpu_thread_release(th);
}

static void handoff_ev(struct sim *s, void *obj, uint64_t arg)
{
    struct handoff *ho = obj;
    cpu_pool_submit(ho->a, CPU_PRIO_NORMAL, handoff_item, ho, 0);
}

/*
 * CCX: 4 cores in 2 CCXs (ccx_cores 2), cross-CCX wake 1.5 us, wake 5 us,
 * C1 exit 1 us.  Threads are placed round robin: A (CCX 0), B (CCX 1), C
 * (CCX 0).  An event wakes A at 10 us: 5 + 1 = 6 us, no waker thread, A runs
 * at 16 us and hands work to B and C: B, on the other CCX, pays
 * 5 + 1 + 1.5 = 7.5 us (runs at 23.5 us), C 6 us (22 us).  A device-style
 * event waking B at 100 us pays 6 us: 106 us.
 */
static void test_cross_ccx_wake(void **state)
{
    struct sim *s = sim_create(24);
    struct cpu_host h;
    struct cpu_params p = c1_params();
    p.ccx_cores = 2;
    p.cross_ccx_wake_us = 1.5;
    cpu_host_init(&h, s, &p);
    assert_int_equal(h.n_ccx, 2);
    struct cpu_pool a, b, c;
    cpu_pool_init(&a, &h, "a", 1);
    cpu_pool_init(&b, &h, "b", 1);
    cpu_pool_init(&c, &h, "c", 1);
    assert_int_equal(a.threads[0].ccx, 0);
    assert_int_equal(b.threads[0].ccx, 1);
    assert_int_equal(c.threads[0].ccx, 0);
    struct run_log lb = {.pool = &b}, lc = {.pool = &c};
    struct handoff ho = {.a = &a, .b = &lb, .c = &lc};
    sim_schedule(s, 10000, handoff_ev, &ho, 0);
    sim_schedule(s, 100000, submit_ev, &lb, 3);
    sim_run(s, SIM_TIME_MAX);
    assert_int_equal(lb.n, 2);
    assert_int_equal(lc.n, 1);
    assert_int_equal(lb.t[0], 23500);
    assert_int_equal(lc.t[0], 22000);
    assert_int_equal(lb.t[1], 106000);
    assert_true(h.wake_ns_total == 6000 + 7500 + 6000 + 6000);
    cpu_pool_fini(&a);
    cpu_pool_fini(&b);
    cpu_pool_fini(&c);
    sim_destroy(s);
}

/* ---- M/M/c on the cores ---- */

struct mmc {
    struct cpu_pool *pool;
    gsl_rng *rng;
    double lambda_per_ns, mean_work_us;
    sim_time_t t_end;
};

static void mmc_item(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct mmc *m = obj;
    cpu_exec(th, gsl_ran_exponential(m->rng, m->mean_work_us), item_released, m, 0);
}

static void mmc_arrival(struct sim *s, void *obj, uint64_t arg)
{
    struct mmc *m = obj;
    cpu_pool_submit(m->pool, CPU_PRIO_NORMAL, mmc_item, m, 0);
    sim_time_t gap = (sim_time_t)llround(gsl_ran_exponential(m->rng, 1.0 / m->lambda_per_ns));
    if (sim_now(s) + gap < m->t_end)
        sim_schedule(s, gap, mmc_arrival, m, 0);
}

/* Erlang C: probability that an arrival waits, c servers, offered load a = lambda / mu. */
static double erlang_c(int c, double a)
{
    double term = 1, sum = 1; /* a^k / k! for k = 0 */
    for (int k = 1; k < c; k++) {
        term *= a / k;
        sum += term;
    }
    double last = term * a / c; /* a^c / c! */
    double rho = a / c;
    return last / (1 - rho) / (sum + last / (1 - rho));
}

/*
 * Poisson arrivals (rate 0.32 /us) of exponential work (mean 10 us) to a
 * polling pool of 64 threads on 4 cores at the reference clock: the cores are
 * an M/M/4 queue at rho = 0.8.  Mean wait for a core = C(4, 3.2) / (c mu - lambda)
 * = 0.59643 / 0.08 /us = 7.455 us; each replication's mean after a 20 ms warm-up,
 * 20 replications, must bracket it; utilisation 0.8 likewise.
 */
static void test_cores_mmc(void **state)
{
    enum { REPS = 20 };
    const int c = 4;
    const double mean_us = 10, lambda_us = 0.32;
    double wq[REPS], util[REPS];
    for (int r = 0; r < REPS; r++) {
        struct sim *s = sim_create(100 + (uint64_t)r);
        struct cpu_host h;
        struct cpu_params p = base_params();
        p.cores = (uint32_t)c;
        cpu_host_init(&h, s, &p);
        struct cpu_pool pool;
        cpu_pool_init(&pool, &h, "t", 64);
        pool.polling = true;
        struct mmc m = {.pool = &pool, .rng = sim_rng(s, "test", 0, "mmc"),
                        .lambda_per_ns = lambda_us / 1e3, .mean_work_us = mean_us,
                        .t_end = 300 * SIM_NS_PER_MS};
        sim_schedule(s, 0, mmc_arrival, &m, 0);
        sim_run(s, 20 * SIM_NS_PER_MS);
        cpu_host_reset_stats(&h);
        sim_run(s, m.t_end);
        wq[r] = station_mean_wait_ns(&h.cores) / 1e3;
        util[r] = station_utilisation(&h.cores);
        sim_run(s, SIM_TIME_MAX);
        cpu_pool_fini(&pool);
        sim_destroy(s);
    }
    double a = lambda_us * mean_us;
    double want_wq = erlang_c(c, a) / (c / mean_us - lambda_us);
    assert_true(fabs(want_wq - 7.455) < 0.001); /* the hand figure above */
    assert_in_ci("M/M/4 mean wait for a core (us)", want_wq, wq, REPS);
    assert_in_ci("M/M/4 utilisation", a / c, util, REPS);
    struct ci ci = stats_ci95(wq, REPS);
    assert_true(ci.half < 0.05 * want_wq); /* tight enough to mean something */
}

/* ---- jitter ---- */

/*
 * work_cv 0.2 and 0.5, a 10 us stage on an otherwise idle host at the
 * reference clock: the mean exec time over 10 replications of 20,000 execs
 * brackets 10 us, and the pooled coefficient of variation is work_cv +- 5 %.
 */
static void test_exec_jitter(void **state)
{
    enum { REPS = 10, N = 20000 };
    const double cvs[] = {0.2, 0.5};
    double *dur = malloc(N * sizeof *dur);
    for (int k = 0; k < 2; k++) {
        double means[REPS], sum = 0, sum2 = 0;
        for (int r = 0; r < REPS; r++) {
            struct sim *s = sim_create(200 + (uint64_t)r);
            struct cpu_host h;
            struct cpu_params p = base_params();
            p.work_cv = cvs[k];
            cpu_host_init(&h, s, &p);
            struct cpu_pool pool;
            cpu_pool_init(&pool, &h, "t", 1);
            struct exec_probe e = {.pool = &pool, .work_us = 10, .remaining = N, .dur_ns = dur};
            cpu_pool_submit(&pool, CPU_PRIO_NORMAL, probe_step, &e, 0);
            sim_run(s, SIM_TIME_MAX);
            assert_int_equal(e.n, N);
            double m = 0;
            for (int i = 0; i < N; i++) {
                m += dur[i];
                sum += dur[i];
                sum2 += dur[i] * dur[i];
            }
            means[r] = m / N / 1e3;
            cpu_pool_fini(&pool);
            sim_destroy(s);
        }
        assert_in_ci("mean exec time with jitter (us)", 10.0, means, REPS);
        double n = (double)N * REPS, mean = sum / n;
        double cv = sqrt((sum2 - n * mean * mean) / (n - 1)) / mean;
        if (fabs(cv - cvs[k]) > 0.05 * cvs[k])
            fail_msg("work_cv %.2f: measured CV %.4f", cvs[k], cv);
    }
    free(dur);
}

/*
 * The tables cpu_host_init builds once instead of per stage or per host:
 * hosts of one work_cv share one jitter table (another work_cv gets its
 * own, of mean exactly 1), and under the performance governor the tabled
 * clock x SMT speed for n busy hardware threads is what the governor and
 * SMT functions give for n, for every n of a boosting SMT host.
 */
static void test_host_tables(void **state)
{
    struct sim *s = sim_create(1);
    struct cpu_params p = base_params();
    p.work_cv = 0.3;
    p.cores = 8;
    p.threads = 16;
    p.smt_pair_throughput = 1.25;
    p.base_clock_ghz = 2.5;
    p.boost_clock_ghz = 3.4;
    p.all_core_clock_ghz = 2.9;
    p.max_clock_ghz = 3.4;
    struct cpu_host a, b, c;
    cpu_host_init(&a, s, &p);
    cpu_host_init(&b, s, &p);
    p.work_cv = 0.5;
    cpu_host_init(&c, s, &p);
    assert_ptr_equal(a.jitter, b.jitter);
    assert_ptr_not_equal(a.jitter, c.jitter);
    double sum = 0;
    for (int i = 0; i < CPU_JITTER_LEVELS; i++)
        sum += c.jitter[i];
    assert_true(fabs(sum / CPU_JITTER_LEVELS - 1) < 1e-12);
    assert_non_null(a.stage_ghz);
    for (uint32_t n = 1; n <= 16; n++)
        assert_true(a.stage_ghz[n] == cpu_stage_clock_ghz(&a, n < 8 ? n : 8) * cpu_smt_speed(&a.p, n));
    /* with 1 busy: the one-core boost; all 16: the all-core clock x 1.25 / 2 */
    assert_true(fabs(a.stage_ghz[1] - 3.4) < 1e-12);
    assert_true(fabs(a.stage_ghz[16] - 2.9 * 0.625) < 1e-12);
    sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wake_latency_cstates),
        cmocka_unit_test(test_wake_latency_through_pool),
        cmocka_unit_test(test_sleep_cpu_off_the_path),
        cmocka_unit_test(test_scheduler_wakeup_preemption),
        cmocka_unit_test(test_scheduler_victim_ties),
        cmocka_unit_test(test_pool_fifo),
        cmocka_unit_test(test_pool_priorities),
        cmocka_unit_test(test_pool_private_first),
        cmocka_unit_test(test_pool_one_wakeup_per_thread),
        cmocka_unit_test(test_pool_no_redundant_wakeup),
        cmocka_unit_test(test_pool_figures_since_reset),
        cmocka_unit_test(test_pool_wake_all),
        cmocka_unit_test(test_pool_polling_no_wake_cost),
        cmocka_unit_test(test_pool_busy_poll),
        cmocka_unit_test(test_thread_block_resume),
        cmocka_unit_test(test_exec_clock_scaling),
        cmocka_unit_test(test_governor),
        cmocka_unit_test(test_boost_limit),
        cmocka_unit_test(test_boost_by_active_cores),
        cmocka_unit_test(test_governor_p0_and_boost),
        cmocka_unit_test(test_smt_siblings),
        cmocka_unit_test(test_cross_ccx_wake),
        cmocka_unit_test(test_cores_mmc),
        cmocka_unit_test(test_exec_jitter),
        cmocka_unit_test(test_host_tables),
    };
    return cmocka_run_group_tests_name("cpu", tests, NULL, NULL);
}
