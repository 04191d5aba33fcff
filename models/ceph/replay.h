/*
 * replay.h - drive the simulated client from a captured trace instead of a fio job
 * (`cephsim replay`).
 *
 * A trace is a list of image I/Os with arrival times: a fio iolog (v2: "wait" lines,
 * v3: timestamps) or the primary osd_op writes/reads of op-tracker dumps
 * (dump_historic_ops: arrival = initiated_at, image offset = object number x object
 * size + the op's extent).  They enter the full model through a *port*: a fio
 * worker without a job on client 0's host, whose thread pays fio's submit and
 * completion CPU and whose I/Os go through librbd, the Objecter and the OSDs like a
 * job's.  Open loop issues each I/O at its recorded arrival time (relative to the
 * first); closed loop keeps iodepth I/Os in flight in recorded order, like fio's
 * read_iolog with replay_no_stall.
 *
 * The port is the entry point proposed for cluster.h (as cluster_submit_io(c, t,
 * ddir, offset, len, done, ctx) once struct client owns a port); librbd.c provides
 * client_issue_io() and calls replay_io_done() for a job-less worker's I/Os.
 */
#ifndef CEPHSIM_MODELS_REPLAY_H
#define CEPHSIM_MODELS_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "err.h"

/* One I/O of a trace. */
struct replay_io {
    int64_t t_ns;      /* arrival, ns (any origin) */
    int ddir;          /* FIO_DDIR_READ / FIO_DDIR_WRITE */
    uint64_t offset, len;
};

struct replay_trace {
    struct replay_io *ios;
    size_t n, cap;
    size_t skipped;    /* records that are not reads or writes (sync, trim, stat-only ops...) */
};

/* Append one I/O (synthetic traces, tests). */
void replay_trace_add(struct replay_trace *tr, int64_t t_ns, int ddir, uint64_t offset, uint64_t len);
/* Sort by arrival time, keeping the recorded order of equal times. */
void replay_trace_sort(struct replay_trace *tr);
void replay_trace_free(struct replay_trace *tr);

/* ---- the port: I/Os handed to a cluster one by one ---- */

struct replay_port;
struct fio_worker;
struct fio_io;

/* Completion of an I/O submitted with tag (when fio would reap it). */
typedef void (*replay_done_fn)(void *ctx, uint64_t tag, sim_time_t t_issue, sim_time_t t_done);

/* A job-less fio worker on the host of client `client`, recording into that client's
   first job result slot; done(ctx, ...) is called for each completed I/O. */
struct replay_port *replay_port_open(struct cluster *c, uint32_t client, replay_done_fn done, void *ctx);
void replay_port_close(struct replay_port *p);
/* Issue an I/O of the image at simulated time t (>= now; now if earlier): the fio thread's
   submit CPU, then librbd's dispatch as for a job's I/O.  Its t_issue is exactly t. */
void replay_submit_io(struct replay_port *p, sim_time_t t, int ddir, uint64_t offset, uint64_t len,
                      uint64_t tag);
/* I/Os submitted and not yet completed. */
uint64_t replay_port_inflight(const struct replay_port *p);

/* librbd.c: issue one I/O on a job-less worker now (see replay.c for the contract). */
struct fio_io *client_issue_io(struct fio_worker *w, int ddir, uint64_t offset, uint64_t len);
/* Called by librbd.c when an I/O of a job-less worker completes (before fio's completion CPU). */
void replay_io_done(struct fio_worker *w, struct fio_io *io, sim_time_t now);

/* ---- a whole replay ---- */

enum replay_mode { REPLAY_OPEN, REPLAY_CLOSED };

struct replay_opts {
    enum replay_mode mode;
    uint32_t iodepth;        /* closed loop: I/Os in flight */
    double speed;            /* open loop: arrival times divided by this (1 = as recorded) */
    double max_s;            /* simulated-time limit after the last arrival (drain), s */
};

struct replay_result {
    size_t n, n_done;
    sim_time_t *t_issue, *t_done; /* per trace I/O (simulated ns; t_done 0 if not done) */
    sim_time_t makespan;     /* first issue -> last completion */
    double iops, lat_mean_us, lat_p50_us, lat_p99_us; /* issue -> completion */
};

/*
 * Build the cluster of spec, keep its fio jobs idle, replay tr through client 0 and run
 * until every I/O completed (or max_s after the last arrival).  On success *out is the
 * finished cluster (results, perf counters, op dumps; caller destroys it) unless out is NULL.
 */
int replay_run(const struct cluster_spec *spec, const struct replay_trace *tr, const struct replay_opts *o,
               struct replay_result *res, struct cluster **out, struct sim_err *err);
void replay_result_free(struct replay_result *res);

#endif
