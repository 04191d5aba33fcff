/*
 * trace.c - importers of captured op traces (API in trace.h).
 *
 * What each importer mirrors:
 *  - Ceph op tracker.  src/common/TrackedOp.cc: OpHistory::dump_ops ({"size", "duration",
 *    "ops"}; "num to keep"/"duration to keep"/"Ops" before Mimic; the values are
 *    osd_op_history_size = 20 and osd_op_history_duration = 600 s by default),
 *    OpTracker::dump_ops_in_flight ({"ops", "num_ops"}), TrackedOp::dump ("description",
 *    "initiated_at" - "received_at" in Hammer -, "age", "duration", "type_data").
 *    src/osd/OpRequest.cc OpRequest::_dump: "flag_point", "client_info" {client,
 *    client_addr, tid} (client ops only), "events" [{event, time, duration}].  Up to
 *    Luminous type_data was an *array* section: [flag_point, {client, tid}, [events]].
 *    The per-event "duration" (since Octopus) is the gap to the next event and, for the
 *    last one, the op's total in Pacific (checked on the lab captures); Squid prints the
 *    gap since the previous event.  A negative utime_t difference prints as
 *    4294967295.999999 (2^32 s minus the gap): such values are recomputed from the
 *    timestamps under whichever convention the op's other events follow.
 *  - Descriptions: MOSDOp::print "osd_op(REQID PGID HOBJ [OPS] snapc SEQ=[..] [RETRY=N]
 *    FLAGS eEPOCH)" (Hammer/Jewel: "osd_op(REQID OID [OPS] RAWPG snapc .. FLAGS eEPOCH)";
 *    undecoded: "osd_op(REQID PGID RAWPG (undecoded) FLAGS eEPOCH)"), MOSDRepOp::print
 *    "osd_repop(REQID PGID eMAP/MIN HOBJ v VERSION, mlcod=..)", MOSDRepOpReply::print
 *    "osd_repop_reply(REQID PGID eMAP/MIN ondisk, result = R)", hobject_t operator<<
 *    "POOL:HASH:NSPACE:KEY:NAME:SNAP" (Hammer "HASH/NAME/SNAP/NSPACE/POOL") and the OSDOp
 *    printer "name OFF~LEN [fadvise_*] in=Nb" joined by ','.
 *  - fio iolog.c: init_iolog_read() (first line "fio version 2 iolog" / "fio version 3
 *    iolog"; v1 is unsupported) and read_iolog() ("file action" / "file action offset
 *    length", v3 with a leading µs timestamp; actions add/open/close and
 *    read/write/trim/sync/datasync, "wait" (µs, v2 only; cumulative per the HOWTO);
 *    length is read as an unsigned int).  fio skips bad lines with a message; this
 *    importer stops at the first one instead.
 *  - fio iolog.c flush_samples(): "time_ms, value, ddir, bs[, offset], prio[, issue_ns]"
 *    (log_offset, log_prio prints prio as 0x%04x, log_issue_time).
 *  - taodd/cephtrace osdtrace: one line per op, "osd N pg P op_w size B client C tid T
 *    throttle_lat .. recv_lat .. dispatch_lat .. queue_lat .. osd_lat .. [peers [(osd,
 *    us), ..]] bluestore_lat .. [(prepare .. aio_wait .. (aio_size ..) seq_wait ..
 *    kv_commit ..)] op_lat|subop_lat ..", µs; underflowed stamps print near 2^64 ns/1000.
 */
#include "trace.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>

#include "jsonu.h"

#define ARENA_BLK 65536
#define WRAP_MIN_S 2147483648.0  /* >= 2^31 s: a negative utime_t printed unsigned */
#define WRAP_S 4294967296.0      /* 2^32 s */

/* ================================================================== string arena */

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

