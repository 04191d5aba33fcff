/*
 * test_opinfo.c - op classification, lock choice and the RWState lock
 * (models/ceph/opinfo.c), table by table against ceph-model.md:
 *  (a) OpInfo::set_from_op for every op vector RBD sends and the op codes of
 *      the section 2 table -> may_read / may_read_data / may_write / rwordered;
 *  (b) PrimaryLogPG::get_rw_locks under the pre-fix rule (EXCL_IF_READ) and the
 *      post-fix rule (EXCL_IF_READ_DATA, PR 45852) and the log_op_stats class,
 *      row by row of the "Resulting lock" table;
 *  (c) RWState through rwlockq with obj_rwstate_policy: every state (NONE,
 *      READ n=1,2, WRITE n=1,2, EXCL) x every request, with and without
 *      waiters (section 1.2), and the release / wake-all semantics (1.3);
 *  (d) release_parse / ceph_rw_lock_rule: which releases carry the fix, and
 *      the ceph.rw_lock_rule override.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "config.h"
#include "opinfo.h"
#include "param.h"
#include "queueing.h"
#include "sim.h"

/* ---- (a) classification ---- */

struct class_row {
    const char *what;
    uint32_t subops;
    bool may_read, may_read_data, may_write, rwordered;
};

static const struct class_row class_rows[] = {
    /* single op codes (ceph-model.md section 2 table) */
    {"stat", SUBOP_STAT, true, false, false, false},
    {"read", SUBOP_READ, true, true, false, false},
    {"cmpext", SUBOP_CMPEXT, true, true, false, false},
    {"assert_ver", SUBOP_ASSERT_VER, true, true, false, false},
    {"write", SUBOP_WRITE, false, false, true, true},
    {"writefull", SUBOP_WRITEFULL, false, false, true, true},
    {"set-alloc-hint", SUBOP_SETALLOCHINT, false, false, true, true},
    {"call RD|WR (rbd.copyup, assert_snapc_seq)", SUBOP_CALL_RDWR, true, false, true, true},
    {"call RD only", SUBOP_CALL_RD, true, false, false, false},
    /* the vectors librbd sends */
    {"set-alloc-hint+write", SUBOP_SETALLOCHINT | SUBOP_WRITE, false, false, true, true},
    {"stat+write", SUBOP_STAT | SUBOP_WRITE, true, false, true, true},
    {"stat+set-alloc-hint+write", SUBOP_STAT | SUBOP_SETALLOCHINT | SUBOP_WRITE, true, false, true, true},
    {"stat+writefull", SUBOP_STAT | SUBOP_WRITEFULL, true, false, true, true},
    {"call rbd.copyup+write", SUBOP_CALL_RDWR | SUBOP_WRITE, true, false, true, true},
    {"call rbd.copyup+set-alloc-hint+write", SUBOP_CALL_RDWR | SUBOP_SETALLOCHINT | SUBOP_WRITE, true,
     false, true, true},
    {"assert_ver+write", SUBOP_ASSERT_VER | SUBOP_WRITE, true, true, true, true},
    {"cmpext+write", SUBOP_CMPEXT | SUBOP_WRITE, true, true, true, true},
    {"call RD only+write", SUBOP_CALL_RD | SUBOP_WRITE, true, false, true, true},
    {"write with write_must_exist flag", SUBOP_WRITE_MUST_EXIST, false, false, true, true},
    {"write_must_exist+write", SUBOP_WRITE_MUST_EXIST | SUBOP_WRITE, false, false, true, true},
    {"stat+read", SUBOP_STAT | SUBOP_READ, true, true, false, false},
};

static void test_classify_table(void **state)
{
    for (size_t i = 0; i < sizeof class_rows / sizeof class_rows[0]; i++) {
        const struct class_row *r = &class_rows[i];
        struct op_flags f = opinfo_classify(r->subops);
        if (f.may_read != r->may_read || f.may_read_data != r->may_read_data ||
            f.may_write != r->may_write || f.rwordered != r->rwordered || f.may_cache)
            fail_msg("%s: got read=%d read_data=%d write=%d rwordered=%d cache=%d, want %d %d %d %d 0",
                     r->what, f.may_read, f.may_read_data, f.may_write, f.rwordered, f.may_cache,
                     r->may_read, r->may_read_data, r->may_write, r->rwordered);
    }
}

