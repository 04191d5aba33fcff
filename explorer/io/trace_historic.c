/*
 * trace_historic.c - Ceph OSD op-tracker dumps (API in trace.h): dump_historic_ops,
 * dump_historic_ops_by_duration, dump_ops_in_flight, dump_historic_slow_ops and
 * dump_blocked_ops, every JSON shape from Hammer to Squid, whole, fragments or damaged.
 *
 * Mirrors src/common/TrackedOp.cc: OpHistory::dump_ops ({"size", "duration", "ops"};
 * "num to keep"/"duration to keep"/"Ops" before Mimic; the values are
 * osd_op_history_size = 20 and osd_op_history_duration = 600 s by default),
 * OpTracker::dump_ops_in_flight ({"ops", "num_ops"}), TrackedOp::dump ("description",
 * "initiated_at" - "received_at" in Hammer -, "age", "duration", "type_data").
 * src/osd/OpRequest.cc OpRequest::_dump: "flag_point", "client_info" {client,
 * client_addr, tid} (client ops only), "events" [{event, time, duration}].  Up to
 * Luminous type_data was an *array* section: [flag_point, {client, tid}, [events]].
 * The per-event "duration" (since Octopus) is the gap to the next event and, for the
 * last one, the op's total in Pacific (checked on the lab captures); Squid prints the
 * gap since the previous event.  A negative utime_t difference prints as
 * 4294967295.999999 (2^32 s minus the gap): such values are recomputed from the
 * timestamps under whichever convention the op's other events follow.  Times are
 * utime_t::localtime / gmtime output (src/include/utime.h).
 *
 * Damaged input: a structural scanner follows {} [] and strings of broken JSON to name
 * the path where it broke and, with TRACE_LOAD_SALVAGE, to recover the op objects that
 * close or are cut off; descriptions are parsed by trace_desc.c.
 */
#include "trace_int.h"
#include "jsonu.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "names.h"

#define WRAP_MIN_S 2147483648.0  /* >= 2^31 s: a negative utime_t printed unsigned */
#define WRAP_S 4294967296.0      /* 2^32 s */

/* Line (and column) of byte off of text, both from 1. */
static int64_t line_of(const char *text, size_t off, int64_t *col)
{
    int64_t line = 1, c = 1;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            line++;
            c = 1;
        } else {
            c++;
        }
    }
    if (col)
        *col = c;
    return line;
}

/* ------------------------------------------------------------------ timestamps */

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool take_digits(const char **p, int n, int64_t *v)
{
    int64_t x = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*p)[i]))
            return false;
        x = x * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *v = x;
    return true;
}

enum { TRACE_TIME_SLACK_S = 86400 };
#define TRACE_TIME_MAX_S INT64_C(4294967295) /* UINT32_MAX: utime_t's tv.tv_sec */

int trace_time_parse(const char *s, int64_t *ns)
{
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const char *p = s;
    int64_t y, mo, d, h, mi, se;
    if (!take_digits(&p, 4, &y) || *p++ != '-' || !take_digits(&p, 2, &mo) || *p++ != '-' ||
        !take_digits(&p, 2, &d) || (*p != 'T' && *p != ' '))
        return -EINVAL;
    p++;
    if (!take_digits(&p, 2, &h) || *p++ != ':' || !take_digits(&p, 2, &mi) || *p++ != ':' ||
        !take_digits(&p, 2, &se))
        return -EINVAL;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60)
        return -EINVAL;
    if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
        return -EINVAL;
    int64_t frac = 0;
    if (*p == '.') {
        p++;
        int nd = 0;
        while (isdigit((unsigned char)*p)) {
            if (nd < 9) {
                frac = frac * 10 + (*p - '0');
                nd++;
            }
            p++;
        }
        if (nd == 0)
            return -EINVAL;
        for (; nd < 9; nd++)
            frac *= 10;
    }
    int64_t off_s = 0;
    if (*p == ' ')
        p++;
    if (*p == 'Z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p == '-' ? -1 : 1;
        int64_t oh, om;
        p++;
        if (!take_digits(&p, 2, &oh))
            return -EINVAL;
        if (*p == ':')
            p++;
        if (!take_digits(&p, 2, &om) || oh > 23 || om > 59)
            return -EINVAL;
        off_s = sign * (oh * 3600 + om * 60);
    }
    if (*p != '\0')
        return -EINVAL;
    int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off_s;
    /* Ceph's utime_t holds unsigned 32-bit seconds (1970 .. 2106-02-07): no
       op tracker prints a time outside it (a day of zone offset aside), and
       inside it any two times are < 2^63 ns apart */
    if (secs < -TRACE_TIME_SLACK_S || secs > TRACE_TIME_MAX_S + TRACE_TIME_SLACK_S)
        return -ERANGE;
    *ns = secs * INT64_C(1000000000) + frac;
    return 0;
}

