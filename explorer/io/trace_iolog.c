/*
 * trace_iolog.c - fio iologs, versions 2 and 3 (API in trace.h): what fio's write_iolog
 * writes and read_iolog replays.
 *
 * Mirrors fio iolog.c: init_iolog_read() (first line "fio version 2 iolog" / "fio version
 * 3 iolog"; v1 is unsupported) and read_iolog() ("file action" / "file action offset
 * length", v3 with a leading µs timestamp; actions add/open/close and
 * read/write/trim/sync/datasync, "wait" (µs, v2 only; cumulative per the HOWTO); length is
 * read as an unsigned int).  fio skips bad lines with a message; this importer stops at
 * the first one instead.
 *
 * A v2 log's times come only from its "wait" lines: without them every I/O is at
 * t = 0 here, and fio's replay issues them in order at the job's iodepth (no delays);
 * `cephsim replay` does the same with such a log (replay_cmd.c) rather than an open
 * loop that would start every I/O at once.
 */
#include "trace_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

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

static long iolog_file(const struct trace_iolog *log, struct trace_tok f)
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
    struct trace_lines L = {text, text + len, 0};
    const char *s;
    size_t n;
    int rc = 0;
    if (!trace_next_line(&L, &s, &n) || (n < sizeof v2 - 1) ||
        (memcmp(s, v2, sizeof v2 - 1) && memcmp(s, v3, sizeof v3 - 1)))
        return sim_errf(err, -EINVAL, "%s:1: not a fio iolog: the first line must be '%s' or '%s' "
                        "(version 1 logs are unsupported since fio 1.20)", name, v2, v3);
    log->version = s[12] == '2' ? 2 : 3;
    int64_t t_us = 0;
    while (trace_next_line(&L, &s, &n)) {
        struct trace_tok f[6];
        size_t nf = trace_split_ws(s, n, f, 5);
        if (nf == 0)
            continue; /* blank line */
        int64_t ln = L.lineno;
        struct trace_tok *w = f;
        if (log->version == 3) {
            uint64_t ts;
            if (nf != 3 && nf != 5) {
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": expected 'timestamp filename action' or "
                              "'timestamp filename action offset length', got %zu fields",
                              name, ln, nf > 5 ? (size_t)6 : nf);
                goto fail;
            }
            if (!trace_all_digits(f[0].p, f[0].n) || !trace_parse_u64(f[0].p, f[0].n, &ts) ||
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
        struct trace_io io = {.t_ns = t_us * 1000, .offset = -1, .length = -1, .line = ln};
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
            if (!trace_all_digits(w[2].p, w[2].n) || !trace_parse_u64(w[2].p, w[2].n, &off) ||
                off > (uint64_t)INT64_MAX) {
                rc = sim_errf(err, -EINVAL, "%s:%" PRId64 ": bad offset '%.*s'", name, ln,
                              (int)w[2].n, w[2].p);
                goto fail;
            }
            if (!trace_all_digits(w[3].p, w[3].n) || !trace_parse_u64(w[3].p, w[3].n, &ln2) ||
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
    return trace_load(&trace_iolog_format, path, 0, log, err);
}

/* ------------------------------------------------------------------ the importer */

/* The first line starts "fio version": a v2/v3 log, or an older one its parser names. */
static bool iolog_sniff(const char *text, size_t len)
{
    return len >= 11 && !strncmp(text, "fio version", 11);
}

static int iolog_parse(const char *name, const char *text, size_t len, unsigned flags,
                       void *out, struct sim_err *err)
{
    return trace_iolog_parse(name, text, len, out, err);
}

static void iolog_free(void *out)
{
    trace_iolog_free(out);
}

const struct trace_format trace_iolog_format = {
    .name = "iolog",
    .size = sizeof(struct trace_iolog),
    .sniff = iolog_sniff,
    .parse = iolog_parse,
    .free = iolog_free,
};
