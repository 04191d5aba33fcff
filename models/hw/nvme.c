/*
 * nvme.c - the NVMe device model (see nvme.h).
 */
#include "nvme.h"

#include <math.h>
#include <string.h>

#include "err.h"

/* d with every value multiplied by k (k > 0). */
static struct dist dist_scaled(const struct dist *d, double k)
{
    switch (d->kind) {
    case DIST_LOGNORMAL: return dist_lognormal(d->a * k, d->b);
    case DIST_NORMAL: return dist_normal(d->a * k, d->b * k);
    case DIST_EXP: return dist_exp(d->a * k);
    case DIST_CONST: return dist_const(d->a * k);
    case DIST_UNIFORM: return dist_uniform(d->a * k, d->b * k);
    case DIST_EMPIRICAL: break;
    }
    struct dist e = *d;
    for (int i = 0; i < e.n; i++)
        e.v[i] *= k;
    return e;
}

/*
 * The latency stage of one direction: the whole typical QD=1 latency
 * (measured shape, or a lognormal of mean typical_us) minus what the
 * throughput stage already takes (x1 us); floored at 0.5 us.
 */
static struct dist latency_stage(bool shape, const struct dist *measured, double typical_us, double x1,
                                 double cv)
{
    return shape ? dist_shifted(measured, -x1, 0.5) : dist_lognormal(fmax(0.5, typical_us - x1), cv);
}

void nvme_init(struct nvme_dev *d, struct sim *s, const struct nvme_params *p, uint32_t index)
{
    memset(d, 0, sizeof *d);
    d->s = s;
    d->p = *p;
    SIM_ASSERT(p->internal_parallelism > 0 && p->rand_write_iops > 0 && p->rand_read_iops > 0);
    /* placed so that each node's four children share one aligned 32 bytes */
    d->internal_mem = sim_xcalloc_aligned(p->internal_parallelism + 3, sizeof *d->internal_free, 64);
    d->internal_free = d->internal_mem + 3;
    /* the latency stage supplies what the throughput stage (1 / IOPS) does not */
    double w1 = 1e6 / p->rand_write_iops, r1 = 1e6 / p->rand_read_iops;
    d->write_dist = latency_stage(p->write_shape, &p->write_dist, p->write_latency_us, w1, p->latency_cv);
    d->read_dist = latency_stage(p->read_shape, &p->read_dist, p->read_latency_us, r1, p->latency_cv);
    /* sequential: the throughput stage of 4 KiB is 4096 B / bandwidth (MB/s =
       B/us); a measured (random) shape is scaled to the sequential latency */
    double sw = p->seq_write_latency_us > 0 ? p->seq_write_latency_us : p->write_latency_us;
    double sr = p->seq_read_latency_us > 0 ? p->seq_read_latency_us : p->read_latency_us;
    double sw1 = p->seq_write_mbps > 0 ? 4096.0 / p->seq_write_mbps : 0;
    double sr1 = p->seq_read_mbps > 0 ? 4096.0 / p->seq_read_mbps : 0;
    struct dist ws = p->write_shape ? dist_scaled(&p->write_dist, sw / p->write_latency_us) : p->write_dist;
    struct dist rs = p->read_shape ? dist_scaled(&p->read_dist, sr / p->read_latency_us) : p->read_dist;
    d->seq_write_dist = latency_stage(p->write_shape, &ws, sw, sw1, p->latency_cv);
    d->seq_read_dist = latency_stage(p->read_shape, &rs, sr, sr1, p->latency_cv);
    d->rng = sim_rng(s, "nvme", index, "service");
    d->t_reset = sim_now(s);
}

void nvme_fini(struct nvme_dev *d)
{
    free(d->internal_mem);
    d->internal_mem = d->internal_free = NULL;
}

/*
 * The latency stage's servers are kept as a 4-ary min-heap of the times
 * they are next free: the earliest is [0] and the command it takes frees it
 * later, so the root is replaced and sifted down (3 levels for 48 servers,
 * each node's children in one 32-byte block: at 1,000 OSDs the heap is cold
 * and a binary heap's 6 levels cost a cache line each).  The servers are
 * identical and the root is the minimum whatever the heap's shape, so which
 * of several equally early ones serves changes nothing.
 */
