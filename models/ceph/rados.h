/*
 * rados.h - what a client and the OSDs share: the RADOS objects of the images
 * (each one's OSD-side truth and the primary's object context), the images
 * themselves (data objects created on first touch, the header object that
 * carries the exclusive lock and the watches, the object map object) and the
 * Objecter op that travels between a client and a primary.
 */
#ifndef CEPHSIM_MODELS_CEPH_RADOS_H
#define CEPHSIM_MODELS_CEPH_RADOS_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster.h"
#include "idmap.h"
#include "queueing.h"

struct client;
struct cluster;
struct fio_io;
struct osd_op;
struct rbd_obj;

/* message sizes both ends of a client op use */
#define MSG_HEADER_BYTES 320   /* MOSDOp front + msgr2 frame [est], ceph-model.md 3.5 */
#define REPLY_BYTES 220        /* MOSDOpReply / MOSDRepOpReply / MWatchNotify [est] */

/* One RADOS object as the OSDs know it: shared by every client (created on
   first touch for data objects, see image_object). */
struct obj_state {
    uint64_t objno;
    uint32_t pg;
    bool exists;             /* the object exists in RADOS (copied up / written) */
    bool map_exists;         /* its bit in the image's object map object: OBJECT_EXISTS */
    uint32_t cls_lock_owner; /* cls_lock "rbd_lock" (header, object map): client id + 1, 0 = free */
    struct rwlockq lock;     /* ObjectContext::rwstate on the primary */
};

/* An RBD image: its spec, its objects and the clients that opened it. */
struct image {
    struct image_spec spec;  /* id = rbd_data.<id hex> */
    char name[64];           /* what fio's rbdname finds it by ("" = any name) */
    uint32_t index;
    uint64_t object_size;
    uint64_t n_objects;
    struct idmap objs;       /* objno -> struct obj_state, created on first touch */
    uint64_t copied_up_key;  /* clone: which objects were copied up before the run */
    struct image *parent;    /* clone: the parent image (objects all exist) */
    struct obj_state header; /* rbd_header.<id>: the exclusive lock, the watches */
    struct obj_state map_obj; /* rbd_object_map.<id> */
    uint64_t map_bytes;      /* object map object: 2 bits per object (BitVector<2>) + header */
    struct client **watchers; /* the clients that opened it: one ImageWatcher watch each */
    uint32_t n_watchers;
};

/* The object's OSD-side state, created (placed on its PG, existence decided)
   the first time anything touches it.  Owned by img; valid until cluster_destroy. */
struct obj_state *image_object(struct cluster *c, struct image *img, uint64_t objno);

enum rados_kind {
    RADOS_WRITE,         /* data write (maybe guarded) */
    RADOS_STAT,          /* stat round trip (guard design stat_roundtrip) */
    RADOS_READ,
    RADOS_PARENT_READ,   /* copy-up: read the parent object */
    RADOS_MAP_UPDATE,    /* object map update on rbd_object_map.<id> */
    RADOS_COPYUP,        /* [call rbd.copyup, write] */
    /* the exclusive lock (exclusive_lock.c) and watch/notify, on rbd_header.<id> */
    RADOS_LOCK_GET_INFO, /* [call lock.get_info]: GetLockerRequest */
    RADOS_LOCK_LOCK,     /* [call lock.lock]: AcquireRequest::send_lock */
    RADOS_LOCK_UNLOCK,   /* [call lock.unlock]: ReleaseRequest */
    RADOS_LIST_WATCHERS, /* [list-watchers]: BreakRequest, is the locker alive */
    RADOS_NOTIFY,        /* [notify]: Watcher::send_notify */
    RADOS_NOTIFY_ACK,    /* [notify-ack]: a watcher's answer */
    /* on rbd_object_map.<id> (ObjectMap::open / close) */
    RADOS_MAP_LOCK,      /* [call lock.lock]: object_map::LockRequest */
    RADOS_MAP_LOAD,      /* [call rbd.object_map_load]: object_map::RefreshRequest */
    RADOS_MAP_UNLOCK,    /* [call lock.unlock]: object_map::UnlockRequest */
};

/* ImageWatcher notification payloads (watch_notify::NotifyOp) */
enum rbd_notify_op { RBD_NOTIFY_ACQUIRED_LOCK, RBD_NOTIFY_RELEASED_LOCK, RBD_NOTIFY_REQUEST_LOCK };

/* One Objecter op: what goes to a primary OSD and comes back. */
struct rados_op {
    struct rados_op *next;   /* held / copy-up waiter lists */
    struct client *cl;
    struct image *img;
    uint64_t objno;
    struct obj_state *obj;   /* the object at the OSDs */
    struct rbd_obj *cobj;    /* this client's librbd state of a data object (writes) */
    enum rados_kind kind;
    uint32_t subops;         /* enum osd_subop */
    uint32_t track_subops;   /* lock / watch ops: the op vector as the op tracker prints it */
    uint8_t track_object;    /* enum optrack_object */
    uint64_t off, len;       /* extent within the object */
    uint64_t tid;
    int result;              /* 0 or -errno */
    struct fio_io *ios;      /* the fio I/Os this op completes (merged writes) */
    struct rados_op *copyup_parent; /* parent read / map update: the copy-up it serves */
    uint64_t acked_early;    /* write-around: bytes already acknowledged to fio */
    uint64_t copyup_extra;   /* copy-up: bytes of the pending writes appended to it */
    uint64_t copyup_bytes;   /* copy-up: parent data it carries (CopyupRequest::prepare_copyup_data) */
    uint32_t primary;        /* OSD id */
    /* watch/notify and cls_lock (exclusive_lock.c, cls.c) */
    int notify_op;           /* NOTIFY, NOTIFY_ACK: enum rbd_notify_op */
    struct rados_op *notify; /* NOTIFY_ACK: the notify it answers */
    uint32_t acks_pending;   /* NOTIFY: watchers that have not acked yet (at the primary) */
    bool responded;          /* NOTIFY_ACK: carries a ResponseMessage; NOTIFY: one came back */
    int response;            /* its result */
    bool reply_seen, complete_seen; /* NOTIFY: MOSDOpReply and NOTIFY_COMPLETE at the notifier */
    uint32_t locker;         /* LOCK_GET_INFO: the holder (client id + 1), 0 = none */
    sim_time_t t_sent, t_reply_rx;
    /* the primary's milestones, for the waterfall */
    sim_time_t t_initiated, t_reached, t_started, t_subops, t_op_commit, t_sub_commit,
        t_commit_sent;
    sim_time_t t_rep[3];     /* the slowest replica: initiated, started, commit_sent */
};

/*
 * cls.c - the object classes and watch state at a primary (cls_lock's lock,
 * unlock and get_info, list_watchers, the object map load): run when op holds
 * the object context lock; the result (0 or -errno) is the op's.
 */
int cls_exec(struct rados_op *rop);
/* do_osd_op_effects of a NOTIFY (an MWatchNotify to every watcher) or a
   NOTIFY_ACK (the notify completes when the last watcher acked). */
void cls_watch_effects(struct osd_op *op);

#endif