/* STAT alone of the read-mode ops never sets READ_DATA, whatever rides along
   with it; every other read-mode op does. */
static void test_read_data_only_without_stat(void **state)
{
    const uint32_t others[] = {0, SUBOP_WRITE, SUBOP_WRITEFULL, SUBOP_SETALLOCHINT, SUBOP_CALL_RDWR,
                               SUBOP_CALL_RD, SUBOP_WRITE_MUST_EXIST};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        assert_false(opinfo_classify(SUBOP_STAT | others[i]).may_read_data);
        assert_true(opinfo_classify(SUBOP_STAT | others[i]).may_read);
        assert_true(opinfo_classify(SUBOP_READ | others[i]).may_read_data);
        assert_true(opinfo_classify(SUBOP_CMPEXT | others[i]).may_read_data);
        assert_true(opinfo_classify(SUBOP_ASSERT_VER | others[i]).may_read_data);
    }
}

/* ---- (b) lock choice and perf class ---- */

struct lock_row {
    const char *what;
    uint32_t subops;
    enum obj_lock_mode pre, post;
    enum perf_class perf;
};

/* ceph-model.md section 2, "Resulting lock for the RBD ops of interest" */
static const struct lock_row lock_rows[] = {
    {"plain write [write]", SUBOP_WRITE, OBJ_LOCK_WRITE, OBJ_LOCK_WRITE, PERF_CLASS_W},
    {"plain write [set-alloc-hint, write]", SUBOP_SETALLOCHINT | SUBOP_WRITE, OBJ_LOCK_WRITE,
     OBJ_LOCK_WRITE, PERF_CLASS_W},
    {"plain [writefull]", SUBOP_WRITEFULL, OBJ_LOCK_WRITE, OBJ_LOCK_WRITE, PERF_CLASS_W},
    {"clone write [stat, write]", SUBOP_STAT | SUBOP_WRITE, OBJ_LOCK_EXCL, OBJ_LOCK_WRITE, PERF_CLASS_RW},
    {"clone write [stat, set-alloc-hint, write]", SUBOP_STAT | SUBOP_SETALLOCHINT | SUBOP_WRITE,
     OBJ_LOCK_EXCL, OBJ_LOCK_WRITE, PERF_CLASS_RW},
    {"clone write [stat, writefull]", SUBOP_STAT | SUBOP_WRITEFULL, OBJ_LOCK_EXCL, OBJ_LOCK_WRITE,
     PERF_CLASS_RW},
    {"migration guard [call assert_snapc_seq, write]", SUBOP_CALL_RDWR | SUBOP_WRITE, OBJ_LOCK_EXCL,
     OBJ_LOCK_WRITE, PERF_CLASS_RW},
    {"copyup [call rbd.copyup, write]", SUBOP_CALL_RDWR | SUBOP_WRITE, OBJ_LOCK_EXCL, OBJ_LOCK_WRITE,
     PERF_CLASS_RW},
    {"[assert-version, write]", SUBOP_ASSERT_VER | SUBOP_WRITE, OBJ_LOCK_EXCL, OBJ_LOCK_EXCL, PERF_CLASS_RW},
    {"compare-and-write [cmpext, write]", SUBOP_CMPEXT | SUBOP_WRITE, OBJ_LOCK_EXCL, OBJ_LOCK_EXCL,
     PERF_CLASS_RW},
    {"read [read]", SUBOP_READ, OBJ_LOCK_READ, OBJ_LOCK_READ, PERF_CLASS_R},
    /* not rwordered: READ whatever the rule */
    {"[stat]", SUBOP_STAT, OBJ_LOCK_READ, OBJ_LOCK_READ, PERF_CLASS_R},
    {"[call RD-only method]", SUBOP_CALL_RD, OBJ_LOCK_READ, OBJ_LOCK_READ, PERF_CLASS_R},
    {"[cmpext]", SUBOP_CMPEXT, OBJ_LOCK_READ, OBJ_LOCK_READ, PERF_CLASS_R},
    /* the proposed write-class "must exist" flag: a pure write */
    {"[write] + write_must_exist", SUBOP_WRITE_MUST_EXIST, OBJ_LOCK_WRITE, OBJ_LOCK_WRITE, PERF_CLASS_W},
};

