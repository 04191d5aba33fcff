/*
 * nvme.c - the NVMe device model (see nvme.h).
 */
#include "nvme.h"

#include <math.h>
#include <string.h>

#include "err.h"

void nvme_init(struct nvme_dev *d, struct sim *s, const struct nvme_params *p, uint32_t index)
{
    memset(d, 0, sizeof *d);
    d->s = s;
    d->p = *p;
    SIM_ASSERT(p->internal_parallelism > 0 && p->rand_write_iops > 0 && p->rand_read_iops > 0);
    d->internal_free = sim_xcalloc(p->internal_parallelism, sizeof *d->internal_free);
    /* the latency stage supplies what the throughput stage (1 / IOPS) does not */
    double w1 = 1e6 / p->rand_write_iops, r1 = 1e6 / p->rand_read_iops;
    d->write_dist = p->write_shape ? dist_shifted(&p->write_dist, -w1, 0.5)
                                   : dist_lognormal(fmax(0.5, p->write_latency_us - w1), p->latency_cv);
    d->read_dist = p->read_shape ? dist_shifted(&p->read_dist, -r1, 0.5)
                                 : dist_lognormal(fmax(0.5, p->read_latency_us - r1), p->latency_cv);
    d->rng = sim_rng(s, "nvme", index, "service");
    d->t_reset = sim_now(s);
}

void nvme_fini(struct nvme_dev *d)
{
    free(d->internal_free);
    d->internal_free = NULL;
}

void nvme_submit(struct nvme_dev *d, enum nvme_op op, uint32_t bytes, sim_event_fn done, void *obj,
                 uint64_t arg)
{
    sim_time_t now = sim_now(d->s);
    if (op == NVME_FLUSH) {
        d->flushes++;
        double us = d->p.plp ? d->p.flush_syscall_us
                    : d->p.flush_shape ? dist_sample(&d->p.flush_dist, d->rng) : d->p.flush_latency_us;
        sim_schedule(d->s, (sim_time_t)(us * 1e3 + 0.5), done, obj, arg);
        return;
    }
    double iops, mbps;
    const struct dist *lat;
    if (op == NVME_READ) {
        d->reads++;
        d->bytes_read += bytes;
        iops = d->p.rand_read_iops;
        mbps = d->p.seq_read_mbps;
        lat = &d->read_dist;
    } else {
        d->writes++;
        d->bytes_written += bytes;
        iops = d->p.rand_write_iops;
        mbps = d->p.seq_write_mbps;
        lat = &d->write_dist;
    }
    /* throughput stage: max(1 / IOPS, bytes / bandwidth) */
    sim_time_t x = (sim_time_t)(fmax(1e6 / iops, mbps > 0 ? (double)bytes / mbps : 0) * 1e3 + 0.5);
    sim_time_t start = now > d->xfer_free ? now : d->xfer_free;
    d->xfer_free = start + x;
    d->xfer_busy_ns += (double)x;
    /* latency stage: the earliest free of internal_parallelism servers */
    double us = dist_sample(lat, d->rng);
    if (op == NVME_WRITE && d->p.tail_spike_prob > 0 && gsl_rng_uniform(d->rng) < d->p.tail_spike_prob)
        us += d->p.tail_spike_us;
    uint32_t best = 0;
    for (uint32_t i = 1; i < d->p.internal_parallelism; i++)
        if (d->internal_free[i] < d->internal_free[best])
            best = i;
    sim_time_t arrive = d->xfer_free;
    sim_time_t begin = arrive > d->internal_free[best] ? arrive : d->internal_free[best];
    d->internal_free[best] = begin + (sim_time_t)(us * 1e3 + 0.5);
    if (done)
        sim_schedule_at(d->s, d->internal_free[best], done, obj, arg);
}

void nvme_reset_stats(struct nvme_dev *d)
{
    d->xfer_busy_ns = 0;
    d->t_reset = sim_now(d->s);
    d->reads = d->writes = d->flushes = d->bytes_written = d->bytes_read = 0;
}

double nvme_utilisation(const struct nvme_dev *d)
{
    sim_time_t t = sim_now(d->s) - d->t_reset;
    return t ? d->xfer_busy_ns / (double)t : 0;
}
