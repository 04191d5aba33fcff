/*
 * hwsweep.c - the hardware models alone, as a table for a closing note.
 *
 * (a) fio-style QD sweep of one NVMe profile (models/hw/nvme.c, default pm983):
 *     a closed loop keeps QD 4 KiB random writes (then reads) outstanding
 *     against the bare device for -t seconds of simulated time per point
 *     (the first 10 % is warm-up), reporting IOPS, mean and p99 completion
 *     latency next to the profile's datasheet figures (sustained IOPS cap,
 *     typical QD1 latency).  The profile is mapped to nvme_params as
 *     explorer/io/scenario.c:scenario_to_spec does.
 * (b) a 4 KiB write message (4096 B + 320 B messenger header) over each NIC
 *     profile through the cut-through ToR switch (models/hw/net.c): wire
 *     serialisation alone, one hop (serialisation + both PHYs of a link),
 *     and the unloaded one-way delay, simulated with net_send and checked
 *     against net_one_way_ns.
 *
 *   hwsweep [-n NVME_PROFILE] [-t SECONDS]      (run from the repo root)
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprofile.h"
#include "net.h"
#include "nvme.h"
#include "scenario.h"
#include "sim.h"
#include "stats.h"

#define MSG_BYTES (4096 + 320)

static struct nvme_params nvme_from_profile(const struct hw_nvme *nv)
{
    struct nvme_params p;
    scenario_nvme_params(nv, &p);
    return p;
}

static struct net_params net_from_profiles(const struct hw_nic *nic, const struct hw_switch *sw)
{
    struct net_params p;
    scenario_net_params(nic, sw, 0, &p); /* no loopback: every message crosses the switch */
    return p;
}

/* ---- (a) NVMe QD sweep ---- */

struct qd_loop {
    struct nvme_dev *d;
    enum nvme_op op;
    sim_time_t t_measure, t_end; /* I/Os submitted in [t_measure, t_end) are measured */
    uint64_t done;
    struct hist lat;
};

static void io_done(struct sim *s, void *obj, uint64_t t_submit)
{
    struct qd_loop *q = obj;
    sim_time_t now = sim_now(s);
    if (t_submit >= q->t_measure && t_submit < q->t_end) {
        q->done++;
        hist_add(&q->lat, now - t_submit);
    }
    if (now < q->t_end)
        nvme_submit(q->d, q->op, 4096, io_done, q, now);
}

static void qd_point(const struct nvme_params *p, enum nvme_op op, uint32_t qd, double seconds,
                     uint64_t seed, double *iops, double *mean_us, double *p99_us)
{
    struct sim *s = sim_create(seed);
    struct nvme_dev d;
    nvme_init(&d, s, p, 0);
    struct qd_loop *q = calloc(1, sizeof *q);
    sim_time_t total = (sim_time_t)llround(seconds * 1e9);
    q->d = &d;
    q->op = op;
    q->t_measure = total / 10;
    q->t_end = total;
    hist_reset(&q->lat);
    for (uint32_t i = 0; i < qd; i++)
        nvme_submit(&d, op, 4096, io_done, q, 0);
    sim_run(s, SIM_TIME_MAX);
    *iops = (double)q->done / ((double)(q->t_end - q->t_measure) / 1e9);
    *mean_us = hist_mean(&q->lat) / 1e3;
    *p99_us = (double)hist_percentile(&q->lat, 99) / 1e3;
    free(q);
    nvme_fini(&d);
    sim_destroy(s);
}

