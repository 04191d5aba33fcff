/*
 * cluster-internal.h - the cluster's shared state: what every model file of
 * the cluster (osd.c, bluestore.c through its env, librbd.c, replay.c) reaches
 * through the cluster it belongs to: the spec, the simulator, hosts, network,
 * placement, images, pools of ops.  Private to models/ceph: other code goes
 * through cluster.h.  Each model's own state is in its own header (osd.h,
 * librbd.h, rados.h, msgr.h; BlueStore's is private to bluestore.c).
 */
#ifndef CEPHSIM_MODELS_CEPH_CLUSTER_INTERNAL_H
#define CEPHSIM_MODELS_CEPH_CLUSTER_INTERNAL_H

#include "cluster.h"
#include "cpu.h"
#include "net.h"
#include "opinfo.h"
#include "pool.h"
#include "queueing.h"
#include "rados.h"

struct osd;
struct client;
struct fio_io;

struct cluster {
    struct cluster_spec spec;
    struct sim *s;
    enum rw_lock_rule lock_rule;
    struct net net;
    uint32_t n_hosts;               /* OSD hosts + client hosts */
    struct cpu_host *hosts;
    /* spec.osd_cpus > 0: the OSDs' CPU sets (cpusets), else NULL: n_osds of
       them, set k used by the OSDs osd_cpuset_index() gives k; a set no OSD
       uses (a drive's second OSD's, a host scope's past n_hosts) has host
       UINT32_MAX in osd_cpuset_host and stays idle */
    struct cpu_host *osd_cpusets;
    uint32_t *osd_cpuset_host;
    uint32_t n_osd_cpusets;         /* 0 without sets */
    struct osd *osds;
    uint32_t n_osds;
    uint32_t *acting;               /* pg_num x pool_size OSD ids, primary first */
    uint32_t *pg_local;             /* pg_num x pool_size: the PG's index in that OSD's pgs */
    struct image *images;           /* image.count of them (rados.h) */
    uint32_t n_images;
    struct image parent;            /* the clones' parent (kind clone only) */
    struct client *clients;
    uint32_t n_clients;
    struct job_result *results;
    uint32_t n_results;
    struct pool op_pool, rados_pool, io_pool, msg_pool;
    bool measuring;
    sim_time_t t_measure_start, t_end;
    double stage_sum[STAGE_COUNT];
    double replica_sum[REPLICA_STAGE_COUNT];
    uint64_t replica_n;
    uint64_t stage_n;
    double log_cost_us;             /* per stage, from the debug_* levels */
    char (*subops_event)[48];       /* per PG */
    struct cluster_io_observer io_obs; /* fio's per-I/O logs; fns NULL = none */
};

/* cluster.c */
const uint32_t *cluster_acting(const struct cluster *c, uint32_t pg);
/* The index of PG pg in OSD osd's local PGs (osd must be in its acting set). */
uint32_t cluster_pg_local(const struct cluster *c, uint32_t pg, uint32_t osd);
/* "waiting for subops from 1,2" with the PG's replica ids (an interned string). */
const char *cluster_subops_event(const struct cluster *c, uint32_t pg);
uint32_t cluster_object_pg(const struct cluster *c, const struct image *img, uint64_t objno);
/* Time-stamped stage accounting of a finished, measured client write. */
void cluster_account_stages(struct cluster *c, const struct fio_io *io);
/* The OSD whose drive OSD id uses (osds_per_nvme > 1: its drive's first). */
uint32_t osd_drive_first(const struct cluster *c, uint32_t id);
/* The index in osd_cpusets of the CPU set OSD id runs on (spec.osd_cpus_scope). */
uint32_t osd_cpuset_index(const struct cluster *c, uint32_t id);

/* The CPU cost of a stage including gathered logging. */
static inline double stage_cost(const struct cluster *c, double us)
{
    return us + c->log_cost_us;
}

#endif
