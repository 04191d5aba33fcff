/*
 * librbd.h - fio's rbd engine on librbd (client_ops "librbd"): fio workers and
 * their I/O units, the image each client opened (librbd::ImageCtx: its
 * scheduler, copy-up and object-map state, its exclusive lock), librbd's
 * dispatch, write-around cache and copy-up, and the Objecter (librbd.c and
 * exclusive_lock.c say what they mirror).
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
    sim_time_t t_blocked;    /* when the exclusive-lock layer queued it (0 = never) */
    bool lock_admitted;      /* let through when the lock came: being dispatched again */
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
    uint64_t io_limit;       /* bytes a job that is not time_based does: io_size, io_size=N% of
                                the region (fio's setup_files: io_size_percent), else the region */
    uint64_t issued, bytes_issued, completed;
    uint32_t inflight;
    bool stopped;
    sim_time_t next_rate_t;  /* rate_iops / thinktime pacing: issue resumes then */
    /* thinktime (fio handle_thinktime): a stall is due / the I/O after one */
    bool think_pending, think_resumed;
    uint64_t think_last_blocks;
    sim_time_t think_last_t;
    sim_time_t t_start;
    /* fio's getevents batches: completions waiting on the fio thread, and how many of the
       batch being reaped are still to come */
    uint32_t completions_queued, reap_left;
    /* the fio thread's CPU and wake-ups when measuring started (fio resets its rusage then) */
    double busy_ns_at_start;
    uint64_t wakeups_at_start;
};

/* This client's librbd state of one data object of its image. */
struct rbd_obj {
    /* SimpleSchedulerObjectDispatch */
    uint32_t inflight_writes;
    struct rados_op *held;   /* held writes, merged (one pending batch) */
    /* CopyupRequest in progress (ImageCtx::copyup_list), and the writes waiting on it */
    struct rados_op *copyup_op;       /* the write whose CopyupRequest is in flight */
    bool copyup_sent;                 /* [call rbd.copyup, ...] already sent */
    struct rados_op *copyup_waiters;  /* appended before it was sent: ride along */
    struct rados_op *copyup_late;     /* appended after: re-sent once it completes */
};

/* ManagedLock / ExclusiveLock states (librbd/ManagedLock.h), as far as the model goes. */
enum rbd_lock_state {
    RBD_LOCK_UNLOCKED,
    RBD_LOCK_ACQUIRING,        /* Pre/AcquireRequest, then PostAcquireRequest (object map open) */
    RBD_LOCK_WAITING_FOR_LOCK, /* RequestLock sent to the owner; a peer notification resumes it */
    RBD_LOCK_LOCKED,
    RBD_LOCK_PRE_RELEASING,    /* PreReleaseRequest: writes blocked, in-flight drained, object map closed */
    RBD_LOCK_RELEASING,        /* ReleaseRequest: lock.unlock on the header */
};

/* Counters of one client's exclusive lock, over the whole run. */
struct rbd_lock_stats {
    uint64_t acquisitions;       /* became lock owner (the set-up owner counts once) */
    uint64_t releases;           /* released it (to a peer's RequestLock) */
    uint64_t requests_sent;      /* RequestLock notifications sent */
    uint64_t requests_received;  /* RequestLock from a peer while owner */
    uint64_t lock_busy;          /* lock.lock answered -EBUSY */
    uint64_t notifies_sent, notifies_received;
    uint64_t writes_blocked;     /* writes the exclusive-lock layer queued */
    sim_time_t blocked_ns;       /* summed time they waited */
};

/*
 * librbd::ImageCtx: one client's open image.  fio's rbd engine opens its own
 * rados connection and image in every job thread, so each client has exactly
 * one; everything here is private to that client (the OSD-side truth is in
 * rados.h).
 */
struct rbd_image_ctx {
    struct image *img;
    struct idmap objs;           /* objno -> struct rbd_obj, created on first touch */
    /* the exclusive lock (exclusive_lock.c) */
    enum rbd_lock_state lock_state;
    int lock_step;               /* the RADOS step in flight (exclusive_lock.c) */
    bool acquire_queued;         /* an acquire waits behind the release in progress */
    bool wait_notifies;          /* a step waits for ImageWatcher::flush (pending notifies) */
    uint32_t locker;             /* GetLockerRequest: client id + 1 of the holder, 0 = none */
    uint32_t notifies_pending;   /* Notifier: notifies sent, not completed */
    uint64_t writes_inflight;    /* object write requests past the lock layer, not finished */
    struct fio_io *blocked, *blocked_tail; /* exclusive_lock::ImageDispatch m_on_dispatches */
    uint64_t request_timer;      /* the pending schedule_request_lock timer (0 = none) */
    uint64_t request_gen;        /* timers armed so far */
    struct rbd_lock_stats lock;
};

