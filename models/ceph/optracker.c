/*
 * optracker.c - Ceph's OpTracker history and its admin-socket dumps.
 *
 * Mirrors (Ceph 16.2 Pacific, the release of the lab captures):
 * - OpHistory::insert / OpHistory::cleanup (src/common/TrackedOp.cc): one set
 *   of finished ops ordered two ways ("arrived" by initiated time, "duration");
 *   cleanup drops ops with now - initiated > osd_op_history_duration (default
 *   600 s), then the shortest ops while more than osd_op_history_size (default
 *   20) remain.  OpHistory::dump_ops: {"size", "duration", "ops": [...]}, by
 *   arrival or (by_duration) longest first.
 * - TrackedOp::dump: description, initiated_at, age, duration (last event
 *   "done" - initiated), type_data; JSONFormatter prints doubles with 17
 *   significant digits (%.17g) and utime_t as "%FT%T.%06u%z".
 * - OpRequest::_dump: flag_point (state_string), client_info for ops whose
 *   source is a client, events [{event, time, duration}] where duration is the
 *   time to the next event and the last event's is last - initiated.
 * - MOSDOp::print, MOSDRepOp::print, MOSDRepOpReply::print and
 *   operator<<(OSDOp) after OSDOp::clear_data (finished ops lose their
 *   in/out data, exec ops keep "class.method" bytes), hobject_t's
 *   "pool:<bit-reversed hash %08x>:::name:head", ceph_str_hash_rjenkins.
 */
#include "optracker.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "strbuf.h"

/* ---- hashing (src/common/ceph_hash.cc, src/include/rados.h) ---- */

#define RJ_MIX(a, b, c)                                                                            \
    do {                                                                                           \
        a -= b; a -= c; a ^= (c >> 13);                                                            \
        b -= c; b -= a; b ^= (a << 8);                                                             \
        c -= a; c -= b; c ^= (b >> 13);                                                            \
        a -= b; a -= c; a ^= (c >> 12);                                                            \
        b -= c; b -= a; b ^= (a << 16);                                                            \
        c -= a; c -= b; c ^= (b >> 5);                                                             \
        a -= b; a -= c; a ^= (c >> 3);                                                             \
        b -= c; b -= a; b ^= (a << 10);                                                            \
        c -= a; c -= b; c ^= (b >> 15);                                                            \
    } while (0)

uint32_t optrack_str_hash_rjenkins(const char *str, size_t length)
{
    const unsigned char *k = (const unsigned char *)str;
    uint32_t a = 0x9e3779b9, b = a, c = 0;
    size_t len = length;

    while (len >= 12) {
        a += k[0] + ((uint32_t)k[1] << 8) + ((uint32_t)k[2] << 16) + ((uint32_t)k[3] << 24);
        b += k[4] + ((uint32_t)k[5] << 8) + ((uint32_t)k[6] << 16) + ((uint32_t)k[7] << 24);
        c += k[8] + ((uint32_t)k[9] << 8) + ((uint32_t)k[10] << 16) + ((uint32_t)k[11] << 24);
        RJ_MIX(a, b, c);
        k += 12;
        len -= 12;
    }
    c += (uint32_t)length;
    switch (len) { /* all cases fall through */
    case 11: c += (uint32_t)k[10] << 24; /* fall through */
    case 10: c += (uint32_t)k[9] << 16;  /* fall through */
    case 9: c += (uint32_t)k[8] << 8;    /* fall through */
    case 8: b += (uint32_t)k[7] << 24;   /* fall through */
    case 7: b += (uint32_t)k[6] << 16;   /* fall through */
    case 6: b += (uint32_t)k[5] << 8;    /* fall through */
    case 5: b += k[4];                   /* fall through */
    case 4: a += (uint32_t)k[3] << 24;   /* fall through */
    case 3: a += (uint32_t)k[2] << 16;   /* fall through */
    case 2: a += (uint32_t)k[1] << 8;    /* fall through */
    case 1: a += k[0];                   /* fall through */
    default: break;
    }
    RJ_MIX(a, b, c);
    return c;
}

