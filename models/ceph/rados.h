/*
 * rados.h - what a client and the OSDs share: RADOS objects of an image (the
 * OSD's truth, the primary's object context and librbd's view of each) and
 * the Objecter op that travels between them.
 */
#ifndef CEPHSIM_MODELS_CEPH_RADOS_H
#define CEPHSIM_MODELS_CEPH_RADOS_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster.h"
#include "queueing.h"

struct client;
struct fio_io;

/* message sizes both ends of a client op use */
#define MSG_HEADER_BYTES 320   /* MOSDOp front + msgr2 frame [est], ceph-model.md 3.5 */
#define REPLY_BYTES 220        /* MOSDOpReply / MOSDRepOpReply [est] */

/* Per RADOS object of an image: OSD-side truth, the primary's object context,
   and librbd's view (object map, scheduler, copy-up). */
struct obj_state {
    uint32_t pg;
    bool exists;             /* the object exists in RADOS (copied up / written) */
    bool map_exists;         /* librbd object map: OBJECT_EXISTS */
    struct rwlockq lock;     /* ObjectContext::rwstate on the primary */
    /* librbd SimpleSchedulerObjectDispatch */
    uint32_t inflight_writes;
    struct rados_op *held;   /* held writes, merged (one pending batch) */
    /* librbd CopyupRequest in progress, and the writes waiting on it */
    struct rados_op *copyup_op;       /* the write whose CopyupRequest is in flight */
    bool copyup_sent;                 /* [call rbd.copyup, ...] already sent */
    struct rados_op *copyup_waiters;  /* appended before it was sent: ride along */
    struct rados_op *copyup_late;     /* appended after: re-sent once it completes */
};

struct image {
    struct image_spec spec;
    uint64_t object_size;
    uint64_t n_objects;
    struct obj_state *obj;
    struct image *parent;    /* clone: the parent image (objects all exist) */
    uint32_t map_object_pg;  /* PG of rbd_object_map.<id> */
    struct obj_state map_obj; /* the object map object itself (locks) */
};

enum rados_kind {
    RADOS_WRITE,         /* data write (maybe guarded) */
    RADOS_STAT,          /* stat round trip (guard design stat_roundtrip) */
    RADOS_READ,
    RADOS_PARENT_READ,   /* copy-up: read the parent object */
    RADOS_MAP_UPDATE,    /* object map update on rbd_object_map.<id> */
    RADOS_COPYUP,        /* [call rbd.copyup, write] */
};

/* One Objecter op: what goes to a primary OSD and comes back. */
struct rados_op {
    struct rados_op *next;   /* held / copy-up waiter lists */
    struct client *cl;
    struct image *img;
    uint64_t objno;
    struct obj_state *obj;
    enum rados_kind kind;
    uint32_t subops;         /* enum osd_subop */
    uint64_t off, len;       /* extent within the object */
    uint64_t tid;
    int result;              /* 0 or -ENOENT */
    struct fio_io *ios;      /* the fio I/Os this op completes (merged writes) */
    struct rados_op *copyup_parent; /* parent read / map update: the copy-up it serves */
    uint64_t acked_early;    /* write-around: bytes already acknowledged to fio */
    uint64_t copyup_extra;   /* copy-up: bytes of the pending writes appended to it */
    uint32_t primary;        /* OSD id */
    sim_time_t t_sent, t_reply_rx;
    /* the primary's milestones, for the waterfall */
    sim_time_t t_initiated, t_reached, t_started, t_subops, t_op_commit, t_sub_commit,
        t_commit_sent;
    sim_time_t t_rep[3];     /* the slowest replica: initiated, started, commit_sent */
};

#endif
