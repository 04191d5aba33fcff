/*
 * tracereplay.c - captured traces (fio iologs, op-tracker dumps) as the model's
 * replay traces (models/ceph/replay.h): which records are image reads and writes,
 * and where in the image they fall.
 */
#include "tracereplay.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Where a record was read: a file's line (iologs) or its op (op-tracker dumps). */
struct record_at {
    const char *path;
    int64_t line;             /* > 0: an iolog line */
    size_t op;                /* else: the dump's op, from 0 */
};

/*
 * The span of arrival times seen so far, and the longest one allowed: an open-loop
 * replay simulates every nanosecond between the first arrival and the last, so one
 * wild timestamp (a corrupt line, a clock jump) would have it grind through days of
 * an idle cluster.  The guard names the record that stretches the span too far.
 */
struct span_guard {
    int64_t max_ns;           /* 0: any span (closed loop: timestamps unused) */
    bool any;
    int64_t lo, hi;
    struct record_at lo_at, hi_at;
};

static void format_at(const struct record_at *a, char *out, size_t n)
{
    if (a->line > 0)
        snprintf(out, n, "%s:%" PRId64, a->path, a->line);
    else
        snprintf(out, n, "%s, op %zu of the dump (from 1)", a->path, a->op + 1);
}

/* "36.0 s", "2.5 h", "10.4 days": a span for people. */
static void format_span(uint64_t ns, char *out, size_t n)
{
    double s = (double)ns / 1e9;
    if (s < 3600)
        snprintf(out, n, "%.1f s", s);
    else if (s < 2 * 86400.0)
        snprintf(out, n, "%.1f h", s / 3600);
    else
        snprintf(out, n, "%.1f days", s / 86400);
}

/* Admit an arrival at t read at *at; -EINVAL when it makes the span longer than allowed. */
static int span_admit(struct span_guard *g, int64_t t, const struct record_at *at, struct sim_err *err)
{
    if (!g || g->max_ns <= 0)
        return 0;
    if (!g->any) {
        g->any = true;
        g->lo = g->hi = t;
        g->lo_at = g->hi_at = *at;
        return 0;
    }
    /* differences as unsigned: exact for any two int64 times */
    const struct record_at *other = NULL;
    uint64_t span = 0;
    if (t > g->hi) {
        span = (uint64_t)t - (uint64_t)g->lo;
        other = &g->lo_at;
    } else if (t < g->lo) {
        span = (uint64_t)g->hi - (uint64_t)t;
        other = &g->hi_at;
    }
    if (other && span > (uint64_t)g->max_ns) {
        char here[1200], there[1200], s_span[32], s_max[32];
        format_at(at, here, sizeof here);
        format_at(other, there, sizeof there);
        format_span(span, s_span, sizeof s_span);
        format_span((uint64_t)g->max_ns, s_max, sizeof s_max);
        return sim_errf(err, -EINVAL, "%s: arrival %.6f s %s the one at %s: a span of %s, more than the %s "
                        "an open-loop replay accepts (it simulates every second of it; --speed shortens it, "
                        "--mode closed ignores the timestamps)", here, (double)span / 1e9,
                        t > g->hi ? "after" : "before", there, s_span, s_max);
    }
    if (t > g->hi) {
        g->hi = t;
        g->hi_at = *at;
    } else if (t < g->lo) {
        g->lo = t;
        g->lo_at = *at;
    }
    return 0;
}

static int from_iolog(struct replay_trace *tr, const struct trace_iolog *log, const char *path,
                      struct span_guard *g, struct sim_err *err)
{
    for (size_t i = 0; i < log->n; i++) {
        const struct trace_io *io = &log->ios[i];
        if ((io->act != TRACE_IO_READ && io->act != TRACE_IO_WRITE) || io->length <= 0 || io->offset < 0) {
            tr->skipped++;
            continue;
        }
        int rc = span_admit(g, io->t_ns, &(struct record_at){.path = path, .line = io->line}, err);
        if (rc < 0)
            return rc;
        replay_trace_add(tr, io->t_ns, io->act == TRACE_IO_READ ? FIO_DDIR_READ : FIO_DDIR_WRITE,
                         (uint64_t)io->offset, (uint64_t)io->length);
    }
    return 0;
}

int tracereplay_from_iolog(struct replay_trace *tr, const struct trace_iolog *log, struct sim_err *err)
{
    return from_iolog(tr, log, NULL, NULL, err);
}

/* "rbd_data.<id>.<objno hex>" -> objno; false for other objects (headers, object maps). */
static bool data_objno(const char *name, uint64_t *objno)
{
    const char *p = strstr(name, "rbd_data.");
    if (!p)
        return false;
    const char *dot = strrchr(p + 9, '.');
    if (!dot || !dot[1])
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(dot + 1, &end, 16);
    if (errno || *end)
        return false;
    *objno = v;
    return true;
}

