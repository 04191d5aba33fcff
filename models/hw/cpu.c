/*
 * cpu.c - cores, thread pools and wake-ups (see cpu.h).
 *
 * Mirrors the parts of Linux scheduling that decide Ceph's low-load latency:
 * futex wake-up of a sleeping worker (ceph::condition_variable::notify_one in
 * OSD::ShardedOpWQ::_enqueue, the msgr EventCenter's eventfd, BlueStore's
 * kv_cond), the idle core's C-state exit latency, the cpufreq governor with
 * the hardware's boost above P0, SMT siblings sharing a core, and the
 * cross-CCX cost of a hand-off.
 * Simplifications: one station of hardware threads per host shared by all
 * daemons on it (no pinning); a woken thread runs on whichever hardware
 * thread frees first; a thread's CCX is fixed at creation; a stage keeps the
 * clock and SMT speed it started with.
 */
#include "cpu.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <gsl/gsl_cdf.h>

#include "err.h"

static struct cpu_sched_state *sched_state(const struct cpu_thread *th)
{
    return &th->pool->sched[th->index];
}

/* The run queue's order under CFS / EEVDF: virtual runtime. */
static double sched_key(const void *obj)
{
    return sched_state(obj)->vruntime;
}

static void sched_started(void *obj, struct sim_handle ev, sim_time_t end)
{
    struct cpu_thread *th = obj;
    struct cpu_host *h = th->host;
    struct cpu_sched_state *st = sched_state(th);
    st->ev = ev;
    st->stage_end = end;
    st->on_core = true;
    SIM_ASSERT(h->n_on_core < h->n_hw_threads);
    st->core_slot = h->n_on_core;
    h->on_core[h->n_on_core++] = th;
}

/* st's stage left its core (done, or cut by a preemption). */
static void sched_off_core(struct cpu_host *h, struct cpu_sched_state *st)
{
    st->on_core = false;
    struct cpu_thread *last = h->on_core[--h->n_on_core];
    h->on_core[st->core_slot] = last;
    sched_state(last)->core_slot = st->core_slot;
}

void cpu_host_init(struct cpu_host *h, struct sim *s, const struct cpu_params *p)
{
    memset(h, 0, sizeof *h);
    h->s = s;
    h->p = *p;
    SIM_ASSERT(p->cores > 0 && p->max_clock_ghz > 0 && p->ref_clock_ghz > 0);
    if (h->p.threads < p->cores)
        h->p.threads = p->cores;
    SIM_ASSERT(h->p.threads == p->cores || p->smt_pair_throughput > 0);
    h->n_ccx = p->ccx_cores > 0 && p->ccx_cores < p->cores ? p->cores / p->ccx_cores : 1;
    station_init_direct(&h->cores, s, h->p.threads); /* exec_done is the completion event */
    h->n_cores = h->p.cores;
    h->n_hw_threads = h->p.threads;
    h->ref_clock_ghz = h->p.ref_clock_ghz;
    h->timeslice_ns = h->p.timeslice_us * 1e3;
    if (p->sched != CPU_SCHED_FIFO) {
        /* sysctl_sched_latency 6 ms and wakeup_granularity 1 ms, x (1 + log2 min(CPUs, 8))
           (SCHED_TUNABLESCALING_LOG); a sleeper's credit is half the latency
           (GENTLE_FAIR_SLEEPERS) */
        uint32_t n = h->p.threads < 8 ? h->p.threads : 8, lg = 0;
        while (n >>= 1)
            lg++;
        double factor = 1 + lg;
        h->sleeper_credit_ns = 3e6 * factor;
        h->wakeup_gran_ns = p->sched == CPU_SCHED_CFS ? 1e6 * factor : 0;
        h->cores.key = sched_key;
        h->cores.on_start = sched_started;
        h->on_core = sim_alloc(s, h->p.threads, sizeof *h->on_core);
    }
    h->busy_poll_ns = (sim_time_t)llround(h->p.busy_poll_us * 1e3);
    h->util_t = sim_now(s);
    if (p->work_cv > 0) {
        /* inverse-CDF sampling through a table of quantiles at (i + 0.5) / N:
           exact in distribution up to N levels, one uniform draw per stage;
           the table depends on work_cv alone, so hosts share it */
        bool fresh;
        double *jit = sim_shared_table(s, "cpu-jitter", p->work_cv, CPU_JITTER_LEVELS * sizeof *jit, &fresh);
        if (fresh) {
            double s2 = log1p(p->work_cv * p->work_cv), sigma = sqrt(s2), mu = -s2 / 2;
            double sum = 0;
            for (int i = 0; i < CPU_JITTER_LEVELS; i++) {
                double q = (i + 0.5) / CPU_JITTER_LEVELS;
                jit[i] = exp(mu + sigma * gsl_cdf_ugaussian_Pinv(q));
                sum += jit[i];
            }
            for (int i = 0; i < CPU_JITTER_LEVELS; i++) /* mean exactly 1 */
                jit[i] *= CPU_JITTER_LEVELS / sum;
        }
        h->jitter = jit;
    }
    /* wake-up costs in ns, rounded once here rather than at every wake */
    h->wake_ns[0] = (sim_time_t)llround(p->wake_us * 1e3);
    for (int i = 0; i < p->n_cstates; i++)
        h->wake_ns[i + 1] = (sim_time_t)llround((p->wake_us + p->cstate_exit_us[i]) * 1e3);
    h->cross_ccx_ns = (sim_time_t)llround(p->cross_ccx_wake_us * 1e3);
    /* performance and a pinned powersave (acpi-cpufreq): a stage's speed
       depends on the busy hardware threads alone (the same expression cpu_exec
       evaluates); intel_pstate's powersave follows utilisation, so not that */
    if (p->governor == CPU_GOV_PERFORMANCE || (p->governor == CPU_GOV_POWERSAVE && !p->powersave_follows_load)) {
        h->stage_ghz = sim_alloc(s, h->p.threads + 1, sizeof *h->stage_ghz);
        for (uint32_t n = 1; n <= h->p.threads; n++)
            h->stage_ghz[n] = cpu_stage_clock_ghz(h, n < h->p.cores ? n : h->p.cores) * cpu_smt_speed(&h->p, n);
    }
}

