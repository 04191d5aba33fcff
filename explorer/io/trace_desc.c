/*
 * trace_desc.c - the op "description" strings of op-tracker dumps (API in trace.h): an
 * OSD message as its print() method wrote it, parsed into struct trace_desc.
 *
 * Mirrors src/messages/MOSDOp.h MOSDOp::print "osd_op(REQID PGID HOBJ [OPS] snapc SEQ=[..]
 * [RETRY=N] FLAGS eEPOCH)" (Hammer/Jewel: "osd_op(REQID OID [OPS] RAWPG snapc .. FLAGS
 * eEPOCH)"; undecoded: "osd_op(REQID PGID RAWPG (undecoded) FLAGS eEPOCH)"),
 * MOSDRepOp::print "osd_repop(REQID PGID eMAP/MIN HOBJ v VERSION, mlcod=..)",
 * MOSDRepOpReply::print "osd_repop_reply(REQID PGID eMAP/MIN ondisk, result = R)"
 * (osd_sub_op / osd_sub_op_reply before Jewel), src/common/hobject.cc operator<<
 * "POOL:HASH:NSPACE:KEY:NAME:SNAP" (Hammer "HASH/NAME/SNAP/NSPACE/POOL") and the OSDOp
 * printer (src/osd/osd_types.cc) "name OFF~LEN [fadvise_*] in=Nb" joined by ','.
 */
#include "trace_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DESC_MAX_TOKS 64

/* Split s[0..n) at spaces outside [...] brackets. */
static size_t split_desc(const char *s, size_t n, struct trace_tok *out, size_t max, bool *overflow)
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

/* "client.4118.0:47" -> entity "client.4118", inc 0, tid 47. */
static bool parse_reqid(struct trace_ops *t, struct trace_tok k, struct trace_desc *d)
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
    if (!memchr(k.p, '.', ent) || !trace_parse_i64(dot + 1, head - ent - 1, &inc) ||
        !trace_all_digits(colon + 1, k.n - head - 1) || !trace_parse_i64(colon + 1, k.n - head - 1, &tid))
        return false;
    d->entity = trace_ops_strndup(t, k.p, ent);
    d->inc = inc;
    d->tid = tid;
    return true;
}

/* "e196" or "e24/16". */
static bool parse_epoch_tok(struct trace_tok k, int64_t *epoch, int64_t *min_epoch)
{
    if (k.n < 2 || k.p[0] != 'e')
        return false;
    const char *slash = memchr(k.p, '/', k.n);
    size_t n1 = slash ? (size_t)(slash - k.p) - 1 : k.n - 1;
    int64_t a, b = -1;
    if (!trace_all_digits(k.p + 1, n1) || !trace_parse_i64(k.p + 1, n1, &a))
        return false;
    if (slash) {
        size_t n2 = k.n - n1 - 2;
        if (!trace_all_digits(slash + 1, n2) || !trace_parse_i64(slash + 1, n2, &b))
            return false;
    }
    *epoch = a;
    *min_epoch = b;
    return true;
}

/* "4.298", "2.1cs0", "2.8eb4757c". */
static bool is_pgid(struct trace_tok k)
{
    const char *dot = memchr(k.p, '.', k.n);
    if (!dot || !trace_all_digits(k.p, (size_t)(dot - k.p)))
        return false;
    const char *rest = dot + 1;
    size_t rn = k.n - (size_t)(rest - k.p);
    const char *s = memchr(rest, 's', rn);
    if (s)
        return trace_all_xdigits(rest, (size_t)(s - rest)) && trace_all_digits(s + 1, rn - (size_t)(s - rest) - 1);
    return trace_all_xdigits(rest, rn);
}

static int64_t pool_of_pgid(struct trace_tok k)
{
    const char *dot = memchr(k.p, '.', k.n);
    int64_t v;
    return dot && trace_parse_i64(k.p, (size_t)(dot - k.p), &v) ? v : -1;
}

