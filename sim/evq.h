/*
 * evq.h - the pending-event set: an implicit 4-ary min-heap whose 32-byte
 * entries carry the whole event (time, sequence and handler id, object,
 * argument).
 *
 * Ordering is by time, then by insertion sequence, so simultaneous events run
 * in the order they were scheduled and a run is reproducible bit for bit.
 * Payloads live in the heap rather than in a side pool because at 10^5
 * pending events a separate pool costs one cache miss per event (measured
 * with PHOLD-B: 0.64x of a plain heap with a pool, see tests/bench/).  The
 * handler is stored as a small id into the queue's table of the handlers it
 * has seen (a few dozen in a cluster run), packed below the sequence: 32
 * bytes instead of 40, and the array is placed so that the four children of
 * a node fill exactly two cache lines (at 1,000 OSDs ~4,000 events are
 * pending: the heap outgrows L1 and each level of a sift is a line fetch).
 * Cancellable events keep their handler, object and argument in a slot
 * {generation, state, event} of a free-list pool and their heap entry names
 * the slot; cancel marks the slot and the entry is skipped when it surfaces
 * (O(1) cancel, O(log n) removal); when the dead outnumber the live ones the
 * heap is rebuilt without them (O(n), so O(1) a cancel: a thread preempted
 * again and again under CFS left a dead completion per preemption, each
 * waiting for its time: they had made the 30-OSD bench's heap 9x its live
 * size under cluster.cpu_scheduler cfs, and each sift 18 % dearer).  The heap keeps a "hole" at the root after
 * a pop, so the common pop-then-push pattern of a handler costs one
 * sift-down (replace-top).
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
    uint64_t key; /* seq << EVQ_FN_BITS | handler id (EVQ_FN_SLOT: arg is a cancellation slot) */
    void *obj;
    uint64_t arg;
};

struct evq_slot {
    uint32_t gen;
    uint32_t next_free; /* free-list link; EVQ_LIVE while pending, EVQ_DEAD once cancelled */
    struct evq_event ev;
};

/* handler -> id: open addressing on the function's address (ids are 1-based) */
struct evq_fn_entry {
    sim_event_fn fn;
    uint32_t id;
};

struct evq {
    struct evq_entry *heap; /* heap[0] is the root; heap + 1 is 64-byte aligned */
    void *heap_mem;         /* the allocation heap points into */
    uint32_t n, cap;
    bool hole;              /* heap[0] was popped and not yet refilled */
    struct evq_slot *slot;  /* cancellation slots; slot 0 unused */
    uint32_t slot_cap, free_head;
    uint32_t live;          /* scheduled and not cancelled */
    uint32_t dead;          /* cancelled, their entries still in the heap */
    uint64_t seq;
    uint64_t cur_seq;       /* sequence of the event popped last (the one running) */
    sim_event_fn *fns;      /* id -> handler; fns[EVQ_FN_SLOT] unused */
    uint32_t n_fns, fns_cap;
    struct evq_fn_entry *fn_hash; /* 2^fn_hash_bits slots */
    uint32_t fn_hash_bits;
};

#define EVQ_FN_BITS 16
#define EVQ_FN_MASK ((1u << EVQ_FN_BITS) - 1)
#define EVQ_FN_SLOT 0 /* the entry's arg is a cancellation slot holding the event */
#define EVQ_SEQ_MAX (1ull << (64 - EVQ_FN_BITS))
#define EVQ_SLOT_MAX 0xfffffffdu

void evq_init(struct evq *q);
void evq_fini(struct evq *q);

/* Schedule fn(obj, arg) at absolute time t. */
void evq_push(struct evq *q, sim_time_t t, sim_event_fn fn, void *obj, uint64_t arg);
/* The same, returning a handle for evq_cancel. */
struct sim_handle evq_push_cancellable(struct evq *q, sim_time_t t, sim_event_fn fn, void *obj,
                                       uint64_t arg);

/* Take the next sequence number without scheduling: an event pushed later with
   evq_push_seq keeps the place among simultaneous events it would have had now. */
uint64_t evq_take_seq(struct evq *q);
void evq_push_seq(struct evq *q, sim_time_t t, uint64_t seq, sim_event_fn fn, void *obj, uint64_t arg);

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
