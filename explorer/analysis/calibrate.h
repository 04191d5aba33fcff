/*
 * calibrate.h - fit a scenario's per-stage CPU costs and device latencies to real
 * captures (`cephsim calibrate`).
 *
 * The ~35 cost.* values and the hardware latencies are grouped into a few scale
 * factors (knobs) so that the fit is well posed: client (fio, librbd, Objecter),
 * msgr (messenger CPU per message incl. the kernel TCP cost of hw.nic), bytes (CPU
 * per byte: msgr crc and the kernel's copies), osd (every cost.osd_*), bluestore
 * (cost.bluestore_*), wake (cost.thread_wake_us), nvme_write and
 * nvme_flush (hw.nvme write / flush latency: the scalar and, when the profile has
 * one, its percentile table).  Each knob multiplies the base scenario's values.
 * The fit works on x = log(scale): GSL's trust-region Levenberg-Marquardt
 * (gsl_multifit_nlinear), then a Nelder-Mead polish (gsl_multimin nmsimplex2: the
 * objective has flat steps where the trust region stalls), over residuals that each
 * run the simulator for every
 * fitted capture (same seed at every evaluation: common random numbers), with a
 * central-difference Jacobian of step fd_step in x.  Residuals per capture: log
 * ratios sim/real of fio IOPS, clat mean, p50 (weight 1) and p99 (p99_weight), and
 * of the medians of the per-stage intervals of validate.h (stage_weight); plus
 * prior_weight * x per knob, a weak pull towards the base values that keeps
 * knobs the captures do not inform where they were.  Uncertainty: the covariance
 * s^2 (J'J)^-1 at the solution (s^2 = chi^2 / (n - p)), reported as a 68 %
 * interval of each scale factor.  Held-out captures are simulated once at the
 * solution and reported apart.  A profile's flush table can be replaced by a constant
 * (drop_flush_table) when the device's flushes under BlueStore do not look like the
 * benchmark the table came from.
 */
#ifndef CEPHSIM_EXPLORER_CALIBRATE_H
#define CEPHSIM_EXPLORER_CALIBRATE_H

#include <stdbool.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "err.h"
#include "validate.h"

enum calibrate_knob {
    CALIB_CLIENT,
    CALIB_MSGR,
    CALIB_BYTES,
    CALIB_OSD,
    CALIB_BLUESTORE,
    CALIB_WAKE,
    CALIB_NVME_WRITE,
    CALIB_NVME_FLUSH,
    CALIB_N_KNOBS
};

#define CALIB_MAX_CAPTURES 64

/* "client", "msgr", ...; NULL out of range. */
const char *calibrate_knob_name(int k);
/* The scenario paths a knob scales, space separated ("cost.osd_enqueue_us cost.osd_..."). */
const char *calibrate_knob_members(int k, char *buf, size_t n);
/* Parse "client,osd,nvme_flush" (or "all") into a bit mask; errors name the bad knob. */
int calibrate_parse_knobs(const char *text, unsigned *mask, struct sim_err *err);

struct calibrate_opts {
    const char *scenario;               /* base scenario file */
    const char *const *sets;            /* --set for every simulation (after the capture's) */
    int n_sets;
    const char *const *fit_dirs;        /* captures fitted */
    int n_fit;
    const char *const *check_dirs;      /* held-out captures */
    int n_check;
    unsigned knobs;                     /* bit (1 << enum calibrate_knob) per fitted knob */
    double start[CALIB_N_KNOBS];        /* starting scale factors (0 = 1) */
    double duration_s;                  /* simulated seconds per evaluation (0: scenario's) */
    int max_iter;                       /* trust-region iterations (0: 30) */
    int polish_iter;                    /* Nelder-Mead iterations after it (0: 30 x knobs, -1: none) */
    double fd_step;                     /* step in log(scale) (0: 0.05) */
    double prior_weight;                /* < 0: default 0.1; 0: none */
    double p99_weight;                  /* < 0: default 0.2 */
    double stage_weight;                /* < 0: default 0.2; 0: no stage residuals */
    bool infer_workload;                /* take fio rw/bs/iodepth, image kind, scheduler from the capture */
    bool drop_flush_table;              /* model flushes as the constant flush_latency_us (scaled by
                                           nvme_flush) instead of the profile's percentile table */
    FILE *log;                          /* progress lines (NULL: quiet) */
};

/* Defaults: all knobs, negative weights = defaults, infer on. */
void calibrate_opts_defaults(struct calibrate_opts *o);

