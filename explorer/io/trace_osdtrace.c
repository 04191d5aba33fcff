/*
 * trace_osdtrace.c - the eBPF osdtrace per-op stage log (API in trace.h), as printed by
 * taodd/cephtrace's osdtrace, which probes ceph-osd with uprobes.
 *
 * One line per op: "osd N pg P op_w size B client C tid T throttle_lat .. recv_lat ..
 * dispatch_lat .. queue_lat .. osd_lat .. [peers [(osd, us), ..]] bluestore_lat ..
 * [(prepare .. aio_wait .. (aio_size ..) seq_wait .. kv_commit ..)] op_lat|subop_lat ..",
 * in µs; stamps that underflowed in the tracer print near 2^64 ns / 1000 and are kept as
 * invalid.  Banner and summary lines (not starting "osd ") are skipped.
 */
#include "trace_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

static const char *const osdt_field_names[TRACE_OSDT_NFIELDS] = {
    "throttle_lat", "recv_lat", "dispatch_lat", "queue_lat", "osd_lat", "bluestore_lat",
    "prepare", "aio_wait", "seq_wait", "kv_commit", "op_lat",
};

const char *trace_osdt_field_name(enum trace_osdt_field f)
{
    return (unsigned)f < TRACE_OSDT_NFIELDS ? osdt_field_names[f] : "?";
}

void trace_osdtrace_free(struct trace_osdtrace *tr)
{
    if (!tr)
        return;
    free(tr->ops);
    free(tr->peers);
    memset(tr, 0, sizeof *tr);
}

#define OSDT_MAX_TOKS 96