static const char *arena_strndup(struct trace_ops *t, const char *s, size_t n)
{
    if (n == 0)
        return "";
    char *p = arena_alloc(t, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static const char *arena_strdup(struct trace_ops *t, const char *s)
{
    return arena_strndup(t, s, strlen(s));
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

/* ================================================================== small text helpers */

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

/* Parse all of s[0..n) as a non-negative decimal (or 0x hex) integer. */
static bool parse_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || n > 40)
        return false;
    char buf[48];
    memcpy(buf, s, n);
    buf[n] = '\0';
    int base = 10;
    const char *p = buf;
    if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (!isxdigit((unsigned char)*p))
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p, &end, base);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

static bool parse_i64(const char *s, size_t n, int64_t *out)
{
    bool neg = n > 0 && s[0] == '-';
    uint64_t u;
    if (!parse_u64(s + neg, n - neg, &u) || u > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? -(int64_t)u : (int64_t)u;
    return true;
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

static bool all_xdigits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* Quote s for /bin/sh into out (single quotes); false when it does not fit. */
static bool sh_quote(const char *s, char *out, size_t outsz)
{
    size_t o = 0;
    if (o + 1 >= outsz)
        return false;
    out[o++] = '\'';
    for (; *s; s++) {
        const char *piece = *s == '\'' ? "'\\''" : NULL;
        size_t pl = piece ? 4 : 1;
        if (o + pl + 2 >= outsz)
            return false;
        if (piece) {
            memcpy(out + o, piece, 4);
            o += 4;
        } else {
            out[o++] = *s;
        }
    }
    out[o++] = '\'';
    out[o] = '\0';
    return true;
}

/*
 * Read path whole; gzip input goes through `gzip -dc`.  When gunzip fails (truncated or
 * corrupt), the bytes it did produce are still returned and *gz_failed is set.
 */
static int slurp_any(const char *path, char **out, size_t *len, bool *gz_failed,
                     struct sim_err *err)
{
    *gz_failed = false;
    FILE *f = fopen(path, "rb");
    if (!f)
        return sim_errf(err, -errno, "%s: cannot open: %s", path, strerror(errno));
    unsigned char magic[2] = {0, 0};
    size_t got = fread(magic, 1, 2, f);
    fclose(f);
    if (got < 2 || magic[0] != 0x1f || magic[1] != 0x8b)
        return jsonu_slurp(path, out, len, err);

    char q[4200], cmd[4300];
    if (!sh_quote(path, q, sizeof q))
        return sim_errf(err, -ENAMETOOLONG, "%s: path too long", path);
    snprintf(cmd, sizeof cmd, "gzip -dc -- %s 2>/dev/null", q);
    FILE *p = popen(cmd, "r");
    if (!p)
        return sim_errf(err, -errno, "%s: cannot run gzip -dc: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = sim_xcalloc(cap, 1);
    for (;;) {
        if (n + 1 >= cap) {
            cap *= 2;
            buf = sim_xrealloc(buf, cap, 1);
        }
        size_t r = fread(buf + n, 1, cap - n - 1, p);
        n += r;
        if (r == 0)
            break;
    }
    int st = pclose(p);
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        *gz_failed = true;
        int code = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        return sim_errf(err, -EIO, "%s: gzip -dc failed (exit status %d after %zu bytes): "
                        "truncated or corrupt gzip data", path, code, n);
    }
    return 0;
}

int trace_slurp(const char *path, char **out, size_t *len, struct sim_err *err)
{
    bool gz_failed;
    int rc = slurp_any(path, out, len, &gz_failed, err);
    if (rc < 0 && gz_failed) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

/* ================================================================== timestamps */

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
    *ns = secs * INT64_C(1000000000) + frac;
    return 0;
}

/* ================================================================== container growth */

static struct trace_op *push_op(struct trace_ops *t)
{
    if (t->n == t->cap_ops) {
        t->cap_ops = t->cap_ops ? 2 * t->cap_ops : 64;
        t->ops = sim_xrealloc(t->ops, t->cap_ops, sizeof *t->ops);
    }
    struct trace_op *op = &t->ops[t->n++];
    memset(op, 0, sizeof *op);
    return op;
}

static struct trace_event *push_event(struct trace_ops *t)
{
    if (t->n_events == t->cap_events) {
        t->cap_events = t->cap_events ? 2 * t->cap_events : 256;
        t->events = sim_xrealloc(t->events, t->cap_events, sizeof *t->events);
    }
    struct trace_event *e = &t->events[t->n_events++];
    memset(e, 0, sizeof *e);
    return e;
}

static struct trace_osdop *push_osdop(struct trace_ops *t)
{
    if (t->n_osdops == t->cap_osdops) {
        t->cap_osdops = t->cap_osdops ? 2 * t->cap_osdops : 64;
        t->osdops = sim_xrealloc(t->osdops, t->cap_osdops, sizeof *t->osdops);
    }
    struct trace_osdop *o = &t->osdops[t->n_osdops++];
    memset(o, 0, sizeof *o);
    return o;
}

/* ================================================================== descriptions */

struct tok {
    const char *p;
    size_t n;
};

#define DESC_MAX_TOKS 64

/* Split s[0..n) at spaces outside [...] brackets. */
static size_t split_desc(const char *s, size_t n, struct tok *out, size_t max, bool *overflow)
{
    size_t nt = 0, i = 0;
    *overflow = false;
    while (i < n) {
        while (i < n && s[i] == ' ')
            i++;
        if (i >= n)
            break;
        size_t start = i;
        int depth = 0;
        while (i < n && (s[i] != ' ' || depth > 0)) {
            if (s[i] == '[')
                depth++;
            else if (s[i] == ']' && depth > 0)
                depth--;
            i++;
        }
        if (nt == max) {
            *overflow = true;
            return nt;
        }
        out[nt].p = s + start;
        out[nt].n = i - start;
        nt++;
    }
    return nt;
}

static bool tok_is(struct tok t, const char *s)
{
    return t.n == strlen(s) && memcmp(t.p, s, t.n) == 0;
}

/* "client.4118.0:47" -> entity "client.4118", inc 0, tid 47. */
static bool parse_reqid(struct trace_ops *t, struct tok k, struct trace_desc *d)
{
    const char *colon = memrchr(k.p, ':', k.n);
    if (!colon)
        return false;
    size_t head = (size_t)(colon - k.p);
    const char *dot = memrchr(k.p, '.', head);
    if (!dot || dot == k.p)
        return false;
    size_t ent = (size_t)(dot - k.p);
    int64_t inc, tid;
    if (!memchr(k.p, '.', ent) || !parse_i64(dot + 1, head - ent - 1, &inc) ||
        !all_digits(colon + 1, k.n - head - 1) || !parse_i64(colon + 1, k.n - head - 1, &tid))
        return false;
    d->entity = arena_strndup(t, k.p, ent);
    d->inc = inc;
    d->tid = tid;
    return true;
}

/* "e196" or "e24/16". */
static bool parse_epoch_tok(struct tok k, int64_t *epoch, int64_t *min_epoch)
{
    if (k.n < 2 || k.p[0] != 'e')
        return false;
    const char *slash = memchr(k.p, '/', k.n);
    size_t n1 = slash ? (size_t)(slash - k.p) - 1 : k.n - 1;
    int64_t a, b = -1;
    if (!all_digits(k.p + 1, n1) || !parse_i64(k.p + 1, n1, &a))
        return false;
    if (slash) {
        size_t n2 = k.n - n1 - 2;
        if (!all_digits(slash + 1, n2) || !parse_i64(slash + 1, n2, &b))
            return false;
    }
    *epoch = a;
    *min_epoch = b;
    return true;
}

/* "4.298", "2.1cs0", "2.8eb4757c". */
static bool is_pgid(struct tok k)
{
    const char *dot = memchr(k.p, '.', k.n);
    if (!dot || !all_digits(k.p, (size_t)(dot - k.p)))
        return false;
    const char *rest = dot + 1;
    size_t rn = k.n - (size_t)(rest - k.p);
    const char *s = memchr(rest, 's', rn);
    if (s)
        return all_xdigits(rest, (size_t)(s - rest)) && all_digits(s + 1, rn - (size_t)(s - rest) - 1);
    return all_xdigits(rest, rn);
}

static int64_t pool_of_pgid(struct tok k)
{
    const char *dot = memchr(k.p, '.', k.n);
    int64_t v;
    return dot && parse_i64(k.p, (size_t)(dot - k.p), &v) ? v : -1;
}

/* hobject_t since Luminous: "POOL:HASH8:NSPACE:KEY:NAME:SNAP". */
static bool parse_hobj(struct trace_ops *t, struct tok k, struct trace_desc *d)
{
    const char *c1 = memchr(k.p, ':', k.n);
    if (!c1)
        return false;
    int64_t pool;
    if (!parse_i64(k.p, (size_t)(c1 - k.p), &pool))
        return false;
    const char *h = c1 + 1, *end = k.p + k.n;
    if (end - h < 9 || !all_xdigits(h, 8) || h[8] != ':')
        return false;
    const char *ns = h + 9;
    const char *c3 = memchr(ns, ':', (size_t)(end - ns));
    if (!c3)
        return false;
    const char *key = c3 + 1;
    const char *c4 = memchr(key, ':', (size_t)(end - key));
    if (!c4)
        return false;
    const char *name = c4 + 1;
    const char *last = memrchr(name, ':', (size_t)(end - name));
    if (!last)
        return false;
    d->pool = pool;
    d->object = arena_strndup(t, name, (size_t)(last - name));
    d->snap = arena_strndup(t, last + 1, (size_t)(end - last - 1));
    return true;
}

/* hobject_t before Luminous: "HASH[.KEY]/NAME/SNAP[/NSPACE/POOL]". */
static bool parse_old_hobj(struct trace_ops *t, struct tok k, struct trace_desc *d)
{
    const char *end = k.p + k.n;
    const char *s1 = memchr(k.p, '/', k.n);
    if (!s1)
        return false;
    const char *dot = memchr(k.p, '.', (size_t)(s1 - k.p));
    if (!all_xdigits(k.p, (size_t)((dot ? dot : s1) - k.p)))
        return false;
    const char *name = s1 + 1, *snap_end = end;
    int slashes = 0;
    for (const char *p = name; p < end; p++)
        slashes += *p == '/';
    int64_t pool = -1;
    if (slashes >= 3) { /* .../NSPACE/POOL */
        const char *ps = memrchr(name, '/', (size_t)(end - name));
        if (parse_i64(ps + 1, (size_t)(end - ps - 1), &pool))
            snap_end = memrchr(name, '/', (size_t)(ps - name));
        else
            pool = -1;
    }
    const char *ls = slashes ? memrchr(name, '/', (size_t)(snap_end - name)) : NULL;
    if (!ls)
        return false;
    d->object = arena_strndup(t, name, (size_t)(ls - name));
    d->snap = arena_strndup(t, ls + 1, (size_t)(snap_end - ls - 1));
    if (pool >= 0 && d->pool < 0)
        d->pool = pool;
    return true;
}

static void trim(const char **p, size_t *n)
{
    while (*n && (**p == ' '))
        (*p)++, (*n)--;
    while (*n && (*p)[*n - 1] == ' ')
        (*n)--;
}

/* "OFF~LEN" in decimal (or 0x hex). */
static bool parse_extent(const char *s, size_t n, int64_t *off, int64_t *len)
{
    const char *tl = memchr(s, '~', n);
    if (!tl)
        return false;
    size_t a = (size_t)(tl - s);
    return parse_i64(s, a, off) && parse_i64(tl + 1, n - a - 1, len) && *off >= 0 && *len >= 0;
}

/* "[stat,set-alloc-hint object_size 4194304 write_size 4194304,write 0~4096 in=4096b]". */
static void parse_op_vector(struct trace_ops *t, struct tok k, struct trace_desc *d)
{
    d->osdop_first = t->n_osdops;
    d->n_osdops = 0;
    const char *s = k.p + 1;
    size_t n = k.n >= 2 && k.p[k.n - 1] == ']' ? k.n - 2 : k.n - 1;
    size_t i = 0;
    while (i <= n) {
        size_t start = i;
        int depth = 0;
        while (i < n && (s[i] != ',' || depth > 0)) {
            if (s[i] == '[')
                depth++;
            else if (s[i] == ']' && depth > 0)
                depth--;
            i++;
        }
        const char *e = s + start;
        size_t en = i - start;
        i++;
        trim(&e, &en);
        if (en == 0)
            continue;
        const char *sp = memchr(e, ' ', en);
        size_t nl = sp ? (size_t)(sp - e) : en;
        const char *rest = e + nl;
        size_t rn = en - nl;
        trim(&rest, &rn);
        struct trace_osdop *o = push_osdop(t);
        d->n_osdops++;
        o->offset = o->length = -1;
        if (nl == 11 && memcmp(e, "object_size", 11) == 0) {
            /* alloc-hint arguments whose "set-alloc-hint" name was lost in the copy */
            o->name = "set-alloc-hint";
            rest = e;
            rn = en;
        } else {
            o->name = arena_strndup(t, e, nl);
        }
        if (rn) {
            const char *sp2 = memchr(rest, ' ', rn);
            size_t w = sp2 ? (size_t)(sp2 - rest) : rn;
            if (parse_extent(rest, w, &o->offset, &o->length)) {
                rest += w;
                rn -= w;
                trim(&rest, &rn);
            }
        }
        o->extra = arena_strndup(t, rest, rn);
    }
}

static void strip_comma(struct tok *k)
{
    if (k->n && k->p[k->n - 1] == ',')
        k->n--;
}

/*
 * osd_op layouts (MOSDOp::print): Luminous+ "REQID PGID HOBJ [OPS] snapc .. [RETRY=N] FLAGS eE",
 * undecoded "REQID PGID RAWPG (undecoded) FLAGS eE", Hammer/Jewel "REQID OID [OPS] RAWPG
 * [snapc ..] FLAGS eE".  FLAGS is the token before the epoch.
 */
static void parse_osd_op(struct trace_ops *t, struct tok *tk, size_t nt, struct trace_desc *d)
{
    size_t ops_i = 0, undec_i = 0, epoch_i = 0;
    for (size_t i = 1; i < nt; i++) {
        if (!ops_i && tk[i].n && tk[i].p[0] == '[')
            ops_i = i;
        if (tok_is(tk[i], "(undecoded)"))
            undec_i = i;
        if (tk[i].n > 6 && memcmp(tk[i].p, "RETRY=", 6) == 0)
            parse_i64(tk[i].p + 6, tk[i].n - 6, &d->retry);
    }
    if (nt > 1 && parse_epoch_tok(tk[nt - 1], &d->epoch, &d->min_epoch))
        epoch_i = nt - 1;
    size_t pre_end = ops_i ? ops_i : undec_i ? undec_i : (epoch_i ? epoch_i - 1 : nt);
    size_t npre = pre_end > 1 ? pre_end - 1 : 0;
    if (npre >= 2 && parse_hobj(t, tk[2], d)) {
        d->pgid = arena_strndup(t, tk[1].p, tk[1].n);
    } else if (npre >= 1 && ops_i) {
        if (!parse_hobj(t, tk[1], d))
            d->object = arena_strndup(t, tk[1].p, tk[1].n); /* Hammer: [nspace/]oid */
    } else if (npre >= 1 && is_pgid(tk[1])) {
        d->pgid = arena_strndup(t, tk[1].p, tk[1].n);
    }
    if (ops_i)
        parse_op_vector(t, tk[ops_i], d);
    /* Hammer/Jewel print the raw pg after the op vector */
    for (size_t i = ops_i ? ops_i + 1 : nt; i < nt && !d->pgid[0]; i++)
        if (is_pgid(tk[i]))
            d->pgid = arena_strndup(t, tk[i].p, tk[i].n);
    if (epoch_i >= 2) {
        struct tok f = tk[epoch_i - 1];
        size_t fi = epoch_i - 1;
        bool snapc_val = fi >= 1 && tok_is(tk[fi - 1], "snapc");
        if (fi > pre_end && fi != ops_i && !snapc_val && !tok_is(f, "(undecoded)") &&
            !(f.n > 6 && memcmp(f.p, "RETRY=", 6) == 0) && !is_pgid(f))
            d->flags = arena_strndup(t, f.p, f.n);
    }
    if (d->pool < 0 && d->pgid[0])
        d->pool = pool_of_pgid((struct tok){d->pgid, strlen(d->pgid)});
}

/*
 * osd_repop / osd_sub_op: "REQID PGID eMAP/MIN HOBJ v VERSION, mlcod=.."; the replies:
 * "REQID PGID eMAP/MIN ondisk, result = R".  Fields are recognised by their form.
 */
static void parse_replica_msg(struct trace_ops *t, struct tok *tk, size_t nt, struct trace_desc *d)
{
    for (size_t i = 1; i < nt; i++) {
        struct tok k = tk[i];
        if (i == 1 && is_pgid(k)) {
            d->pgid = arena_strndup(t, k.p, k.n);
            continue;
        }
        if (d->epoch < 0 && parse_epoch_tok(k, &d->epoch, &d->min_epoch))
            continue;
        if (k.n && k.p[0] == '[') {
            parse_op_vector(t, k, d);
        } else if (tok_is(k, "v") && i + 1 < nt) {
            struct tok v = tk[++i];
            strip_comma(&v);
            d->version = arena_strndup(t, v.p, v.n);
        } else if (tok_is(k, "result") && i + 2 < nt && tok_is(tk[i + 1], "=")) {
            parse_i64(tk[i + 2].p, tk[i + 2].n, &d->result);
            i += 2;
        } else if (!d->object[0] && (parse_hobj(t, k, d) || parse_old_hobj(t, k, d))) {
            continue; /* object, snap (and pool) filled in */
        } else if (d->kind == TRACE_DESC_REPOP_REPLY && !d->flags[0]) {
            strip_comma(&k); /* "ondisk," */
            d->flags = arena_strndup(t, k.p, k.n);
        }
    }
    if (d->pool < 0 && d->pgid[0])
        d->pool = pool_of_pgid((struct tok){d->pgid, strlen(d->pgid)});
}

const char *trace_desc_kind_name(enum trace_desc_kind k)
{
    switch (k) {
    case TRACE_DESC_OSD_OP: return "osd_op";
    case TRACE_DESC_REPOP: return "repop";
    case TRACE_DESC_REPOP_REPLY: return "repop_reply";
    case TRACE_DESC_OTHER: break;
    }
    return "other";
}

int trace_desc_parse(struct trace_ops *t, const char *text, struct trace_desc *d,
                     const char *what, struct sim_err *err)
{
    memset(d, 0, sizeof *d);
    d->msg = d->entity = d->pgid = d->object = d->snap = d->flags = d->version = "";
    d->inc = d->tid = d->pool = d->epoch = d->min_epoch = -1;
    d->result = INT64_MIN;
    d->osdop_first = t->n_osdops;
    if (!what)
        what = "description";

    /* line breaks inside a description are copy/paste artefacts: Ceph prints none */
    size_t n = strlen(text), m = 0;
    char *s = sim_xcalloc(n + 1, 1);
    for (size_t i = 0; i < n; i++)
        if (text[i] != '\n' && text[i] != '\r')
            s[m++] = text[i];
    const char *lp = memchr(s, '(', m);
    const char *rp = memrchr(s, ')', m);
    if (!lp || !rp || rp < lp) {
        free(s);
        return 0;
    }
    d->msg = arena_strndup(t, s, (size_t)(lp - s));
    if (!strcmp(d->msg, "osd_op"))
        d->kind = TRACE_DESC_OSD_OP;
    else if (!strcmp(d->msg, "osd_repop") || !strcmp(d->msg, "osd_sub_op"))
        d->kind = TRACE_DESC_REPOP;
    else if (!strcmp(d->msg, "osd_repop_reply") || !strcmp(d->msg, "osd_sub_op_reply"))
        d->kind = TRACE_DESC_REPOP_REPLY;
    if (d->kind == TRACE_DESC_OTHER) {
        free(s);
        return 0;
    }
    struct tok tk[DESC_MAX_TOKS];
    bool overflow;
    size_t nt = split_desc(lp + 1, (size_t)(rp - lp - 1), tk, DESC_MAX_TOKS, &overflow);
    int rc = 0;
    if (overflow) {
        rc = sim_errf(err, -EINVAL, "%s: %s: more than %d fields", what, d->msg, DESC_MAX_TOKS);
    } else if (nt == 0 || !parse_reqid(t, tk[0], d)) {
        rc = sim_errf(err, -EINVAL, "%s: %s: bad reqid '%.*s' (expected client.GID.INC:TID)",
                      what, d->msg, nt ? (int)tk[0].n : 0, nt ? tk[0].p : "");
    } else if (d->kind == TRACE_DESC_OSD_OP) {
        parse_osd_op(t, tk, nt, d);
    } else {
        parse_replica_msg(t, tk, nt, d);
    }
    free(s);
    return rc;
}

const struct trace_osdop *trace_desc_osdops(const struct trace_ops *t, const struct trace_desc *d)
{
    return d->n_osdops ? t->osdops + d->osdop_first : NULL;
}

/* ================================================================== event-name interning */

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
    in->slot[j] = arena_strdup(t, s);
    in->n++;
    return in->slot[j];
}

/* ================================================================== op-tracker JSON */

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
        struct trace_event *e = push_event(t);
        e->name = intern_name(t, &b->names, name->valuestring);
        if (trace_time_parse(time->valuestring, &e->t_ns) < 0)
            return sim_errf(err, -EINVAL, "%s: %s[%zu].time: bad timestamp '%s'",
                            b->file, path, idx, time->valuestring);
        e->dur_ns = TRACE_NS_NONE;
        if (dur) {
            double v;
            if (!json_num(dur, &v) || v < 0)
                return sim_errf(err, -EINVAL, "%s: %s[%zu].duration: not a non-negative number",
                                b->file, path, idx);
            if (v >= WRAP_MIN_S) {
                e->dur_wrapped = true;
                v -= WRAP_S;
            }
            e->dur_ns = secs_to_ns(v);
        }
        op->n_ev++;
    }
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
        op->client = arena_strdup(b->t, c->valuestring);
    if (a)
        op->client_addr = arena_strdup(b->t, a->valuestring);
    if (tid) {
        double v;
        if (!json_num(tid, &v) || v < 0 || v != floor(v))
            return sim_errf(err, -EINVAL, "%s: %s.tid: not a non-negative integer", b->file, path);
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
    struct trace_op *op = push_op(t);
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
    op->description = arena_strdup(t, desc->valuestring);
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
    if (trace_time_parse(init->valuestring, &op->initiated_ns) < 0) {
        rc = sim_errf(err, -EINVAL, "%s: %s.%s: bad timestamp '%s'", b->file, path, ikey,
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
        if (!json_num(dur, &dv) || dv < 0) {
            rc = sim_errf(err, -EINVAL, "%s: %s.duration: not a non-negative number", b->file, path);
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
        op->flag_point = arena_strdup(t, fp->valuestring);
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
            if (it && json_num(it, &v)) {
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

int trace_ops_parse(const char *name, const char *text, size_t len, unsigned flags,
                    struct trace_ops *t, struct sim_err *err)
{
    memset(t, 0, sizeof *t);
    t->hist_size = -1;
    t->hist_duration_s = NAN;
    struct build b = {.t = t, .file = name};
    const char *end = NULL;
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
    memset(t, 0, sizeof *t);
    char *buf = NULL;
    size_t len = 0;
    bool gz_failed = false;
    struct sim_err gzerr = {0};
    int rc = slurp_any(path, &buf, &len, &gz_failed, &gzerr);
    if (rc < 0 && !(gz_failed && (flags & TRACE_LOAD_SALVAGE))) {
        free(buf);
        if (err)
            *err = gzerr;
        return rc;
    }
    rc = trace_ops_parse(path, buf, len, flags, t, err);
    if (rc == 0 && gz_failed) {
        t->salvaged = true;
        if (!t->damage[0])
            snprintf(t->damage, sizeof t->damage, "%s", gzerr.msg);
    }
    free(buf);
    return rc;
}

/* ================================================================== event queries */

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
    const struct trace_event *e = t->events + op->ev_first;
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
    const struct trace_event *e = t->events + op->ev_first;
    for (size_t i = 0; i < op->n_ev; i++)
        st->rw_lock_waits += strcmp(e[i].name, "waiting for rw locks") == 0;
}

/* ================================================================== line reader */

struct lines {
    const char *p, *end;
    int64_t lineno;
};

/* Next line without its "\n" / "\r\n"; false at the end. */
static bool next_line(struct lines *L, const char **s, size_t *n)
{
    if (L->p >= L->end)
        return false;
    const char *nl = memchr(L->p, '\n', (size_t)(L->end - L->p));
    const char *e = nl ? nl : L->end;
    *s = L->p;
    *n = (size_t)(e - L->p);
    if (*n && (*s)[*n - 1] == '\r')
        (*n)--;
    L->p = nl ? nl + 1 : L->end;
    L->lineno++;
    return true;
}

/* Split at blanks into at most max fields; returns the count (max+1 if there are more). */
static size_t split_ws(const char *s, size_t n, struct tok *out, size_t max)
{
    size_t nt = 0, i = 0;
    while (i < n) {
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i >= n)
            break;
        size_t st = i;
        while (i < n && !isspace((unsigned char)s[i]))
            i++;
        if (nt == max)
            return max + 1;
        out[nt].p = s + st;
        out[nt].n = i - st;
        nt++;
    }
    return nt;
}

/* ================================================================== fio iolog */

static const char *const io_act_names[] = {"read", "write", "trim", "sync", "datasync",
                                           "add", "open", "close"};

const char *trace_io_act_name(enum trace_io_act a)
{
    return (unsigned)a < sizeof io_act_names / sizeof *io_act_names ? io_act_names[a] : "?";
}

void trace_iolog_free(struct trace_iolog *log)
{
    if (!log)
        return;
    for (size_t i = 0; i < log->n_files; i++)
        free(log->files[i]);
    free(log->files);
    free(log->ios);
    memset(log, 0, sizeof *log);
}

static long iolog_file(const struct trace_iolog *log, struct tok f)
{
    for (size_t i = 0; i < log->n_files; i++)
        if (strlen(log->files[i]) == f.n && !memcmp(log->files[i], f.p, f.n))
            return (long)i;
    return -1;
}

int trace_iolog_parse(const char *name, const char *text, size_t len, struct trace_iolog *log,
                      struct sim_err *err)
{
    static const char v2[] = "fio version 2 iolog", v3[] = "fio version 3 iolog";
    static const char *const io_words[] = {"read", "write", "trim", "sync", "datasync", "wait"};
    static const char *const file_words[] = {"add", "open", "close"};
    memset(log, 0, sizeof *log);
    struct lines L = {text, text + len, 0};
    const char *s;
    size_t n;
    int rc = 0;
    if (!next_line(&L, &s, &n) || (n < sizeof v2 - 1) ||
        (memcmp(s, v2, sizeof v2 - 1) && memcmp(s, v3, sizeof v3 - 1)))
        return sim_errf(err, -EINVAL, "%s:1: not a fio iolog: the first line must be '%s' or '%s' "
                        "(version 1 logs are unsupported since fio 1.20)", name, v2, v3);
    log->version = s[12] == '2' ? 2 : 3;
    int64_t t_us = 0;
    while (next_line(&L, &s, &n)) {
        struct tok f[6];
        size_t nf = split_ws(s, n, f, 5);
        if (nf == 0)
            continue; /* blank line */
        int64_t ln = L.lineno;
        struct tok *w = f;
        if (log->version == 3) {
            uint64_t ts;
            if (nf != 3 && nf != 5) {
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": expected 'timestamp filename action' or "
                              "'timestamp filename action offset length', got %zu fields",
                              name, ln, nf > 5 ? (size_t)6 : nf);
                goto fail;
            }
            if (!all_digits(f[0].p, f[0].n) || !parse_u64(f[0].p, f[0].n, &ts) ||
                ts > (uint64_t)INT64_MAX / 1000) {
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": bad timestamp '%.*s' (µs since start)",
                              name, ln, (int)f[0].n, f[0].p);
                goto fail;
            }
            t_us = (int64_t)ts;
            w = f + 1;
            nf--;
        } else if (nf != 2 && nf != 4) {
            rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": expected 'filename action' or "
                          "'filename action offset length', got %zu fields", name, ln,
                          nf > 5 ? (size_t)6 : nf);
            goto fail;
        }
        char act[32];
        snprintf(act, sizeof act, "%.*s", (int)(w[1].n < 31 ? w[1].n : 31), w[1].p);
        struct trace_io io = {.t_ns = t_us * 1000, .offset = -1, .length = -1};
        if (nf == 2) {
            int a = -1;
            for (int i = 0; i < 3; i++)
                if (!strcmp(act, file_words[i]))
                    a = i;
            if (a < 0) {
                const char *dym = names_did_you_mean(act, file_words, 3);
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": unknown file action '%s'%s%s%s "
                              "(file actions: add, open, close)", name, ln, act,
                              dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
                goto fail;
            }
            io.act = (enum trace_io_act)(TRACE_IO_ADD + a);
            long fi = iolog_file(log, w[0]);
            if (io.act == TRACE_IO_ADD && fi < 0) {
                log->files = sim_xrealloc(log->files, log->n_files + 1, sizeof *log->files);
                char *fn = sim_xcalloc(w[0].n + 1, 1);
                memcpy(fn, w[0].p, w[0].n);
                log->files[log->n_files] = fn;
                fi = (long)log->n_files++;
            }
            if (fi < 0) {
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": file '%.*s' is used before its 'add'",
                              name, ln, (int)w[0].n, w[0].p);
                goto fail;
            }
            io.file = (size_t)fi;
        } else {
            int a = -1;
            for (int i = 0; i < 6; i++)
                if (!strcmp(act, io_words[i]))
                    a = i;
            if (a < 0) {
                const char *dym = names_did_you_mean(act, io_words, 6);
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": unknown I/O action '%s'%s%s%s", name, ln,
                              act, dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
                goto fail;
            }
            uint64_t off, ln2;
            if (!all_digits(w[2].p, w[2].n) || !parse_u64(w[2].p, w[2].n, &off) ||
                off > (uint64_t)INT64_MAX) {
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": bad offset '%.*s'", name, ln,
                              (int)w[2].n, w[2].p);
                goto fail;
            }
            if (!all_digits(w[3].p, w[3].n) || !parse_u64(w[3].p, w[3].n, &ln2) ||
                ln2 > UINT32_MAX) {
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": bad length '%.*s' (fio reads an "
                              "unsigned 32-bit length)", name, ln, (int)w[3].n, w[3].p);
                goto fail;
            }
            if (a == 5) { /* wait */
                if (log->version == 3) {
                    rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": 'wait' is not allowed in a version 3 "
                                  "iolog (timestamps give the timing)", name, ln);
                    goto fail;
                }
                if (off > (uint64_t)(INT64_MAX / 1000 - t_us)) {
                    rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": wait overflows the time", name, ln);
                    goto fail;
                }
                t_us += (int64_t)off;
                continue;
            }
            long fi = iolog_file(log, w[0]);
            if (fi < 0) {
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": file '%.*s' is used before its 'add'",
                              name, ln, (int)w[0].n, w[0].p);
                goto fail;
            }
            io.act = (enum trace_io_act)a;
            io.offset = (int64_t)off;
            io.length = (int64_t)ln2;
            io.file = (size_t)fi;
        }
        if (log->n == log->cap) {
            log->cap = log->cap ? 2 * log->cap : 256;
            log->ios = sim_xrealloc(log->ios, log->cap, sizeof *log->ios);
        }
        log->ios[log->n++] = io;
    }
    return 0;
