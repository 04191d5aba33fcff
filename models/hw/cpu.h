/*
 * cpu.h - hosts' cores, the daemons' threads, and what a thread hand-off costs.
 *
 * A host has `cores` identical cores (a FIFO c-server station: runnable
 * threads beyond the core count queue for a core).  Ceph's threads are
 * grouped in pools (an OSD shard's tp_osd_tp threads, msgr-worker-N,
 * bstore_kv_sync...) that serve one FIFO of work items, with a strict
 * high-priority class and "front" insertion (OSD::ShardedOpWQ::_enqueue_front)
 * and a per-thread private queue (commit callbacks that only a shard's
 * thread 0 may run: OSD::ShardedOpWQ::_process / handle_oncommits).
 *
 * A thread that is asleep when work arrives pays a wake-up: the scheduler's
 * wake cost plus the exit latency of the deepest C-state (<= max_cstate) whose
 * target residency its idle period exceeded (Linux cpuidle semantics,
 * /sys/devices/system/cpu/cpuN/cpuidle/stateK/{latency,residency}), plus
 * cross_ccx_wake_us when the thread that woke it sits on another CCX (the
 * hand-off's cache lines cross the IO die).  This is the per-hand-off cost
 * that dominates QD=1 latency.  Each thread has a home CCX, assigned round
 * robin in creation order (the load balancer spreads threads over the LLC
 * domains; no pinning, no migration).  The waker is the thread whose item or
 * cpu_exec continuation is running when the work is submitted; a device
 * completion, a message arriving, or code resumed by a lock or throttle
 * grant has none (no cross-CCX cost).
 * On a host with net.core.busy_poll (busy_poll_us), a pool of epoll readers
 * (the messenger's workers) does not sleep at once when it runs out of work:
 * its thread spins in epoll_wait's busy poll for that long (fs/eventpoll.c
 * ep_poll -> ep_busy_loop -> napi_busy_loop), once one of its sockets has
 * been fed by a NIC queue (napi_seen, which the network sets on a message's
 * reader; loopback sockets have no NAPI id).
 * Work reaching it meanwhile costs no wake-up and is no context switch; the
 * spin is CPU the thread shows (top -H), but takes no core from other threads
 * (napi_busy_loop yields on need_resched) [simplification: its sibling's SMT
 * slowdown and the core's boost are not charged].  A spin that runs out ends
 * in an ordinary sleep (thread_sleep_us) from which the next wake-up is paid.
 *
 * Work is given in µs at a reference clock and scales with the clock a stage
 * runs at, which the governor and the boost algorithm decide:
 *  - the governor requests a P-state: `performance` P0, `powersave` the
 *    lowest, `ondemand`/`schedutil` between the idle clock and P0 in
 *    proportion to the host's recent utilisation, reaching P0 at
 *    governor_up_util (acpi-cpufreq: P0 = base_clock_ghz is the highest
 *    frequency the governor can ask for);
 *  - at P0 the hardware boosts (AMD Precision Boost, Intel Turbo): up to
 *    boost_clock_ghz with one core active, falling linearly with the number
 *    of active cores to all_core_clock_ghz with all of them [est: AMD
 *    publishes only the two ends, Intel per-active-core turbo tables that
 *    step down about linearly], never below base, and capped by the
 *    governor's max_clock_ghz (scaling_max_freq).  So a lightly loaded host
 *    at QD=1 runs near boost and a saturated one at the all-core clock.
 * Runnable threads beyond the hardware threads (cores x SMT) queue for one.
 * With more threads busy than cores, SMT siblings share cores: a core with
 * both threads busy delivers smt_pair_throughput times one thread's work,
 * so each runs at smt_pair_throughput / 2 of full speed.  A stage's clock
 * and SMT speed are those at its start (active cores and busy threads then,
 * itself included).  Each stage's CPU time is drawn around its cost
 * (lognormal, mean = cost, CV = work_cv), from the thread's own random
 * stream.  A thread that goes on computing (one stage's CPU right after
 * another, no blocking) keeps its core, as under CFS, until it blocks or has
 * used a timeslice while other threads wait for a core.
 *
 * The topology and boost fields left 0 switch their mechanism off (one
 * thread per core, one CCX, the governor's clock as is).
 */