void cpu_host_reset_stats(struct cpu_host *h)
{
    cpu_clock_ghz(h); /* fold the busy time so far into the governor's estimate */
    station_reset_stats(&h->cores);
    h->util_area = 0;
    h->busy_ns_total = 0;
    h->wakeups = 0;
    h->wake_ns_total = 0;
    for (struct cpu_pool *p = h->pools; p; p = p->host_next) {
        p->busy_ns_at_reset = cpu_pool_busy_ns(p);
        p->wakeups_at_reset = 0;
        for (uint32_t i = 0; i < p->n_threads; i++)
            p->wakeups_at_reset += p->threads[i].wakeups;
    }
}

double cpu_host_busy_cores(const struct cpu_host *h)
{
    /* busy hardware threads, i.e. busy cores until SMT siblings pair up */
    return station_utilisation(&h->cores) * h->p.threads;
}

double cpu_boost_limit_ghz(const struct cpu_params *p, uint32_t n_active)
{
    if (p->boost_clock_ghz <= 0)
        return INFINITY;
    double f = p->cores > 1 && n_active > 1 ? (double)(n_active - 1) / (p->cores - 1) : 0;
    if (f > 1)
        f = 1;
    double lim = p->boost_clock_ghz - (p->boost_clock_ghz - p->all_core_clock_ghz) * f;
    return lim > p->base_clock_ghz ? lim : p->base_clock_ghz; /* base is guaranteed */
}

double cpu_smt_speed(const struct cpu_params *p, uint32_t n_busy)
{
    if (n_busy <= p->cores || p->threads <= p->cores)
        return 1;
    /* the scheduler spreads busy threads over cores (select_idle_core): q or
       q + 1 per core; a core with m busy threads delivers 1 + (pair - 1)(m - 1) */
    uint32_t q = n_busy / p->cores, r = n_busy % p->cores;
    double k = p->smt_pair_throughput - 1;
    double total = r * (1 + k * q) + (p->cores - r) * (1 + k * (q - 1));
    return total / n_busy;
}

/* The clock at P0: boost, limited by the active cores and the policy's max. */
static double p0_clock(const struct cpu_params *p, uint32_t n_active)
{
    double lim = cpu_boost_limit_ghz(p, n_active);
    return lim < p->max_clock_ghz ? lim : p->max_clock_ghz;
}

double cpu_clock_ghz(struct cpu_host *h)
{
    uint32_t n = h->cores.busy < h->p.cores ? h->cores.busy : h->p.cores;
    return cpu_stage_clock_ghz(h, n ? n : 1);
}