static void servers_replace_min(sim_time_t *h, uint32_t n, sim_time_t v)
{
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 4 * i + 1;
        if (c >= n)
            break;
        uint32_t best = c, end = c + 4 < n ? c + 4 : n;
        for (uint32_t k = c + 1; k < end; k++)
            if (h[k] < h[best])
                best = k;
        if (v <= h[best])
            break;
        h[i] = h[best];
        i = best;
    }
    h[i] = v;
}

/* Both stages for one read or write; seq selects the sequential figures. */
static void submit_rw(struct nvme_dev *d, bool write, bool seq, uint32_t bytes, sim_event_fn done, void *obj,
                      uint64_t arg)
{
    sim_time_t now = sim_now(d->s);
    double iops, mbps;
    const struct dist *lat;
    if (!write) {
        d->reads++;
        d->seq_reads += seq;
        d->bytes_read += bytes;
        iops = d->p.rand_read_iops;
        mbps = d->p.seq_read_mbps;
        lat = seq ? &d->seq_read_dist : &d->read_dist;
    } else {
        d->writes++;
        d->seq_writes += seq;
        d->bytes_written += bytes;
        iops = d->p.rand_write_iops;
        mbps = d->p.seq_write_mbps;
        lat = seq ? &d->seq_write_dist : &d->write_dist;
    }
    /* throughput stage: max(1 / IOPS, bytes / bandwidth); a stream: bandwidth only */
    double xfer_us = mbps > 0 ? (double)bytes / mbps : 0;
    if (!seq)
        xfer_us = fmax(1e6 / iops, xfer_us);
    sim_time_t x = (sim_time_t)(xfer_us * 1e3 + 0.5);
    sim_time_t start = now > d->xfer_free ? now : d->xfer_free;
    d->xfer_free = start + x;
    d->xfer_busy_ns += (double)x;
    /* latency stage: the earliest free of internal_parallelism servers */
    double us = dist_sample(lat, d->rng);
    if (write && d->p.tail_spike_prob > 0 && gsl_rng_uniform(d->rng) < d->p.tail_spike_prob)
        us += d->p.tail_spike_us;
    sim_time_t arrive = d->xfer_free;
    sim_time_t begin = arrive > d->internal_free[0] ? arrive : d->internal_free[0];
    sim_time_t end = begin + (sim_time_t)(us * 1e3 + 0.5);
    servers_replace_min(d->internal_free, d->p.internal_parallelism, end);
    if (done)
        sim_schedule_at(d->s, end, done, obj, arg);
}

void nvme_submit(struct nvme_dev *d, enum nvme_op op, uint32_t bytes, sim_event_fn done, void *obj,
                 uint64_t arg)
{
    if (op == NVME_FLUSH) {
        d->flushes++;
        double us = d->p.plp ? d->p.flush_syscall_us
                    : d->p.flush_shape ? dist_sample(&d->p.flush_dist, d->rng) : d->p.flush_latency_us;
        sim_schedule(d->s, (sim_time_t)(us * 1e3 + 0.5), done, obj, arg);
        return;
    }
    submit_rw(d, op != NVME_READ, op == NVME_WRITE_SEQ, bytes, done, obj, arg);
}

void nvme_read_at(struct nvme_dev *d, uint64_t addr, uint32_t bytes, sim_event_fn done, void *obj,
                  uint64_t arg)
{
    bool seq = d->read_end_valid && addr == d->read_end;
    d->read_end = addr + bytes;
    d->read_end_valid = true;
    submit_rw(d, false, seq, bytes, done, obj, arg);
}

void nvme_reset_stats(struct nvme_dev *d)
{
    d->xfer_busy_ns = 0;
    d->t_reset = sim_now(d->s);
    d->reads = d->writes = d->flushes = d->bytes_written = d->bytes_read = 0;
    d->seq_reads = d->seq_writes = 0;
}

double nvme_utilisation(const struct nvme_dev *d)
{
    sim_time_t t = sim_now(d->s) - d->t_reset;
    return t ? d->xfer_busy_ns / (double)t : 0;
}