#ifndef CEPHSIM_MODELS_CPU_H
#define CEPHSIM_MODELS_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "queueing.h"

#define CPU_MAX_CSTATES 8
#define CPU_JITTER_LEVELS 4096 /* inverse-CDF table: one uniform draw per stage */

enum cpu_governor { CPU_GOV_PERFORMANCE, CPU_GOV_ONDEMAND, CPU_GOV_SCHEDUTIL, CPU_GOV_POWERSAVE };

/*
 * Which runnable thread gets a core when all are taken (kernel/sched/fair.c).
 * FIFO is the model's own (the default): first come first served, a running
 * thread keeps its core for timeslice_us.  CFS (Linux 2.6.23-6.5) and EEVDF
 * (6.6+) keep the run queue in virtual-runtime order (CPU used, weights equal)
 * and let a woken thread preempt a running one: place_entity puts a sleeper
 * at no less than min_vruntime - sched_latency / 2, and check_preempt_wakeup
 * preempts the running thread furthest ahead in vruntime when it leads the
 * woken one by more than sysctl_sched_wakeup_granularity (CFS: 1 ms x (1 +
 * log2 min(CPUs, 8)), the SCHED_TUNABLESCALING_LOG factor; sched_latency 6 ms
 * x the same) or at all (EEVDF: a woken thread with lag runs first
 * [simplification: no deadlines, no eligibility]).  The preempted thread's
 * stage is cut where it is and its remainder queued; a woken thread is one
 * that slept (an empty queue, a blocking wait), not one that kept its core.
 */
enum cpu_sched { CPU_SCHED_FIFO, CPU_SCHED_CFS, CPU_SCHED_EEVDF };

/* A thread's scheduler state under CFS / EEVDF (NULL pools' array under FIFO). */
struct cpu_sched_state {
    double vruntime;           /* CPU ns it has used */
    sim_time_t stage_end;      /* its stage's end, while on a core */
    sim_time_t stage_ns;       /* that stage's length (the completion event's argument) */
    struct sim_handle ev;      /* its completion, while on a core */
    uint32_t core_slot;        /* its place in its host's on_core list, while on a core */
    uint32_t order;            /* its host's thread creation order (the victim ties' tie-break) */
    bool on_core;
    bool woken;                /* slept since its last stage: placed and may preempt at the next */
};

struct cpu_params {
    uint32_t cores;             /* cores available to the daemons of one host */
    double max_clock_ghz;       /* clock under load (boost) */
    double idle_clock_ghz;      /* clock an idle core drops to (ondemand/schedutil/powersave) */
    double ref_clock_ghz;       /* clock at which stage costs are given */
    enum cpu_governor governor;
    bool powersave_follows_load; /* intel_pstate (HWP): powersave ramps with utilisation like
                                   ondemand, from idle_clock_ghz up to P0 and boost */
    double governor_up_util;    /* utilisation at which ondemand reaches max clock (0.8 in
                                   cpufreq ondemand's up_threshold=80) */
    double util_window_us;      /* utilisation averaging window (cpufreq sampling ~10 ms) */
    double wake_us;             /* futex wake + context switch of a sleeping thread, warm core */
    double sleep_us;            /* CPU of going back to sleep on an empty queue (at the reference clock) */
    double work_cv;             /* spread of a stage's CPU time (cache misses, interrupts) */
    double timeslice_us;        /* a running thread keeps its core this long while others wait (CFS) */
    enum cpu_sched sched;       /* who gets a core when all are taken (CPU_SCHED_FIFO: the model's own) */
    double busy_poll_us;        /* net.core.busy_poll: an idle epoll reader spins this long before it
                                   sleeps (0: Linux's default, off) */
    uint32_t index;             /* host index: names the host's random stream */
    /* topology and boost (0: not modelled) */
    uint32_t threads;           /* hardware threads per host, cores x SMT (0: = cores) */
    double smt_pair_throughput; /* a core's throughput with 2 threads busy / with 1 */
    uint32_t ccx_cores;         /* cores sharing one L3 (AMD CCX; 0: all of them) */
    double cross_ccx_wake_us;   /* extra cost of a wake-up by a thread on another CCX */
    double base_clock_ghz;      /* P0, the top of the governor's range; above is boost */
    double boost_clock_ghz;     /* boost limit with one core active */
    double all_core_clock_ghz;  /* boost limit with every core active */
    int n_cstates;              /* allowed C-states, shallow to deep (max_cstate applied) */
    double cstate_exit_us[CPU_MAX_CSTATES];
    double cstate_residency_us[CPU_MAX_CSTATES];
};