double cpu_stage_clock_ghz(struct cpu_host *h, uint32_t n_active)
{
    const struct cpu_params *p = &h->p;
    switch (p->governor) {
    case CPU_GOV_PERFORMANCE:
        return p0_clock(p, n_active);
    case CPU_GOV_POWERSAVE:
        /* acpi-cpufreq's powersave pins the lowest P-state; intel_pstate's
           (HWP) lets the hardware follow load: ramp as ondemand does */
        if (!p->powersave_follows_load)
            return p->idle_clock_ghz;
        break;
    case CPU_GOV_ONDEMAND:
    case CPU_GOV_SCHEDUTIL:
        break;
    }
    /* cpufreq ondemand/schedutil: frequency follows recent utilisation
       (exponentially weighted over util_window_us), reaching the max clock at
       governor_up_util.  The busy fraction since the last look is the mean of
       the cores' busy count over that interval (not the instant value, which
       misses the job that just finished). */
    sim_time_t now = sim_now(h->s);
    if (now > h->util_t) {
        const struct tavg *b = &h->cores.busy_avg;
        double area = b->area + b->value * (double)(now - b->t_last);
        double dt = (double)(now - h->util_t);
        double busy = (area - h->util_area) / dt / p->cores;
        double w = p->util_window_us * 1e3;
        double a = w > 0 ? exp(-dt / w) : 0;
        h->util = h->util * a + busy * (1 - a);
        h->util_t = now;
        h->util_area = area;
    }
    double util = h->util;
    /* HWP (intel_pstate's powersave) picks each core's clock from that core's
       own activity: the host's busy time falls on the cores active now, so
       their utilisation is the host's x cores / active [est: per-core
       activity windows approximated by the host average over busy cores] */
    if (p->governor == CPU_GOV_POWERSAVE && p->powersave_follows_load && n_active > 0)
        util = util * p->cores / n_active < 1 ? util * p->cores / n_active : 1;
    double f = p->governor_up_util > 0 ? util / p->governor_up_util : 1;
    if (f >= 1)
        return p0_clock(p, n_active);
    /* below P0 the governor's request is what the core runs at */
    double top = p->base_clock_ghz > 0 && p->base_clock_ghz < p->max_clock_ghz ? p->base_clock_ghz
                                                                                : p->max_clock_ghz;
    return p->idle_clock_ghz + (top - p->idle_clock_ghz) * f;
}

sim_time_t cpu_wake_latency_ns(const struct cpu_host *h, sim_time_t idle_ns)
{
    const struct cpu_params *p = &h->p;
    double idle_us = (double)idle_ns / 1e3;
    for (int i = p->n_cstates - 1; i >= 0; i--)
        if (idle_us >= p->cstate_residency_us[i])
            return h->wake_ns[i + 1];
    return h->wake_ns[0];
}

/* ---- item queues ---- */

_Static_assert(sizeof(struct cpu_item) <= sizeof(struct sim_waiter), "cpu_item must fit a waiter");
/* the layout the hot paths count on (cpu.h): a thread is its two lines, a pool's
   queues and flags its first; a field added past them costs every event a miss */
_Static_assert(sizeof(struct cpu_thread) == 128 && offsetof(struct cpu_thread, pool) == 64,
               "cpu_thread is two cache lines");
_Static_assert(offsetof(struct cpu_pool, items_run) <= 64, "a pool's queues and flags fit its first line");

static struct cpu_item *item_get(struct cpu_pool *p)
{
    return (struct cpu_item *)sim_waiter_get(p->host->s); /* the host's first line */
}

static void item_put(struct cpu_pool *p, struct cpu_item *it)
{
    sim_waiter_put(p->host->s, (struct sim_waiter *)it);
}

/* A FIFO of items as (head, tail, length): the pool keeps its two queues'
   heads and lengths together in its first cache line. */
static void itemq_push_back(struct cpu_item **head, struct cpu_item **tail, uint32_t *len,
                            struct cpu_item *it)
{
    it->next = NULL;
    if (*tail)
        (*tail)->next = it;
    else
        *head = it;
    *tail = it;
    ++*len;
}

static void itemq_push_front(struct cpu_item **head, struct cpu_item **tail, uint32_t *len,
                             struct cpu_item *it)
{
    it->next = *head;
    *head = it;
    if (!*tail)
        *tail = it;
    ++*len;
}

static struct cpu_item *itemq_pop(struct cpu_item **head, struct cpu_item **tail, uint32_t *len)
{
    struct cpu_item *it = *head;
    if (it) {
        *head = it->next;
        if (!*head)
            *tail = NULL;
        --*len;
    }
    return it;
}

/* ---- threads ---- */