static void test_lock_table(void **state)
{
    for (size_t i = 0; i < sizeof lock_rows / sizeof lock_rows[0]; i++) {
        const struct lock_row *r = &lock_rows[i];
        struct op_flags f = opinfo_classify(r->subops);
        enum obj_lock_mode pre = opinfo_lock_mode(&f, RW_LOCK_RULE_EXCL_IF_READ);
        enum obj_lock_mode post = opinfo_lock_mode(&f, RW_LOCK_RULE_EXCL_IF_READ_DATA);
        enum perf_class pc = opinfo_perf_class(&f);
        if (pre != r->pre || post != r->post || pc != r->perf)
            fail_msg("%s: got pre=%s post=%s perf=%d, want pre=%s post=%s perf=%d", r->what,
                     obj_lock_mode_name(pre), obj_lock_mode_name(post), pc, obj_lock_mode_name(r->pre),
                     obj_lock_mode_name(r->post), r->perf);
    }
}

/* The perf class follows may_read/may_write, never the lock: a clone write is
   op_rw before AND after the fix (the fix did not touch log_op_stats). */
static void test_perf_class_independent_of_rule(void **state)
{
    for (uint32_t v = 1; v < (1u << 10); v++) {
        struct op_flags f = opinfo_classify(v);
        enum perf_class want = f.may_read && f.may_write ? PERF_CLASS_RW
                               : f.may_read             ? PERF_CLASS_R
                                                        : PERF_CLASS_W;
        assert_int_equal(opinfo_perf_class(&f), want);
        /* post-fix never takes a stronger lock than pre-fix, and only READ_DATA keeps EXCL */
        enum obj_lock_mode pre = opinfo_lock_mode(&f, RW_LOCK_RULE_EXCL_IF_READ);
        enum obj_lock_mode post = opinfo_lock_mode(&f, RW_LOCK_RULE_EXCL_IF_READ_DATA);
        assert_true(post <= pre);
        if (post == OBJ_LOCK_EXCL)
            assert_true(f.may_read_data && f.rwordered);
        if (pre == OBJ_LOCK_EXCL)
            assert_true(f.may_read && f.rwordered);
    }
    assert_string_equal(obj_lock_mode_name(OBJ_LOCK_NONE), "none");
    assert_string_equal(obj_lock_mode_name(OBJ_LOCK_READ), "read");
    assert_string_equal(obj_lock_mode_name(OBJ_LOCK_WRITE), "write");
    assert_string_equal(obj_lock_mode_name(OBJ_LOCK_EXCL), "excl");
}

/* ---- (c) RWState through rwlockq ---- */

struct wake_log {
    int n;
    uint64_t arg[16];
    sim_time_t t[16];
};

static void logged(struct sim *s, void *obj, uint64_t arg)
{
    struct wake_log *l = obj;
    l->t[l->n] = sim_now(s);
    l->arg[l->n++] = arg;
}

struct lock_state {
    const char *name;
    int mode;      /* held mode, 0 = none */
    uint32_t count;
};

static const struct lock_state states[] = {
    {"NONE", OBJ_LOCK_NONE, 0},   {"READ n=1", OBJ_LOCK_READ, 1},   {"READ n=2", OBJ_LOCK_READ, 2},
    {"WRITE n=1", OBJ_LOCK_WRITE, 1}, {"WRITE n=2", OBJ_LOCK_WRITE, 2}, {"EXCL", OBJ_LOCK_EXCL, 1},
};

/* Section 1.2: may request be granted in held mode, with or without waiters? */
static bool rwstate_grants(int held, int request, bool waiters)
{
    switch (request) {
    case OBJ_LOCK_READ: return !waiters && (held == OBJ_LOCK_NONE || held == OBJ_LOCK_READ);
    case OBJ_LOCK_WRITE: return !waiters && (held == OBJ_LOCK_NONE || held == OBJ_LOCK_WRITE);
    case OBJ_LOCK_EXCL: return held == OBJ_LOCK_NONE; /* get_excl_lock ignores waiters */
    }
    return false;
}