fail:
    trace_iolog_free(log);
    return rc;
}

int trace_iolog_load(const char *path, struct trace_iolog *log, struct sim_err *err)
{
    memset(log, 0, sizeof *log);
    char *buf;
    size_t len;
    int rc = trace_slurp(path, &buf, &len, err);
    if (rc < 0)
        return rc;
    rc = trace_iolog_parse(path, buf, len, log, err);
    free(buf);
    return rc;
}

/* ================================================================== fio latency logs */

void trace_latlog_free(struct trace_latlog *log)
{
    if (!log)
        return;
    free(log->s);
    memset(log, 0, sizeof *log);
}

static void trim_blanks(const char **p, size_t *n)
{
    while (*n && (**p == ' ' || **p == '\t'))
        (*p)++, (*n)--;
    while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t'))
        (*n)--;
}

static bool lat_field(const char *s, size_t n, bool allow_hex, bool allow_neg, int64_t *v, bool *hex)
{
    bool is_hex = n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (hex)
        *hex = is_hex;
    if (is_hex && !allow_hex)
        return false;
    if (!is_hex && !(all_digits(s, n) || (allow_neg && n > 1 && s[0] == '-' && all_digits(s + 1, n - 1))))
        return false;
    return parse_i64(s, n, v);
}

int trace_latlog_parse(const char *name, const char *text, size_t len, int offset_mode,
                       struct trace_latlog *log, struct sim_err *err)
{
    memset(log, 0, sizeof *log);
    struct lines L = {text, text + len, 0};
    const char *s;
    size_t n;
    int rc = 0;
    bool any_hex5 = false, all01_5 = true;
    while (next_line(&L, &s, &n)) {
        size_t blank = 0;
        while (blank < n && isspace((unsigned char)s[blank]))
            blank++;
        if (blank == n)
            continue;
        struct tok c[8];
        size_t nc = 0, st = 0;
        for (size_t i = 0; i <= n; i++)
            if (i == n || s[i] == ',') {
                if (nc == 8) {
                    nc++;
                    break;
                }
                c[nc].p = s + st;
                c[nc].n = i - st;
                nc++;
                st = i + 1;
            }
        int64_t ln = L.lineno;
        if (nc < 4 || nc > 7) {
            rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": expected 4 to 7 comma-separated columns "
                          "(time, value, ddir, bs[, offset][, prio][, issue_time]), got %zu",
                          name, ln, nc);
            goto fail;
        }
        if (log->ncols && (int)nc != log->ncols) {
            rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": %zu columns, earlier lines have %d",
                          name, ln, nc, log->ncols);
            goto fail;
        }
        log->ncols = (int)nc;
        /* role of each column for this width; the 5th of a 5-column log is decided at the end */
        enum { R_T, R_V, R_DDIR, R_BS, R_OFF, R_PRIO, R_ISSUE, R_X } role[7] = {R_T, R_V, R_DDIR, R_BS};
        if (nc == 5) {
            role[4] = R_X;
        } else if (nc == 6 && offset_mode == TRACE_LAT_NO_OFFSET) {
            role[4] = R_PRIO;
            role[5] = R_ISSUE;
        } else if (nc >= 6) {
            role[4] = R_OFF;
            role[5] = R_PRIO;
            role[6] = R_ISSUE;
        }
        static const char *const role_names[] = {"time", "value", "data direction", "block size",
                                                 "offset", "priority", "issue time", "5th column"};
        int64_t v[7];
        bool hex[7] = {0};
        for (size_t k = 0; k < nc; k++) {
            bool allow_hex = role[k] == R_PRIO || role[k] == R_X;
            trim_blanks(&c[k].p, &c[k].n);
            if (!lat_field(c[k].p, c[k].n, allow_hex, role[k] == R_V, &v[k], &hex[k])) {
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": bad %s '%.*s'", name, ln,
                              role_names[role[k]], (int)c[k].n, c[k].p);
                goto fail;
            }
        }
        if (v[2] < 0 || v[2] > 2) {
            rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": data direction %" PRId64 " is not 0 (read), "
                          "1 (write) or 2 (trim)", name, ln, v[2]);
            goto fail;
        }
        struct trace_lat x = {.t_ms = v[0], .lat_ns = v[1], .ddir = (int)v[2], .bs = v[3],
                              .offset = -1, .prio = -1, .issue_ns = -1};
        for (size_t k = 4; k < nc; k++) {
            if (role[k] == R_OFF || role[k] == R_X)
                x.offset = v[k]; /* R_X: provisional, see below */
            else if (role[k] == R_PRIO)
                x.prio = (int)v[k];
            else
                x.issue_ns = v[k];
        }
        if (nc == 5) {
            any_hex5 |= hex[4];
            all01_5 &= v[4] == 0 || v[4] == 1;
        }
        if (log->n == log->cap) {
            log->cap = log->cap ? 2 * log->cap : 256;
            log->s = sim_xrealloc(log->s, log->cap, sizeof *log->s);
        }
        log->s[log->n++] = x;
    }
    log->has_offset = log->ncols == 7 || (log->ncols == 6 && offset_mode != TRACE_LAT_NO_OFFSET);
    if (log->ncols == 5) {
        bool prio = offset_mode == TRACE_LAT_NO_OFFSET ||
                    (offset_mode == TRACE_LAT_AUTO && (any_hex5 || all01_5));
        if (!prio && any_hex5) {
            rc = sim_errf(err, -EINVAL, "%s: the 5th column holds hex priorities, not offsets", name);
            goto fail;
        }
        log->has_offset = !prio;
        for (size_t i = 0; i < log->n && prio; i++) {
            log->s[i].prio = (int)log->s[i].offset;
            log->s[i].offset = -1;
        }
    }
    return 0;
