/*
 * net.c - links and switch (see net.h).  A message's path: the sender's
 * transmit link (FIFO, serialisation at line rate) -> PHY to the switch ->
 * the switch port towards the receiver (FIFO: where flows from several
 * senders contend; cut-through starts forwarding after the header,
 * store-and-forward after the whole message) -> PHY -> the receiver's
 * IRQ -> epoll wake -> delivered.
 */
#include "net.h"

#include <math.h>
#include <string.h>

#include "cpu.h"
#include "err.h"

struct net_msg {
    struct net *n;      /* (the waiter's free-list link while free) */
    sim_event_fn done;
    void *obj;
    uint64_t arg;
    struct cpu_pool *rx; /* the thread reading it, when it may busy-poll (else NULL) */
    uint32_t ser;       /* its serialisation time, ns */
    uint32_t dst;
};
_Static_assert(sizeof(struct net_msg) <= sizeof(struct sim_waiter), "net_msg must fit a waiter");

static sim_time_t us_ns(double us)
{
    return (sim_time_t)llround(us * 1e3);
}

void net_init(struct net *n, struct sim *s, const struct net_params *p, uint32_t n_hosts)
{
    memset(n, 0, sizeof *n);
    n->s = s;
    n->p = *p;
    n->n_hosts = n_hosts;
    SIM_ASSERT(p->line_rate_gbps > 0 && p->mtu_bytes > p->l3_header_bytes + 64);
    n->tx = sim_xcalloc(n_hosts, sizeof *n->tx);
    n->egress = sim_xcalloc(n_hosts, sizeof *n->egress);
    n->t_reset = sim_now(s);
    n->to_switch_ns = us_ns(p->phy_latency_us + p->switch_latency_us);
    n->deliver_ns = us_ns(p->phy_latency_us + p->irq_wake_us);
    n->loopback_ns = us_ns(p->loopback_us + p->irq_wake_us);
    n->phy_ns = us_ns(p->phy_latency_us);
    n->irq_ns = us_ns(p->irq_wake_us);
}

void net_fini(struct net *n)
{
    free(n->tx);
    free(n->egress);
    memset(n, 0, sizeof *n);
}

void net_reset_stats(struct net *n)
{
    for (uint32_t i = 0; i < n->n_hosts; i++)
        n->tx[i].busy_ns = n->egress[i].busy_ns = 0;
    n->t_reset = sim_now(n->s);
    n->messages = n->bytes = 0;
}

double net_tx_utilisation(const struct net *n, uint32_t host)
{
    sim_time_t t = sim_now(n->s) - n->t_reset;
    return t ? n->tx[host].busy_ns / (double)t : 0;
}

sim_time_t net_serialisation_ns(const struct net_params *p, uint32_t bytes)
{
    uint32_t payload = p->mtu_bytes - p->l3_header_bytes; /* IP + TCP headers live inside the MTU */
    uint32_t frames = bytes ? (bytes + payload - 1) / payload : 1;
    double wire = (double)bytes + (double)frames * p->frame_overhead_bytes;
    return (sim_time_t)llround(wire * 8.0 / p->line_rate_gbps);
}

sim_time_t net_one_way_ns(const struct net_params *p, uint32_t bytes)
{
    sim_time_t ser = net_serialisation_ns(p, bytes);
    if (!p->has_switch)
        return ser + us_ns(p->phy_latency_us + p->irq_wake_us);
    return ser + us_ns(2 * p->phy_latency_us + p->switch_latency_us + p->irq_wake_us) +
           (p->switch_store_forward ? ser : 0);
}

/* Take a FIFO link from start for ser ns; returns when it begins sending. */
static sim_time_t link_take(struct net_link *l, sim_time_t start, sim_time_t ser)
{
    sim_time_t begin = start > l->free_at ? start : l->free_at;
    l->free_at = begin + ser;
    l->busy_ns += (double)ser;
    return begin;
}

/* The last byte is in the receiver's NIC queue.  A reader spinning in
   epoll_wait's busy poll (napi_busy_loop on that queue) takes it at once; else
   the NIC's interrupt and its softirq wake the reader (irq_wake_us). */
static void msg_in_rx_queue(struct sim *s, void *obj, uint64_t arg)
{
    struct net_msg *m = obj;
    struct cpu_pool *rx = m->rx;
    rx->napi_seen = true;
    sim_event_fn done = m->done;
    void *o = m->obj;
    uint64_t a = m->arg;
    sim_time_t irq = cpu_pool_spinning(rx) ? 0 : m->n->irq_ns;
    sim_waiter_put(s, (struct sim_waiter *)m);
    if (irq)
        sim_schedule(s, irq, done, o, a);
    else
        done(s, o, a);
}

/* Deliver m's message once its last byte has left the port at `out`. */
static void deliver(struct net *n, struct net_msg *m, sim_time_t out)
{
    if (m->rx) {
        sim_schedule_at(n->s, out + n->phy_ns, msg_in_rx_queue, m, 0);
        return;
    }
    sim_schedule_at(n->s, out + n->deliver_ns, m->done, m->obj, m->arg);
    sim_waiter_put(n->s, (struct sim_waiter *)m);
}

/* The message's head reached the switch: queue on the port towards dst. */
static void msg_at_switch(struct sim *s, void *obj, uint64_t arg)
{
    struct net_msg *m = obj;
    struct net *n = m->n;
    struct net_link *port = &n->egress[m->dst];
    port->heading--;
    sim_time_t begin = link_take(port, sim_now(s), m->ser);
    deliver(n, m, begin + m->ser);
}

void net_send(struct net *n, uint32_t src, uint32_t dst, uint32_t bytes, sim_event_fn delivered,
              void *obj, uint64_t arg)
{
    net_send_polled(n, src, dst, bytes, delivered, obj, arg, NULL);
}

void net_send_polled(struct net *n, uint32_t src, uint32_t dst, uint32_t bytes, sim_event_fn delivered,
                     void *obj, uint64_t arg, struct cpu_pool *rx)
{
    SIM_ASSERT(src < n->n_hosts && dst < n->n_hosts);
    n->messages++;
    n->bytes += bytes;
    if (src == dst) {
        sim_schedule(n->s, n->loopback_ns, delivered, obj, arg);
        return;
    }
    if (!n->busy_poll)
        rx = NULL;
    sim_time_t now = sim_now(n->s);
    sim_time_t ser = net_serialisation_ns(&n->p, bytes);
    SIM_ASSERT(ser <= UINT32_MAX);
    sim_time_t begin = link_take(&n->tx[src], now, ser);
    sim_time_t head = begin + n->to_switch_ns;
    struct net_link *port = &n->egress[dst];
    /* back to back (the receiver sees the bytes as they are sent), or first
       at the switch port whatever is sent from now on (see net.h) */
    bool known = !n->p.has_switch || (!n->p.switch_store_forward && begin == now && port->heading == 0);
    if (known && !rx) {
        sim_time_t out = n->p.has_switch ? link_take(port, head, ser) : begin;
        sim_schedule_at(n->s, out + ser + n->deliver_ns, delivered, obj, arg);
        return;
    }
    struct net_msg *m = (struct net_msg *)sim_waiter_get(n->s);
    *m = (struct net_msg){.ser = (uint32_t)ser, .n = n, .done = delivered, .obj = obj, .arg = arg, .dst = dst,
                          .rx = rx};
    if (known) {
        deliver(n, m, (n->p.has_switch ? link_take(port, head, ser) : begin) + ser);
        return;
    }
    if (n->p.switch_store_forward)
        head += ser;
    port->heading++;
    sim_schedule_at(n->s, head, msg_at_switch, m, 0);
}