uint32_t optrack_stable_mod(uint32_t x, uint32_t b, uint32_t bmask)
{
    return (x & bmask) < b ? x & bmask : x & (bmask >> 1);
}

/* hobject_t::get_bitwise_key_u32: the hash with its 32 bits reversed. */
static uint32_t reverse_bits(uint32_t v)
{
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
    v = ((v >> 8) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8);
    return (v >> 16) | (v << 16);
}

/* ---- descriptions ---- */

const char *optrack_object_name(const struct optrack_op *op, char *buf, size_t n)
{
    if (op->object == OPTRACK_OBJ_HEADER)
        snprintf(buf, n, "rbd_header.%" PRIx64, op->image_id);
    else if (op->object == OPTRACK_OBJ_OBJECT_MAP || (op->subops & OPTRACK_CALL_OBJECT_MAP_UPDATE))
        snprintf(buf, n, "rbd_object_map.%" PRIx64, op->image_id);
    else
        snprintf(buf, n, "rbd_data.%" PRIx64 ".%016" PRIx64, op->image_id, op->objno);
    return buf;
}

/* The op vector "[a,b]" as operator<<(vector<OSDOp>) prints it after clear_data. */
static void describe_ops(struct strbuf *b, const struct optrack_op *op)
{
    static const char copyup_cls[] = "rbd", copyup_method[] = "sparse_copyup";
    uint32_t objsz = op->object_size ? op->object_size : 4194304;
    const char *sep = "";
    strbuf_printf(b, "[");
    if (op->subops & OPTRACK_STAT) {
        strbuf_printf(b, "%sstat", sep);
        sep = ",";
    }
    if (op->subops & OPTRACK_CALL_COPYUP) {
        strbuf_printf(b, "%scall %s.%s in=%zub", sep, copyup_cls, copyup_method,
                      strlen(copyup_cls) + strlen(copyup_method));
        sep = ",";
    }
    if (op->subops & OPTRACK_CALL_OBJECT_MAP_UPDATE) {
        /* cls_client::object_map_update: class + method names are the call's in-data */
        strbuf_printf(b, "%scall rbd.object_map_update in=%zub", sep, strlen("rbd") + strlen("object_map_update"));
        sep = ",";
    }
    /* exec ops print class.method and the call's in-data (class + method names) */
    static const struct { uint32_t bit; const char *cls, *method; } calls[] = {
        {OPTRACK_CALL_LOCK_GET_INFO, "lock", "get_info"},
        {OPTRACK_CALL_LOCK_LOCK, "lock", "lock"},
        {OPTRACK_CALL_LOCK_UNLOCK, "lock", "unlock"},
        {OPTRACK_CALL_OBJECT_MAP_LOAD, "rbd", "object_map_load"},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (op->subops & calls[i].bit) {
            strbuf_printf(b, "%scall %s.%s in=%zub", sep, calls[i].cls, calls[i].method,
                          strlen(calls[i].cls) + strlen(calls[i].method));
            sep = ",";
        }
    if (op->subops & OPTRACK_LIST_WATCHERS) {
        strbuf_printf(b, "%slist-watchers", sep);
        sep = ",";
    }
    if (op->subops & OPTRACK_NOTIFY) {
        strbuf_printf(b, "%snotify cookie %" PRIu64, sep, op->tid);
        sep = ",";
    }
    if (op->subops & OPTRACK_NOTIFY_ACK) {
        strbuf_printf(b, "%snotify-ack", sep);
        sep = ",";
    }
    if (op->subops & OPTRACK_CMPEXT) {
        strbuf_printf(b, "%scmpext %" PRIu64 "~%" PRIu64 " in=%" PRIu64 "b", sep, op->off, op->len, op->len);
        sep = ",";
    }
    if (op->subops & OPTRACK_ALLOC_HINT) {
        strbuf_printf(b, "%sset-alloc-hint object_size %" PRIu32 " write_size %" PRIu32, sep, objsz, objsz);
        sep = ",";
    }
    if (op->subops & OPTRACK_WRITE) {
        strbuf_printf(b, "%swrite %" PRIu64 "~%" PRIu64, sep, op->off, op->len);
        sep = ",";
        for (uint16_t i = 0; i < op->n_more && i < OPTRACK_MORE_WRITES; i++)
            strbuf_printf(b, ",write %" PRIu32 "~%" PRIu32, op->more_writes[i][0], op->more_writes[i][1]);
    }
    if (op->subops & OPTRACK_WRITEFULL) {
        strbuf_printf(b, "%swritefull 0~%" PRIu64, sep, op->len);
        sep = ",";
    }
    if (op->subops & OPTRACK_READ) {
        strbuf_printf(b, "%sread %" PRIu64 "~%" PRIu64, sep, op->off, op->len);
        sep = ",";
    }
    strbuf_printf(b, "]");
}

const char *optrack_describe(const struct optrack_op *op, char *buf, size_t n)
{
    struct strbuf b;
    strbuf_fixed(&b, buf, n);
    char name[64];
    optrack_object_name(op, name, sizeof name);
    uint32_t hash = optrack_str_hash_rjenkins(name, strlen(name));
    uint32_t min_epoch = op->min_epoch ? op->min_epoch : op->epoch;

    switch (op->kind) {
    case OPTRACK_OSD_OP: {
        const uint32_t writes = OPTRACK_CALL_COPYUP | OPTRACK_CALL_OBJECT_MAP_UPDATE | OPTRACK_ALLOC_HINT |
                                OPTRACK_WRITE | OPTRACK_WRITEFULL | OPTRACK_CALL_LOCK_LOCK |
                                OPTRACK_CALL_LOCK_UNLOCK;
        /* ceph_osd_flag_string: ondisk(4) read(16) write(32) known_if_redirected(0x400000) */
        const char *flags = (op->subops & writes) ? "ondisk+write+known_if_redirected"
                                                  : "ondisk+read+known_if_redirected";
        strbuf_printf(&b, "osd_op(client.%" PRIu32 ".0:%" PRIu64 " %" PRIu32 ".%" PRIx32 " %" PRIu32 ":%08" PRIx32
                      ":::%s:head ", op->client, op->tid, op->pool, op->pg_seed, op->pool, reverse_bits(hash), name);
        describe_ops(&b, op);
        strbuf_printf(&b, " snapc 0=[] %s e%" PRIu32 ")", flags, op->epoch);
        break;
    }
    case OPTRACK_OSD_REPOP: {
        uint64_t mlcod = op->mlcod ? op->mlcod : (op->version >= 2 ? op->version - 2 : 0);
        strbuf_printf(&b, "osd_repop(client.%" PRIu32 ".0:%" PRIu64 " %" PRIu32 ".%" PRIx32 " e%" PRIu32 "/%" PRIu32
                      " %" PRIu32 ":%08" PRIx32 ":::%s:head v %" PRIu32 "'%" PRIu64 ", mlcod=%" PRIu32 "'%" PRIu64 ")",
                      op->client, op->tid, op->pool, op->pg_seed, op->epoch, min_epoch, op->pool, reverse_bits(hash),
                      name, op->epoch, op->version, op->epoch, mlcod);
        break;
    }
    case OPTRACK_OSD_REPOP_REPLY:
        strbuf_printf(&b, "osd_repop_reply(client.%" PRIu32 ".0:%" PRIu64 " %" PRIu32 ".%" PRIx32 " e%" PRIu32 "/%" PRIu32
                      " ondisk, result = %" PRId32 ")",
                      op->client, op->tid, op->pool, op->pg_seed, op->epoch, min_epoch, op->result);
        break;
    }
    return buf;
}

/* ---- flag point (src/osd/OpRequest.h, Pacific state_string) ---- */

const char *optrack_flag_point(const struct optrack_op *op)
{
    const char *fp = "no flag points reached";
    for (uint32_t i = 0; i < op->n_events; i++) {
        const char *e = optrack_event(op, i).name;
        if (!strcmp(e, "queued_for_pg"))
            fp = "queued for pg";
        else if (!strcmp(e, "reached_pg"))
            fp = "reached pg";
        else if (!strcmp(e, "started"))
            fp = "started";
        else if (!strncmp(e, "waiting for subops", 18))
            fp = "waiting for sub ops";
        else if (!strcmp(e, "commit_sent"))
            fp = "commit sent; apply or cleanup";
        else if (!strncmp(e, "waiting for ", 12) || !strncmp(e, "waiting_for_", 12))
            fp = "delayed"; /* mark_delayed(); Quincy+ would print the event itself */
    }
    return fp;
}

/* ---- events ---- */

static const char *const ev_names[] = {
    [OPTRACK_EV_INITIATED] = "initiated",
    [OPTRACK_EV_THROTTLED] = "throttled",
    [OPTRACK_EV_HEADER_READ] = "header_read",
    [OPTRACK_EV_ALL_READ] = "all_read",
    [OPTRACK_EV_DISPATCHED] = "dispatched",
    [OPTRACK_EV_QUEUED_FOR_PG] = "queued_for_pg",
    [OPTRACK_EV_REACHED_PG] = "reached_pg",
    [OPTRACK_EV_WAITING_FOR_RW_LOCKS] = "waiting for rw locks",
    [OPTRACK_EV_STARTED] = "started",
    [OPTRACK_EV_OP_COMMIT] = "op_commit",
    [OPTRACK_EV_SUB_OP_COMMIT_REC] = "sub_op_commit_rec",
    [OPTRACK_EV_COMMIT_SENT] = "commit_sent",
    [OPTRACK_EV_DONE] = "done",
    [OPTRACK_EV_OWN] = NULL,
};

const char *optrack_ev_name(enum optrack_ev ev)
{
    return (unsigned)ev < sizeof ev_names / sizeof ev_names[0] ? ev_names[ev] : NULL;
}

void optrack_mark_more(struct optrack_op *op, enum optrack_ev ev, sim_time_t t)
{
    uint32_t k = op->n_events - op->n_inline;
    if (k == op->more_cap) {
        op->more_cap = op->more_cap ? 2 * op->more_cap : OPTRACK_INLINE_EVENTS;
        op->more = sim_xrealloc(op->more, op->more_cap, sizeof *op->more);
    }
    op->more[k] = (struct optrack_more_event){t, (uint8_t)ev};
    op->n_events++;
}

void optrack_mark(struct optrack_op *op, const char *name, sim_time_t t)
{
    for (unsigned i = 0; i < OPTRACK_EV_OWN; i++)
        if (!strcmp(ev_names[i], name)) {
            optrack_mark_ev(op, (enum optrack_ev)i, t);
            return;
        }
    SIM_ASSERT(!op->own_name || op->own_name == name || !strcmp(op->own_name, name));
    op->own_name = name;
    optrack_mark_ev(op, OPTRACK_EV_OWN, t);
}

struct optrack_event optrack_event(const struct optrack_op *op, uint32_t i)
{
    uint8_t ev = i < op->n_inline ? op->ev_id[i] : op->more[i - op->n_inline].ev;
    return (struct optrack_event){ev == OPTRACK_EV_OWN ? op->own_name : ev_names[ev], optrack_event_t(op, i)};
}

void optrack_add_write(struct optrack_op *op, uint32_t off, uint32_t len)
{
    if (op->n_more >= OPTRACK_MORE_WRITES)
        return;
    if (!op->more_writes)
        op->more_writes = sim_xcalloc(OPTRACK_MORE_WRITES, sizeof *op->more_writes);
    op->more_writes[op->n_more][0] = off;
    op->more_writes[op->n_more++][1] = len;
}

void optrack_release(struct optrack_op *op)
{
    free(op->more);
    op->more = NULL;
    op->more_cap = 0;
    free(op->more_writes);
    op->more_writes = NULL;
}

/* TrackedOp::get_duration: to "done" if finished, else to now. */
int64_t optrack_duration_ns(const struct optrack_op *op, sim_time_t now)
{
    if (!op->n_events)
        return 0;
    struct optrack_event last = optrack_event(op, op->n_events - 1);
    sim_time_t end = last.name && strcmp(last.name, "done") == 0 ? last.t : now;
    return (int64_t)(end - op->t0);
}

/* ---- the history set: op slots + two indexed min-heaps ---- */

enum { H_DUR = 0, H_INIT = 1 };

static int slot_less(const struct optracker *t, int which, uint32_t a, uint32_t b)
{
    const struct optrack_slot_key *x = &t->key[a], *y = &t->key[b];
    uint64_t kx = which == H_DUR ? x->dur : x->init, ky = which == H_DUR ? y->dur : y->init;
    return kx != ky ? kx < ky : x->seq < y->seq;
}

static uint32_t *heap_of(struct optracker *t, int which)
{
    return which == H_DUR ? t->dur_heap : t->init_heap;
}

static uint32_t *pos_of(struct optracker *t, int which)
{
    return which == H_DUR ? t->dur_pos : t->init_pos;
}

static void heap_set(struct optracker *t, int which, uint32_t i, uint32_t slot)
{
    heap_of(t, which)[i] = slot;
    pos_of(t, which)[slot] = i;
}

static void heap_sift_up(struct optracker *t, int which, uint32_t i)
{
    uint32_t *h = heap_of(t, which), s = h[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!slot_less(t, which, s, h[p]))
            break;
        heap_set(t, which, i, h[p]);
        i = p;
    }
    heap_set(t, which, i, s);
}

