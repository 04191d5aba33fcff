/*
 * validate.h - compare a real capture with a simulation of the same workload
 * (`cephsim validate`).
 *
 * A "capture" is a directory in the lab kit's shape (tests/lab/capture.sh) or
 * a `cephsim run` output directory: fio.json (fio --output-format=json),
 * osd.N.perf.json (perf dump) and op-tracker dumps: osd.N.historic_window.json[.gz]
 * (the kit's every-op window), else osd.N.historic_ops.json[.gz] (cephsim, or
 * any dump_historic_ops), else osd.N.historic.json[.gz] (the kit's tail dump:
 * the slowest ops, a biased sample - flagged in the report).  A dump that does not
 * read whole (a truncated or corrupt gzip, malformed JSON) is an error naming it.
 * Compared: fio IOPS and completion latency (clat mean, p50, p99), the per-stage
 * intervals of primary osd_op writes rebuilt from the op-tracker events
 * (initiated -> queued_for_pg -> reached_pg -> started -> waiting for subops ->
 * op_commit -> last sub_op_commit_rec -> commit_sent, plus the primary's total
 * initiated -> commit_sent), the share of those ops that waited for an object
 * rw lock, and the OSD op_w / op_rw counters per fio I/O (librbd merging).
 * Errors are relative (sim - real) / |real|; the lock-wait share, and op_w / op_rw
 * when the real count is under 1 per 100 fio I/Os, are compared in absolute terms;
 * distributions also by their two-sample Kolmogorov-Smirnov distance.  Exit status follows diff: 0 within tolerance, 1 outside, 2 trouble.
 */
#ifndef CEPHSIM_EXPLORER_VALIDATE_H
#define CEPHSIM_EXPLORER_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "err.h"

struct cluster;

/* Distributions compared: the 7 primary stages of trace.h, then the total. */
#define VALIDATE_N_DISTS 8
#define VALIDATE_MAX_PCT 32
#define VALIDATE_MAX_SETS 16
#define VALIDATE_SET_LEN 160

/* Scalar metrics (tolerance keys in brackets). */
enum validate_metric {
    VALIDATE_IOPS,       /* [iops]       fio IOPS of the main direction */
    VALIDATE_LAT_MEAN,   /* [lat_mean]   fio clat mean */
    VALIDATE_LAT_P50,    /* [lat_p50]    fio clat 50th percentile */
    VALIDATE_LAT_P99,    /* [lat_p99]    fio clat 99th percentile */
    VALIDATE_OP_W,       /* [op_w]       perf dump op_w per fio I/O (all OSDs) */
    VALIDATE_OP_RW,      /* [op_rw]      perf dump op_rw per fio I/O */
    VALIDATE_LOCK_WAITS, /* [lock_waits] share of primary writes with "waiting for rw locks" */
    VALIDATE_OSD_CPU,    /* [osd_cpu]    the OSD daemons' CPU per fio I/O (reads and writes), us */
    VALIDATE_OSD_WAKEUPS, /* [osd_wakeups] their threads' wake-ups (voluntary switches) per fio I/O */
    VALIDATE_N_METRICS
};

#define VALIDATE_MAX_THREAD_KINDS 48

/* Foreign load worth a note (cores): below it, the machine's own agents and shells;
   or CPU outside the daemons of at least this share of the machine (fio and the
   kernel take 0.2-0.45 of 2 cores on the lab VM unloaded: tests/data/lab10) */
#define VALIDATE_FOREIGN_NOTE 0.1
#define VALIDATE_OUTSIDE_NOTE 0.5

