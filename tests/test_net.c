/*
 * test_net.c - the network model (models/hw/net.c) with the real NIC and switch
 * profiles (hw-profiles/nic, hw-profiles/switch) mapped to net_params as
 * scenario_to_spec does: wire serialisation of a 4 KiB write message (4096 B
 * of data + 320 B of messenger header) at 10 vs 100 Gb/s worked out by hand,
 * the unloaded one-way delay through a cut-through and a store-and-forward
 * switch and back to back, the same-host loopback path, contention of two
 * flows on one NIC's transmit link, the per-message kernel CPU helpers, and
 * 4,000 messages fanning in through one switch against Lindley's recursion
 * worked out in the test (the switch step net_send resolves at send time),
 * and net.core.busy_poll's reader taking a message without the interrupt.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "hwprofile.h"
#include "net.h"
#include "sim.h"

/* cost.tcp_loopback_us's default (models/ceph/config.c): it comes from the cost table, not a profile. */
#define LOOPBACK_US 6.0

/* The mapping of explorer/io/scenario.c:scenario_to_spec (nic + switch profiles -> struct net_params). */
static struct net_params params_from_profiles(const char *nic_name, const char *sw_name)
{
    struct hw_nic nic;
    struct hw_switch sw;
    struct sim_err err = {0};
    if (hwprofile_load_nic(nic_name, "hw-profiles", &nic, &err) < 0 ||
        hwprofile_load_switch(sw_name, "hw-profiles", &sw, &err) < 0)
        fail_msg("loading profiles %s/%s: %s", nic_name, sw_name, err.msg);
    return (struct net_params){
        .line_rate_gbps = nic.line_rate_gbps, .phy_latency_us = nic.phy_latency_us,
        .mtu_bytes = (uint32_t)nic.mtu_bytes, .frame_overhead_bytes = (uint32_t)nic.header_bytes,
        .l3_header_bytes = (uint32_t)nic.l3_header_bytes,
        .switch_latency_us = sw.port_to_port_latency_us,
        .switch_store_forward = sw.mode == HWPROFILE_SWITCH_STORE_AND_FORWARD,
        .has_switch = sw.mode != HWPROFILE_SWITCH_NONE,
        .loopback_us = LOOPBACK_US, .tcp_tx_cpu_us = nic.tcp_tx_cpu_us,
        .tcp_rx_cpu_us = nic.tcp_rx_cpu_us, .tcp_cpu_ns_per_byte = nic.per_byte_cpu_ns,
        .irq_wake_us = nic.irq_wake_us};
}

enum { MSG = 4096 + 320 }; /* 4 KiB of data + the messenger's header */

/*
 * By hand, every NIC profile: MTU 1500, 52 B of IP+TCP inside it -> 1448 B of
 * payload per frame; 90 B of wire overhead per frame (preamble 8, MAC 14,
 * FCS 4, IFG 12, IP 20, TCP 20 + timestamps 12).
 *   4416 B -> ceil(4416 / 1448) = 4 frames -> 4416 + 4 x 90 = 4776 B on the wire
 *   10 Gb/s:  4776 x 8 / 10  = 3820.8 ns;   100 Gb/s: 4776 x 8 / 100 = 382.08 ns
 *   difference 3438.7 ns = 3.44 us per hop.
 * The 4 KiB payload alone: 3 frames, 4096 + 270 = 4366 B -> 3492.8 vs 349.3 ns,
 * difference 3.14 us (the "~3.5 us at 10 Gb/s" of hw-facts.md).  The model
 * charges the bytes actually sent: the upper bound frames x (1448 + 90) x 8 /
 * rate (full frames, 4921.6 vs 492.2 ns for 4416 B) overstates the last frame.
 */
