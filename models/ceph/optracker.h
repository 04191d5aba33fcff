/*
 * optracker.h - Ceph's OpTracker, for simulated ops.
 *
 * Mirrors src/common/TrackedOp.{h,cc} and src/osd/OpRequest.cc: every tracked
 * op records named events with timestamps in insertion order ("initiated",
 * "queued_for_pg", "reached_pg", "waiting for rw locks", "started", ...);
 * finished ops enter the history (OpHistory::insert/cleanup), which keeps
 * ops initiated at most osd_op_history_duration (default 600 s) ago and, of
 * those, at most osd_op_history_size (default 20), evicting the shortest;
 * dump_historic_ops lists them by initiated time, _by_duration slowest first.
 * Dumps have the exact shape of `ceph daemon osd.N dump_historic_ops`
 * (Octopus+ shape: per-event "duration" = time to the next event, the last
 * one's = the op's whole duration).
 *
 * Descriptions are formatted only at dump time from the op's fields, so
 * tracking costs a few stores per event on the hot path.
 */
#ifndef CEPHSIM_MODELS_OPTRACKER_H
#define CEPHSIM_MODELS_OPTRACKER_H

#include <stdint.h>

#include "err.h"
#include "evq.h"

/* Events kept in the op itself; more go to a growable array (rare: ops that
   wait for rw locks again and again).  Every event is kept, as Ceph does.
   The lab's 127,346 captured ops have 8 to 14 events (a replicated write
   14), so 16 inline slots hold every op of a run without rw-lock waits. */
#define OPTRACK_INLINE_EVENTS 16
#define OPTRACK_MORE_WRITES 32 /* extra writes listed in one description */

enum optrack_kind {
    OPTRACK_OSD_OP,    /* osd_op(client.X.0:tid pool.pg oid [ops] snapc ... e...) */
    OPTRACK_OSD_REPOP, /* osd_repop(client.X.0:tid pool.pg e/e oid v e'v, mlcod=...) */
    OPTRACK_OSD_REPOP_REPLY, /* osd_repop_reply(client.X.0:tid pool.pg e/e ondisk, result = 0),
                                tracked on the primary (Pacific window dumps: ~40 % of ops) */
};

/*
 * Sub-ops of an op vector.  Printed in librbd's order: stat, call, cmpext,
 * set-alloc-hint, write/writefull, read.  Forms are those of a finished op in
 * Pacific: OpRequest::_unregistered -> OSDOp::clear_data drops in/out data, so
 * "write 0~4096" has no "in=4096b", but exec ops keep class+method ("in=16b").
 */
enum optrack_subop {
    OPTRACK_STAT = 1 << 0,       /* "stat" (librados assert_exists) */
    OPTRACK_CALL_COPYUP = 1 << 1, /* "call rbd.sparse_copyup in=16b" (seen on 16.2.15) */
    OPTRACK_ALLOC_HINT = 1 << 2, /* "set-alloc-hint object_size 4194304 write_size 4194304" */
    OPTRACK_WRITE = 1 << 3,      /* "write off~len" */
    OPTRACK_WRITEFULL = 1 << 4,  /* "writefull 0~len" */
    OPTRACK_READ = 1 << 5,       /* "read off~len" */
    OPTRACK_CMPEXT = 1 << 6,     /* "cmpext off~len in=lenb" (compare data is kept) */
    OPTRACK_CALL_OBJECT_MAP_UPDATE = 1 << 7, /* "call rbd.object_map_update" on rbd_object_map.<id> */
    /* the exclusive lock and watch/notify (on rbd_header.<id> / rbd_object_map.<id>) */
    OPTRACK_CALL_LOCK_GET_INFO = 1 << 8, /* "call lock.get_info in=12b" */
    OPTRACK_CALL_LOCK_LOCK = 1 << 9,     /* "call lock.lock in=8b" */
    OPTRACK_CALL_LOCK_UNLOCK = 1 << 10,  /* "call lock.unlock in=10b" */
    OPTRACK_LIST_WATCHERS = 1 << 11,     /* "list-watchers" */
    OPTRACK_NOTIFY = 1 << 12,            /* "notify cookie <n>" */
    OPTRACK_NOTIFY_ACK = 1 << 13,        /* "notify-ack" */
    OPTRACK_CALL_OBJECT_MAP_LOAD = 1 << 14, /* "call rbd.object_map_load in=18b" */
};

/* Which object of the image an op names. */
enum optrack_object {
    OPTRACK_OBJ_DATA,        /* rbd_data.<image_id>.<objno %016x> */
    OPTRACK_OBJ_OBJECT_MAP,  /* rbd_object_map.<image_id> (also implied by CALL_OBJECT_MAP_UPDATE) */
    OPTRACK_OBJ_HEADER,      /* rbd_header.<image_id> */
};

