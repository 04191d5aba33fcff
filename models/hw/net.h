/*
 * net.h - hosts' NICs, the switch between them, and what a message costs.
 *
 * Full-duplex links: each host's transmit side, and the switch port towards
 * each host, are FIFO single servers, so flows sharing a NIC contend and so
 * do flows converging on one receiver (incast).  A message of B bytes is cut
 * into MTU-sized frames, each carrying Ethernet/IP/TCP overhead, and takes
 * wire bytes * 8 / line rate to serialise.  Its unloaded one-way delay is
 * serialisation + PHY latency per hop + switch latency (+ the serialisation
 * again at the switch egress when it stores and forwards; cut-through
 * forwards after the header) + the receiver's IRQ -> epoll wake.  Messages
 * between daemons of one host take the loopback path (loopback_us, no NIC).
 * The kernel TCP send/receive CPU per message is charged by the messenger
 * model on its threads (net_tx_cpu_us, net_rx_cpu_us).
 */
#ifndef CEPHSIM_MODELS_NET_H
#define CEPHSIM_MODELS_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "queueing.h"

struct cpu_pool;

struct net_params {
    double line_rate_gbps;
    double phy_latency_us;      /* per hop: both PHYs of one link (10GBase-T ~2-3 us, SFP+ ~0.3) */
    uint32_t mtu_bytes;
    uint32_t frame_overhead_bytes; /* whole per-frame wire overhead: preamble, IFG, MAC, IP, TCP */
    uint32_t l3_header_bytes;   /* the IP + TCP part of it, inside the MTU */
    double switch_latency_us;   /* port to port */
    bool switch_store_forward;
    bool has_switch;            /* false: hosts back to back (or a single host) */
    double loopback_us;         /* same-host message through the kernel loopback */
    double tcp_tx_cpu_us, tcp_rx_cpu_us; /* kernel CPU per message, each side */
    double tcp_cpu_ns_per_byte; /* copy + checksum per byte */
    double irq_wake_us;         /* NIC interrupt -> softirq -> epoll wake of the receiver */
};

/*
 * Links are FIFO single servers whose customers arrive in time order, so each
 * is kept as the time it is next free (Lindley's recursion): a message costs
 * one event at the switch (where messages from several senders meet, in
 * arrival order) and one at delivery, and no queue storage.  The switch
 * event is skipped when its outcome is already known at send time: a
 * cut-through switch, a sender whose link was idle (the message reaches the
 * switch after the fixed delay, before anything sent later can) and no other
 * message on its way to the same port (nothing can arrive there first); the
 * port is then taken at the same arrival time, only earlier in the run.
 */
struct net_link {
    sim_time_t free_at;
    double busy_ns;     /* since the last reset */
    uint32_t heading;   /* switch ports: messages on the wire towards the switch for it */
};

struct net {
    struct sim *s;
    struct net_params p;
    uint32_t n_hosts;
    struct net_link *tx, *egress; /* per host: its NIC's transmit side; the switch port towards it */
    sim_time_t t_reset;
    uint64_t messages, bytes;
    /* the fixed delays in ns, rounded once at net_init */
    sim_time_t to_switch_ns;   /* PHY + switch latency */
    sim_time_t deliver_ns;     /* PHY + IRQ -> epoll wake */
    sim_time_t loopback_ns;    /* loopback + IRQ wake */
    sim_time_t phy_ns, irq_ns; /* PHY; IRQ -> epoll wake */
    bool busy_poll;            /* some reader busy-polls (net_send_polled looks at rx only then) */
};

void net_init(struct net *n, struct sim *s, const struct net_params *p, uint32_t n_hosts);
void net_fini(struct net *n);
void net_reset_stats(struct net *n);
/* Busy fraction of host's transmit link since the last reset. */
double net_tx_utilisation(const struct net *n, uint32_t host);

/* Send bytes from host src to host dst; delivered(sim, obj, arg) when the last byte arrived. */
void net_send(struct net *n, uint32_t src, uint32_t dst, uint32_t bytes, sim_event_fn delivered,
              void *obj, uint64_t arg);

/* net_send to a host whose reading thread waits in epoll_wait in pool rx:
   with busy polling (busy_poll), a message reaching the receiver's NIC queue
   while rx's thread spins in epoll_wait's busy poll is delivered without the
   interrupt path (irq_wake_us), and rx is marked as reading a NIC queue
   (napi_seen).  NULL (no epoll reader: a kernel client's kworker): net_send. */
void net_send_polled(struct net *n, uint32_t src, uint32_t dst, uint32_t bytes, sim_event_fn delivered,
                     void *obj, uint64_t arg, struct cpu_pool *rx);

/* Wire serialisation time of a message of bytes at the line rate, with MTU framing. */
sim_time_t net_serialisation_ns(const struct net_params *p, uint32_t bytes);
/* Unloaded one-way delay between two different hosts. */
sim_time_t net_one_way_ns(const struct net_params *p, uint32_t bytes);

static inline double net_tx_cpu_us(const struct net *n, uint32_t bytes)
{
    return n->p.tcp_tx_cpu_us + n->p.tcp_cpu_ns_per_byte * bytes / 1e3;
}
static inline double net_rx_cpu_us(const struct net *n, uint32_t bytes)
{
    return n->p.tcp_rx_cpu_us + n->p.tcp_cpu_ns_per_byte * bytes / 1e3;
}

#endif
