/*
 * rundata.h - what the figures read from the outputs of `cephsim run`: a run
 * directory's fio.json (clat percentiles per job and direction),
 * osd.N.historic_ops.json (the client ops the OSDs kept) and sim.json (the
 * scenario, the mean latency, the write stages); and the studies' summaries
 * in the directory of the seed studies (an array of runner summaries, one per
 * variant, e.g. qd1-latency.json).  Internal to explorer/plot.
 */
#ifndef CEPHSIM_EXPLORER_RUNDATA_H
#define CEPHSIM_EXPLORER_RUNDATA_H

#include <stdbool.h>
#include <stddef.h>

#include "cluster.h"
#include "err.h"

/* One latency distribution: n points (us, percent within), ascending. */
struct cdf_series {
    char title[200];
    int n;
    double *us, *pct;
};

/* One directory cephsim plot draws from, with its run files loaded. */
struct run_data {
    const char *dir;     /* the directory (borrowed) */
    const char *prefix;  /* NULL: the directory plotted; else the name of its run sub-directory */
    char scenario[256];  /* sim.json "scenario", "" if unknown */
    char job_desc[256];  /* "qd1-randwrite: randwrite, bs 4k, iodepth 1" */
    struct cdf_series *series; /* fio.json's, then the historic ops' (absent when fewer than 2) */
    int n_series;
    bool have_stages;    /* sim.json has write stages */
    char no_stages_why[200]; /* a write run without them: why ("" otherwise) */
    double stage_us[STAGE_COUNT];
    char stage_label[STAGE_COUNT][48]; /* the names sim.json gives the stages */
    double lat_mean_us;  /* sim.json summary.lat_mean_us.mean, NAN if absent */
};

/* One variant of a study summary. */
struct study_row {
    char variant[160];
    char workload[64];   /* "seq qd16"; only when asked for */
    double lat_mean, lat_ci, lat_p99, iops, iops_ci;
    int n;               /* replications */
};

/* A study summary: its rows in file order. */
struct study_table {
    char file[32];       /* its name in the directory */
    char direction[16];  /* the first row's "direction", default "write" */
    struct study_row *rows;
    int n;
};

/* Whether dir holds a run's outputs (fio.json or sim.json). */
bool run_data_is_run(const char *dir);

/*
 * Fill rd from dir's sim.json, fio.json and (with fio.json) its
 * osd.N.historic_ops.json, those present; prefix as in struct run_data.
 * Returns 0 or a negative errno (err names the file and field); either way
 * run_data_free(rd) releases what was loaded.
 */
int run_data_load(const char *dir, const char *prefix, struct run_data *rd, struct sim_err *err);

/* Release rd's series and zero it. */
void run_data_free(struct run_data *rd);

/* The scenario's name for titles: sim.json's scenario file without
   directory and extension, else the directory's base name. */
void run_data_label(const struct run_data *rd, char *out, size_t n);

/* Whether the plotted directory itself (not a run sub-directory) has the
   study summary FILE. */
bool run_data_has_summary(const struct run_data *rd, const char *file);

/*
 * Load the study summary FILE of rd's directory into s (rows need "variant",
 * lat_mean_us, lat_p99_us and iops {mean, ci95, n}; "workload" too when
 * want_workload).  Returns 0 or a negative errno; either way
 * run_data_free_study(s) releases it.
 */
int run_data_load_study(const struct run_data *rd, const char *file, bool want_workload, struct study_table *s,
                        struct sim_err *err);

/* Release t's rows. */
void run_data_free_study(struct study_table *t);

#endif