/* A request of a mode that is refused in held (so it parks): the waiter maker. */
static int blocking_mode(int held)
{
    return held == OBJ_LOCK_READ ? OBJ_LOCK_WRITE : OBJ_LOCK_READ;
}

/* Bring l into state st by real acquisitions (and, with waiters, one parked op). */
static void reach(struct rwlockq *l, struct sim *s, const struct lock_state *st, bool waiters,
                  struct wake_log *log)
{
    rwlockq_init(l, &obj_rwstate_policy);
    for (uint32_t i = 0; i < st->count; i++)
        assert_true(rwlockq_acquire(l, s, st->mode, logged, log, 100 + i));
    if (waiters)
        assert_false(rwlockq_acquire(l, s, blocking_mode(st->mode), logged, log, 900));
    assert_int_equal(l->state, st->mode);
    assert_int_equal(l->count, st->count);
    assert_int_equal(l->waiters.len, waiters ? 1 : 0);
}

static void test_rwstate_grant_matrix(void **state)
{
    const int requests[] = {OBJ_LOCK_READ, OBJ_LOCK_WRITE, OBJ_LOCK_EXCL};
    for (size_t si = 0; si < sizeof states / sizeof states[0]; si++) {
        const struct lock_state *st = &states[si];
        for (int w = 0; w < 2; w++) {
            /* NONE with a waiter is not reachable through the lock (the last
               release drains every waiter); it is checked on the policy below */
            if (st->mode == OBJ_LOCK_NONE && w)
                continue;
            for (size_t ri = 0; ri < 3; ri++) {
                int req = requests[ri];
                struct sim *s = sim_create(1);
                struct wake_log log = {0};
                struct rwlockq l;
                reach(&l, s, st, w, &log);
                bool want = rwstate_grants(st->mode, req, w);
                bool got = rwlockq_acquire(&l, s, req, logged, &log, 7);
                if (got != want)
                    fail_msg("state %s%s, request %s: %s, want %s", st->name, w ? " with a waiter" : "",
                             obj_lock_mode_name(req), got ? "granted" : "parked",
                             want ? "granted" : "parked");
                if (got) {
                    assert_int_equal(l.state, req);
                    assert_int_equal(l.count, st->count + 1);
                    assert_int_equal(l.waiters.len, (uint32_t)w);
                } else {
                    assert_int_equal(l.state, st->mode);
                    assert_int_equal(l.count, st->count);
                    assert_int_equal(l.waiters.len, (uint32_t)w + 1);
                    assert_ptr_equal(l.waiters.tail->obj, &log);
                    assert_int_equal(l.waiters.tail->arg, 7);
                }
                /* nothing runs by itself: no callback was scheduled */
                sim_run(s, SIM_TIME_MAX);
                assert_int_equal(log.n, 0);
                sim_destroy(s);
            }
        }
    }
}

/* The policy itself, including NONE with waiters (EXCL still granted there). */
static void test_rwstate_policy_direct(void **state)
{
    const int modes[] = {OBJ_LOCK_NONE, OBJ_LOCK_READ, OBJ_LOCK_WRITE, OBJ_LOCK_EXCL};
    struct sim_waiter fake = {0};
    for (int mi = 0; mi < 4; mi++)
        for (int w = 0; w < 2; w++)
            for (int req = OBJ_LOCK_READ; req <= OBJ_LOCK_EXCL; req++) {
                struct rwlockq l;
                rwlockq_init(&l, &obj_rwstate_policy);
                l.state = modes[mi];
                l.count = modes[mi] ? 1 : 0;
                if (w)
                    waitlist_push(&l.waiters, &fake);
                bool got = obj_rwstate_policy.can_grant(&l, req);
                if (got != rwstate_grants(modes[mi], req, w))
                    fail_msg("policy: held %s%s, request %s: %d", obj_lock_mode_name(modes[mi]),
                             w ? " + waiter" : "", obj_lock_mode_name(req), got);
            }
    assert_int_equal(obj_rwstate_policy.wake, RWLOCKQ_WAKE_ALL);
}

