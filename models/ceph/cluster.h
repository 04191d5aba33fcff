/*
 * cluster.h - a simulated RBD cluster: hosts, OSDs, images and fio clients.
 *
 * cluster_create builds everything from a resolved cluster_spec (numbers, not
 * profile names: scenario.c resolves those), cluster_run simulates warm-up
 * then the measured interval, and the accessors hand the results to the
 * output writers (fio JSON, perf dump, dump_historic_ops, sim.json).
 */
#ifndef CEPHSIM_MODELS_CLUSTER_H
#define CEPHSIM_MODELS_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "cpu.h"
#include "net.h"
#include "nvme.h"
#include "optracker.h"
#include "perfcounters.h"
#include "placement.h"
#include "workload.h"

enum image_kind { IMAGE_PLAIN, IMAGE_CLONE, IMAGE_FLATTENED };

/* How librbd guards a partial write to a clone object inside the parent overlap. */
enum guard_design {
    GUARD_ASSERT_EXISTS,   /* [stat, write]: librbd since 2012 (commit 4240846f) */
    GUARD_NONE,            /* [write]: no parent (plain/flattened) or beyond the overlap */
    GUARD_STAT_ROUNDTRIP,  /* [stat] round trip, then [write]: librbd before 2012 */
    GUARD_WRITE_FLAG,      /* [write] with a write-class "must exist" flag (proposed) */
    GUARD_OBJECT_MAP_SKIP, /* no guard when the object map says the object exists */
    GUARD_COUNT,
};

extern const char *const image_kind_names[];   /* NULL-terminated */
extern const char *const guard_design_names[]; /* NULL-terminated */

struct image_spec {
    int kind;             /* enum image_kind */
    int guard;            /* enum guard_design */
    double copied_up;     /* fraction of clone objects already copied up at start */
    double parent_written; /* share of each parent object holding data, from offset 0 */
    double written;       /* plain/flattened: fraction of objects written before the run */
    double cached;        /* fraction of the data blocks in their primary's BlueStore data cache at start */
    uint64_t size_bytes;
    uint32_t order;       /* object size = 1 << order (rbd_default_order 22) */
    bool exclusive_lock, object_map; /* object_map is only used with exclusive_lock */
    uint64_t id;          /* rbd_data.<id hex> (image 0; the others derive theirs) */
    char name[64];        /* fio's rbdname of the image ("" = any rbdname no other image has) */
};

