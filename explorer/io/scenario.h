/*
 * scenario.h - scenario files: a cluster, a pool, an image, clients (fio job
 * files) and Ceph options, resolved into a cluster_spec.
 *
 * Every scenario value has a path ("cluster.nic", "ceph.osd_op_num_shards_ssd",
 * "fio.iodepth", "hw.nvme.write_latency_us", "sim.seed"), the same for JSON
 * files, `cephsim run --set path=value` and the explorer's sweep axes.
 * Sections and their tables:
 *   cluster.*  scenario_cluster_params   (profile names, topology, host tunings)
 *   pool.*     scenario_pool_params
 *   image.*    scenario_image_params  (the image spec; image.count of them)
 *   clients.*  scenario_clients_params (volumes_per_client), beside the jobs
 *   sim.*      scenario_sim_params
 *   ceph.*     ceph_option_params (config.h), by Ceph's own option names
 *   cost.*     stage_cost_params  (config.h), CPU per stage
 *   hw.cpu|nvme|nic|switch.*  fields of the hardware profiles (hwprofile.h)
 *   fio.*      any fio option, applied to every job (fiojob.h)
 *   clients    {"jobfile": "path.fio"} or {"jobs": "inline job file text"}, and
 *              volumes_per_client
 * Errors name the file and the JSON path; nothing is half-applied.
 */
#ifndef CEPHSIM_MODELS_SCENARIO_H
#define CEPHSIM_MODELS_SCENARIO_H

#include <stdbool.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "cluster.h"
#include "config.h"
#include "fiojob.h"
#include "hwprofile.h"

struct scenario_cluster {
    char host[PARAM_STR_MAX];       /* host profile: defaults for the four parts and OSDs per host */
    int64_t hosts, osds_per_host, client_hosts;
    bool clients_on_osd_hosts;      /* fio dealt over the OSD hosts (hyperconverged) */
    double busy_poll;               /* net.core.busy_poll, us (0: off) */
    int cpu_scheduler;              /* enum cpu_sched: an index in cpu_scheduler_names */
    int64_t osds_per_nvme;          /* OSDs sharing one drive (ceph-volume --osds-per-device) */
    int64_t osd_cpus;               /* hardware threads of each OSD's CPU set (0: no set) */
    bool osd_cpus_smt;              /* the set pairs cores with their SMT siblings */
    int osd_cpus_scope;             /* 0 osd: a set each; 1 nvme: one per drive; 2 host: one per host */
    char cpu[PARAM_STR_MAX], nvme[PARAM_STR_MAX], nic[PARAM_STR_MAX], switch_[PARAM_STR_MAX];
    char max_cstate[PARAM_STR_MAX]; /* "C1", "C2", "C6", "POLL", or "deepest" */
    int governor;                   /* index in scenario_governor_names; 0 = profile default */
    int failure_domain;             /* 0 host, 1 osd */
    char crush_map[PARAM_STR_MAX];  /* `ceph osd crush dump --format json` of a real cluster, or "" */
    int rocksdb_flushes;            /* enum scenario_rocksdb_flushes: an index in rocksdb_flushes_names */
    double rocksdb_memtable_fill;   /* on_fill: the memtables' fill at the start, of what a flush takes */
};

/* cluster.rocksdb_flushes: when RocksDB's background work is charged */
enum scenario_rocksdb_flushes { SCENARIO_ROCKSDB_STEADY, SCENARIO_ROCKSDB_ON_FILL };

/* `ceph osd pool create NAME replicated|erasure` */
enum scenario_pool_type { SCENARIO_POOL_REPLICATED, SCENARIO_POOL_ERASURE };

struct scenario_pool {
    int type;                       /* enum scenario_pool_type: an index in pool_type_names */
    int64_t size, min_size, pg_num;
    int64_t k, m, stripe_unit;      /* erasure: the erasure-code profile */
    int64_t id, crush_rule;         /* pg_pool_t id; crush_rule (-1: the map's rule 0) */
};

struct scenario_image {
    int kind;      /* enum image_kind */
    int guard;     /* 0 = default for the kind, else guard_design + 1 */
    double copied_up;
    double parent_written;
    double written;       /* fraction of a plain/flattened image's objects written before the run */
    double cached;        /* fraction of the data in the primaries' BlueStore caches at start */
    double size_gib;
    int64_t order;
    bool exclusive_lock, object_map;
    char name[PARAM_STR_MAX]; /* fio rbdname; "" = any */
    int64_t count;            /* images of this spec */
};

struct scenario_clients {
    int64_t volumes_per_client; /* cbt: images per client host, clones dealt over them; 0 = off */
};