/*
 * The event names the model marks, as Ceph's literals (OpRequest.cc,
 * PrimaryLogPG.cc, ReplicatedBackend.cc, OSD.cc).  An op keeps each event as
 * (time, this id): 9 bytes instead of a name pointer and a time (16), since
 * at 8,192 ops in flight the record's bytes are the cache misses.
 * OPTRACK_EV_OWN is the op's own name (op->own_name): the per-PG
 * "waiting for subops from 1,2" of issue_repop, or any other string.
 */
enum optrack_ev {
    OPTRACK_EV_INITIATED,
    OPTRACK_EV_THROTTLED,
    OPTRACK_EV_HEADER_READ,
    OPTRACK_EV_ALL_READ,
    OPTRACK_EV_DISPATCHED,
    OPTRACK_EV_QUEUED_FOR_PG,
    OPTRACK_EV_REACHED_PG,
    OPTRACK_EV_WAITING_FOR_RW_LOCKS,
    OPTRACK_EV_STARTED,
    OPTRACK_EV_OP_COMMIT,
    OPTRACK_EV_SUB_OP_COMMIT_REC,
    OPTRACK_EV_COMMIT_SENT,
    OPTRACK_EV_DONE,
    OPTRACK_EV_OWN,
};

/* Ceph's literal for a table id (OPTRACK_EV_OWN: NULL, the op holds it). */
const char *optrack_ev_name(enum optrack_ev ev);

/* One event as the dumps read it. */
struct optrack_event {
    const char *name; /* static string (event names are Ceph's literals) */
    sim_time_t t;
};

/* An event past the inline ones. */
struct optrack_more_event {
    sim_time_t t;
    uint8_t ev; /* enum optrack_ev */
};

struct optrack_op {
    /* 64-bit fields first, then 32-bit, then bytes: no padding holes */
    uint64_t tid;
    uint64_t image_id;     /* rbd_data.<image_id hex>.<objno %016x> */
    uint64_t objno;
    uint64_t off, len;
    uint64_t version;      /* pg log version (repop) */
    uint64_t mlcod;        /* added; repop min_last_complete_ondisk version; 0 = version - 2 (QD=1 captures) */
    sim_time_t t0;         /* the first event's time ("initiated"): inline times are offsets from it */
    /* more writes in the same op vector (writes appended to a copy-up):
       owned, allocated by optrack_add_write (rare), freed by optrack_release */
    uint32_t (*more_writes)[2]; /* {off, len} */
    const char *own_name;         /* the name of OPTRACK_EV_OWN events (must outlive the tracker) */
    struct optrack_more_event *more; /* owned: events past the inline ones (optrack_release frees) */
    enum optrack_kind kind;
    uint32_t client;       /* client.<id> */
    uint32_t pool;
    uint32_t pg_seed;      /* printed as pool.<hex seed> */
    uint32_t subops;       /* enum optrack_subop bits */
    uint32_t epoch;
    /* added; 0 = the default named */
    uint32_t min_epoch;    /* repop "e<epoch>/<min_epoch>" (PG interval start); 0 = epoch */
    uint32_t object_size;  /* set-alloc-hint sizes; 0 = 4194304 */
    uint32_t client_nonce; /* client_addr "127.0.0.1:0/<nonce>"; 0 = derived from client id */
    int32_t result;        /* repop_reply "result = N" */
    uint32_t n_events;
    uint32_t more_cap;
    uint16_t n_more;       /* entries of more_writes */
    uint8_t object;        /* enum optrack_object */
    uint8_t n_inline;      /* events 0..n_inline-1 are inline, the rest in more */
    uint8_t ev_id[OPTRACK_INLINE_EVENTS]; /* enum optrack_ev of the inline events */
    /* ns after t0 of the inline events: an op shorter than 4.29 s keeps all
       its times in 4 bytes each; an event later than that (or earlier than
       t0) and every event after it go to more, with its full time */
    uint32_t ev_dt[OPTRACK_INLINE_EVENTS]; /* last: ops zero the fields before it */
};

/* Record an event past the inline ones (grows op->more geometrically). */
void optrack_mark_more(struct optrack_op *op, enum optrack_ev ev, sim_time_t t);

/* Record the table's event ev on op at time t (the hot path: two stores). */
static inline void optrack_mark_ev(struct optrack_op *op, enum optrack_ev ev, sim_time_t t)
{
    uint32_t n = op->n_events;
    if (!n)
        op->t0 = t;
    if (n == op->n_inline && n < OPTRACK_INLINE_EVENTS && t - op->t0 <= UINT32_MAX) {
        op->ev_id[n] = (uint8_t)ev;
        op->ev_dt[n] = (uint32_t)(t - op->t0);
        op->n_inline = (uint8_t)(n + 1);
        op->n_events = n + 1;
    } else {
        optrack_mark_more(op, ev, t);
    }
}