/* Hot fields first: what every stage and hand-off reads (cpu_exec,
   exec_done, thread_next) sits in the first cache line, with the few
   parameters they need copied out of p (which spans four lines). */
struct cpu_host {
    struct sim *s;
    struct cpu_thread *running; /* the thread whose item or continuation is running now */
    const double *jitter;       /* CPU_JITTER_LEVELS quantiles of lognormal(mean 1, CV work_cv),
                                   shared by the hosts of one work_cv (sim_shared_table) */
    double *stage_ghz;          /* threads + 1 entries: a stage's clock x SMT speed with n hardware
                                   threads busy, for governors whose clock follows n alone (else NULL) */
    double busy_ns_total;       /* CPU time consumed since the last reset */
    double ref_clock_ghz;       /* = p.ref_clock_ghz */
    double timeslice_ns;        /* = p.timeslice_us * 1e3 */
    uint32_t n_cores, n_hw_threads; /* = p.cores, p.threads */
    struct station cores;       /* its hardware threads (cores x SMT), one server each */
    sim_time_t wake_ns[CPU_MAX_CSTATES + 1]; /* wake_us (+ C-state k's exit: entry k + 1), in ns */
    sim_time_t cross_ccx_ns;    /* cross_ccx_wake_us in ns */
    uint64_t wakeups;
    double wake_ns_total;
    uint64_t preemptions;       /* running stages cut for a woken thread (CFS / EEVDF) */
    double min_vruntime, sleeper_credit_ns, wakeup_gran_ns;
    struct cpu_thread **on_core; /* CFS / EEVDF: the threads running a stage (at most one per
                                    hardware thread), where a preempting wake-up looks for its victim */
    uint32_t n_on_core;
    uint32_t n_pools;           /* pools created on this host (names their threads' streams) */
    struct cpu_pool *pools, *pools_tail; /* its live pools in creation order (per-thread-name figures) */
    uint32_t n_threads;         /* threads created on this host (places them on CCXs) */
    uint32_t n_ccx;
    sim_time_t busy_poll_ns;    /* = p.busy_poll_us in ns */
    /* utilisation estimate for the governor: EWMA of the busy fraction */
    double util;
    sim_time_t util_t;
    double util_area;           /* busy-core area of cores.busy_avg at util_t */
    struct cpu_params p;
};

struct cpu_thread;
struct cpu_pool;

/* Threads per pool at most (a thread's stream id has 8 bits for it: cpu_pool_init). */
#define CPU_POOL_MAX_THREADS 256

/* Work item / continuation: runs on thread th. */
typedef void (*cpu_item_fn)(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg);

enum cpu_prio {
    CPU_PRIO_NORMAL, /* FIFO */
    CPU_PRIO_HIGH,   /* strict queue served first (rep ops, replies: osd_op_queue_cut_off) */
    CPU_PRIO_FRONT,  /* head of the high queue (mClock: requeued ops go to the immediate queue) */
    CPU_PRIO_FRONT_NORMAL, /* head of the normal queue (WPQ: enqueue_front within the op's class) */
};

/* Work items come from the simulation's waiter pool (one free list per run,
   not one per pool: a 1,000-OSD cluster has 15,000 pools). */
