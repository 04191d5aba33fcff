/*
 * cbt.h - a cbt (ceph/cbt) benchmark YAML read as the runs it stands for.
 *
 * cbt's `benchmarks: librbdfio:` section is expanded as cbt expands it
 * (benchmarkfactory.all_configs: the cartesian product of every list-valued
 * key, in the file's key order, first key slowest; then, if there is a
 * `workloads:` block, LibrbdFio.run_workloads: every workload x its numjobs x
 * its iodepth), and each run becomes the scenario overrides of the fio
 * command LibrbdFio.mkfiocmd would start (benchmark/librbdfio.py):
 *
 *   mode -> fio.rw             op_size -> fio.bs          time -> fio.runtime
 *   ramp -> fio.ramp_time      time_based -> fio.time_based
 *   iodepth -> fio.iodepth     total_iodepth -> fio.iodepth per volume (cbt's split)
 *   rwmixread -> fio.rwmixread (cbt passes it for readwrite/randrw only)
 *   numjobs x procs_per_volume x volumes_per_client x clients -> fio.numjobs
 *       (cbt starts one fio per volume per client, procs_per_volume jobs each)
 *   volumes_per_client -> clients.volumes_per_client (0 with use_existing_volumes
 *       and an rbdname: every fio opens that one image)
 *   vol_size (MB) -> image.size_gib   vol_object_size -> image.order
 *   random_distribution, rate_iops, norandommap -> fio.*
 *   cluster: osds_per_node -> cluster.osds_per_host, len(osds) -> cluster.hosts,
 *       clients -> cluster.client_hosts, pool_profiles[pool_profile]:
 *       pg_size -> pool.pg_num, replication -> pool.size; iterations -> replications
 *
 * Everything else is named in a note: ignored, with the reason (deployment,
 * monitoring and output details; keys cbt itself does not read), or refused
 * with an error (what cephsim cannot simulate: erasure-coded pools, recovery
 * tests, end_fsync).  Errors name the file and the YAML path.
 */
#ifndef CEPHSIM_EXPLORER_IO_CBT_H
#define CEPHSIM_EXPLORER_IO_CBT_H

#include <cjson/cJSON.h>

#include "err.h"

struct cbt_plan {
    cJSON *yaml;       /* the file as parsed (owned) */
    cJSON *rows;       /* one object {"scenario.path": value, ...} per run, cbt's order; every row has the same keys */
    cJSON *labels;     /* the workload of each row (strings), NULL without a workloads block */
    int iterations;    /* cluster.iterations (0: not given) */
    int n_notes;
    char **notes;      /* "benchmarks.librbdfio.log_iops: ignored: ..." */
};

/* Read a cbt YAML file into pl (zeroed on error). */
int cbt_plan_load(const char *path, struct cbt_plan *pl, struct sim_err *err);
/* Same, from parsed YAML (taken over: freed with pl, also on error). */
int cbt_plan_from_yaml(cJSON *yaml, const char *file, struct cbt_plan *pl, struct sim_err *err);
void cbt_plan_free(struct cbt_plan *pl);

#endif