void cpu_pool_init(struct cpu_pool *p, struct cpu_host *h, const char *name, uint32_t n_threads)
{
    SIM_ASSERT(n_threads > 0);
    memset(p, 0, sizeof *p);
    p->host = h;
    p->name = name;
    p->n_threads = n_threads;
    p->host_prev = h->pools_tail;
    if (h->pools_tail)
        h->pools_tail->host_next = p;
    else
        h->pools = p;
    h->pools_tail = p;
    p->threads = sim_xcalloc_aligned(n_threads, sizeof *p->threads, 64);
    if (h->p.sched != CPU_SCHED_FIFO) {
        p->sched = sim_xcalloc(n_threads, sizeof *p->sched);
        for (uint32_t i = 0; i < n_threads; i++)
            p->sched[i].order = h->n_threads + i;
    }
    /*
     * A thread's stream id: host | the pool's creation order on it | thread.
     * The 32-bit index holds 4,096 pools per host; a host running more (fio
     * numjobs up to 4,096 = fio's REAL_MAX_JOBS, each job several pools) names
     * the further ones' streams by the purpose "work.K", K = pool_seq / 4,096,
     * so the first 4,096 pools keep the streams (and results) they always had.
     * The pool parameters bound threads per pool (<= 64, rbd_op_threads).
     */
    enum { THREAD_BITS = 8, POOL_BITS = 12, HOST_BITS = 32 - POOL_BITS - THREAD_BITS };
    SIM_ASSERT(n_threads <= 1u << THREAD_BITS && h->p.index < 1u << HOST_BITS);
    uint32_t pool_seq = h->n_pools++;
    char purpose[24] = "work";
    if (pool_seq >> POOL_BITS)
        snprintf(purpose, sizeof purpose, "work.%u", pool_seq >> POOL_BITS);
    for (uint32_t i = 0; i < n_threads; i++) {
        p->threads[i].host = h;
        p->threads[i].pool = p;
        p->threads[i].index = (uint16_t)i;
        p->threads[i].idle_since = sim_now(h->s);
        p->threads[i].ccx = (uint16_t)(h->n_threads++ % h->n_ccx);
        uint32_t id = h->p.index << (POOL_BITS + THREAD_BITS) |
                      (pool_seq & ((1u << POOL_BITS) - 1)) << THREAD_BITS | i;
        sim_rng_inline(h->s, "cpu-thread", id, purpose, &p->threads[i].rng);
    }
}

double cpu_pool_busy_ns(const struct cpu_pool *p)
{
    double ns = 0;
    for (uint32_t i = 0; i < p->n_threads; i++)
        ns += p->threads[i].busy_ns;
    return ns;
}

double cpu_pool_busy_ns_since_reset(const struct cpu_pool *p)
{
    return cpu_pool_busy_ns(p) - p->busy_ns_at_reset;
}

uint64_t cpu_pool_wakeups_since_reset(const struct cpu_pool *p)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < p->n_threads; i++)
        n += p->threads[i].wakeups;
    return n - p->wakeups_at_reset;
}

const struct cpu_pool *cpu_host_first_pool(const struct cpu_host *h)
{
    return h->pools;
}

struct cpu_pool *cpu_host_last_pool(const struct cpu_host *h)
{
    return h->pools_tail;
}

void cpu_host_label_pools(struct cpu_host *h, struct cpu_pool *after, const char *process)
{
    for (struct cpu_pool *p = after ? after->host_next : h->pools; p; p = p->host_next)
        p->process = process;
}

void cpu_pool_fini(struct cpu_pool *p)
{
    /* pools end before their host (cluster_destroy, replay_port_close): unlink */
    struct cpu_host *h = p->host;
    if (h) {
        if (p->host_prev)
            p->host_prev->host_next = p->host_next;
        else
            h->pools = p->host_next;
        if (p->host_next)
            p->host_next->host_prev = p->host_prev;
        else
            h->pools_tail = p->host_prev;
    }
    /* under CFS / EEVDF a thread torn down mid-stage leaves its host's list of
       running threads, where a later preempting wake-up would look */
    for (uint32_t i = 0; h && p->sched && i < p->n_threads; i++)
        if (p->sched[i].on_core)
            sched_off_core(h, &p->sched[i]);
    /* items still queued belong to the sim's waiter pool, freed with it */
    free(p->threads);
    free(p->sched);
    memset(p, 0, sizeof *p);
}

static void thread_next(struct cpu_thread *th);

static void reblock_paid(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    th->busy = false;
    thread_next(th);
}

/* arg 1: it slept a second time on the way back (pool_wake_all), which costs
   its way to sleep (cost.thread_sleep_us) before it looks for work */
static void thread_woken(struct sim *s, void *obj, uint64_t arg)
{
    struct cpu_thread *th = obj;
    th->waking = false;
    if (th->host->cores.on_start) /* CFS / EEVDF */
        sched_state(th)->woken = true;
    if (arg && th->host->p.sleep_us > 0) {
        th->busy = true;
        cpu_exec(th, th->host->p.sleep_us, reblock_paid, th, 0);
        return;
    }
    thread_next(th);
}

/* th is in epoll_wait's busy poll (fs/eventpoll.c ep_poll -> ep_busy_loop):
   it went idle less than busy_poll_ns ago and has not slept yet.  spun sits
   in the thread's second line, which a wake-up reads anyway: without busy
   polling nothing else is looked at. */
static bool thread_spinning(const struct cpu_thread *th)
{
    return th->spun && !th->busy && !th->waking && sim_now(th->host->s) < th->idle_since;
}