struct cluster_spec {
    uint32_t hosts, osds_per_host;
    /* Several OSDs per NVMe (the Reef "1 or 2 OSDs per NVMe?" study: ceph-volume
       lvm batch --osds-per-device N): consecutive OSDs of a host share one drive,
       its queue and internal parallelism.  0 or 1: a drive each. */
    uint32_t osds_per_nvme;
    /* Per-OSD CPU set (numactl --physcpubind, a container's cpuset.cpus): each
       OSD's threads run on osd_cpus hardware threads of their own, which are
       osd_cpus / 2 cores with both SMT siblings when osd_cpus_smt (the Reef
       study's "half physical, half SMT siblings"), else osd_cpus whole cores.
       0: every OSD of a host shares all of its cores (no limit). */
    uint32_t osd_cpus;
    bool osd_cpus_smt;
    /* Which OSDs share one set: each its own (a container per OSD), the OSDs
       of one drive (numactl per NVMe), or every OSD of the host in one set of
       osd_cpus per drive (one numactl list for all of the host's ceph-osd
       processes, as the Reef OSDs-per-NVMe study ran them). */
    enum osd_cpus_scope { OSD_CPUS_PER_OSD, OSD_CPUS_PER_NVME, OSD_CPUS_PER_HOST } osd_cpus_scope;
    uint32_t client_hosts;          /* 0: the clients run on host 0 (the lab) */
    /* with client_hosts 0: fio's job clones are dealt over every OSD host in
       turn (hyperconverged), not all on host 0 */
    bool clients_on_osd_hosts;
    /* RocksDB's flushes and compactions: per txc (false) or when the memtables
       fill, from rocksdb_memtable_fill of a flush's worth at the start */
    bool rocksdb_flush_on_fill;
    double rocksdb_memtable_fill;
    struct cpu_params cpu;
    struct nvme_params nvme;
    struct net_params net;
    uint32_t pool_size, pool_min_size, pg_num;
    /* an erasure-coded pool (pg_pool_t::TYPE_ERASURE, ECBackend): pool_size =
       k + m shards, data in stripes of ec_k x ec_stripe_unit bytes */
    bool pool_erasure;
    uint32_t ec_k, ec_stripe_unit;
    bool failure_domain_host;       /* replicas on distinct hosts (else distinct OSDs) */
    uint64_t device_bytes;          /* each OSD's device size: its CRUSH weight (osd_crush_initial_weight,
                                       default: the size in TiB) */
    int64_t pool_id;                /* pg_pool_t id (0 = 2: the first pool a user creates on Pacific+,
                                       after device_health_metrics = 1); it seeds placement */
    /* A real cluster's CRUSH map (ceph osd crush dump), borrowed; NULL = the map a
       fresh cluster of hosts x osds_per_host builds (placement_build).  With it,
       osd_host (borrowed, per OSD id) says which host runs each OSD. */
    const struct placement_map *crush;
    int32_t crush_rule;             /* with crush: the pool's crush_rule */
    uint32_t n_osds;                /* with crush: OSD ids 0..n_osds-1 */
    const uint32_t *osd_host;
    struct image_spec image;
    /* images of that spec (image.count): named <name>-<i> when more than one,
       each with its own id, header, object map and openers */
    uint32_t image_count;
    /* cbt's volumes_per_client: job clones on a client host are dealt over that
       host's own images (image_count = this x client hosts); 0 = rbdname decides */
    uint32_t volumes_per_client;
    struct ceph_options ceph;
    struct stage_costs cost;
    struct release_traits rel;
    struct workload jobs;           /* borrowed jobs */
    sim_time_t duration_ns, warmup_ns;
    uint64_t seed;
    int64_t wall_epoch_ns;          /* simulated t=0 as a wall-clock instant (dumps) */
};

/* Mean time (ns) between consecutive stages of a write, for the waterfall. */
enum stage_id {
    STAGE_CLIENT_SUBMIT,     /* fio issue -> MOSDOp on the wire */
    STAGE_NET_TO_PRIMARY,    /* wire + NIC + msgr read on the primary */
    STAGE_PRIMARY_QUEUE,     /* initiated -> reached_pg (first) */
    STAGE_PRIMARY_LOCK_WAIT, /* reached_pg -> started (rw lock waits) */
    STAGE_PRIMARY_PREPARE,   /* started -> waiting for subops (execute, issue_repop) */
    STAGE_LOCAL_COMMIT,      /* waiting for subops -> op_commit (BlueStore) */
    STAGE_REPLICA_COMMIT,    /* waiting for subops -> last sub_op_commit_rec */
    STAGE_PRIMARY_REPLY,     /* last commit -> commit_sent */
    STAGE_NET_TO_CLIENT,     /* commit_sent -> client msgr read */
    STAGE_CLIENT_COMPLETE,   /* client msgr -> fio completion */
    STAGE_COUNT,
};
extern const char *const stage_names[STAGE_COUNT];

/* The slowest replica's part of STAGE_REPLICA_COMMIT, from its own op tracker. */
enum replica_stage_id {
    REPLICA_NET_IN,   /* waiting for subops -> replica initiated (MOSDRepOp send, wire, msgr) */
    REPLICA_QUEUE,    /* initiated -> reached_pg/started on the replica (shard queue, PG lock) */
    REPLICA_COMMIT,   /* started -> commit_sent on the replica (do_repop, BlueStore, commit callback) */
    REPLICA_NET_BACK, /* replica commit_sent -> sub_op_commit_rec on the primary (reply, msgr, shard) */
    REPLICA_STAGE_COUNT,
};
extern const char *const replica_stage_names[REPLICA_STAGE_COUNT];

