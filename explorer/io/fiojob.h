/*
 * fiojob.h - fio job-file parser with fio's semantics (HOWTO "Job file format",
 * "Parameter types"; init.c __parse_jobs_ini, options.c, parse.c).
 *
 * Reads the job file a user runs against a real cluster with ioengine=rbd:
 * [global] defaults for the jobs below it, bare flags, `include`, ${VAR},
 * k/m/g and time suffixes.  The simulator's client model consumes struct fio_job;
 * fioout consumes job_options/global_options ("job options" in fio's JSON).
 */
#ifndef CEPHSIM_MODELS_FIOJOB_H
#define CEPHSIM_MODELS_FIOJOB_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "err.h"

#define FIOJOB_MAX_BSSPLIT 64     /* fio BSSPLIT_MAX */
#define FIOJOB_MAX_PERCENTILES 20 /* fio FIO_IO_U_LIST_MAX_LEN */

enum fio_rw { FIO_RW_READ, FIO_RW_WRITE, FIO_RW_RANDREAD, FIO_RW_RANDWRITE, FIO_RW_RW, FIO_RW_RANDRW };
/* Index of the per-direction arrays (fio DDIR_READ, DDIR_WRITE; trim is not kept). */
enum fio_ddir { FIO_DDIR_READ = 0, FIO_DDIR_WRITE = 1 };
enum fio_rand_dist { FIO_DIST_RANDOM, FIO_DIST_ZIPF, FIO_DIST_PARETO, FIO_DIST_NORMAL };
enum fio_rw_sequencer { FIO_RWSEQ_SEQUENTIAL, FIO_RWSEQ_IDENTICAL };

struct fio_bssplit {
    uint32_t bs;
    uint32_t pct; /* the percentages of one direction sum to 100 */
};

struct fio_job {
    char name[64];          /* section name, or name= */
    char description[256];
    char ioengine[32];      /* default "psync" */
    char pool[64], rbdname[64], clientname[64], clustername[64]; /* rbd engine; "" = unset */
    enum fio_rw rw;         /* default read */
    uint32_t rw_seq_nr;     /* rw=randX:<nr>: I/Os per new random offset (default 1) */
    uint64_t rw_seq_add;    /* rw=write:<size>: bytes skipped after each sequential I/O */
    enum fio_rw_sequencer rw_sequencer;
    uint32_t rwmixread;     /* percent reads of a mixed workload; writes = 100 - this */
    uint32_t kb_base;       /* 1024 (default) or 1000 */
    uint32_t bs[2];         /* per direction, default 4096 */
    uint32_t bsrange[2][2]; /* blocksize_range {min,max} per direction; {0,0} = unset */
    struct fio_bssplit bssplit[2][FIOJOB_MAX_BSSPLIT];
    int n_bssplit[2];       /* 0 = no bssplit for that direction */
    uint32_t iodepth;       /* default 1 */
    uint32_t numjobs;       /* default 1 */
    uint64_t size;          /* bytes; 0 = unset (rbd: image size) */
    double size_pct;        /* size=N%; 0 = unset */
    uint64_t offset;
    double offset_pct;
    uint64_t io_size;       /* io_size / io_limit; 0 = unset */
    double io_size_pct;
    uint64_t number_ios;    /* 0 = unset */
    uint64_t runtime_ns;    /* 0 = unset */
    bool time_based;
    uint64_t ramp_time_ns;
    uint64_t startdelay_ns, startdelay_max_ns; /* a range when they differ */
    uint32_t rate_iops[2];  /* 0 = no cap */
    uint64_t thinktime_ns;
    uint32_t thinktime_blocks; /* default 1 */
    bool group_reporting;
    double percentile_list[FIOJOB_MAX_PERCENTILES];
    int n_percentiles;
    bool clat_percentiles, lat_percentiles, slat_percentiles; /* 1 / 0 / 0 */
    enum fio_rand_dist random_distribution;
    double dist_param;      /* zipf theta, pareto h, normal deviation (%) */
    double dist_center;     /* optional ":center" in [0,1]; -1 = unset */
    bool randrepeat;        /* default 1 */
    bool norandommap;
    uint64_t randseed;      /* default 0x89 */
    bool new_group, stonewall;
    bool write_lat_log, write_iops_log, write_bw_log;
    char lat_log[128], iops_log[128], bw_log[128]; /* log file prefixes; "" = job name */
    uint32_t log_avg_msec;
    char write_iolog[256], read_iolog[256];
    bool direct;            /* recorded, no effect for rbd */
    int groupid;            /* fio add_job(): stonewall/new_group open a new group */
    cJSON *job_options;     /* owned: this section's own options as given (fio "job options") */
};

struct fio_jobfile {
    struct fio_job *jobs;
    int n_jobs;
    char **ignored;          /* accepted options without effect on the simulation, each once */
    int n_ignored;
    cJSON *global_options;   /* owned: options of all [global] sections (fio "global options") */
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

/* Free everything owned by jf and zero it. */
void fiojob_free(struct fio_jobfile *jf);

#endif
