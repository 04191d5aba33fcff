/*
 * msgr.h - the AsyncMessenger both ends use: a message is encoded and written to
 * the socket by the connection's worker thread (CPU), crosses the network, and
 * is read, crc-checked and decoded by the receiver's worker.
 */
#ifndef CEPHSIM_MODELS_CEPH_MSGR_H
#define CEPHSIM_MODELS_CEPH_MSGR_H

#include <stdint.h>

#include "cpu.h"
#include "sim.h"

struct cluster;

/*
 * One end of a lossless connection (the cluster messenger's OSD-to-OSD
 * policy, lossless_peer): ProtocolV2::handle_message counts every message
 * read (ack_left++) and wakes the connection's writer; write_event writes
 * the queued messages, each carrying ack_seq in its header (write_message
 * clears ack_left), and an AckFrame only when none was queued.  The peer's
 * worker reads that frame (handle_message_ack: trims its sent list).  Lossy
 * connections (clients) have no acks.  msgr v1 (ProtocolV1) acks the same
 * way with CEPH_MSGR_TAG_ACK.
 */
struct msgr_conn {
    uint16_t out_queued;     /* messages queued on it, not yet written */
    bool ack_left;           /* messages read since the last write */
    bool ack_queued;         /* its write_event is queued on the worker */
};

/* A message handed to a messenger worker for sending (or an AckFrame to write). */
struct msgr_msg {
    struct msgr_msg *next;
    sim_event_fn delivered;
    void *obj;
    uint64_t arg;
    uint32_t bytes, src_host, dst_host;
    sim_time_t t_queued;     /* handed to the worker (msgr_send_messages_queue_lat) */
    sim_time_t t_tx;         /* the worker began writing it */
    struct msgr_conn *conn;  /* the sender's end, on a lossless connection; else NULL */
    struct cpu_pool *rx;     /* the receiver's worker for the connection, when it reads with
                                epoll (busy polling may apply); NULL: a kernel client's */
};

/* The receiver's worker for msgr_send's rx, looked up only when some host
   busy-polls (net_send_polled ignores rx otherwise): a cluster without busy
   polling keeps the lookup, and the peer's or client's lines it reads, off
   every send. */
#define MSGR_RX(c, worker) ((c)->net.busy_poll ? (worker) : NULL)

/* Hand a message to a msgr worker, which writes it to the socket (CPU) and
   puts it on the wire; delivered(sim, obj, arg) runs when it has arrived and
   the receiver's NIC interrupt fired (or its busy-polling worker saw it);
   rx is the receiver's worker for the connection (NULL: not an epoll reader). */
void msgr_send(struct cluster *c, struct cpu_pool *worker, struct cpu_pool *rx, uint32_t src_host,
               uint32_t dst_host, uint32_t bytes, sim_event_fn delivered, void *obj, uint64_t arg);
/* msgr_send on a lossless connection: conn is the sender's end. */
void msgr_send_lossless(struct cluster *c, struct cpu_pool *worker, struct cpu_pool *rx, struct msgr_conn *conn,
                        uint32_t src_host, uint32_t dst_host, uint32_t bytes, sim_event_fn delivered, void *obj,
                        uint64_t arg);
/* A message was read on a lossless connection: conn is the reader's end,
   worker its thread (the one reading), peer_worker the sender's worker for
   this connection, which reads the AckFrame if one is written. */
void msgr_read_lossless(struct cluster *c, struct cpu_pool *worker, struct msgr_conn *conn, uint32_t host,
                        uint32_t peer_host, struct cpu_pool *peer_worker);
/* CPU of receiving a message of bytes on a msgr worker (read, crc, decode). */
double msgr_rx_cost(const struct cluster *c, uint32_t bytes);
/* Count a message of bytes read by the worker th runs on (its msgr_worker_perf, if it has one). */
void msgr_count_rx(const struct cluster *c, const struct cpu_thread *th, uint32_t bytes);

#endif