/* ------------------------------------------------------------------ event-name interning */

struct intern {
    const char **slot;
    size_t cap, n;
};

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static const char *intern_name(struct trace_ops *t, struct intern *in, const char *s)
{
    if (2 * (in->n + 1) > in->cap) {
        size_t ncap = in->cap ? 2 * in->cap : 64;
        const char **ns = sim_xcalloc(ncap, sizeof *ns);
        for (size_t i = 0; i < in->cap; i++)
            if (in->slot[i]) {
                size_t j = fnv1a(in->slot[i]) & (ncap - 1);
                while (ns[j])
                    j = (j + 1) & (ncap - 1);
                ns[j] = in->slot[i];
            }
        free(in->slot);
        in->slot = ns;
        in->cap = ncap;
    }
    size_t j = fnv1a(s) & (in->cap - 1);
    while (in->slot[j]) {
        if (!strcmp(in->slot[j], s))
            return in->slot[j];
        j = (j + 1) & (in->cap - 1);
    }
    in->slot[j] = trace_ops_strdup(t, s);
    in->n++;
    return in->slot[j];
}

/* ------------------------------------------------------------------ op-tracker JSON */

/* A number, or a string holding one (Hammer prints "age"/"duration" as strings). */
static bool json_num(const cJSON *it, double *out)
{
    if (cJSON_IsNumber(it)) {
        *out = it->valuedouble;
        return true;
    }
    if (cJSON_IsString(it) && it->valuestring[0]) {
        char *end;
        double v = strtod(it->valuestring, &end);
        if (*end == '\0' && isfinite(v)) {
            *out = v;
            return true;
        }
    }
    return false;
}

/* What trace_time_parse's error means, for messages. */
static const char *trace_time_error(int rc)
{
    return rc == -ERANGE ? "timestamp outside Ceph's utime_t range (1970 .. 2106)" : "bad timestamp";
}

/* s is checked by the callers to be below 2^33 s (a wrapped utime_t is below 2^32): 8.6e18 ns, no overflow */
static int64_t secs_to_ns(double s)
{
    return (int64_t)llround(s * 1e9);
}

struct build {
    struct trace_ops *t;
    struct intern names;
    const char *file;
};

enum dur_conv { CONV_UNKNOWN, CONV_NEXT, CONV_PREV };

/* Replace wrapped event durations by the gap recomputed from the timestamps. */
static void fix_event_durations(struct trace_op *op, struct trace_event *e, size_t n)
{
    int score_next = 0, score_prev = 0;
    for (size_t i = 1; i < n; i++) {
        if (e[i].dur_ns == TRACE_NS_NONE || e[i].dur_wrapped)
            continue;
        int64_t next = i + 1 < n ? e[i + 1].t_ns - e[i].t_ns : e[i].t_ns - op->initiated_ns;
        int64_t prev = e[i].t_ns - e[i - 1].t_ns;
        /* printed times are truncated to µs, so a matching gap is off by less than 1 µs */
        score_next += llabs(e[i].dur_ns - next) < 1000;
        score_prev += llabs(e[i].dur_ns - prev) < 1000;
    }
    enum dur_conv c = score_next > score_prev ? CONV_NEXT
                    : score_prev > score_next ? CONV_PREV : CONV_UNKNOWN;
    for (size_t i = 0; i < n; i++) {
        if (!e[i].dur_wrapped)
            continue;
        if (c == CONV_NEXT && i + 1 < n)
            e[i].dur_ns = e[i + 1].t_ns - e[i].t_ns;
        else if (c == CONV_PREV && i > 0)
            e[i].dur_ns = e[i].t_ns - e[i - 1].t_ns;
        /* else keep the arithmetic unwrap (value - 2^32 s) */
    }
}

