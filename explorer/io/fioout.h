/*
 * fioout.h - results in fio's --output-format=json shape, and fio's human
 * summary, so fio-plot and other fio tooling read cephsim's output unchanged.
 *
 * Mirrors fio stat.c: show_thread_status_json / add_ddir_status_json /
 * add_ddir_lat_json (key names, key order, types; percentiles keyed
 * "%f" of the percentile, values in ns from the plat histogram), and
 * group_reporting (one entry per group; per-job fields from the first job).
 */
#ifndef CEPHSIM_MODELS_FIOOUT_H
#define CEPHSIM_MODELS_FIOOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "fiojob.h" /* enum fio_ddir */
#include "stats.h"

#define FIO_DDIR_NR 2

struct fio_ddir_stats {
    uint64_t io_bytes;
    uint64_t total_ios;
    struct hist slat, clat, lat; /* ns; slat = submission, clat = completion, lat = total */
    /* per-second samples of bandwidth and IOPS, for bw_min/max/mean/dev and iops_* */
    uint32_t n_samples;
    double bw_kib_samples[1024];
    double iops_samples[1024];
};

struct fio_job_result {
    char jobname[64];
    int groupid;
    const cJSON *job_options;  /* borrowed: the job's options as strings */
    uint64_t runtime_ns;       /* measured time (after ramp_time) */
    uint32_t iodepth;          /* iodepth_level: I/O at this depth after the ramp-up of the first iodepth-1 */
    struct fio_ddir_stats dir[FIO_DDIR_NR];
    double usr_cpu, sys_cpu;   /* % of the client thread (simulated) */
    uint64_t job_runtime_ns;   /* added: fio's total_run_time, summed over merged jobs
                                  ("job_runtime", CPU % weights); 0 = runtime_ns */
};

struct fioout_opts {
    const char *fio_version;   /* "fio-3.33" shape; cephsim writes "cephsim-<version>" */
    int64_t timestamp_s;       /* epoch seconds the run is dated at (deterministic) */
    const double *percentiles; /* NULL = fio's default list */
    int n_percentiles;
    bool group_reporting;
    const cJSON *global_options; /* borrowed, may be NULL */
};

/*
 * Build the whole fio JSON document (o may be NULL for defaults).  Keys,
 * order and types are fio 3.33's; values fio prints with "%f" (iops, mean,
 * stddev, bw_agg, percentages...) are cJSON_Raw items with fio's exact text
 * ("iops" : 524.673766, "mean" : 0.000000), whose valuedouble also holds the
 * value: read them with fioout_num(), or reparse the printed text.
 */
cJSON *fioout_json(const struct fio_job_result *jobs, int n, const struct fioout_opts *o);

/* Print fio's human summary (per job or group: IOPS, BW, lat/clat stats, percentiles). */
void fioout_print(FILE *f, const struct fio_job_result *jobs, int n, const struct fioout_opts *o);

/*
 * Merge b into a (group_reporting, fio sum_thread_stats): histograms and
 * counts add, runtime is the max, per-second bw/iops samples add element-wise
 * (the group's throughput per interval), CPU % is weighted by job runtime.
 */
void fioout_merge(struct fio_job_result *a, const struct fio_job_result *b);

/* The value of a number item, raw ("%f") or not; NAN for anything else. */
double fioout_num(const cJSON *item);

#endif