int trace_osdtrace_parse(const char *name, const char *text, size_t len,
                         struct trace_osdtrace *tr, struct sim_err *err)
{
    static const char *const keys[] = {
        "throttle_lat", "recv_lat", "dispatch_lat", "queue_lat", "osd_lat", "bluestore_lat",
        "prepare", "aio_wait", "seq_wait", "kv_commit", "op_lat", "subop_lat",
        "size", "client", "tid", "peers", "aio_size",
    };
    static const char *const kinds[] = {"op_w", "subop_w", "op_r"};
    memset(tr, 0, sizeof *tr);
    struct trace_lines L = {text, text + len, 0};
    const char *s;
    size_t n;
    int rc = 0;
    size_t bufcap = 512;
    char *buf = sim_xcalloc(bufcap, 1);
    while (trace_next_line(&L, &s, &n)) {
        if (n < 4 || memcmp(s, "osd ", 4) != 0)
            continue; /* tracer banner lines */
        int64_t ln = L.lineno;
        if (n + 1 > bufcap) {
            bufcap = n + 1;
            buf = sim_xrealloc(buf, bufcap, 1);
        }
        for (size_t i = 0; i < n; i++)
            buf[i] = strchr("()[],", s[i]) ? ' ' : s[i];
        struct trace_tok tk[OSDT_MAX_TOKS + 1];
        size_t nt = trace_split_ws(buf, n, tk, OSDT_MAX_TOKS);
        if (nt > OSDT_MAX_TOKS) {
            rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": too many fields", name, ln);
            goto fail;
        }
        int64_t osd;
        if (nt < 5 || !trace_parse_i64(tk[1].p, tk[1].n, &osd) || !trace_tok_is(tk[2], "pg") ||
            tk[3].n >= sizeof tr->ops->pgid) {
            rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": expected 'osd N pg PGID KIND ...'", name, ln);
            goto fail;
        }
        struct trace_osdt_op op;
        memset(&op, 0, sizeof op);
        op.osd = (int)osd;
        memcpy(op.pgid, tk[3].p, tk[3].n);
        int kind = -1;
        for (int k = 0; k < 3; k++)
            if (trace_tok_is(tk[4], kinds[k]))
                kind = k;
        if (kind < 0) {
            rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": unknown op kind '%.*s' (op_w, subop_w, op_r)",
                          name, ln, (int)tk[4].n, tk[4].p);
            goto fail;
        }
        op.kind = (enum trace_osdt_kind)kind;
        for (int f = 0; f < TRACE_OSDT_NFIELDS; f++)
            op.us[f] = -1;
        op.size = op.client = op.tid = op.aio_size = -1;
        op.peer_first = tr->n_peers;
        bool have_lat = false;
        for (size_t i = 5; i < nt; i++) {
            char key[32];
            snprintf(key, sizeof key, "%.*s", (int)(tk[i].n < 31 ? tk[i].n : 31), tk[i].p);
            int k = -1;
            for (int j = 0; j < (int)(sizeof keys / sizeof *keys); j++)
                if (!strcmp(key, keys[j]))
                    k = j;
            if (k < 0) {
                const char *dym = names_did_you_mean(key, keys, (int)(sizeof keys / sizeof *keys));
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": unknown field '%s'%s%s%s", name, ln, key,
                              dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
                goto fail;
            }
            if (!strcmp(key, "peers")) {
                while (i + 2 < nt && trace_all_digits(tk[i + 1].p, tk[i + 1].n) &&
                       trace_all_digits(tk[i + 2].p, tk[i + 2].n)) {
                    uint64_t po, pl;
                    trace_parse_u64(tk[i + 1].p, tk[i + 1].n, &po);
                    trace_parse_u64(tk[i + 2].p, tk[i + 2].n, &pl);
                    if (tr->n_peers == tr->cap_peers) {
                        tr->cap_peers = tr->cap_peers ? 2 * tr->cap_peers : 256;
                        tr->peers = sim_xrealloc(tr->peers, tr->cap_peers, sizeof *tr->peers);
                    }
                    struct trace_osdt_peer *p = &tr->peers[tr->n_peers++];
                    p->osd = (int)po;
                    p->lat_us = pl >= (uint64_t)TRACE_OSDT_US_INVALID_MIN ? -1 : (int64_t)pl;
                    op.n_peers++;
                    i += 2;
                }
                continue;
            }
            uint64_t v;
            if (i + 1 >= nt || !trace_all_digits(tk[i + 1].p, tk[i + 1].n) ||
                !trace_parse_u64(tk[i + 1].p, tk[i + 1].n, &v)) {
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": field '%s' needs an unsigned number",
                              name, ln, key);
                goto fail;
            }
            i++;
            bool bad = v >= (uint64_t)TRACE_OSDT_US_INVALID_MIN;
            if (k <= 11) {
                int f = k == 11 ? TRACE_OSDT_OP_LAT : k;
                have_lat |= f == TRACE_OSDT_OP_LAT;
                op.us[f] = bad ? -1 : (int64_t)v;
                if (bad)
                    op.invalid |= 1u << f;
            } else if (bad) {
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": field '%s' out of range", name, ln, key);
                goto fail;
            } else if (!strcmp(key, "size")) {
                op.size = (int64_t)v;
            } else if (!strcmp(key, "client")) {
                op.client = (int64_t)v;
            } else if (!strcmp(key, "tid")) {
                op.tid = (int64_t)v;
            } else {
                op.aio_size = (int64_t)v;
            }
        }
        if (!have_lat) {
            rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": no op_lat/subop_lat field", name, ln);
            goto fail;
        }
        if (tr->n == tr->cap) {
            tr->cap = tr->cap ? 2 * tr->cap : 256;
            tr->ops = sim_xrealloc(tr->ops, tr->cap, sizeof *tr->ops);
        }
        tr->ops[tr->n++] = op;
        tr->n_invalid_ops += op.invalid != 0;
    }
    free(buf);
    return 0;
fail:
    free(buf);
    trace_osdtrace_free(tr);
    return rc;
}


int trace_osdtrace_load(const char *path, struct trace_osdtrace *tr, struct sim_err *err)
{
    return trace_load(&trace_osdtrace_format, path, 0, tr, err);
}

/* ------------------------------------------------------------------ the importer */

/* A line "osd N pg ..." among the first 64 (the tracer prints a banner first). */
static bool osdtrace_sniff(const char *text, size_t len)
{
    struct trace_lines L = {text, text + len, 0};
    const char *s;
    size_t n;
    while (L.lineno < 64 && trace_next_line(&L, &s, &n)) {
        struct trace_tok tk[4];
        if (n >= 4 && !memcmp(s, "osd ", 4) && trace_split_ws(s, n, tk, 3) >= 3 &&
            trace_all_digits(tk[1].p, tk[1].n) && trace_tok_is(tk[2], "pg"))
            return true;
    }
    return false;
}

static int osdtrace_parse(const char *name, const char *text, size_t len, unsigned flags,
                          void *out, struct sim_err *err)
{
    return trace_osdtrace_parse(name, text, len, out, err);
}

static void osdtrace_free(void *out)
{
    trace_osdtrace_free(out);
}

const struct trace_format trace_osdtrace_format = {
    .name = "osdtrace",
    .size = sizeof(struct trace_osdtrace),
    .sniff = osdtrace_sniff,
    .parse = osdtrace_parse,
    .free = osdtrace_free,
};