static int events_from_json(struct build *b, struct trace_op *op, const cJSON *evs,
                            const char *path, struct sim_err *err)
{
    struct trace_ops *t = b->t;
    if (!cJSON_IsArray(evs))
        return sim_errf(err, -EINVAL, "%s: %s: expected an array of events", b->file, path);
    op->ev_first = t->n_events;
    size_t idx = 0;
    for (const cJSON *ev = evs->child; ev; ev = ev->next, idx++) {
        if (!cJSON_IsObject(ev))
            return sim_errf(err, -EINVAL, "%s: %s[%zu]: expected an object", b->file, path, idx);
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(ev, "event");
        const cJSON *time = cJSON_GetObjectItemCaseSensitive(ev, "time");
        const cJSON *dur = cJSON_GetObjectItemCaseSensitive(ev, "duration");
        if (!cJSON_IsString(name))
            return sim_errf(err, -EINVAL, "%s: %s[%zu].event: missing or not a string",
                            b->file, path, idx);
        if (!cJSON_IsString(time))
            return sim_errf(err, -EINVAL, "%s: %s[%zu].time: missing or not a string",
                            b->file, path, idx);
        struct trace_event *e = trace_ops_push_event(t);
        e->name = intern_name(t, &b->names, name->valuestring);
        int trc = trace_time_parse(time->valuestring, &e->t_ns);
        if (trc < 0)
            return sim_errf(err, -EINVAL, "%s: %s[%zu].time: %s '%s'", b->file, path, idx,
                            trace_time_error(trc), time->valuestring);
        e->dur_ns = TRACE_NS_NONE;
        if (dur) {
            double v;
            if (!json_num(dur, &v) || v < 0 || v >= 2 * WRAP_S)
                return sim_errf(err, -EINVAL, "%s: %s[%zu].duration: not a number of seconds in [0, 2^33)",
                                b->file, path, idx);
            if (v >= WRAP_MIN_S) {
                e->dur_wrapped = true;
                v -= WRAP_S;
            }
            e->dur_ns = secs_to_ns(v);
        }
        op->n_ev++;
    }
    if (op->n_ev) /* t->events is NULL until the first event: no NULL + 0 */
        fix_event_durations(op, t->events + op->ev_first, op->n_ev);
    return 0;
}

static int client_info_from_json(struct build *b, struct trace_op *op, const cJSON *ci,
                                 const char *path, struct sim_err *err)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(ci, "client");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(ci, "client_addr");
    const cJSON *tid = cJSON_GetObjectItemCaseSensitive(ci, "tid");
    if (c && !cJSON_IsString(c))
        return sim_errf(err, -EINVAL, "%s: %s.client: not a string", b->file, path);
    if (a && !cJSON_IsString(a))
        return sim_errf(err, -EINVAL, "%s: %s.client_addr: not a string", b->file, path);
    if (c)
        op->client = trace_ops_strdup(b->t, c->valuestring);
    if (a)
        op->client_addr = trace_ops_strdup(b->t, a->valuestring);
    if (tid) {
        double v;
        /* ceph_tid_t is a uint64_t; above 2^63 (or 2^53, where doubles stop
           being exact) no real tracker gets */
        if (!json_num(tid, &v) || v < 0 || v != floor(v) || v > 9007199254740992.0)
            return sim_errf(err, -EINVAL, "%s: %s.tid: not a non-negative integer below 2^53", b->file,
                            path);
        op->client_tid = (int64_t)v;
    }
    return 0;
}

