/*
 * queueing.h - the queueing primitives models compose.
 *
 * - struct station: c identical servers and one FIFO queue; each job brings
 *   its own service time (CPU cores, NVMe channels, NIC links are stations).
 * - struct mutexq: a lock with a FIFO wait queue (the OSD's PG lock).
 * - struct rwlockq: a reader/writer-style lock with K modes whose
 *   compatibility and wake-up policy are supplied by the model (the OSD's
 *   object-context RWState is one instance: models/ceph/opinfo.c holds its
 *   policies and models/ceph/osd.c takes it in do_op).
 * - struct throttle: counting throttle on ops and bytes with FIFO waiters
 *   (Ceph's Throttle: osd_client_message_cap, bluestore_throttle_bytes...).
 *
 * Callbacks are fn(sim, obj, arg).  "Immediate" grants return true to the
 * caller, which carries on inline; deferred grants call fn from an event.
 * Waiting allocates nothing: waiters come from the simulator's pool.
 */
#ifndef CEPHSIM_SIM_QUEUEING_H
#define CEPHSIM_SIM_QUEUEING_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"
#include "stats.h"

/* A FIFO list of waiters. */
struct waitlist {
    struct sim_waiter *head, *tail;
    uint32_t len;
};

void waitlist_push(struct waitlist *l, struct sim_waiter *w);
/* w after every waiter whose key(obj) is <= its own (a list kept in key order, ties FIFO). */
void waitlist_insert_by_key(struct waitlist *l, struct sim_waiter *w, double (*key)(const void *obj));
struct sim_waiter *waitlist_pop(struct waitlist *l);

/* ---- station: c-server FIFO ---- */

struct station {
    struct sim *s;
    uint32_t servers, busy;
    bool handoff_pending;            /* a done callback is running: its server is still held */
    bool direct;                     /* done callbacks are the completion events (station_init_direct) */
    /* optional, beside what every start reads: the queue kept in ascending
       key(obj), ties in arrival order (a run queue by virtual runtime), and for
       a direct station the handle of each job's completion as it starts, so
       that it can be cut short */
    void (*on_start)(void *obj, struct sim_handle h, sim_time_t end);
    double (*key)(const void *obj);
    struct waitlist queue;
    uint64_t completed;
    struct tavg busy_avg, queue_avg; /* servers busy, jobs waiting */
    uint64_t wait_n;
    double wait_sum_ns;              /* time queued before service */
};

void station_init(struct station *st, struct sim *s, uint32_t servers);
/* Queue a job needing service ns of one server; done(sim, obj, arg) runs when it completes. */
void station_submit(struct station *st, sim_time_t service, sim_event_fn done, void *obj, uint64_t arg);
/*
 * From inside a done callback of this station: true if the finishing job's
 * server is still held, i.e. station_submit_continue may be called.
 */
static inline bool station_can_continue(const struct station *st) { return st->handoff_pending; }
/*
 * Start a job on the server whose job just finished, without queueing (a
 * thread that keeps running keeps its core).  Only from a done callback while
 * station_can_continue; otherwise the server is handed on after the callback.
 */
void station_submit_continue(struct station *st, sim_time_t service, sim_event_fn done, void *obj, uint64_t arg);
/*
 * A station whose jobs' done callbacks are their completion events
 * themselves, with no waiter record in between (a CPU stage: the event
 * carries the thread, whose line holds the continuation).  Each done callback
 * must call station_finish_begin(st) first and station_finish_end(st) last,
 * which do what a plain station does around its jobs' callbacks; the same
 * events run at the same times in the same order as on a plain station.
 */
void station_init_direct(struct station *st, struct sim *s, uint32_t servers);
static inline void station_finish_begin(struct station *st)
{
    st->completed++;
    st->handoff_pending = true; /* the server stays with the job's owner while it runs */
}
void station_finish_end(struct station *st);
/* Warm-up cut. */
void station_reset_stats(struct station *st);
/* Mean busy servers / servers over the measured interval. */
double station_utilisation(const struct station *st);
double station_mean_wait_ns(const struct station *st);

/* ---- mutexq: FIFO lock ---- */

struct mutexq {
    bool held;
    struct waitlist waiters;
    uint64_t contended;  /* acquisitions that had to wait */
};

void mutexq_init(struct mutexq *m);
/* Take the lock now (returns true) or queue fn to run when it is handed over. */
bool mutexq_acquire(struct mutexq *m, struct sim *s, sim_event_fn fn, void *obj, uint64_t arg);
/* Release; the first waiter, if any, becomes the holder and its fn is scheduled now. */
void mutexq_release(struct mutexq *m, struct sim *s);

/* ---- rwlockq: lock with pluggable compatibility ---- */

struct rwlockq;

enum rwlockq_wake {
    RWLOCKQ_GRANT_FIFO,  /* on release, grant waiters from the head while compatible */
    RWLOCKQ_WAKE_ALL,    /* on last release, hand every waiter back (each must retry) */
};

struct rwlockq_policy {
    /* May a request for mode be granted now, given state, holders and waiters? */
    bool (*can_grant)(const struct rwlockq *l, int mode);
    enum rwlockq_wake wake;
};

struct rwlockq {
    const struct rwlockq_policy *policy;
    int state;          /* 0 = none, else the mode held */
    uint32_t count;     /* holders */
    struct waitlist waiters;
};

void rwlockq_init(struct rwlockq *l, const struct rwlockq_policy *p);
/*
 * Try to take mode (> 0): true if granted now; else fn is parked and will be
 * called (scheduled now) when granted (GRANT_FIFO) or when the lock is
 * released to none (WAKE_ALL: the caller must retry and may park again).
 * With fn == NULL a refused request is not parked (try-lock).
 */
bool rwlockq_acquire(struct rwlockq *l, struct sim *s, int mode, sim_event_fn fn, void *obj,
                     uint64_t arg);
/* Drop one hold; returns the number of waiters woken or granted. */
uint32_t rwlockq_release(struct rwlockq *l, struct sim *s);
/*
 * WAKE_ALL locks: drop one hold and, if it was the last, move every waiter
 * (FIFO order) onto *woken for the caller to requeue synchronously, as
 * ObjectContext::put_* hands its waiter list to PrimaryLogPG::requeue_ops
 * before the releasing thread does anything else.  Returns how many.
 */
uint32_t rwlockq_release_take(struct rwlockq *l, struct waitlist *woken);

/* ---- throttle: ops and bytes ---- */

struct throttle {
    uint64_t max_ops, max_bytes;  /* 0 = unlimited */
    uint64_t ops, bytes;
    struct waitlist waiters;
    uint64_t waited;
};

void throttle_init(struct throttle *t, uint64_t max_ops, uint64_t max_bytes);
/* Take one op of bytes now (true) or queue fn FIFO until it fits. */
bool throttle_get(struct throttle *t, struct sim *s, uint64_t bytes, sim_event_fn fn, void *obj,
                  uint64_t arg);
/* Return one op of bytes; grants queued requests in FIFO order while they fit. */
void throttle_put(struct throttle *t, struct sim *s, uint64_t bytes);

#endif
