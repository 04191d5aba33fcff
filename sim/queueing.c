#include "queueing.h"

#include "err.h"

void waitlist_push(struct waitlist *l, struct sim_waiter *w)
{
    w->next = NULL;
    if (l->tail)
        l->tail->next = w;
    else
        l->head = w;
    l->tail = w;
    l->len++;
}

void waitlist_insert_by_key(struct waitlist *l, struct sim_waiter *w, double (*key)(const void *obj))
{
    double k = key(w->obj);
    struct sim_waiter **pp = &l->head;
    while (*pp && key((*pp)->obj) <= k)
        pp = &(*pp)->next;
    w->next = *pp;
    *pp = w;
    if (!w->next)
        l->tail = w;
    l->len++;
}

struct sim_waiter *waitlist_pop(struct waitlist *l)
{
    struct sim_waiter *w = l->head;
    if (w) {
        l->head = w->next;
        if (!l->head)
            l->tail = NULL;
        l->len--;
    }
    return w;
}

static struct sim_waiter *waiter_new(struct sim *s, sim_event_fn fn, void *obj, uint64_t arg,
                                     uint64_t aux)
{
    struct sim_waiter *w = sim_waiter_get(s);
    w->fn = fn;
    w->obj = obj;
    w->arg = arg;
    w->aux = aux;
    w->t_enq = sim_now(s);
    return w;
}

/* ---- station ---- */

void station_init(struct station *st, struct sim *s, uint32_t servers)
{
    SIM_ASSERT(servers > 0);
    *st = (struct station){.s = s, .servers = servers};
    tavg_init(&st->busy_avg, sim_now(s), 0);
    tavg_init(&st->queue_avg, sim_now(s), 0);
}

void station_init_direct(struct station *st, struct sim *s, uint32_t servers)
{
    station_init(st, s, servers);
    st->direct = true;
}

static void station_start(struct station *st, struct sim_waiter *w);

/* A direct station's job starts: its completion is the done event itself
   (inlined: every CPU stage passes here). */
static inline __attribute__((always_inline)) void direct_start(struct station *st, sim_time_t service,
                                                               sim_event_fn done, void *obj, uint64_t arg)
{
    if (__builtin_expect(st->on_start != NULL, 0))
        st->on_start(obj, sim_schedule_cancellable(st->s, service, done, obj, arg), sim_now(st->s) + service);
    else
        sim_schedule(st->s, service, done, obj, arg);
}

static void station_finish(struct sim *s, void *obj, uint64_t arg)
{
    struct station *st = obj;
    struct sim_waiter *w = (struct sim_waiter *)(uintptr_t)arg;
    sim_event_fn fn = w->fn;
    void *o = w->obj;
    uint64_t a = w->arg;
    sim_waiter_put(s, w);
    st->completed++;
    /* the server stays with this job's owner while its callback runs: it may
       go on (station_submit_continue); else it passes to the next job */
    SIM_ASSERT(!st->handoff_pending);
    st->handoff_pending = true;
    fn(s, o, a);
    if (!st->handoff_pending)
        return;
    st->handoff_pending = false;
    struct sim_waiter *next = waitlist_pop(&st->queue);
    if (next) {
        tavg_set(&st->queue_avg, sim_now(s), st->queue.len);
        station_start(st, next); /* the server passes straight to the next job */
    } else {
        st->busy--;
        tavg_set(&st->busy_avg, sim_now(s), st->busy);
    }
}

void station_finish_end(struct station *st)
{
    SIM_ASSERT(st->direct);
    if (!st->handoff_pending)
        return; /* the job's owner went on (station_submit_continue) */
    st->handoff_pending = false;
    struct sim_waiter *next = waitlist_pop(&st->queue);
    if (next) {
        tavg_set(&st->queue_avg, sim_now(st->s), st->queue.len);
        station_start(st, next);
    } else {
        st->busy--;
        tavg_set(&st->busy_avg, sim_now(st->s), st->busy);
    }
}

void station_submit_continue(struct station *st, sim_time_t service, sim_event_fn done, void *obj, uint64_t arg)
{
    SIM_ASSERT(st->handoff_pending);
    st->handoff_pending = false;
    if (st->direct) { /* started now: no wait to count, no record to keep */
        st->wait_n++;
        direct_start(st, service, done, obj, arg);
        return;
    }
    station_start(st, waiter_new(st->s, done, obj, arg, service));
}

static void station_start(struct station *st, struct sim_waiter *w)
{
    st->wait_n++;
    st->wait_sum_ns += (double)(sim_now(st->s) - w->t_enq);
    if (st->direct) {
        direct_start(st, w->aux, w->fn, w->obj, w->arg);
        sim_waiter_put(st->s, w);
        return;
    }
    sim_schedule(st->s, w->aux, station_finish, st, (uint64_t)(uintptr_t)w);
}

void station_submit(struct station *st, sim_time_t service, sim_event_fn done, void *obj, uint64_t arg)
{
    if (st->direct && st->busy < st->servers) { /* a free server: no wait, no record */
        st->busy++;
        tavg_set(&st->busy_avg, sim_now(st->s), st->busy);
        st->wait_n++;
        direct_start(st, service, done, obj, arg);
        return;
    }
    struct sim_waiter *w = waiter_new(st->s, done, obj, arg, service);
    if (st->busy < st->servers) {
        st->busy++;
        tavg_set(&st->busy_avg, sim_now(st->s), st->busy);
        station_start(st, w);
    } else {
        if (st->key)
            waitlist_insert_by_key(&st->queue, w, st->key);
        else
            waitlist_push(&st->queue, w);
        tavg_set(&st->queue_avg, sim_now(st->s), st->queue.len);
    }
}