static void test_serialisation(void **state)
{
    struct net_params t10 = params_from_profiles("10gbase-t", "tor-cut-through");
    struct net_params t100 = params_from_profiles("100gbe", "tor-cut-through");
    assert_int_equal(net_serialisation_ns(&t10, MSG), 3821);
    assert_int_equal(net_serialisation_ns(&t100, MSG), 382);
    sim_time_t diff = net_serialisation_ns(&t10, MSG) - net_serialisation_ns(&t100, MSG);
    assert_true(fabs((double)diff - 3438.7) < 1.0);
    sim_time_t diff4k = net_serialisation_ns(&t10, 4096) - net_serialisation_ns(&t100, 4096);
    assert_true(fabs((double)diff4k - 3143.5) < 1.0);
    /* bounded by the full-frame figure, above the payload-only figure */
    assert_true(net_serialisation_ns(&t10, MSG) < 4 * (1448 + 90) * 8 / 10);
    assert_true(net_serialisation_ns(&t10, MSG) > MSG * 8 / 10);
    /* 25GbE: 4776 x 8 / 25 = 1528.3 ns; 1448 B fill exactly one frame, 1449 need two */
    struct net_params t25 = params_from_profiles("25gbe", "tor-cut-through");
    assert_int_equal(net_serialisation_ns(&t25, MSG), 1528);
    assert_int_equal(net_serialisation_ns(&t10, 1448), llround((1448 + 90) * 8 / 10.0));
    assert_int_equal(net_serialisation_ns(&t10, 1449), llround((1449 + 180) * 8 / 10.0));
    /* the model and the profile library agree */
    struct hw_nic nic;
    struct sim_err err = {0};
    assert_int_equal(hwprofile_load_nic("10gbase-t", "hw-profiles", &nic, &err), 0);
    assert_true(fabs(hwprofile_nic_serialisation_ns(&nic, MSG) - 3820.8) < 1e-6);
}

struct arrival {
    int n;
    sim_time_t t[4];
    uint64_t arg[4];
};

static void delivered(struct sim *s, void *obj, uint64_t arg)
{
    struct arrival *a = obj;
    a->t[a->n] = sim_now(s);
    a->arg[a->n++] = arg;
}

/* Simulated delivery time of one message on an idle network. */
static sim_time_t send_one(const struct net_params *p, uint32_t src, uint32_t dst, uint32_t bytes)
{
    struct sim *s = sim_create(1);
    struct net n;
    net_init(&n, s, p, 3);
    struct arrival a = {0};
    net_send(&n, src, dst, bytes, delivered, &a, 0);
    sim_run(s, SIM_TIME_MAX);
    assert_int_equal(a.n, 1);
    assert_int_equal(n.messages, 1);
    assert_int_equal(n.bytes, bytes);
    net_fini(&n);
    sim_destroy(s);
    return a.t[0];
}

/*
 * One-way unloaded delay, host -> switch -> host (2 hops):
 *   cut-through        = ser + 2 x phy + switch + irq_wake
 *   store-and-forward  = the same + ser once more (switch egress) with its own latency
 *   back to back       = ser + 1 x phy + irq_wake
 * 10GBase-T (phy 2.5, irq 8), cut-through 0.5: 3820.8 + 5000 + 500 + 8000 = 17321 ns;
 * store-and-forward 1.0: 3820.8 x 2 + 5000 + 1000 + 8000 = 21642 ns;
 * 100GbE (phy 0.4): 382.1 + 800 + 500 + 8000 = 9682 ns.
 * The closed form net_one_way_ns and a simulated net_send agree.
 */