/* hobject_t since Luminous: "POOL:HASH8:NSPACE:KEY:NAME:SNAP". */
static bool parse_hobj(struct trace_ops *t, struct trace_tok k, struct trace_desc *d)
{
    const char *c1 = memchr(k.p, ':', k.n);
    if (!c1)
        return false;
    int64_t pool;
    if (!trace_parse_i64(k.p, (size_t)(c1 - k.p), &pool))
        return false;
    const char *h = c1 + 1, *end = k.p + k.n;
    if (end - h < 9 || !trace_all_xdigits(h, 8) || h[8] != ':')
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
    d->object = trace_ops_strndup(t, name, (size_t)(last - name));
    d->snap = trace_ops_strndup(t, last + 1, (size_t)(end - last - 1));
    return true;
}

/* hobject_t before Luminous: "HASH[.KEY]/NAME/SNAP[/NSPACE/POOL]". */
static bool parse_old_hobj(struct trace_ops *t, struct trace_tok k, struct trace_desc *d)
{
    const char *end = k.p + k.n;
    const char *s1 = memchr(k.p, '/', k.n);
    if (!s1)
        return false;
    const char *dot = memchr(k.p, '.', (size_t)(s1 - k.p));
    if (!trace_all_xdigits(k.p, (size_t)((dot ? dot : s1) - k.p)))
        return false;
    const char *name = s1 + 1, *snap_end = end;
    int slashes = 0;
    for (const char *p = name; p < end; p++)
        slashes += *p == '/';
    int64_t pool = -1;
    if (slashes >= 3) { /* .../NSPACE/POOL */
        const char *ps = memrchr(name, '/', (size_t)(end - name));
        if (trace_parse_i64(ps + 1, (size_t)(end - ps - 1), &pool))
            snap_end = memrchr(name, '/', (size_t)(ps - name));
        else
            pool = -1;
    }
    const char *ls = slashes ? memrchr(name, '/', (size_t)(snap_end - name)) : NULL;
    if (!ls)
        return false;
    d->object = trace_ops_strndup(t, name, (size_t)(ls - name));
    d->snap = trace_ops_strndup(t, ls + 1, (size_t)(snap_end - ls - 1));
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
    return trace_parse_i64(s, a, off) && trace_parse_i64(tl + 1, n - a - 1, len) && *off >= 0 && *len >= 0;
}

/* "[stat,set-alloc-hint object_size 4194304 write_size 4194304,write 0~4096 in=4096b]". */
static void parse_op_vector(struct trace_ops *t, struct trace_tok k, struct trace_desc *d)
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
        struct trace_osdop *o = trace_ops_push_osdop(t);
        d->n_osdops++;
        o->offset = o->length = -1;
        if (nl == 11 && memcmp(e, "object_size", 11) == 0) {
            /* alloc-hint arguments whose "set-alloc-hint" name was lost in the copy */
            o->name = "set-alloc-hint";
            rest = e;
            rn = en;
        } else {
            o->name = trace_ops_strndup(t, e, nl);
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
        o->extra = trace_ops_strndup(t, rest, rn);
    }
}

static void strip_comma(struct trace_tok *k)
{
    if (k->n && k->p[k->n - 1] == ',')
        k->n--;
}

/*
 * osd_op layouts (MOSDOp::print): Luminous+ "REQID PGID HOBJ [OPS] snapc .. [RETRY=N] FLAGS eE",
 * undecoded "REQID PGID RAWPG (undecoded) FLAGS eE", Hammer/Jewel "REQID OID [OPS] RAWPG
 * [snapc ..] FLAGS eE".  FLAGS is the token before the epoch.
 */