/* What one directory holds, reduced to the compared quantities. */
struct validate_capture {
    char dir[1024];
    /* fio.json */
    bool has_fio;
    int ddir;                    /* 1 write (when the jobs wrote), 0 read */
    double iops, lat_mean_us, lat_p50_us, lat_p99_us;
    uint64_t total_ios;
    uint64_t all_ios;            /* reads and writes */
    double runtime_s;
    /* the OSDs' CPU and wake-ups per fio I/O (NAN when not recorded): a capture's
       cpu_before/after.json (tests/lab/cpu_snap.py; wake-ups only from its per-thread
       figures), a cephsim run's sim.json summary */
    double osd_cpu_us_per_io, osd_wakeups_per_io;
    /* cores that other processes of the machine used beside the cluster during the run
       (cpu_before/after.json's "others": user processes alive at both snapshots, the
       kernel's own threads left out), and the busiest of them; NAN when not recorded.
       The model has the hosts' cores to itself (tests/data/lab10) */
    double foreign_cores;
    char foreign_top[64];
    /* the machine's busy cores (/proc/stat: all but idle, iowait and steal) less the lab
       daemons' (mon, mgr, OSDs): fio, the kernel and every other process, the ones that
       came and went included; and the machine's cores.  NAN / 0 when not recorded or
       when none of the cluster's daemons ran on the machine (capture.sh EXTERNAL=1 on a
       client host: its busy time is fio's) */
    double outside_daemons_cores;
    int machine_cpus;
    /* the same per thread kind (the thread's name without its number: msgr-worker-1 ->
       msgr-worker), where the side says (the kit's per-thread figures, sim.json's
       osd_threads_per_op); first come first */
    int n_threads;
    struct validate_thread_kind {
        char name[32];
        double cpu_us, wakeups;  /* per fio I/O */
    } threads[VALIDATE_MAX_THREAD_KINDS];
    int n_pct;                   /* clat percentile table (for the CDF plot) */
    double pct[VALIDATE_MAX_PCT], pct_us[VALIDATE_MAX_PCT];
    /* osd.N.perf.json, summed over OSDs */
    int n_perf;
    double op_w, op_rw;
    /* bluestore.bluestore_buffer_hit_bytes / _miss_bytes: the reads' bytes its
       data cache served and did not (0 / 0 without reads or the counters) */
    double cache_hit_bytes, cache_miss_bytes;
    /* op-tracker dumps */
    int n_dumps;
    char ops_source[48];         /* "historic_window", "historic_ops", "historic (slowest ops)" */
    bool ops_biased;             /* only the slowest ops were kept */
    size_t n_writes;             /* primary osd_op writes found */
    size_t n_lock_wait_ops;      /* of those, ops with >= 1 "waiting for rw locks" */
    uint64_t lock_wait_events;
    double *dist_us[VALIDATE_N_DISTS]; /* sorted samples (µs) */
    size_t n_dist[VALIDATE_N_DISTS];
};

/* Name of a distribution ("initiated->queued_for_pg", ..., "initiated->commit_sent"). */
const char *validate_dist_name(int d);
/* Tolerance key of a metric ("iops", "lat_mean", ...). */
const char *validate_metric_key(enum validate_metric m);

/* Load a capture or a cephsim output directory; needs fio.json, the rest is optional. */
int validate_capture_load(const char *dir, struct validate_capture *cap, struct sim_err *err);
/* Was a real run taken beside other load worth saying (VALIDATE_FOREIGN_NOTE,
   VALIDATE_OUTSIDE_NOTE; NAN figures say nothing)? */
bool validate_foreign_note(double foreign_cores, double outside_daemons_cores, int machine_cpus);
/* That note, one line after lead ("  note: during the real run ", "  group: "). */
void validate_print_foreign_note(FILE *f, const char *lead, double foreign_cores, const char *foreign_top,
                                 double outside_daemons_cores, int machine_cpus);
/* The same quantities from a simulated cluster after cluster_run (calibration, no files). */
int validate_capture_from_cluster(struct cluster *c, struct validate_capture *cap,
                                  struct sim_err *err);
void validate_capture_free(struct validate_capture *cap);

/*
 * The --set overrides that make a scenario run the workload of the capture in dir:
 * fio rw/bs/iodepth/numjobs/rwmixread from fio.json's job options, the image kind and
 * rbd_io_scheduler from the kit's meta.json (or a cephsim run's sim.json), and
 * cluster.rocksdb_flushes on_fill when no OSD's perf dump shows a RocksDB flush
 * (bluefs.bytes_written_sst 0 on every OSD: no background work to charge) and
 * the scenario file (path, or NULL) does not say how its RocksDB flushes.
 * Returns how many were written to sets (each "path=value").
 */
int validate_capture_sets(const char *dir, const char *scenario, char sets[][VALIDATE_SET_LEN], int max,
                          struct sim_err *err);

/* Value of metric m in cap (NAN when cap lacks the data: op_w / op_rw without perf dumps,
   the lock-wait share without primary writes). */
double validate_metric_value(const struct validate_capture *cap, enum validate_metric m);

/*
 * The op history of the lab kit's window dump (tests/lab/README.md): every op completed
 * in the last second, up to 20000; set before anything else when simulating a capture.
 */
#define VALIDATE_N_WINDOW_SETS 2
extern const char *const validate_window_sets[VALIDATE_N_WINDOW_SETS];