/* Try-lock (fn == NULL): refused requests are not parked. */
static void test_rwstate_trylock_not_parked(void **state)
{
    struct sim *s = sim_create(1);
    struct rwlockq l;
    rwlockq_init(&l, &obj_rwstate_policy);
    assert_true(rwlockq_acquire(&l, s, OBJ_LOCK_EXCL, NULL, NULL, 0));
    assert_false(rwlockq_acquire(&l, s, OBJ_LOCK_READ, NULL, NULL, 0));
    assert_false(rwlockq_acquire(&l, s, OBJ_LOCK_EXCL, NULL, NULL, 0));
    assert_int_equal(l.waiters.len, 0);
    assert_int_equal(rwlockq_release(&l, s), 0);
    assert_int_equal(l.state, OBJ_LOCK_NONE);
    sim_destroy(s);
}

/* Release semantics (section 1.3), driven from events at t = 1000 and 2000. */
struct release_ctx {
    struct rwlockq l;
    struct wake_log log;
    uint32_t woken_first, woken_last;
    int state_after_last;
    uint32_t count_after_last, waiters_after_last;
    /* retry: op arg k re-requests mode[k]; outcome recorded */
    int mode[16];
    int regranted[16];
};

static void retry(struct sim *s, void *obj, uint64_t arg)
{
    struct release_ctx *c = obj;
    c->log.t[c->log.n] = sim_now(s);
    c->log.arg[c->log.n++] = arg;
    /* re-run do_op: ask again; a refusal parks again */
    c->regranted[arg] = rwlockq_acquire(&c->l, s, c->mode[arg], retry, c, arg) ? 1 : -1;
}

static void release_one(struct sim *s, void *obj, uint64_t arg)
{
    struct release_ctx *c = obj;
    c->woken_first = rwlockq_release(&c->l, s);
}

static void release_last(struct sim *s, void *obj, uint64_t arg)
{
    struct release_ctx *c = obj;
    c->woken_last = rwlockq_release(&c->l, s);
    c->state_after_last = c->l.state;
    c->count_after_last = c->l.count;
    c->waiters_after_last = c->l.waiters.len;
    /* the wakes are scheduled, not run inline */
    assert_int_equal(c->log.n, 0);
}

static void test_rwstate_release_wakes_all_fifo(void **state)
{
    struct sim *s = sim_create(1);
    struct release_ctx *c = calloc(1, sizeof *c);
    rwlockq_init(&c->l, &obj_rwstate_policy);
    /* two writers hold WRITE n=2 */
    assert_true(rwlockq_acquire(&c->l, s, OBJ_LOCK_WRITE, retry, c, 14));
    assert_true(rwlockq_acquire(&c->l, s, OBJ_LOCK_WRITE, retry, c, 15));
    /* waiters in arrival order: READ (incompatible), WRITE (compatible but
       blocked by the waiter: anti-starvation), EXCL, READ, WRITE */
    const int modes[] = {OBJ_LOCK_READ, OBJ_LOCK_WRITE, OBJ_LOCK_EXCL, OBJ_LOCK_READ, OBJ_LOCK_WRITE};
    for (uint64_t k = 0; k < 5; k++) {
        c->mode[k] = modes[k];
        assert_false(rwlockq_acquire(&c->l, s, modes[k], retry, c, k));
    }
    assert_int_equal(c->l.waiters.len, 5);
    sim_schedule(s, 1000, release_one, c, 0);
    sim_schedule(s, 2000, release_last, c, 0);
    sim_run(s, 1500);
    /* first release: count 2 -> 1, nobody woken, waiters kept */
    assert_int_equal(c->woken_first, 0);
    assert_int_equal(c->l.state, OBJ_LOCK_WRITE);
    assert_int_equal(c->l.count, 1);
    assert_int_equal(c->l.waiters.len, 5);
    assert_int_equal(c->log.n, 0);
    sim_run(s, SIM_TIME_MAX);
    /* last release: NONE, every waiter handed back, none granted by the release */
    assert_int_equal(c->woken_last, 5);
    assert_int_equal(c->state_after_last, OBJ_LOCK_NONE);
    assert_int_equal(c->count_after_last, 0);
    assert_int_equal(c->waiters_after_last, 0);
    /* callbacks ran at the release time, in FIFO order */
    assert_int_equal(c->log.n, 5);
    for (int k = 0; k < 5; k++) {
        assert_int_equal(c->log.arg[k], (uint64_t)k);
        assert_int_equal(c->log.t[k], 2000);
    }
    /* each re-ran do_op in that order: the first READ got the free lock; the
       WRITE behind it was refused (READ held) and parked again, the EXCL too;
       the second READ is compatible with the holder but a waiter is parked
       again (anti-starvation), so it parks, and so does the last WRITE */
    assert_int_equal(c->regranted[0], 1);
    assert_int_equal(c->regranted[1], -1);
    assert_int_equal(c->regranted[2], -1);
    assert_int_equal(c->regranted[3], -1);
    assert_int_equal(c->regranted[4], -1);
    assert_int_equal(c->l.state, OBJ_LOCK_READ);
    assert_int_equal(c->l.count, 1);
    assert_int_equal(c->l.waiters.len, 4);
    /* the re-parked keep their retry order */
    uint64_t want[] = {1, 2, 3, 4};
    int i = 0;
    for (struct sim_waiter *w = c->l.waiters.head; w; w = w->next)
        assert_int_equal(w->arg, want[i++]);
    free(c);
    sim_destroy(s);
}