static void heap_sift_down(struct optracker *t, int which, uint32_t i, uint32_t n)
{
    uint32_t *h = heap_of(t, which), s = h[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && slot_less(t, which, h[c + 1], h[c]))
            c++;
        if (!slot_less(t, which, h[c], s))
            break;
        heap_set(t, which, i, h[c]);
        i = c;
    }
    heap_set(t, which, i, s);
}

/* Remove heap entry at position i of a heap that holds n entries. */
static void heap_remove_at(struct optracker *t, int which, uint32_t i, uint32_t n)
{
    uint32_t *h = heap_of(t, which);
    uint32_t last = h[n - 1];
    if (i == n - 1)
        return;
    heap_set(t, which, i, last);
    heap_sift_down(t, which, i, n - 1);
    heap_sift_up(t, which, pos_of(t, which)[last]);
}

/* Drop the op in slot s; the last slot moves into s. */
static void history_remove(struct optracker *t, uint32_t s)
{
    uint32_t n = t->recent_n;
    optrack_release(&t->recent[s]);
    heap_remove_at(t, H_DUR, t->dur_pos[s], n);
    heap_remove_at(t, H_INIT, t->init_pos[s], n);
    uint32_t last = n - 1;
    if (s != last) {
        t->recent[s] = t->recent[last];
        t->key[s] = t->key[last];
        heap_set(t, H_DUR, t->dur_pos[last], s);
        heap_set(t, H_INIT, t->init_pos[last], s);
    }
    t->recent_n = t->slowest_n = last;
}