/* Convert one op object; on error the container is rolled back to its previous state. */
static int op_from_json(struct build *b, const cJSON *o, const char *path, bool truncated,
                        struct sim_err *err)
{
    struct trace_ops *t = b->t;
    size_t n0 = t->n, ne0 = t->n_events, no0 = t->n_osdops;
    char p[256];
    int rc = 0;
    if (!cJSON_IsObject(o)) {
        rc = sim_errf(err, -EINVAL, "%s: %s: expected an op object", b->file, path);
        goto fail;
    }
    struct trace_op *op = trace_ops_push_op(t);
    op->flag_point = op->client = op->client_addr = "";
    op->client_tid = -1;
    op->age_s = NAN;
    op->duration_ns = TRACE_NS_NONE;
    op->truncated = truncated;
    op->ev_first = t->n_events;

    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(o, "description");
    if (!cJSON_IsString(desc)) {
        rc = sim_errf(err, -EINVAL, "%s: %s.description: missing or not a string", b->file, path);
        goto fail;
    }
    op->description = trace_ops_strdup(t, desc->valuestring);
    snprintf(p, sizeof p, "%s: %s.description", b->file, path);
    if ((rc = trace_desc_parse(t, op->description, &op->desc, p, err)) < 0)
        goto fail;

    const char *ikey = "initiated_at";
    const cJSON *init = cJSON_GetObjectItemCaseSensitive(o, ikey);
    if (!init) {
        ikey = "received_at"; /* Hammer */
        init = cJSON_GetObjectItemCaseSensitive(o, ikey);
    }
    if (!cJSON_IsString(init)) {
        rc = sim_errf(err, -EINVAL, "%s: %s.initiated_at: missing or not a string", b->file, path);
        goto fail;
    }
    int trc = trace_time_parse(init->valuestring, &op->initiated_ns);
    if (trc < 0) {
        rc = sim_errf(err, -EINVAL, "%s: %s.%s: %s '%s'", b->file, path, ikey, trace_time_error(trc),
                      init->valuestring);
        goto fail;
    }
    const cJSON *age = cJSON_GetObjectItemCaseSensitive(o, "age");
    if (age && !json_num(age, &op->age_s)) {
        rc = sim_errf(err, -EINVAL, "%s: %s.age: not a number", b->file, path);
        goto fail;
    }
    const cJSON *dur = cJSON_GetObjectItemCaseSensitive(o, "duration");
    double dv = 0;
    if (dur) {
        if (!json_num(dur, &dv) || dv < 0 || dv >= 2 * WRAP_S) {
            rc = sim_errf(err, -EINVAL, "%s: %s.duration: not a number of seconds in [0, 2^33)", b->file,
                          path);
            goto fail;
        }
        if (dv >= WRAP_MIN_S) {
            op->duration_wrapped = true;
            dv -= WRAP_S;
        }
        op->duration_ns = secs_to_ns(dv);
    }

    const cJSON *td = cJSON_GetObjectItemCaseSensitive(o, "type_data");
    const cJSON *fp = NULL, *ci = NULL, *evs = NULL;
    char evpath[300], cipath[300];
    if (cJSON_IsObject(td)) {
        fp = cJSON_GetObjectItemCaseSensitive(td, "flag_point");
        ci = cJSON_GetObjectItemCaseSensitive(td, "client_info");
        evs = cJSON_GetObjectItemCaseSensitive(td, "events");
        snprintf(evpath, sizeof evpath, "%s.type_data.events", path);
        snprintf(cipath, sizeof cipath, "%s.type_data.client_info", path);
    } else if (cJSON_IsArray(td)) { /* Hammer..Luminous: [flag_point, {client, tid}, [events]] */
        size_t i = 0;
        for (const cJSON *it = td->child; it; it = it->next, i++) {
            if (cJSON_IsString(it) && !fp) {
                fp = it;
            } else if (cJSON_IsObject(it) && !ci) {
                ci = it;
                snprintf(cipath, sizeof cipath, "%s.type_data[%zu]", path, i);
            } else if (cJSON_IsArray(it) && !evs) {
                evs = it;
                snprintf(evpath, sizeof evpath, "%s.type_data[%zu]", path, i);
            }
        }
    } else if (td) {
        rc = sim_errf(err, -EINVAL, "%s: %s.type_data: expected an object or an array", b->file, path);
        goto fail;
    }
    if (fp) {
        if (!cJSON_IsString(fp)) {
            rc = sim_errf(err, -EINVAL, "%s: %s.type_data.flag_point: not a string", b->file, path);
            goto fail;
        }
        op->flag_point = trace_ops_strdup(t, fp->valuestring);
    }
    if (ci) {
        if (!cJSON_IsObject(ci)) {
            rc = sim_errf(err, -EINVAL, "%s: %s: expected an object", b->file, cipath);
            goto fail;
        }
        if ((rc = client_info_from_json(b, op, ci, cipath, err)) < 0)
            goto fail;
    }
    if (evs && (rc = events_from_json(b, op, evs, evpath, err)) < 0)
        goto fail;

