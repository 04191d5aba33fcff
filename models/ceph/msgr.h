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

/* A message handed to a messenger worker for sending. */
struct msgr_msg {
    struct msgr_msg *next;
    sim_event_fn delivered;
    void *obj;
    uint64_t arg;
    uint32_t bytes, src_host, dst_host;
    sim_time_t t_queued;     /* handed to the worker (msgr_send_messages_queue_lat) */
    sim_time_t t_tx;         /* the worker began writing it */
};

/* Hand a message to a msgr worker, which writes it to the socket (CPU) and
   puts it on the wire; delivered(sim, obj, arg) runs when it has arrived and
   the receiver's NIC interrupt fired. */
void msgr_send(struct cluster *c, struct cpu_pool *worker, uint32_t src_host, uint32_t dst_host,
               uint32_t bytes, sim_event_fn delivered, void *obj, uint64_t arg);
/* CPU of receiving a message of bytes on a msgr worker (read, crc, decode). */
double msgr_rx_cost(const struct cluster *c, uint32_t bytes);
/* Count a message of bytes read by the worker th runs on (its msgr_worker_perf, if it has one). */
void msgr_count_rx(const struct cluster *c, const struct cpu_thread *th, uint32_t bytes);

#endif
