/*
 * exclusive_lock.c - librbd's exclusive lock between the clients of one image,
 * with the ImageWatcher notifications that move it and the object map that
 * follows it (API in librbd.h).
 *
 * Mirrors (ceph/ceph src/librbd):
 *  - exclusive_lock/ImageDispatch.cc: with the feature on, a write while the
 *    lock is "required" (not owned) is queued (m_on_dispatches) and
 *    ExclusiveLock::acquire_lock is called; the queue is re-dispatched once
 *    the lock is owned.  Reads do not need it (no journaling or
 *    copy-on-read).
 *  - ManagedLock.cc + managed_lock/AcquireRequest.cc: PreAcquireRequest
 *    (ImageWatcher::flush: the client's own notifies must have completed),
 *    GetLockerRequest ([call lock.get_info] on rbd_header.<id>), then
 *    [call lock.lock]; -EBUSY with an unknown locker re-reads the locker,
 *    with a known one BreakRequest lists the watchers ([list-watchers]) and,
 *    the locker being alive, gives -EAGAIN.
 *  - ExclusiveLock.cc post_acquire_lock_handler: -EBUSY / -EAGAIN -> state
 *    WAITING_FOR_LOCK and ImageWatcher::notify_request_lock (a RequestLock
 *    notify that the owner answers); a peer's AcquiredLock or ReleasedLock
 *    notification (handle_peer_notification) or a RequestLock nobody owned
 *    (-ETIMEDOUT) runs the acquire again; an owner's ack (r = 0) arms a
 *    retry after client_notify_timeout (ImageWatcher::handle_request_lock).
 *  - exclusive_lock/PostAcquireRequest.cc: ObjectMap::open =
 *    object_map::RefreshRequest: [call lock.lock] on rbd_object_map.<id>
 *    (LockRequest) and [call rbd.object_map_load] (the whole map object);
 *    then handle_post_acquired_lock: notify AcquiredLock, unset the lock
 *    requirement, re-dispatch the queued writes.  Only then (STATE_LOCKED)
 *    does ExclusiveLock::accept_request release the lock to a peer.
 *  - ImageWatcher.cc handle_payload(RequestLockPayload): the owner answers
 *    r = 0 and, if it accepts (LOCKED), StandardPolicy::lock_requested
 *    releases: exclusive_lock/PreReleaseRequest.cc blocks new writes
 *    (set_require_lock), flushes and waits for the in-flight ones, flushes
 *    its notifies, ObjectMap::close ([call lock.unlock] on the map object);
 *    managed_lock/ReleaseRequest [call lock.unlock] on the header; then
 *    post_release_lock_handler notifies ReleasedLock.  Writes that arrived
 *    meanwhile queue an acquire behind the release (ManagedLock actions).
 *  - the object map is used for an op only by the owner
 *    (AbstractObjectWriteRequest: object_map_may_exist asserts ownership);
 *    the owner's copy is the on-disk map it loaded, kept in step by its own
 *    updates, so the model reads the image's map bits directly.
 * Every step is a RADOS op through the client's Objecter and the primary of
 * the header (or map) object, and every notify is an op on the header's
 * primary plus an MWatchNotify to each watcher and a NOTIFY_ACK op back
 * from each (cls.c), so lock hand-overs cost what they cost on a cluster.
 * Simplifications: the image is opened (and watched) before the run, and
 * the first writing client of each image owns the lock at t = 0 (the
 * acquisition a real first write pays, ~4 round trips, falls in fio's
 * ramp); no image refresh after acquisition (RefreshRequest runs only when
 * a header update was seen, and lock moves update nothing), no journaling,
 * no lock breaking of dead owners, no blocklisting, no exclusive-lock
 * policy but StandardPolicy (rbd_lock_acquire's manual modes), and the
 * SimpleScheduler's held writes are not pushed out by the release's flush
 * (they go when the write before them completes, one write later).
 */
#include <errno.h>

#include "librbd.h"

#include "cluster-internal.h"
#include "err.h"
#include "optracker.h"

