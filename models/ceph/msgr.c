/*
 * msgr.c - AsyncMessenger sends and receive costs (API in msgr.h).
 *
 * Mirrors ProtocolV2::send_message/write_message (the sender encodes; the
 * connection's worker writes the socket: msgr_tx_us + crc per KiB when
 * ms_crc_data + the NIC's TCP CPU) and the receiver's read, crc check and
 * decode (msgr_rx_us + crc + TCP receive CPU).  One connection per peer is
 * bound to one worker (see osd.c osd_worker, librbd.c client_worker).  On
 * lossless connections (OSD to OSD) a read is acked: by the next message
 * written on the connection, or by an AckFrame (msgr.h struct msgr_conn).
 */
#include "msgr.h"

#include <stdint.h>

#include "cluster-internal.h"

double msgr_rx_cost(const struct cluster *c, uint32_t bytes)
{
    const struct stage_costs *k = &c->spec.cost;
    double crc = c->spec.ceph.ms_crc_data ? k->msgr_crc_us_per_kib * bytes / 1024.0 : 0;
    return stage_cost(c, k->msgr_rx_us + crc + net_rx_cpu_us(&c->net, bytes));
}

void msgr_count_rx(const struct cluster *c, const struct cpu_thread *th, uint32_t bytes)
{
    struct msgr_worker_perf *p = th->pool->owner;
    if (p && c->measuring) {
        p->recv_messages++;
        p->recv_bytes += bytes;
    }
}

/* An AckFrame on the wire: a 32-byte preamble, the 8-byte seq, the plain
   epilogue (frames_v2.h) */
#define ACK_FRAME_BYTES 48

static void ack_read_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    cpu_thread_release(th);
}

/* ProtocolV2::handle_message_ack(payload) on the peer's worker */
static void ack_read(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct cluster *c = obj;
    cpu_exec(th, stage_cost(c, c->spec.cost.msgr_ack_us + net_rx_cpu_us(&c->net, ACK_FRAME_BYTES)), ack_read_done,
             c, 0);
}

static void ack_delivered(struct sim *s, void *obj, uint64_t arg)
{
    struct cluster *c = (struct cluster *)(uintptr_t)arg;
    cpu_pool_submit(obj, CPU_PRIO_NORMAL, ack_read, c, 0);
}

static void ack_written(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct msgr_msg *m = obj;
    struct cluster *c = (struct cluster *)(uintptr_t)arg;
    struct msgr_worker_perf *p = th->pool->owner;
    if (p && c->measuring)
        p->ack_frames++;
    net_send_polled(&c->net, m->src_host, m->dst_host, ACK_FRAME_BYTES, ack_delivered, m->obj, arg, m->obj);
    pool_put(&c->msg_pool, m);
    cpu_thread_release(th);
}

/* write_event after a read: the AckFrame, unless a message written since
   carried the ack or one queued now will */
static void ack_write(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct msgr_msg *m = obj;
    struct cluster *c = (struct cluster *)(uintptr_t)arg;
    struct msgr_conn *conn = m->conn;
    conn->ack_queued = false;
    if (!conn->ack_left || conn->out_queued) {
        pool_put(&c->msg_pool, m);
        cpu_thread_release(th);
        return;
    }
    conn->ack_left = false;
    cpu_exec(th, stage_cost(c, c->spec.cost.msgr_ack_us + net_tx_cpu_us(&c->net, ACK_FRAME_BYTES)), ack_written, m,
             arg);
}

void msgr_read_lossless(struct cluster *c, struct cpu_pool *worker, struct msgr_conn *conn, uint32_t host,
                        uint32_t peer_host, struct cpu_pool *peer_worker)
{
    conn->ack_left = true;
    if (conn->ack_queued || conn->out_queued) /* one write_event acks all; a queued message carries it */
        return;
    conn->ack_queued = true;
    struct msgr_msg *m = pool_get(&c->msg_pool);
    *m = (struct msgr_msg){.obj = peer_worker, .src_host = host, .dst_host = peer_host, .conn = conn,
                           .t_queued = sim_now(c->s)};
    cpu_pool_submit(worker, CPU_PRIO_NORMAL, ack_write, m, (uint64_t)(uintptr_t)c);
}

static void msgr_tx_done(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct msgr_msg *m = obj;
    struct cluster *c = (struct cluster *)(uintptr_t)arg;
    struct msgr_worker_perf *p = th->pool->owner;
    if (p && c->measuring) {
        p->send_messages++;
        p->send_bytes += m->bytes;
        p->send_ns += (uint64_t)(sim_now(s) - m->t_tx);
        lat_sum_add(&p->send_queue_lat, (uint64_t)(m->t_tx - m->t_queued));
    }
    net_send_polled(&c->net, m->src_host, m->dst_host, m->bytes, m->delivered, m->obj, m->arg, m->rx);
    pool_put(&c->msg_pool, m);
    cpu_thread_release(th);
}

static void msgr_tx(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    struct msgr_msg *m = obj;
    struct cluster *c = (struct cluster *)(uintptr_t)arg;
    const struct stage_costs *k = &c->spec.cost;
    m->t_tx = sim_now(s);
    if (m->conn) { /* write_message: the message carries the ack (ack_seq) */
        m->conn->out_queued--;
        m->conn->ack_left = false;
    }
    double crc = c->spec.ceph.ms_crc_data ? k->msgr_crc_us_per_kib * m->bytes / 1024.0 : 0;
    cpu_exec(th, stage_cost(c, k->msgr_tx_us + crc + net_tx_cpu_us(&c->net, m->bytes)), msgr_tx_done,
             m, arg);
}

void msgr_send(struct cluster *c, struct cpu_pool *worker, struct cpu_pool *rx, uint32_t src_host,
               uint32_t dst_host, uint32_t bytes, sim_event_fn delivered, void *obj, uint64_t arg)
{
    struct msgr_msg *m = pool_get(&c->msg_pool);
    *m = (struct msgr_msg){.delivered = delivered, .obj = obj, .arg = arg, .bytes = bytes,
                           .src_host = src_host, .dst_host = dst_host, .t_queued = sim_now(c->s), .rx = rx};
    cpu_pool_submit(worker, CPU_PRIO_NORMAL, msgr_tx, m, (uint64_t)(uintptr_t)c);
}

void msgr_send_lossless(struct cluster *c, struct cpu_pool *worker, struct cpu_pool *rx, struct msgr_conn *conn,
                        uint32_t src_host, uint32_t dst_host, uint32_t bytes, sim_event_fn delivered, void *obj,
                        uint64_t arg)
{
    struct msgr_msg *m = pool_get(&c->msg_pool);
    *m = (struct msgr_msg){.delivered = delivered, .obj = obj, .arg = arg, .bytes = bytes, .src_host = src_host,
                           .dst_host = dst_host, .t_queued = sim_now(c->s), .conn = conn, .rx = rx};
    conn->out_queued++;
    cpu_pool_submit(worker, CPU_PRIO_NORMAL, msgr_tx, m, (uint64_t)(uintptr_t)c);
}