    if (op->duration_wrapped && op->n_ev) {
        const struct trace_event *last = &t->events[op->ev_first + op->n_ev - 1];
        if (!strcmp(last->name, "done"))
            op->duration_ns = last->t_ns - op->initiated_ns;
    }
    return 0;
fail:
    t->n = n0;
    t->n_events = ne0;
    t->n_osdops = no0;
    return rc;
}

static int ops_from_root(struct build *b, const cJSON *root, struct sim_err *err)
{
    struct trace_ops *t = b->t;
    const cJSON *ops = NULL;
    if (cJSON_IsArray(root)) {
        ops = root;
    } else if (cJSON_IsObject(root)) {
        static const char *const size_keys[] = {"size", "num to keep", "num_ops", "num_blocked_ops"};
        static const char *const dur_keys[] = {"duration", "duration to keep", "threshold to keep"};
        static const char *const ops_keys[] = {"ops", "Ops"};
        for (int i = 0; i < 2 && !ops; i++)
            ops = cJSON_GetObjectItemCaseSensitive(root, ops_keys[i]);
        for (int i = 0; i < 4; i++) {
            const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, size_keys[i]);
            double v;
            if (it && json_num(it, &v) && v >= 0 && v <= 9007199254740992.0) {
                t->hist_size = (int64_t)v;
                break;
            }
        }
        for (int i = 0; i < 3; i++) {
            const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, dur_keys[i]);
            if (it && json_num(it, &t->hist_duration_s))
                break;
        }
        if (!ops) {
            for (const cJSON *it = root->child; it; it = it->next) {
                const char *dym = names_did_you_mean(it->string, ops_keys, 2);
                if (dym)
                    return sim_errf(err, -EINVAL, "%s: no 'ops' array at the top level "
                                    "(found '%s': did you mean '%s'?)", b->file, it->string, dym);
            }
            return sim_errf(err, -EINVAL, "%s: no 'ops' array at the top level: not an op-tracker "
                            "dump", b->file);
        }
        if (!cJSON_IsArray(ops))
            return sim_errf(err, -EINVAL, "%s: %s: expected an array", b->file, ops->string);
    } else {
        return sim_errf(err, -EINVAL, "%s: top level is not an object or an array", b->file);
    }
    size_t i = 0;
    const char *base = ops == root ? "" : ops->string;
    for (const cJSON *o = ops->child; o; o = o->next, i++) {
        char path[64];
        snprintf(path, sizeof path, "%s[%zu]", base, i);
        int rc = op_from_json(b, o, path, false, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------ structural scanner
 *
 * Follows {} [] and strings of possibly broken JSON to name the path at a byte offset and,
 * in salvage mode, to find op objects (objects with a "description" member) that close or
 * that are cut off.  A top-level `"key":` starts an implicit object (fragments that begin
 * inside an op); closers without an opener are ignored (fragments that begin mid-way).
 */

#define SCAN_MAX_CUT_DEPTH 16

struct scan_frame {
    char type;        /* '{', '[' or 'I' (implicit object) */
    bool want_key;    /* object: the next string is a key */
    bool cand;        /* salvage: this object is an op */
    size_t start;     /* offset of '{' / '[' (of the key string for 'I') */
    long index;       /* array: current element */
    char key[48];     /* object: current member */
};

struct scan {
    struct scan_frame *f;
    size_t n, cap;
    bool in_str, esc;
    size_t str_start;
    /* salvage state */
    bool salvage;
    long cand_depth;  /* depth of the open op frame, -1 if none */
    /* latest cut per nesting depth below the op: the op text up to pos, then closers */
    struct scan_cut {
        bool ok;
        size_t pos;
        char closers[SCAN_MAX_CUT_DEPTH + 1];
    } cuts[SCAN_MAX_CUT_DEPTH];
    /* complete ops found: text [start, end), implicit: the '{' was cut off */
    struct scan_span {
        size_t start, end;
        bool implicit;
    } *spans;
    size_t n_spans, cap_spans;
};

static void scan_push(struct scan *s, char type, size_t start)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 32;
        s->f = sim_xrealloc(s->f, s->cap, sizeof *s->f);
    }
    struct scan_frame *fr = &s->f[s->n++];
    memset(fr, 0, sizeof *fr);
    fr->type = type;
    fr->start = start;
    fr->want_key = type != '[';
}