/* Relative error (sim - real) / |real|; 0 when both are 0, +-INFINITY when only real is 0. */
double validate_rel_error(double sim, double real);
/* Two-sample Kolmogorov-Smirnov distance sup |F_a - F_b| of two ascending samples. */
double validate_ks_distance(const double *a, size_t na, const double *b, size_t nb);
/* Asymptotic p-value of distance d for sample sizes na, nb (Kolmogorov's Q_KS). */
double validate_ks_pvalue(double d, size_t na, size_t nb);
/* Median of an ascending sample (NAN when empty). */
double validate_median(const double *v, size_t n);

/* Tolerances: NAN = reported, not checked.  dist_* are per distribution. */
struct validate_tolerance {
    double metric[VALIDATE_N_METRICS];
    double dist_median[VALIDATE_N_DISTS]; /* relative error of the median ("stage", "stage.<name>") */
    double dist_ks[VALIDATE_N_DISTS];     /* KS distance ("ks", "ks.<name>") */
};

/* iops 20 %, lat_mean 25 %, lat_p50 25 %, lat_p99 50 %, op_w 20 %, op_rw 20 %,
   lock_waits 0.05 (absolute share), every stage's median 40 % (a median 2x off
   either way fails); KS distances reported only. */
void validate_tolerance_defaults(struct validate_tolerance *t);

/*
 * Apply "key=value[,key=value...]" on top of t: value "20%" or "0.2" (a fraction),
 * or "off".  Keys: the metric keys, stage, ks, stage.<stage>, ks.<stage> where
 * <stage> is queued_for_pg, reached_pg, started, subops, op_commit, sub_op_commit_rec,
 * commit_sent or total.  Unknown keys are errors with a did-you-mean.
 */
int validate_tolerance_parse(const char *text, struct validate_tolerance *t, struct sim_err *err);

struct validate_row {
    char name[64];
    char unit[12];
    double real, sim;            /* metric value, or the distribution's median */
    double err;                  /* relative (abs_err: absolute) */
    bool abs_err;
    double ks, ks_p;             /* distributions: KS distance and p-value, else NAN */
    size_t n_real, n_sim;        /* distribution sample sizes */
    double tol, ks_tol;          /* NAN = not checked */
    bool available;              /* both sides have the data */
    bool pass;                   /* within tolerance (true when not checked) */
};

struct validate_report {
    struct validate_row rows[VALIDATE_N_METRICS + VALIDATE_N_DISTS];
    int n;
    int n_checked, n_failed;
    bool pass;
    /* the workloads of the two sides where they differ ("fio.iodepth: real 16, sim 1"),
       from validate_capture_sets of each directory; empty when they agree */
    int n_mismatch;
    char mismatch[VALIDATE_MAX_SETS][2 * VALIDATE_SET_LEN];
};

/*
 * Where the workloads of the capture in real_dir and of sim_dir differ (fio
 * rw, bs, iodepth, numjobs, rwmixread, image kind, rbd_io_scheduler; sizes
 * compared as bytes, a key missing on one side as fio's default): lines into
 * rep->mismatch.  validate_compare calls it with the captures' directories.
 */
void validate_workload_mismatch(const char *real_dir, const char *sim_dir, struct validate_report *rep);

/* Compare real with sim under tol. */
void validate_compare(const struct validate_capture *real, const struct validate_capture *sim,
                      const struct validate_tolerance *tol, struct validate_report *rep);

/* The report as a text table. */
void validate_print(FILE *f, const struct validate_capture *real,
                    const struct validate_capture *sim, const struct validate_report *rep);

/* The report as JSON (validate.json). */
cJSON *validate_report_json(const struct validate_capture *real,
                            const struct validate_capture *sim, const struct validate_report *rep);

/*
 * Write the CDF data of real and sim per stage (and fio's clat percentiles) under
 * out_dir with a gnuplot script, and run gnuplot to make cdf.png when it exists.
 * Returns 1 when the PNG was made, 0 when gnuplot is missing, negative on error.
 */
int validate_plot(const struct validate_capture *real, const struct validate_capture *sim,
                  const char *out_dir, struct sim_err *err);

/*
 * cephsim validate --real DIR (--sim DIR | --run SCENARIO [--set P=V]...)
 *                  [--tolerance K=V,...] [-o DIR] [--no-plot] [--json] [-q]
 */
int cmd_validate(int argc, char **argv);

#endif
