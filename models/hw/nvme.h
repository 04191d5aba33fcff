/*
 * nvme.h - an NVMe SSD as BlueStore's KernelDevice sees it.
 *
 * Two stages per I/O: a single "program/transfer" stage whose service time is
 * max(1 / sustained IOPS, bytes / sequential bandwidth) — it caps throughput
 * at the drive's sustained random-write (or read) IOPS and bandwidth — and an
 * "internal" stage of internal_parallelism servers that supplies the rest of
 * the typical latency (typical QD=1 latency minus the first stage), drawn
 * from the profile's measured percentiles when it has them, else a lognormal
 * with that mean.  At QD=1 an I/O therefore takes the typical latency; at
 * high QD the IOPS saturate at the sustained figure.
 *
 * Sequential I/O takes the datasheet's sequential latency instead (PM983:
 * 15 us against 85 / 50 us random read / write) and is bounded by bandwidth
 * only: its first stage is bytes / sequential bandwidth (the random IOPS caps
 * come from mapping and garbage collection of scattered pages, which a
 * stream does not pay).  A write is sequential when the caller says so
 * (NVME_WRITE_SEQ: BlueFS appending to the RocksDB WAL); a read is when it
 * starts where the device's previous read ended (nvme_read_at: the drive's
 * read-ahead follows one stream).  With a percentile table, the sequential
 * shape is the random one scaled to the sequential typical latency.
 *
 * Flush (fdatasync / BlueFS fsync -> _flush_bdev)
 * costs only a syscall on power-loss-protected drives (no volatile write
 * cache), else flush_latency.  A tail-spike knob models the PM983
 * write-queue latency spikes Ceph upstream saw before a firmware update.
 */
#ifndef CEPHSIM_MODELS_NVME_H
#define CEPHSIM_MODELS_NVME_H

#include <stdbool.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>

#include "dist.h"
#include "queueing.h"

enum nvme_op {
    NVME_READ,      /* random read */
    NVME_WRITE,     /* random write (BlueStore data, deferred writes) */
    NVME_FLUSH,
    NVME_WRITE_SEQ, /* append to a sequential stream (BlueFS WAL) */
};

struct nvme_params {
    double read_latency_us, write_latency_us;   /* typical QD=1, 4 KiB random */
    double seq_read_latency_us, seq_write_latency_us; /* typical QD=1, 4 KiB sequential
                                                          (0: = random) */
    double latency_cv;                          /* spread of the internal stage */
    double rand_read_iops, rand_write_iops;     /* sustained 4 KiB */
    double seq_read_mbps, seq_write_mbps;       /* MB/s (10^6 B/s) */
    uint32_t internal_parallelism;
    bool plp;                                   /* no volatile write cache */
    double flush_latency_us;                    /* with a volatile cache */
    double flush_syscall_us;                    /* fdatasync on a PLP drive */
    double flush_sleeps;                        /* the flushing thread's sleeps per flush (>= 1) */
    double tail_spike_prob, tail_spike_us;  /* write-queue stalls (PM983 firmware) */
    /* measured latency shapes (the profile's percentile tables), when known;
       else a lognormal with mean = typical latency and CV latency_cv */
    bool read_shape, write_shape, flush_shape;
    struct dist read_dist, write_dist, flush_dist; /* whole QD=1 latency, us */
};

/*
 * Both stages are FIFO with arrivals in time order, so they are kept as
 * "next free" times (Lindley's recursion): an I/O costs one event.
 */
struct nvme_dev {
    struct sim *s;
    struct nvme_params p;
    sim_time_t xfer_free;        /* throughput stage: one server */
    sim_time_t *internal_free;   /* latency stage: internal_parallelism servers (a 4-ary heap) */
    sim_time_t *internal_mem;    /* the allocation internal_free points into */
    double xfer_busy_ns;
    sim_time_t t_reset;
    struct dist read_dist, write_dist;
    struct dist seq_read_dist, seq_write_dist;
    uint64_t read_end;           /* where the last read ended (read-ahead stream) */
    bool read_end_valid;
    gsl_rng *rng;
    uint64_t reads, writes, flushes, bytes_written, bytes_read;
    uint64_t seq_reads, seq_writes;
};

void nvme_init(struct nvme_dev *d, struct sim *s, const struct nvme_params *p, uint32_t index);
void nvme_fini(struct nvme_dev *d);
/* Submit one I/O; done(sim, obj, arg) runs at completion (done may be NULL for reads/writes). */
void nvme_submit(struct nvme_dev *d, enum nvme_op op, uint32_t bytes, sim_event_fn done, void *obj,
                 uint64_t arg);
/* A read of bytes at device address addr: sequential if it starts where the
   previous read ended, else random. */
void nvme_read_at(struct nvme_dev *d, uint64_t addr, uint32_t bytes, sim_event_fn done, void *obj,
                  uint64_t arg);
void nvme_reset_stats(struct nvme_dev *d);
/* Utilisation of the throughput stage since the last reset. */
double nvme_utilisation(const struct nvme_dev *d);

#endif
