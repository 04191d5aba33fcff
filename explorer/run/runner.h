/*
 * runner.h - run one scenario: its replications, the output directory in the
 * ecosystem's formats, and a summary with 95 % confidence intervals.
 * `cephsim run`, the seed studies and the sweeps all go through here.
 */
#ifndef CEPHSIM_EXPLORER_RUNNER_H
#define CEPHSIM_EXPLORER_RUNNER_H

#include <stdbool.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "scenario.h"
#include "stats.h"

#include "version.h" /* CEPHSIM_VERSION, CEPHSIM_MODEL_VERSION */

struct run_summary {
    int replications;
    int ddir;                    /* the direction summarised: write if the jobs write, else read */
    struct ci iops, bw_mib, lat_mean_us, lat_p50_us, lat_p99_us, lat_p999_us;
    struct ci total_iops;        /* reads + writes (a mixed job's IOPS as fio's groups add them) */
    double rw_lock_waits;        /* mean per replication, all OSDs */
    double op_r, op_w, op_rw;    /* counts summed over OSDs, mean over replications */
    double stage_us[STAGE_COUNT];
    double replica_stage_us[REPLICA_STAGE_COUNT]; /* the replica stage, split */
    double osd_busy_cores;       /* mean busy cores per OSD host */
    double device_util;          /* mean NVMe utilisation */
    double wakeups_per_op, mean_wake_us;
    double client_cpu_us_per_op, osd_cpu_us_per_op; /* all threads, per client op */
    double events, wall_s;
    double events_per_op;
    double lock_handovers;       /* exclusive-lock releases to a peer, whole run, mean per replication */
    double lock_wait_mean_us;    /* mean wait of a write the exclusive-lock layer held back */
};

/* 0 when dir may receive a run: absent, empty, or a run directory cephsim
   wrote (sim.json and only the files a run writes); else an error naming the
   path and, for a directory, the first entry cephsim did not write. */
int runner_check_output(const char *dir, struct sim_err *err);

/*
 * Run every replication of sc; if out_dir is set, write fio.json,
 * osd.<N>.perf.json, osd.<N>.historic_ops.json (and _by_duration) of the
 * first replication and sim.json (all replications) into out_dir,
 * atomically (a temporary directory renamed into place).
 * progress: a line with ETA on stderr (for terminals).
 */
int runner_run(const struct scenario *sc, const char *out_dir, bool progress, struct run_summary *sum,
               struct sim_err *err);

/* Write j (then deleted) to dir/name atomically (jsonu_write_file). */
int runner_write_json(const char *dir, const char *name, cJSON *j, struct sim_err *err);

/* Write a finished cluster's fio.json, osd.N.perf.json, osd.N.historic_ops.json
   and osd.N.historic_ops_by_duration.json into dir (which must exist). */
struct cluster;
int runner_write_cluster_outputs(struct cluster *c, const struct scenario *sc, const char *dir,
                                 struct sim_err *err);

/* The summary as JSON (sim.json, the explorer's database). */
cJSON *runner_summary_json(const struct run_summary *sum);

/* Print the summary as text: headline with CIs, counters and the waterfall. */
void runner_print_summary(FILE *f, const struct scenario *sc, const struct run_summary *sum);

#endif