struct cpu_item {
    struct cpu_item *next;
    cpu_item_fn fn;
    void *obj;
    uint64_t arg;
    sim_time_t t_enq;
};

struct cpu_itemq {
    struct cpu_item *head, *tail;
    uint32_t len;
};

/*
 * Laid out by use: the first cache line holds what a stage's start
 * (cpu_exec) and completion (exec_done) read and write, with the host
 * pointer copied from the pool so that neither chases th->pool->host; the
 * second what taking the next item or a wake-up reads (a thread runs
 * several stages per item).  The array is 64-byte aligned.
 * At 1,000 OSDs each event touches a different thread among tens of thousands, so
 * every line a stage touches is a cache miss (cachegrind: see README, Speed).
 */
struct cpu_thread {
    /* line 1: a stage (cpu_exec, its completion exec_done, the continuation) */
    struct cpu_host *host;     /* = pool->host */
    cpu_item_fn cont;          /* continuation of the cpu_exec in progress */
    void *cont_obj;
    uint64_t cont_arg;
    sim_time_t slice_ns;       /* CPU used since it last got a core (scheduler timeslice) */
    double busy_ns;            /* CPU time this thread used (since reset) */
    struct sim_taus2 rng;      /* its work-time jitter: one stream per thread, so that a
                                  change elsewhere never reorders this thread's draws */
    bool busy;                 /* running an item (possibly blocked on a lock or I/O) */
    bool waking;               /* a wake-up is in progress */
    bool in_cont;              /* its continuation is running: the thread still has its core */
    bool slept;                /* has paid its way to sleep since its last item */
    /* line 2: items and wake-ups (thread_next, thread_wake) */
    struct cpu_pool *pool __attribute__((aligned(64)));
    struct cpu_itemq private_q;
    sim_time_t idle_since;     /* when it went to sleep; while lazy_seq, when it will again; while
                                  spun, when its busy poll ends and it sleeps */
    uint64_t wakeups;          /* times it was woken from sleep (each after a voluntary switch) */
    uint16_t ccx;              /* its home CCX (a host has at most 8,192 cores) */
    uint16_t index;            /* in its pool (at most CPU_POOL_MAX_THREADS) */
    bool spun;                 /* went idle spinning (busy poll) until idle_since */
    uint64_t lazy_seq;         /* 1 + the event order of a wake-up that finds nothing to do
                                  (notify_all's others), run only if work comes first; 0: none */
};

/* The first cache line holds what a submit, a kick and a thread's next item read. */
struct cpu_pool {
    struct cpu_host *host;
    struct cpu_thread *threads;
    struct cpu_item *high_head, *normal_head; /* the two shared queues' heads and lengths */
    uint32_t high_len, normal_len;
    uint32_t n_threads;
    bool polling;              /* busy-polling threads (Seastar reactor): no wake-up cost */
    bool wake_all;             /* work reaching an empty queue wakes every sleeping thread
                                  (a condition variable's notify_all), not one */
    bool napi_seen;            /* its threads wait in epoll_wait and a socket of their epoll set
                                  has received from a NIC queue (the eventpoll's napi_id, which
                                  busy polling needs): set by the network */
    struct cpu_item *high_tail, *normal_tail;
    uint64_t items_run;
    const char *name;
    void *owner;               /* its owner's data about it (a messenger worker's counters); NULL */
    /* cold: the process its threads belong to ("ceph-osd", "fio", "kernel"; NULL until
       labelled), its host's list of pools, its threads' totals at the host's last reset */
    const char *process;
    struct cpu_pool *host_prev, *host_next;
    double busy_ns_at_reset;
    uint64_t wakeups_at_reset;
    struct cpu_sched_state *sched; /* per thread under CFS / EEVDF, else NULL */
};

/* Set up a host; its tables live until sim_destroy. */
void cpu_host_init(struct cpu_host *h, struct sim *s, const struct cpu_params *p);
void cpu_host_reset_stats(struct cpu_host *h);
/* Mean number of busy cores since the last reset. */
double cpu_host_busy_cores(const struct cpu_host *h);

