/*
 * librbd.h - fio's rbd engine on librbd (client_ops "librbd"): fio workers and
 * their I/O units, librbd's dispatch, scheduler, write-around cache and
 * copy-up, and the Objecter (librbd.c says what it mirrors).
 */
#ifndef CEPHSIM_MODELS_CEPH_LIBRBD_H
#define CEPHSIM_MODELS_CEPH_LIBRBD_H

#include <stdbool.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>

#include "cluster.h"
#include "cpu.h"
#include "fiogen.h"
#include "queueing.h"
#include "rados.h"
#include "workload.h"

struct cluster;
struct client;

/* One fio I/O unit (an iodepth slot in flight). */
struct fio_io {
    struct fio_io *next;     /* merged into one rados_op */
    struct fio_worker *w;
    int ddir;                /* FIO_DDIR_READ / WRITE */
    uint64_t offset, len;    /* within the image */
    uint32_t parts;          /* rados ops still outstanding (object-spanning I/O) */
    sim_time_t t_issue, t_submitted;
    /* per-stage timestamps of the (last) rados op, for the waterfall */
    sim_time_t st[STAGE_COUNT + 1];
    sim_time_t rep[3];       /* the slowest replica's initiated, started, commit_sent */
    void *owner;             /* a replay port's request (replay.c); NULL for fio's own I/Os */
};

/* One fio job clone (numjobs makes several): a closed loop of iodepth I/Os. */
struct fio_worker {
    struct client *cl;
    const struct workload_job *job;
    uint32_t index;          /* job result slot */
    struct cpu_pool thread;  /* the fio thread */
    struct fiogen gen;       /* direction, offset, block size of the next I/O */
    uint64_t region_off, region_len;
    uint64_t issued, bytes_issued, completed;
    uint32_t inflight;
    bool stopped;
    sim_time_t next_rate_t;  /* rate_iops / thinktime pacing: issue resumes then */
    /* thinktime (fio handle_thinktime): a stall is due / the I/O after one */
    bool think_pending, think_resumed;
    uint64_t think_last_blocks;
    sim_time_t think_last_t;
    sim_time_t t_start;
};

struct client {
    struct cluster *c;
    const struct client_ops *ops;   /* librbd (room for krbd) */
    uint32_t id;             /* client.<4100 + id> */
    uint32_t host;
    struct cpu_pool io_context;  /* librbd rbd_op_threads */
    struct cpu_pool *msgr;       /* ms_async_op_threads, one thread each */
    struct throttle objecter;    /* objecter_inflight_ops / _op_bytes */
    struct fio_worker *workers;
    uint32_t n_workers;
    uint64_t next_tid;
    /* LatencyStats of SimpleSchedulerObjectDispatch: writes completed so far */
    uint64_t sched_samples;
    /* WriteAroundObjectDispatch: bytes acknowledged to fio but still in flight */
    uint64_t writearound_bytes;
};

/*
 * The client seam (librbd, a kernel client...): how the cluster starts a
 * client's workers and hands it its replies, in the style of fio's
 * ioengine_ops.  Adding a client kind is adding a file with its table.
 */
struct client_ops {
    const char *name;
    void (*init)(struct client *cl, struct cluster *c, uint32_t id, uint32_t host);
    void (*fini)(struct client *cl);
    /* start the workers' closed loops (after set-up) */
    void (*start)(struct client *cl);
    /* net delivery of the MOSDOpReply for a rados_op (obj) at the client */
    sim_event_fn reply_delivered;
};
extern const struct client_ops librbd_client_ops;


#endif