struct scenario_sim {
    double duration_s, warmup_s;
    int64_t seed, replications;
    int64_t reduce_to_hosts;  /* the symmetric-cluster reduction: simulate k of cluster.hosts (0: all) */
};

/*
 * The symmetric-cluster reduction (docs/scaling.md): k of a cluster's N alike
 * hosts simulated with their share of its PGs, client hosts and fio clones,
 * so each OSD carries the load it has in the full cluster.  scenario_load
 * applies it (cluster.hosts, pool.pg_num, cluster.client_hosts, each job's
 * numjobs and image.count then hold the simulated cluster's values) and
 * records the full cluster's here; the runner reports IOPS, bandwidth and
 * op counts for the whole cluster (x scale), per-op figures and latencies
 * as simulated.
 */
struct scenario_reduction {
    bool on;
    int64_t hosts, pg_num, client_hosts, image_count; /* the full cluster's */
    int64_t clones, clones_simulated;                  /* fio job clones, all jobs */
    double scale;               /* hosts / simulated hosts: whole-cluster totals per simulated one */
    double clones_per_osd_ratio; /* simulated clones per OSD / the full cluster's (1 = exact) */
};

struct scenario {
    char path[1024];        /* the file it came from ("(built-in)" otherwise) */
    char description[512];
    struct scenario_cluster cluster;
    struct scenario_pool pool;
    struct scenario_image image;
    struct scenario_clients clients;
    struct scenario_sim sim;
    struct scenario_reduction reduction; /* sim.reduce_to_hosts, as applied */
    struct ceph_options ceph;
    struct stage_costs cost;
    struct release_traits rel;
    struct hw_cpu cpu;
    struct hw_nvme nvme;
    struct hw_nic nic;
    struct hw_switch sw;
    struct fio_jobfile jobs;
    struct placement_map *crush;  /* owned: cluster.crush_map as read, or NULL */
    uint32_t *osd_host;     /* owned with crush: the host index of each OSD id */
    uint32_t n_osds;        /* with crush: OSD ids 0..n_osds-1 */
    cJSON *json;            /* the file's JSON with --set applied (owned) */
};

extern const struct param_def scenario_cluster_params[];
extern const struct param_def scenario_pool_params[];
extern const struct param_def scenario_image_params[];
extern const struct param_def scenario_clients_params[];
extern const struct param_def scenario_sim_params[];

/*
 * Load a scenario file (or, with path NULL, the JSON text json_text named
 * pseudo) and apply the overrides sets[0..n_sets-1] ("path=value").
 * On error the scenario is freed and err names the file and JSON path.
 */
int scenario_load(struct scenario *sc, const char *path, const char *json_text, const char *pseudo,
                  const char *const *sets, int n_sets, struct sim_err *err);
void scenario_free(struct scenario *sc);

/* The min_size the monitor gives an erasure pool of k + m shards
   (OSDMonitor::prepare_pool_size: k + min(1, m - 1)). */
int64_t scenario_ec_min_size(int64_t k, int64_t m);

/* The device and network models' parameters from hardware profiles (the
   mapping scenario_to_spec uses; tools and tests share it). */
void scenario_nvme_params(const struct hw_nvme *nv, struct nvme_params *out);
void scenario_net_params(const struct hw_nic *nic, const struct hw_switch *sw, double loopback_us,
                         struct net_params *out);

/* The seed of replication r of a scenario seeded with seed (r = 0: seed itself):
   below 2^53, so `--seed` takes it back and JSON keeps it exact; runs and
   sweeps derive their replications alike. */
int64_t scenario_replication_seed(int64_t seed, uint64_t replication);

/* 0, or an error naming sc and sim.reduce_to_hosts when it is reduced: for
   commands that set the simulated hosts' own outputs (fio.json, dumps, a
   replayed trace) against a whole real cluster (what: "validate"). */
int scenario_check_unreduced(const struct scenario *sc, const char *what, struct sim_err *err);

/* Resolve into a cluster_spec (jobs are borrowed from sc). seed_offset picks a replication. */
int scenario_to_spec(const struct scenario *sc, uint64_t replication, struct cluster_spec *spec,
                     struct sim_err *err);

/* The resolved parameters of every section as JSON (sim.json, the explorer). */
cJSON *scenario_resolved_json(const struct scenario *sc);
/* The parameter a "section.key" path names in the scenario's tables
   (cluster, pool, image, clients, sim, ceph, cost); NULL for other paths (hw.*, fio.*). */
const struct param_def *scenario_param_for_path(const char *path);

/* Print every scenario parameter (list-params), or a Markdown schema document. */
void scenario_print_params(FILE *f, bool markdown);

#endif
