/*
 * krbd.c - fio jobs on the kernel client (client_ops "krbd"): libaio, io_uring
 * or psync on a mapped /dev/rbdN instead of fio's rbd engine.
 *
 * Mirrors Linux drivers/block/rbd.c and net/ceph/osd_client.c (the path of a
 * 6.1 kernel, Debian 12's):
 *  - rbd_queue_rq (blk-mq .queue_rq, in fio's io_submit) takes one of the
 *    mapping's blk-mq tags (rbd map -o queue_depth, default 128: I/Os past it
 *    wait) and queue_work()s the request on rbd_wq, a per-CPU workqueue: a
 *    kworker of the submitting core runs rbd_queue_workfn ->
 *    rbd_img_fill_from_bio (one object request per object extent) ->
 *    rbd_img_handle_request -> rbd_obj_handle_request -> rbd_osd_submit ->
 *    ceph_osdc_start_request (calc_target: CRUSH; encode_request).
 *  - libceph's messenger: one ceph_connection (socket) per OSD, whose con_work
 *    runs on the ceph-msgr workqueue; a connection's work never runs twice at
 *    once, different OSDs' connections run in parallel.  send_request queues
 *    the message on the OSD's connection (queue_con); the reply is read by the
 *    same connection's con_work, which calls osd_dispatch -> handle_reply ->
 *    rbd_osd_req_callback -> rbd_obj_handle_request -> rbd_img_handle_request
 *    -> blk_mq_end_request, and fio's io_getevents/io_uring wait wakes.
 *  - Where each runs: rbd_wq and ceph-msgr are per-CPU (bound) workqueues
 *    (alloc_workqueue(..., WQ_MEM_RECLAIM, 0) in rbd_init and ceph_msgr_init;
 *    Linux 6.17+ spells it WQ_PERCPU), and queue_work() on a bound workqueue
 *    runs the work on the CPU that queued it (__queue_work: cpu =
 *    raw_smp_processor_id()).  So a request's rbd_queue_workfn, and the
 *    con_work that writes its MOSDOp to the socket (queued from that
 *    kworker), run on the core of the fio thread that submitted it, one
 *    after the other with fio's own work: a single fio job's submissions are
 *    bounded by one core, as its own CPU is.  They are modelled as items of
 *    the fio thread (same core, its queue; no wake-up: the kworker is woken
 *    on a core already running).  The reply's con_work runs where the NIC's
 *    interrupt (softirq, ceph_sock_data_ready -> queue_con) ran: any core,
 *    serialised per connection (con_worker).  A send and a receive of the
 *    same connection may overlap here, where the kernel's non-reentrant
 *    work item would run them one after the other.
 * What librbd has and this path does not: the io_context_pool (tp_librbd)
 * thread both ways (the QueueImageDispatch hop on submit, neorados posting the
 * completion to the io_context on reply), the ImageDispatcher/object-dispatch
 * layers and the simple scheduler, and the Objecter's throttles and shared
 * ms_async_op_threads workers.  fio's own side (closed loop, statistics) is
 * librbd.c's, shared through client_io_part_done / client_start_workers.
 * Every fio job (numjobs clone) on the same /dev/rbdN of a host shares that
 * mapping: one libceph client, its blk-mq tags, rbd_wq and OSD connections
 * (krbd_client_join).  Not modelled (cluster.c refuses them): clone images
 * (rbd_obj_copyup), and a mapping writing an image another client also writes
 * (the exclusive lock handover of rbd_try_acquire_lock).
 */
#include <string.h>

#include "librbd.h"

#include "cluster-internal.h"
#include "err.h"
#include "msgr.h"
#include "osd.h"

/* The mapped device every job on it shares (rbd_dev and its libceph client). */
static struct client *dev(struct client *cl)
{
    return cl->mapping;
}

/* The ceph_connection of one OSD: its con_work, one at a time. */
static struct cpu_pool *con_worker(struct client *cl, uint32_t osd)
{
    return &dev(cl)->msgr[osd];
}

static uint32_t request_bytes(const struct rados_op *rop)
{
    return MSG_HEADER_BYTES + (rop->kind == RADOS_WRITE ? (uint32_t)rop->len : 0);
}

/* con_work has written the MOSDOp to the socket: onto the wire. */
static void con_written(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *rop = obj;
    struct cluster *c = rop->cl->c;
    net_send_polled(&c->net, rop->cl->host, c->osds[rop->primary].host, (uint32_t)arg, osd_client_op_delivered, rop, 0,
                    MSGR_RX(c, osd_client_worker(&c->osds[rop->primary], rop->cl->id)));
    cpu_thread_release(th);
}