static void history_grow(struct optracker *t, uint32_t want)
{
    uint32_t cap = t->history_size + 1;
    if (want <= t->recent_head)
        return;
    uint32_t n = t->recent_head ? t->recent_head : 16;
    while (n < want)
        n *= 2;
    if (n > cap)
        n = cap;
    t->recent = sim_xrealloc(t->recent, n, sizeof *t->recent);
    t->dur_heap = sim_xrealloc(t->dur_heap, n, sizeof *t->dur_heap);
    t->dur_pos = sim_xrealloc(t->dur_pos, n, sizeof *t->dur_pos);
    t->init_heap = sim_xrealloc(t->init_heap, n, sizeof *t->init_heap);
    t->init_pos = sim_xrealloc(t->init_pos, n, sizeof *t->init_pos);
    t->key = sim_xrealloc(t->key, n, sizeof *t->key);
    t->recent_head = n;
}

void optracker_init(struct optracker *t, uint32_t history_size, sim_time_t history_duration)
{
    memset(t, 0, sizeof *t);
    SIM_ASSERT(history_size < UINT32_MAX);
    t->history_size = history_size;
    t->history_duration = history_duration;
}

void optracker_fini(struct optracker *t)
{
    for (uint32_t s = 0; s < t->recent_n; s++)
        optrack_release(&t->recent[s]);
    free(t->recent);
    free(t->dur_heap);
    free(t->dur_pos);
    free(t->init_heap);
    free(t->init_pos);
    free(t->key);
    memset(t, 0, sizeof *t);
}