static void nvme_table(const struct hw_nvme *nv, double seconds)
{
    static const uint32_t qds[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    struct nvme_params p = nvme_from_profile(nv);
    printf("### NVMe %s (%s): device-only 4 KiB QD sweep, %.2f s simulated per point\n\n", nv->name,
           nv->model, seconds);
    for (int w = 1; w >= 0; w--) {
        enum nvme_op op = w ? NVME_WRITE : NVME_READ;
        double spec_iops = w ? nv->rand_write_4k_iops : nv->rand_read_4k_iops;
        double spec_lat = w ? nv->write_latency_us : nv->read_latency_us;
        printf("%s\n\n", w ? "randwrite" : "randread");
        printf("| QD | IOPS | mean us | p99 us | spec IOPS | spec QD1 us |\n");
        printf("|---:|---:|---:|---:|---:|---:|\n");
        for (size_t i = 0; i < sizeof qds / sizeof qds[0]; i++) {
            double iops, mean, p99;
            qd_point(&p, op, qds[i], seconds, 1 + i, &iops, &mean, &p99);
            printf("| %u | %.0f | %.1f | %.1f | %.0f | %.1f |\n", qds[i], iops, mean, p99, spec_iops,
                   spec_lat);
        }
        printf("\n");
    }
}

/* ---- (b) network ---- */

static void delivered(struct sim *s, void *obj, uint64_t arg)
{
    *(sim_time_t *)obj = sim_now(s);
}

static int net_table(const char *profiles_dir, struct sim_err *err)
{
    static const char *const nics[] = {"10gbase-t", "10gbe-sfp", "25gbe", "100gbe"};
    struct hw_switch sw;
    int rc = hwprofile_load_switch("tor-cut-through", profiles_dir, &sw, err);
    if (rc < 0)
        return rc;
    printf("### Network: one %d B message (4 KiB + 320 B header), switch %s (%.2f us port to port)\n\n",
           MSG_BYTES, sw.name, sw.port_to_port_latency_us);
    printf("| NIC | Gb/s | frames | wire B | serialisation us | PHY per hop us | one hop us | "
           "one-way us | of which switch + IRQ wake us |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < sizeof nics / sizeof nics[0]; i++) {
        struct hw_nic nic;
        if ((rc = hwprofile_load_nic(nics[i], profiles_dir, &nic, err)) < 0)
            return rc;
        struct net_params p = net_from_profiles(&nic, &sw);
        uint32_t frames = hwprofile_nic_frames(&nic, MSG_BYTES);
        double ser_us = (double)net_serialisation_ns(&p, MSG_BYTES) / 1e3;
        /* simulate it on an idle network and check the closed form */
        struct sim *s = sim_create(1);
        struct net n;
        net_init(&n, s, &p, 2);
        sim_time_t t = 0;
        net_send(&n, 0, 1, MSG_BYTES, delivered, &t, 0);
        sim_run(s, SIM_TIME_MAX);
        net_fini(&n);
        sim_destroy(s);
        if (t != net_one_way_ns(&p, MSG_BYTES))
            return sim_errf(err, -EPROTO, "%s: simulated one-way %llu ns != net_one_way_ns %llu ns",
                            nics[i], (unsigned long long)t,
                            (unsigned long long)net_one_way_ns(&p, MSG_BYTES));
        printf("| %s | %.0f | %u | %u | %.3f | %.2f | %.3f | %.3f | %.2f |\n", nic.name,
               nic.line_rate_gbps, frames, MSG_BYTES + frames * (uint32_t)nic.header_bytes, ser_us,
               nic.phy_latency_us, ser_us + nic.phy_latency_us, (double)t / 1e3,
               sw.port_to_port_latency_us + nic.irq_wake_us);
    }
    printf("\none hop = serialisation + PHY; one-way (cut-through, 2 hops) = serialisation + "
           "2 x PHY + switch + IRQ wake.\n");
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: hwsweep [-n NVME_PROFILE] [-t SECONDS]\n"
               "  -n  NVMe profile name or path (default pm983)\n"
               "  -t  simulated seconds per QD point, > 0 (default 0.5)\n");
}

int main(int argc, char **argv)
{
    const char *nvme_name = "pm983";
    double seconds = 0.5;
    static const struct option longopts[] = {
        {"nvme", required_argument, NULL, 'n'},
        {"time", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "n:t:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            nvme_name = optarg;
            break;
        case 't': {
            char *end;
            seconds = strtod(optarg, &end);
            if (*end || !(seconds > 0) || seconds > 1000) {
                fprintf(stderr, "hwsweep: -t %s: expected a number of seconds in (0, 1000]\n", optarg);
                return 2;
            }
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        usage(stderr);
        return 2;
    }
    char dir[HWPROFILE_PATH_MAX];
    struct sim_err err = {0};
    struct hw_nvme nv;
    if (hwprofile_find_dir(dir, sizeof dir, &err) < 0 ||
        hwprofile_load_nvme(nvme_name, dir, &nv, &err) < 0) {
        fprintf(stderr, "hwsweep: %s\n", err.msg);
        return 1;
    }
    nvme_table(&nv, seconds);
    if (net_table(dir, &err) < 0) {
        fprintf(stderr, "hwsweep: %s\n", err.msg);
        return 1;
    }
    return 0;
}