struct cluster;

struct cluster *cluster_create(const struct cluster_spec *spec, struct sim_err *err);
void cluster_destroy(struct cluster *c);

/*
 * One fio I/O as fio's per-I/O logs see it (write_iolog, write_lat_log,
 * write_bw_log, write_iops_log): the job result slot (fio's thread_number - 1),
 * direction, image offset and length, and its issue (fio's start_time),
 * submission (issue_time) and reaping (completion) instants.
 */
struct cluster_io_event {
    uint32_t job;
    int ddir;
    uint64_t offset, len;
    sim_time_t t_issue, t_submitted, t_done;
};

/* Told of every I/O a fio job issues (from t = 0, warm-up included: write_iolog) and of every
   completion counted in the results (after warm-up: the stats and the latency logs). */
struct cluster_io_observer {
    void (*issued)(void *ctx, const struct cluster_io_event *e);    /* t_done = 0 */
    void (*completed)(void *ctx, const struct cluster_io_event *e);
    void *ctx;
};

/* Hosts fio's job clones are dealt over: the client hosts, every OSD host
   with clients_on_osd_hosts, else OSD host 0 alone (the lab). */
uint32_t cluster_spec_fio_hosts(const struct cluster_spec *spec);
/* The host (index into all hosts) of the k-th of those. */
uint32_t cluster_spec_fio_host(const struct cluster_spec *spec, uint32_t k);

/* Set (or with NULL clear) the observer, before cluster_run. */
void cluster_set_io_observer(struct cluster *c, const struct cluster_io_observer *o);
/* When the measured interval began (fio's epoch after ramp_time). */
sim_time_t cluster_measure_start(const struct cluster *c);

/* Simulate warm-up then the measured interval; progress(ctx, fraction done),
   if given, is called every 1 % of simulated time. */
void cluster_run(struct cluster *c, void (*progress)(void *ctx, double done), void *ctx);

/* Results (owned by c; valid until cluster_destroy). */
struct sim *cluster_sim(struct cluster *c);
uint32_t cluster_n_osds(const struct cluster *c);
/* The spec's wall_epoch_ns: the wall-clock instant simulated t=0 stands for in dumps. */
int64_t cluster_wall_epoch_ns(const struct cluster *c);
const struct osd_perf *cluster_osd_perf(const struct cluster *c, uint32_t osd);
const struct bluestore_perf *cluster_bluestore_perf(const struct cluster *c, uint32_t osd);
const struct optracker *cluster_optracker(const struct cluster *c, uint32_t osd);
uint32_t cluster_n_jobs(const struct cluster *c);
/* librbd clients (one per fio job clone) and their Objecter's counters. */
uint32_t cluster_n_clients(const struct cluster *c);
/* OSD osd's AsyncMessenger workers (none for Crimson): their counters, and each one's CPU time
   since the reset in running_ns (the caller's array of at least the returned count, or NULL). */
struct msgr_worker_perf;
uint32_t cluster_osd_msgr_workers(const struct cluster *c, uint32_t osd, const struct msgr_worker_perf **perf,
                                  uint64_t *running_ns, uint32_t max);