void optracker_reset(struct optracker *t)
{
    for (uint32_t s = 0; s < t->recent_n; s++)
        optrack_release(&t->recent[s]);
    t->recent_n = t->slowest_n = 0;
    t->completed = 0;
}

/* OpHistory::cleanup(now), its first half: ops initiated more than
   osd_op_history_duration ago leave (the oldest first). */
static void history_age_cut(struct optracker *t, sim_time_t now)
{
    while (t->recent_n) {
        uint64_t oldest = t->key[t->init_heap[0]].init;
        if (!(now > oldest && now - oldest > t->history_duration))
            break;
        history_remove(t, t->init_heap[0]);
    }
}

/*
 * OpHistory::insert then cleanup(now), now = the op's "done".  The outcome
 * is decided before the copy: the age cut does not depend on the new op (it
 * leaves with it only if it is itself that old), and when the history is
 * full and the new op is shorter than its shortest, the size cut would drop
 * the new op itself (on equal durations the older op is the shorter in the
 * (duration, seq) order, so it leaves instead).  That is the common case
 * under load (the 20 slowest are kept), so most ops cost two comparisons,
 * not a copy and four heap updates.  The set kept is the same; the dumps
 * sort it by (key, seq), so slot order does not show.
 */
void optracker_finish(struct optracker *t, struct optrack_op *op)
{
    SIM_ASSERT(op->n_events > 0);
    sim_time_t now = optrack_event_t(op, op->n_events - 1), init = op->t0;
    uint64_t seq = t->completed++;
    history_age_cut(t, now);
    if (now > init && now - init > t->history_duration)
        return; /* the age cut would drop it */
    if (t->recent_n >= t->history_size) {
        if (!t->recent_n)
            return; /* osd_op_history_size 0 */
        if (now - init < t->key[t->dur_heap[0]].dur)
            return; /* the size cut would drop it */
    }
    history_grow(t, t->recent_n + 1);
    uint32_t s = t->recent_n;
    t->recent[s] = *op; /* the history takes over op's overflow events */
    op->more = NULL;
    op->more_cap = 0;
    op->more_writes = NULL;
    t->key[s] = (struct optrack_slot_key){now - init, init, seq};
    t->recent_n = t->slowest_n = s + 1;
    t->dur_heap[s] = s;
    t->dur_pos[s] = s;
    heap_sift_up(t, H_DUR, s);
    t->init_heap[s] = s;
    t->init_pos[s] = s;
    heap_sift_up(t, H_INIT, s);
    while (t->recent_n > t->history_size)
        history_remove(t, t->dur_heap[0]);
}

