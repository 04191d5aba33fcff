/*
 * cls.c - object classes and watches at a primary OSD (API in rados.h).
 *
 * Mirrors, for the objects of an RBD image's exclusive lock:
 *  - cls_lock (src/cls/lock/cls_lock.cc): "lock" takes the exclusive lock
 *    named rbd_lock if it is free (else -EBUSY), "unlock" drops it if the
 *    caller holds it (else -ENOENT), "get_info" reads the holder; the state
 *    is an xattr of the object (here cls_lock_owner).  Both "lock" and
 *    "unlock" are CLS_METHOD_RD | CLS_METHOD_WR: replicated writes, and a
 *    failed "lock" still costs record_write_error's log-only update.
 *  - rbd.object_map_load (cls_rbd.cc): reads the object map object.
 *  - Watch / Notify (src/osd/Watch.cc, PrimaryLogPG::do_osd_op_effects): a
 *    NOTIFY sends an MWatchNotify to every watcher of the object; each
 *    watcher answers with a NOTIFY_ACK op (the lock owner's carrying its
 *    ResponseMessage); after the last ack the primary sends NOTIFY_COMPLETE
 *    (with the acks) to the notifier.
 * Simplifications: the watchers of rbd_header.<id> are the clients that
 * opened the image, registered before the run (ImageWatcher::register_watch
 * at open); no watch timeouts, pings or notify timeouts (nothing fails).
 */
#include <errno.h>

#include "librbd.h"
#include "msgr.h"
#include "osd-internal.h"

int cls_exec(struct rados_op *rop)
{
    struct obj_state *o = rop->obj;
    uint32_t me = rop->cl->id + 1;
    switch (rop->kind) {
    case RADOS_LOCK_GET_INFO:
        rop->locker = o->cls_lock_owner;
        return 0;
    case RADOS_LOCK_LOCK:
    case RADOS_MAP_LOCK:
        if (o->cls_lock_owner && o->cls_lock_owner != me)
            return -EBUSY;
        o->cls_lock_owner = me;
        return 0;
    case RADOS_LOCK_UNLOCK:
    case RADOS_MAP_UNLOCK:
        if (o->cls_lock_owner != me)
            return -ENOENT;
        o->cls_lock_owner = 0;
        return 0;
    default:
        return 0;
    }
}

void cls_watch_effects(struct osd_op *op)
{
    struct cluster *c = op_cluster(op);
    struct osd *o = op->osd;
    struct rados_op *rop = op->rop;
    if (rop->kind == RADOS_NOTIFY) {
        const struct image *img = rop->img;
        rop->acks_pending = img->n_watchers;
        /* every open handle watches the header, the notifier's own included */
        for (uint32_t i = 0; i < img->n_watchers; i++) {
            struct client *w = img->watchers[i];
            msgr_send(c, osd_worker(o, PEER_CLIENT(w->id)), MSGR_RX(c, w->ops->rx_worker(w, o->id)), o->host,
                      w->host, REPLY_BYTES, w->ops->watch_notify_delivered, rop, (uint64_t)(uintptr_t)w);
        }
        SIM_ASSERT(img->n_watchers > 0); /* the notifier watches it */
        return;
    }
    /* NOTIFY_ACK: Notify::complete_watcher, then maybe_complete_notify */
    struct rados_op *n = rop->notify;
    if (rop->responded) {
        n->responded = true;
        n->response = rop->response;
    }
    SIM_ASSERT(n->acks_pending > 0);
    if (--n->acks_pending == 0)
        msgr_send(c, osd_worker(o, PEER_CLIENT(n->cl->id)), MSGR_RX(c, n->cl->ops->rx_worker(n->cl, o->id)), o->host,
                  n->cl->host, REPLY_BYTES,
                  n->cl->ops->notify_complete_delivered, n, 0);
}