void cpu_pool_init(struct cpu_pool *p, struct cpu_host *h, const char *name, uint32_t n_threads);
/* CPU time its threads have used since they were created (ns). */
double cpu_pool_busy_ns(const struct cpu_pool *p);
/* CPU time (ns) and wake-ups of its threads since its host's last cpu_host_reset_stats
   (since creation for a pool created after it): what `top -H` and the threads'
   voluntary_ctxt_switches show of it over the measured period. */
double cpu_pool_busy_ns_since_reset(const struct cpu_pool *p);
uint64_t cpu_pool_wakeups_since_reset(const struct cpu_pool *p);
/* The host's live pools in creation order (next: p->host_next). */
const struct cpu_pool *cpu_host_first_pool(const struct cpu_host *h);
/* Its newest pool (NULL: none yet), to label what a daemon creates after it. */
struct cpu_pool *cpu_host_last_pool(const struct cpu_host *h);
/* Give every pool of h created after `after` (NULL: all of them) the process name. */
void cpu_host_label_pools(struct cpu_host *h, struct cpu_pool *after, const char *process);
void cpu_pool_fini(struct cpu_pool *p);

/* Queue an item on the pool; an idle thread (if any) is woken for it. */
void cpu_pool_submit(struct cpu_pool *p, enum cpu_prio prio, cpu_item_fn fn, void *obj, uint64_t arg);
/* Queue an item that only thread th may run (checked before the pool's queues). */
void cpu_thread_submit(struct cpu_thread *th, cpu_item_fn fn, void *obj, uint64_t arg);

/* Burn work_us (at the reference clock) on th's host; then cont runs on th. */
void cpu_exec(struct cpu_thread *th, double work_us, cpu_item_fn cont, void *obj, uint64_t arg);

/* The current item is finished: th takes the next item or goes to sleep. */
void cpu_thread_release(struct cpu_thread *th);

/* th, in the middle of an item, sleeps on something another thread will
   signal (a condition variable: BlueStore's IOContext::aio_wait): it keeps
   its item, takes no other work and no core until cpu_thread_resume. */
void cpu_thread_block(struct cpu_thread *th);
/* Signal th out of cpu_thread_block: after its wake-up (counted, with the
   C-state its sleep reached and the waker's CCX, as a sleeping thread's),
   fn(obj, arg) runs on it. */
void cpu_thread_resume(struct cpu_thread *th, cpu_item_fn fn, void *obj, uint64_t arg);

/* th, on its way through a blocking syscall that sleeps more than once (an
   fdatasync on a journaling filesystem), slept and was woken n more times:
   they are counted as its wake-ups; returns the CPU they cost it at the
   reference clock (n x cost.thread_sleep_us), for the caller to cpu_exec. */
double cpu_thread_extra_sleeps(struct cpu_thread *th, uint32_t n);

/* A thread of p is spinning in epoll_wait's busy poll now (work reaching it
   costs no wake-up; a NIC queue it polls is read without the interrupt). */
bool cpu_pool_spinning(const struct cpu_pool *p);

/* Wake-up latency a thread idle for idle_ns would pay now (exposed for tests). */
sim_time_t cpu_wake_latency_ns(const struct cpu_host *h, sim_time_t idle_ns);
/* Current effective clock of the host's cores (GHz), with the cores busy now active. */
double cpu_clock_ghz(struct cpu_host *h);
/* Clock of a stage starting now with n_active cores active (governor, then boost limit). */
double cpu_stage_clock_ghz(struct cpu_host *h, uint32_t n_active);
/* Boost limit with n_active cores active (GHz; unlimited without boost figures). */
double cpu_boost_limit_ghz(const struct cpu_params *p, uint32_t n_active);
/* Speed of a thread (1 = a core to itself) when n_busy hardware threads are busy. */
double cpu_smt_speed(const struct cpu_params *p, uint32_t n_busy);

#endif