/* Record an event by name (name must outlive the tracker): a table name is
   kept as its id; any other name becomes the op's own name, one per op (a
   second, different one is a caller's bug). */
void optrack_mark(struct optrack_op *op, const char *name, sim_time_t t);

/* The i-th event of op (i < n_events). */
struct optrack_event optrack_event(const struct optrack_op *op, uint32_t i);

/* The op's first event's time ("initiated"); 0 for an op with no events. */
static inline sim_time_t optrack_initiated(const struct optrack_op *op)
{
    return op->n_events ? op->t0 : 0;
}

/* The time of the i-th event (i < n_events). */
static inline sim_time_t optrack_event_t(const struct optrack_op *op, uint32_t i)
{
    return i < op->n_inline ? op->t0 + op->ev_dt[i] : op->more[i - op->n_inline].t;
}

/* Append a write {off, len} to the op vector's description (copy-up
   waiters); at most OPTRACK_MORE_WRITES are kept. */
void optrack_add_write(struct optrack_op *op, uint32_t off, uint32_t len);

/* Free what op owns (its overflow events) unless a tracker took it over. */
void optrack_release(struct optrack_op *op);

/*
 * The history is ONE set, as in OpHistory (arrived + duration sets of the
 * same ops): on insert, ops initiated more than history_duration ago leave,
 * then while over history_size the SHORTEST op leaves.  So when full it holds
 * the slowest ops (the real 16.2.15 historic and historic_by_duration dumps
 * hold the same 200 ops); dump_historic_ops lists them by initiated time,
 * _by_duration slowest first.
 */
/* A history slot's keys: fixed once the op is finished. */
struct optrack_slot_key {
    uint64_t dur;  /* duration: "done" - initiated */
    uint64_t init; /* initiated */
    uint64_t seq;  /* insertion number (tie-break) */
};

struct optracker {
    uint32_t history_size;       /* osd_op_history_size */
    sim_time_t history_duration; /* osd_op_history_duration */
    /* private */
    struct optrack_op *recent;   /* op slots 0..recent_n-1 (capacity history_size + 1) */
    uint32_t recent_head, recent_n; /* recent_head: slots allocated (grows to history_size + 1) */
    struct optrack_op *slowest;  /* unused (NULL): the two orders are index heaps below */
    uint32_t slowest_n;          /* == recent_n */
    uint64_t completed;          /* ops ever finished (since init/reset) */
    /* private, added: min-heaps of slot numbers and slot -> heap position */
    uint32_t *dur_heap, *dur_pos;   /* by (duration, seq): root = shortest */
    uint32_t *init_heap, *init_pos; /* by (initiated, seq): root = oldest */
    struct optrack_slot_key *key;   /* each slot's order keys, kept apart from the 224-byte op
                                       records so that a heap step reads 24 bytes, not two ops */
};

void optracker_init(struct optracker *t, uint32_t history_size, sim_time_t history_duration);
void optracker_fini(struct optracker *t);
/* Forget the history (warm-up cut). */
void optracker_reset(struct optracker *t);
/* An op finished (its last event is "done"): copy it into the history. */
void optracker_finish(struct optracker *t, struct optrack_op *op);

/*
 * The ops dump_historic_ops would list at time now, in its order (by
 * initiated, or with by_duration slowest first: dump_historic_ops_by_duration),
 * as a calloc'd array of borrowed pointers in *out (caller frees); the count.
 */
uint32_t optracker_history(const struct optracker *t, sim_time_t now, int by_duration,
                           const struct optrack_op ***out);

/* TrackedOp::get_duration: initiated to "done" if it is done, else to now (ns). */
int64_t optrack_duration_ns(const struct optrack_op *op, sim_time_t now);

/* Format op's description as Ceph prints it into buf; returns buf. */
const char *optrack_describe(const struct optrack_op *op, char *buf, size_t n);


/* OpRequest::state_string of the op's last flag point ("commit sent; apply or cleanup"...). */
const char *optrack_flag_point(const struct optrack_op *op);

/* The object's name, "rbd_data.<image_id %x>.<objno %016x>"; returns buf. */
const char *optrack_object_name(const struct optrack_op *op, char *buf, size_t n);

/* ceph_str_hash_rjenkins (src/common/ceph_hash.cc): the hobject hash of a name. */
uint32_t optrack_str_hash_rjenkins(const char *s, size_t len);

/* ceph_stable_mod: the PG seed of hash x for pg_num b (bmask = next pow2 - 1). */
uint32_t optrack_stable_mod(uint32_t x, uint32_t b, uint32_t bmask);

#endif
