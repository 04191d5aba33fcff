#include "opinfo.h"

struct op_flags opinfo_classify(uint32_t subops)
{
    struct op_flags f = {0};
    /* ceph_osd_op_mode_read: STAT, READ, CMPEXT, ASSERT_VER (CALL special-cased) */
    if (subops & (SUBOP_STAT | SUBOP_READ | SUBOP_CMPEXT | SUBOP_ASSERT_VER))
        f.may_read = true;
    /* set_read_data() for every read-mode op except STAT */
    if (subops & (SUBOP_READ | SUBOP_CMPEXT | SUBOP_ASSERT_VER))
        f.may_read_data = true;
    /* ceph_osd_op_mode_modify: WR bit */
    if (subops & (SUBOP_WRITE | SUBOP_WRITEFULL | SUBOP_SETALLOCHINT | SUBOP_WRITE_MUST_EXIST))
        f.may_write = true;
    /* CALL: class method flags (CLS_METHOD_RD -> set_class_read, WR -> set_class_write) */
    if (subops & SUBOP_CALL_RDWR)
        f.may_read = f.may_write = true;
    if (subops & SUBOP_CALL_RD)
        f.may_read = true;
    f.rwordered = f.may_write || f.may_cache;
    return f;
}

enum obj_lock_mode opinfo_lock_mode(const struct op_flags *f, enum rw_lock_rule rule)
{
    if (f->rwordered && f->may_read) {
        if (rule == RW_LOCK_RULE_EXCL_IF_READ_DATA && !f->may_read_data)
            return OBJ_LOCK_WRITE;
        return OBJ_LOCK_EXCL;
    }
    if (f->rwordered)
        return OBJ_LOCK_WRITE;
    return OBJ_LOCK_READ;
}

enum perf_class opinfo_perf_class(const struct op_flags *f)
{
    if (f->may_read && f->may_write)
        return PERF_CLASS_RW;
    if (f->may_read)
        return PERF_CLASS_R;
    return PERF_CLASS_W;
}

/* RWState::get_read_lock / get_write_lock(greedy=false) / get_excl_lock */
static bool rwstate_can_grant(const struct rwlockq *l, int mode)
{
    switch (mode) {
    case OBJ_LOCK_READ:
        return l->waiters.len == 0 && (l->state == OBJ_LOCK_NONE || l->state == OBJ_LOCK_READ);
    case OBJ_LOCK_WRITE:
        return l->waiters.len == 0 && (l->state == OBJ_LOCK_NONE || l->state == OBJ_LOCK_WRITE);
    case OBJ_LOCK_EXCL:
        return l->state == OBJ_LOCK_NONE; /* does not test waiters */
    }
    return false;
}

const struct rwlockq_policy obj_rwstate_policy = {rwstate_can_grant, RWLOCKQ_WAKE_ALL};

/* tri_mutex: READ with READ, WRITE with WRITE, EXCL alone; FIFO behind waiters */
static bool crimson_can_grant(const struct rwlockq *l, int mode)
{
    if (l->waiters.len)
        return false;
    if (mode == OBJ_LOCK_EXCL)
        return l->state == OBJ_LOCK_NONE;
    return l->state == OBJ_LOCK_NONE || l->state == mode;
}

const struct rwlockq_policy obj_crimson_policy = {crimson_can_grant, RWLOCKQ_GRANT_FIFO};

const char *obj_lock_mode_name(enum obj_lock_mode m)
{
    static const char *const names[] = {"none", "read", "write", "excl"};
    return names[m];
}