/* the RADOS step of the lock machine in flight, or waited for */
enum lock_step {
    STEP_NONE,
    STEP_PRE_ACQUIRE_FLUSH,  /* PreAcquireRequest: ImageWatcher::flush */
    STEP_GET_LOCKER,
    STEP_LOCK,
    STEP_LIST_WATCHERS,      /* BreakRequest::send_get_watchers */
    STEP_MAP_LOCK,           /* ObjectMap::open */
    STEP_MAP_LOAD,
    STEP_DRAIN,              /* PreReleaseRequest: in-flight writes */
    STEP_PRE_RELEASE_FLUSH,  /* PreReleaseRequest::send_flush_notifies */
    STEP_MAP_UNLOCK,         /* ObjectMap::close */
    STEP_UNLOCK,             /* ReleaseRequest */
};

static bool is_owner(const struct rbd_image_ctx *x)
{
    /* ManagedLock::is_lock_owner: LOCKED, POST_ACQUIRING, PRE_RELEASING */
    return x->lock_state == RBD_LOCK_LOCKED || x->lock_state == RBD_LOCK_PRE_RELEASING;
}

static bool has_feature(const struct client *cl)
{
    return cl->ictx.img->spec.exclusive_lock;
}

static bool has_object_map(const struct client *cl)
{
    const struct image_spec *sp = &cl->ictx.img->spec;
    return sp->exclusive_lock && sp->object_map;
}

bool exclusive_lock_object_map(const struct client *cl)
{
    return has_object_map(cl) && is_owner(&cl->ictx);
}

/* One lock or watch op of cl on obj (the header or the map object). */
static struct rados_op *lock_op(struct client *cl, struct obj_state *obj, enum rados_kind kind)
{
    struct image *img = cl->ictx.img;
    struct rados_op *rop = librbd_rop_new(cl, img, obj, kind);
    rop->track_object = obj == &img->header ? OPTRACK_OBJ_HEADER : OPTRACK_OBJ_OBJECT_MAP;
    switch (kind) {
    case RADOS_LOCK_GET_INFO:
        rop->subops = SUBOP_CALL_RD;
        rop->track_subops = OPTRACK_CALL_LOCK_GET_INFO;
        break;
    case RADOS_LOCK_LOCK:
    case RADOS_MAP_LOCK:
        rop->subops = SUBOP_CALL_RDWR;
        rop->track_subops = OPTRACK_CALL_LOCK_LOCK;
        break;
    case RADOS_LOCK_UNLOCK:
    case RADOS_MAP_UNLOCK:
        rop->subops = SUBOP_CALL_RDWR;
        rop->track_subops = OPTRACK_CALL_LOCK_UNLOCK;
        break;
    case RADOS_LIST_WATCHERS:
        rop->subops = SUBOP_CALL_RD;
        rop->track_subops = OPTRACK_LIST_WATCHERS;
        break;
    case RADOS_MAP_LOAD:
        /* cls_cxx_read of the whole object: the reply carries the map */
        rop->subops = SUBOP_CALL_RD | SUBOP_READ;
        rop->len = img->map_bytes;
        rop->track_subops = OPTRACK_CALL_OBJECT_MAP_LOAD;
        break;
    case RADOS_NOTIFY:
        rop->subops = SUBOP_CALL_RD;
        rop->track_subops = OPTRACK_NOTIFY;
        break;
    case RADOS_NOTIFY_ACK:
        rop->subops = SUBOP_CALL_RD;
        rop->track_subops = OPTRACK_NOTIFY_ACK;
        break;
    default:
        SIM_ASSERT(!"not a lock op");
    }
    return rop;
}

static void step(struct client *cl, enum lock_step st, struct obj_state *obj, enum rados_kind kind)
{
    cl->ictx.lock_step = st;
    librbd_objecter_send(cl, lock_op(cl, obj, kind));
}

/* ---- ImageWatcher: notifications ---- */

/* Watcher::send_notify: an op on the header; pending until NOTIFY_COMPLETE. */
static void send_notify(struct client *cl, enum rbd_notify_op what)
{
    struct rbd_image_ctx *x = &cl->ictx;
    struct rados_op *n = lock_op(cl, &x->img->header, RADOS_NOTIFY);
    n->notify_op = what;
    x->notifies_pending++;
    x->lock.notifies_sent++;
    librbd_objecter_send(cl, n);
}

static void request_lock(struct client *cl)
{
    /* ImageWatcher::notify_request_lock: nothing to ask for as the owner */
    if (is_owner(&cl->ictx))
        return;
    cl->ictx.lock.requests_sent++;
    send_notify(cl, RBD_NOTIFY_REQUEST_LOCK);
}