bool cpu_pool_spinning(const struct cpu_pool *p)
{
    for (uint32_t i = 0; i < p->n_threads; i++)
        if (thread_spinning(&p->threads[i]))
            return true;
    return false;
}

/* A thread that spun: the CPU its spin, begun at idle_since - busy_poll_ns, took until now
   (what `top -H` shows of a busy-polling thread: the poll runs on its core,
   but yields it to any runnable thread, napi_busy_loop's need_resched, so
   the model gives it no core) and, when the spin ran out, its way to sleep. */
static void spin_paid(struct cpu_thread *th)
{
    th->spun = false;
    struct cpu_host *h = th->host;
    sim_time_t now = sim_now(h->s), from = th->idle_since - h->busy_poll_ns;
    double ns = (double)((now < th->idle_since ? now : th->idle_since) - from);
    if (now >= th->idle_since)
        ns += h->p.sleep_us * 1e3 * h->ref_clock_ghz / cpu_clock_ghz(h);
    th->busy_ns += ns;
    h->busy_ns_total += ns;
}

/* A thread that spun is woken: its spin is paid; true if it is still in it.
   Out of line: only busy polling comes here. */
static __attribute__((noinline)) bool spin_end(struct cpu_thread *th)
{
    bool spinning = thread_spinning(th);
    spin_paid(th);
    return spinning;
}

/* The wake-up latency th would pay if woken now. */
static sim_time_t thread_wake_ns(const struct cpu_thread *th)
{
    const struct cpu_host *h = th->host;
    if (thread_spinning(th))
        return 0; /* running: it sees the work at its next poll */
    /* A woken thread goes back to the core it last ran on when that core is
       idle (select_idle_sibling's prev_cpu), which has then been idle about as
       long as the thread slept: its C-state follows the thread's sleep.  When
       every core is busy it runs on one that is awake: no C-state exit. */
    sim_time_t lat;
    if (th->pool->polling)
        lat = 0;
    else if (h->cores.busy >= h->n_cores)
        lat = cpu_wake_latency_ns(h, 0);
    else
        lat = cpu_wake_latency_ns(h, sim_now(h->s) - th->idle_since);
    /* the waker: the thread whose code is submitting (none for a device
       completion or a message arriving: those are interrupts) */
    const struct cpu_thread *waker = h->running;
    if (!th->pool->polling && waker && waker->ccx != th->ccx)
        lat += h->cross_ccx_ns;
    return lat;
}

/* Count a wake-up of th after lat (reblocked: two, it slept once more on the
   way); it comes back (thread_woken) at once, or, lazy, only if work reaches
   its pool before it would find nothing. */
static void thread_wake_after(struct cpu_thread *th, sim_time_t lat, bool lazy, bool reblocked)
{
    struct cpu_host *h = th->host;
    SIM_ASSERT(!th->busy && !th->waking && !th->lazy_seq);
    if (__builtin_expect(th->spun, 0) && spin_end(th)) { /* never slept: no context switch to count */
        th->waking = true;
        sim_schedule(h->s, 0, thread_woken, th, 0);
        return;
    }
    th->wakeups += 1 + reblocked;
    h->wakeups += 1 + reblocked;
    h->wake_ns_total += (double)lat;
    if (lazy) {
        /* back asleep at now + lat, as thread_next would leave it finding nothing */
        th->lazy_seq = 1 + sim_take_seq(h->s);
        th->idle_since = sim_now(h->s) + lat;
        return;
    }
    th->waking = true;
    sim_schedule(h->s, lat, thread_woken, th, reblocked);
}

static void thread_wake(struct cpu_thread *th)
{
    thread_wake_after(th, thread_wake_ns(th), false, false);
}

/*
 * Before anything reads a pool's threads' states: a lazy wake-up still to come
 * (its time and order not yet reached) becomes a real one, scheduled where it
 * would have been, since work is arriving that it may find; one already past
 * leaves the thread asleep since then (idle_since).
 */
static void pool_settle_lazy(struct cpu_pool *p)
{
    struct sim *s = p->host->s;
    for (uint32_t i = 0; i < p->n_threads; i++) {
        struct cpu_thread *th = &p->threads[i];
        if (!th->lazy_seq)
            continue;
        uint64_t seq = th->lazy_seq - 1;
        th->lazy_seq = 0;
        sim_time_t now = sim_now(s);
        if (th->idle_since > now || (th->idle_since == now && seq > sim_current_seq(s))) {
            th->waking = true;
            sim_schedule_seq(s, th->idle_since, seq, thread_woken, th, 0);
        }
    }
}

