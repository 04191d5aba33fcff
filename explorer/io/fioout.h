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

#include "fiojob.h"
#include "workload.h"
#include "stats.h"

struct fioout_opts {
    const char *fio_version;   /* "fio-3.33" shape; cephsim writes "cephsim-<version>" */
    int64_t timestamp_s;       /* epoch seconds the run is dated at (deterministic) */
    const double *percentiles; /* NULL = fio's default list */
    int n_percentiles;
    bool group_reporting;
    const cJSON *global_options; /* borrowed, may be NULL */
    const struct fio_jobfile *jobs; /* borrowed, may be NULL: "job options" of job_result.job_index */
    bool json_plus;            /* --output-format=json+: clat_ns "bins", each non-empty bucket's
                                  value (plat_idx_to_val) -> count, as fio_jsonplus_clat2csv reads */
};

/*
 * Build the whole fio JSON document (o may be NULL for defaults).  Keys,
 * order and types are fio 3.33's; values fio prints with "%f" (iops, mean,
 * stddev, bw_agg, percentages...) are cJSON_Raw items with fio's exact text
 * ("iops" : 524.673766, "mean" : 0.000000), whose valuedouble also holds the
 * value: read them with fioout_num(), or reparse the printed text.
 */
cJSON *fioout_json(const struct job_result *jobs, int n, const struct fioout_opts *o);

/* Print fio's human summary, --output-format=normal (per job or group: IOPS, BW, lat/clat
   stats, percentiles, CPU, depths; then the groups' run status). */
void fioout_print(FILE *f, const struct job_result *jobs, int n, const struct fioout_opts *o);

/*
 * Merge b into a (group_reporting, fio sum_thread_stats): histograms and
 * counts add, runtime is the max, per-second bw/iops samples add element-wise
 * (the group's throughput per interval), CPU % is weighted by job runtime.
 */
void fioout_merge(struct job_result *a, const struct job_result *b);

/* The value of a number item, raw ("%f") or not; NAN for anything else. */
double fioout_num(const cJSON *item);

#endif
