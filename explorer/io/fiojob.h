/*
 * fiojob.h - fio job-file parser with fio's semantics (HOWTO "Job file format",
 * "Parameter types"; init.c __parse_jobs_ini, options.c, parse.c).
 *
 * Reads the job file a user runs against a real cluster with ioengine=rbd:
 * [global] defaults for the jobs below it, bare flags, `include`, ${VAR},
 * k/m/g and time suffixes.  The client model consumes the jobs as struct
 * workload_job (models/ceph/workload.h); fioout consumes job_options and
 * global_options ("job options" in fio's JSON).
 */
#ifndef CEPHSIM_MODELS_FIOJOB_H
#define CEPHSIM_MODELS_FIOJOB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "err.h"
#include "workload.h"

struct fio_jobfile {
    struct workload_job *jobs; /* what the model runs (models/ceph/workload.h) */
    int n_jobs;
    cJSON **job_options;     /* owned, per job: its own options as given (fio "job options") */
    char **ignored;          /* accepted options without effect on the simulation, each once */
    int n_ignored;
    cJSON *global_options;   /* owned: options of all [global] sections (fio "global options") */
    struct fiojob_where *engine_where; /* owned, per job (NULL when not parsed from text): where its
                                          ioengine was set, for messages about the engine */
};

/* Where a job's ioengine comes from: "FILE:LINE" of its ioengine= line (a
   [global] one included), "--set fio.ioengine", or, when the job sets none
   (fio's default psync), "FILE:LINE" of its section header. */
struct fiojob_where {
    char at[160];
    bool defaulted;
};

/* ${NAME} lookup: returns the value or NULL when unset (expands to ""). */
struct fiojob_vars {
    const char *(*lookup)(void *ctx, const char *name);
    void *ctx;
};

/*
 * Parse a job file (includes are relative to the including file).  vars NULL =
 * environment.  On error out is left empty and err names file:line.
 */
int fiojob_parse_file(const char *path, const struct fiojob_vars *vars, struct fio_jobfile *out,
                      struct sim_err *err);

/*
 * Parse a job file held in memory (scenarios embed them); pseudo_name is used in
 * messages, includes are resolved against base_dir (NULL = current directory).
 */
int fiojob_parse_string(const char *text, const char *pseudo_name, const char *base_dir,
                        const struct fiojob_vars *vars, struct fio_jobfile *out,
                        struct sim_err *err);

/*
 * Apply one override key=value to every job (--set fio.<key>=<value>), with the
 * same validation as the file; errors name "--set fio.<key>".  value NULL = bare flag.
 */
int fiojob_set(struct fio_jobfile *jf, const char *key, const char *value, struct sim_err *err);

/* A normalized, self-contained job file of the resolved jobs (no [global], no
 * include, no ${VAR}); parsing it again yields the same jobs.  Caller frees. */
char *fiojob_to_text(const struct fio_jobfile *jf);

/* Names used in messages and in fiojob_to_text ("randwrite", "zipf"). */
const char *fiojob_rw_name(enum fio_rw rw);
const char *fiojob_dist_name(enum fio_rand_dist d);

/* fio engines doing block I/O through the kernel (libaio, io_uring, psync...):
   on a mapped RBD device (/dev/rbdN, /dev/rbd/POOL/IMAGE) the job runs on the
   kernel client (workload_job.kernel_client). */
bool fiojob_block_engine(const char *engine);
bool fiojob_is_rbd_device(const char *filename);

/* The options cephsim models with fio's own help text, then the ones accepted
   with no effect (list-params; markdown for scenarios/SCHEMA.md). */
void fiojob_print_options(FILE *f, bool markdown);

/* Free everything owned by jf and zero it. */
void fiojob_free(struct fio_jobfile *jf);

#endif