struct client {
    struct cluster *c;
    const struct client_ops *ops;   /* librbd (room for krbd) */
    uint32_t id;             /* client.<4100 + id> */
    uint32_t host;
    struct cpu_pool io_context;  /* librbd's io_context_pool (op work queue before 16.2) */
    /* librados' finisher ("fn-radosclient"): before Pacific, librbd's I/O went
       through librados::AioCompletion, whose callbacks RadosClient::finisher
       runs; Pacific's asio IO path (ceph PR 35629) completes on io_context */
    struct cpu_pool rados_finisher;
    bool completes_on_finisher;
    struct cpu_pool *msgr;       /* ms_async_op_threads, one thread each */
    struct throttle objecter;    /* objecter_inflight_ops / _op_bytes */
    struct objecter_perf operf;  /* its Objecter's perf counters (perfcounters.h) */
    struct fio_worker *workers;
    uint32_t n_workers;
    uint64_t next_tid;
    struct rbd_image_ctx ictx;   /* the image it opened */
    /* krbd: the client holding the mapped device (rbd_dev: its blk-mq tags,
       rbd_wq, libceph client and OSD connections): itself, or the first job
       clone on the same /dev/rbdN of the host (krbd_client_join) */
    struct client *mapping;
    double cpu_ns_at_start;      /* ops->cpu_ns when the measured interval began */
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
    /* fio reaches it through a block device (libaio / io_uring syscalls into
       blk-mq), not librbd's API: fio's per-I/O costs are the kernel engines' */
    bool block_engine;
    /* fio's io_u handed to the client once submitted (its iodepth slot taken);
       NULL = librbd's rbd_aio_write/read path */
    void (*submit_io)(struct client *cl, struct fio_io *io);
    /* net delivery of the MOSDOpReply for a rados_op (obj) at the client */
    sim_event_fn reply_delivered;
    /* net delivery of an MWatchNotify for the notify rados_op obj at watcher
       client arg (a struct client *) */
    sim_event_fn watch_notify_delivered;
    /* net delivery of NOTIFY_COMPLETE for the notify obj at its notifier */
    sim_event_fn notify_complete_delivered;
    /* the thread reading its connection to OSD osd when that is an epoll
       reader (librbd's msgr-worker, where net.core.busy_poll applies), else
       NULL (the kernel client's ceph-msgr kworker reads without blocking) */
    struct cpu_pool *(*rx_worker)(struct client *cl, uint32_t osd);
    /* CPU time of the threads this client owns (fio's, and its library's or
       mapping's), since they were created (ns) */
    double (*cpu_ns)(const struct client *cl);
};
extern const struct client_ops librbd_client_ops;
extern const struct client_ops krbd_client_ops; /* krbd.c: the kernel client */
/* A further fio job (clone) on a device mapping already has: cl runs its
   workers, mapping's queues and connections carry their I/O (krbd.c). */
void krbd_client_join(struct client *cl, struct client *mapping);

/* ---- librbd.c, for the client kinds: fio's side of every client ---- */

/* CPU time of cl's fio threads since they were created (ns). */
double client_workers_cpu_ns(const struct client *cl);
/* One object request of io finished (rop's milestones kept); the last one hands io to fio. */
void client_io_part_done(struct client *cl, struct fio_io *io, const struct rados_op *rop);
/* Start every worker of cl after its startdelay. */
void client_start_workers(struct client *cl);

/* ---- librbd.c, for exclusive_lock.c ---- */

/* Send rop (a lock / watch op of cl) through the Objecter. */
void librbd_objecter_send(struct client *cl, struct rados_op *rop);
/* A new rados op of cl on the object obj of img. */
struct rados_op *librbd_rop_new(struct client *cl, struct image *img, struct obj_state *obj, enum rados_kind kind);
void librbd_rop_free(struct client *cl, struct rados_op *rop);
/* Dispatch a write the exclusive-lock layer held back (on the io_context). */
void librbd_redispatch(struct client *cl, struct fio_io *io);

/* ---- exclusive_lock.c: ExclusiveLock, ImageWatcher, ObjectMap open/close ---- */

/* Set up cl's lock state; owner: cl holds the lock (and its object map) at t = 0. */
void exclusive_lock_init(struct client *cl, bool owner);
/* exclusive_lock::ImageDispatch for a write: true = go on; false = queued
   until cl owns the lock (it is requested now). */
bool exclusive_lock_admit_write(struct client *cl, struct fio_io *io);
/* The write io that went on has its object requests started. */
void exclusive_lock_write_dispatched(struct client *cl, struct fio_io *io);
/* An object write request of cl passed the lock layer / finished (PreReleaseRequest waits for them). */
void exclusive_lock_write_started(struct client *cl);
void exclusive_lock_write_finished(struct client *cl);
/* Does this op use the object map (feature on and cl owns the lock)? */
bool exclusive_lock_object_map(const struct client *cl);
/* The reply of one of cl's lock / watch ops, on the io_context thread. */
void exclusive_lock_completed(struct client *cl, struct rados_op *rop);
/* An MWatchNotify / NOTIFY_COMPLETE, on the io_context thread of cl. */
void exclusive_lock_handle_notify(struct client *cl, struct rados_op *notify);
void exclusive_lock_notify_complete(struct client *cl, struct rados_op *notify);


#endif