struct calibrate_capture_result {
    char dir[1024];
    bool fitted;                        /* used in the fit (else held out) */
    char sets[256];                     /* workload overrides used */
    double real[VALIDATE_N_METRICS], sim0[VALIDATE_N_METRICS], sim[VALIDATE_N_METRICS];
    double real_stage[VALIDATE_N_DISTS], sim_stage[VALIDATE_N_DISTS]; /* medians, us */
    double rms0, rms;                   /* RMS of its residuals at the start and at the solution */
};

struct calibrate_result {
    double scale[CALIB_N_KNOBS];        /* fitted (or fixed at the start value) */
    double sigma_log[CALIB_N_KNOBS];    /* 1-sigma of log(scale); NAN when not fitted */
    double corr[CALIB_N_KNOBS][CALIB_N_KNOBS]; /* correlation of the fitted knobs */
    unsigned knobs;
    int n_resid, n_params, iterations, polish_iterations, evaluations, gsl_status;
    double chi2_start, chi2;
    struct calibrate_capture_result caps[CALIB_MAX_CAPTURES];
    int n_caps;
};

/* Fit; res gets the scale factors, uncertainties and per-capture errors. */
int calibrate_run(const struct calibrate_opts *o, struct calibrate_result *res, struct sim_err *err);

/* Print the fitted values and the per-capture table (fit vs held-out). */
void calibrate_print(FILE *f, const struct calibrate_opts *o, const struct calibrate_result *res);
/* The same as JSON. */
cJSON *calibrate_result_json(const struct calibrate_opts *o, const struct calibrate_result *res);

/*
 * Write the calibrated scenario: the base scenario file with cost.* and hw.nic/hw.nvme
 * scalars replaced by base x scale (a hw.nvme latency in a scenario replaces the
 * profile's measured shape, as with drop_flush_table).  When a scaled nvme latency keeps
 * its percentile table, the scaled profile is written to profile_out (NULL: next to
 * out_path, "<stem>.nvme.json") and the scenario's cluster.nvme points at it.  The fio
 * job file path is kept relative when out_path is in the base scenario's directory.
 */
int calibrate_write_scenario(const struct calibrate_opts *o, const struct calibrate_result *res,
                             const char *out_path, const char *profile_out, struct sim_err *err);

/*
 * A scenario against every capture under a directory (`cephsim calibrate --compare
 * DIR`): runs named <group>_r<N> are the repetitions of one group; each group is
 * simulated once with the workload of its first repetition (fio rw/bs/iodepth/numjobs,
 * image kind, scheduler) and compared with the mean of its repetitions.
 */
/* calibrate_compare_print notes a group whose real reads found this much more in the cache */
#define CALIBRATE_CACHE_NOTE 0.10

struct calibrate_group {
    char name[256];
    char sets[256];                     /* workload overrides used */
    int reps, ddir;                     /* repetitions; 1 write, 0 read */
    double real_iops, real_iops_min, real_iops_max;
    double real_lat, real_lat_min, real_lat_max; /* clat mean, us */
    double sim_iops, sim_lat;
    double err_iops, err_lat;           /* (sim - real mean) / real mean */
    /* share of the reads' bytes BlueStore's data cache served (bluestore_buffer_hit_bytes
       over hit + miss, all OSDs; the real one over every repetition); -1: no reads */
    double real_cache_hit, sim_cache_hit;
    double real_hit_bytes, real_read_bytes;
    /* cores other processes used beside the cluster, mean over the repetitions that
       recorded it (validate_capture's foreign_cores; NAN: none did); the busiest process
       of the most loaded repetition */
    double foreign_cores, foreign_max;
    int foreign_reps;
    char foreign_top[64];
    /* the machine's cores outside the lab daemons (validate_capture's), mean over the
       same repetitions, and its cores */
    double outside_daemons_cores;
    int machine_cpus;
};
int calibrate_compare_dir(const struct calibrate_opts *o, const char *dir, struct calibrate_group **groups,
                          int *n_groups, struct sim_err *err);
/* Mean |error| of IOPS and of clat mean over the groups. */
void calibrate_compare_summary(const struct calibrate_group *g, int n, double *mean_abs_iops, double *mean_abs_lat);
/* The table, one line per group, and the summary line. */
void calibrate_compare_print(FILE *fp, const char *scenario, const char *dir, const struct calibrate_group *g, int n);
/* A read group whose real reads found CALIBRATE_CACHE_NOTE more of their bytes
   in BlueStore's cache than the (cold) simulation: not the run simulated. */
bool calibrate_group_cache_warm(const struct calibrate_group *g);

/*
 * cephsim calibrate --profile SCENARIO --real DIR... [--check DIR...] -o OUT.json
 *                   [--knobs LIST] [--set P=V]... [--duration S] [--max-iter N] [--polish N]
 *                   [--report FILE] [--nvme-profile-out FILE] [--flush-table keep|drop] [-q]
 */
int cmd_calibrate(int argc, char **argv);

#endif