struct dump_key {
    uint64_t k, seq;
    uint32_t slot;
};

static int cmp_key_asc(const void *a, const void *b)
{
    const struct dump_key *x = a, *y = b;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_key_desc(const void *a, const void *b)
{
    return cmp_key_asc(b, a);
}

uint32_t optracker_history(const struct optracker *t, sim_time_t now, int by_duration,
                           const struct optrack_op ***out)
{
    struct dump_key *keys = t->recent_n ? sim_xcalloc(t->recent_n, sizeof *keys) : NULL;
    uint32_t n = 0;
    for (uint32_t s = 0; s < t->recent_n; s++) {
        const struct optrack_op *op = &t->recent[s];
        sim_time_t init = op->t0;
        if (now > init && now - init > t->history_duration)
            continue; /* cleanup(now) would drop it */
        keys[n++] = (struct dump_key){by_duration ? t->key[s].dur : init, t->key[s].seq, s};
    }
    if (n)
        qsort(keys, n, sizeof *keys, by_duration ? cmp_key_desc : cmp_key_asc);
    const struct optrack_op **ops = sim_xcalloc(n ? n : 1, sizeof *ops);
    for (uint32_t i = 0; i < n; i++)
        ops[i] = &t->recent[keys[i].slot];
    free(keys);
    *out = ops;
    return n;
}