/* Wake one idle thread if queued shared work is not already claimed by waking threads. */
static void pool_kick(struct cpu_pool *p)
{
    uint32_t queued = p->high_len + p->normal_len, waking = 0;
    struct cpu_thread *idle = NULL;
    for (uint32_t i = 0; i < p->n_threads; i++) {
        struct cpu_thread *th = &p->threads[i];
        if (th->waking) {
            if (!th->private_q.len) /* woken for its own work: no claim on shared work */
                waking++;
        } else if (!th->busy && !idle) {
            idle = th;
        }
    }
    if (idle && queued > waking)
        thread_wake(idle);
}

/* The way back to sleep is paid: the thread then looks once more (work that
   came meanwhile is taken without a wake-up, as a futex wait on a changed
   word returns at once), else sleeps. */
static void sleep_paid(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    thread_next(th);
}

static void thread_next(struct cpu_thread *th)
{
    struct cpu_pool *p = th->pool;
    struct cpu_item *it = th->private_q.head
                              ? itemq_pop(&th->private_q.head, &th->private_q.tail, &th->private_q.len)
                              : NULL;
    if (!it)
        it = itemq_pop(&p->high_head, &p->high_tail, &p->high_len);
    if (!it)
        it = itemq_pop(&p->normal_head, &p->normal_tail, &p->normal_len);
    if (!it) {
        /* nothing queued: the way to sleep (cost.thread_sleep_us) runs on the
           core after the last item, off that item's critical path */
        bool busy_polls = p->napi_seen && p->host->busy_poll_ns; /* its way to sleep follows the spin */
        if (p->host->p.sleep_us > 0 && !p->polling && !busy_polls && !th->slept) {
            th->slept = true;
            th->busy = true;
            cpu_exec(th, p->host->p.sleep_us, sleep_paid, th, 0);
            return;
        }
        th->slept = false;
        th->busy = false;
        th->idle_since = sim_now(p->host->s);
        /* epoll_wait busy-polls the NIC queue of the socket that last had
           data before it sleeps (ep_busy_loop, net.core.busy_poll), which
           needs a socket fed by a NIC's NAPI (a loopback one has none) */
        if (busy_polls) {
            th->spun = true;
            th->idle_since += p->host->busy_poll_ns;
        }
        return;
    }
    th->busy = true;
    th->slept = false;
    p->items_run++;
    cpu_item_fn fn = it->fn;
    void *obj = it->obj;
    uint64_t arg = it->arg;
    item_put(p, it);
    struct cpu_thread *prev = p->host->running;
    p->host->running = th;
    fn(p->host->s, th, obj, arg);
    p->host->running = prev;
}

/*
 * notify_all: every sleeping thread wakes; those that find nothing sleep again.
 * The work there is (`items` queued for any thread, or a private item of
 * `target`) goes to the threads that come back first, so only they need their
 * wake-up as an event: the others' are lazy (pool_settle_lazy makes them real
 * if more work comes first).  A thread's way back to sleep costs CPU when
 * cost.thread_sleep_us is set, and then every wake-up is real.
 * The woken threads all return through the condition variable's mutex
 * (sdata_wait_lock): the first takes it, each later one finds it held and
 * sleeps on it once more (a futex wait: a second voluntary switch, woken by
 * the unlock a wake-up later).  Measured with strace on a 16.2.15 OSD at
 * QD=1 (tests/data/lab5/NOTES.md): 4.7 condition waits and 2.7 mutex waits
 * per op on tp_osd_tp.
 */
static void pool_wake_all(struct cpu_pool *p, uint32_t items, const struct cpu_thread *target)
{
    sim_time_t lat[CPU_POOL_MAX_THREADS];
    bool asleep[CPU_POOL_MAX_THREADS], eager[CPU_POOL_MAX_THREADS];
    uint32_t n = p->n_threads;
    bool lazy_ok = p->host->p.sleep_us <= 0 && !p->polling;
    for (uint32_t i = 0; i < n; i++) {
        const struct cpu_thread *th = &p->threads[i];
        asleep[i] = !th->busy && !th->waking;
        lat[i] = asleep[i] ? thread_wake_ns(th) : 0;
        eager[i] = !lazy_ok || th == target;
    }
    /* all but the first back (by time, then index) sleep on the mutex once more */
    int first = -1;
    for (uint32_t i = 0; i < n; i++)
        if (asleep[i] && (first < 0 || lat[i] < lat[first]))
            first = (int)i;
    bool reblocked[CPU_POOL_MAX_THREADS];
    for (uint32_t i = 0; i < n; i++) {
        reblocked[i] = asleep[i] && (int)i != first;
        if (reblocked[i])
            lat[i] += p->host->wake_ns[0]; /* woken again by the unlock */
    }
    /* the first `items` sleepers to come back, by time then by wake order (index:
       simultaneous wake-ups run in the order they were scheduled) */
    for (uint32_t k = 0; lazy_ok && k < items; k++) {
        int best = -1;
        for (uint32_t i = 0; i < n; i++)
            if (asleep[i] && !eager[i] && (best < 0 || lat[i] < lat[best]))
                best = (int)i;
        if (best < 0)
            break;
        eager[best] = true;
    }
    for (uint32_t i = 0; i < n; i++)
        if (asleep[i])
            thread_wake_after(&p->threads[i], lat[i], !eager[i], reblocked[i]);
}

