/*
 * nvme.c - the NVMe device model (see nvme.h).  The request travels
 * xfer -> internal -> done; a small per-request context rides in the station
 * waiter's arg, taken from a pool so that I/O allocates nothing.
 */
#include "nvme.h"

#include <math.h>
#include <string.h>

#include "err.h"

struct nvme_req {
    struct nvme_req *next;
    struct nvme_dev *d;
    sim_event_fn done;
    void *obj;
    uint64_t arg;
    enum nvme_op op;
};


static struct nvme_req *req_get(struct nvme_dev *d);
static void req_put(struct nvme_dev *d, struct nvme_req *r);

void nvme_init(struct nvme_dev *d, struct sim *s, const struct nvme_params *p, uint32_t index)
{
    memset(d, 0, sizeof *d);
    d->s = s;
    d->p = *p;
    SIM_ASSERT(p->internal_parallelism > 0 && p->rand_write_iops > 0 && p->rand_read_iops > 0);
    station_init(&d->xfer, s, 1);
    station_init(&d->internal, s, p->internal_parallelism);
    double w1 = 1e6 / p->rand_write_iops, r1 = 1e6 / p->rand_read_iops;
    d->write_dist = dist_lognormal(fmax(0.5, p->write_latency_us - w1), p->latency_cv);
    d->read_dist = dist_lognormal(fmax(0.5, p->read_latency_us - r1), p->latency_cv);
    d->rng = sim_rng(s, "nvme", index, "service");
}

static void internal_done(struct sim *s, void *obj, uint64_t arg)
{
    struct nvme_req *r = obj;
    struct nvme_dev *d = r->d;
    sim_event_fn done = r->done;
    void *o = r->obj;
    uint64_t a = r->arg;
    req_put(d, r);
    if (done)
        done(s, o, a);
}

static void xfer_done(struct sim *s, void *obj, uint64_t arg)
{
    struct nvme_req *r = obj;
    struct nvme_dev *d = r->d;
    double us = dist_sample(r->op == NVME_READ ? &d->read_dist : &d->write_dist, d->rng);
    if (d->p.tail_spike_prob > 0 && gsl_rng_uniform(d->rng) < d->p.tail_spike_prob)
        us += d->p.tail_spike_us;
    station_submit(&d->internal, (sim_time_t)llround(us * 1e3), internal_done, r, 0);
}

void nvme_submit(struct nvme_dev *d, enum nvme_op op, uint32_t bytes, sim_event_fn done, void *obj,
                 uint64_t arg)
{
    if (op == NVME_FLUSH) {
        d->flushes++;
        double us = d->p.plp ? d->p.flush_syscall_us : d->p.flush_latency_us;
        sim_schedule(d->s, (sim_time_t)llround(us * 1e3), done, obj, arg);
        return;
    }
    struct nvme_req *r = req_get(d);
    r->done = done;
    r->obj = obj;
    r->arg = arg;
    r->op = op;
    double iops, mbps;
    if (op == NVME_READ) {
        d->reads++;
        d->bytes_read += bytes;
        iops = d->p.rand_read_iops;
        mbps = d->p.seq_read_mbps;
    } else {
        d->writes++;
        d->bytes_written += bytes;
        iops = d->p.rand_write_iops;
        mbps = d->p.seq_write_mbps;
    }
    double us = fmax(1e6 / iops, mbps > 0 ? (double)bytes / mbps : 0);
    station_submit(&d->xfer, (sim_time_t)llround(us * 1e3), xfer_done, r, 0);
}

void nvme_reset_stats(struct nvme_dev *d)
{
    station_reset_stats(&d->xfer);
    station_reset_stats(&d->internal);
    d->reads = d->writes = d->flushes = d->bytes_written = d->bytes_read = 0;
}

double nvme_utilisation(const struct nvme_dev *d)
{
    return station_utilisation(&d->xfer);
}

/* The free list lives in the waiter-sized blocks of the simulator: a request
   is small and short-lived, so reuse the engine's waiter pool storage. */
_Static_assert(sizeof(struct nvme_req) <= sizeof(struct sim_waiter), "nvme_req must fit a waiter");

static struct nvme_req *req_get(struct nvme_dev *d)
{
    struct nvme_req *r = (struct nvme_req *)sim_waiter_get(d->s);
    memset(r, 0, sizeof *r);
    r->d = d;
    return r;
}

static void req_put(struct nvme_dev *d, struct nvme_req *r)
{
    sim_waiter_put(d->s, (struct sim_waiter *)r);
}
