/*
 * net.c - links and switch (see net.h).  A message's path:
 * tx station (serialisation) -> fixed delay (PHYs, switch, store-and-forward
 * serialisation handled by the switch egress station) -> rx station
 * (receive-side serialisation is overlapped with the wire in cut-through, so
 * rx holds the link only for contention accounting: zero extra latency when
 * idle) -> delivered.
 */
#include "net.h"

#include <math.h>
#include <string.h>

#include "err.h"

struct net_msg {
    struct net_msg *next;
    struct net *n;
    sim_event_fn done;
    void *obj;
    uint64_t arg;
    uint32_t dst, bytes;
};
_Static_assert(sizeof(struct net_msg) <= sizeof(struct sim_waiter), "net_msg must fit a waiter");

void net_init(struct net *n, struct sim *s, const struct net_params *p, uint32_t n_hosts)
{
    memset(n, 0, sizeof *n);
    n->s = s;
    n->p = *p;
    n->n_hosts = n_hosts;
    SIM_ASSERT(p->line_rate_gbps > 0 && p->mtu_bytes > p->l3_header_bytes + 64);
    n->tx = sim_xcalloc(n_hosts, sizeof *n->tx);
    n->rx = sim_xcalloc(n_hosts, sizeof *n->rx);
    n->sw = sim_xcalloc(n_hosts, sizeof *n->sw);
    for (uint32_t i = 0; i < n_hosts; i++) {
        station_init(&n->tx[i], s, 1);
        station_init(&n->rx[i], s, 1);
        station_init(&n->sw[i], s, 1);
    }
}

void net_fini(struct net *n)
{
    free(n->tx);
    free(n->rx);
    free(n->sw);
    memset(n, 0, sizeof *n);
}

void net_reset_stats(struct net *n)
{
    for (uint32_t i = 0; i < n->n_hosts; i++) {
        station_reset_stats(&n->tx[i]);
        station_reset_stats(&n->rx[i]);
        station_reset_stats(&n->sw[i]);
    }
    n->messages = n->bytes = 0;
}

sim_time_t net_serialisation_ns(const struct net_params *p, uint32_t bytes)
{
    uint32_t payload = p->mtu_bytes - p->l3_header_bytes; /* IP + TCP headers live inside the MTU */
    uint32_t frames = bytes ? (bytes + payload - 1) / payload : 1;
    double wire = (double)bytes + (double)frames * p->frame_overhead_bytes;
    return (sim_time_t)llround(wire * 8.0 / p->line_rate_gbps);
}

static sim_time_t fixed_delay_ns(const struct net_params *p)
{
    double us = p->phy_latency_us + p->irq_wake_us;
    if (p->has_switch)
        us += p->phy_latency_us + p->switch_latency_us; /* two hops through a switch */
    return (sim_time_t)llround(us * 1e3);
}

sim_time_t net_one_way_ns(const struct net_params *p, uint32_t bytes)
{
    sim_time_t ser = net_serialisation_ns(p, bytes);
    return ser + fixed_delay_ns(p) + (p->has_switch && p->switch_store_forward ? ser : 0);
}

static void msg_delivered(struct sim *s, void *obj, uint64_t arg)
{
    struct net_msg *m = obj;
    sim_event_fn done = m->done;
    void *o = m->obj;
    uint64_t a = m->arg;
    sim_waiter_put(s, (struct sim_waiter *)m);
    done(s, o, a);
}

static void msg_at_rx(struct sim *s, void *obj, uint64_t arg)
{
    struct net_msg *m = obj;
    /* receive link: contention only (the bytes streamed in during the wire time) */
    station_submit(&m->n->rx[m->dst], 0, msg_delivered, m, 0);
}

static void msg_at_switch(struct sim *s, void *obj, uint64_t arg)
{
    struct net_msg *m = obj;
    struct net *n = m->n;
    sim_time_t egress = n->p.switch_store_forward ? net_serialisation_ns(&n->p, m->bytes) : 0;
    station_submit(&n->sw[m->dst], egress, msg_at_rx, m, 0);
}

static void msg_sent(struct sim *s, void *obj, uint64_t arg)
{
    struct net_msg *m = obj;
    sim_schedule(s, fixed_delay_ns(&m->n->p), m->n->p.has_switch ? msg_at_switch : msg_at_rx, m, 0);
}

void net_send(struct net *n, uint32_t src, uint32_t dst, uint32_t bytes, sim_event_fn delivered,
              void *obj, uint64_t arg)
{
    SIM_ASSERT(src < n->n_hosts && dst < n->n_hosts);
    n->messages++;
    n->bytes += bytes;
    if (src == dst) {
        sim_schedule(n->s, (sim_time_t)llround((n->p.loopback_us + n->p.irq_wake_us) * 1e3),
                     delivered, obj, arg);
        return;
    }
    struct net_msg *m = (struct net_msg *)sim_waiter_get(n->s);
    *m = (struct net_msg){.n = n, .done = delivered, .obj = obj, .arg = arg, .dst = dst, .bytes = bytes};
    station_submit(&n->tx[src], net_serialisation_ns(&n->p, bytes), msg_sent, m, 0);
}
