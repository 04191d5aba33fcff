/*
 * trace.c - the table of trace importers and the one loader they share (API in trace.h).
 *
 * Reads no format itself: each importer is a struct trace_format in its own file
 * (trace_historic.c, trace_iolog.c, trace_latlog.c, trace_osdtrace.c), listed here in the
 * order trace_format_sniff() tries them, the surest sniff first.  An explicit table, as
 * for the models, rather than registration from constructors: it is greppable and its
 * order is fixed.
 */
#include "trace_int.h"

#include <stdlib.h>
#include <string.h>

const struct trace_format *const trace_formats[] = {
    &trace_iolog_format,     /* "fio version" on the first line */
    &trace_historic_format,  /* JSON: '{', '[' or a member first */
    &trace_latlog_format,    /* a first line of 4 to 7 comma-separated integers */
    &trace_osdtrace_format,  /* "osd N pg ..." after a banner */
    NULL,
};

const struct trace_format *trace_format_sniff(const char *text, size_t len)
{
    for (const struct trace_format *const *f = trace_formats; *f; f++)
        if ((*f)->sniff(text, len))
            return *f;
    return NULL;
}

int trace_load(const struct trace_format *fmt, const char *path, unsigned flags, void *out,
               struct sim_err *err)
{
    memset(out, 0, fmt->size);
    char *buf = NULL;
    size_t len = 0;
    bool partial = false;
    struct sim_err rerr = {0};
    int rc = trace_slurp_max(path, TRACE_READ_MAX, &buf, &len, &partial, &rerr);
    if (rc < 0 && !(partial && fmt->damaged && (flags & TRACE_LOAD_SALVAGE))) {
        free(buf);
        if (err)
            *err = rerr;
        return rc;
    }
    rc = fmt->parse(path, buf, len, flags, out, err);
    if (rc == 0 && partial)
        fmt->damaged(out, rerr.msg);
    free(buf);
    return rc;
}