static void request_timer_fired(struct sim *s, void *obj, uint64_t gen)
{
    struct client *cl = obj;
    if (cl->ictx.request_timer != gen)
        return; /* cancelled (ReleasedLock) or superseded */
    cl->ictx.request_timer = 0;
    request_lock(cl);
}

/* ImageWatcher::schedule_request_lock(true, client_notify_timeout) */
static void schedule_request_lock(struct client *cl)
{
    struct rbd_image_ctx *x = &cl->ictx;
    x->request_timer = ++x->request_gen;
    sim_time_t delay = (sim_time_t)(cl->c->spec.ceph.client_notify_timeout * 1e9);
    sim_schedule(cl->c->s, delay, request_timer_fired, cl, x->request_timer);
}

/* ---- acquire ---- */

static void acquire(struct client *cl);
static void release(struct client *cl);

/* ManagedLock::send_acquire_lock -> PreAcquireRequest (flush_notifies) */
static void acquire(struct client *cl)
{
    struct rbd_image_ctx *x = &cl->ictx;
    x->lock_state = RBD_LOCK_ACQUIRING;
    x->acquire_queued = false;
    x->lock_step = STEP_PRE_ACQUIRE_FLUSH;
    if (x->notifies_pending) {
        x->wait_notifies = true;
        return;
    }
    step(cl, STEP_GET_LOCKER, &x->img->header, RADOS_LOCK_GET_INFO);
}

/* handle_post_acquired_lock: owner; writes go */
static void acquired(struct client *cl)
{
    struct rbd_image_ctx *x = &cl->ictx;
    x->lock_state = RBD_LOCK_LOCKED;
    x->lock_step = STEP_NONE;
    x->lock.acquisitions++;
    send_notify(cl, RBD_NOTIFY_ACQUIRED_LOCK);
    /* ImageDispatch::handle_acquire_lock: every queued write restarts its
       dispatch in this same call, so it is past the lock layer (and counted
       in flight) before any notification handled later can release the lock */
    struct fio_io *io = x->blocked;
    x->blocked = x->blocked_tail = NULL;
    sim_time_t now = sim_now(cl->c->s);
    while (io) {
        struct fio_io *next = io->next;
        io->next = NULL;
        x->lock.blocked_ns += now - io->t_blocked;
        io->t_blocked = 0;
        io->lock_admitted = true;
        x->writes_inflight++; /* until its object requests are started */
        librbd_redispatch(cl, io);
        io = next;
    }
}

/* ExclusiveLock::post_acquire_lock_handler(-EBUSY / -EAGAIN) */
static void wait_for_lock(struct client *cl)
{
    cl->ictx.lock_state = RBD_LOCK_WAITING_FOR_LOCK;
    cl->ictx.lock_step = STEP_NONE;
    request_lock(cl);
}

/* ExclusiveLock::handle_peer_notification(0) */
static void peer_notification(struct client *cl)
{
    if (cl->ictx.lock_state == RBD_LOCK_WAITING_FOR_LOCK)
        acquire(cl);
}

static bool locker_alive(const struct image *img, uint32_t locker)
{
    for (uint32_t i = 0; i < img->n_watchers; i++)
        if (img->watchers[i]->id + 1 == locker)
            return true;
    return false;
}

/* ---- release ---- */

static void pre_release_flushed(struct client *cl)
{
    struct rbd_image_ctx *x = &cl->ictx;
    if (has_object_map(cl))
        step(cl, STEP_MAP_UNLOCK, &x->img->map_obj, RADOS_MAP_UNLOCK);
    else {
        x->lock_state = RBD_LOCK_RELEASING;
        step(cl, STEP_UNLOCK, &x->img->header, RADOS_LOCK_UNLOCK);
    }
}

/* PreReleaseRequest after wait_for_ops / flush_io: flush_notifies */
static void drained(struct client *cl)
{
    struct rbd_image_ctx *x = &cl->ictx;
    x->lock_step = STEP_PRE_RELEASE_FLUSH;
    if (x->notifies_pending) {
        x->wait_notifies = true;
        return;
    }
    pre_release_flushed(cl);
}