void station_reset_stats(struct station *st)
{
    sim_time_t t = sim_now(st->s);
    tavg_reset(&st->busy_avg, t);
    tavg_reset(&st->queue_avg, t);
    st->completed = 0;
    st->wait_n = 0;
    st->wait_sum_ns = 0;
}

double station_utilisation(const struct station *st)
{
    return tavg_mean(&st->busy_avg, sim_now(st->s)) / st->servers;
}

double station_mean_wait_ns(const struct station *st)
{
    return st->wait_n ? st->wait_sum_ns / (double)st->wait_n : 0;
}

/* ---- mutexq ---- */

void mutexq_init(struct mutexq *m)
{
    *m = (struct mutexq){0};
}

bool mutexq_acquire(struct mutexq *m, struct sim *s, sim_event_fn fn, void *obj, uint64_t arg)
{
    if (!m->held) {
        m->held = true;
        return true;
    }
    m->contended++;
    waitlist_push(&m->waiters, waiter_new(s, fn, obj, arg, 0));
    return false;
}

void mutexq_release(struct mutexq *m, struct sim *s)
{
    SIM_ASSERT(m->held);
    struct sim_waiter *w = waitlist_pop(&m->waiters);
    if (!w) {
        m->held = false;
        return;
    }
    /* ownership passes directly to the first waiter (FIFO hand-off) */
    sim_schedule(s, 0, w->fn, w->obj, w->arg);
    sim_waiter_put(s, w);
}

/* ---- rwlockq ---- */

void rwlockq_init(struct rwlockq *l, const struct rwlockq_policy *p)
{
    *l = (struct rwlockq){.policy = p};
}

bool rwlockq_acquire(struct rwlockq *l, struct sim *s, int mode, sim_event_fn fn, void *obj,
                     uint64_t arg)
{
    SIM_ASSERT(mode > 0);
    if (l->policy->can_grant(l, mode)) {
        SIM_ASSERT(l->state == 0 || l->state == mode);
        l->state = mode;
        l->count++;
        return true;
    }
    if (fn)
        waitlist_push(&l->waiters, waiter_new(s, fn, obj, arg, (uint64_t)mode));
    return false;
}

uint32_t rwlockq_release(struct rwlockq *l, struct sim *s)
{
    SIM_ASSERT(l->count > 0);
    if (--l->count == 0)
        l->state = 0;
    uint32_t woken = 0;
    if (l->policy->wake == RWLOCKQ_WAKE_ALL) {
        if (l->count)
            return 0;
        struct sim_waiter *w;
        while ((w = waitlist_pop(&l->waiters))) {
            sim_schedule(s, 0, w->fn, w->obj, w->arg);
            sim_waiter_put(s, w);
            woken++;
        }
        return woken;
    }
    /* GRANT_FIFO: grant from the head while the head is compatible.  The head
       is checked as if it were not waiting itself. */
    while (l->waiters.head) {
        struct sim_waiter *w = l->waiters.head;
        int mode = (int)w->aux;
        struct waitlist saved = l->waiters;
        l->waiters = (struct waitlist){0};
        bool ok = l->policy->can_grant(l, mode);
        l->waiters = saved;
        if (!ok)
            break;
        waitlist_pop(&l->waiters);
        l->state = mode;
        l->count++;
        sim_schedule(s, 0, w->fn, w->obj, w->arg);
        sim_waiter_put(s, w);
        woken++;
    }
    return woken;
}

uint32_t rwlockq_release_take(struct rwlockq *l, struct waitlist *woken)
{
    SIM_ASSERT(l->policy->wake == RWLOCKQ_WAKE_ALL && l->count > 0);
    if (--l->count)
        return 0;
    l->state = 0;
    uint32_t n = l->waiters.len;
    if (n) {
        if (woken->tail)
            woken->tail->next = l->waiters.head;
        else
            woken->head = l->waiters.head;
        woken->tail = l->waiters.tail;
        woken->len += n;
        l->waiters = (struct waitlist){0};
    }
    return n;
}

/* ---- throttle ---- */

void throttle_init(struct throttle *t, uint64_t max_ops, uint64_t max_bytes)
{
    *t = (struct throttle){.max_ops = max_ops, .max_bytes = max_bytes};
}

static bool throttle_fits(const struct throttle *t, uint64_t bytes)
{
    if (t->max_ops && t->ops + 1 > t->max_ops)
        return false;
    /* Ceph's Throttle lets one oversized request through when idle */
    if (t->max_bytes && t->bytes + bytes > t->max_bytes && t->bytes > 0)
        return false;
    return true;
}

bool throttle_get(struct throttle *t, struct sim *s, uint64_t bytes, sim_event_fn fn, void *obj,
                  uint64_t arg)
{
    if (!t->waiters.head && throttle_fits(t, bytes)) {
        t->ops++;
        t->bytes += bytes;
        return true;
    }
    t->waited++;
    waitlist_push(&t->waiters, waiter_new(s, fn, obj, arg, bytes));
    return false;
}

void throttle_put(struct throttle *t, struct sim *s, uint64_t bytes)
{
    SIM_ASSERT(t->ops > 0 && t->bytes >= bytes);
    t->ops--;
    t->bytes -= bytes;
    while (t->waiters.head && throttle_fits(t, t->waiters.head->aux)) {
        struct sim_waiter *w = waitlist_pop(&t->waiters);
        t->ops++;
        t->bytes += w->aux;
        sim_schedule(s, 0, w->fn, w->obj, w->arg);
        sim_waiter_put(s, w);
    }
}