static void test_one_way(void **state)
{
    struct {
        const char *nic, *sw;
        sim_time_t want;
    } cases[] = {
        {"10gbase-t", "tor-cut-through", 17321},
        {"10gbase-t", "tor-store-and-forward", 21642},
        {"100gbe", "tor-cut-through", 9682},
        {"10gbe-sfp", "tor-cut-through", 3821 + 700 + 500 + 8000},
        {"25gbe", "tor-store-and-forward", 1528 * 2 + 800 + 1000 + 8000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct net_params p = params_from_profiles(cases[i].nic, cases[i].sw);
        sim_time_t ser = net_serialisation_ns(&p, MSG);
        sim_time_t expect = ser + (sim_time_t)llround((2 * p.phy_latency_us + p.switch_latency_us + p.irq_wake_us) * 1e3) +
                            (p.switch_store_forward ? ser : 0);
        assert_int_equal(expect, cases[i].want);
        assert_int_equal(net_one_way_ns(&p, MSG), cases[i].want);
        assert_int_equal(send_one(&p, 0, 1, MSG), cases[i].want);
    }
    /* store-and-forward costs exactly one more serialisation (+ its longer pipeline) */
    struct net_params ct = params_from_profiles("10gbase-t", "tor-cut-through");
    struct net_params sf = params_from_profiles("10gbase-t", "tor-store-and-forward");
    assert_int_equal(net_one_way_ns(&sf, MSG) - net_one_way_ns(&ct, MSG), 3821 + 500);
    /* back to back (no switch between two hosts): one hop */
    ct.has_switch = false;
    assert_int_equal(net_one_way_ns(&ct, MSG), 3821 + 2500 + 8000);
    assert_int_equal(send_one(&ct, 0, 1, MSG), 3821 + 2500 + 8000);
}

/* An idle reader thread (a msgr-worker of 1 thread) and a message to it. */
static void release_at_once(struct sim *s, struct cpu_thread *th, void *obj, uint64_t arg)
{
    cpu_thread_release(th);
}

/*
 * net.core.busy_poll: the reading worker ran an item at 0 and spins in
 * epoll_wait's busy poll for 1 ms.  A message sent at `at` reaches its NIC
 * queue at at + one-way - irq_wake: inside the spin it is delivered then (the
 * poll reads the queue, no interrupt: 8 us earlier), after the spin at
 * at + one-way as without polling.  Every switch mode and back to back; the
 * reader is marked as reading a NIC queue (its spin needs one); the loopback
 * path is never polled.
 */
static sim_time_t send_polled(const struct net_params *p, uint32_t dst, sim_time_t at, bool *napi_seen)
{
    struct sim *s = sim_create(1);
    struct cpu_params cp = {.cores = 2, .max_clock_ghz = 3, .idle_clock_ghz = 3, .ref_clock_ghz = 3,
                            .governor = CPU_GOV_PERFORMANCE, .governor_up_util = 0.8, .util_window_us = 1000,
                            .wake_us = 5, .busy_poll_us = 1000};
    struct cpu_host h;
    cpu_host_init(&h, s, &cp);
    struct cpu_pool rx;
    cpu_pool_init(&rx, &h, "msgr-worker", 1);
    rx.napi_seen = true;
    cpu_pool_submit(&rx, CPU_PRIO_NORMAL, release_at_once, NULL, 0); /* woken at 5 us, spins from then */
    struct net n;
    net_init(&n, s, p, 3);
    n.busy_poll = true;
    struct arrival a = {0};
    sim_run(s, at);
    rx.napi_seen = false;
    net_send_polled(&n, 0, dst, MSG, delivered, &a, 0, &rx);
    sim_run(s, SIM_TIME_MAX);
    assert_int_equal(a.n, 1);
    *napi_seen = rx.napi_seen;
    net_fini(&n);
    cpu_pool_fini(&rx);
    sim_destroy(s);
    return a.t[0] - at;
}

static void test_busy_poll_skips_interrupt(void **state)
{
    const char *sw[] = {"tor-cut-through", "tor-store-and-forward", "none"};
    for (size_t i = 0; i < 3; i++) {
        struct net_params p = params_from_profiles("100gbe", sw[i]);
        sim_time_t one_way = net_one_way_ns(&p, MSG), irq = (sim_time_t)llround(p.irq_wake_us * 1e3);
        bool seen;
        assert_int_equal(send_polled(&p, 1, 100000, &seen), one_way - irq); /* inside the spin */
        assert_true(seen);
        assert_int_equal(send_polled(&p, 1, 2000000, &seen), one_way); /* after it: the interrupt */
        assert_true(seen);
        assert_int_equal(send_polled(&p, 0, 100000, &seen), llround((LOOPBACK_US + p.irq_wake_us) * 1e3));
        assert_false(seen);
    }
}

/* Same host: the kernel loopback (6 us) + the reader's wake (8 us), no serialisation, any size. */
static void test_loopback(void **state)
{
    struct net_params p = params_from_profiles("10gbase-t", "tor-cut-through");
    assert_int_equal(send_one(&p, 2, 2, MSG), 14000);
    assert_int_equal(send_one(&p, 1, 1, 1 << 20), 14000);
    /* the lab's loopback profile without a switch behaves the same way */
    struct net_params lo = params_from_profiles("loopback", "none");
    assert_false(lo.has_switch);
    assert_int_equal(send_one(&lo, 0, 0, MSG), llround((LOOPBACK_US + lo.irq_wake_us) * 1e3));
}

/*
 * Contention: host 0 sends 1 MiB to host 1 and 1 MiB to host 2 at the same
 * time (10GbE SFP+, cut-through).  They share host 0's transmit link, so the
 * second is delivered one serialisation later: both take twice as long in
 * total as one alone (minus the fixed latency).  Two senders to one
 * receiver (incast) share the switch port towards it the same way.  Two flows
 * between disjoint NICs (0 -> 1 and 2 -> 0) don't contend.
 */
static void test_tx_contention(void **state)
{
    struct net_params p = params_from_profiles("10gbe-sfp", "tor-cut-through");
    const uint32_t big = 1 << 20;
    sim_time_t ser = net_serialisation_ns(&p, big);
    /* 1 MiB = 725 frames (1448 B each, the last partial): (1048576 + 725 x 90) x 8 / 10 */
    assert_int_equal(ser, llround((1048576.0 + 725 * 90) * 8 / 10));
    sim_time_t fixed = net_one_way_ns(&p, big) - ser;
    sim_time_t alone = send_one(&p, 0, 1, big);
    assert_int_equal(alone, ser + fixed);

    struct sim *s = sim_create(2);
    struct net n;
    net_init(&n, s, &p, 3);
    struct arrival a = {0};
    net_send(&n, 0, 1, big, delivered, &a, 1);
    net_send(&n, 0, 2, big, delivered, &a, 2);
    sim_run(s, SIM_TIME_MAX);
    assert_int_equal(a.n, 2);
    assert_int_equal(a.arg[0], 1); /* FIFO on the link */
    assert_int_equal(a.t[0], alone);
    assert_int_equal(a.t[1] - fixed, 2 * (alone - fixed));
    assert_true(fabs(net_tx_utilisation(&n, 0) * (double)a.t[1] - 2.0 * (double)ser) < 1.0);
    assert_true(net_tx_utilisation(&n, 1) == 0);
    net_fini(&n);
    sim_destroy(s);

    /* incast: hosts 1 and 2 send to host 0 at once; the switch port towards host 0 is
       the shared link, so the second arrives one serialisation after the first */
    s = sim_create(5);
    net_init(&n, s, &p, 3);
    a = (struct arrival){0};
    net_send(&n, 1, 0, big, delivered, &a, 1);
    net_send(&n, 2, 0, big, delivered, &a, 2);
    sim_run(s, SIM_TIME_MAX);
    assert_int_equal(a.n, 2);
    assert_int_equal(a.t[0], alone);
    assert_int_equal(a.t[1], alone + ser);
    net_fini(&n);
    sim_destroy(s);

    /* separate transmit links and receivers: no contention */
    s = sim_create(3);
    net_init(&n, s, &p, 3);
    a = (struct arrival){0};
    net_send(&n, 0, 1, big, delivered, &a, 1);
    net_send(&n, 2, 0, big, delivered, &a, 2);
    sim_run(s, SIM_TIME_MAX);
    assert_int_equal(a.n, 2);
    assert_int_equal(a.t[0], alone);
    assert_int_equal(a.t[1], alone);
    net_fini(&n);
    sim_destroy(s);
}

/* Kernel CPU per message: fixed part + 0.1 ns per byte (4416 B -> +0.4416 us). */
static void test_cpu_helpers(void **state)
{
    struct sim *s = sim_create(4);
    struct net n;
    struct net_params p = params_from_profiles("10gbase-t", "tor-cut-through");
    net_init(&n, s, &p, 2);
    assert_true(fabs(net_tx_cpu_us(&n, MSG) - 3.4416) < 1e-9);
    assert_true(fabs(net_rx_cpu_us(&n, MSG) - 3.4416) < 1e-9);
    assert_true(fabs(net_tx_cpu_us(&n, 0) - 3.0) < 1e-12);
    net_fini(&n);
    struct net_params lo = params_from_profiles("loopback", "none");
    net_init(&n, s, &lo, 1);
    /* loopback: the sender also runs the receive softirq (tx 6 us), rx 3 us */
    assert_true(fabs(net_tx_cpu_us(&n, 1 << 20) - (6 + 0.1 * 1048576 / 1e3)) < 1e-9);
    assert_true(fabs(net_rx_cpu_us(&n, 1 << 20) - (3 + 0.1 * 1048576 / 1e3)) < 1e-9);
    net_fini(&n);
    sim_destroy(s);
}

/* ---- many senders through one switch, against Lindley's recursion by hand ---- */

enum { FAN_MSGS = 4000, FAN_HOSTS = 6 };

struct fan {
    struct net *n;
    uint32_t src[FAN_MSGS], dst[FAN_MSGS], bytes[FAN_MSGS];
    sim_time_t sent[FAN_MSGS], got[FAN_MSGS];
};

static void fan_delivered(struct sim *s, void *obj, uint64_t i)
{
    struct fan *f = obj;
    f->got[i] = sim_now(s);
}

static void fan_send(struct sim *s, void *obj, uint64_t i)
{
    struct fan *f = obj;
    net_send(f->n, f->src[i], f->dst[i], f->bytes[i], fan_delivered, f, i);
}

static int fan_cmp_head(const void *a, const void *b, void *ctx)
{
    const sim_time_t *head = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (head[x] != head[y])
        return head[x] < head[y] ? -1 : 1;
    return (x > y) - (x < y); /* the same arrival: in sending order */
}

/*
 * 4,000 messages of 64 B to 64 KiB from 6 hosts to 6 hosts (random, some
 * bursts at one instant, so links queue and ports see incast), through a
 * cut-through switch at 10 Gb/s.  Expected, computed independently: each
 * sender's link serves its messages FIFO in sending order; a message reaches
 * the switch at its link start + PHY + switch latency; each port towards a
 * receiver serves messages FIFO in arrival order (ties in sending order);
 * delivery = port start + serialisation + PHY + IRQ wake.  Every delivery
 * time must match to the ns, whether or not net_send resolved the switch
 * at send time.
 */
static void test_switch_fan_in_matches_lindley(void **state)
{
    struct net_params p = params_from_profiles("10gbase-t", "tor-cut-through");
    struct sim *s = sim_create(1);
    struct net n;
    net_init(&n, s, &p, FAN_HOSTS);
    struct fan *f = calloc(1, sizeof *f);
    f->n = &n;
    uint64_t x = 0x2545F4914F6CDD1Dull;
    sim_time_t t = 0;
    for (uint32_t i = 0; i < FAN_MSGS; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        f->src[i] = (uint32_t)(x % FAN_HOSTS);
        f->dst[i] = (uint32_t)((f->src[i] + 1 + (x >> 8) % (FAN_HOSTS - 1)) % FAN_HOSTS);
        f->bytes[i] = (x >> 16) % 4 == 0 ? 65536 : 64 + (uint32_t)((x >> 24) % 8192);
        if ((x >> 40) % 3) /* else: the same instant as the previous one */
            t += (x >> 44) % 6000;
        f->sent[i] = t;
        sim_schedule_at(s, t, fan_send, f, i);
    }
    sim_run(s, SIM_TIME_MAX);

    sim_time_t *head = calloc(FAN_MSGS, sizeof *head), *ser = calloc(FAN_MSGS, sizeof *ser);
    sim_time_t tx_free[FAN_HOSTS] = {0}, port_free[FAN_HOSTS] = {0};
    sim_time_t to_switch = llround((p.phy_latency_us + p.switch_latency_us) * 1e3);
    sim_time_t deliver = llround((p.phy_latency_us + p.irq_wake_us) * 1e3);
    for (uint32_t i = 0; i < FAN_MSGS; i++) {
        ser[i] = net_serialisation_ns(&p, f->bytes[i]);
        sim_time_t begin = f->sent[i] > tx_free[f->src[i]] ? f->sent[i] : tx_free[f->src[i]];
        tx_free[f->src[i]] = begin + ser[i];
        head[i] = begin + to_switch;
    }
    uint32_t *order = calloc(FAN_MSGS, sizeof *order);
    for (uint32_t i = 0; i < FAN_MSGS; i++)
        order[i] = i;
    qsort_r(order, FAN_MSGS, sizeof *order, fan_cmp_head, head);
    for (uint32_t k = 0; k < FAN_MSGS; k++) {
        uint32_t i = order[k];
        sim_time_t begin = head[i] > port_free[f->dst[i]] ? head[i] : port_free[f->dst[i]];
        port_free[f->dst[i]] = begin + ser[i];
        sim_time_t want = begin + ser[i] + deliver;
        if (f->got[i] != want)
            fail_msg("message %u (%u -> %u, %u B): delivered at %llu, expected %llu", i, f->src[i], f->dst[i],
                     f->bytes[i], (unsigned long long)f->got[i], (unsigned long long)want);
    }
    free(order);
    free(head);
    free(ser);
    free(f);
    net_fini(&n);
    sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serialisation),
        cmocka_unit_test(test_one_way),
        cmocka_unit_test(test_loopback),
        cmocka_unit_test(test_busy_poll_skips_interrupt),
        cmocka_unit_test(test_tx_contention),
        cmocka_unit_test(test_cpu_helpers),
        cmocka_unit_test(test_switch_fan_in_matches_lindley),
    };
    return cmocka_run_group_tests_name("net", tests, NULL, NULL);
}