/* Releases of READ n=2 and of EXCL; a woken EXCL retried from NONE gets it
   even though others were woken with it, and the rest re-park behind it. */
static void test_rwstate_release_excl_requeue(void **state)
{
    struct sim *s = sim_create(1);
    struct release_ctx *c = calloc(1, sizeof *c);
    rwlockq_init(&c->l, &obj_rwstate_policy);
    assert_true(rwlockq_acquire(&c->l, s, OBJ_LOCK_EXCL, retry, c, 15));
    for (uint64_t k = 0; k < 4; k++) {
        c->mode[k] = OBJ_LOCK_EXCL; /* the clone-write storm: all EXCL */
        assert_false(rwlockq_acquire(&c->l, s, OBJ_LOCK_EXCL, retry, c, k));
    }
    sim_schedule(s, 10, release_last, c, 0);
    sim_run(s, SIM_TIME_MAX);
    assert_int_equal(c->woken_last, 4);
    assert_int_equal(c->log.n, 4);
    for (int k = 0; k < 4; k++)
        assert_int_equal(c->log.arg[k], (uint64_t)k);
    /* first retry wins, the other three park again: N-1 futile re-dispatches */
    assert_int_equal(c->regranted[0], 1);
    for (int k = 1; k < 4; k++)
        assert_int_equal(c->regranted[k], -1);
    assert_int_equal(c->l.state, OBJ_LOCK_EXCL);
    assert_int_equal(c->l.count, 1);
    assert_int_equal(c->l.waiters.len, 3);

    /* READ n=2: the first release keeps READ n=1 and wakes nobody */
    struct rwlockq r;
    struct wake_log log = {0};
    rwlockq_init(&r, &obj_rwstate_policy);
    assert_true(rwlockq_acquire(&r, s, OBJ_LOCK_READ, logged, &log, 1));
    assert_true(rwlockq_acquire(&r, s, OBJ_LOCK_READ, logged, &log, 2));
    assert_false(rwlockq_acquire(&r, s, OBJ_LOCK_WRITE, logged, &log, 3));
    assert_false(rwlockq_acquire(&r, s, OBJ_LOCK_READ, logged, &log, 4)); /* a waiter blocks READ */
    assert_int_equal(rwlockq_release(&r, s), 0);
    assert_int_equal(r.state, OBJ_LOCK_READ);
    assert_int_equal(r.count, 1);
    assert_int_equal(rwlockq_release(&r, s), 2);
    assert_int_equal(r.state, OBJ_LOCK_NONE);
    assert_int_equal(r.count, 0);
    sim_run(s, SIM_TIME_MAX);
    assert_int_equal(log.n, 2);
    assert_int_equal(log.arg[0], 3);
    assert_int_equal(log.arg[1], 4);
    /* the release granted nothing: the lock is still free */
    assert_int_equal(r.state, OBJ_LOCK_NONE);
    free(c);
    sim_destroy(s);
}

