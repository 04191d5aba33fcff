/*
 * trace_latlog.c - fio per-I/O logs (API in trace.h): write_lat_log's *_lat.N.log,
 * *_clat.N.log and *_slat.N.log (log_avg_msec=0: one line per I/O).
 *
 * Mirrors fio iolog.c flush_samples(): "time_ms, value, ddir, bs[, offset], prio[,
 * issue_ns]" (log_offset adds the offset, log_prio prints prio as 0x%04x, log_issue_time
 * adds the issue time).  fio before 2020 wrote no priority column, so a 5-column line is
 * either "..., offset" or "..., prio" (TRACE_LAT_AUTO decides from the values).
 */
#include "trace_int.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
    if (!is_hex && !(trace_all_digits(s, n) || (allow_neg && n > 1 && s[0] == '-' && trace_all_digits(s + 1, n - 1))))
        return false;
    return trace_parse_i64(s, n, v);
}

int trace_latlog_parse(const char *name, const char *text, size_t len, int offset_mode,
                       struct trace_latlog *log, struct sim_err *err)
{
    memset(log, 0, sizeof *log);
    struct trace_lines L = {text, text + len, 0};
    const char *s;
    size_t n;
    int rc = 0;
    bool any_hex5 = false, all01_5 = true;
    while (trace_next_line(&L, &s, &n)) {
        size_t blank = 0;
        while (blank < n && isspace((unsigned char)s[blank]))
            blank++;
        if (blank == n)
            continue;
        struct trace_tok c[8];
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


static unsigned latlog_flags(int offset_mode)
{
    return offset_mode == TRACE_LAT_AUTO ? 0
         : offset_mode == TRACE_LAT_NO_OFFSET ? TRACE_LOAD_LAT_NO_OFFSET : TRACE_LOAD_LAT_OFFSET;
}

int trace_latlog_load(const char *path, int offset_mode, struct trace_latlog *log,
                      struct sim_err *err)
{
    return trace_load(&trace_latlog_format, path, latlog_flags(offset_mode), log, err);
}

/* ------------------------------------------------------------------ the importer */

/* The first non-blank line is 4 to 7 comma-separated integers (decimal, 0x hex or < 0). */
static bool latlog_sniff(const char *text, size_t len)
{
    struct trace_lines L = {text, text + len, 0};
    const char *s;
    size_t n;
    while (trace_next_line(&L, &s, &n)) {
        size_t i = 0;
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i == n)
            continue;
        if (!isdigit((unsigned char)s[i]))
            return false;
        int commas = 0;
        for (; i < n; i++) {
            if (s[i] == ',')
                commas++;
            else if (!isxdigit((unsigned char)s[i]) && (!s[i] || !strchr("xX- \t", s[i])))
                return false;
        }
        return commas >= 3 && commas <= 6;
    }
    return false;
}

static int latlog_parse(const char *name, const char *text, size_t len, unsigned flags,
                        void *out, struct sim_err *err)
{
    int mode = flags & TRACE_LOAD_LAT_NO_OFFSET ? TRACE_LAT_NO_OFFSET
             : flags & TRACE_LOAD_LAT_OFFSET ? TRACE_LAT_OFFSET : TRACE_LAT_AUTO;
    return trace_latlog_parse(name, text, len, mode, out, err);
}

static void latlog_free(void *out)
{
    trace_latlog_free(out);
}

const struct trace_format trace_latlog_format = {
    .name = "latlog",
    .size = sizeof(struct trace_latlog),
    .sniff = latlog_sniff,
    .parse = latlog_parse,
    .free = latlog_free,
};
