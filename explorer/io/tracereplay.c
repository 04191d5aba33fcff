/*
 * tracereplay.c - captured traces (fio iologs, op-tracker dumps) as the model's
 * replay traces (models/ceph/replay.h): which records are image reads and writes,
 * and where in the image they fall.
 */
#include "tracereplay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int tracereplay_from_iolog(struct replay_trace *tr, const struct trace_iolog *log, struct sim_err *err)
{
    for (size_t i = 0; i < log->n; i++) {
        const struct trace_io *io = &log->ios[i];
        if ((io->act != TRACE_IO_READ && io->act != TRACE_IO_WRITE) || io->length <= 0 || io->offset < 0) {
            tr->skipped++;
            continue;
        }
        replay_trace_add(tr, io->t_ns, io->act == TRACE_IO_READ ? FIO_DDIR_READ : FIO_DDIR_WRITE,
                         (uint64_t)io->offset, (uint64_t)io->length);
    }
    return 0;
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

int tracereplay_from_ops(struct replay_trace *tr, const struct trace_ops *ops, uint32_t order,
                          struct sim_err *err)
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
            replay_trace_add(tr, op->initiated_ns, w ? FIO_DDIR_WRITE : FIO_DDIR_READ,
                             objno * obj_size + (uint64_t)o[i].offset, (uint64_t)o[i].length);
            any = true;
        }
        if (!any)
            tr->skipped++;
    }
    return 0;
}

int tracereplay_load(struct replay_trace *tr, const char *const *paths, int n, uint32_t order,
                      struct sim_err *err)
{
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char *text = NULL;
        size_t len = 0;
        if ((rc = trace_slurp(paths[i], &text, &len, err)) < 0)
            break;
        /* an iolog, or else an op-tracker dump, whose parser names what is wrong with
           anything else (no other format has what a replay needs) */
        if (trace_format_sniff(text, len) == &trace_iolog_format) {
            struct trace_iolog log;
            if ((rc = trace_iolog_parse(paths[i], text, len, &log, err)) == 0) {
                rc = tracereplay_from_iolog(tr, &log, err);
                trace_iolog_free(&log);
            }
        } else {
            struct trace_ops ops;
            if ((rc = trace_ops_parse(paths[i], text, len, TRACE_LOAD_SALVAGE, &ops, err)) == 0) {
                rc = tracereplay_from_ops(tr, &ops, order, err);
                trace_ops_free(&ops);
            }
        }
        free(text);
    }
    if (rc == 0)
        replay_trace_sort(tr);
    return rc;
}