/* Record a salvage cut: the op text up to `at` plus the closers of the open frames. */
static void scan_cut(struct scan *s, size_t at)
{
    if (s->cand_depth < 0 || (size_t)s->cand_depth >= s->n)
        return;
    size_t depth = s->n - (size_t)s->cand_depth; /* open frames from the op inwards */
    if (depth > SCAN_MAX_CUT_DEPTH)
        return;
    struct scan_cut *c = &s->cuts[depth - 1];
    size_t k = 0;
    for (size_t i = s->n; i-- > (size_t)s->cand_depth;)
        c->closers[k++] = s->f[i].type == '[' ? ']' : '}';
    c->closers[k] = '\0';
    c->pos = at;
    c->ok = true;
}

static void scan_string_end(struct scan *s, const char *buf, size_t len, size_t i)
{
    const char *str = buf + s->str_start + 1;
    size_t sn = i - s->str_start - 1;
    if (s->n == 0) {
        size_t j = i + 1;
        while (j < len && isspace((unsigned char)buf[j]))
            j++;
        if (j >= len || buf[j] != ':')
            return;
        scan_push(s, 'I', s->str_start);
    }
    struct scan_frame *top = &s->f[s->n - 1];
    if (top->type == '[' || !top->want_key)
        return;
    size_t kn = sn < sizeof top->key - 1 ? sn : sizeof top->key - 1;
    memcpy(top->key, str, kn);
    top->key[kn] = '\0';
    top->want_key = false;
    if (s->salvage && s->cand_depth < 0 && !strcmp(top->key, "description")) {
        top->cand = true;
        s->cand_depth = (long)s->n - 1;
        memset(s->cuts, 0, sizeof s->cuts);
    }
}

static void scan_close(struct scan *s, size_t i)
{
    if (s->n == 0)
        return; /* closer of a container opened before the fragment began */
    struct scan_frame *top = &s->f[s->n - 1];
    if (top->cand) {
        if (s->n_spans == s->cap_spans) {
            s->cap_spans = s->cap_spans ? 2 * s->cap_spans : 16;
            s->spans = sim_xrealloc(s->spans, s->cap_spans, sizeof *s->spans);
        }
        s->spans[s->n_spans++] = (struct scan_span){top->start, i + 1, top->type == 'I'};
        s->cand_depth = -1;
    }
    s->n--;
    if (s->cand_depth >= 0 && (long)s->n > s->cand_depth)
        scan_cut(s, i + 1);
}

/* Scan buf[0..stop). */
static void scan_run(struct scan *s, const char *buf, size_t len, size_t stop)
{
    for (size_t i = 0; i < stop; i++) {
        char c = buf[i];
        if (s->in_str) {
            if (s->esc)
                s->esc = false;
            else if (c == '\\')
                s->esc = true;
            else if (c == '"') {
                s->in_str = false;
                scan_string_end(s, buf, len, i);
            }
            continue;
        }
        switch (c) {
        case '"':
            s->in_str = true;
            s->str_start = i;
            break;
        case '{':
        case '[':
            scan_push(s, c, i);
            break;
        case '}':
        case ']':
            scan_close(s, i);
            break;
        case ',':
            if (s->n) {
                struct scan_frame *top = &s->f[s->n - 1];
                if (top->type == '[') {
                    top->index++;
                } else {
                    top->want_key = true;
                    top->key[0] = '\0';
                }
                if (s->cand_depth >= 0)
                    scan_cut(s, i);
            }
            break;
        default:
            break;
        }
    }
}