/* ---- (d) releases and the lock rule ---- */

struct rel_row {
    const char *release;
    bool fix, mclock, crimson;
    enum rw_lock_rule rule;
};

static const struct rel_row rel_rows[] = {
    /* v12.2.8 src/osd/PrimaryLogPG.h:770 get_rw_locks: write_ordered && may_read() -> RWEXCL */
    {"12.2.8", false, false, false, RW_LOCK_RULE_EXCL_IF_READ},
    {"luminous", false, false, false, RW_LOCK_RULE_EXCL_IF_READ},
    {"16.2.14", false, false, false, RW_LOCK_RULE_EXCL_IF_READ},
    {"16.2.15", true, false, false, RW_LOCK_RULE_EXCL_IF_READ_DATA},
    {"15.2.17", false, false, false, RW_LOCK_RULE_EXCL_IF_READ},
    {"17.2.7", false, true, false, RW_LOCK_RULE_EXCL_IF_READ},
    {"17.2.8", true, true, false, RW_LOCK_RULE_EXCL_IF_READ_DATA},
    {"18.2.2", false, true, false, RW_LOCK_RULE_EXCL_IF_READ},
    {"18.2.3", false, true, false, RW_LOCK_RULE_EXCL_IF_READ},
    {"18.2.4", true, true, false, RW_LOCK_RULE_EXCL_IF_READ_DATA},
    {"19.2.0", true, true, false, RW_LOCK_RULE_EXCL_IF_READ_DATA},
    {"pacific", false, false, false, RW_LOCK_RULE_EXCL_IF_READ},
    {"quincy", false, true, false, RW_LOCK_RULE_EXCL_IF_READ},
    {"reef", false, true, false, RW_LOCK_RULE_EXCL_IF_READ}, /* a bare name = 18.2.0 */
    {"squid", true, true, false, RW_LOCK_RULE_EXCL_IF_READ_DATA},
    {"crimson", false, true, true, RW_LOCK_RULE_EXCL_IF_READ}, /* get_lock_type keeps RWEXCL */
};

static void test_release_rule_table(void **state)
{
    for (size_t i = 0; i < sizeof rel_rows / sizeof rel_rows[0]; i++) {
        const struct rel_row *r = &rel_rows[i];
        struct release_traits t;
        struct sim_err err = {0};
        assert_int_equal(release_parse(r->release, &t, &err), 0);
        struct ceph_options o;
        ceph_options_defaults(&o);
        assert_int_equal(o.rw_lock_rule, RW_LOCK_RULE_RELEASE);
        enum rw_lock_rule rule = ceph_rw_lock_rule(&o, &t);
        if (t.fix_53593 != r->fix || t.crimson != r->crimson || rule != r->rule)
            fail_msg("%s: fix=%d crimson=%d rule=%d, want %d %d %d", r->release, t.fix_53593, t.crimson, rule,
                     r->fix, r->crimson, r->rule);
        /* the op queue default follows the release unless set explicitly */
        assert_int_equal(ceph_options_apply_release(&o, &t, NULL, &err), 0);
        assert_int_equal(o.osd_op_queue, r->mclock ? OSD_OP_QUEUE_MCLOCK : OSD_OP_QUEUE_WPQ);
        o.osd_op_queue = OSD_OP_QUEUE_WPQ;
        bool given[128] = {false};
        given[param_find(ceph_option_params, "osd_op_queue") - ceph_option_params] = true;
        assert_int_equal(ceph_options_apply_release(&o, &t, given, &err), 0);
        assert_int_equal(o.osd_op_queue, OSD_OP_QUEUE_WPQ);
    }
}

