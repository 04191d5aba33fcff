/*
 * evq.h - the pending-event set: an implicit 4-ary min-heap whose entries
 * carry the whole event (time, sequence, callback, object, argument: 40 bytes).
 *
 * Ordering is by time, then by insertion sequence, so simultaneous events run
 * in the order they were scheduled and a run is reproducible bit for bit.
 * Payloads live in the heap rather than in a side pool because at 10^5
 * pending events a separate pool costs one cache miss per event (measured
 * with PHOLD-B: 0.64x of a plain heap with a pool, see tests/bench/).
 * Cancellable events additionally own a slot {generation, state} in a
 * free-list pool; cancel marks the slot and the entry is skipped when it
 * surfaces (O(1) cancel, O(log n) removal).  The heap keeps a "hole" at the
 * root after a pop, so the common pop-then-push pattern of a handler costs
 * one sift-down (replace-top).
 */
#ifndef CEPHSIM_SIM_EVQ_H
#define CEPHSIM_SIM_EVQ_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t sim_time_t; /* simulated time, integer nanoseconds */

#define SIM_TIME_MAX UINT64_MAX

struct sim;
typedef void (*sim_event_fn)(struct sim *s, void *obj, uint64_t arg);

struct sim_handle {
    uint32_t slot; /* 0 = null handle */
    uint32_t gen;
};

struct evq_event {
    sim_event_fn fn;
    void *obj;
    uint64_t arg;
};

struct evq_entry {
    sim_time_t t;
    uint64_t key; /* seq << EVQ_SLOT_BITS | slot (0 = not cancellable) */
    struct evq_event ev;
};

struct evq_slot {
    uint32_t gen;
    uint32_t next_free; /* free-list link; EVQ_LIVE while pending, EVQ_DEAD once cancelled */
};

struct evq {
    struct evq_entry *heap; /* heap[0] is the root */
    uint32_t n, cap;
    bool hole;              /* heap[0] was popped and not yet refilled */
    struct evq_slot *slot;  /* cancellation slots; slot 0 unused */
    uint32_t slot_cap, free_head;
    uint32_t live;          /* scheduled and not cancelled */
    uint64_t seq;
};

#define EVQ_SLOT_BITS 24
#define EVQ_SLOT_MAX ((1u << EVQ_SLOT_BITS) - 1)

void evq_init(struct evq *q);
void evq_fini(struct evq *q);

/* Schedule fn(obj, arg) at absolute time t. */
void evq_push(struct evq *q, sim_time_t t, sim_event_fn fn, void *obj, uint64_t arg);
/* The same, returning a handle for evq_cancel. */
struct sim_handle evq_push_cancellable(struct evq *q, sim_time_t t, sim_event_fn fn, void *obj,
                                       uint64_t arg);

/* Cancel a pending event; false if it already ran or was cancelled. */
bool evq_cancel(struct evq *q, struct sim_handle h);

/*
 * Remove the earliest live event and copy it out.
 * Returns false when the queue is empty or the earliest time is > until.
 */
bool evq_pop(struct evq *q, sim_time_t until, sim_time_t *t, struct evq_event *out);

/* Time of the earliest live event, or SIM_TIME_MAX. */
sim_time_t evq_peek_time(struct evq *q);

static inline uint32_t evq_size(const struct evq *q) { return q->live; }

#endif
