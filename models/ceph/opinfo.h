/*
 * opinfo.h - op classification and object-context lock choice.
 *
 * Mirrors OpInfo::set_from_op (src/osd/osd_op_util.cc) for the op codes RBD
 * uses, the lock choice of PrimaryLogPG::get_rw_locks, the perf-counter class
 * of PrimaryLogPG::log_op_stats, and RWState (src/osd/object_state.h) as an
 * rwlockq policy:
 *  - STAT sets RMW_FLAG_READ but not READ_DATA (the 53593 fix); READ, CMPEXT,
 *    ASSERT_VER set both; WRITE/WRITEFULL/SETALLOCHINT set WRITE;
 *    CALL takes its class method flags only (rbd.copyup is RD|WR, never READ_DATA).
 *  - rwordered = may_write || may_cache || forced.
 *  - lock: rwordered && may_read -> EXCL (pre-fix), or EXCL only if
 *    may_read_data (post-fix), else WRITE; not rwordered -> READ.
 *  - RWState: READ shares with READ, WRITE with WRITE, EXCL with nobody and
 *    only from NONE; any waiter blocks new READ/WRITE (FIFO anti-starvation);
 *    the last release requeues *all* waiters (ObjectContext::wake), who
 *    re-run do_op and may park again.
 */
#ifndef CEPHSIM_MODELS_OPINFO_H
#define CEPHSIM_MODELS_OPINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "queueing.h"

/* Op codes of an op vector (CEPH_OSD_OP_*), as a bit set. */
enum osd_subop {
    SUBOP_STAT = 1 << 0,        /* RD|DATA|2, librados assert_exists() */
    SUBOP_READ = 1 << 1,
    SUBOP_CMPEXT = 1 << 2,      /* compare-and-write */
    SUBOP_ASSERT_VER = 1 << 3,
    SUBOP_WRITE = 1 << 4,
    SUBOP_WRITEFULL = 1 << 5,
    SUBOP_SETALLOCHINT = 1 << 6,
    SUBOP_CALL_RDWR = 1 << 7,   /* CALL of a CLS_METHOD_RD|CLS_METHOD_WR method (rbd.copyup) */
    SUBOP_CALL_RD = 1 << 8,     /* CALL of a read-only class method */
    SUBOP_WRITE_MUST_EXIST = 1 << 9, /* proposed write-class "object must exist" flag (guard design) */
};

struct op_flags {
    bool may_read, may_read_data, may_write, may_cache, rwordered;
};

enum obj_lock_mode { OBJ_LOCK_NONE = 0, OBJ_LOCK_READ = 1, OBJ_LOCK_WRITE = 2, OBJ_LOCK_EXCL = 3 };

enum perf_class { PERF_CLASS_R, PERF_CLASS_W, PERF_CLASS_RW };

/* OpInfo::set_from_op for an op vector given as enum osd_subop bits. */
struct op_flags opinfo_classify(uint32_t subops);

/* PrimaryLogPG::get_rw_locks: the lock mode an op takes under rule. */
enum obj_lock_mode opinfo_lock_mode(const struct op_flags *f, enum rw_lock_rule rule);

/* PrimaryLogPG::log_op_stats: which counters (op_r / op_w / op_rw). */
enum perf_class opinfo_perf_class(const struct op_flags *f);

/* The RWState policy for rwlockq (WAKE_ALL on last release). */
extern const struct rwlockq_policy obj_rwstate_policy;
/* Crimson's obc lock (crimson/osd/object_context.h tri_mutex): the same modes,
   but waiters are granted in FIFO order on release instead of re-running. */
extern const struct rwlockq_policy obj_crimson_policy;

const char *obj_lock_mode_name(enum obj_lock_mode m);

#endif
