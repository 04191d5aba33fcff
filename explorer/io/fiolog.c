/*
 * fiolog.c - fio's per-I/O log files and iolog (see fiolog.h).
 *
 * Mirrors fio 3.33: init.c add_job (gen_log_name "%s_%s.%d.%s",
 * make_log_name), stat.c add_lat/clat/slat_sample, add_bw_sample (per I/O:
 * bytes * 1000000 / clat ns), add_iops_sample (per I/O: 1), add_log_sample
 * and __add_stat_to_log (log_avg_msec windows), __add_samples (interval
 * bandwidth delta * 1000 / spent / 1024, IOPS delta * 1000 / spent),
 * finalize_logs; iolog.c flush_samples (line format), init_iolog_write,
 * log_io_u and log_file (iolog v3).
 */
#include "fiolog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

enum log_kind { LOG_LAT, LOG_SLAT, LOG_CLAT, LOG_BW, LOG_IOPS, LOG_KINDS };
static const char *const kind_name[LOG_KINDS] = {"lat", "slat", "clat", "bw", "iops"};

/* fio's io_stat, as far as a log window uses it: samples, running mean, max. */
struct avg_window {
    uint64_t samples;
    double mean;
};

struct log_file {
    FILE *f;
    char name[300];
    uint32_t avg_msec;
    bool offset;                      /* log_offset */
    struct avg_window win[FIO_DDIR_NR];
    uint64_t avg_last[FIO_DDIR_NR];   /* ms */
};

struct job_logs {
    struct log_file *log[LOG_KINDS];
    /* __add_samples for averaged bw/iops logs: totals and their values at the last interval */
    uint64_t bytes[FIO_DDIR_NR], blocks[FIO_DDIR_NR], stat_bytes[FIO_DDIR_NR], stat_blocks[FIO_DDIR_NR];
    uint64_t next_ms;                 /* the next interval's end */
    FILE *iolog;
    struct log_file *iolog_file;      /* shared when jobs name the same iolog */
};

struct fiolog {
    char dir[1024];
    uint32_t n_slots;
    struct job_logs *jobs;
    struct log_file **files;          /* every file opened, once */
    uint32_t n_files;
    const struct cluster *c;
};

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Whether name is one of the files a run directory already has for other outputs. */
static bool run_file(const char *name)
{
    return !strcmp(name, "sim.json") || !strcmp(name, "fio.json") || !strcmp(name, "fio.txt") ||
           !strcmp(name, "plots") || !strncmp(name, "osd.", 4) || !strncmp(name, "client.", 7) ||
           !strcmp(name, "") || !strcmp(name, ".") || !strcmp(name, "..");
}