/* The stat+write lock, end to end from the release string. */
static void test_clone_write_lock_by_release(void **state)
{
    struct op_flags clone = opinfo_classify(SUBOP_STAT | SUBOP_SETALLOCHINT | SUBOP_WRITE);
    for (size_t i = 0; i < sizeof rel_rows / sizeof rel_rows[0]; i++) {
        struct release_traits t;
        assert_int_equal(release_parse(rel_rows[i].release, &t, NULL), 0);
        struct ceph_options o;
        ceph_options_defaults(&o);
        enum obj_lock_mode m = opinfo_lock_mode(&clone, ceph_rw_lock_rule(&o, &t));
        assert_int_equal(m, rel_rows[i].fix && !rel_rows[i].crimson ? OBJ_LOCK_WRITE : OBJ_LOCK_EXCL);
    }
}

/* ceph.rw_lock_rule, set by name as a scenario would, wins over the release. */
static void test_rw_lock_rule_override(void **state)
{
    const struct param_def *d = param_find(ceph_option_params, "rw_lock_rule");
    assert_non_null(d);
    const char *releases[] = {"16.2.14", "19.2.0", "crimson"};
    for (int i = 0; i < 3; i++) {
        struct release_traits t;
        assert_int_equal(release_parse(releases[i], &t, NULL), 0);
        struct ceph_options o;
        ceph_options_defaults(&o);
        struct sim_err err = {0};
        assert_int_equal(param_set_text(d, &o, "excl_if_read_data", "--set", "ceph.rw_lock_rule", &err), 0);
        assert_int_equal(ceph_rw_lock_rule(&o, &t), RW_LOCK_RULE_EXCL_IF_READ_DATA);
        assert_int_equal(param_set_text(d, &o, "excl_if_read", "--set", "ceph.rw_lock_rule", &err), 0);
        assert_int_equal(ceph_rw_lock_rule(&o, &t), RW_LOCK_RULE_EXCL_IF_READ);
        assert_int_equal(param_set_text(d, &o, "release", "--set", "ceph.rw_lock_rule", &err), 0);
        assert_int_equal(ceph_rw_lock_rule(&o, &t),
                         t.fix_53593 && !t.crimson ? RW_LOCK_RULE_EXCL_IF_READ_DATA : RW_LOCK_RULE_EXCL_IF_READ);
        assert_true(param_set_text(d, &o, "excl", "--set", "ceph.rw_lock_rule", &err) < 0);
        assert_non_null(strstr(err.msg, "rw_lock_rule"));
    }
}

static void test_release_parse_errors(void **state)
{
    const char *bad[] = {"banana", "", "9.2.1", "16.2.14x", "16.2.14.1", "100.0.0", "20.2.0", "tentacle", "13.2.10",
                         "16.1.0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct release_traits t;
        struct sim_err err = {0};
        int rc = release_parse(bad[i], &t, &err);
        if (rc != -EINVAL)
            fail_msg("release '%s': rc %d, want -EINVAL", bad[i], rc);
        assert_non_null(strstr(err.msg, "ceph.release"));
    }
    struct release_traits t;
    assert_int_equal(release_parse("18", &t, NULL), 0);
    assert_int_equal(t.major, 18);
    assert_false(t.fix_53593);
    assert_int_equal(release_parse("16.2.15", &t, NULL), 0);
    assert_int_equal(t.major, 16);
    assert_int_equal(t.minor, 2);
    assert_int_equal(t.patch, 15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify_table),
        cmocka_unit_test(test_read_data_only_without_stat),
        cmocka_unit_test(test_lock_table),
        cmocka_unit_test(test_perf_class_independent_of_rule),
        cmocka_unit_test(test_rwstate_grant_matrix),
        cmocka_unit_test(test_rwstate_policy_direct),
        cmocka_unit_test(test_rwstate_trylock_not_parked),
        cmocka_unit_test(test_rwstate_release_wakes_all_fifo),
        cmocka_unit_test(test_rwstate_release_excl_requeue),
        cmocka_unit_test(test_release_rule_table),
        cmocka_unit_test(test_clone_write_lock_by_release),
        cmocka_unit_test(test_rw_lock_rule_override),
        cmocka_unit_test(test_release_parse_errors),
    };
    return cmocka_run_group_tests_name("opinfo", tests, NULL, NULL);
}