/* StandardPolicy::lock_requested -> ManagedLock::release_lock -> PreReleaseRequest */
static void release(struct client *cl)
{
    struct rbd_image_ctx *x = &cl->ictx;
    x->lock_state = RBD_LOCK_PRE_RELEASING;
    x->lock_step = STEP_DRAIN;
    if (x->writes_inflight == 0)
        drained(cl);
}

/* post_release_lock_handler, then the next queued action */
static void released(struct client *cl)
{
    struct rbd_image_ctx *x = &cl->ictx;
    x->lock_state = RBD_LOCK_UNLOCKED;
    x->lock_step = STEP_NONE;
    x->lock.releases++;
    send_notify(cl, RBD_NOTIFY_RELEASED_LOCK);
    if (x->acquire_queued || x->blocked)
        acquire(cl);
}

/* ---- the client's side ---- */

void exclusive_lock_init(struct client *cl, bool owner)
{
    struct rbd_image_ctx *x = &cl->ictx;
    x->lock_state = RBD_LOCK_UNLOCKED;
    if (!owner || !has_feature(cl))
        return;
    x->lock_state = RBD_LOCK_LOCKED;
    x->lock.acquisitions = 1;
    x->img->header.cls_lock_owner = cl->id + 1;
    if (has_object_map(cl))
        x->img->map_obj.cls_lock_owner = cl->id + 1;
}

bool exclusive_lock_admit_write(struct client *cl, struct fio_io *io)
{
    struct rbd_image_ctx *x = &cl->ictx;
    if (io->lock_admitted || !has_feature(cl) || (x->lock_state == RBD_LOCK_LOCKED && !x->blocked))
        return true;
    io->t_blocked = sim_now(cl->c->s);
    x->lock.writes_blocked++;
    io->next = NULL;
    if (x->blocked_tail)
        x->blocked_tail->next = io;
    else
        x->blocked = io;
    x->blocked_tail = io;
    if (x->lock_state == RBD_LOCK_UNLOCKED)
        acquire(cl);
    else if (x->lock_state == RBD_LOCK_PRE_RELEASING || x->lock_state == RBD_LOCK_RELEASING)
        x->acquire_queued = true;
    /* ACQUIRING / WAITING_FOR_LOCK: already on its way; LOCKED with a queue: it drains first */
    return false;
}

void exclusive_lock_write_dispatched(struct client *cl, struct fio_io *io)
{
    if (io->lock_admitted) {
        io->lock_admitted = false;
        exclusive_lock_write_finished(cl); /* its object requests count from now */
    }
}

void exclusive_lock_write_started(struct client *cl)
{
    cl->ictx.writes_inflight++;
}

void exclusive_lock_write_finished(struct client *cl)
{
    struct rbd_image_ctx *x = &cl->ictx;
    SIM_ASSERT(x->writes_inflight > 0);
    if (--x->writes_inflight == 0 && x->lock_state == RBD_LOCK_PRE_RELEASING && x->lock_step == STEP_DRAIN)
        drained(cl);
}