struct objecter_perf;
const struct objecter_perf *cluster_client_objecter_perf(const struct cluster *c, uint32_t i);
/* The client kind job clone i runs on: "librbd" or "krbd" (client_ops.name). */
const char *cluster_client_kind(const struct cluster *c, uint32_t i);
const struct job_result *cluster_job_results(const struct cluster *c);
/* Mean per-stage times of measured client writes (ns) and their count. */
void cluster_stage_means(const struct cluster *c, double out_ns[STAGE_COUNT], uint64_t *n);
/* Mean split of the replica stage (ns). */
void cluster_replica_stage_means(const struct cluster *c, double out_ns[REPLICA_STAGE_COUNT]);
/* Engine and utilisation figures of a run (for sim.json). */
struct cluster_stats {
    uint64_t events;                /* simulated events so far */
    sim_time_t measured_ns;         /* now - start of the measured interval */
    const char *rw_lock_rule;       /* effective get_rw_locks rule: "excl_if_read" or "excl_if_read_data" */
    uint32_t n_hosts, n_osd_hosts, n_osds;
    uint64_t peak_ops_in_flight;    /* most OSD ops alive at once */
    uint32_t n_images, n_clients;
    /* per-object state created on first touch (all images, parents included):
       OSD-side RADOS objects, and the clients' librbd state of them */
    uint64_t object_states, client_object_states;
    uint64_t object_state_bytes;    /* what both take (tables and entries) */
};
/* One client (one fio job clone with its own librbd instance and open image). */
struct cluster_client_stats {
    uint32_t client;                /* client.<id> as the OSDs print it */
    uint32_t image;                 /* index of the image it opened */
    const char *image_name;
    uint64_t lock_acquisitions, lock_releases, lock_requests_sent, lock_requests_received, lock_busy;
    uint64_t notifies_sent, notifies_received;
    uint64_t writes_blocked;        /* writes the exclusive-lock layer queued */
    double lock_wait_ns;            /* their summed wait */
};
/* One image. */
struct cluster_image_stats {
    const char *name;
    uint64_t id;                    /* rbd_data.<id hex> */
    uint32_t openers;               /* clients that opened it */
    uint64_t objects_touched;       /* RADOS object states created */
};
struct cluster_host_stats {
    bool osd_host;                  /* else a client host */
    double busy_cores, cpu_busy_ns, cpu_utilisation;
    double client_cpu_ns;           /* of cpu_busy_ns, what the clients on it used (fio, librbd/krbd) */
    uint64_t wakeups;
    double wake_ns_total;
};
/* The threads of one name in one process on a host (all its OSDs' tp_osd_tp
   together, say), over the measured period: what `top -H` and /proc's
   voluntary_ctxt_switches show of them. */
struct cluster_thread_stats {
    const char *process;            /* "ceph-osd", "fio" (with librbd in it), "kernel" (krbd) */
    const char *name;               /* the thread's comm: tp_osd_tp, msgr-worker, bstore_kv_sync... */
    uint32_t threads;
    double cpu_ns;
    uint64_t wakeups;               /* wakes from sleep: each after a voluntary context switch */
};
#define CLUSTER_THREAD_KINDS_MAX 32
struct cluster_osd_stats {
    double device_utilisation;
    uint64_t device_reads, device_writes, device_flushes;
    uint64_t txcs, kv_batches;      /* BlueStore transactions and kv_sync batches */
};
void cluster_stats(const struct cluster *c, struct cluster_stats *out);
/* Host h (OSD hosts first, then client hosts). */
void cluster_host_stats(const struct cluster *c, uint32_t h, struct cluster_host_stats *out);
void cluster_osd_stats(const struct cluster *c, uint32_t osd, struct cluster_osd_stats *out);
/* Host h's threads grouped by (process, name), in creation order, the threads of its
   OSDs' CPU sets with them; returns how many kinds (at most max) were written. */
uint32_t cluster_host_thread_stats(const struct cluster *c, uint32_t h, struct cluster_thread_stats *out,
                                   uint32_t max);
/* The same over every host for one process ("ceph-osd": all the OSDs' threads by name). */
uint32_t cluster_process_thread_stats(const struct cluster *c, const char *process, struct cluster_thread_stats *out,
                                      uint32_t max);
/* Client i (0 .. n_clients - 1, job order) and image i (0 .. n_images - 1);
   lock counters cover the whole run, warm-up included. */
void cluster_client_stats(const struct cluster *c, uint32_t i, struct cluster_client_stats *out);
void cluster_image_stats(const struct cluster *c, uint32_t i, struct cluster_image_stats *out);

#endif