static void scan_path(const struct scan *s, char *out, size_t outsz)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t k = 0; k < s->n && o + 1 < outsz; k++) {
        const struct scan_frame *f = &s->f[k];
        int w = 0;
        if (f->type == '[')
            w = snprintf(out + o, outsz - o, "[%ld]", f->index);
        else if (!f->want_key && f->key[0])
            w = snprintf(out + o, outsz - o, "%s%s", o ? "." : "", f->key);
        if (w > 0)
            o += (size_t)w < outsz - o ? (size_t)w : outsz - o - 1;
    }
    if (!out[0])
        snprintf(out, outsz, "the top level");
}

static void scan_free(struct scan *s)
{
    free(s->f);
    free(s->spans);
    memset(s, 0, sizeof *s);
}

/* One-line diagnosis of text that cJSON rejected at err_off (or whose top level ended early). */
static void diagnose_json(const char *name, const char *text, size_t len, size_t err_off,
                          bool trailing, char *msg, size_t msgsz)
{
    struct scan s = {.cand_depth = -1};
    scan_run(&s, text, len, len);
    /* first explicit container still open at the end */
    size_t open_at = len;
    bool open = false;
    for (size_t k = 0; k < s.n; k++)
        if (s.f[k].type != 'I') {
            open_at = s.f[k].start;
            open = true;
            break;
        }
    char path[256];
    int64_t col, line;
    if (!trailing && (open || s.in_str) && err_off >= open_at) {
        scan_path(&s, path, sizeof path);
        line = line_of(text, len, &col);
        snprintf(msg, msgsz, "%s:%" PRId64 ":%" PRId64 ": truncated JSON: input ends at byte %zu "
                 "inside %s%s", name, line, col, len, path, s.in_str ? " (in a string)" : "");
        scan_free(&s);
        return;
    }
    scan_free(&s);
    struct scan s2 = {.cand_depth = -1};
    scan_run(&s2, text, len, err_off);
    scan_path(&s2, path, sizeof path);
    scan_free(&s2);
    line = line_of(text, err_off, &col);
    char what[64];
    if (err_off >= len)
        snprintf(what, sizeof what, "unexpected end of input");
    else if (isprint((unsigned char)text[err_off]))
        snprintf(what, sizeof what, "unexpected '%c'", text[err_off]);
    else
        snprintf(what, sizeof what, "unexpected byte 0x%02x", (unsigned char)text[err_off]);
    if (trailing)
        snprintf(msg, msgsz, "%s:%" PRId64 ":%" PRId64 ": malformed JSON at byte %zu: %s after "
                 "a complete top-level value (a fragment of a larger document?)",
                 name, line, col, err_off, what);
    else
        snprintf(msg, msgsz, "%s:%" PRId64 ":%" PRId64 ": malformed JSON at byte %zu in %s: %s",
                 name, line, col, err_off, path, what);
}

/* Recover complete and cut-off op objects from damaged text. */
static int salvage_ops(struct build *b, const char *text, size_t len, size_t *n_partial,
                       size_t *n_dropped)
{
    struct scan s = {.cand_depth = -1, .salvage = true};
    scan_run(&s, text, len, len);
    *n_partial = *n_dropped = 0;
    struct sim_err e2 = {0};
    for (size_t k = 0; k < s.n_spans; k++) {
        const struct scan_span *sp = &s.spans[k];
        size_t n = sp->end - sp->start;
        char *fix = sim_xcalloc(n + 2, 1);
        fix[0] = '{';
        memcpy(fix + sp->implicit, text + sp->start, n);
        cJSON *o = cJSON_ParseWithLength(fix, n + sp->implicit);
        char path[64];
        snprintf(path, sizeof path, "op at byte %zu", sp->start);
        if (!o || op_from_json(b, o, path, false, &e2) < 0)
            (*n_dropped)++;
        cJSON_Delete(o);
        free(fix);
    }
    if (s.cand_depth >= 0) {
        /* latest cut first; when its innermost partial container does not convert (an event
           cut before its "time"), fall back to cuts that drop it */
        const struct scan_frame *f = &s.f[s.cand_depth];
        bool implicit = f->type == 'I', done = false;
        for (;;) {
            struct scan_cut *best = NULL;
            for (int d = 0; d < SCAN_MAX_CUT_DEPTH; d++)
                if (s.cuts[d].ok && (!best || s.cuts[d].pos > best->pos))
                    best = &s.cuts[d];
            if (!best)
                break;
            best->ok = false;
            size_t body = best->pos - f->start, cl = strlen(best->closers);
            char *fix = sim_xcalloc(body + cl + 2, 1);
            size_t o = 0;
            if (implicit)
                fix[o++] = '{';
            memcpy(fix + o, text + f->start, body);
            o += body;
            memcpy(fix + o, best->closers, cl);
            o += cl;
            cJSON *obj = cJSON_ParseWithLength(fix, o);
            char path[64];
            snprintf(path, sizeof path, "op at byte %zu", f->start);
            done = obj && op_from_json(b, obj, path, true, &e2) == 0;
            cJSON_Delete(obj);
            free(fix);
            if (done)
                break;
        }
        if (done)
            (*n_partial)++;
        else
            (*n_dropped)++;
    }
    scan_free(&s);
    return 0;
}