void cpu_pool_submit(struct cpu_pool *p, enum cpu_prio prio, cpu_item_fn fn, void *obj, uint64_t arg)
{
    if (p->wake_all)
        pool_settle_lazy(p);
    bool was_empty = !p->high_len && !p->normal_len;
    struct cpu_item *it = item_get(p);
    it->fn = fn;
    it->obj = obj;
    it->arg = arg;
    it->t_enq = sim_now(p->host->s);
    if (prio == CPU_PRIO_NORMAL)
        itemq_push_back(&p->normal_head, &p->normal_tail, &p->normal_len, it);
    else if (prio == CPU_PRIO_HIGH)
        itemq_push_back(&p->high_head, &p->high_tail, &p->high_len, it);
    else if (prio == CPU_PRIO_FRONT_NORMAL)
        itemq_push_front(&p->normal_head, &p->normal_tail, &p->normal_len, it);
    else
        itemq_push_front(&p->high_head, &p->high_tail, &p->high_len, it);
    if (p->wake_all && was_empty)
        pool_wake_all(p, p->high_len + p->normal_len, NULL);
    else
        pool_kick(p);
}

void cpu_thread_submit(struct cpu_thread *th, cpu_item_fn fn, void *obj, uint64_t arg)
{
    struct cpu_item *it = item_get(th->pool);
    it->fn = fn;
    it->obj = obj;
    it->arg = arg;
    it->t_enq = sim_now(th->host->s);
    if (th->pool->wake_all)
        pool_settle_lazy(th->pool);
    bool was_empty = !th->private_q.len;
    itemq_push_back(&th->private_q.head, &th->private_q.tail, &th->private_q.len, it);
    struct cpu_pool *p = th->pool;
    if (p->wake_all && was_empty)
        pool_wake_all(p, p->high_len + p->normal_len, th); /* th among them, if asleep */
    else if (!th->busy && !th->waking)
        thread_wake(th);
    else if (th->waking)
        pool_kick(th->pool); /* its wake no longer covers the shared work it was counted for */
}

static void exec_done(struct sim *s, void *obj, uint64_t ns);

/* A stage's CPU is the thread's virtual runtime; min_vruntime follows the
   least advanced of it and the run queue's head (update_min_vruntime). */
static void sched_ran(struct cpu_host *h, struct cpu_sched_state *st, uint64_t ns)
{
    sched_off_core(h, st);
    st->vruntime += (double)ns;
    double m = st->vruntime;
    if (h->cores.queue.head) {
        double q = sched_key(h->cores.queue.head->obj);
        if (q < m)
            m = q;
    }
    if (m > h->min_vruntime)
        h->min_vruntime = m;
}

/*
 * th, woken, starts a stage of ns when every hardware thread is taken: the
 * running thread furthest ahead in vruntime yields its core if it leads th's
 * by more than the wake-up granularity (check_preempt_wakeup); its stage is
 * cut where it is and the rest queued.  Returns whether th got a core.
 */
static bool sched_preempt(struct cpu_host *h, struct cpu_thread *th, sim_time_t ns)
{
    struct cpu_sched_state *me = sched_state(th);
    struct cpu_thread *victim = NULL;
    struct cpu_sched_state *vs = NULL;
    /* the running thread furthest ahead; of equals, the first the host made */
    for (uint32_t i = 0; i < h->n_on_core; i++) {
        struct cpu_sched_state *st = sched_state(h->on_core[i]);
        if (!vs || st->vruntime > vs->vruntime || (st->vruntime == vs->vruntime && st->order < vs->order)) {
            victim = h->on_core[i];
            vs = st;
        }
    }
    if (!vs || vs->vruntime - me->vruntime <= h->wakeup_gran_ns)
        return false;
    sim_time_t now = sim_now(h->s);
    bool cancelled = sim_cancel(h->s, vs->ev);
    SIM_ASSERT(cancelled);
    sched_off_core(h, vs);
    h->preemptions++;
    sched_started(th, sim_schedule_cancellable(h->s, ns, exec_done, th, ns), now + ns);
    /* the core stays taken (th's now); the victim waits for one with the rest */
    station_submit(&h->cores, vs->stage_end > now ? vs->stage_end - now : 0, exec_done, victim, vs->stage_ns);
    return true;
}