/* con_work -> try_write: prepare_write_message, then ceph_tcp_sendmsg /
   sendpage of header, front, data and footer (crc32c of the data unless
   nocrc), on the core that queued it: the submitting fio thread's. */
static void con_write(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *rop = obj;
    struct cluster *c = rop->cl->c;
    const struct stage_costs *k = &c->spec.cost;
    uint32_t bytes = (uint32_t)arg;
    double crc = c->spec.ceph.ms_crc_data ? k->msgr_crc_us_per_kib * bytes / 1024.0 : 0;
    /* the kernel's messenger: no Ceph debug log (stage_cost) */
    cpu_exec(th, k->krbd_con_send_us + crc + net_tx_cpu_us(&c->net, bytes), con_written, rop, arg);
}

/* send_request: the MOSDOp is queued on the primary's connection (queue_con),
   whose con_work writes it on this core (the header comment). */
static void osdc_send(struct client *cl, struct fio_io *io, struct rados_op *rop)
{
    struct cluster *c = cl->c;
    rop->primary = cluster_acting(c, rop->obj->pg)[0];
    rop->tid = ++dev(cl)->next_tid; /* one libceph client: one tid sequence */
    rop->t_sent = sim_now(c->s);
    rop->result = 0;
    rop->t_initiated = rop->t_reached = rop->t_started = rop->t_subops = 0;
    rop->t_op_commit = rop->t_sub_commit = rop->t_commit_sent = 0;
    cpu_pool_submit(&io->w->thread, CPU_PRIO_HIGH, con_write, rop, request_bytes(rop));
}

/* rbd_img_fill_from_bio + rbd_osd_submit: one OSD request per object extent. */
static void img_dispatched(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct fio_io *io = obj;
    struct client *cl = io->w->cl;
    struct image *img = cl->ictx.img;
    uint64_t off = io->offset, end = io->offset + io->len;
    while (off < end) {
        uint64_t objno = off / img->object_size;
        uint64_t obj_off = off % img->object_size;
        uint64_t len = img->object_size - obj_off;
        if (len > end - off)
            len = end - off;
        bool read = io->ddir == FIO_DDIR_READ;
        struct rados_op *rop = librbd_rop_new(cl, img, image_object(cl->c, img, objno),
                                              read ? RADOS_READ : RADOS_WRITE);
        rop->objno = objno;
        rop->off = obj_off;
        rop->len = len;
        rop->ios = io;
        rop->subops = read ? SUBOP_READ : SUBOP_WRITE;
        off += len;
        osdc_send(cl, io, rop);
    }
    cpu_thread_release(th);
}

/* rbd_queue_workfn on the rbd_wq kworker: the image request and its object requests. */
static void queue_workfn(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct fio_io *io = obj;
    struct cluster *c = io->w->cl->c;
    uint64_t osz = io->w->cl->ictx.img->object_size;
    uint64_t parts = (io->offset % osz + io->len + osz - 1) / osz;
    io->parts = (uint32_t)parts;
    double cost = c->spec.cost.krbd_dispatch_us + (double)parts * c->spec.cost.krbd_osdc_submit_us;
    cpu_exec(th, cost, img_dispatched, io, 0);
}

/* queue_work(rbd_wq) from fio's io_submit: the kworker of fio's core, ahead of
   what the fio thread does next (the woken kworker preempts it, CFS wakeup
   preemption of a thread that mostly sleeps). */
static void tag_granted(struct sim *s, void *obj, uint64_t arg)
{
    struct fio_io *io = obj;
    cpu_pool_submit(&io->w->thread, CPU_PRIO_HIGH, queue_workfn, io, 0);
}

/* rbd_queue_rq: a blk-mq tag, then queue_work(rbd_wq). */
static void krbd_submit_io(struct client *cl, struct fio_io *io)
{
    if (throttle_get(&dev(cl)->objecter, cl->c->s, 0, tag_granted, io, 0))
        tag_granted(cl->c->s, io, 0);
}

/* handle_reply -> rbd_osd_req_callback -> ... -> blk_mq_end_request (on the last object). */
static void reply_handled(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *rop = obj;
    struct client *cl = rop->cl;
    struct fio_io *io = rop->ios;
    rop->ios = NULL;
    if (io->parts == 1)
        throttle_put(&dev(cl)->objecter, s, 0); /* the request ends: its tag is free */
    client_io_part_done(cl, io, rop);
    librbd_rop_free(cl, rop);
    cpu_thread_release(th);
}

/* con_work reads the MOSDOpReply (read_partial_message) and dispatches it. */
static void reply_rx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *rop = obj;
    struct cluster *c = rop->cl->c;
    rop->t_reply_rx = sim_now(s);
    uint32_t bytes = REPLY_BYTES + (rop->kind == RADOS_READ && rop->result == 0 ? (uint32_t)rop->len : 0);
    cpu_exec(th, msgr_rx_cost(c, bytes) + c->spec.cost.krbd_complete_us, reply_handled, rop, 0);
}

