/*
 * workload.h - what the client model runs and what it measures: fio's job
 * semantics (rw, bs, iodepth, numjobs, offsets, rates, thinktime, random
 * distributions: the names are fio's own options, HOWTO "Job file parameters")
 * and per-job results (fio's thread_stat: latency histograms in fio's buckets,
 * I/O counts, per-second samples).  Plain C: parsing job files and writing
 * fio's JSON live in explorer/io (fiojob.h, fioout.h).
 */
#ifndef CEPHSIM_MODELS_CEPH_WORKLOAD_H
#define CEPHSIM_MODELS_CEPH_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

#define FIOJOB_MAX_BSSPLIT 64     /* fio BSSPLIT_MAX */
#define FIOJOB_MAX_PERCENTILES 20 /* fio FIO_IO_U_LIST_MAX_LEN */
#define FIOJOB_MAX_ZONES 256      /* fio ZONESPLIT_MAX */

enum fio_rw { FIO_RW_READ, FIO_RW_WRITE, FIO_RW_RANDREAD, FIO_RW_RANDWRITE, FIO_RW_RW, FIO_RW_RANDRW };
/* Index of the per-direction arrays (fio DDIR_READ, DDIR_WRITE; trim is not kept). */
enum fio_ddir { FIO_DDIR_READ = 0, FIO_DDIR_WRITE = 1 };
enum fio_rand_dist { FIO_DIST_RANDOM, FIO_DIST_ZIPF, FIO_DIST_PARETO, FIO_DIST_NORMAL, FIO_DIST_ZONED,
                     FIO_DIST_ZONED_ABS };
/* random_generator: tausworthe64 behaves as tausworthe (64-bit draws where needed) */
enum fio_rand_gen { FIO_RAND_GEN_TAUSWORTHE, FIO_RAND_GEN_LFSR, FIO_RAND_GEN_TAUSWORTHE64 };
enum fio_thinktime_blocks_type { FIO_THINKTIME_COMPLETE, FIO_THINKTIME_ISSUE };
enum fio_rw_sequencer { FIO_RWSEQ_SEQUENTIAL, FIO_RWSEQ_IDENTICAL };

struct fio_bssplit {
    uint32_t bs;
    uint32_t pct; /* the percentages of one direction sum to 100 */
};

/* One zone of random_distribution=zoned (access_pct/size_pct) or zoned_abs (access_pct/size). */
struct fio_zone_split {
    uint32_t access_pct;
    uint32_t size_pct;
    uint64_t size;
};

struct workload_job {
    char name[64];          /* section name, or name= */
    char description[256];
    char ioengine[32];      /* default "psync" */
    char pool[64], rbdname[64], clientname[64], clustername[64]; /* rbd engine; "" = unset */
    char filename[256];     /* filename=; for libaio/io_uring/psync... a mapped /dev/rbdN */
    bool kernel_client;     /* the job runs on the kernel client (krbd.c), not librbd: a block
                               engine on /dev/rbdN (fiojob.c decides, scenario.c checks) */
    enum fio_rw rw;         /* default read */
    uint32_t rw_seq_nr;     /* rw=randX:<nr>: I/Os per new random offset (default 1) */
    int64_t rw_seq_add;     /* rw=write:<size>: bytes skipped after each sequential I/O;
                               negative (rw=read:-8k) goes backwards */
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
    bool thinktime_blocks_set; /* given: with thinktime_iotime it then also counts (fio_option_is_set) */
    enum fio_thinktime_blocks_type thinktime_blocks_type; /* default complete */
    uint64_t thinktime_spin_ns;   /* of thinktime, spent busy on the fio thread */
    uint64_t thinktime_iotime_ns; /* 0 = unset */
    bool group_reporting;
    double percentile_list[FIOJOB_MAX_PERCENTILES];
    int n_percentiles;
    bool clat_percentiles, lat_percentiles, slat_percentiles; /* 1 / 0 / 0 */
    enum fio_rand_dist random_distribution;
    double dist_param;      /* zipf theta, pareto h, normal deviation (%) */
    double dist_center;     /* optional ":center" in [0,1]; -1 = unset */
    struct fio_zone_split zones[2][FIOJOB_MAX_ZONES]; /* zoned / zoned_abs, per direction */
    int n_zones[2];
    bool randrepeat;        /* default 1 */
    bool norandommap;
    enum fio_rand_gen random_generator;
    uint64_t randseed;      /* default 0x89 */
    bool randseed_set;      /* given: the streams derive from it even with randrepeat=0 */
    bool new_group, stonewall;
    bool write_lat_log, write_iops_log, write_bw_log;
    char lat_log[128], iops_log[128], bw_log[128]; /* log file prefixes; "" = job name */
    uint32_t log_avg_msec;
    bool log_offset;        /* the logs' lines carry the I/O's offset (default 0) */
    bool per_job_logs;      /* log names carry the thread number (default 1) */
    char write_iolog[256];
    bool direct;            /* recorded, no effect for rbd */
    int groupid;            /* fio add_job(): stonewall/new_group open a new group */
};

/* The jobs of a run (numjobs clones each; borrowed by the model). */
struct workload {
    const struct workload_job *jobs;
    int n_jobs;
};

#define FIO_DDIR_NR 2

struct job_ddir_stats {
    uint64_t io_bytes;
    uint64_t total_ios;
    struct hist slat, clat, lat; /* ns; slat = submission, clat = completion, lat = total */
    /* per-second samples of bandwidth and IOPS, for bw_min/max/mean/dev and iops_* */
    uint32_t n_samples;
    double bw_kib_samples[1024];
    double iops_samples[1024];
};

struct job_result {
    char jobname[64];
    int groupid;
    uint32_t job_index;        /* the workload job (section) it ran: its "job options" */
    uint64_t runtime_ns;       /* measured time (after ramp_time) */
    uint32_t iodepth;          /* the job's iodepth (latency_depth) */
    struct job_ddir_stats dir[FIO_DDIR_NR];
    double usr_cpu, sys_cpu;   /* % of the fio thread over the measured time (getrusage RUSAGE_THREAD) */
    uint64_t ctx;              /* the fio thread's context switches (ru_nvcsw + ru_nivcsw) */
    /* fio's io_u_map / io_u_submit / io_u_complete (io_u.c io_u_mark_depth/_submit/_complete),
       buckets 1, 2, 4, 8, 16, 32, >=64 and 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64 */
    uint64_t io_u_map[7], io_u_submit[7], io_u_complete[7];
    uint64_t total_submit, total_complete;
    uint64_t job_runtime_ns;   /* added: fio's total_run_time, summed over merged jobs
                                  ("job_runtime", CPU % weights); 0 = runtime_ns */
};

#endif