void exclusive_lock_completed(struct client *cl, struct rados_op *rop)
{
    struct rbd_image_ctx *x = &cl->ictx;
    enum rados_kind kind = rop->kind;
    int r = rop->result;
    uint32_t locker = rop->locker;
    if (kind == RADOS_NOTIFY) {
        rop->reply_seen = true;
        if (rop->complete_seen)
            librbd_rop_free(cl, rop);
        return;
    }
    librbd_rop_free(cl, rop);
    switch (kind) {
    case RADOS_NOTIFY_ACK:
        return;
    case RADOS_LOCK_GET_INFO:
        SIM_ASSERT(x->lock_step == STEP_GET_LOCKER);
        x->locker = locker; /* 0: "no lockers detected" (-ENOENT), lock anyway */
        step(cl, STEP_LOCK, &x->img->header, RADOS_LOCK_LOCK);
        return;
    case RADOS_LOCK_LOCK:
        SIM_ASSERT(x->lock_step == STEP_LOCK);
        if (r == 0) {
            /* PostAcquireRequest: ObjectMap::open, else straight to owner */
            if (has_object_map(cl))
                step(cl, STEP_MAP_LOCK, &x->img->map_obj, RADOS_MAP_LOCK);
            else
                acquired(cl);
            return;
        }
        SIM_ASSERT(r == -EBUSY);
        x->lock.lock_busy++;
        if (!x->locker) /* "already locked, refreshing locker" */
            step(cl, STEP_GET_LOCKER, &x->img->header, RADOS_LOCK_GET_INFO);
        else
            step(cl, STEP_LIST_WATCHERS, &x->img->header, RADOS_LIST_WATCHERS);
        return;
    case RADOS_LIST_WATCHERS:
        SIM_ASSERT(x->lock_step == STEP_LIST_WATCHERS);
        /* BreakRequest: the locker still watches the header -> -EAGAIN */
        SIM_ASSERT(locker_alive(x->img, x->locker));
        wait_for_lock(cl);
        return;
    case RADOS_MAP_LOCK:
        SIM_ASSERT(x->lock_step == STEP_MAP_LOCK && r == 0); /* the old owner closed it first */
        step(cl, STEP_MAP_LOAD, &x->img->map_obj, RADOS_MAP_LOAD);
        return;
    case RADOS_MAP_LOAD:
        SIM_ASSERT(x->lock_step == STEP_MAP_LOAD);
        acquired(cl);
        return;
    case RADOS_MAP_UNLOCK:
        SIM_ASSERT(x->lock_step == STEP_MAP_UNLOCK);
        x->lock_state = RBD_LOCK_RELEASING;
        step(cl, STEP_UNLOCK, &x->img->header, RADOS_LOCK_UNLOCK);
        return;
    case RADOS_LOCK_UNLOCK:
        SIM_ASSERT(x->lock_step == STEP_UNLOCK && r == 0);
        released(cl);
        return;
    default:
        SIM_ASSERT(!"not a lock op");
    }
}

void exclusive_lock_handle_notify(struct client *cl, struct rados_op *n)
{
    struct rbd_image_ctx *x = &cl->ictx;
    x->lock.notifies_received++;
    struct rados_op *ack = lock_op(cl, &x->img->header, RADOS_NOTIFY_ACK);
    ack->notify = n;
    bool release_now = false;
    switch ((enum rbd_notify_op)n->notify_op) {
    case RBD_NOTIFY_ACQUIRED_LOCK:
        /* potentially wake the lock state machine now that an owner advertised itself */
        peer_notification(cl);
        break;
    case RBD_NOTIFY_RELEASED_LOCK:
        if (!is_owner(x)) {
            x->request_timer = 0; /* m_task_finisher->cancel(TASK_CODE_REQUEST_LOCK) */
            peer_notification(cl);
        }
        break;
    case RBD_NOTIFY_REQUEST_LOCK:
        if (n->cl == cl || !is_owner(x))
            break; /* our own request, or not ours to give: an empty ack */
        ack->responded = true;
        ack->response = 0;
        if (x->lock_state == RBD_LOCK_LOCKED) { /* ExclusiveLock::accept_request */
            x->lock.requests_received++;
            release_now = true;
        }
        break;
    }
    librbd_objecter_send(cl, ack); /* C_NotifyAck: acknowledge_notify */
    if (release_now)
        release(cl);
}

void exclusive_lock_notify_complete(struct client *cl, struct rados_op *n)
{
    struct rbd_image_ctx *x = &cl->ictx;
    SIM_ASSERT(x->notifies_pending > 0);
    x->notifies_pending--;
    bool request = n->notify_op == RBD_NOTIFY_REQUEST_LOCK;
    /* NotifyLockOwner::handle_notify: no owner answered -> -ETIMEDOUT */
    int r = n->responded ? n->response : -ETIMEDOUT;
    n->complete_seen = true;
    if (n->reply_seen)
        librbd_rop_free(cl, n);
    if (request) {
        /* ImageWatcher::handle_request_lock */
        if (r == -ETIMEDOUT)
            peer_notification(cl); /* treat as a dead owner: test the lock again */
        else if (!is_owner(x))
            schedule_request_lock(cl); /* owner acked: resend if it never releases */
    }
    if (x->notifies_pending == 0 && x->wait_notifies) {
        x->wait_notifies = false;
        if (x->lock_step == STEP_PRE_ACQUIRE_FLUSH)
            step(cl, STEP_GET_LOCKER, &x->img->header, RADOS_LOCK_GET_INFO);
        else if (x->lock_step == STEP_PRE_RELEASE_FLUSH)
            pre_release_flushed(cl);
    }
}