static int from_ops(struct replay_trace *tr, const struct trace_ops *ops, uint32_t order, const char *path,
                    struct span_guard *g, struct sim_err *err)
{
    uint64_t obj_size = 1ull << order;
    for (size_t k = 0; k < ops->n; k++) {
        const struct trace_op *op = &ops->ops[k];
        uint64_t objno;
        if (op->desc.kind != TRACE_DESC_OSD_OP || !data_objno(op->desc.object, &objno)) {
            tr->skipped++;
            continue;
        }
        const struct trace_osdop *o = trace_desc_osdops(ops, &op->desc);
        bool any = false;
        for (size_t i = 0; i < op->desc.n_osdops; i++) {
            bool w = !strcmp(o[i].name, "write") || !strcmp(o[i].name, "writefull");
            bool r = !strcmp(o[i].name, "read");
            if ((!w && !r) || o[i].length <= 0 || o[i].offset < 0)
                continue;
            /* only the ops replayed count towards the span */
            int rc = any ? 0 : span_admit(g, op->initiated_ns, &(struct record_at){.path = path, .op = k}, err);
            if (rc < 0)
                return rc;
            replay_trace_add(tr, op->initiated_ns, w ? FIO_DDIR_WRITE : FIO_DDIR_READ,
                             objno * obj_size + (uint64_t)o[i].offset, (uint64_t)o[i].length);
            any = true;
        }
        if (!any)
            tr->skipped++;
    }
    return 0;
}

int tracereplay_from_ops(struct replay_trace *tr, const struct trace_ops *ops, uint32_t order,
                          struct sim_err *err)
{
    return from_ops(tr, ops, order, NULL, NULL, err);
}

static bool all_blank(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!isspace((unsigned char)text[i]))
            return false;
    return true;
}

/*
 * Formats the trace library reads that have nothing a replay can issue: -EINVAL and a
 * message saying what the file is and what to capture instead; 0 for other files.
 */
static int refuse_unreplayable(const char *path, const struct trace_format *f, const char *text, size_t len,
                               struct sim_err *err)
{
    static const char instead[] = "record the workload with fio's write_iolog=FILE (then replay FILE), "
                                  "or replay the OSDs' dump_historic_ops";
    if (f == &trace_latlog_format) {
        /* per-I/O samples, logged when each I/O completed, to the millisecond: even with
           log_offset's offsets, the order and times I/Os were issued are gone */
        struct trace_latlog lat;
        int rc = trace_latlog_parse(path, text, len, TRACE_LAT_AUTO, &lat, err);
        if (rc < 0)
            return rc;
        bool offsets = lat.has_offset;
        trace_latlog_free(&lat);
        return sim_errf(err, -EINVAL, "%s: a fio latency log (write_lat_log: a latency per I/O%s, stamped at its "
                        "completion to the ms), not a trace of I/Os to replay: %s",
                        path, offsets ? "" : ", no offsets", instead);
    }
    if (f == &trace_osdtrace_format)
        return sim_errf(err, -EINVAL, "%s: an osdtrace per-op stage log (latencies per OSD op, no image offsets), "
                        "not a trace of I/Os to replay: %s", path, instead);
    return 0;
}

int tracereplay_load(struct replay_trace *tr, const char *const *paths, int n, uint32_t order,
                     int64_t max_span_ns, struct sim_err *err)
{
    int rc = 0;
    struct span_guard g = {.max_ns = max_span_ns};
    for (int i = 0; i < n && rc == 0; i++) {
        char *text = NULL;
        size_t len = 0;
        if ((rc = trace_slurp(paths[i], &text, &len, err)) < 0)
            break;
        if (all_blank(text, len)) {
            rc = sim_errf(err, -EINVAL, "%s: empty%s: no trace to replay", paths[i],
                          len ? " (only blanks)" : "");
            free(text);
            break;
        }
        const struct trace_format *f = trace_format_sniff(text, len);
        if ((rc = refuse_unreplayable(paths[i], f, text, len, err)) < 0) {
            free(text);
            break;
        }
        /* an iolog, or else an op-tracker dump, whose parser names what is wrong with
           anything else */
        if (f == &trace_iolog_format) {
            struct trace_iolog log;
            if ((rc = trace_iolog_parse(paths[i], text, len, &log, err)) == 0) {
                rc = from_iolog(tr, &log, paths[i], &g, err);
                trace_iolog_free(&log);
            }
        } else {
            struct trace_ops ops;
            if ((rc = trace_ops_parse(paths[i], text, len, TRACE_LOAD_SALVAGE, &ops, err)) == 0) {
                rc = from_ops(tr, &ops, order, paths[i], &g, err);
                trace_ops_free(&ops);
            }
        }
        free(text);
    }
    if (rc == 0)
        replay_trace_sort(tr);
    return rc;
}