/* libceph's socket is read by the ceph-msgr kworker with kernel_recvmsg(...,
   MSG_DONTWAIT) when its data_ready callback queues the work: no epoll_wait,
   so net.core.busy_poll never spins for it. */
static struct cpu_pool *krbd_rx_worker(struct client *cl, uint32_t osd)
{
    return NULL;
}

static void krbd_reply_delivered(struct sim *s, void *obj, uint64_t arg)
{
    struct rados_op *rop = obj;
    cpu_pool_submit(con_worker(rop->cl, rop->primary), CPU_PRIO_NORMAL, reply_rx, rop, 0);
}

/* rbd_watch_cb: a notify to the header watch (a librbd writer of the same image
   asking for the lock, which a kernel reader does not hold), handled on con_work. */
static void notify_rx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *n = obj;
    if (arg)
        exclusive_lock_handle_notify((struct client *)(uintptr_t)arg, n);
    else
        exclusive_lock_notify_complete(n->cl, n);
    cpu_thread_release(th);
}

static void notify_received(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct rados_op *n = obj;
    cpu_exec(th, msgr_rx_cost(n->cl->c, REPLY_BYTES) + n->cl->c->spec.cost.krbd_complete_us, notify_rx, obj, arg);
}

static void krbd_watch_notify_delivered(struct sim *s, void *obj, uint64_t arg)
{
    struct rados_op *n = obj;
    struct client *w = (struct client *)(uintptr_t)arg;
    cpu_pool_submit(con_worker(w, n->primary), CPU_PRIO_NORMAL, notify_received, n, arg);
}

static void krbd_notify_complete_delivered(struct sim *s, void *obj, uint64_t arg)
{
    struct rados_op *n = obj;
    cpu_pool_submit(con_worker(n->cl, n->primary), CPU_PRIO_NORMAL, notify_received, n, 0);
}

static void krbd_init(struct client *cl, struct cluster *c, uint32_t id, uint32_t host)
{
    memset(cl, 0, sizeof *cl);
    cl->ops = &krbd_client_ops;
    cl->c = c;
    cl->id = id;
    cl->host = host;
    cl->mapping = cl;
    struct cpu_host *h = &c->hosts[host];
    cl->msgr = sim_xcalloc(c->n_osds, sizeof *cl->msgr);
    for (uint32_t i = 0; i < c->n_osds; i++)
        cpu_pool_init(&cl->msgr[i], h, "kworker-ceph-msgr", 1);
    /* the blk-mq tag set of the mapping; no Objecter throttle in libceph */
    throttle_init(&cl->objecter, (uint64_t)c->spec.ceph.krbd_queue_depth, UINT64_MAX);
    idmap_init(&cl->ictx.objs, sizeof(struct rbd_obj), 256);
}

void krbd_client_join(struct client *cl, struct client *mapping)
{
    memset(cl, 0, sizeof *cl);
    cl->ops = &krbd_client_ops;
    cl->c = mapping->c;
    cl->id = mapping->id; /* the same client.<id> at the OSDs */
    cl->host = mapping->host;
    cl->mapping = mapping;
    idmap_init(&cl->ictx.objs, sizeof(struct rbd_obj), 256);
}

static void krbd_fini(struct client *cl)
{
    for (uint32_t i = 0; i < cl->n_workers; i++)
        cpu_pool_fini(&cl->workers[i].thread);
    free(cl->workers);
    idmap_fini(&cl->ictx.objs);
    if (cl->mapping != cl)
        return;
    for (uint32_t i = 0; i < cl->c->n_osds; i++)
        cpu_pool_fini(&cl->msgr[i]);
    free(cl->msgr);
}

/* a mapping's kworkers are counted once, with the client that owns the mapping */
static double krbd_cpu_ns(const struct client *cl)
{
    double ns = client_workers_cpu_ns(cl);
    if (cl->mapping != cl)
        return ns;
    for (uint32_t i = 0; i < cl->c->n_osds; i++)
        ns += cpu_pool_busy_ns(&cl->msgr[i]);
    return ns;
}

const struct client_ops krbd_client_ops = {
    .name = "krbd",
    .init = krbd_init,
    .fini = krbd_fini,
    .start = client_start_workers,
    .block_engine = true,
    .submit_io = krbd_submit_io,
    .reply_delivered = krbd_reply_delivered,
    .rx_worker = krbd_rx_worker,
    .watch_notify_delivered = krbd_watch_notify_delivered,
    .notify_complete_delivered = krbd_notify_complete_delivered,
    .cpu_ns = krbd_cpu_ns,
};