/* ------------------------------------------------------------------ the dump */

int trace_ops_parse(const char *name, const char *text, size_t len, unsigned flags,
                    struct trace_ops *t, struct sim_err *err)
{
    memset(t, 0, sizeof *t);
    t->hist_size = -1;
    t->hist_duration_s = NAN;
    struct build b = {.t = t, .file = name};
    const char *end = NULL;
    int nrc = jsonu_check_nul(name, text, len, err);
    if (nrc < 0)
        return nrc;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    size_t err_off = end ? (size_t)(end - text) : 0;
    bool trailing = false;
    if (root) {
        while (err_off < len && isspace((unsigned char)text[err_off]))
            err_off++;
        if (err_off < len) {
            trailing = true;
            cJSON_Delete(root);
            root = NULL;
        }
    }
    int rc = 0;
    if (root) {
        rc = ops_from_root(&b, root, err);
        cJSON_Delete(root);
    } else {
        char msg[512];
        diagnose_json(name, text, len, err_off, trailing, msg, sizeof msg);
        if (!(flags & TRACE_LOAD_SALVAGE)) {
            rc = sim_errf(err, -EINVAL, "%s", msg);
        } else {
            size_t n_partial, n_dropped;
            salvage_ops(&b, text, len, &n_partial, &n_dropped);
            t->salvaged = true;
            snprintf(t->damage, sizeof t->damage, "%.440s; salvaged %zu op(s) (%zu cut off), %zu "
                     "unreadable", msg, t->n, n_partial, n_dropped);
            if (t->n == 0)
                rc = sim_errf(err, -EINVAL, "%s; no op could be salvaged", msg);
        }
    }
    free(b.names.slot);
    if (rc < 0)
        trace_ops_free(t);
    return rc;
}

int trace_ops_load(const char *path, unsigned flags, struct trace_ops *t, struct sim_err *err)
{
    return trace_load(&trace_historic_format, path, flags, t, err);
}

/* ------------------------------------------------------------------ the importer */

/* JSON at the top level ('{', '['), or a fragment that begins at a member ('"'). */
static bool historic_sniff(const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)text[i]))
        i++;
    return i < len && (text[i] == '{' || text[i] == '[' || text[i] == '"');
}

static int historic_parse(const char *name, const char *text, size_t len, unsigned flags,
                          void *out, struct sim_err *err)
{
    return trace_ops_parse(name, text, len, flags, out, err);
}

static void historic_free(void *out)
{
    trace_ops_free(out);
}

/* The gzip broke off but ops were recovered from what it gave: say so, unless the JSON
   damage (which follows from it) is already said. */
static void historic_damaged(void *out, const char *why)
{
    struct trace_ops *t = out;
    t->salvaged = true;
    if (!t->damage[0])
        snprintf(t->damage, sizeof t->damage, "%s", why);
}

const struct trace_format trace_historic_format = {
    .name = "historic",
    .size = sizeof(struct trace_ops),
    .sniff = historic_sniff,
    .parse = historic_parse,
    .free = historic_free,
    .damaged = historic_damaged,
};