/* The file named name in l->dir, opened once however many jobs name it (fopen "a", as fio). */
static struct log_file *open_file(struct fiolog *l, const char *name, struct sim_err *err)
{
    if (run_file(name)) {
        sim_errf(err, -EINVAL, "fio log '%s': the name of one of the run's other outputs (choose another "
                 "write_*_log prefix or write_iolog name)", name);
        return NULL;
    }
    for (uint32_t i = 0; i < l->n_files; i++)
        if (!strcmp(l->files[i]->name, name))
            return l->files[i];
    struct log_file *f = sim_xcalloc(1, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", l->dir, name);
    f->f = fopen(path, "w");
    if (!f->f) {
        int e = errno;
        free(f);
        sim_errf(err, -e, "%s: cannot create: %s", path, strerror(e));
        return NULL;
    }
    l->files = sim_xrealloc(l->files, (size_t)l->n_files + 1, sizeof *l->files);
    l->files[l->n_files++] = f;
    return f;
}

int fiolog_open(struct fiolog **out, const char *dir, const struct workload_job *const *slot_job,
                const char *const *slot_name, uint32_t n_slots, struct sim_err *err)
{
    *out = NULL;
    bool any = false;
    for (uint32_t i = 0; i < n_slots; i++) {
        const struct workload_job *j = slot_job[i];
        any |= j && (j->write_lat_log || j->write_bw_log || j->write_iops_log || j->write_iolog[0]);
    }
    if (!any)
        return 0;
    struct fiolog *l = sim_xcalloc(1, sizeof *l);
    snprintf(l->dir, sizeof l->dir, "%s", dir);
    l->n_slots = n_slots;
    l->jobs = sim_xcalloc(n_slots, sizeof *l->jobs);
    int rc = 0;
    for (uint32_t i = 0; i < n_slots && rc == 0; i++) {
        const struct workload_job *j = slot_job[i];
        struct job_logs *jl = &l->jobs[i];
        if (!j)
            continue;
        const bool want[LOG_KINDS] = {j->write_lat_log, j->write_lat_log, j->write_lat_log, j->write_bw_log,
                                      j->write_iops_log};
        const char *prefix[LOG_KINDS] = {j->lat_log, j->lat_log, j->lat_log, j->bw_log, j->iops_log};
        for (int k = 0; k < LOG_KINDS && rc == 0; k++) {
            if (!want[k])
                continue;
            char name[300];
            const char *pre = prefix[k][0] ? base_name(prefix[k]) : slot_name[i];
            if (j->per_job_logs)
                snprintf(name, sizeof name, "%s_%s.%u.log", pre, kind_name[k], i + 1);
            else
                snprintf(name, sizeof name, "%s_%s.log", pre, kind_name[k]);
            struct log_file *f = open_file(l, name, err);
            if (!f) {
                rc = err && err->code ? err->code : -EIO;
                break;
            }
            f->avg_msec = j->log_avg_msec;
            f->offset = j->log_offset;
            jl->log[k] = f;
        }
        jl->next_ms = j->log_avg_msec;
        if (rc == 0 && j->write_iolog[0]) {
            const char *nm = base_name(j->write_iolog);
            bool fresh = true;
            for (uint32_t f = 0; f < l->n_files; f++)
                fresh &= strcmp(l->files[f]->name, nm) != 0;
            struct log_file *f = open_file(l, nm, err);
            if (!f) {
                rc = err && err->code ? err->code : -EIO;
                break;
            }
            jl->iolog_file = f;
            jl->iolog = f->f;
            /* init_iolog_write: the version line (once per file: fio appends), then log_file
               add and open of the rbd engine's one file ("rbd" without filename=) at t = 0 */
            if (fresh)
                fprintf(jl->iolog, "fio version 3 iolog\n");
            fprintf(jl->iolog, "0 rbd add\n0 rbd open\n");
        }
    }
    if (rc < 0) {
        fiolog_close(l, 0, NULL, NULL);
        return rc;
    }
    *out = l;
    return 0;
}

/* One line (flush_samples): with log_offset, the offset before the priority (0: not real-time). */
static void put_line(struct log_file *f, uint64_t ms, uint64_t val, int ddir, uint64_t bs, uint64_t offset)
{
    if (f->offset)
        fprintf(f->f, "%" PRIu64 ", %" PRIu64 ", %d, %" PRIu64 ", %" PRIu64 ", 0\n", ms, val, ddir, bs, offset);
    else
        fprintf(f->f, "%" PRIu64 ", %" PRIu64 ", %d, %" PRIu64 ", 0\n", ms, val, ddir, bs);
}

/* __add_stat_to_log: the window's mean, rounded, at elapsed; then an empty window. */
static void flush_window(struct log_file *f, int d, uint64_t elapsed)
{
    if (f->win[d].samples)
        put_line(f, elapsed, (uint64_t)(f->win[d].mean + 0.50), d, 0, 0);
    f->win[d] = (struct avg_window){0};
}

/* add_log_sample: one value, as a line of its own or into the averaging window. */
static void add_sample(struct log_file *f, uint64_t elapsed, uint64_t val, int d, uint64_t bs, uint64_t offset)
{
    if (!f->avg_msec) {
        put_line(f, elapsed, val, d, bs, offset);
        return;
    }
    struct avg_window *w = &f->win[d];
    w->samples++;
    w->mean += ((double)val - w->mean) / (double)w->samples; /* add_stat_sample's running mean */
    if (elapsed < f->avg_last[d] || elapsed - f->avg_last[d] < f->avg_msec)
        return;
    flush_window(f, d, elapsed);
    f->avg_last[d] = elapsed - elapsed % f->avg_msec;
}

/* __add_samples at the end of each log_avg_msec interval up to now_ms: bandwidth and IOPS of
   each direction that moved data in it. */
static void interval_samples(struct job_logs *jl, uint64_t now_ms, uint32_t avg)
{
    while (avg && now_ms >= jl->next_ms) {
        for (int d = 0; d < FIO_DDIR_NR; d++) {
            uint64_t db = jl->bytes[d] - jl->stat_bytes[d], dn = jl->blocks[d] - jl->stat_blocks[d];
            if (jl->log[LOG_BW] && db)
                add_sample(jl->log[LOG_BW], jl->next_ms, db * 1000 / avg / 1024, d, 0, 0);
            if (jl->log[LOG_IOPS] && dn)
                add_sample(jl->log[LOG_IOPS], jl->next_ms, dn * 1000 / avg, d, 0, 0);
            jl->stat_bytes[d] = jl->bytes[d];
            jl->stat_blocks[d] = jl->blocks[d];
        }
        jl->next_ms += avg;
    }
}

static void on_issued(void *ctx, const struct cluster_io_event *e)
{
    struct fiolog *l = ctx;
    if (e->job >= l->n_slots || !l->jobs[e->job].iolog)
        return;
    /* log_io_u: "usec filename action offset length" */
    fprintf(l->jobs[e->job].iolog, "%" PRIu64 " rbd %s %" PRIu64 " %" PRIu64 "\n", (uint64_t)e->t_issue / 1000,
            e->ddir == FIO_DDIR_WRITE ? "write" : "read", e->offset, e->len);
}

static void on_completed(void *ctx, const struct cluster_io_event *e)
{
    struct fiolog *l = ctx;
    if (e->job >= l->n_slots)
        return;
    struct job_logs *jl = &l->jobs[e->job];
    sim_time_t t0 = cluster_measure_start(l->c);
    uint64_t done_ms = (uint64_t)(e->t_done - t0) / 1000000u;
    uint64_t sub_ms = e->t_submitted > t0 ? (uint64_t)(e->t_submitted - t0) / 1000000u : 0;
    uint64_t clat = (uint64_t)(e->t_done - e->t_submitted);
    if (jl->log[LOG_LAT])
        add_sample(jl->log[LOG_LAT], done_ms, (uint64_t)(e->t_done - e->t_issue), e->ddir, e->len, e->offset);
    /* fio adds the slat sample when the I/O is queued (its time), the others when it is reaped */
    if (jl->log[LOG_SLAT])
        add_sample(jl->log[LOG_SLAT], sub_ms, (uint64_t)(e->t_submitted - e->t_issue), e->ddir, e->len, e->offset);
    if (jl->log[LOG_CLAT])
        add_sample(jl->log[LOG_CLAT], done_ms, clat, e->ddir, e->len, e->offset);
    struct log_file *bw = jl->log[LOG_BW], *iops = jl->log[LOG_IOPS];
    uint32_t avg = bw ? bw->avg_msec : iops ? iops->avg_msec : 0;
    if (avg)
        interval_samples(jl, done_ms, avg);
    jl->bytes[e->ddir] += e->len;
    jl->blocks[e->ddir]++;
    if (bw && !bw->avg_msec)
        add_sample(bw, done_ms, clat ? e->len * 1000000u / clat : 0, e->ddir, e->len, e->offset);
    if (iops && !iops->avg_msec)
        add_sample(iops, done_ms, 1, e->ddir, e->len, e->offset);
}

struct cluster_io_observer fiolog_observer(struct fiolog *l, const struct cluster *c)
{
    l->c = c;
    return (struct cluster_io_observer){.issued = on_issued, .completed = on_completed, .ctx = l};
}

int fiolog_close(struct fiolog *l, sim_time_t end_ns, char **names, struct sim_err *err)
{
    if (names)
        *names = NULL;
    if (!l)
        return 0;
    int rc = 0;
    sim_time_t t0 = l->c ? cluster_measure_start(l->c) : 0;
    uint64_t end_ms = end_ns > t0 ? (uint64_t)(end_ns - t0) / 1000000u : 0;
    for (uint32_t i = 0; i < l->n_slots; i++) {
        struct job_logs *jl = &l->jobs[i];
        struct log_file *bw = jl->log[LOG_BW], *iops = jl->log[LOG_IOPS];
        uint32_t avg = bw ? bw->avg_msec : iops ? iops->avg_msec : 0;
        if (l->c && avg)
            interval_samples(jl, end_ms, avg);
        /* finalize_logs: what the windows still hold, at the end */
        for (int k = 0; k < LOG_KINDS && l->c; k++)
            if (jl->log[k] && jl->log[k]->avg_msec)
                for (int d = 0; d < FIO_DDIR_NR; d++)
                    flush_window(jl->log[k], d, end_ms);
        if (jl->iolog && l->c)
            fprintf(jl->iolog, "%" PRIu64 " rbd close\n", (uint64_t)end_ns / 1000);
    }
    struct strbuf b = STRBUF_INIT;
    for (uint32_t i = 0; i < l->n_files; i++) {
        struct log_file *f = l->files[i];
        if (fclose(f->f) != 0 && rc == 0)
            rc = sim_errf(err, -EIO, "%s/%s: cannot write: %s", l->dir, f->name, strerror(errno));
        strbuf_printf(&b, "%s\n", f->name);
        free(f);
    }
    if (names)
        *names = b.s;
    else
        free(b.s);
    free(l->files);
    free(l->jobs);
    free(l);
    return rc;
}
