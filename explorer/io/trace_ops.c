/*
 * trace_ops.c - the container of an op-tracker dump (struct trace_ops, API in trace.h and
 * trace_int.h) and the questions asked of it: an op's events, the time of one, intervals,
 * and the validator's per-stage times.
 *
 * It reads no file.  The events are those the OSD marks on a tracked op: "initiated"
 * (src/common/TrackedOp.h), "queued_for_pg", "reached_pg", "started", "commit_sent" and
 * "waiting for rw locks" (src/osd/OpRequest.h mark_*(), PrimaryLogPG.cc), "waiting for
 * subops from N,M", "op_commit" and "sub_op_commit_rec[ from N]" (ReplicatedBackend.cc),
 * "done" (TrackedOp.cc).  Strings live in an arena of blocks that never move, so the
 * interned names and description fields stay valid until trace_ops_free().
 */
#include "trace_int.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_BLK 65536

/* ------------------------------------------------------------------ string arena */

static char *arena_alloc(struct trace_ops *t, size_t n)
{
    if (n > ARENA_BLK / 4) {
        char *p = sim_xcalloc(n, 1);
        t->blocks = sim_xrealloc(t->blocks, t->n_blocks + 1, sizeof *t->blocks);
        t->blocks[t->n_blocks] = p;
        if (t->blk_cap > 0) { /* keep the partly used block last */
            t->blocks[t->n_blocks] = t->blocks[t->n_blocks - 1];
            t->blocks[t->n_blocks - 1] = p;
        }
        t->n_blocks++;
        return p;
    }
    if (t->blk_cap == 0 || t->blk_used + n > t->blk_cap) {
        t->blocks = sim_xrealloc(t->blocks, t->n_blocks + 1, sizeof *t->blocks);
        t->blocks[t->n_blocks++] = sim_xcalloc(ARENA_BLK, 1);
        t->blk_used = 0;
        t->blk_cap = ARENA_BLK;
    }
    char *p = t->blocks[t->n_blocks - 1] + t->blk_used;
    t->blk_used += n;
    return p;
}

const char *trace_ops_strndup(struct trace_ops *t, const char *s, size_t n)
{
    if (n == 0)
        return "";
    char *p = arena_alloc(t, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

const char *trace_ops_strdup(struct trace_ops *t, const char *s)
{
    return trace_ops_strndup(t, s, strlen(s));
}

void trace_ops_free(struct trace_ops *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_blocks; i++)
        free(t->blocks[i]);
    free(t->blocks);
    free(t->ops);
    free(t->events);
    free(t->osdops);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------ container growth */

struct trace_op *trace_ops_push_op(struct trace_ops *t)
{
    if (t->n == t->cap_ops) {
        t->cap_ops = t->cap_ops ? 2 * t->cap_ops : 64;
        t->ops = sim_xrealloc(t->ops, t->cap_ops, sizeof *t->ops);
    }
    struct trace_op *op = &t->ops[t->n++];
    memset(op, 0, sizeof *op);
    return op;
}

struct trace_event *trace_ops_push_event(struct trace_ops *t)
{
    if (t->n_events == t->cap_events) {
        t->cap_events = t->cap_events ? 2 * t->cap_events : 256;
        t->events = sim_xrealloc(t->events, t->cap_events, sizeof *t->events);
    }
    struct trace_event *e = &t->events[t->n_events++];
    memset(e, 0, sizeof *e);
    return e;
}

struct trace_osdop *trace_ops_push_osdop(struct trace_ops *t)
{
    if (t->n_osdops == t->cap_osdops) {
        t->cap_osdops = t->cap_osdops ? 2 * t->cap_osdops : 64;
        t->osdops = sim_xrealloc(t->osdops, t->cap_osdops, sizeof *t->osdops);
    }
    struct trace_osdop *o = &t->osdops[t->n_osdops++];
    memset(o, 0, sizeof *o);
    return o;
}

/* ------------------------------------------------------------------ event queries */

const struct trace_event *trace_op_events(const struct trace_ops *t, const struct trace_op *op)
{
    return op->n_ev ? t->events + op->ev_first : NULL;
}

static bool name_match(const char *ev, const char *pat)
{
    size_t n = strlen(pat);
    if (n && pat[n - 1] == '*')
        return strncmp(ev, pat, n - 1) == 0;
    return strcmp(ev, pat) == 0;
}

static int64_t event_time(const struct trace_ops *t, const struct trace_op *op, const char *name,
                          bool last)
{
    int64_t r = TRACE_NS_NONE;
    const struct trace_event *e = trace_op_events(t, op); /* NULL when none: no NULL + 0 */
    for (size_t i = 0; i < op->n_ev; i++)
        if (name_match(e[i].name, name)) {
            r = e[i].t_ns;
            if (!last)
                break;
        }
    return r;
}

int64_t trace_op_event_time(const struct trace_ops *t, const struct trace_op *op, const char *name)
{
    return event_time(t, op, name, false);
}

int64_t trace_op_interval(const struct trace_ops *t, const struct trace_op *op,
                          const char *from, const char *to)
{
    int64_t a = event_time(t, op, from, false), b = event_time(t, op, to, false);
    return a == TRACE_NS_NONE || b == TRACE_NS_NONE ? TRACE_NS_NONE : b - a;
}

static const char *const stage_names[TRACE_ST_N] = {
    "queued_for_pg", "reached_pg", "started", "waiting for subops", "op_commit",
    "sub_op_commit_rec", "commit_sent", "done",
};
static const char *const stage_patterns[TRACE_ST_N] = {
    "queued_for_pg", "reached_pg", "started", "waiting for subops*", "op_commit",
    "sub_op_commit_rec*", "commit_sent", "done",
};

const char *trace_stage_name(enum trace_stage s)
{
    return s < TRACE_ST_N ? stage_names[s] : "?";
}

void trace_op_stages(const struct trace_ops *t, const struct trace_op *op, struct trace_stages *st)
{
    int64_t base = event_time(t, op, "initiated", false);
    if (base == TRACE_NS_NONE)
        base = op->initiated_ns;
    int64_t prev = base;
    for (int s = 0; s < TRACE_ST_N; s++) {
        int64_t ts = event_time(t, op, stage_patterns[s], s == TRACE_ST_SUBOP_COMMIT_REC);
        if (ts == TRACE_NS_NONE) {
            st->at_ns[s] = st->gap_ns[s] = TRACE_NS_NONE;
            continue;
        }
        st->at_ns[s] = ts - base;
        st->gap_ns[s] = ts - prev;
        prev = ts;
    }
    st->rw_lock_waits = 0;
    const struct trace_event *e = trace_op_events(t, op); /* NULL when none: no NULL + 0 */
    for (size_t i = 0; i < op->n_ev; i++)
        st->rw_lock_waits += strcmp(e[i].name, "waiting for rw locks") == 0;
}
