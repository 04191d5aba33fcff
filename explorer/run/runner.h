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

/* run_summary.ddir of jobs that both read and write (rw/randrw with 0 < rwmixread < 100, or
   reading and writing jobs together) */
#define RUN_DDIR_MIXED FIO_DDIR_NR

/* One direction's headline (fio's "read" or "write" of every job together). */
struct run_dir_summary {
    bool present;                /* the direction did I/O in some replication */
    struct ci iops, bw_mib, lat_mean_us, lat_p50_us, lat_p99_us, lat_p999_us;
};

/* One kind of OSD thread (tp_osd_tp, msgr-worker, bstore_kv_sync...), all OSDs together. */
struct run_thread_kind {
    const char *name;            /* the thread's comm (static: the model's pool names) */
    double threads;              /* how many, all OSDs */
    double cpu_us_per_op, wakeups_per_op; /* per client op */
};

/* rocksdb_bg_behind from which the summary prints its note (5 %: above the
   work one kv_final batch queues at a window's end) */
#define RUNNER_BG_BEHIND_NOTE 0.05

struct run_summary {
    int replications;
    int ddir;                    /* FIO_DDIR_READ, FIO_DDIR_WRITE or RUN_DDIR_MIXED: what the jobs issue */
    /* every I/O of both directions together (clat of reads and writes merged):
       for a read-only or write-only run, that direction's numbers */
    struct ci iops, bw_mib, lat_mean_us, lat_p50_us, lat_p99_us, lat_p999_us;
    struct run_dir_summary dir[FIO_DDIR_NR]; /* each direction on its own */
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
    double read_cache_hit;       /* share of the bytes read the OSDs' data caches held; -1: no reads */
    double rocksdb_bg_behind;    /* share of the window's RocksDB background work (txcs) still
                                    queued on rocksdb:low at its end; -1: none was charged, or
                                    cluster.rocksdb_flushes on_fill */
    struct run_thread_kind osd_threads[CLUSTER_THREAD_KINDS_MAX]; /* ceph-osd's threads by name */
    uint32_t n_osd_threads;
    /* the fio processes' threads by name: fio's job threads and, with librbd,
       io_context_pool, msgr-worker, fn-radosclient (tests/lab/client_threads.py
       measures the same on a real client) */
    struct run_thread_kind client_threads[CLUSTER_THREAD_KINDS_MAX];
    uint32_t n_client_threads;
    /* sim.reduce_to_hosts: iops, bw_mib and the op counts above are the whole
       cluster's, reduction_scale (full / simulated hosts) x the simulated
       hosts'; 0 when the run simulated every host */
    double reduction_scale;
    uint32_t reduced_hosts, full_hosts;
};

/* 0 when dir may receive a run: absent, empty, or a run directory cephsim
   wrote (sim.json and only the files a run writes); else an error naming the
   path and, for a directory, the first entry cephsim did not write. */
int runner_check_output(const char *dir, struct sim_err *err);

/* A command's own output directory (run, replay): its marker file, the names
   for messages ("cephsim replay", "cephsim replay directory") and which names
   beyond runner_write_cluster_outputs' files are its own. */
struct runner_own_dir {
    const char *marker, *tool, *kind;
    bool (*ours)(const char *name, void *ctx);
    void *ctx;
};
/* 0 if dir does not exist or holds nothing but own's files with its marker. */
int runner_check_own_dir(const char *dir, const struct runner_own_dir *own, struct sim_err *err);
/* Whether name is one of the files runner_write_cluster_outputs writes. */
bool runner_is_cluster_output(const char *name);

/*
 * Run every replication of sc; if out_dir is set, write fio.json,
 * osd.<N>.perf.json, osd.<N>.historic_ops.json (and _by_duration) of the
 * first replication and sim.json (all replications) into out_dir,
 * atomically (a temporary directory renamed into place).
 * progress: a line with ETA on stderr (for terminals).
 */
int runner_run(const struct scenario *sc, const char *out_dir, bool progress, struct run_summary *sum,
               struct sim_err *err);

/* How runner_run_opts writes: progress as above; json_plus: fio.json as fio's
   --output-format=json+ (clat_ns "bins"). */
struct runner_opts {
    bool progress;
    bool json_plus;
};

/*
 * runner_run with options.  The output directory also holds fio.txt (fio's
 * normal report) and the files the jobs' write_lat_log, write_bw_log,
 * write_iops_log and write_iolog ask for (fiolog.h), of the first
 * replication, which sim.json's "outputs_from" names (replication, seed,
 * fio_logs).
 */
int runner_run_opts(const struct scenario *sc, const char *out_dir, const struct runner_opts *o,
                    struct run_summary *sum, struct sim_err *err);

/* Write j (then deleted) to dir/name atomically (jsonu_write_file). */
int runner_write_json(const char *dir, const char *name, cJSON *j, struct sim_err *err);

/* Write a finished cluster's fio.json, osd.N.perf.json, osd.N.historic_ops.json
   and osd.N.historic_ops_by_duration.json into dir (which must exist). */
struct cluster;
int runner_write_cluster_outputs(struct cluster *c, const struct scenario *sc, const char *dir,
                                 struct sim_err *err);

/* "read", "write" or "mixed" (sim.json summary.direction, the database's metrics.direction). */
const char *runner_ddir_name(int ddir);

/* The summary as JSON (sim.json, the explorer's database). */
cJSON *runner_summary_json(const struct run_summary *sum);

/* Print the summary as text: headline with CIs, counters and the waterfall. */
void runner_print_summary(FILE *f, const struct scenario *sc, const struct run_summary *sum);

#endif