fail:
    trace_latlog_free(log);
    return rc;
}

int trace_latlog_load(const char *path, int offset_mode, struct trace_latlog *log,
                      struct sim_err *err)
{
    memset(log, 0, sizeof *log);
    char *buf;
    size_t len;
    int rc = trace_slurp(path, &buf, &len, err);
    if (rc < 0)
        return rc;
    rc = trace_latlog_parse(path, buf, len, offset_mode, log, err);
    free(buf);
    return rc;
}

/* ================================================================== eBPF osdtrace */

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
    struct lines L = {text, text + len, 0};
    const char *s;
    size_t n;
    int rc = 0;
    size_t bufcap = 512;
    char *buf = sim_xcalloc(bufcap, 1);
    while (next_line(&L, &s, &n)) {
        if (n < 4 || memcmp(s, "osd ", 4) != 0)
            continue; /* tracer banner lines */
        int64_t ln = L.lineno;
        if (n + 1 > bufcap) {
            bufcap = n + 1;
            buf = sim_xrealloc(buf, bufcap, 1);
        }
        for (size_t i = 0; i < n; i++)
            buf[i] = strchr("()[],", s[i]) ? ' ' : s[i];
        struct tok tk[OSDT_MAX_TOKS + 1];
        size_t nt = split_ws(buf, n, tk, OSDT_MAX_TOKS);
        if (nt > OSDT_MAX_TOKS) {
            rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": too many fields", name, ln);
            goto fail;
        }
        int64_t osd;
        if (nt < 5 || !parse_i64(tk[1].p, tk[1].n, &osd) || !tok_is(tk[2], "pg") ||
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
            if (tok_is(tk[4], kinds[k]))
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
                while (i + 2 < nt && all_digits(tk[i + 1].p, tk[i + 1].n) &&
                       all_digits(tk[i + 2].p, tk[i + 2].n)) {
                    uint64_t po, pl;
                    parse_u64(tk[i + 1].p, tk[i + 1].n, &po);
                    parse_u64(tk[i + 2].p, tk[i + 2].n, &pl);
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
            if (i + 1 >= nt || !all_digits(tk[i + 1].p, tk[i + 1].n) ||
                !parse_u64(tk[i + 1].p, tk[i + 1].n, &v)) {
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
    memset(tr, 0, sizeof *tr);
    char *buf;
    size_t len;
    int rc = trace_slurp(path, &buf, &len, err);
    if (rc < 0)
        return rc;
    rc = trace_osdtrace_parse(path, buf, len, tr, err);
    free(buf);
    return rc;
}