static void parse_osd_op(struct trace_ops *t, struct trace_tok *tk, size_t nt, struct trace_desc *d)
{
    size_t ops_i = 0, undec_i = 0, epoch_i = 0;
    for (size_t i = 1; i < nt; i++) {
        if (!ops_i && tk[i].n && tk[i].p[0] == '[')
            ops_i = i;
        if (trace_tok_is(tk[i], "(undecoded)"))
            undec_i = i;
        if (tk[i].n > 6 && memcmp(tk[i].p, "RETRY=", 6) == 0)
            trace_parse_i64(tk[i].p + 6, tk[i].n - 6, &d->retry);
    }
    if (nt > 1 && parse_epoch_tok(tk[nt - 1], &d->epoch, &d->min_epoch))
        epoch_i = nt - 1;
    size_t pre_end = ops_i ? ops_i : undec_i ? undec_i : (epoch_i ? epoch_i - 1 : nt);
    size_t npre = pre_end > 1 ? pre_end - 1 : 0;
    if (npre >= 2 && parse_hobj(t, tk[2], d)) {
        d->pgid = trace_ops_strndup(t, tk[1].p, tk[1].n);
    } else if (npre >= 1 && ops_i) {
        if (!parse_hobj(t, tk[1], d))
            d->object = trace_ops_strndup(t, tk[1].p, tk[1].n); /* Hammer: [nspace/]oid */
    } else if (npre >= 1 && is_pgid(tk[1])) {
        d->pgid = trace_ops_strndup(t, tk[1].p, tk[1].n);
    }
    if (ops_i)
        parse_op_vector(t, tk[ops_i], d);
    /* Hammer/Jewel print the raw pg after the op vector */
    for (size_t i = ops_i ? ops_i + 1 : nt; i < nt && !d->pgid[0]; i++)
        if (is_pgid(tk[i]))
            d->pgid = trace_ops_strndup(t, tk[i].p, tk[i].n);
    if (epoch_i >= 2) {
        struct trace_tok f = tk[epoch_i - 1];
        size_t fi = epoch_i - 1;
        bool snapc_val = fi >= 1 && trace_tok_is(tk[fi - 1], "snapc");
        if (fi > pre_end && fi != ops_i && !snapc_val && !trace_tok_is(f, "(undecoded)") &&
            !(f.n > 6 && memcmp(f.p, "RETRY=", 6) == 0) && !is_pgid(f))
            d->flags = trace_ops_strndup(t, f.p, f.n);
    }
    if (d->pool < 0 && d->pgid[0])
        d->pool = pool_of_pgid((struct trace_tok){d->pgid, strlen(d->pgid)});
}

/*
 * osd_repop / osd_sub_op: "REQID PGID eMAP/MIN HOBJ v VERSION, mlcod=.."; the replies:
 * "REQID PGID eMAP/MIN ondisk, result = R".  Fields are recognised by their form.
 */
static void parse_replica_msg(struct trace_ops *t, struct trace_tok *tk, size_t nt, struct trace_desc *d)
{
    for (size_t i = 1; i < nt; i++) {
        struct trace_tok k = tk[i];
        if (i == 1 && is_pgid(k)) {
            d->pgid = trace_ops_strndup(t, k.p, k.n);
            continue;
        }
        if (d->epoch < 0 && parse_epoch_tok(k, &d->epoch, &d->min_epoch))
            continue;
        if (k.n && k.p[0] == '[') {
            parse_op_vector(t, k, d);
        } else if (trace_tok_is(k, "v") && i + 1 < nt) {
            struct trace_tok v = tk[++i];
            strip_comma(&v);
            d->version = trace_ops_strndup(t, v.p, v.n);
        } else if (trace_tok_is(k, "result") && i + 2 < nt && trace_tok_is(tk[i + 1], "=")) {
            trace_parse_i64(tk[i + 2].p, tk[i + 2].n, &d->result);
            i += 2;
        } else if (!d->object[0] && (parse_hobj(t, k, d) || parse_old_hobj(t, k, d))) {
            continue; /* object, snap (and pool) filled in */
        } else if (d->kind == TRACE_DESC_REPOP_REPLY && !d->flags[0]) {
            strip_comma(&k); /* "ondisk," */
            d->flags = trace_ops_strndup(t, k.p, k.n);
        }
    }
    if (d->pool < 0 && d->pgid[0])
        d->pool = pool_of_pgid((struct trace_tok){d->pgid, strlen(d->pgid)});
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
    d->msg = trace_ops_strndup(t, s, (size_t)(lp - s));
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
    struct trace_tok tk[DESC_MAX_TOKS];
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