/* cpu_exec's part under CFS / EEVDF, out of the FIFO path: a woken thread is
   placed (place_entity: no further back than min_vruntime - latency / 2) and
   may preempt; true when th got a core that way. */
static __attribute__((noinline)) bool sched_exec(struct cpu_host *h, struct cpu_thread *th, bool holding,
                                                 sim_time_t ns)
{
    struct cpu_sched_state *st = sched_state(th);
    st->stage_ns = ns; /* a preempted stage's completion carries its whole length */
    if (!st->woken)
        return false;
    st->woken = false;
    if (st->vruntime < h->min_vruntime - h->sleeper_credit_ns)
        st->vruntime = h->min_vruntime - h->sleeper_credit_ns;
    return !holding && h->cores.busy >= h->cores.servers && sched_preempt(h, th, ns);
}

static void exec_done(struct sim *s, void *obj, uint64_t ns)
{
    struct cpu_thread *th = obj;
    struct cpu_host *h = th->host;
    if (__builtin_expect(h->cores.on_start != NULL, 0)) /* CFS / EEVDF: beside the station's count */
        sched_ran(h, sched_state(th), ns);
    station_finish_begin(&h->cores);
    th->busy_ns += (double)ns;
    th->slice_ns += ns;
    h->busy_ns_total += (double)ns;
    th->in_cont = true;
    struct cpu_thread *prev = h->running;
    h->running = th;
    th->cont(s, th, th->cont_obj, th->cont_arg);
    h->running = prev;
    th->in_cont = false;
    station_finish_end(&h->cores); /* the core passes on unless the thread went on */
}

void cpu_exec(struct cpu_thread *th, double work_us, cpu_item_fn cont, void *obj, uint64_t arg)
{
    struct cpu_host *h = th->host;
    SIM_ASSERT(th->busy);
    th->cont = cont;
    th->cont_obj = obj;
    th->cont_arg = arg;
    /* still on its core (called from its own continuation): go on without
       queueing, unless its timeslice is used up and others wait */
    bool holding = th->in_cont && station_can_continue(&h->cores);
    bool keep = holding && (h->cores.queue.len == 0 || (double)th->slice_ns < h->timeslice_ns);
    /* busy hardware threads and active cores when it starts, itself included */
    uint32_t n = h->cores.busy + (holding ? 0 : 1);
    if (n > h->n_hw_threads)
        n = h->n_hw_threads;
    double ghz = h->stage_ghz ? h->stage_ghz[n]
                 : cpu_stage_clock_ghz(h, n < h->n_cores ? n : h->n_cores) * cpu_smt_speed(&h->p, n);
    double jitter = h->jitter ? h->jitter[sim_taus2_get(&th->rng) % CPU_JITTER_LEVELS] : 1;
    sim_time_t ns = (sim_time_t)(work_us * jitter * 1e3 * h->ref_clock_ghz / ghz + 0.5);
    th->in_cont = false;
    if (__builtin_expect(h->cores.on_start != NULL, 0) && sched_exec(h, th, holding, ns)) {
        th->slice_ns = 0;
        return;
    }
    if (keep) {
        station_submit_continue(&h->cores, ns, exec_done, th, ns);
        return;
    }
    th->slice_ns = 0;
    station_submit(&h->cores, ns, exec_done, th, ns);
}

void cpu_thread_release(struct cpu_thread *th)
{
    SIM_ASSERT(th->busy);
    thread_next(th);
}

double cpu_thread_extra_sleeps(struct cpu_thread *th, uint32_t n)
{
    th->wakeups += n;
    th->host->wakeups += n;
    return n * th->host->p.sleep_us;
}

void cpu_thread_block(struct cpu_thread *th)
{
    SIM_ASSERT(th->busy);
    th->idle_since = sim_now(th->host->s);
}

static void thread_resumed(struct sim *s, void *obj, uint64_t arg)
{
    struct cpu_thread *th = obj;
    if (th->host->cores.on_start) /* CFS / EEVDF */
        sched_state(th)->woken = true;
    struct cpu_host *h = th->host;
    struct cpu_thread *prev = h->running;
    h->running = th;
    th->cont(s, th, th->cont_obj, th->cont_arg);
    h->running = prev;
}

void cpu_thread_resume(struct cpu_thread *th, cpu_item_fn fn, void *obj, uint64_t arg)
{
    struct cpu_host *h = th->host;
    SIM_ASSERT(th->busy);
    sim_time_t lat = thread_wake_ns(th);
    if (!th->pool->polling) {
        th->wakeups++;
        h->wakeups++;
        h->wake_ns_total += (double)lat;
    }
    /* no cpu_exec is in progress on a blocked thread: its continuation slot is free */
    th->cont = fn;
    th->cont_obj = obj;
    th->cont_arg = arg;
    sim_schedule(h->s, lat, thread_resumed, th, 0);
}
